#!/bin/bash
# Sets up (packages, build) and runs the whole test suite, then checks that
# no testfs mount was left behind. Usage: scripts/test.sh [MESON_SETUP_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${BUILDDIR:-build}
bash scripts/setup.sh "$@"

status=0
meson test -C "$builddir" --print-errorlogs || status=$?

# The suite must not leave a mount behind, whatever happened in it (its
# mounts live under /tmp/testfs-test.* and, through libtestfs,
# /tmp/testfs.*; other testfs mounts are not ours).
if grep ' fuse.testfs ' /proc/mounts | grep -qE ' /tmp/testfs(-test)?\.'; then
	echo "FAIL: testfs mounts left behind by the suite:" >&2
	grep ' fuse.testfs ' /proc/mounts | grep -E ' /tmp/testfs(-test)?\.' >&2
	status=1
fi

# One plain summary line from meson's machine-readable log.
log="$builddir/meson-logs/testlog.json"
if [ -f "$log" ]; then
	passed=$(grep -cE '"result": "(OK|EXPECTEDFAIL)"' "$log" || true)
	skipped=$(grep -c '"result": "SKIP"' "$log" || true)
	total=$(grep -c '"result":' "$log" || true)
	echo "$passed passed, $((total - passed - skipped)) failed, $skipped skipped"
fi
exit $status
