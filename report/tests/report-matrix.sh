#!/bin/bash
# testfs-matrix --html in a real browser. On the host kernel alone (no
# QEMU): a scenario and a touch run, each page opened in headless
# Chromium: no console error, as many ranges drawn as the page's data
# holds, the linked zoom works (#selftest), the screenshot is not blank.
# With a cached Debian 6.1 kernel and QEMU: host + debian:6.1 on
# vma-boundary exec=yes, where 6.1 fetches pages outside the VMA and the
# host (6.16 or later) does not: the page must mark that difference.
#
# Usage: report-matrix.sh TESTFS_MATRIX PNG_COLORS
# TESTFS_REPORT_KEEP=DIR keeps the pages and screenshots in DIR.
# Exit 77 (skip) without root, /dev/fuse or Chromium; under CI=true a
# missing Chromium is a failure, and so is a cached 6.1 kernel that
# cannot be run.
set -uo pipefail
matrix=$1 png_colors=$2
# shellcheck source=report/tests/browser-lib.sh
. "$(dirname "$0")/browser-lib.sh"

[ "$(id -u)" = 0 ] || skip "not root (testfs-matrix mounts testfs)"
[ -c /dev/fuse ] || skip "/dev/fuse missing"
need_browser "$png_colors"
window=1400,1400

tmp=$(mktemp -d /tmp/testfs-test.rmatrix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The page's data holds one [seq, file, first, pages, "cause", ...] array
# per FUSE read (report/html.c); access records have a string third.
data_ranges() {
	grep -o '\[[0-9]*,[0-9]*,[0-9]*,[0-9]*,"[a-z]*",' "$1" | wc -l
}

# check NAME: opens $tmp/NAME.html; its #status element in $STATUS.
check() {
	local p=$1 html=$tmp/$1.html want got
	[ -s "$html" ] || {
		fail "$p.html not written"
		return
	}
	open_page "$p" "$html"
	want=$(data_ranges "$html")
	got=$(status_count data-ranges)
	[ "$want" -gt 0 ] || fail "$p: the page's data holds no read"
	[ "$got" = "$want" ] || fail "$p: $got ranges drawn, data has $want"
	page_selftest "$p" "$html" "linked zoom"
	page_screenshot "$p" "$html" "$png_colors"
}

# --- Bad use: a command the page cannot draw ---------------------------
"$matrix" --kernel host --html "$tmp/x.html" suite >"$tmp/out" 2>&1
rc=$?
[ "$rc" = 2 ] || fail "--html with suite: status $rc, expected 2"
grep -q "not supported" "$tmp/out" ||
	fail "--html with suite: no clear message: $(cat "$tmp/out")"
[ ! -e "$tmp/x.html" ] || fail "--html with suite wrote a page"

# --- The host kernel alone ---------------------------------------------
timeout 300 "$matrix" --kernel host --html "$tmp/host.html" \
	--json "$tmp/host.json" scenario vma-boundary preset=small \
	throughput=no exec=yes >"$tmp/host.out" 2>&1 ||
	fail "testfs-matrix scenario on host: $(tail -5 "$tmp/host.out")"
check host
# The scenario's own count of FUSE requests, from its --json.
want=$(grep -o '"requests":[0-9]*' "$tmp/host.json" | head -1 | tr -dc 0-9)
got=$(status_count data-ranges)
[ "$got" = "$want" ] || fail "host: $got ranges drawn, scenario says $want"
timeout 300 "$matrix" --kernel host --html "$tmp/touch.html" \
	touch 1024 1024 --exec >"$tmp/touch.out" 2>&1 ||
	fail "testfs-matrix touch on host: $(tail -5 "$tmp/touch.out")"
check touch

# --- Host and Debian 6.1 -----------------------------------------------
cache=$("$matrix" cache-dir) || fail "testfs-matrix cache-dir failed"
two=""
if [ ! -f "$cache/kernels/debian-6.1/bzImage" ]; then
	two="no cached Debian 6.1 kernel ($cache/kernels/debian-6.1)"
	echo "SKIP (two kernels): $two"
elif ! command -v qemu-system-x86_64 >/dev/null; then
	two="qemu-system-x86_64 missing"
	[ "${CI:-}" = true ] && fail "6.1 is cached but $two (CI=true)"
	echo "SKIP (two kernels): $two"
else
	timeout 500 "$matrix" --kernel host --kernel debian:6.1 \
		--html "$tmp/two.html" scenario vma-boundary \
		preset=small throughput=no exec=yes >"$tmp/two.out" 2>&1 ||
		fail "host + debian:6.1: $(tail -5 "$tmp/two.out")"
	check two
	# 6.1 reads around the first fault (half a window before the
	# VMA) and keeps async readahead going past its end; 6.16 and
	# later stop both at the VMA on a PROT_EXEC mapping
	# (docs/kernels.md). The page must say so and mark it.
	diff=$(status_count data-diff)
	[ "${diff:-0}" -ge 1 ] || fail "two: no differing pages marked"
	grep -q 'Fetched on debian:6.1 and not on host' "$tmp/two.dom" ||
		fail "two: the difference is not said in words"
	grep -Eq 'debian:6\.1: [1-9][0-9]* before / [1-9][0-9]* after' \
		"$tmp/two.dom" || fail "two: no 'N before / M after' for 6.1"
	grep -q 'host: 0 before / 0 after' "$tmp/two.dom" ||
		fail "two: the host line is not '0 before / 0 after'"
fi

if [ -n "${TESTFS_REPORT_KEEP:-}" ]; then
	mkdir -p "$TESTFS_REPORT_KEEP" &&
		cp "$tmp"/*.html "$tmp"/*.png "$TESTFS_REPORT_KEEP"/
fi
[ "$fails" = 0 ] || exit 1
echo "matrix pages: all checks passed${two:+ (two kernels skipped: $two)}"
