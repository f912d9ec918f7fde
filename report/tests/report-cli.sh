#!/bin/bash
# testfs-report's command line: a page from a small log, and a clear
# message with exit status 2 (naming file and line) for every bad input.
# With TESTFS_SCENARIO, also its --html argument errors (before any mount).
# Usage: report-cli.sh TESTFS_REPORT [TESTFS_SCENARIO]
set -uo pipefail
report=$1 scenario=${2:-}
tmp=$(mktemp -d /tmp/testfs-report-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# expect STATUS PATTERN CMD...: the exit status and a line of stderr.
expect() {
	local want=$1 pattern=$2 got
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	[ "$got" = "$want" ] ||
		fail "$* exited $got, expected $want ($(head -c 300 "$tmp/err"))"
	grep -q -- "$pattern" "$tmp/err" ||
		fail "$*: no '$pattern' in: $(head -c 300 "$tmp/err")"
}

cat >"$tmp/ok.jsonl" <<'EOF'
{"seq":1,"mark":"begin <script>","t_ns":1000}
{"seq":2,"file":"a.bin","ino":2,"off":0,"len":16384,"page":0,"pages":4,"t_ns":2000,"done_ns":9000,"delay_ns":5000,"pid":1,"err":0,"cause":"sync","window":1,"ra_start":0,"ra_size":4,"ra_async":3,"ra_marker":1,"ra_pages":32,"mmap_miss":0,"trigger_page":0,"order":0,"alloc_order":0,"late":true,"by_read":true}
{"seq":3,"file":"a.bin","ino":2,"off":16384,"len":32768,"page":4,"pages":8,"t_ns":9500,"done_ns":12000,"delay_ns":0,"pid":1,"err":0,"cause":"async","window":2,"ra_start":4,"ra_size":8,"ra_async":8,"ra_marker":4,"ra_pages":32,"mmap_miss":0,"trigger_page":1,"order":0,"alloc_order":0,"future_key":"x"}
{"seq":4,"access":"read","file":"a.bin","ino":2,"page":0,"pages":2,"t_ns":1500,"end_ns":9500,"pid":1,"events":2,"late":1}
{"lost":0,"first_seq":5,"last_seq":4}
EOF

expect 0 'wrote' "$report" --vma 2-9:r-x --file a.bin:48K "$tmp/ok.jsonl"
[ -s "$tmp/ok.html" ] || fail "default output ok.html not written"
grep -q '"ranges":\[\[2,0,0,4,"sync"' "$tmp/ok.html" ||
	fail "the page lacks the first read's record"
# A mark's "<script>" must not open an element: the data and the code.
n=$(grep -o '<script' "$tmp/ok.html" | wc -l)
[ "$n" = 2 ] || fail "$n script elements, expected 2"
# Nothing from the network: the only URL is the SVG namespace.
if grep -o 'https\?://[^"'"'"' )]*' "$tmp/ok.html" |
	grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
	fail "the page refers to the network"
fi
grep -qE '(src|href)=' "$tmp/ok.html" && fail "the page loads something"

"$report" -o - "$tmp/ok.jsonl" >"$tmp/stdout.html" 2>/dev/null ||
	fail "-o - failed"
grep -q '^<!DOCTYPE html>' "$tmp/stdout.html" || fail "-o - wrote no page"

"$report" --help >"$tmp/help" || fail "--help failed"
for word in --output --title --subtitle --ra-kb --file --vma 'Exit status'; do
	grep -q -- "$word" "$tmp/help" || fail "--help does not mention $word"
done

expect 2 "$tmp/missing.jsonl: No such file" "$report" "$tmp/missing.jsonl"
: >"$tmp/empty.jsonl"
expect 2 "empty.jsonl: no log record" "$report" "$tmp/empty.jsonl"
head -2 "$tmp/ok.jsonl" >"$tmp/garbled.jsonl"
echo '{"seq":3,"file":"a.bin","page":4,' >>"$tmp/garbled.jsonl"
expect 2 "garbled.jsonl:3: " "$report" "$tmp/garbled.jsonl"
printf '{"seq":1,"file":"a.bin","page":4,"pages":1}\n' >"$tmp/short.jsonl"
expect 2 'short.jsonl:1: .*"t_ns"' "$report" "$tmp/short.jsonl"
printf 'GET / HTTP/1.1\n' >"$tmp/text.jsonl"
expect 2 "text.jsonl:1: not a JSON object" "$report" "$tmp/text.jsonl"
printf '{"seq":1,"hello":2}\n' >"$tmp/other.jsonl"
expect 2 "other.jsonl:1: not a testfs log record" "$report" \
	"$tmp/other.jsonl"
expect 2 "no LOG given" "$report"
expect 2 "unknown option" "$report" --frobnicate "$tmp/ok.jsonl"
expect 2 "only one LOG" "$report" "$tmp/ok.jsonl" "$tmp/ok.jsonl"
expect 2 "--vma '9-2'" "$report" --vma 9-2 "$tmp/ok.jsonl"
expect 2 "--ra-kb '0': " "$report" --ra-kb 0 "$tmp/ok.jsonl"
expect 2 "--ra-kb '1M': " "$report" --ra-kb 1M "$tmp/ok.jsonl"
# The page is told read_ahead_kb, and each read its ra_pages and by_read.
"$report" -o "$tmp/ra.html" --ra-kb 1024 "$tmp/ok.jsonl" || fail "--ra-kb 1024"
grep -q '"raKb":1024,' "$tmp/ra.html" || fail "--ra-kb 1024: not in the data"
grep -q ',32,1\]' "$tmp/ra.html" || fail "the by_read read lacks ra_pages 32, by_read 1"
expect 2 "--vma '1-2:rwz'" "$report" --vma 1-2:rwz "$tmp/ok.jsonl"
expect 2 "--file 'a.bin': expected NAME:SIZE" "$report" --file a.bin "$tmp/ok.jsonl"
expect 2 "--file 'a.bin:12Q': unknown size" "$report" --file a.bin:12Q "$tmp/ok.jsonl"
cp "$tmp/ok.jsonl" "$tmp/self.html"
expect 2 "would replace the log" "$report" "$tmp/self.html"
expect 1 "$tmp/nodir/x.html" "$report" -o "$tmp/nodir/x.html" "$tmp/ok.jsonl"

if [ -n "$scenario" ]; then
	expect 2 "--html: expected a FILE" "$scenario" run vma-boundary --html
	expect 2 "--html $tmp/nodir/x.html: No such file" "$scenario" run \
		vma-boundary --html "$tmp/nodir/x.html"
fi

[ "$fails" = 0 ] || exit 1
echo "testfs-report command line: all checks passed"
