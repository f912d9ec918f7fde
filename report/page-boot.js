/*
 * testfs report page, before testfsPage(): an error anywhere sets
 * #status data-state="error" (the test suite reads it) and says so on
 * the page, once, whatever part of the script it came from.
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
