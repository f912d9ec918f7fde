#!/bin/bash
# Runs one libFuzzer target for a few seconds from its seed corpus, as the
# fuzz suite does: new inputs go to a scratch directory (the seeds in the
# tree are not touched), a crash leaves its input in the build directory.
# Files a target writes (TMPDIR) go to the scratch directory too, so a
# target that dies leaves nothing behind.
# fuzz/TARGET.args, when there is one, holds arguments that target always
# gets. Usage: run-target.sh EXE SEED_DIR SECONDS [LIBFUZZER_ARGS...]
set -euo pipefail
exe=$1 seeds=$2 secs=$3
shift 3
name=$(basename "$exe")
args_file="$(dirname "$0")/${name#fuzz_}.args"
if [ -f "$args_file" ]; then
	read -r -a always <"$args_file"
	set -- "${always[@]}" "$@"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/corpus" "$work/tmp"
export TMPDIR="$work/tmp"
artifacts="$(dirname "$exe")/artifacts"
mkdir -p "$artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
"$exe" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$@" \
	"$work/corpus" "$seeds"
