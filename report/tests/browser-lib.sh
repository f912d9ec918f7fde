# shellcheck shell=bash
# Sourced by the report tests (report/tests/*.sh), not run: how they
# skip and count failures, and headless Chromium on a page. The sourcing
# script makes $tmp (a scratch directory) before it opens a page.

skip() {
	echo "SKIP: $*"
	exit 77
}

# What is missing here is a skip, but CI must run the test.
need() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* and CI=true (.ci/run installs it)" >&2
		exit 1
	fi
	skip "$*"
}

fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# need_browser PNG_COLORS: Chromium in $browser, and the screenshot
# check (png-colors, built with zlib); else need().
need_browser() {
	browser=$(command -v chromium || command -v chromium-browser || true)
	[ -n "$browser" ] ||
		need "chromium not installed (apt-get install chromium)"
	[ -n "$1" ] ||
		need "built without zlib (apt-get install zlib1g-dev), no PNG check"
}

# run_browser ARGS...: headless Chromium with a fresh profile under
# $tmp, in a window of $window pixels (WIDTH,HEIGHT).
window=1400,1000
run_browser() {
	local profile
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 \
		--window-size="$window" "$@"
}

# open_page NAME HTML: the page's DOM in $tmp/NAME.dom and its console
# in $tmp/NAME.console; a console error or a script that did not finish
# fails. The page's #status element in $STATUS.
open_page() {
	local p=$1 html=$2
	run_browser --dump-dom "file://$html" >"$tmp/$p.dom" \
		2>"$tmp/$p.console" || fail "$p: chromium --dump-dom failed"
	if grep -E 'Uncaught|CONSOLE' "$tmp/$p.console"; then
		fail "$p: console errors (above)"
	fi
	STATUS=$(grep -o '<div id="status"[^>]*>' "$tmp/$p.dom")
	echo "$p: $STATUS"
	case $STATUS in
	*'data-state="ok"'*) ;;
	*) fail "$p: the page's script did not finish: $STATUS" ;;
	esac
}

# status_count ATTR: the number of ATTR="N" in $STATUS.
status_count() {
	echo "$STATUS" | grep -o "$1=\"[0-9]*\"" | tr -dc 0-9
}

# page_selftest NAME HTML WHAT: the page's own self-test (page.js
# #selftest: wheel zoom, single pages, hover, linked zoom) passes.
page_selftest() {
	local self
	run_browser --dump-dom "file://$2#selftest" >"$tmp/$1.self" \
		2>>"$tmp/$1.console" || fail "$1: chromium #selftest failed"
	self=$(grep -o 'data-selftest="[^"]*"' "$tmp/$1.self")
	[ "$self" = 'data-selftest="ok"' ] ||
		fail "$1: $3 self-test: ${self:-not run}"
}

# page_screenshot NAME HTML PNG_COLORS: the page's screenshot is not
# blank. A blank page is one colour; a report has the causes' colours,
# grey lanes, black text and its anti-aliasing: many more than 16, and
# well over 2% of the pixels are not white.
page_screenshot() {
	run_browser --screenshot="$tmp/$1.png" "file://$2" \
		>/dev/null 2>>"$tmp/$1.console" ||
		fail "$1: chromium --screenshot failed"
	"$3" "$tmp/$1.png" 16 2 || fail "$1.png looks blank"
}
