#!/bin/bash
# Runs the whole suite RUNS times while other work keeps both CPUs busy and
# churns memory and I/O, then prints how often each test failed. A test
# that passes only on an idle machine shows up here.
#
# Usage: scripts/stress.sh [RUNS]   (default 10)
#   BUILDDIR=build-asan scripts/stress.sh 5
#   STRESS_BUSY=4      CPU-bound loops (default 4)
#   STRESS_CHURN_MB=256  size of the file the churn job writes and reads
#
# The load reaches about 6-7 on a 2-CPU machine: the busy loops, the churn
# job (mostly in D state, which the load average counts) and the suite
# itself. Every job is started here and killed here, by pid, on every exit
# path. Logs of failing runs are kept under $BUILDDIR/stress/; the load
# average at the start of each run is printed with it.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-10}
builddir=${BUILDDIR:-build}
busy=${STRESS_BUSY:-4}
churn_mb=${STRESS_CHURN_MB:-256}

if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
	echo "stress: RUNS must be a positive integer, not '$runs'" >&2
	exit 2
fi
if ! [[ $busy =~ ^[0-9]+$ && $churn_mb =~ ^[1-9][0-9]*$ ]]; then
	echo "stress: STRESS_BUSY and STRESS_CHURN_MB must be integers" >&2
	exit 2
fi

if [ ! -f "$builddir/build.ninja" ]; then
	bash scripts/setup.sh
fi
meson compile -C "$builddir" >/dev/null

work=$(mktemp -d /tmp/testfs-stress.XXXXXX)
pids=()
suite=

stop_load() {
	local pid

	# The suite first: a run cut short still unmounts what it mounted.
	if [ -n "$suite" ]; then
		kill "$suite" 2>/dev/null || true
		wait "$suite" 2>/dev/null || true
	fi
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	pids=()
	rm -rf "$work"
}
trap 'stop_load' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for ((i = 0; i < busy; i++)); do
	(while :; do :; done) &
	pids+=($!)
done
# Memory and I/O churn: a large write buffer, fsync, a read back through
# the page cache. Its dirty pages and reads compete with the suite's page
# cache the way a busy machine's do.
# Each step runs in the background so that a TERM ends it at once, with
# its current step, not after it.
(
	step=
	trap '[ -z "$step" ] || kill "$step" 2>/dev/null; exit 0' TERM
	while :; do
		dd if=/dev/zero of="$work/churn" bs=16M \
			count=$(((churn_mb + 15) / 16)) conv=fsync status=none &
		step=$!
		wait "$step" || true
		cat "$work/churn" >/dev/null &
		step=$!
		wait "$step" || true
		rm -f "$work/churn"
	done
) &
pids+=($!)

out="$builddir/stress"
mkdir -p "$out"
declare -A fails=()
declare -A seen=()
failed_runs=0

for ((run = 1; run <= runs; run++)); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	status=0
	# In the background, so that INT or TERM reach the traps at once.
	meson test -C "$builddir" --no-rebuild >"$work/run.txt" 2>&1 &
	suite=$!
	wait "$suite" || status=$?
	suite=
	log="$builddir/meson-logs/testlog.json"
	failed=()
	while IFS=$'\t' read -r name result; do
		seen[$name]=1
		case $result in
		OK | SKIP | EXPECTEDFAIL) ;;
		*)
			fails[$name]=$((${fails[$name]:-0} + 1))
			failed+=("$name:$result")
			;;
		esac
	done < <(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    print(t["name"].split(" / ")[-1], t["result"], sep="\t")
' "$log")
	# Informational only: other users of the machine may have testfs
	# mounts of their own; the suite checks its own prefixes itself.
	left=$(grep -c ' fuse.testfs ' /proc/mounts || true)
	if [ ${#failed[@]} -gt 0 ] || [ $status -ne 0 ]; then
		failed_runs=$((failed_runs + 1))
		cp "$builddir/meson-logs/testlog.txt" "$out/run$run.txt"
	fi
	echo "run $run/$runs: load $load at start, ${#failed[@]} failed" \
		"${failed[*]}; testfs mounts on the machine after it: $left"
done

echo
echo "Failures per test over $runs runs under load ($busy busy loops," \
	"${churn_mb} MB churn):"
# Test names may hold spaces ("man testfs.8"): one per line.
while IFS= read -r name; do
	printf '  %-30s %d/%d\n' "$name" "${fails[$name]:-0}" "$runs"
done < <(printf '%s\n' "${!seen[@]}" "${!fails[@]}" | sort -u)
echo "$failed_runs of $runs runs had a failure; their logs: $out/run*.txt"
[ "$failed_runs" -eq 0 ]
