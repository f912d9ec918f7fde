#!/bin/bash
# SPDX-License-Identifier: MIT
#
# cold_readers.sh: testfs against the minimal FUSE server the way a user
# checks it from outside: one large zero file, a high read_ahead_kb,
# cold sequential reads by 1 and 4 reader processes, the servers
# alternating in one run.
#
#   sudo bash bench/cold_readers.sh [--rounds N] [--size MIB] [--ra-kb N]
#                                   [--threads N]
#
# Four servers are mounted at once, each under a private temporary
# directory, each serving one zero file of MIB MiB (default 512) at
# read_ahead_kb N (1024): testfs with its defaults and its log written to
# a file (--log: tracing on, one request thread), testfs --threads N (4,
# also --log), and the minimal libfuse server (bench/minimal_server: a
# static buffer, no log) on one thread and on N threads (libfuse's
# multi-threaded loop). Every round (N, default 15) runs every cell (1
# and 4 readers, dd bs=1M and bs=4K; each reader a dd process reading its
# own equal part of the file) on every server, cold (posix_fadvise
# DONTNEED through dd iflag=nocache, until fincore(1) counts no page), the
# servers in an order reversed every other round. A run's MB/s is the
# file's size (10^6 bytes) over the wall time from the first reader's
# start to the last one's end.
#
# Per cell it prints each server's median MB/s with [min, max], and for
# each testfs the ratio of its median to the better minimal server's
# (the higher median of the two): >= 1.00 is the target of issue 29.
# Environment: TESTFS_BIN, MINIMAL_SERVER (default: this build tree's).
#
# Needs root (read_ahead_kb, dropping pages). Every mount is unmounted on
# every exit; a reader that runs over 120 s ends the run.
set -euo pipefail
BENCH=cold_readers.sh
# shellcheck source=bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"

rounds=15 size=512 ra=1024 threads=4
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds|--size|--ra-kb|--threads) bench_value "$1" $# ;;
	esac
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--ra-kb) ra=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	-h|--help) sed -n '4,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) bench_say "unknown argument '$1' (see --help)"
	   exit 2 ;;
	esac
done
num() { # $1 name, $2 value, $3 min, $4 max
	case "$2" in ''|*[!0-9]*)
		bench_say "$1 wants a number ($3..$4)"
		exit 2 ;;
	esac
	if [ ${#2} -gt 9 ] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		bench_say "$1 $2 is out of range ($3..$4)"
		exit 2
	fi
}
num --rounds "$rounds" 1 99
num --size "$size" 16 65536
num --ra-kb "$ra" 4 65536
num --threads "$threads" 2 256
if [ $((size % 4)) != 0 ]; then
	bench_say "--size $size: a multiple of 4 MiB, please"
	exit 2
fi
here=$(dirname "$0")
testfs=${TESTFS_BIN:-$here/../build/src/testfs}
minimal=${MINIMAL_SERVER:-$here/../build/bench/minimal_server}
bench_needs "read_ahead_kb, dropping pages" dd fincore timeout mountpoint
for b in "$testfs" "$minimal"; do
	[ -x "$b" ] || { bench_say "$b: not executable" \
				   "(build first: meson compile -C build)"
			 exit 1; }
done

bench_start_work
names=("testfs" "testfs --threads $threads" "minimal 1 thread"
       "minimal $threads threads")
bench_mount 0 "$testfs" -f -q --file "big.bin:${size}M:zero" --ra-kb "$ra" \
	--log "$work/log0.jsonl" --watch-pid $$
bench_mount 1 "$testfs" -f -q --threads "$threads" --file "big.bin:${size}M:zero" \
	--ra-kb "$ra" --log "$work/log1.jsonl" --watch-pid $$
bench_mount 2 "$minimal" -f --size "${size}M"
bench_mount 3 "$minimal" -f --size "${size}M" --threads "$threads"
dirs=("${bench_dirs[@]}")
files=("${dirs[0]}/big.bin" "${dirs[1]}/big.bin" "${dirs[2]}/zero.bin"
       "${dirs[3]}/zero.bin")
for i in 0 1 2 3; do
	bench_wait_for "$i" "${files[$i]}" "${names[$i]}"
done
# testfs sets its own (--ra-kb); the minimal server keeps the kernel's.
for i in 2 3; do
	echo "$ra" >"/sys/class/bdi/$(mountpoint -d "${dirs[$i]}")/read_ahead_kb"
done

now_ns() { date +%s%N; }

echo "cold_readers.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel" \
	"$(uname -r), $rounds rounds, a ${size} MiB zero file," \
	"read_ahead_kb $ra, load average $(cut -d' ' -f1-3 /proc/loadavg)"
out=$work/runs
: >"$out"
for r in $(seq "$rounds"); do
	order="0 1 2 3"
	[ $((r % 2)) = 0 ] && order="3 2 1 0"
	for n in 1 4; do
		for bs in 1M 4K; do
			share=$((size / n))
			count=$share
			[ $bs = 4K ] && count=$((share * 256))
			for i in $order; do
				bench_cold "${files[$i]}"
				rp=()
				t0=$(now_ns)
				for k in $(seq 0 $((n - 1))); do
					timeout 120 dd if="${files[$i]}" of=/dev/null \
						bs=$bs skip=$((k * count)) \
						count=$count status=none &
					rp+=($!)
				done
				for p in "${rp[@]}"; do
					wait "$p" || { bench_say "a reader of" \
						"${names[$i]} failed"
						exit 1; }
				done
				t1=$(now_ns)
				echo "$n $bs $i $r $((size * 1048576 * 1000 / (t1 - t0)))" >>"$out"
			done
		done
	done
	bench_say "round $r of $rounds done"
done

echo
echo "| readers | dd bs | server | MB/s median [min, max] | / the better minimal |"
echo "|--:|--:|---|--:|--:|"
awk -v names="${names[0]}|${names[1]}|${names[2]}|${names[3]}" '
function median(list, k,   a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j-1]; a[j-1] = t
		}
	lo = a[1]; hi = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$1 " " $2 " " $3] = v[$1 " " $2 " " $3] " " $5 }
END {
	split(names, name, "|")
	split("1 4", readers, " "); split("1M 4K", sizes, " ")
	for (x = 1; x <= 2; x++) for (y = 1; y <= 2; y++) {
		c = readers[x] " " sizes[y]
		for (i = 0; i < 4; i++) {
			m[i] = median(v[c " " i]); l[i] = lo; h[i] = hi
		}
		best = m[2] > m[3] ? m[2] : m[3]
		for (i = 0; i < 4; i++)
			printf "| %s | %s | %s | %d [%d, %d] | %s |\n",
			       readers[x], sizes[y], name[i + 1], m[i], l[i],
			       h[i], i < 2 ? sprintf("%.2fx", m[i] / best) : ""
	}
}' "$out"
