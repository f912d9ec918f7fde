#!/bin/bash
# testfs-report's command line: a page from a small log, and a clear
# message with exit status 2 (naming file and line) for every bad input.
# With TESTFS_SCENARIO, also its --html argument errors (before any mount).
# Usage: report-cli.sh TESTFS_REPORT [TESTFS_SCENARIO]
set -uo pipefail
report=$1 scenario=${2:-}
tmp=$(mktemp -d /tmp/testfs-report-cli.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=report/tests/browser-lib.sh
. "$(dirname "$0")/browser-lib.sh"

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

# Records that cannot be (exit 2, FILE:LINE: the reason), each on line 2
# after a good read. 2^51 pages of 4 KiB end any file: off_t ends at 2^63.
good='{"seq":1,"file":"a.bin","page":0,"pages":4,"t_ns":2000,"done_ns":9000}'
# bad NAME PATTERN RECORD [OPTIONS...]
bad() {
	local name=$1 pattern=$2 record=$3
	shift 3
	printf '%s\n%s\n' "$good" "$record" >"$tmp/$name.jsonl"
	expect 2 "$name.jsonl:2: $pattern" "$report" "$@" "$tmp/$name.jsonl"
}
r='"seq":2,"file":"a.bin","t_ns":2000,"done_ns":9000'
a='"seq":2,"access":"read","file":"a.bin","t_ns":2000,"end_ns":3000'
bad huge 'page 0 and 18446744073709551615 pages: past page 2^51' \
	"{$r,\"page\":0,\"pages\":18446744073709551615}"
bad wrap 'page 18446744073709551615 and 2 pages' \
	"{$r,\"page\":18446744073709551615,\"pages\":2}"
bad edge 'page 2251799813685247 and 2 pages' \
	"{$r,\"page\":2251799813685247,\"pages\":2}"
bad zero '0 pages' "{$r,\"page\":3,\"pages\":0,\"err\":0}"
bad long 'a read of 2000000 pages' "{$r,\"page\":3,\"pages\":2000000}"
bad neg '"page" is negative, not an unsigned number' \
	"{$r,\"page\":-1,\"pages\":1}"
bad strpage '"pages" is a string' "{$r,\"page\":1,\"pages\":\"1\"}"
bad backwards 'answered (done_ns 10) before it arrived (t_ns 20)' \
	'{"seq":2,"file":"a.bin","page":0,"pages":1,"t_ns":20,"done_ns":10}'
bad future '"t_ns" 9223372036854775808 is no CLOCK_MONOTONIC time' \
	'{"seq":2,"file":"a.bin","page":0,"pages":1,"t_ns":9223372036854775808,"done_ns":9223372036854775809}'
bad window 'a window of 8 pages at page 2251799813685247' \
	"{$r,\"page\":0,\"pages\":1,\"window\":1,\"ra_start\":2251799813685247,\"ra_size\":8}"
bad bigwin '"ra_size" 4294967296 is more than 4294967295' \
	"{$r,\"page\":0,\"pages\":1,\"window\":1,\"ra_start\":0,\"ra_size\":4294967296}"
bad eof 'page 4 is past the end of a.bin (4 pages)' \
	"{$r,\"page\":4,\"pages\":1}" --file a.bin:16K
bad aend 'ends (end_ns 100) before it starts (t_ns 200)' \
	'{"seq":2,"access":"fault","file":"a.bin","page":0,"pages":1,"t_ns":200,"end_ns":100,"events":1,"late":0}'
bad azero '0 pages' "{$a,\"page\":0,\"pages\":0}"
bad ahuge 'page 1 and 18446744073709551615 pages' \
	"{$a,\"page\":1,\"pages\":18446744073709551615}"
bad aeof 'page 9 is past the end of a.bin (4 pages)' \
	"{$a,\"page\":9,\"pages\":1}" --file a.bin:16K
bad alate '3 late events of 2' "{$a,\"page\":0,\"pages\":1,\"events\":2,\"late\":3}"
bad atype '"access" "swap" is not fault, read or map' \
	'{"seq":2,"access":"swap","file":"a.bin","page":0,"pages":1,"t_ns":2000,"end_ns":3000}'
bad lost '"lost" 5 but first_seq 2 to last_seq 3' \
	'{"lost":5,"first_seq":2,"last_seq":3}'
printf '%s\n{"lost":18446744073709551615}\n{"lost":1}\n' "$good" \
	>"$tmp/lostsum.jsonl"
expect 2 "lostsum.jsonl:3: more records lost" "$report" "$tmp/lostsum.jsonl"
bad markneg '"t_ns" is negative' '{"seq":2,"mark":"x","t_ns":-5}'
# What can be: a read ending past the end (the kernel asks for whole
# folios), an O_DIRECT read past it, a failed read of no pages.
printf '%s\n{%s,"page":3,"pages":4}\n{%s,"page":64,"pages":1,"direct":true}\n{%s,"page":5,"pages":0,"err":5}\n' \
	"$good" "$r" "$r" "$r" >"$tmp/edges.jsonl"
expect 0 'wrote' "$report" --file a.bin:16K "$tmp/edges.jsonl"

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

# Output files (src/common/outfile.h): a FIFO is written into and stays a
# FIFO, a link is followed and stays, a full device (a scratch node of
# /dev/full, never the real one) is an error that names the cause.
mkfifo "$tmp/fifo"
timeout 60 cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
expect 0 'wrote' "$report" -o "$tmp/fifo" "$tmp/ok.jsonl"
wait "$reader" || fail "the FIFO's reader got no end of file"
[ -p "$tmp/fifo" ] || fail "-o FIFO replaced the FIFO"
grep -q '^<!DOCTYPE html>' "$tmp/fifo.out" || fail "-o FIFO: no page in it"
ln -s target.html "$tmp/link.html"
expect 0 'wrote' "$report" -o "$tmp/link.html" "$tmp/ok.jsonl"
[ -L "$tmp/link.html" ] || fail "-o LINK replaced the link"
grep -q '^<!DOCTYPE html>' "$tmp/target.html" || fail "-o LINK: no page"
ln -s ok.jsonl "$tmp/log-link"
expect 2 "would replace the log" "$report" -o "$tmp/log-link" "$tmp/ok.jsonl"
[ -L "$tmp/log-link" ] && grep -q '"seq":1' "$tmp/ok.jsonl" ||
	fail "-o LINK-TO-THE-LOG replaced the log"
if mknod "$tmp/full" c 1 7 2>/dev/null; then
	expect 1 "$tmp/full: No space left on device" "$report" \
		-o "$tmp/full" "$tmp/ok.jsonl"
	[ -c "$tmp/full" ] || fail "-o DEVICE replaced the device"
else
	echo "(no scratch /dev/full node: mknod needs root)" >&2
fi

if [ -n "$scenario" ]; then
	expect 2 "--html: expected a FILE" "$scenario" run vma-boundary --html
	expect 2 "--html $tmp/nodir/x.html: No such file" "$scenario" run \
		vma-boundary --html "$tmp/nodir/x.html"
fi

[ "$fails" = 0 ] || exit 1
echo "testfs-report command line: all checks passed"
