/*
 * testfs report page: draws the pictures from the JSON in #data. Plain
 * JavaScript, no library, nothing fetched. When it has drawn everything
 * it writes the counts of what it drew into #status (data-state="ok",
 * data-ranges, data-windows), which the test suite reads back; an
 * exception sets data-state="error" and shows the message on the page.
 */
(function () {
'use strict';

var status = document.getElementById('status');
window.addEventListener('error', function (e) {
	status.setAttribute('data-state', 'error');
	status.setAttribute('data-error', String(e.message));
	var p = document.createElement('p');
	p.className = 'error';
	p.textContent = 'This page failed to draw: ' + e.message;
	document.body.insertBefore(p, document.body.firstChild);
});

var D = JSON.parse(document.getElementById('data').textContent);
var SVGNS = 'http://www.w3.org/2000/svg';

/* Columns of D.ranges and D.accesses (html.c writes them in this order). */
var R_SEQ = 0, R_FILE = 1, R_FIRST = 2, R_PAGES = 3, R_CAUSE = 4,
	R_WIN = 5, R_TRIG = 6, R_MARK = 7, R_T = 8, R_DONE = 9,
	R_DELAY = 10, R_ERR = 11, R_LATE = 12, R_RASTART = 13,
	R_RASIZE = 14, R_RAASYNC = 15;
var A_SEQ = 0, A_FILE = 1, A_TYPE = 2, A_FIRST = 3, A_PAGES = 4, A_T = 5,
	A_END = 6, A_EVENTS = 7, A_LATE = 8;

/* Okabe-Ito: told apart with every common colour-vision deficiency. */
var CAUSES = [
	['readaround', '#CC79A7', 'mmap read-around: a fault reads a window ' +
		'of ra_pages centred on the faulting page'],
	['sync', '#0072B2', 'sync readahead: a miss starts a new window at ' +
		'the missed page'],
	['async', '#009E73', 'async readahead: touching a marker page ' +
		'starts the next window ahead'],
	['forced', '#F0E442', 'forced: fadvise/madvise WILLNEED or ' +
		'readahead(2)'],
	['single', '#56B4E9', 'one page, no readahead'],
	['direct', '#999999', 'O_DIRECT: no page cache'],
	['unknown', '#BBBBBB', 'no kernel event explains it (was kernel ' +
		'tracing on?)']
];
var COLOR = {}, WHY = {};
CAUSES.forEach(function (c) { COLOR[c[0]] = c[1]; WHY[c[0]] = c[2]; });
var LATE = '#D55E00';

function color(cause) { return COLOR[cause] || COLOR.unknown; }

function svg(tag, attrs, parent) {
	var e = document.createElementNS(SVGNS, tag);
	for (var k in attrs)
		e.setAttribute(k, attrs[k]);
	if (parent)
		parent.appendChild(e);
	return e;
}

function html(tag, attrs, text, parent) {
	var e = document.createElement(tag);
	for (var k in attrs)
		e.setAttribute(k, attrs[k]);
	if (text !== undefined && text !== null)
		e.textContent = text;
	if (parent)
		parent.appendChild(e);
	return e;
}

function stext(parent, x, y, s, cls, anchor) {
	var t = svg('text', { x: x, y: y }, parent);
	if (cls)
		t.setAttribute('class', cls);
	if (anchor)
		t.setAttribute('text-anchor', anchor);
	t.textContent = s;
	return t;
}

function fmtT(ns) {
	if (ns < 1e3)
		return ns + ' ns';
	if (ns < 1e6)
		return (ns / 1e3).toFixed(ns < 1e4 ? 1 : 0) + ' µs';
	if (ns < 1e9)
		return (ns / 1e6).toFixed(ns < 1e7 ? 2 : 1) + ' ms';
	return (ns / 1e9).toFixed(2) + ' s';
}

function pageSpan(a, b) { return a === b ? 'page ' + a : a + '-' + b; }

function protText(p) {
	return (p & 1 ? 'r' : '-') + (p & 2 ? 'w' : '-') + (p & 4 ? 'x' : '-');
}

/* A "nice" tick step of about @target units. */
function niceStep(span, target) {
	var raw = span / target, p = Math.pow(10, Math.floor(Math.log10(raw)));
	var m = raw / p;
	return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/* ---------------------------------------------------------------- */
/* The data, per file                                                */
/* ---------------------------------------------------------------- */

var files = D.files.map(function (f, i) {
	return { i: i, name: f[0], pages: f[1], ranges: [], accesses: [],
		 vmas: [], windows: [], end: 0, tmin: Infinity, tmax: 0 };
});
D.ranges.forEach(function (g, i) {
	var f = files[g[R_FILE]];
	f.ranges.push(i);
	f.end = Math.max(f.end, g[R_FIRST] + g[R_PAGES]);
	f.tmin = Math.min(f.tmin, g[R_T]);
	f.tmax = Math.max(f.tmax, g[R_DONE]);
});
D.accesses.forEach(function (a, i) {
	var f = files[a[A_FILE]];
	f.accesses.push(i);
	f.end = Math.max(f.end, a[A_FIRST] + a[A_PAGES]);
	f.tmin = Math.min(f.tmin, a[A_T]);
	f.tmax = Math.max(f.tmax, a[A_END]);
});
D.vmas.forEach(function (v, i) {
	var f = files[v[0]];
	f.vmas.push(i);
	f.end = Math.max(f.end, v[2] + 1);
});
files.forEach(function (f) {
	if (f.tmin > f.tmax)
		f.tmin = f.tmax = 0;
});

/* Windows: the kernel batches, from the reads that carry their id. */
var windows = {}, windowIds = [];
D.ranges.forEach(function (g, i) {
	var id = g[R_WIN];
	if (!id)
		return;
	var w = windows[id];
	if (!w) {
		w = windows[id] = { id: id, file: g[R_FILE], cause: g[R_CAUSE],
			trigger: g[R_TRIG], start: g[R_RASTART],
			size: g[R_RASIZE], async: g[R_RAASYNC],
			marker: g[R_MARK], read: 0, reads: [], late: 0 };
		windowIds.push(id);
		files[g[R_FILE]].windows.push(id);
	}
	w.read += g[R_PAGES];
	w.reads.push(i);
	if (g[R_LATE])
		w.late++;
});
windowIds.sort(function (a, b) { return a - b; });

/* Sorted, coalesced [first, end) extents of the pages of @list. */
function extents(list) {
	var v = list.slice().sort(function (a, b) { return a[0] - b[0]; });
	var out = [];
	v.forEach(function (e) {
		var last = out[out.length - 1];
		if (last && e[0] <= last[1])
			last[1] = Math.max(last[1], e[1]);
		else
			out.push([e[0], e[1]]);
	});
	return out;
}

function fetchedOf(f) {
	return extents(f.ranges.filter(function (i) {
		return !D.ranges[i][R_ERR];
	}).map(function (i) {
		var g = D.ranges[i];
		return [g[R_FIRST], g[R_FIRST] + g[R_PAGES]];
	}));
}

/*
 * The story: pages fetched outside the file's VMAs (before the first,
 * between two, after the last), each with the reads that fetched them
 * and why the kernel sent those reads.
 */
function outsideRegions(f) {
	if (!f.vmas.length)
		return [];
	var maps = extents(f.vmas.map(function (i) {
		return [D.vmas[i][1], D.vmas[i][2] + 1];
	}));
	var out = [];
	fetchedOf(f).forEach(function (e) {
		var a = e[0];
		maps.forEach(function (m, k) {
			if (a < m[0] && a < e[1]) {
				var b = Math.min(e[1], m[0]);
				out.push({ first: a, end: b,
					where: k === 0 ? 'before' : 'between',
					vma: m });
			}
			a = Math.max(a, m[1]);
		});
		if (a < e[1])
			out.push({ first: a, end: e[1], where: 'after',
				   vma: maps[maps.length - 1] });
	});
	out.forEach(function (o) {
		o.reads = f.ranges.filter(function (i) {
			var g = D.ranges[i];
			return !g[R_ERR] && g[R_FIRST] < o.end &&
				g[R_FIRST] + g[R_PAGES] > o.first;
		});
	});
	return out;
}

function inVmas(f, page) {
	return f.vmas.some(function (i) {
		return page >= D.vmas[i][1] && page <= D.vmas[i][2];
	});
}

function listOf(v) {
	return v.length < 3 ? v.join(' and ') : v.slice(0, -1).join(', ') +
		' and ' + v[v.length - 1];
}

/*
 * One place where pages were fetched outside the VMAs, told for someone
 * who never read mm/readahead.c: which access started which decision,
 * what the decision reads, and why that crosses the VMA's end.
 * Returns [heading, sentence].
 */
function storyOf(f, o) {
	var n = o.end - o.first, groups = {}, order = [];
	o.reads.forEach(function (i) {
		var g = D.ranges[i], c = g[R_CAUSE], w = windows[g[R_WIN]];
		if (!groups[c]) {
			groups[c] = { trig: [], spans: [], seqs: [] };
			order.push(c);
		}
		var e = groups[c];
		if (g[R_TRIG] >= 0 && e.trig.indexOf(g[R_TRIG]) < 0)
			e.trig.push(g[R_TRIG]);
		var span = w && w.start >= 0 ? pageSpan(w.start, w.start +
			w.size - 1) : pageSpan(g[R_FIRST], g[R_FIRST] +
			g[R_PAGES] - 1);
		if (e.spans.indexOf(span) < 0)
			e.spans.push(span);
		e.seqs.push('#' + g[R_SEQ]);
	});
	var edge = o.where === 'after' ? 'end' : 'start';
	var head = (o.where === 'before' ? 'Before' : o.where === 'after' ?
		'After' : 'Between') + ' the VMA' + (o.where === 'between' ?
		's' : '') + ': ' + n + (n === 1 ? ' page' : ' pages') + ' (' +
		pageSpan(o.first, o.end - 1) + ').';
	var parts = order.map(function (c) {
		var e = groups[c], t = e.trig.slice(0, 4), many = e.trig.length > 1;
		var inside = t.length && t.every(function (p) {
			return inVmas(f, p);
		}) ? ' (inside the VMA)' : '';
		var reads = ' [FUSE read' + (e.seqs.length > 1 ? 's ' : ' ') +
			e.seqs.slice(0, 4).join(', ') + ']';
		if (c === 'readaround' && t.length)
			return 'The fault on page ' + listOf(t) + inside +
				' made the kernel read around it: pages ' +
				listOf(e.spans) + ', a window centred on the ' +
				'fault, placed without looking at where the ' +
				'VMA ' + edge + 's.' + reads;
		if (c === 'async' && t.length)
			return 'Touching marker page' + (many ? 's ' : ' ') +
				listOf(t) + inside + ' started async ' +
				'readahead of pages ' + listOf(e.spans) +
				': readahead reads ahead of the accesses, ' +
				'one window at a time, and nothing stops it ' +
				'at the VMA ' + edge + '.' + reads;
		if (c === 'sync' && t.length)
			return 'A miss on page ' + listOf(t) + inside +
				' started sync readahead of pages ' +
				listOf(e.spans) + ', which runs past the VMA ' +
				edge + '.' + reads;
		return 'Pages ' + listOf(e.spans) + (t.length ? ', for ' +
			'page ' + listOf(t) : '') + ' were read; cause ' + c +
			': ' + (WHY[c] || c) + '.' + reads;
	});
	return [head, parts.join(' ')];
}

/* The same in a few words, for the label on a close-up. */
function shortWhy(f, o) {
	var byCause = {};
	o.reads.forEach(function (i) {
		var g = D.ranges[i], c = g[R_CAUSE];
		byCause[c] = byCause[c] || [];
		if (g[R_TRIG] >= 0 && byCause[c].indexOf(g[R_TRIG]) < 0)
			byCause[c].push(g[R_TRIG]);
	});
	return Object.keys(byCause).map(function (c) {
		var t = byCause[c], what = c === 'readaround' ?
			'read-around of the fault on page ' : c === 'async' ?
			'async window' + (t.length > 1 ? 's' : '') +
			' started by touching page' + (t.length > 1 ? 's ' :
			' ') : c + ' read' + (t.length ? ' for page ' : '');
		return what + t.slice(0, 3).join(', ') +
			(t.length > 3 ? ' ...' : '');
	}).join('; ');
}

/* ---------------------------------------------------------------- */
/* Tooltips                                                          */
/* ---------------------------------------------------------------- */

var tip = html('div', { id: 'tip' }, null, document.body);

function rangeText(i) {
	var g = D.ranges[i], w = windows[g[R_WIN]];
	var s = 'FUSE read #' + g[R_SEQ] + '  ' + D.files[g[R_FILE]][0] +
		'\npages ' + pageSpan(g[R_FIRST], g[R_FIRST] + g[R_PAGES] - 1) +
		' (' + g[R_PAGES] + ')\ncause ' + g[R_CAUSE] +
		(g[R_WIN] ? '   window ' + g[R_WIN] : '') +
		'\ntrigger page ' + (g[R_TRIG] >= 0 ? g[R_TRIG] : '-') +
		'   marker ' + (g[R_MARK] >= 0 ? g[R_MARK] : '-') +
		'\narrived ' + fmtT(g[R_T]) + '   replied ' + fmtT(g[R_DONE]) +
		'\nin flight ' + fmtT(g[R_DONE] - g[R_T]) +
		'   injected delay ' + fmtT(g[R_DELAY]);
	if (w)
		s += '\nwindow start ' + w.start + ' size ' + w.size +
			' async ' + w.async;
	if (g[R_ERR])
		s += '\nanswered with errno ' + g[R_ERR];
	if (g[R_LATE])
		s += '\nLATE: an access waited for this read';
	return s;
}

function accessText(i) {
	var a = D.accesses[i];
	return a[A_TYPE] + ' record #' + a[A_SEQ] + '  ' + D.files[a[A_FILE]][0] +
		'\npages ' + pageSpan(a[A_FIRST], a[A_FIRST] + a[A_PAGES] - 1) +
		'\nat ' + fmtT(a[A_T]) +
		(a[A_END] > a[A_T] ? ' - ' + fmtT(a[A_END]) : '') +
		'\nevents ' + a[A_EVENTS] + '   waited on a read ' + a[A_LATE];
}

function windowText(id) {
	var w = windows[id];
	return 'window ' + id + ' (' + w.cause + ')\npages ' +
		pageSpan(w.start, w.start + w.size - 1) + ' (size ' + w.size +
		', async ' + w.async + ')\ntrigger page ' +
		(w.trigger >= 0 ? w.trigger : '-') + '   marker ' +
		(w.marker >= 0 ? w.marker : '-') + '\nread ' + w.read +
		' pages in ' + w.reads.length + ' FUSE read(s)';
}

function tipFor(k) {
	var v = k.slice(2);
	switch (k[0]) {
	case 'r': return rangeText(+v);
	case 'a': return accessText(+v);
	case 'w': return windowText(+v);
	case 'v':
		var m = D.vmas[+v];
		return 'VMA pages ' + pageSpan(m[1], m[2]) + ' (' +
			(m[2] - m[1] + 1) + ' pages) ' + protText(m[3]);
	case 'm': return 'marker page ' + v + ': touching it starts the ' +
		'next async window';
	default: return v;
	}
}

document.addEventListener('mousemove', function (e) {
	var t = e.target.closest ? e.target.closest('[data-k]') : null;
	if (!t) {
		tip.style.display = 'none';
		return;
	}
	tip.textContent = tipFor(t.getAttribute('data-k'));
	tip.style.display = 'block';
	var x = e.clientX + 14, y = e.clientY + 14;
	if (x + tip.offsetWidth > window.innerWidth)
		x = e.clientX - tip.offsetWidth - 8;
	if (y + tip.offsetHeight > window.innerHeight)
		y = e.clientY - tip.offsetHeight - 8;
	tip.style.left = x + 'px';
	tip.style.top = y + 'px';
});

/* ---------------------------------------------------------------- */
/* The page map                                                      */
/* ---------------------------------------------------------------- */

var LABEL_W = 92;

/* Rows of non-overlapping ranges (a re-read would hide its first read). */
function rowsOf(list) {
	var ends = [], row = {};
	list.slice().sort(function (a, b) {
		return D.ranges[a][R_FIRST] - D.ranges[b][R_FIRST];
	}).forEach(function (i) {
		var g = D.ranges[i], r = 0;
		while (r < ends.length && ends[r] > g[R_FIRST])
			r++;
		ends[r] = g[R_FIRST] + g[R_PAGES];
		row[i] = r;
	});
	return { row: row, n: Math.max(1, ends.length) };
}

/*
 * One panel: the file's pages in [view.a, view.b) across @width pixels,
 * lanes VMAs, accesses, windows, reads and outside-the-VMA notes.
 */
function MapView(f, width, view, opts) {
	this.f = f;
	this.w = width;
	this.view = view;
	this.opts = opts || {};
	this.rows = rowsOf(f.ranges);
	this.out = outsideRegions(f);
	this.el = svg('svg', { 'class': 'map' + (this.opts.main ? ' main' :
		''), width: width });
	this.listeners = [];
	if (this.opts.interactive)
		interact(this, this.el, 'x');
	this.draw();
}

MapView.prototype.x = function (p) {
	var v = this.view, s = (this.w - LABEL_W - 8) / (v.b - v.a);
	var x = LABEL_W + (p - v.a) * s;
	/* Keep huge zoom factors from producing huge coordinates. */
	return Math.max(LABEL_W - 4, Math.min(this.w + 4, x));
};

MapView.prototype.setView = function (a, b) {
	var max = this.f.pages || this.f.end || 1;
	var span = Math.max(8, Math.min(b - a, max * 1.5 + 8));
	/* At least half of the view stays on the file. */
	a = Math.max(-span / 2, Math.min(a, max - span / 2));
	this.view.a = a;
	this.view.b = a + span;
	this.draw();
	this.listeners.forEach(function (fn) { fn(); });
};

MapView.prototype.draw = function () {
	var self = this, f = this.f, g = this.el, v = this.view;
	var x = function (p) { return self.x(p); };
	var ppp = (this.w - LABEL_W - 8) / (v.b - v.a);
	while (g.firstChild)
		g.removeChild(g.firstChild);
	var defs = svg('defs', {}, g);
	var pat = svg('pattern', { id: 'eofhatch' + (MapView.n = (MapView.n ||
		0) + 1), width: 6, height: 6, patternUnits: 'userSpaceOnUse',
		patternTransform: 'rotate(45)' }, defs);
	svg('rect', { width: 6, height: 6, fill: '#fff' }, pat);
	svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#bbb',
		'stroke-width': 2 }, pat);

	var y = 4;
	var caption = this.opts.caption;
	if (this.opts.main && (v.a > 0 || v.b < (f.pages || f.end)))
		caption = 'Pages ' + Math.max(0, Math.floor(v.a)) + '-' +
			Math.ceil(v.b - 1) + ' (double click: the whole file)';
	if (caption) {
		stext(g, LABEL_W, 13, caption, 'lane');
		y = 18;
	}
	/* Axis. */
	var axisY = y + 12, step = niceStep(v.b - v.a, this.w / 110);
	step = Math.max(1, Math.round(step));
	for (var t = Math.ceil(Math.max(0, v.a) / step) * step; t <= v.b;
		t += step) {
		svg('line', { x1: x(t), x2: x(t), y1: axisY, y2: axisY + 4,
			stroke: '#555' }, g);
		stext(g, x(t), axisY - 2, String(t), null, 'middle');
	}
	stext(g, 4, axisY - 2, 'page', 'lane');
	y = axisY + 8;

	var lanes = { vma: y, acc: y + 24, win: y + 44,
		reads: y + 66 };
	var rowH = 16, readsH = this.rows.n * (rowH + 2);
	lanes.out = lanes.reads + readsH + 4;
	var bottom = lanes.out + (this.out.length ? 30 : 6);
	g.setAttribute('height', bottom + 4);
	stext(g, 4, lanes.vma + 15, 'VMA', 'lane');
	stext(g, 4, lanes.acc + 12, 'accessed', 'lane');
	stext(g, 4, lanes.win + 13, 'windows', 'lane');
	stext(g, 4, lanes.reads + 13, 'FUSE reads', 'lane');

	/* Past EOF: hatched, with a line at the end of the file. */
	if (f.pages && f.pages < v.b) {
		svg('rect', { x: x(f.pages), y: lanes.vma, width:
			Math.max(0, x(v.b) - x(f.pages)), height: bottom -
			lanes.vma, fill: 'url(#' + pat.id + ')' }, g);
		svg('line', { x1: x(f.pages), x2: x(f.pages), y1: axisY,
			y2: bottom, stroke: '#000', 'stroke-width': 2 }, g);
		stext(g, x(f.pages) + 3, lanes.vma + 10, 'EOF (' + f.pages +
			' pages)');
	}
	if (v.a < 0)
		svg('rect', { x: LABEL_W, y: lanes.vma, width: x(0) - LABEL_W,
			height: bottom - lanes.vma, fill: '#f4f4f4' }, g);

	/* Page grid when single pages are wide enough to see. */
	if (ppp >= 5) {
		for (var p = Math.ceil(Math.max(v.a, 0)); p <= v.b; p++)
			svg('line', { x1: x(p), x2: x(p), y1: lanes.acc,
				y2: lanes.out, stroke: '#e6e6e6' }, g);
	}

	/* VMAs: a box per VMA, dashed lines at its ends across the lanes. */
	f.vmas.forEach(function (i) {
		var m = D.vmas[i], a = x(m[1]), b = x(m[2] + 1);
		svg('rect', { x: a, y: lanes.vma + 2, width: Math.max(1, b - a),
			height: 18, fill: '#f0f0f0', stroke: '#000',
			'data-k': 'v:' + i }, g);
		[a, b].forEach(function (xx) {
			svg('line', { x1: xx, x2: xx, y1: lanes.vma,
				y2: bottom, stroke: '#000',
				'stroke-dasharray': '4 3' }, g);
		});
		var label = 'VMA ' + m[1] + '-' + m[2] + ' ' + protText(m[3]);
		if (b - a > label.length * 6.2)
			stext(g, (a + b) / 2, lanes.vma + 15, label, null,
				'middle');
	});

	/* Accesses: faults and read(2) black, fault-around mapping grey. */
	f.accesses.forEach(function (i) {
		var a = D.accesses[i], map = a[A_TYPE] === 'map';
		var xa = x(a[A_FIRST]), xb = x(a[A_FIRST] + a[A_PAGES]);
		var late = a[A_LATE] > 0;
		svg('rect', { x: xa, y: lanes.acc + (map ? 10 : 2),
			width: Math.max(map ? 0.5 : 1.5, xb - xa),
			height: map ? 5 : 8, fill: map ? '#aaa' : late ? LATE :
			'#000', 'data-k': 'a:' + i }, g);
	});

	/* Windows: outline of the window, a triangle on its marker page. */
	f.windows.forEach(function (id) {
		var w = windows[id];
		if (w.start < 0)
			return;
		var xa = x(w.start), xb = x(w.start + w.size);
		svg('rect', { 'class': 'window', x: xa, y: lanes.win + 2,
			width: Math.max(1, xb - xa), height: 14, fill: '#fff',
			'fill-opacity': 0.6, stroke: color(w.cause),
			'stroke-width': 1.5, 'data-k': 'w:' + id,
			'data-w': id }, g);
		/* Markers only where windows are wide enough to tell apart. */
		if (w.marker >= 0 && xb - xa >= 8) {
			var xm = (x(w.marker) + x(w.marker + 1)) / 2;
			svg('path', { d: 'M' + (xm - 4) + ',' + (lanes.win + 2) +
				'h8l-4,7z', fill: '#000', 'data-k': 'm:' +
				w.marker }, g);
		}
	});

	/* Reads, coloured by cause; late ones get a vermillion top edge. */
	f.ranges.forEach(function (i) {
		var r = D.ranges[i], xa = x(r[R_FIRST]);
		var xb = x(r[R_FIRST] + r[R_PAGES]);
		var ry = lanes.reads + self.rows.row[i] * (rowH + 2);
		svg('rect', { 'class': 'range', x: xa, y: ry,
			width: Math.max(1, xb - xa), height: rowH,
			fill: r[R_ERR] ? '#fff' : color(r[R_CAUSE]),
			stroke: xb - xa > 4 ? '#fff' : 'none',
			'stroke-width': 0.7, 'data-k': 'r:' + i,
			'data-w': r[R_WIN] }, g);
		if (r[R_LATE])
			svg('rect', { x: xa, y: ry, width: Math.max(1, xb - xa),
				height: 3, fill: LATE, 'data-k': 'r:' + i }, g);
		if (xb - xa > 26)
			stext(g, (xa + xb) / 2, ry + 12, xb - xa > 70 ?
				r[R_CAUSE] : r[R_CAUSE][0].toUpperCase(), null,
				'middle').setAttribute('data-k', 'r:' + i);
	});

	/*
	 * Close-ups: an arrow from the access that started each read
	 * fetching outside the VMA down to that read.
	 */
	if (this.opts.why)
		this.out.forEach(function (o) {
			o.reads.forEach(function (i) {
				var r = D.ranges[i], t = r[R_TRIG];
				if (t < 0 || t < v.a || t > v.b)
					return;
				var xt = (x(t) + x(t + 1)) / 2;
				var xr = Math.min(x(r[R_FIRST]) + 8,
					(x(r[R_FIRST]) + x(r[R_FIRST] +
					r[R_PAGES])) / 2);
				var yb = lanes.reads + self.rows.row[i] *
					(rowH + 2);
				/* From the access to the read it started. */
				svg('path', { d: 'M' + xt + ',' + (lanes.acc + 10) +
					'L' + xt + ',' + (lanes.win + 9) + 'L' +
					xr + ',' + (lanes.win + 9) + 'L' + xr +
					',' + (yb - 5), fill: 'none',
					stroke: '#000', 'stroke-width': 1.5 }, g);
				svg('path', { d: 'M' + (xr - 4) + ',' + (yb - 6) +
					'h8l-4,6z', fill: '#000' }, g);
				svg('circle', { cx: xt, cy: lanes.acc + 6, r: 4,
					fill: 'none', stroke: '#000',
					'stroke-width': 1.5,
					'data-k': 'x:access that started read #' +
					r[R_SEQ] + ': page ' + t }, g);
			});
		});

	/* What was fetched outside the VMAs, said on the picture itself. */
	this.out.forEach(function (o) {
		var xa = x(o.first), xb = x(o.end), yy = lanes.out;
		if (xb < LABEL_W || xa > self.w)
			return;
		svg('path', { d: 'M' + xa + ',' + yy + 'v6H' + xb + 'v-6',
			fill: 'none', stroke: LATE, 'stroke-width': 2 }, g);
		var n = o.end - o.first;
		var s = n + ' page' + (n === 1 ? '' : 's') + ' ' + o.where +
			' the VMA';
		if (self.opts.why)
			s += ': ' + shortWhy(f, o);
		/* Beside the bracket, moved in so that it stays readable. */
		var tw = s.length * 6.6;
		var tx = o.where === 'before' ? xb - tw : xa;
		tx = Math.max(LABEL_W + 2, Math.min(self.w - 4 - tw, tx));
		stext(g, tx, yy + 20, s, 'out');
	});
	if (this.opts.info)
		this.opts.info.textContent = 'pages ' + Math.max(0,
			Math.floor(v.a)) + '-' + Math.ceil(v.b - 1) + ' (' +
			(ppp >= 1 ? ppp.toFixed(1) + ' px per page' :
			 (1 / ppp).toFixed(1) + ' pages per px') +
			'); wheel: zoom, drag: pan';
};

/* Wheel zooms around the pointer, dragging pans, double click resets. */
function interact(obj, el, axis) {
	var drag = null;
	el.addEventListener('wheel', function (e) {
		e.preventDefault();
		var r = el.getBoundingClientRect(), v = obj.view;
		var frac = Math.max(0, Math.min(1, (e.clientX - r.left -
			LABEL_W) / (r.width - LABEL_W - 8)));
		var k = e.deltaY > 0 ? 1.25 : 0.8, span = v.b - v.a;
		var at = v.a + frac * span;
		obj.setView(at - frac * span * k, at + (1 - frac) * span * k);
	}, { passive: false });
	el.addEventListener('mousedown', function (e) {
		drag = { x: e.clientX, a: obj.view.a, b: obj.view.b };
		el.style.cursor = 'grabbing';
	});
	window.addEventListener('mouseup', function () {
		drag = null;
		el.style.cursor = '';
	});
	window.addEventListener('mousemove', function (e) {
		if (!drag)
			return;
		var r = el.getBoundingClientRect();
		var d = (e.clientX - drag.x) / (r.width - LABEL_W - 8) *
			(drag.b - drag.a);
		obj.setView(drag.a - d, drag.b - d);
	});
	el.addEventListener('dblclick', function () { obj.reset(); });
	void axis;
}

MapView.prototype.reset = function () {
	this.setView(this.home[0], this.home[1]);
};

/* ---------------------------------------------------------------- */
/* The time line: x time, y page; each FUSE read a bar in flight      */
/* ---------------------------------------------------------------- */

var TL_H = 300, TL_TOP = 16, TL_BOTTOM = 26;

function TimeView(f, width, map) {
	var fe = fetchedOf(f), a = 0, b = f.pages || f.end || 1;
	this.f = f;
	this.w = width;
	this.map = map;
	/* Pages: the fetched ones at first, then the map's zoom. */
	if (fe.length) {
		a = fe[0][0];
		b = fe[fe.length - 1][1];
		f.vmas.forEach(function (i) {
			a = Math.min(a, D.vmas[i][1]);
			b = Math.max(b, D.vmas[i][2] + 1);
		});
		var pad = Math.max(2, (b - a) * 0.04);
		a -= pad;
		b += pad;
	}
	this.pv = { a: a, b: b };
	/* This file's own accesses and reads, whatever else the log holds. */
	var tpad = Math.max(1000, (f.tmax - f.tmin) * 0.02);
	this.view = { a: f.tmin - tpad, b: f.tmax + tpad };
	this.home = [this.view.a, this.view.b];
	this.el = svg('svg', { 'class': 'time', width: width,
		height: TL_H }, null);
	interact(this, this.el, 't');
	this.draw();
}

TimeView.prototype.setView = function (a, b) {
	var span = Math.max(1000, b - a);
	a = Math.max(this.f.tmin - span / 2, Math.min(a, this.f.tmax - span / 2));
	this.view.a = a;
	this.view.b = a + span;
	this.draw();
};

TimeView.prototype.reset = function () {
	this.setView(this.home[0], this.home[1]);
};

TimeView.prototype.draw = function () {
	var self = this, f = this.f, g = this.el, v = this.view;
	var pv = this.pv, plotW = this.w - LABEL_W - 8;
	var plotH = TL_H - TL_TOP - TL_BOTTOM;
	var x = function (t) {
		var xx = LABEL_W + (t - v.a) / (v.b - v.a) * plotW;
		return Math.max(LABEL_W - 4, Math.min(self.w + 4, xx));
	};
	var shown = function (p) { return p >= pv.a && p <= pv.b; };
	/* Pages grow upwards, like progress through the file. */
	var y = function (p) {
		var yy = TL_TOP + plotH - (p - pv.a) / (pv.b - pv.a) * plotH;
		return Math.max(TL_TOP - 4, Math.min(TL_TOP + plotH + 4, yy));
	};
	while (g.firstChild)
		g.removeChild(g.firstChild);
	var defs = svg('defs', {}, g);
	var pat = svg('pattern', { id: 'delay' + f.i, width: 5, height: 5,
		patternUnits: 'userSpaceOnUse',
		patternTransform: 'rotate(45)' }, defs);
	svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, stroke: '#000',
		'stroke-width': 1.6, 'stroke-opacity': 0.55 }, pat);
	var clip = svg('clipPath', { id: 'tlclip' + f.i }, defs);
	svg('rect', { x: LABEL_W, y: TL_TOP, width: plotW, height: plotH },
		clip);
	svg('rect', { x: LABEL_W, y: TL_TOP, width: plotW, height: plotH,
		fill: '#fcfcfc', stroke: '#999' }, g);
	var body = svg('g', { 'clip-path': 'url(#tlclip' + f.i + ')' }, g);

	/* Axes. */
	var ts = niceStep(v.b - v.a, plotW / 110);
	for (var t = Math.ceil(Math.max(0, v.a) / ts) * ts; t <= v.b;
		t += ts) {
		svg('line', { x1: x(t), x2: x(t), y1: TL_TOP + plotH,
			y2: TL_TOP + plotH + 4, stroke: '#555' }, g);
		stext(g, x(t), TL_TOP + plotH + 15, fmtT(Math.round(t)), null,
			'middle');
	}
	var ps = Math.max(1, Math.round(niceStep(pv.b - pv.a, plotH / 40)));
	for (var p = Math.ceil(Math.max(0, pv.a) / ps) * ps; p <= pv.b;
		p += ps) {
		svg('line', { x1: LABEL_W - 4, x2: LABEL_W, y1: y(p), y2: y(p),
			stroke: '#555' }, g);
		stext(g, LABEL_W - 6, y(p) + 4, String(p), null, 'end');
	}
	stext(g, 4, TL_TOP + 10, 'page', 'lane');
	stext(g, this.w - 8, TL_H - 2, 'time since the first record of ' +
		'the log', null, 'end');

	/* VMAs as bands, EOF as a line. */
	f.vmas.forEach(function (i) {
		var m = D.vmas[i];
		svg('rect', { x: LABEL_W, width: plotW, y: y(m[2] + 1),
			height: Math.max(0, y(m[1]) - y(m[2] + 1)),
			fill: '#000', 'fill-opacity': 0.05, 'data-k': 'v:' + i },
			body);
		[m[1], m[2] + 1].filter(shown).forEach(function (pp) {
			svg('line', { x1: LABEL_W, x2: LABEL_W + plotW,
				y1: y(pp), y2: y(pp), stroke: '#000',
				'stroke-dasharray': '4 3' }, body);
		});
		/* Many VMAs: their dashed ends say enough. */
		if (f.vmas.length > 4)
			return;
		if (shown(m[2] + 1))
			stext(body, LABEL_W + plotW - 4, y(m[2] + 1) + 12,
				'VMA end ' + m[2], null, 'end');
		if (shown(m[1]))
			stext(body, LABEL_W + plotW - 4, y(m[1]) - 3,
				'VMA start ' + m[1], null, 'end');
	});
	if (f.pages && shown(f.pages)) {
		svg('line', { x1: LABEL_W, x2: LABEL_W + plotW, y1: y(f.pages),
			y2: y(f.pages), stroke: '#000', 'stroke-width': 2 },
			body);
		stext(body, LABEL_W + plotW - 4, y(f.pages) + 12, 'EOF', null,
			'end');
	}
	D.marks.forEach(function (m) {
		if (m[1] < v.a || m[1] > v.b)
			return;
		svg('line', { x1: x(m[1]), x2: x(m[1]), y1: TL_TOP,
			y2: TL_TOP + plotH, stroke: '#777',
			'stroke-dasharray': '2 3' }, body);
		stext(body, x(m[1]) + 3, TL_TOP + 11, m[2]);
	});

	/*
	 * Reads: a bar from arrival to reply over the pages read; the
	 * injected delay is the hatched end of the bar. Async bars have a
	 * dashed outline, read-around ones a dotted one, so the causes
	 * differ by more than colour.
	 */
	var dash = { async: '5 2', readaround: '1.5 1.5' };
	f.ranges.forEach(function (i) {
		var r = D.ranges[i], xa = x(r[R_T]), xb = x(r[R_DONE]);
		var ya = y(r[R_FIRST] + r[R_PAGES]), yb = y(r[R_FIRST]);
		var w = Math.max(2, xb - xa), h = Math.max(2, yb - ya);
		var bar = svg('rect', { 'class': 'tlrange', x: xa, y: ya,
			width: w, height: h, fill: color(r[R_CAUSE]),
			'fill-opacity': 0.85, stroke: '#000',
			'stroke-width': 0.8, 'data-k': 'r:' + i,
			'data-w': r[R_WIN] }, body);
		if (dash[r[R_CAUSE]])
			bar.setAttribute('stroke-dasharray', dash[r[R_CAUSE]]);
		var d = Math.min(r[R_DELAY], r[R_DONE] - r[R_T]);
		if (d > 0) {
			var xd = x(r[R_DONE] - d);
			svg('rect', { x: xd, y: ya, width: Math.max(1, xb - xd),
				height: h, fill: 'url(#delay' + f.i + ')',
				'data-k': 'r:' + i }, body);
		}
	});

	/*
	 * Accesses: a dot per fault or read(2); late ones a vermillion X,
	 * smaller when many share the width, so the reads stay visible.
	 */
	var shownAcc = f.accesses.filter(function (i) {
		var a = D.accesses[i];
		return a[A_TYPE] !== 'map' && a[A_T] >= v.a && a[A_T] <= v.b;
	});
	var r = Math.max(1.5, Math.min(5, plotW / (shownAcc.length + 1) / 2));
	shownAcc.forEach(function (i) {
		var a = D.accesses[i];
		var xa = x(a[A_T]), ya = y(a[A_FIRST] + 0.5);
		if (a[A_LATE] > 0) {
			svg('path', { d: 'M' + (xa - r) + ',' + (ya - r) + 'l' +
				2 * r + ',' + 2 * r + 'm0,' + -2 * r + 'l' +
				-2 * r + ',' + 2 * r, stroke: LATE,
				'stroke-width': r > 3 ? 2.5 : 1.5,
				'data-k': 'a:' + i }, body);
		} else {
			svg('circle', { cx: xa, cy: ya, r: Math.min(3, r),
				fill: '#000', 'data-k': 'a:' + i }, body);
		}
	});
};

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
	var els = document.querySelectorAll('[data-w="' + id + '"]');
	for (var k = 0; k < els.length; k++)
		els[k].classList.toggle('hl', on);
}

function windowsTable(parent, maps) {
	var rows = windowIds.map(function (id) {
		var w = windows[id];
		return [id, D.files[w.file][0], w.cause,
			w.trigger >= 0 ? w.trigger : '-', w.start, w.size,
			w.async, w.marker >= 0 ? w.marker : '-', w.read,
			w.reads.map(function (i) {
				return '#' + D.ranges[i][R_SEQ];
			}).join(' '), w.late ? 'late' : ''];
	});
	var box = html('div', { 'class': 'scroll' }, null, parent);
	var trs = table(box, ['window', 'file', 'cause', 'trigger', 'start',
		'size', 'async', 'marker', 'pages read', 'FUSE reads',
		'waited'], rows, [1, 2, 9, 10]);
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

function legend(parent) {
	var l = html('div', { 'class': 'legend' }, null, parent);
	var used = {};
	D.ranges.forEach(function (g) { used[g[R_CAUSE]] = 1; });
	CAUSES.forEach(function (c) {
		if (!used[c[0]])
			return;
		var s = html('span', { title: c[2] }, null, l);
		html('span', { 'class': 'sw' }, null, s).style.background = c[1];
		s.appendChild(document.createTextNode(c[0] + ': ' + c[2]));
	});
	var items = [
		['#f0f0f0', 'VMA (dashed lines: its ends)'],
		['#000', 'accessed (fault or read(2))'],
		['#aaa', 'mapped by fault-around'],
		[LATE, 'late: an access waited for the read']];
	items.forEach(function (it) {
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
	var tools = html('div', { 'class': 'tools' }, null, root);
	var info = html('span', { 'class': 'viewinfo' }, null, null);
	var max = f.pages || f.end || 1;
	var m = new MapView(f, width, { a: 0, b: max }, { main: true,
		interactive: true, info: info,
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
	root.appendChild(m.el);
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
	var root = document.getElementById('page');
	/* Minus the 1px borders of the pictures. */
	var width = Math.max(900, Math.min(1600, root.clientWidth - 4));
	document.title = D.title;
	html('h1', {}, D.title, root);
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
	legend(root);
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
	}
	if (D.notes.length) {
		html('h2', {}, 'In plain words', root);
		D.notes.forEach(function (n) {
			html('p', { 'class': 'note' }, n, root);
		});
	}

	/* What the test suite checks: what was drawn, in the main maps. */
	var drawn = {}, wins = document.querySelectorAll(
		'svg.map.main rect.window');
	for (var k = 0; k < wins.length; k++)
		drawn[wins[k].getAttribute('data-w')] = 1;
	status.setAttribute('data-ranges', document.querySelectorAll(
		'svg.map.main rect.range').length);
	status.setAttribute('data-windows', Object.keys(drawn).length);
	status.setAttribute('data-timeline', document.querySelectorAll(
		'svg.time rect.tlrange').length);
	if (status.getAttribute('data-state') === 'loading')
		status.setAttribute('data-state', 'ok');
}

main();
})();
