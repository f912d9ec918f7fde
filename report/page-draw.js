/*
 * testfs report page, part 2 of 3: the pictures. MapView draws the
 * file's pages in lanes (VMAs, accesses, windows, FUSE reads), zoomable
 * from the whole file to single pages; TimeView draws each FUSE read as
 * a bar from arrival to reply over the pages it read.
 */
/* ---------------------------------------------------------------- */
/* The page map                                                      */
/* ---------------------------------------------------------------- */

var LABEL_W = 92;

/*
 * Free labels (class "label") are laid out so that none covers another,
 * a guide line (VMA ends, EOF, marks) or a drawn record; report/tests
 * checks their boxes in a browser. Widths are estimated from the text
 * (11px system-ui): the check measures the real ones.
 */
function textW(s, bold) {
	return s.length * (bold ? 7.2 : 6.4) + 2;
}

/* Whether [a, a + w) is clear of every x in @xs (with a margin). */
function clearOf(a, w, xs) {
	return xs.every(function (x) { return x < a - 3 || x > a + w + 3; });
}

/*
 * A row for a label of width @w starting at @x among @rows (arrays of
 * [a, b) spans already taken): the first row where it fits.
 */
function rowFor(rows, x, w) {
	for (var r = 0; ; r++) {
		rows[r] = rows[r] || [];
		if (rows[r].every(function (s) {
			return x + w + 6 <= s[0] || x >= s[1] + 6;
		})) {
			rows[r].push([x, x + w]);
			return r;
		}
	}
}

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
	var pat = svg('pattern', { id: PFX + 'eofhatch' + (MapView.n = (MapView.n ||
		0) + 1), width: 6, height: 6, patternUnits: 'userSpaceOnUse',
		patternTransform: 'rotate(45)' }, defs);
	svg('rect', { width: 6, height: 6, fill: '#fff' }, pat);
	svg('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#bbb',
		'stroke-width': 2 }, pat);
	if (this.opts.diff) {
		var dp = svg('pattern', { id: PFX + 'diffhatch', width: 5,
			height: 5, patternUnits: 'userSpaceOnUse',
			patternTransform: 'rotate(-45)' }, defs);
		svg('rect', { width: 5, height: 5, fill: '#fdf1ea' }, dp);
		svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, stroke: LATE,
			'stroke-width': 2 }, dp);
	}

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
	/* A matrix page: pages fetched here and not on another kernel. */
	var diff = this.opts.diff || [];
	lanes.diff = lanes.reads + readsH + 4;
	lanes.out = lanes.diff + (diff.length ? 20 : 0);
	var outLabels = this.layoutOut(x);
	var bottom = lanes.out + (outLabels.length ? 16 + 14 * outLabels.rows :
		6);
	/* Guide lines stop above the labels of the outside lane. */
	var guideEnd = outLabels.length ? lanes.out - 2 : bottom;
	g.setAttribute('height', bottom + 4);
	stext(g, 4, lanes.vma + 15, 'VMA', 'lane');
	stext(g, 4, lanes.acc + 12, 'accessed', 'lane');
	stext(g, 4, lanes.win + 13, 'windows', 'lane');
	stext(g, 4, lanes.reads + 13, 'FUSE reads', 'lane');
	if (diff.length)
		stext(g, 4, lanes.diff + 12, 'differs', 'lane out');

	/* Past EOF: hatched, with a line at the end of the file. */
	if (f.pages && f.pages < v.b) {
		svg('rect', { x: x(f.pages), y: lanes.vma, width:
			Math.max(0, x(v.b) - x(f.pages)), height: bottom -
			lanes.vma, fill: 'url(#' + pat.id + ')' }, g);
		svg('line', { 'class': 'guide', x1: x(f.pages), x2: x(f.pages),
			y1: axisY, y2: guideEnd, stroke: '#000',
			'stroke-width': 2 }, g);
		stext(g, x(f.pages) + 3, lanes.vma + 10, 'EOF (' + f.pages +
			' pages)', 'label');
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
			svg('line', { 'class': 'guide', x1: xx, x2: xx,
				y1: lanes.vma, y2: guideEnd, stroke: '#000',
				'stroke-dasharray': '4 3' }, g);
		});
		var label = 'VMA ' + m[1] + '-' + m[2] + ' ' + protText(m[3]);
		if (b - a > textW(label) + 6)
			stext(g, (a + b) / 2, lanes.vma + 15, label, 'label',
				'middle');
	});
	/* An empty accessed lane says why, clear of the VMAs' lines. */
	if (!f.accesses.length && (readsUntraced(f) || untraced(f))) {
		var why = readsUntraced(f) ? 'read(2) accesses not traced ' +
			'(testfs --trace-reads)' : 'accesses not traced ' +
			'(kernel tracing off)';
		var ends = [];
		f.vmas.forEach(function (i) {
			ends.push(x(D.vmas[i][1]), x(D.vmas[i][2] + 1));
		});
		if (f.pages && f.pages < v.b)
			ends.push(x(f.pages));
		[LABEL_W + 4].concat(ends.map(function (e) {
			return e + 5;
		})).some(function (at) {
			if (at + textW(why) > self.w - 4 ||
			    !clearOf(at, textW(why), ends))
				return false;
			stext(g, at, lanes.acc + 12, why, 'label untraced');
			return true;
		});
	}

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

	/* Hatched vermillion: no other lane uses that fill. */
	diff.forEach(function (d) {
		var xa = x(d.first), xb = x(d.end);
		svg('rect', { 'class': 'diff', x: xa, y: lanes.diff + 2,
			width: Math.max(2, xb - xa), height: 14,
			fill: 'url(#' + PFX + 'diffhatch)', stroke: LATE,
			'stroke-width': 1.5, 'data-k': 'x:' + d.text }, g);
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
	outLabels.forEach(function (l) {
		var o = l.o, xa = x(o.first), xb = x(o.end), yy = lanes.out;
		svg('path', { d: 'M' + xa + ',' + yy + 'v6H' + xb + 'v-6',
			fill: 'none', stroke: LATE, 'stroke-width': 2 }, g);
		stext(g, l.x, yy + 20 + 14 * l.row, l.s, 'out label');
	});
	if (this.opts.info)
		this.opts.info.textContent = 'pages ' + Math.max(0,
			Math.floor(v.a)) + '-' + Math.ceil(v.b - 1) + ' (' +
			(ppp >= 1 ? ppp.toFixed(1) + ' px per page' :
			 (1 / ppp).toFixed(1) + ' pages per px') +
			'); wheel: zoom, drag: pan';
};

/*
 * The labels of the outside lane: beside their bracket, moved in so that
 * they stay readable, one row further down where two would meet.
 */
MapView.prototype.layoutOut = function (x) {
	var self = this, f = this.f, rows = [], out = [];
	this.out.forEach(function (o) {
		var xa = x(o.first), xb = x(o.end);
		if (xb < LABEL_W || xa > self.w)
			return;
		var n = o.end - o.first;
		var s = n + ' page' + (n === 1 ? '' : 's') + ' ' + o.where +
			' the VMA';
		if (self.opts.why)
			s += ': ' + shortWhy(f, o);
		var tw = textW(s, true);
		var tx = o.where === 'before' ? xb - tw : xa;
		tx = Math.max(LABEL_W + 2, Math.min(self.w - 4 - tw, tx));
		out.push({ o: o, s: s, x: tx, row: rowFor(rows, tx, tw) });
	});
	out.rows = rows.length;
	return out;
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

/*
 * The plot, a band of two rows above it for the marks' names, a gutter
 * on its right for the names of the VMA ends and EOF, and the time axis
 * and its caption below.
 */
var TL_H = 320, TL_TOP = 32, TL_BOTTOM = 38, TL_GUTTER = 112;

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
	var pv = this.pv, plotW = this.w - LABEL_W - 8 - TL_GUTTER;
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
	var pat = svg('pattern', { id: PFX + 'delay' + f.i, width: 5, height: 5,
		patternUnits: 'userSpaceOnUse',
		patternTransform: 'rotate(45)' }, defs);
	svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, stroke: '#000',
		'stroke-width': 1.6, 'stroke-opacity': 0.55 }, pat);
	var clip = svg('clipPath', { id: PFX + 'tlclip' + f.i }, defs);
	svg('rect', { x: LABEL_W, y: TL_TOP, width: plotW, height: plotH },
		clip);
	svg('rect', { x: LABEL_W, y: TL_TOP, width: plotW, height: plotH,
		fill: '#fcfcfc', stroke: '#999' }, g);
	var body = svg('g', { 'clip-path': 'url(#' + PFX + 'tlclip' + f.i + ')' }, g);

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
	stext(g, LABEL_W + plotW, TL_H - 4, 'time since the first record ' +
		'of the log', 'label', 'end');

	/*
	 * VMAs as bands, EOF as a line; their names in the gutter beside
	 * the lines' ends, where no read or access is drawn.
	 */
	var names = [];
	f.vmas.forEach(function (i) {
		var m = D.vmas[i];
		svg('rect', { x: LABEL_W, width: plotW, y: y(m[2] + 1),
			height: Math.max(0, y(m[1]) - y(m[2] + 1)),
			fill: '#000', 'fill-opacity': 0.05, 'data-k': 'v:' + i },
			body);
		[m[1], m[2] + 1].filter(shown).forEach(function (pp) {
			svg('line', { 'class': 'guide', x1: LABEL_W,
				x2: LABEL_W + plotW, y1: y(pp), y2: y(pp),
				stroke: '#000', 'stroke-dasharray': '4 3' },
				body);
		});
		/* Many VMAs: their dashed ends say enough. */
		if (f.vmas.length > 4)
			return;
		if (shown(m[2] + 1))
			names.push([y(m[2] + 1), 'VMA end ' + m[2]]);
		if (shown(m[1]))
			names.push([y(m[1]), 'VMA start ' + m[1]]);
	});
	if (f.pages && shown(f.pages)) {
		svg('line', { 'class': 'guide', x1: LABEL_W,
			x2: LABEL_W + plotW, y1: y(f.pages), y2: y(f.pages),
			stroke: '#000', 'stroke-width': 2 }, body);
		names.push([y(f.pages), 'EOF']);
	}
	/* Top to bottom, each at least a line below the one above. */
	names.sort(function (a, b) { return a[0] - b[0]; });
	var nextY = 0;
	names.forEach(function (n) {
		var ty = Math.max(n[0] + 4, nextY);
		nextY = ty + 13;
		stext(g, LABEL_W + plotW + 6, ty, n[1], 'label');
	});
	/* The marks' names in the band above the plot, two rows. */
	var markRows = [];
	D.marks.forEach(function (m) {
		if (m[1] < v.a || m[1] > v.b)
			return;
		svg('line', { 'class': 'guide', x1: x(m[1]), x2: x(m[1]),
			y1: TL_TOP, y2: TL_TOP + plotH, stroke: '#777',
			'stroke-dasharray': '2 3', 'data-k': 'x:mark ' + m[2] },
			body);
		var tw = textW(m[2]);
		var tx = Math.min(x(m[1]) + 3, LABEL_W + plotW - tw);
		var row = rowFor(markRows, tx, tw);
		if (row < 2)
			stext(g, tx, 13 + 13 * row, m[2], 'label');
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
				height: h, fill: 'url(#' + PFX + 'delay' + f.i + ')',
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

