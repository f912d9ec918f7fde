/*
 * testfs report page, before testfsPage(): an error anywhere sets
 * #status data-state="error" (the test suite reads it) and says so on
 * the page, once, whatever part of the script it came from; and what
 * testfsPage() and a matrix page's script (page-matrix.js) both use.
 */
var status = document.getElementById('status');
window.addEventListener('error', function (e) {
	status.setAttribute('data-state', 'error');
	status.setAttribute('data-error', String(e.message));
	var p = document.createElement('p');
	p.className = 'error';
	p.textContent = 'This page failed to draw: ' + e.message;
	document.body.insertBefore(p, document.body.firstChild);
});

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
