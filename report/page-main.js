/*
 * testfs report page, part 3 of 3: the tables, the legend and the page
 * itself. When everything is drawn, #status gets data-state="ok" and
 * the counts of what was drawn (data-ranges, data-windows), which the
 * test suite reads back; an exception sets data-state="error"
 * (page-boot.js). On a matrix page (M set) this draws one kernel: its
 * page maps go where M puts them, side by side with the other kernels',
 * and the counts go back to M.
 */
/* ---------------------------------------------------------------- */
/* Tables                                                            */
/* ---------------------------------------------------------------- */

function table(parent, heads, rows, leftCols) {
	var t = html('table', {}, null, parent);
	var tr = html('tr', {}, null, html('thead', {}, null, t));
	heads.forEach(function (h, k) {
		html('th', leftCols.indexOf(k) >= 0 ? { 'class': 'l' } : {}, h,
			tr);
	});
	var tb = html('tbody', {}, null, t);
	return rows.map(function (row) {
		var r = html('tr', {}, null, tb);
		row.forEach(function (c, k) {
			html('td', leftCols.indexOf(k) >= 0 ? { 'class': 'l' } :
				{}, c, r);
		});
		return r;
	});
}

function highlight(id, on) {
	var els = mine('[data-w="' + id + '"]');
	for (var k = 0; k < els.length; k++)
		els[k].classList.toggle('hl', on);
}

function windowsTable(parent, maps) {
	var rows = windowIds.map(function (id) {
		var w = windows[id];
		return [id, D.files[w.file][0], w.cause,
			w.trigger >= 0 ? w.trigger : '-', w.start, w.size,
			w.async, w.marker >= 0 ? w.marker : '-',
			w.raPages || '-', w.read,
			w.reads.map(function (i) {
				return '#' + D.ranges[i][R_SEQ];
			}).join(' '), w.late ? 'late' : ''];
	});
	var box = html('div', { 'class': 'scroll' }, null, parent);
	var trs = table(box, ['window', 'file', 'cause', 'trigger', 'start',
		'size', 'async', 'marker', 'ra_pages', 'pages read',
		'FUSE reads (log seq)', 'waited'], rows, [1, 2, 10, 11]);
	trs.forEach(function (tr, k) {
		var w = windows[windowIds[k]];
		var sw = html('span', { 'class': 'sw' }, null, null);
		sw.style.background = color(w.cause);
		tr.children[2].insertBefore(sw, tr.children[2].firstChild);
		tr.addEventListener('mouseenter', function () {
			highlight(w.id, true);
		});
		tr.addEventListener('mouseleave', function () {
			highlight(w.id, false);
		});
		tr.addEventListener('click', function () {
			var m = maps[w.file];
			if (m)
				m.setView(w.start - w.size, w.start + 2 * w.size);
		});
	});
}

/*
 * What the reads' numbers are: the log's seq, shared with marks and
 * access records, so the reads alone skip numbers.
 */
function seqNote() {
	var seqs = D.ranges.map(function (g) { return g[R_SEQ]; });
	if (!seqs.length)
		return '';
	var lo = Math.min.apply(null, seqs), hi = Math.max.apply(null, seqs);
	var inside = function (r) { return r[0] > lo && r[0] < hi; };
	var acc = D.accesses.filter(inside).length;
	var marks = D.marks.filter(inside).length;
	var other = hi - lo + 1 - seqs.length - acc - marks;
	if (hi - lo + 1 === seqs.length)
		return 'FUSE reads #N: the read\'s seq in the log.';
	var parts = [];
	if (acc)
		parts.push(acc + ' access record' + (acc === 1 ? '' : 's'));
	if (marks)
		parts.push(marks + ' mark' + (marks === 1 ? '' : 's'));
	if (other > 0)
		parts.push(other + ' record' + (other === 1 ? '' : 's') +
			' not drawn here (reads without pages, or lost)');
	return 'FUSE reads #N: the read\'s seq in the log. Every record ' +
		'takes the next seq, reads, marks and access records alike, ' +
		'so the reads skip the numbers of the ' + listOf(parts) +
		' between #' + lo + ' and #' + hi + '.';
}

/* Bars of @counts (log scale would hide the story: linear, like the
 * 2023 report's), each labelled "@label i" and its count. */
function histogram(parent, label, counts) {
	var most = Math.max.apply(null, counts.concat([1]));
	var row = 18, w = 640, left = 110, right = 120;
	var s = svg('svg', { 'class': 'hist', width: w,
		height: row * counts.length + 4 }, parent);
	counts.forEach(function (c, i) {
		var y = 2 + row * i, len = (w - left - right) * c / most;
		var t = svg('text', { x: 0, y: y + 13 }, s);
		t.textContent = label + ' ' + i;
		svg('rect', { 'class': 'bar', x: left, y: y + 2,
			width: Math.max(len, c ? 1 : 0), height: row - 4 }, s);
		t = svg('text', { x: left + len + 6, y: y + 13 }, s);
		t.textContent = String(c);
	});
}

function verdictsTable(parent) {
	var trs = table(parent, ['policy', 'expected', 'observed', 'verdict'],
		D.verdicts, [0, 1, 2, 3]);
	trs.forEach(function (tr, k) {
		var v = D.verdicts[k][3];
		if (/^match/.test(v))
			tr.className = 'matches';
		else if (/^differ/.test(v))
			tr.className = 'differs';
	});
}

/* What the page (every kernel of a matrix page: @all) holds. */
function legend(parent, all) {
	var l = html('div', { 'class': 'legend' }, null, parent);
	var used = {}, types = {}, late = 0, nvmas = 0;
	all.forEach(function (d) {
		d.ranges.forEach(function (g) {
			used[g[R_CAUSE]] = 1;
			late += g[R_LATE];
		});
		d.accesses.forEach(function (a) {
			types[a[A_TYPE]] = 1;
			late += a[A_LATE];
		});
		nvmas += d.vmas.length;
	});
	CAUSES.forEach(function (c) {
		if (!used[c[0]])
			return;
		var s = html('span', { title: c[2] }, null, l);
		html('span', { 'class': 'sw' }, null, s).style.background = c[1];
		s.appendChild(document.createTextNode(c[0] + ': ' + c[2]));
	});
	/* Only what the page has. */
	var items = [
		[nvmas, '#f0f0f0', 'VMA (dashed lines: its ends)'],
		[types.fault || types.read, '#000',
			'accessed (fault or read(2))'],
		[types.map, '#aaa', 'mapped by fault-around'],
		[late, LATE, 'late: an access waited for the read'],
		[M && M.differs, 'repeating-linear-gradient(-45deg,#fdf1ea 0 2px,' + LATE +
			' 2px 4px)', 'differs: pages fetched on this kernel and ' +
			'not on another']];
	items.filter(function (it) { return it[0]; }).map(function (it) {
		return it.slice(1);
	}).forEach(function (it) {
		var s = html('span', {}, null, l);
		html('span', { 'class': 'sw' }, null, s).style.background = it[0];
		s.appendChild(document.createTextNode(it[1]));
	});
	['▼ marker page: touching it starts the next window',
	 'time line: hatched = injected delay',
	 'outline dashed = async, dotted = read-around',
	 '× = an access that waited for a read, • = one that did not'
	].forEach(function (t) { html('span', {}, t, l); });
}

/* ---------------------------------------------------------------- */
/* The page                                                          */
/* ---------------------------------------------------------------- */

function button(parent, text, fn) {
	var b = html('button', { type: 'button' }, text, parent);
	b.addEventListener('click', fn);
	return b;
}

function fileSection(root, f, width, maps) {
	html('h2', {}, 'File ' + f.name + (f.pages ? ' (' + f.pages +
		' pages)' : ' (size unknown: EOF not drawn)'), root);
	var out = outsideRegions(f);
	if (out.length) {
		var st = html('div', { 'class': 'story' }, null, root);
		var fetched = 0, vpages = 0;
		fetchedOf(f).forEach(function (e) { fetched += e[1] - e[0]; });
		f.vmas.forEach(function (i) {
			vpages += D.vmas[i][2] - D.vmas[i][1] + 1;
		});
		var lead = html('p', {}, null, st);
		html('b', {}, 'The kernel read ' + fetched + ' pages of ' +
			f.name + ' for ' + (f.vmas.length > 1 ? f.vmas.length +
			' VMAs of ' + vpages + ' pages' : 'a VMA of ' + vpages +
			' pages') + ': ' + listOf(out.map(function (o) {
			return (o.end - o.first) + ' pages ' + (o.where ===
				'between' ? 'between them' : o.where + ' it');
		})) + ', which nothing can reach through this mapping.',
			lead);
		out.forEach(function (o) {
			var p = html('p', {}, null, st), so = storyOf(f, o);
			html('b', {}, so[0] + ' ', p);
			p.appendChild(document.createTextNode(so[1]));
		});
	} else if (f.vmas.length && f.ranges.length) {
		html('p', { 'class': 'note' }, 'Every fetched page lies ' +
			'inside the VMA' + (f.vmas.length > 1 ? 's' : '') + '.',
			root);
	}
	if (readsUntraced(f))
		html('p', { 'class': 'warn' }, 'No read(2) access of ' + f.name +
			' is in the log: read(2) started its readahead, and ' +
			'the daemon traces read(2) lookups only with ' +
			'--trace-reads (libtestfs: trace_reads). The accessed ' +
			'lane is empty and page age counts these pages as ' +
			'never accessed because the accesses were not traced, ' +
			'not because nothing read them.', root);
	else if (untraced(f))
		html('p', { 'class': 'warn' }, 'Kernel tracing was off for ' +
			'this log (it needs root and tracefs): no access, ' +
			'cause or window of ' + f.name + ' is known.', root);
	/* A matrix page puts the maps of every kernel one under another. */
	var mapRoot = M ? M.mapSlot(f) : root;
	var tools = html('div', { 'class': 'tools' }, null, mapRoot);
	var info = html('span', { 'class': 'viewinfo' }, null, null);
	var max = M ? M.home(f) : f.pages || f.end || 1;
	var m = new MapView(f, width, { a: 0, b: max }, { main: true,
		interactive: true, info: info, diff: M ? M.diff(f) : null,
		caption: 'The whole file' });
	m.home = [0, max];
	maps[f.i] = m;
	button(tools, 'whole file', function () { m.reset(); });
	var fe = fetchedOf(f);
	if (fe.length)
		button(tools, 'fetched pages', function () {
			var a = fe[0][0], b = fe[fe.length - 1][1];
			m.setView(a - (b - a) * 0.05, b + (b - a) * 0.05);
		});
	f.vmas.forEach(function (i) {
		var v = D.vmas[i], pad = 48;
		button(tools, 'VMA ' + v[1] + ' start', function () {
			m.setView(v[1] - pad, v[1] + pad);
		});
		button(tools, 'end', function () {
			m.setView(v[2] + 1 - pad, v[2] + 1 + pad);
		});
	});
	button(tools, '−', function () {
		var s = m.view.b - m.view.a;
		m.setView(m.view.a - s / 2, m.view.b + s / 2);
	});
	button(tools, '+', function () {
		var s = m.view.b - m.view.a;
		m.setView(m.view.a + s / 4, m.view.b - s / 4);
	});
	var inp = html('input', { type: 'text', placeholder: 'pages A-B' },
		null, tools);
	inp.addEventListener('change', function () {
		var r = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(inp.value);
		if (r)
			m.setView(+r[1], (r[2] !== undefined ? +r[2] : +r[1]) + 1);
	});
	tools.appendChild(info);
	mapRoot.appendChild(m.el);
	if (M)
		M.link(f, m);
	/* A link can open the page on a range: page.html#pages=1000-1050. */
	var hash = /pages=(\d+)-(\d+)/.exec(location.hash);
	if (hash && +hash[2] >= +hash[1])
		m.setView(+hash[1], +hash[2] + 1);
	else
		m.draw();

	/* Close-ups of each place where pages were fetched outside a VMA. */
	if (out.length) {
		var row = html('div', { style: 'display:flex;flex-wrap:wrap;' +
			'gap:8px;margin-top:6px' }, null, root);
		var iw = out.length > 1 ? Math.floor((width - 20) / 2) : width;
		out.slice(0, 4).forEach(function (o) {
			var edge = o.where === 'before' ? o.vma[0] : o.vma[1];
			var n = o.end - o.first;
			var span = Math.max(48, Math.min(6 * n, 512));
			var a = o.where === 'before' ? edge - span * 0.6 :
				edge - span * 0.4;
			var z = new MapView(f, iw, { a: a, b: a + span }, {
				interactive: true, why: true, caption: 'Close-up: ' + n +
				' page' + (n === 1 ? '' : 's') + ' ' + o.where +
				' the VMA (drag, wheel)' });
			z.home = [a, a + span];
			row.appendChild(z.el);
		});
	}

	html('h3', {}, 'Time line: each FUSE read as a bar from arrival to ' +
		'reply (pages follow the zoom of the page map)', root);
	var tl = new TimeView(f, width, m);
	m.listeners.push(function () {
		tl.pv.a = m.view.a;
		tl.pv.b = m.view.b;
		tl.draw();
	});
	root.appendChild(tl.el);
}

function summary(root) {
	var reads = D.ranges.length, pages = 0, late = 0, lateAcc = 0;
	D.ranges.forEach(function (g) {
		pages += g[R_PAGES];
		late += g[R_LATE];
	});
	D.accesses.forEach(function (a) { lateAcc += a[A_LATE]; });
	var s = html('div', { 'class': 'summary' }, null, root);
	[[reads, 'FUSE reads'], [pages, 'pages read'],
	 [windowIds.length, 'readahead windows'],
	 [lateAcc, 'accesses that waited for a read'],
	 [D.vmas.length, 'VMAs']].forEach(function (it) {
		var e = html('span', {}, null, s);
		html('b', {}, String(it[0]), e);
		e.appendChild(document.createTextNode(' ' + it[1]));
	});
	void late;
}

function main() {
	/* Minus the 1px borders of the pictures. */
	var width = M ? M.width : Math.max(900, Math.min(1600,
		root.clientWidth - 4));
	if (M) {
		html('h2', { 'class': 'kernel' }, M.title, root);
	} else {
		document.title = D.title;
		html('h1', {}, D.title, root);
	}
	if (D.subtitle)
		html('div', { 'class': 'sub' }, D.subtitle, root);
	summary(root);
	if (D.lost)
		html('p', { 'class': 'warn' }, D.lost + ' records were lost ' +
			'(the log overflowed): the picture is incomplete.',
			root);
	if (!D.ranges.length)
		html('p', { 'class': 'warn' }, 'The log holds no FUSE read.',
			root);
	if (!M)
		legend(root, [D]);
	else if (M.legend)
		legend(M.legend, M.allData);
	var maps = {};
	files.forEach(function (f) {
		if (f.ranges.length || f.accesses.length || f.vmas.length)
			fileSection(root, f, width, maps);
	});
	if (D.verdicts.length) {
		html('h2', {}, 'Readahead policies: expected and observed',
			root);
		verdictsTable(root);
	}
	if (windowIds.length) {
		html('h2', {}, 'Readahead windows (hover: highlight, click: ' +
			'zoom)', root);
		windowsTable(root, maps);
		[seqNote(), windowsNote()].forEach(function (n) {
			if (n)
				html('p', { 'class': 'note' }, n, root);
		});
	}
	(D.hists || []).forEach(function (h) {
		html('h2', {}, h[0], root);
		histogram(root, h[1], h[2]);
	});
	if (D.notes.length) {
		html('h2', {}, 'In plain words', root);
		D.notes.forEach(function (n) {
			html('p', { 'class': 'note' }, n, root);
		});
	}

	/* What the test suite checks: what was drawn, in the main maps. */
	var drawn = {}, wins = mine('svg.map.main rect.window');
	for (var k = 0; k < wins.length; k++)
		drawn[wins[k].getAttribute('data-w')] = 1;
	var counts = {
		ranges: mine('svg.map.main rect.range').length,
		windows: Object.keys(drawn).length,
		timeline: root.querySelectorAll('svg.time rect.tlrange').length
	};
	if (M)
		return M.drawn(counts, maps);
	status.setAttribute('data-ranges', counts.ranges);
	status.setAttribute('data-windows', counts.windows);
	status.setAttribute('data-timeline', counts.timeline);
	if (status.getAttribute('data-state') === 'loading')
		status.setAttribute('data-state', 'ok');
	if (/selftest/.test(location.hash))
		selftest(maps);
	if (/labelcheck/.test(location.hash))
		labelcheck(maps);
}

/*
 * page.html#selftest: what a reader does, done by the page itself in a
 * headless browser (the test suite reads data-selftest back): the mouse
 * wheel zooms the map in, the map goes down to single pages, and
 * hovering a read shows its record.
 */
function selftest(maps) {
	var keys = Object.keys(maps), bad = [];
	if (!keys.length)
		return status.setAttribute('data-selftest', 'no map');
	var m = maps[keys[0]], el = m.el, span = m.view.b - m.view.a;
	var r = el.getBoundingClientRect();
	el.dispatchEvent(new WheelEvent('wheel', { deltaY: -100,
		clientX: r.left + r.width / 2, clientY: r.top + 20,
		bubbles: true, cancelable: true }));
	if (!(m.view.b - m.view.a < span))
		bad.push('the wheel did not zoom in');
	var g = D.ranges[m.f.ranges[0]];
	m.setView(g[R_FIRST], g[R_FIRST] + 8);
	var px = (m.w - LABEL_W - 8) / (m.view.b - m.view.a);
	var ticks = 0;
	el.querySelectorAll('text').forEach(function (t) {
		if (t.textContent === String(g[R_FIRST] + 1))
			ticks++;
	});
	if (px < 50 || !ticks)
		bad.push('no single-page view (' + px.toFixed(1) + ' px/page)');
	var rect = el.querySelector('rect.range');
	var b = rect.getBoundingClientRect();
	rect.dispatchEvent(new MouseEvent('mousemove', { bubbles: true,
		clientX: b.left + 2, clientY: b.top + 2 }));
	var seq = D.ranges[+rect.getAttribute('data-k').slice(2)][R_SEQ];
	if (tip.style.display !== 'block' ||
	    tip.textContent.indexOf('FUSE read #' + seq) < 0)
		bad.push('hovering a read showed "' + tip.textContent + '"');
	m.reset();
	status.setAttribute('data-selftest', bad.length ? bad.join('; ') :
		'ok');
}

/*
 * The labels' boxes in every picture of the page, as drawn: @what says
 * which view. Returns the overlaps: a label over another label, over a
 * guide line (VMA ends, EOF, marks) or over a drawn record (a read, an
 * access, a window, a marker; not the VMA's own box or band, which a
 * label may sit in).
 */
function labelOverlaps(what) {
	var bad = [], n = 0;
	var cut = function (a, b) {
		return a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
			a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
	};
	var name = function (t) {
		return '"' + t.textContent.slice(0, 40) + '"';
	};
	mine('svg').forEach(function (s) {
		var labels = [].slice.call(s.querySelectorAll('text.label'));
		var boxes = labels.map(function (t) {
			return t.getBoundingClientRect();
		});
		var things = [].slice.call(s.querySelectorAll(
			'.guide, [data-k]:not(text)')).filter(function (e) {
			return !/^v:/.test(e.getAttribute('data-k') || '');
		});
		n += labels.length;
		labels.forEach(function (t, i) {
			for (var j = i + 1; j < labels.length; j++)
				if (cut(boxes[i], boxes[j]))
					bad.push(what + ': label ' + name(t) +
						' overlaps label ' + name(labels[j]));
			things.forEach(function (e) {
				if (cut(boxes[i], e.getBoundingClientRect()))
					bad.push(what + ': label ' + name(t) +
						' covers ' + e.tagName + ' ' +
						(e.getAttribute('data-k') ||
						 e.getAttribute('class')));
			});
		});
	});
	return { bad: bad, n: n };
}

/*
 * page.html#labelcheck: the labels of the page as it opens and zoomed on
 * each VMA's start and end (the test suite reads data-labels back, and
 * data-label-count, the labels checked).
 */
function labelcheck(maps) {
	var r = labelOverlaps('whole file'), bad = r.bad, n = r.n;
	Object.keys(maps).forEach(function (k) {
		var m = maps[k];
		m.f.vmas.forEach(function (i) {
			[D.vmas[i][1], D.vmas[i][2] + 1].forEach(function (p) {
				m.setView(p - 48, p + 48);
				var z = labelOverlaps('pages ' + (p - 48) + '-' +
					(p + 48));
				bad = bad.concat(z.bad);
				n += z.n;
			});
		});
		m.reset();
	});
	status.setAttribute('data-label-count', n);
	status.setAttribute('data-labels', bad.length ?
		bad.slice(0, 8).join('; ') : 'ok');
}

return main();
