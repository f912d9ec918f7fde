#!/bin/sh
# The concurrency benchmark's short version runs: one round of a 16 MiB
# file on every system, a report with every section and a PASS or FAIL
# for every target, exit 0, testfs writing its log files, and no mount or
# log directory of its own left behind. Its
# figures are not judged (a benchmark, not a timed test). Without root
# the benchmark exits 77: skipped.
#   bench_conc_short.sh CONCURRENCY
set -u
conc=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Its mounts are /tmp/testfs-bench-conc.PID.K: its pid names them.
"$conc" --rounds 1 --size 16 --fill-line >"$out" 2>/dev/null &
pid=$!
wait "$pid"
status=$?
[ "$status" = 77 ] && { echo "skipped: needs root"; exit 77; }
failed=0
fail() {
	echo "FAIL: $*"
	failed=1
}
[ "$status" = 0 ] || fail "concurrency exited $status"
for want in "| 1 | 1 MiB | testfs --threads 1 |" \
	"| 16 | 4 KiB | minimal 1 thread |" "minimal 1 thread, memset" \
	"Server CPU time" "Targets" "/dev/fuse, tracing on" \
	"Server CPU per 128 KiB read" "Tracing: testfs" "io_uring: testfs" \
	"each with its log file (--log)"; do
	grep -qF -- "$want" "$out" || fail "no '$want' in the report"
done
# 6 /dev/fuse lines, 6 io_uring, 6 tracing, 1-3 CPU lines.
verdicts=$(grep -cE '(PASS|FAIL)$' "$out")
[ "$verdicts" -ge 19 ] || fail "$verdicts PASS/FAIL lines, expected >= 19"
summary=$(sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\.$/\1 \2/p' "$out")
[ -n "$summary" ] || fail "no 'N passed, M failed.' line"
[ "$(echo "$summary" | awk '{ print $1 + $2 }')" = "$verdicts" ] ||
	fail "the summary ($summary) does not count the $verdicts verdicts"
# (meson's time limit covers the run; each run has its own: 120 s.)
if grep -qF "/tmp/testfs-bench-conc.$pid." /proc/self/mountinfo; then
	fail "a mount of the run is left under /tmp/testfs-bench-conc.$pid.*"
fi
logs=$(sed -n 's/^testfs log files in \(.*\) (removed at the end)$/\1/p' "$out")
case "$logs" in
/tmp/testfs-bench-conc-logs.*)
	[ ! -e "$logs" ] || fail "the log directory $logs is left behind" ;;
*) fail "no 'testfs log files in DIR (removed at the end)' line" ;;
esac
[ "$failed" = 0 ] || { echo "--- report:"; cat "$out"; }
exit $failed
