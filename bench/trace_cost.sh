#!/bin/bash
# SPDX-License-Identifier: MIT
#
# trace_cost.sh: what kernel correlation costs, testfs with tracing on
# against the same daemon with --no-trace, in one run, for one or more
# testfs programs (to compare two builds, before and after a change).
#
#   sudo bash bench/trace_cost.sh [--rounds N] [--size SIZE] [--ra-kb N]
#                                 [--bs SIZE] [LABEL=PROGRAM]...
#
# Each PROGRAM (default: $TESTFS_BIN, else build/src/testfs, as
# "testfs") is mounted twice, each serving big.bin:SIZE:zero (default
# 512M) at --ra-kb N (1024) with its log written to a file (--log): once
# with its defaults (tracing on) and once with --no-trace. Every round
# (N, default 9) reads the file on every mount, cold (posix_fadvise
# DONTNEED through dd iflag=nocache, and fincore(1) must count no cached
# page), with dd bs=SIZE (1M), in an order reversed every other round.
# Per run it takes the reader's MB/s (10^6 bytes per second of dd's wall
# time) and the daemon's CPU time (all its threads, from
# /proc/PID/task/*/schedstat) per 128 KiB read, and of it the thread
# named testfs-tracer's (older builds did not name their tracer). It
# prints the medians with [min, max], and per program the median of the
# per-round ratios on / --no-trace: the tracing overhead.
#
# Needs root (tracing, read_ahead_kb). Every mount is made under a
# private temporary directory with --watch-pid of this script, and is
# unmounted on every exit; a dd that runs over 120 s ends the run.
set -euo pipefail
BENCH=trace_cost.sh
# shellcheck source=bench/bench_lib.sh
. "$(dirname "$0")/bench_lib.sh"

rounds=9 size=512M ra=1024 bs=1M
progs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds|--size|--ra-kb|--bs) bench_value "$1" $# ;;
	esac
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--ra-kb) ra=$2; shift 2 ;;
	--bs) bs=$2; shift 2 ;;
	-h|--help) sed -n '4,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*=*) progs+=("$1"); shift ;;
	*) echo "trace_cost.sh: unknown argument '$1' (see --help)" >&2
	   exit 2 ;;
	esac
done
case "$rounds" in ''|*[!0-9]*|0)
	echo "trace_cost.sh: --rounds wants a positive number" >&2; exit 2 ;;
esac
[ ${#progs[@]} -gt 0 ] ||
	progs=("testfs=${TESTFS_BIN:-$(dirname "$0")/../build/src/testfs}")
bench_needs "tracing, read_ahead_kb" dd fincore timeout
bench_start_work
names=()
for p in "${progs[@]}"; do
	label=${p%%=*} bin=${p#*=}
	[ -x "$bin" ] || { echo "trace_cost.sh: $bin: not executable" >&2
			   exit 1; }
	for mode in on off; do
		n=${#names[@]}
		extra=()
		[ $mode = off ] && extra=(--no-trace)
		bench_mount "$n" "$bin" -f -q --file "big.bin:$size:zero" \
			--ra-kb "$ra" --log "$work/log$n.jsonl" \
			--watch-pid $$ "${extra[@]}"
		names+=("$label $mode")
	done
done
dirs=("${bench_dirs[@]}") pids=("${bench_pids[@]}")
for i in "${!dirs[@]}"; do
	bench_wait_for "$i" "${dirs[$i]}/.testfs/config" "${names[$i]}"
done

cpu_ns() { # all threads of $1, and its thread testfs-tracer (or -1)
	local t s=0 tr=-1 v
	for t in /proc/"$1"/task/*; do
		read -r v _ <"$t/schedstat" 2>/dev/null || continue
		s=$((s + v))
		[ "$(cat "$t/comm" 2>/dev/null)" = testfs-tracer ] && tr=$v
	done
	echo "$s $tr"
}

: >"$work/runs"
order=("${!dirs[@]}")
for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 0 ]; then
		order=($(printf '%s\n' "${!dirs[@]}" | sort -rn))
	else
		order=("${!dirs[@]}")
	fi
	for i in "${order[@]}"; do
		bench_cold "${dirs[$i]}/big.bin"
		read -r c0 r0 < <(cpu_ns "${pids[$i]}")
		t0=$(date +%s%N)
		bytes=$(timeout 120 dd if="${dirs[$i]}/big.bin" of=/dev/null \
			bs="$bs" 2>&1 | awk '/bytes/ { print $1 }')
		t1=$(date +%s%N)
		read -r c1 r1 < <(cpu_ns "${pids[$i]}")
		[ -n "$bytes" ] && [ "$bytes" -gt 0 ] ||
			{ echo "trace_cost.sh: dd failed" >&2; exit 1; }
		tr=-1
		[ "$r0" -ge 0 ] && [ "$r1" -ge 0 ] && tr=$((r1 - r0))
		echo "$r $i $bytes $((t1 - t0)) $((c1 - c0)) $tr" >>"$work/runs"
	done
done

echo "trace_cost.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), kernel $(uname -r)," \
	"$rounds rounds, big.bin:$size:zero, ra_kb $ra, dd bs=$bs," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| system | MB/s median [min, max] | server CPU us per 128 KiB median [min, max] | of it the tracer thread |"
echo "|---|--:|--:|--:|"
for i in "${!dirs[@]}"; do
	awk -v i="$i" -v name="${names[$i]}" '
	function med(a, n,   k, j, t) {
		for (k = 2; k <= n; k++)
			for (j = k; j > 1 && a[j-1] > a[j]; j--) {
				t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	$2 == i { n++; mb[n] = $3 / ($4 / 1e9) / 1e6
		  cpu[n] = $5 / 1000 / ($3 / 131072)
		  if ($6 >= 0) { nt++; tr[nt] = $6 / 1000 / ($3 / 131072) } }
	END {
		m = med(mb, n); lo = mb[1]; hi = mb[n]
		c = med(cpu, n); clo = cpu[1]; chi = cpu[n]
		t = nt ? sprintf("%.2f [%.2f, %.2f]", med(tr, nt), tr[1],
				 tr[nt]) : "(unnamed)"
		printf "| %s | %.0f [%.0f, %.0f] | %.1f [%.1f, %.1f] | %s |\n",
			name, m, lo, hi, c, clo, chi, t
	}' "$work/runs"
done
echo
for i in "${!dirs[@]}"; do
	[ $((i % 2)) = 0 ] || continue
	awk -v on="$i" -v off="$((i + 1))" -v name="${names[$i]% on}" '
	$2 == on { a[$1] = $3 / $4; ca[$1] = $5 / $3 }
	$2 == off { b[$1] = $3 / $4; cb[$1] = $5 / $3 }
	END {
		for (r in a) { n++; q[n] = a[r] / b[r]; d[n] = (ca[r] - cb[r]) * 131072 / 1000 }
		for (k = 2; k <= n; k++)
			for (j = k; j > 1 && q[j-1] > q[j]; j--) {
				t = q[j]; q[j] = q[j-1]; q[j-1] = t }
		for (k = 2; k <= n; k++)
			for (j = k; j > 1 && d[j-1] > d[j]; j--) {
				t = d[j]; d[j] = d[j-1]; d[j-1] = t }
		mq = n % 2 ? q[(n+1)/2] : (q[n/2] + q[n/2+1]) / 2
		md = n % 2 ? d[(n+1)/2] : (d[n/2] + d[n/2+1]) / 2
		printf "- %s: MB/s on / --no-trace %.3f [%.3f, %.3f] " \
			"(overhead %.1f%%); tracing CPU %.1f us per 128 KiB " \
			"[%.1f, %.1f]\n", name, mq, q[1], q[n], (1 - mq) * 100,
			md, d[1], d[n]
	}' "$work/runs"
done
