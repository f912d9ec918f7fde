#!/bin/bash
# Builds the libFuzzer harnesses (clang, ./build-fuzz, -Dfuzz=enabled) and
# runs them longer than the fuzz suite does, each from its seed corpus in
# fuzz/corpus/TARGET. Prints one line per target: executions, seconds,
# crashes; a crash's input is kept in build-fuzz/fuzz/artifacts/.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (default 60, every target)
# Environment: FUZZ_RUNS=N   stop a target after N executions instead
#              FUZZ_JOBS=N   targets run at once (default 1), under nice
#              FUZZ_KEEP=DIR keep each target's grown corpus in DIR/TARGET
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${BUILDDIR:-build-fuzz}
secs=${1:-60}
[ $# -gt 0 ] && shift
case $secs in
'' | *[!0-9]*)
	echo "fuzz.sh: SECONDS must be a number (got '$secs')" >&2
	exit 2
	;;
esac

if ! command -v clang >/dev/null; then
	echo "fuzz.sh: needs clang and libclang-rt-14-dev" \
		"(apt-get install clang libclang-rt-14-dev)" >&2
	exit 1
fi
if [ ! -f "$builddir/build.ninja" ]; then
	CC=clang meson setup "$builddir" -Dfuzz=enabled -Dtests=disabled \
		-Dwerror=true >/dev/null
fi
meson compile -C "$builddir" >/dev/null

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for d in fuzz/corpus/*/; do
		targets+=("$(basename "$d")")
	done
fi
for t in "${targets[@]}"; do
	if [ ! -x "$builddir/fuzz/fuzz_$t" ]; then
		echo "fuzz.sh: no target '$t' (have: $(ls fuzz/corpus | tr '\n' ' '))" >&2
		exit 2
	fi
done

logs="$builddir/fuzz/logs"
mkdir -p "$logs"
export FUZZ_ROOT=$PWD FUZZ_BUILD=$builddir FUZZ_SECS=$secs
export FUZZ_RUNS=${FUZZ_RUNS:-} FUZZ_KEEP=${FUZZ_KEEP:-}

# One target, as the fuzz suite runs it (fuzz/run-target.sh), longer.
run_one() {
	local t=$1 log="$FUZZ_BUILD/fuzz/logs/$1.log" extra=() start end rc=0
	local execs crashes
	[ -n "$FUZZ_RUNS" ] && extra+=(-runs="$FUZZ_RUNS")
	if [ -n "$FUZZ_KEEP" ]; then
		mkdir -p "$FUZZ_KEEP/$t"
		extra+=("$FUZZ_KEEP/$t")
	fi
	start=$(date +%s)
	bash "$FUZZ_ROOT/fuzz/run-target.sh" "$FUZZ_BUILD/fuzz/fuzz_$t" \
		"$FUZZ_ROOT/fuzz/corpus/$t" "$FUZZ_SECS" "${extra[@]}" \
		>"$log" 2>&1 || rc=$?
	end=$(date +%s)
	execs=$(sed -n 's/^stat::number_of_executed_units: //p' "$log" | tail -1)
	crashes=0
	[ $rc -ne 0 ] && crashes=1
	printf '%-13s %12s executions %6s s  %s crash(es)  (log %s)\n' \
		"$t" "${execs:-?}" "$((end - start))" "$crashes" "$log"
	return $rc
}
export -f run_one

# xargs exits 123 when a target failed: say 1, as the fuzz suite would.
if ! printf '%s\n' "${targets[@]}" |
	nice -n 10 xargs -P "${FUZZ_JOBS:-1}" -I{} bash -c 'run_one "$@"' _ {}; then
	echo "fuzz.sh: a target crashed; its input is in $builddir/fuzz/artifacts/" >&2
	exit 1
fi
