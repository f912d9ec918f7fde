/*
 * testfs matrix page: the same command on several kernels. #data holds
 * {title, subtitle, kernels: [{label, release, status, reason, data}]}
 * where data is what a single-run page holds (null for a kernel that did
 * not run). Each kernel is drawn by testfsPage() with hooks (M) that put
 * its page maps one under another's, per file, on the same x axis and
 * zoom, with a lane for the pages fetched on it and not on another
 * kernel. #status gets data-kernels, data-ranges and data-windows (sums
 * over the kernels) and data-diff (differing extents drawn).
 */
var MD = JSON.parse(document.getElementById('data').textContent);
var page = document.getElementById('page');

function el(tag, cls, text, parent) {
	var e = document.createElement(tag);
	if (cls)
		e.className = cls;
	if (text !== undefined && text !== null)
		e.textContent = text;
	if (parent)
		parent.appendChild(e);
	return e;
}

/* Extents of @a not in @b (both coalesced). */
function subtract(a, b) {
	var out = [];
	a.forEach(function (e) {
		var s = e[0];
		b.forEach(function (c) {
			if (c[1] <= s || c[0] >= e[1])
				return;
			if (c[0] > s)
				out.push([s, c[0]]);
			s = Math.max(s, c[1]);
		});
		if (s < e[1])
			out.push([s, e[1]]);
	});
	return out;
}

function size(ext) {
	return ext.reduce(function (n, e) { return n + e[1] - e[0]; }, 0);
}

function spans(ext) {
	return ext.map(function (e) {
		return e[1] - e[0] > 1 ? e[0] + '-' + (e[1] - 1) : String(e[0]);
	}).join(', ');
}

/* Per kernel and file name: pages, fetched extents, VMA extents. */
var ran = MD.kernels.filter(function (k) { return k.data; });
ran.forEach(function (k) {
	k.files = {};
	k.data.files.forEach(function (f) {
		k.files[f[0]] = { pages: f[1], end: 0, fetched: [], vmas: [] };
	});
	k.data.ranges.forEach(function (g) {
		var f = k.files[k.data.files[g[1]][0]];
		f.end = Math.max(f.end, g[2] + g[3]);
		if (!g[11])
			f.fetched.push([g[2], g[2] + g[3]]);
	});
	k.data.vmas.forEach(function (v) {
		var f = k.files[k.data.files[v[0]][0]];
		f.vmas.push([v[1], v[2] + 1]);
		f.end = Math.max(f.end, v[2] + 1);
	});
	Object.keys(k.files).forEach(function (n) {
		var f = k.files[n];
		f.fetched = extents(f.fetched);
		f.vmas = extents(f.vmas);
		f.before = f.vmas.length ? size(subtract(f.fetched,
			[[f.vmas[0][0], Infinity]])) : 0;
		f.after = f.vmas.length ? size(subtract(f.fetched,
			[[-Infinity, f.vmas[f.vmas.length - 1][1]]])) : 0;
		f.outside = f.vmas.length ? size(subtract(f.fetched,
			f.vmas)) : 0;
	});
});
var names = [];
ran.forEach(function (k) {
	Object.keys(k.files).forEach(function (n) {
		if (names.indexOf(n) < 0)
			names.push(n);
	});
});

/* What each kernel fetched that another did not, per file. */
function diffOf(k, name) {
	var mine = k.files[name] ? k.files[name].fetched : [], out = [];
	ran.forEach(function (o) {
		if (o === k)
			return;
		var theirs = o.files[name] ? o.files[name].fetched : [];
		subtract(mine, theirs).forEach(function (e) {
			out.push({ first: e[0], end: e[1], other: o,
				text: 'pages ' + spans([e]) + ' (' +
				(e[1] - e[0]) + '): fetched on ' + k.label +
				', not on ' + o.label });
		});
	});
	return out;
}

document.title = MD.title;
el('h1', null, MD.title, page);
if (MD.subtitle)
	el('div', 'sub', MD.subtitle, page);

/* The comparison in words, first. */
var box = el('div', 'story', null, page);
MD.kernels.forEach(function (k) {
	if (!k.data)
		el('p', null, k.label + ': ' + k.status + (k.reason ? ': ' +
			k.reason : '') + (k.status === 'not drawn' ? '.' :
			' (not drawn).'), box);
});
names.forEach(function (n) {
	var withVma = ran.filter(function (k) {
		return k.files[n] && k.files[n].vmas.length;
	});
	if (withVma.length) {
		var p = el('p', null, null, box);
		/* The mapping as the first kernel's data has it. */
		var vd = withVma[0].data, vf = vd.files.map(function (f) {
			return f[0];
		}).indexOf(n);
		var vmas = vd.vmas.filter(function (v) {
			return v[0] === vf;
		}).map(function (v) {
			return 'VMA ' + v[1] + '-' + v[2] + ' ' + (v[3] & 1 ?
				'r' : '-') + (v[3] & 2 ? 'w' : '-') + (v[3] & 4 ?
				'x, PROT_EXEC' : '-');
		});
		el('b', null, 'Pages of ' + n + ' fetched outside the VMA' +
			(vmas.length ? ' (' + vmas.join(', ') + ')' : '') + ': ',
			p);
		p.appendChild(document.createTextNode(withVma.map(function (k) {
			var f = k.files[n];
			return k.label + ': ' + f.before + ' before / ' +
				f.after + ' after' + (f.outside > f.before +
				f.after ? ' (' + (f.outside - f.before -
				f.after) + ' between)' : '');
		}).join('; ') + '.'));
	}
	ran.forEach(function (k) {
		ran.forEach(function (o) {
			if (o === k)
				return;
			var d = subtract(k.files[n] ? k.files[n].fetched : [],
				o.files[n] ? o.files[n].fetched : []);
			if (!d.length)
				return;
			var p = el('p', null, 'Fetched on ' + k.label +
				' and not on ' + o.label + ': ' + size(d) +
				' page' + (size(d) === 1 ? '' : 's') + ' of ' +
				n + ' (' + spans(d.slice(0, 8)) + (d.length > 8 ?
				', ...' : '') + '). Show: ', box);
			/* At whole-file scale a few pages are a sliver. */
			d.slice(0, 4).forEach(function (e) {
				var b = el('button', null, spans([e]), p);
				b.type = 'button';
				b.addEventListener('click', function () {
					var pad = Math.max(24, e[1] - e[0]);
					(groups[n] || []).forEach(function (m) {
						m.setView(e[0] - pad, e[1] + pad);
					});
				});
			});
		});
	});
});
var anyDiff = names.some(function (n) {
	return ran.some(function (k) { return diffOf(k, n).length; });
});
if (ran.length > 1 && !anyDiff)
	el('p', null, 'Every kernel fetched the same pages.', box);

/* Policy verdicts, one column per kernel. */
var policies = [];
ran.forEach(function (k) {
	k.data.verdicts.forEach(function (v) {
		if (policies.indexOf(v[0]) < 0)
			policies.push(v[0]);
	});
});
if (policies.length) {
	el('h2', null, 'Readahead policies on each kernel: observed and ' +
		'verdict', page);
	var t = el('table', null, null, page);
	var tr = el('tr', null, null, el('thead', null, null, t));
	el('th', 'l', 'policy', tr);
	ran.forEach(function (k) { el('th', 'l', k.label, tr); });
	var tb = el('tbody', null, null, t);
	policies.forEach(function (p) {
		var r = el('tr', null, null, tb);
		el('td', 'l', p, r);
		ran.forEach(function (k) {
			var v = k.data.verdicts.filter(function (x) {
				return x[0] === p;
			})[0];
			var c = el('td', 'l ' + (!v ? '' : /^match/.test(v[3]) ?
				'vmatch' : /^differ/.test(v[3]) ? 'vdiffer' : ''),
				v ? v[2] + ' — ' + v[3] : '-', r);
			if (v)
				c.title = 'expected: ' + v[1];
		});
	});
}

/*
 * Each histogram the kernels' pages hold (the folio orders of the
 * folio-order scenario), every kernel in one picture on one scale: per
 * bucket a bar per kernel, its count and its share of that kernel's
 * total, as the 2023 report compared its two kernels' orders.
 */
var SVGNS = 'http://www.w3.org/2000/svg';
var KCOLORS = ['#4a7ab5', '#d55e00', '#009e73', '#cc79a7', '#e69f00'];
function svgEl(tag, attrs, parent) {
	var e = document.createElementNS(SVGNS, tag);
	Object.keys(attrs).forEach(function (a) {
		e.setAttribute(a, attrs[a]);
	});
	parent.appendChild(e);
	return e;
}
function sum(v) {
	return v.reduce(function (a, b) { return a + b; }, 0);
}
var histTitles = [], histBars = 0;
ran.forEach(function (k) {
	(k.data.hists || []).forEach(function (h) {
		if (histTitles.indexOf(h[0]) < 0)
			histTitles.push(h[0]);
	});
});
histTitles.forEach(function (title) {
	var rows = ran.map(function (k, i) {
		var h = (k.data.hists || []).filter(function (x) {
			return x[0] === title;
		})[0];
		return { k: k, color: KCOLORS[i % KCOLORS.length],
			label: h ? h[1] : '', counts: h ? h[2] : [] };
	}).filter(function (r) { return r.counts.length; });
	if (rows.length < 2)
		return;
	var n = Math.max.apply(null, rows.map(function (r) {
		return r.counts.length;
	}));
	var most = Math.max.apply(null, [1].concat.apply([], rows.map(
		function (r) { return r.counts; })));
	var bar = 14, gap = 8, left = 110, right = 170, w = 760;
	var group = bar * rows.length + gap;
	el('h2', null, title + ': every kernel, one scale', page);
	var key = el('p', 'note', 'Each bar: ' + rows[0].label + ' i on a ' +
		'kernel, its count and (in brackets) its share of that ' +
		'kernel\'s total. ', page);
	rows.forEach(function (r) {
		var sw = el('span', null, '\u25a0 ', key);
		sw.style.color = r.color;
		key.appendChild(document.createTextNode(r.k.label + '   '));
	});
	var s = svgEl('svg', { 'class': 'hist mhist', width: w,
		height: group * n + 4 }, page);
	for (var i = 0; i < n; i++) {
		var y0 = 2 + group * i;
		var t = svgEl('text', { x: 0, y: y0 + bar * rows.length / 2 +
			5 }, s);
		t.textContent = rows[0].label + ' ' + i;
		rows.forEach(function (r, j) {
			var c = r.counts[i] || 0, total = sum(r.counts);
			var len = (w - left - right) * c / most, y = y0 + bar * j;
			var b = svgEl('rect', { 'class': 'kbar', x: left, y: y + 1,
				width: Math.max(len, c ? 1 : 0),
				height: bar - 2, fill: r.color }, s);
			b.setAttribute('data-kernel', r.k.label);
			var tt = svgEl('title', {}, b);
			tt.textContent = r.k.label + ': ' + c;
			var v = svgEl('text', { x: left + len + 6, y: y + 11 },
				s);
			v.textContent = c + (total ? ' (' + (100 * c /
				total).toFixed(1) + '%)' : '');
			histBars += c ? 1 : 0;
		});
	}
});
status.setAttribute('data-hist-bars', histBars);

var legendBox = el('div', null, null, page);
el('h2', null, 'Page maps of every kernel, same scale (wheel, drag or ' +
	'the buttons move them all)', page);
var slots = {};
names.forEach(function (n) {
	slots[n] = el('div', 'mslot', null, page);
	el('h3', null, 'File ' + n, slots[n]);
});

/* Same x axis everywhere: the largest extent any kernel knows. */
function homeOf(name) {
	return ran.reduce(function (m, k) {
		var f = k.files[name];
		return f ? Math.max(m, f.pages || f.end) : m;
	}, 1);
}

var width = Math.max(900, Math.min(1600, page.clientWidth - 4));
var groups = {}, syncing = false, totals = { ranges: 0, windows: 0 };
var allMaps = [];
ran.forEach(function (k, i) {
	var sec = el('section', 'kernel', null, page);
	var slot = {};
	var M = {
		index: i, width: width,
		/* The legend: every cause any kernel shows, drawn once. */
		legend: i ? null : legendBox,
		allData: ran.map(function (o) { return o.data; }),
		differs: anyDiff,
		title: 'Kernel ' + k.label + (k.release ? ' (' + k.release +
			')' : ''),
		mapSlot: function (f) {
			var d = el('div', null, null, slots[f.name]);
			d.setAttribute('data-kernel', i);
			el('div', 'klabel', M.title, d);
			slot[f.name] = d;
			return d;
		},
		home: function (f) { return homeOf(f.name); },
		diff: function (f) { return diffOf(k, f.name); },
		link: function (f, m) {
			var g = groups[f.name] = groups[f.name] || [];
			g.push(m);
			allMaps.push(m);
			m.listeners.push(function () {
				if (syncing)
					return;
				syncing = true;
				g.forEach(function (o) {
					if (o !== m)
						o.setView(m.view.a, m.view.b);
				});
				syncing = false;
			});
		},
		all: function (sel) {
			var v = [];
			Object.keys(slot).forEach(function (n) {
				v = v.concat([].slice.call(
					slot[n].querySelectorAll(sel)));
			});
			return v;
		},
		owns: function (e) {
			return Object.keys(slot).some(function (n) {
				return slot[n].contains(e);
			});
		},
		drawn: function (counts) {
			totals.ranges += counts.ranges;
			totals.windows += counts.windows;
			sec.setAttribute('data-ranges', counts.ranges);
			sec.setAttribute('data-windows', counts.windows);
		}
	};
	testfsPage(k.data, sec, M);
});
status.setAttribute('data-kernels', ran.length);
status.setAttribute('data-ranges', totals.ranges);
status.setAttribute('data-windows', totals.windows);
status.setAttribute('data-diff', document.querySelectorAll(
	'svg.map.main rect.diff').length);
if (status.getAttribute('data-state') === 'loading')
	status.setAttribute('data-state', 'ok');
if (/selftest/.test(location.hash))
	selftestMatrix();

/*
 * page.html#selftest: the wheel on one kernel's map zooms every
 * kernel's map of that file to the same pages.
 */
function selftestMatrix() {
	var n = Object.keys(groups)[0], g = groups[n] || [], bad = [];
	if (g.length < 1)
		return status.setAttribute('data-selftest', 'no map');
	var m = g[0], r = m.el.getBoundingClientRect();
	var span = m.view.b - m.view.a;
	m.el.dispatchEvent(new WheelEvent('wheel', { deltaY: -100,
		clientX: r.left + r.width / 2, clientY: r.top + 20,
		bubbles: true, cancelable: true }));
	if (!(m.view.b - m.view.a < span))
		bad.push('the wheel did not zoom in');
	g.forEach(function (o, k) {
		if (Math.abs(o.view.a - m.view.a) > 1e-6 ||
		    Math.abs(o.view.b - m.view.b) > 1e-6)
			bad.push('map ' + k + ' shows ' + o.view.a + '-' +
				o.view.b + ', not ' + m.view.a + '-' + m.view.b);
	});
	m.reset();
	status.setAttribute('data-selftest', bad.length ? bad.join('; ') :
		'ok');
}
