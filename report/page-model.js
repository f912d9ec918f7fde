/*
 * testfs report page, part 1 of 3 (html.c puts the three in one
 * function scope, in this order): the data from #data, per file and per
 * window; the words that tell where pages were fetched outside the VMAs
 * and why; the tooltips. Plain JavaScript, no library, nothing fetched.
 * The three parts are the body of testfsPage(D, root, M); page-boot.js
 * (before them) catches errors, page-matrix.js (after) draws a matrix.
 */

/*
 * D is the run's data (#data on a single page, one kernel's on a matrix
 * page), root the element to draw into, M null or the matrix page's
 * hooks (page-matrix.js). Ids inside SVGs get a prefix per kernel.
 */
var PFX = M ? 'k' + M.index + '-' : '';
/* This kernel's elements: under root, and its maps on a matrix page. */
function mine(sel) {
	var v = [].slice.call(root.querySelectorAll(sel));
	return M ? v.concat(M.all(sel)) : v;
}

function owns(el) {
	return root.contains(el) || (M && M.owns(el));
}

var SVGNS = 'http://www.w3.org/2000/svg';

/* Columns of D.ranges and D.accesses (html.c writes them in this order). */
var R_SEQ = 0, R_FILE = 1, R_FIRST = 2, R_PAGES = 3, R_CAUSE = 4,
	R_WIN = 5, R_TRIG = 6, R_MARK = 7, R_T = 8, R_DONE = 9,
	R_DELAY = 10, R_ERR = 11, R_LATE = 12, R_RASTART = 13,
	R_RASIZE = 14, R_RAASYNC = 15, R_RAPAGES = 16, R_BYREAD = 17;
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
/*
 * Each record of @rows (reads or accesses) joins its file's @list; the
 * file's extent and time span grow to hold it. @col names its columns.
 */
function addSpans(rows, list, col) {
	rows.forEach(function (r, i) {
		var f = files[r[col.file]];
		f[list].push(i);
		f.end = Math.max(f.end, r[col.first] + r[col.pages]);
		f.tmin = Math.min(f.tmin, r[col.t]);
		f.tmax = Math.max(f.tmax, r[col.end]);
	});
}
addSpans(D.ranges, 'ranges',
	 { file: R_FILE, first: R_FIRST, pages: R_PAGES, t: R_T, end: R_DONE });
addSpans(D.accesses, 'accesses',
	 { file: A_FILE, first: A_FIRST, pages: A_PAGES, t: A_T, end: A_END });
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
			marker: g[R_MARK], read: 0, reads: [], late: 0,
			raPages: g[R_RAPAGES] || 0, byRead: !!g[R_BYREAD] };
		windowIds.push(id);
		files[g[R_FILE]].windows.push(id);
	}
	w.read += g[R_PAGES];
	w.reads.push(i);
	if (g[R_LATE])
		w.late++;
});
windowIds.sort(function (a, b) { return a - b; });

/*
 * read(2) started readahead of @f (a read with by_read) and the log has
 * no read(2) access at all: the daemon did not trace read(2) lookups
 * (--trace-reads), so the program's reads are not in the log.
 */
var readLookups = D.accesses.some(function (a) {
	return a[A_TYPE] === 'read';
});
function readsUntraced(f) {
	return !readLookups && f.ranges.some(function (i) {
		return D.ranges[i][R_BYREAD];
	});
}

/* Kernel tracing was off: no cause, no window, no access is known. */
function untraced(f) {
	return !f.accesses.length && !f.windows.length &&
		f.ranges.every(function (i) {
			return D.ranges[i][R_CAUSE] === 'unknown';
		});
}

/* read_ahead_kb in the log's pages, 0 when the page was not told it. */
var RA_PAGES = D.raKb ? D.raKb * 1024 / (D.pageSize || 4096) : 0;

/*
 * Why window @w is larger than read_ahead_kb (when known) or than the
 * file's ra_pages at the decision, from what its record says: "N pages,
 * more than ...: why"; '' when it is not.
 */
function windowWhy(w) {
	var size = w.size + ' pages, more than ';
	if (RA_PAGES && w.size > RA_PAGES && w.raPages > RA_PAGES)
		return size + 'read_ahead_kb ' + D.raKb + ' (' + RA_PAGES +
			' pages): the file\'s ra_pages was ' + w.raPages +
			(w.raPages === 2 * RA_PAGES ? ', twice read_ahead_kb: ' +
			'the program called posix_fadvise(POSIX_FADV_SEQUENTIAL) ' +
			'(cat, cp and dd do), which doubles a file\'s ra_pages' :
			' (the program changed it, e.g. with ' +
			'POSIX_FADV_SEQUENTIAL, which doubles it)');
	if (w.raPages && w.size > w.raPages)
		return size + 'the file\'s ra_pages ' + w.raPages +
			(w.cause === 'forced' ? ': WILLNEED and readahead(2) ' +
			'read up to max(ra_pages, io_pages)' : ': a read(2) ' +
			'larger than ra_pages is read ahead up to the ' +
			'device\'s io_pages');
	return '';
}

/*
 * Under the windows table: why windows are as large as they are, when
 * the records say (their ra_pages) and the page knows read_ahead_kb.
 */
function windowsNote() {
	var byWhy = {}, order = [], maxRa = 0, maxSize = 0;
	windowIds.forEach(function (id) {
		var w = windows[id], why = windowWhy(w);
		if (why) {
			if (!byWhy[why]) {
				byWhy[why] = [];
				order.push(why);
			}
			byWhy[why].push(id);
		}
		maxRa = Math.max(maxRa, w.raPages);
		maxSize = Math.max(maxSize, w.size);
	});
	if (order.length)
		return order.map(function (why) {
			var ids = byWhy[why];
			return (ids.length > 1 ? 'Windows ' + listOf(ids.length > 6 ?
				ids.slice(0, 5).concat([(ids.length - 5) +
				' more']) : ids) + ' are ' : 'Window ' + ids[0] +
				' is ') + why + '.';
		}).join(' ');
	/* The kernel's default read_ahead_kb is 128 (32 pages). */
	if (!RA_PAGES && maxRa > 32)
		return 'The largest window is ' + maxSize + ' pages; the ' +
			'records give the file\'s ra_pages, its readahead ' +
			'maximum, up to ' + maxRa + ' pages. ra_pages is ' +
			'read_ahead_kb / 4 unless the program changed it: ' +
			'posix_fadvise(POSIX_FADV_SEQUENTIAL), which cat, cp ' +
			'and dd call, doubles it (testfs-report --ra-kb makes ' +
			'this page compare them).';
	return '';
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
	var s = 'FUSE read #' + g[R_SEQ] + ' (seq in the log)  ' +
		D.files[g[R_FILE]][0] +
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
	var w = windows[id], why = windowWhy(w);
	return 'window ' + id + ' (' + w.cause + ')\npages ' +
		pageSpan(w.start, w.start + w.size - 1) + ' (size ' + w.size +
		', async ' + w.async + ')\ntrigger page ' +
		(w.trigger >= 0 ? w.trigger : '-') + '   marker ' +
		(w.marker >= 0 ? w.marker : '-') + '\nread ' + w.read +
		' pages in ' + w.reads.length + ' FUSE read(s)' +
		(w.raPages ? '\nthe file\'s ra_pages ' + w.raPages : '') +
		(why ? '\nthis window is ' + why : '');
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

/* Each kernel of a matrix page has its own tip, for its own records. */
document.addEventListener('mousemove', function (e) {
	var t = e.target.closest ? e.target.closest('[data-k]') : null;
	if (!t || !owns(t)) {
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

