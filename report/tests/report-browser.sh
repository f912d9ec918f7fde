#!/bin/bash
# The report pages in a real browser. Mounts testfs from the build tree
# with a --log file, maps a slice of one file and faults it in order (the
# vma-boundary story), reads a 16k-page file sequentially, saves
# .testfs/log, unmounts, draws both logs with testfs-report (and a
# scenario with testfs-scenario --html when given), and opens every page
# in headless Chromium: the page's script must finish without an error
# and draw as many ranges and windows as the log holds, the screenshot
# must not be blank, a 16k-page run must stay under 2 MB, and no label
# may cover another label, a guide line or a drawn record.
#
# Usage: report-browser.sh TESTFS TESTFS_REPORT WORKLOAD PNG_COLORS
#	 [TESTFS_SCENARIO]
# TESTFS_REPORT_KEEP=DIR keeps the pages, screenshots and logs in DIR.
# Exit 77 (skip) without root, /dev/fuse or Chromium; without Chromium
# under CI=true the skip is a failure.
set -uo pipefail
daemon=$1 report=$2 workload=$3 png_colors=$4 scenario=${5:-}

skip() {
	echo "SKIP: $*"
	exit 77
}

[ "$(id -u)" = 0 ] || skip "not root (the test mounts testfs)"
[ -c /dev/fuse ] || skip "/dev/fuse missing"
# What is missing here is a skip, but CI must run the test.
need() {
	if [ "${CI:-}" = true ]; then
		echo "FAIL: $* and CI=true (.ci/run installs it)" >&2
		exit 1
	fi
	skip "$*"
}
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || need "chromium not installed (apt-get install chromium)"
[ -n "$png_colors" ] ||
	need "built without zlib (apt-get install zlib1g-dev), no PNG check"

tmp=$(mktemp -d /tmp/testfs-test.report.XXXXXX)
mnt=$tmp/mnt
mkdir "$mnt"
mounted=0
cleanup() {
	if [ "$mounted" = 1 ]; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt"
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# --- A real run --------------------------------------------------------
# 12 MiB: the middle third (pages 1024-2047) is mapped, as in the
# vma-boundary scenario; 64 MiB = 16384 pages read sequentially.
timeout 30 "$daemon" --file slice.bin:12M --file seq.bin:64M \
	--log "$tmp/daemon.jsonl" --watch-pid $$ "$mnt" || {
	echo "FAIL: testfs did not mount (status $?)" >&2
	exit 1
}
mounted=1
echo "mark mmap slice" >"$mnt/.testfs/ctl"
timeout 60 "$workload" mmap "$mnt/slice.bin" 1024 1024 || fail "mmap workload"
echo "mark sequential read" >"$mnt/.testfs/ctl"
timeout 60 "$workload" read "$mnt/seq.bin" || fail "read workload"
echo "mark end" >"$mnt/.testfs/ctl"
cp "$mnt/.testfs/log" "$tmp/saved.jsonl" || fail "cannot copy .testfs/log"
kernel=$(uname -r)
timeout 30 fusermount3 -u "$mnt" && mounted=0
# The daemon writes the rest of --log at unmount; it exits with the mount.
for _ in $(seq 100); do
	grep -q '"mark":"end"' "$tmp/daemon.jsonl" 2>/dev/null && break
	sleep 0.1
done

pages=()
for log in saved daemon; do
	"$report" -o "$tmp/$log.html" --title "testfs-report test ($log)" \
		--subtitle "kernel $kernel" --file slice.bin:12M \
		--file seq.bin:64M --vma slice.bin:1024-2047:r-- \
		"$tmp/$log.jsonl" || fail "testfs-report $log.jsonl"
	pages+=("$log")
done
if [ -n "$scenario" ]; then
	[ -x "$scenario" ] || fail "$scenario: not an executable"
	timeout 120 "$scenario" run vma-boundary preset=small \
		throughput=no log="$tmp/scenario.jsonl" \
		--html "$tmp/scenario.html" >"$tmp/scenario.txt" ||
		fail "testfs-scenario run vma-boundary --html"
	pages+=("scenario")
fi

# --- What each page must show ------------------------------------------
# From the log itself: the reads that carry pages, and the distinct
# kernel windows (ids > 0) they belong to.
expected_ranges() {
	grep '"off":' "$1" | grep -vc '"pages":0,'
}
expected_windows() {
	grep '"off":' "$1" | grep -o '"window":[1-9][0-9]*' | sort -u | wc -l
}

run_browser() {
	local profile
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 \
		--window-size=1400,1000 "$@"
}

size_limit=$((2 * 1024 * 1024))
for p in "${pages[@]}"; do
	html=$tmp/$p.html log=$tmp/$p.jsonl
	[ -s "$html" ] || {
		fail "$p.html not written"
		continue
	}
	size=$(stat -c %s "$html")
	echo "$p.html: $size bytes"
	[ "$size" -lt "$size_limit" ] || fail "$p.html: $size bytes >= 2 MB"
	run_browser --dump-dom "file://$html" >"$tmp/$p.dom" \
		2>"$tmp/$p.console" || fail "$p: chromium --dump-dom failed"
	if grep -E 'Uncaught|CONSOLE' "$tmp/$p.console"; then
		fail "$p: console errors (above)"
	fi
	status=$(grep -o '<div id="status"[^>]*>' "$tmp/$p.dom")
	echo "$p: $status"
	case $status in
	*'data-state="ok"'*) ;;
	*) fail "$p: the page's script did not finish: $status" ;;
	esac
	want=$(expected_ranges "$log")
	got=$(echo "$status" | grep -o 'data-ranges="[0-9]*"' | tr -dc 0-9)
	[ "$got" = "$want" ] ||
		fail "$p: $got ranges drawn, the log has $want reads"
	[ "$want" -gt 0 ] || fail "$p: the log has no read"
	want=$(expected_windows "$log")
	got=$(echo "$status" | grep -o 'data-windows="[0-9]*"' | tr -dc 0-9)
	[ "$got" = "$want" ] ||
		fail "$p: $got windows drawn, the log has $want"
	# What a reader does (page.js selftest): wheel zoom, single pages,
	# hover on a read.
	run_browser --dump-dom "file://$html#selftest" >"$tmp/$p.self" \
		2>>"$tmp/$p.console" || fail "$p: chromium #selftest failed"
	self=$(grep -o 'data-selftest="[^"]*"' "$tmp/$p.self")
	[ "$self" = 'data-selftest="ok"' ] ||
		fail "$p: interaction self-test: ${self:-not run}"
	# Labels laid out without overlap (page.js labelcheck): no label box
	# meets another label, a VMA/EOF/mark line or a drawn record, as the
	# page opens and zoomed on each VMA end.
	run_browser --dump-dom "file://$html#labelcheck" >"$tmp/$p.labels" \
		2>>"$tmp/$p.console" || fail "$p: chromium #labelcheck failed"
	labels=$(grep -o 'data-labels="[^"]*"' "$tmp/$p.labels")
	nlabels=$(grep -o 'data-label-count="[0-9]*"' "$tmp/$p.labels" |
		tr -dc 0-9)
	[ "$labels" = 'data-labels="ok"' ] ||
		fail "$p: labels overlap: ${labels:-not checked}"
	[ "${nlabels:-0}" -gt 0 ] || fail "$p: no label was checked"
	echo "$p: ${nlabels:-0} label boxes checked"
	# The reads' numbers are the log's seq: the mark "sequential read"
	# between the two workloads takes one, and the page says so.
	if [ "$p" = saved ] || [ "$p" = daemon ]; then
		note=$(grep -o '<p class="note">FUSE reads #N: [^<]*' \
			"$tmp/$p.labels")
		case $note in
		*"so the reads skip the numbers of the "*"1 mark"[!s]*) ;;
		*) fail "$p: the reads' numbering is not explained: ${note:-no note}" ;;
		esac
	fi
	run_browser --screenshot="$tmp/$p.png" "file://$html" \
		>/dev/null 2>>"$tmp/$p.console" ||
		fail "$p: chromium --screenshot failed"
	# A blank page is one colour; the report has the causes' colours,
	# grey lanes, black text and its anti-aliasing: many more than 16,
	# and well over 2% of the pixels are not white.
	"$png_colors" "$tmp/$p.png" 16 2 || fail "$p.png looks blank"
done

# cat of an 8 MiB file at read_ahead_kb 1024, traced without --trace-reads
# (the log measured on 6.18, cat-1024k.jsonl): cat calls
# POSIX_FADV_SEQUENTIAL, so the records' ra_pages is 512 and windows 4-7
# are 512 pages. The page says why, and why the accessed lane is empty.
catlog=$(dirname "$0")/cat-1024k.jsonl
"$report" -o "$tmp/cat.html" --ra-kb 1024 --file f.bin:8M "$catlog" ||
	fail "testfs-report cat-1024k.jsonl"
run_browser --dump-dom "file://$tmp/cat.html#labelcheck" >"$tmp/cat.dom" \
	2>"$tmp/cat.console" || fail "cat: chromium --dump-dom failed"
for want in "Windows 4, 5, 6 and 7 are 512 pages, more than read_ahead_kb 1024 (256 pages): the file's ra_pages was 512, twice read_ahead_kb: the program called posix_fadvise(POSIX_FADV_SEQUENTIAL)" \
	'No read(2) access of f.bin is in the log' \
	'read(2) accesses not traced (testfs --trace-reads)' \
	"<p class=\"note\">FUSE reads #N: the read's seq in the log.</p>" \
	'data-labels="ok"'; do
	grep -qF "$want" "$tmp/cat.dom" || fail "cat: the page lacks: $want"
done

# The sequential file is 16384 pages: its page must stay small.
grep -q '"file":"seq.bin"' "$tmp/saved.jsonl" ||
	fail "no read of seq.bin in the saved log"

# To look at them: TESTFS_REPORT_KEEP=DIR keeps the pages and screenshots.
if [ -n "${TESTFS_REPORT_KEEP:-}" ]; then
	mkdir -p "$TESTFS_REPORT_KEEP" &&
		cp "$tmp"/*.html "$tmp"/*.png "$tmp"/*.jsonl "$TESTFS_REPORT_KEEP"/
fi

[ "$fails" = 0 ] || exit 1
echo "report pages: all checks passed"
