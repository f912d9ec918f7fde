#!/bin/bash
# Builds testfs (scripts/setup.sh), runs the benchmarks and writes
# docs/benchmarks.md: the throughput comparison (testfs against a minimal
# FUSE server and tmpfs), a perf profile of the servers during a 1 MiB
# sequential read, the speed of content generation, the cost of the read
# log, scale (huge files, many files), many latency rules, the latency
# benchmark, and the
# machine, kernel and settings they ran with. Progress goes to stderr.
#
# Usage (as root): scripts/bench.sh [--quick] [--no-perf] [--output FILE]
#   --quick    short runs of every benchmark (about 1.5 minutes instead of
#              about five on a quiet 2-vCPU VM)
#   --no-perf  skip the profile (it is skipped anyway without perf)
#   --output   write FILE instead of docs/benchmarks.md
# Environment: BUILDDIR (default build), as for scripts/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=""
perf_on=1
output=docs/benchmarks.md
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=--quick ;;
	--no-perf) perf_on=0 ;;
	--output)
		if [ $# -lt 2 ]; then
			echo "bench: --output needs a file" >&2
			exit 2
		fi
		output=$2
		shift
		;;
	-h | --help)
		sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "bench: unknown argument '$1' (try --help)" >&2
		exit 2
		;;
	esac
	shift
done

progress() { echo "bench: $*" >&2; }

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (tmpfs mount, read_ahead_kb, perf)" >&2
	exit 1
fi

builddir=${BUILDDIR:-build}
started=$(date -u '+%Y-%m-%d %H:%M UTC')
t_start=$(date +%s)

progress "building with scripts/setup.sh into $builddir"
bash scripts/setup.sh >&2
# perf for the profile (scripts/packages.sh: bench_packages).
if [ "$perf_on" = 1 ]; then
	# shellcheck source=scripts/packages.sh
	. scripts/packages.sh
	install_missing "benchmarks" "${bench_packages[@]}" >&2 || true
fi

testfs_bin=$(realpath "$builddir/src/testfs")
minimal_bin=$(realpath "$builddir/bench/minimal_server")
export TESTFS_BIN=$testfs_bin MINIMAL_SERVER=$minimal_bin

work=$(mktemp -d /tmp/testfs-bench.XXXXXX)
server_pid=""
perf_pid=""
mnt=""

# Stops what this script started itself (the benchmarks clean up after
# themselves) and removes its files; on every exit, also Ctrl-C.
cleanup() {
	if [ -n "$perf_pid" ]; then
		kill -INT "$perf_pid" 2>/dev/null || true
	fi
	if [ -n "$server_pid" ]; then
		kill -TERM "$server_pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$server_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$server_pid" 2>/dev/null || true
	fi
	if [ -n "$mnt" ] && mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mounts_now() { mount | grep -E 'testfs|minimal' | sort || true; }
mounts_before=$(mounts_now)

others=$( (for b in latency throughput log_bench scale pattern_speed concurrency rules; do
	pgrep -a -x "$b"
done) || true)
if [ -n "$others" ]; then
	progress "warning: other benchmarks are running, figures will suffer:"
	echo "$others" >&2
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------------
# The benchmarks
# ---------------------------------------------------------------------

progress "throughput benchmark ($builddir/bench/throughput${quick:+ $quick})"
timeout 1800 "$builddir/bench/throughput" $quick >"$work/throughput.txt"

progress "concurrent readers ($builddir/bench/concurrency)"
conc_rounds=9
[ -n "$quick" ] && conc_rounds=3
timeout 2400 "$builddir/bench/concurrency" --rounds "$conc_rounds" \
	--fill-line >"$work/concurrency.txt"

progress "pattern generation ($builddir/bench/pattern_speed${quick:+ $quick})"
timeout 600 "$builddir/bench/pattern_speed" $quick >"$work/pattern.txt"

progress "log benchmark ($builddir/bench/log_bench${quick:+ $quick})"
timeout 1200 "$builddir/bench/log_bench" $quick >"$work/log.txt"

progress "scale benchmark ($builddir/bench/scale${quick:+ $quick})"
timeout 1200 "$builddir/bench/scale" $quick >"$work/scale.txt"

# Exit status 1 is a FAIL against its target: shown in the section.
progress "rules benchmark ($builddir/bench/rules${quick:+ $quick})"
rules_status=0
timeout 1800 "$builddir/bench/rules" $quick >"$work/rules.txt" ||
	rules_status=$?
if [ "$rules_status" -gt 1 ]; then
	echo "bench: bench/rules failed (exit $rules_status)" >&2
	exit 1
fi

progress "latency benchmark ($builddir/bench/latency${quick:+ $quick})"
timeout 900 "$builddir/bench/latency" $quick >"$work/latency.txt"

# Tracing on and off: the throughput comparison again with testfs's
# kernel correlation switched off (--no-trace), and with read(2) lookups
# traced too (--trace-reads); the first run used the daemon's defaults
# (on when root and tracefs allow it, without read(2) lookups).
progress "throughput benchmark, testfs --no-trace"
timeout 1800 "$builddir/bench/throughput" $quick --daemon-arg --no-trace \
	>"$work/throughput-notrace.txt"
progress "throughput benchmark, testfs --trace-reads"
timeout 1800 "$builddir/bench/throughput" $quick --daemon-arg --trace-reads \
	>"$work/throughput-reads.txt"

# ---------------------------------------------------------------------
# The profile: perf record of each server while a 1 MiB read(2) stream
# reads its 512 MiB file, cold, eight times, at read_ahead_kb 1024
# ---------------------------------------------------------------------

# Starts "$@" --ready-fd 3 MOUNTPOINT in the background and waits for it.
start_server() {
	local line=""

	mnt=$(mktemp -d /tmp/testfs-bench-perf.XXXXXX)
	rm -f "$work/ready"
	mkfifo "$work/ready"
	"$@" --ready-fd 3 "$mnt" 3>"$work/ready" &
	server_pid=$!
	if ! read -r -t 10 line <"$work/ready" || [ "$line" != ready ]; then
		echo "bench: $1 did not get ready" >&2
		return 1
	fi
}

stop_server() {
	kill -TERM "$server_pid"
	timeout 10 tail --pid="$server_pid" -f /dev/null ||
		kill -KILL "$server_pid"
	wait "$server_pid" 2>/dev/null || true
	server_pid=""
	if mountpoint -q "$mnt"; then
		umount -l "$mnt"
	fi
	rmdir "$mnt"
	mnt=""
}

# profile LABEL FILE: perf of $server_pid while FILE is read eight times.
profile() {
	local label=$1 file=$mnt/$2 data=$work/perf.data
	local dev

	dev=$(stat -c '%Hd:%Ld' "$mnt")
	echo 1024 >"/sys/class/bdi/$dev/read_ahead_kb"
	# cpu-clock (VMs often have no PMU) sampled every 250 us of CPU time.
	perf record -q -e cpu-clock -c 250000 -g -p "$server_pid" -o "$data" \
		2>"$work/perf.err" &
	perf_pid=$!
	sleep 1
	for _ in 1 2 3 4 5 6 7 8; do
		timeout 60 dd if="$file" iflag=nocache count=0 status=none
		timeout 60 dd if="$file" of=/dev/null bs=1M status=none
	done
	kill -INT "$perf_pid"
	wait "$perf_pid" || true
	perf_pid=""
	{
		local ns
		ns=$(perf report -i "$data" --stdio 2>/dev/null |
			sed -n 's/^# Event count (approx.): //p' | head -1) || true
		awk -v l="$label" -v ns="${ns:-0}" 'BEGIN {
			printf "%s: %.0f ms of server CPU per 512 MiB read\n", l,
				ns / 8 / 1e6 }'
		echo "  by object:"
		perf report -i "$data" --no-children -g none --sort dso \
			--stdio -q --percent-limit 0.5 2>/dev/null |
			sed 's/ *$//; /^$/d; s/^/  /' || true
		echo "  top functions (self):"
		perf report -i "$data" --no-children -g none --sort dso,symbol \
			--stdio -q --percent-limit 1 2>/dev/null |
			sed 's/ *- *- *$//; s/ *$//; /^$/d; s/^/  /' | head -12 || true
		echo
	} >>"$work/perf.txt"
}

perf_note=""
if [ "$perf_on" = 1 ] && command -v perf >/dev/null; then
	progress "profiling testfs (stamp, zero) and the minimal server with perf"
	: >"$work/perf.txt"
	start_server "$testfs_bin" -f -q --watch-pid $$ \
		--file stamp.bin:512M:stamp --file zero.bin:512M:zero
	profile "testfs stamp" stamp.bin
	profile "testfs zero" zero.bin
	stop_server
	start_server "$minimal_bin" -f --size 512M
	profile "minimal" zero.bin
	stop_server
elif [ "$perf_on" = 1 ]; then
	perf_note="(skipped: perf is not installed)"
else
	perf_note="(skipped: --no-perf)"
fi

# ---------------------------------------------------------------------
# No mount may be left behind
# ---------------------------------------------------------------------

mounts_after=$(mounts_now)
left=$(comm -13 <(echo "$mounts_before") <(echo "$mounts_after") | sed '/^$/d')
if [ -n "$left" ]; then
	echo "bench: FAIL: mounts left behind:" >&2
	echo "$left" >&2
	exit 1
fi
progress "no testfs, minimal or tmpfs mount of this run is left"

# ---------------------------------------------------------------------
# docs/benchmarks.md
# ---------------------------------------------------------------------

progress "writing $output"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
changes=$(git status --porcelain 2>/dev/null | sed 's/^...//' | tr '\n' ' ' |
	sed 's/ $//')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
virt=$(systemd-detect-virt 2>/dev/null || true)
buildtype=$(grep -o '"name": "buildtype", "value": "[a-z]*"' \
	"$builddir/meson-info/intro-buildoptions.json" |
	sed 's/.*"value": "//; s/"$//')
reporting=$(grep -o 'page_reporting[._a-z]*=[0-9]*' /proc/cmdline || true)
thp=$(sed 's/.*\[\(.*\)\].*/\1/' \
	/sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)
max_pages_limit=$(cat /proc/sys/fs/fuse/max_pages_limit 2>/dev/null ||
	echo unknown)
minutes=$(( ($(date +%s) - t_start + 59) / 60 ))

{
	echo "# Benchmarks"
	echo
	echo "Generated by \`sudo bash scripts/bench.sh${quick:+ $quick}\` on $started"
	echo "(about $minutes min), at commit $commit${changes:+ with uncommitted changes: $changes}."
	echo "To regenerate: \`sudo bash scripts/bench.sh\` (\`--quick\` for a short run)."
	echo "The programs are \`bench/throughput.c\`, \`bench/pattern_speed.c\`,"
	echo "\`bench/log_bench.c\`, \`bench/scale.c\`, \`bench/rules.c\` and"
	echo "\`bench/latency.c\`; their"
	echo "comments say exactly what they measure. Figures on a 2-vCPU VM move by"
	echo "several percent from run to run: compare the medians and the ranges, not"
	echo "single digits."
	echo
	echo "## Machine and settings"
	echo
	echo "| | |"
	echo "|---|---|"
	echo "| kernel | $(uname -r) ($(uname -m)) |"
	echo "| CPU | $cpu, nproc $(nproc)${virt:+, virtualisation: $virt} |"
	echo "| memory | $mem |"
	echo "| libfuse | $(pkg-config --modversion fuse3 2>/dev/null || echo unknown) |"
	echo "| compiler | $(cc --version | head -1), meson buildtype $buildtype |"
	echo "| FUSE | max_pages_limit $max_pages_limit; testfs and the minimal server both run with the defaults: max_pages 256, max_background 12, replies by writev (no splice); testfs has 4 request threads (--threads default), the minimal server one |"
	echo "| memory management | transparent hugepages: $thp; free page reporting to the host: ${reporting:-not on the kernel command line} |"
	echo "| load average (1, 5, 15 min) | at start $load_before; at the end $load_after |"
	echo "| other benchmarks at start | ${others:-none} |"
	echo
	echo "## Throughput: testfs against the minimal FUSE server and tmpfs"
	echo
	echo "\`build/bench/throughput${quick:+ $quick}\`. testfs"
	echo "(the daemon of this tree, its read log on) serves a stamp and a zero"
	echo "file; the minimal server (\`bench/minimal_server.c\`: libfuse lowlevel, one"
	echo "thread, zeros from a static buffer, keep_cache, nothing else) is the cost"
	echo "floor of FUSE; tmpfs is the ceiling: a tmpfs file lives in the page cache"
	echo "and cannot be evicted, so its runs are never cold and measure the"
	echo "page-cache copy path (read(2) of cached pages, minor faults). Every FUSE"
	echo "run is cold: evicted and verified (cachestat) before the clock starts."
	echo
	# The program's own title line is replaced by the heading above.
	tail -n +3 "$work/throughput.txt"
	echo
	echo "## Where the servers' time goes"
	echo
	if [ -f "$work/perf.txt" ]; then
		echo "\`perf record -e cpu-clock -c 250000 -g -p PID\` on each server while"
		echo "\`dd bs=1M\` reads its 512 MiB file cold (\`dd iflag=nocache count=0\`"
		echo "evicts it first) eight times, read_ahead_kb 1024. Percentages are of"
		echo "that server's own CPU time; the CPU time is the samples' total over"
		echo "eight. perf samples on a timer (cpu-clock), which works without a PMU"
		echo "(VMs often have none)."
		echo
		echo '```text'
		sed '${/^$/d}' "$work/perf.txt"
		echo '```'
	else
		echo "$perf_note"
	fi
	echo
	echo "## Generating the contents"
	echo
	echo "\`build/bench/pattern_speed${quick:+ $quick}\`: the daemon's content generator"
	echo "(\`src/store/pattern.c\`) alone, per word generator; the daemon picks the"
	echo "fastest the CPU runs at start (cpuid). Every generator writes the same"
	echo "bytes (checked here and by \`tests/unit_pattern.c\` against the original,"
	echo "byte-at-a-time definition)."
	echo
	cat "$work/pattern.txt"
	echo
	echo "## The read log"
	echo
	echo "\`build/bench/log_bench${quick:+ $quick}\`: the log ring's cost per record in"
	echo "process, its memory per record, and records per second through a mount."
	echo
	tail -n +3 "$work/log.txt"
	echo
	echo "## Scale"
	echo
	echo "\`build/bench/scale${quick:+ $quick}\`: huge files and many files."
	echo
	tail -n +3 "$work/scale.txt"
	echo
	echo "## Many rules"
	echo
	echo "\`build/bench/rules${quick:+ $quick}\`: a cold 256 MiB sequential read with 0,"
	echo "10, 10 000 and 300 000 latency rules, and as many error rules that never"
	echo "fire, against a daemon without rules in turn, and the time to add the"
	echo "rules over \`.testfs/ctl\`."
	echo
	tail -n +3 "$work/rules.txt"
	echo
	echo "## Tracing on and off"
	echo
	echo "\`build/bench/throughput${quick:+ $quick} --daemon-arg --no-trace\`: the same"
	echo "comparison with testfs's kernel correlation off. The throughput section"
	echo "above ran testfs with its defaults: correlation on, since this runs as"
	echo "root with tracefs (readahead tracepoints once per window, fault"
	echo "tracepoints once per fault; the daemon reads the events)."
	echo
	# The tables and the target, without the header and the footer.
	sed -n '/^Medians over/,/^Effective/p' "$work/throughput-notrace.txt" |
		sed '$d' | sed '${/^$/d}'
	echo
	echo "\`build/bench/throughput${quick:+ $quick} --daemon-arg --trace-reads\`:"
	echo "correlation on with read(2) page-cache lookups traced too"
	echo "(mm_filemap_get_pages fires once per read(2) call, in the reader)."
	echo
	sed -n '/^Medians over/,/^Effective/p' "$work/throughput-reads.txt" |
		sed '$d' | sed '${/^$/d}'
	echo
	echo "## Concurrent readers and --threads"
	echo
	echo "\`build/bench/concurrency --rounds $conc_rounds --fill-line\`: 1, 4 and 16"
	echo "readers (each its own slice of a 256 MiB file, read(2) of 1 MiB or 4 KiB,"
	echo "cold) on testfs --threads 1 and 4 (zero content from one buffer, each"
	echo "with its log file, tracing on), testfs --transport uring when the daemon"
	echo "has it, testfs --threads 1 --no-trace, the minimal server replying from"
	echo "its static buffer on 1 and 4 threads (the floor: the baseline is the one"
	echo "with the higher median of the cell, its run of the same round; the"
	echo "verdict takes the better testfs the same way), the minimal server"
	echo "filling each reply with memset (a second line, never the baseline) and"
	echo "tmpfs, alternating; read_ahead_kb 128. The"
	echo "program's comment says exactly what it measures; \`--rounds 1 --size 16\`"
	echo "is the short run the test suite makes (tests/bench_conc_short.sh)."
	echo
	cat "$work/concurrency.txt"
	echo
	echo "## Latency"
	echo
	echo "\`build/bench/latency${quick:+ $quick}\`: how precisely testfs delays"
	echo "a read, and sequential throughput against the latency models."
	echo
	echo '```text'
	cat "$work/latency.txt"
	echo '```'
} >"$work/benchmarks.md"
mkdir -p "$(dirname "$output")"
mv "$work/benchmarks.md" "$output"
progress "done: $output ($minutes min)"
