#!/bin/bash
# Sets up (packages, build) and runs the whole test suite, then checks that
# no testfs mount was left behind. Usage: scripts/test.sh [MESON_SETUP_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${BUILDDIR:-build}
# What the tests need beyond a build (Chromium, zlib, QEMU, busybox),
# before the build: meson looks for zlib when it sets up. Without root
# the tests that need a missing one skip and say why.
# shellcheck source=scripts/packages.sh
. scripts/packages.sh
install_missing "tests" "${test_packages[@]}" ||
	echo "test: the tests that need them will be skipped" >&2
bash scripts/setup.sh "$@"

# This run's own $TMPDIR: the tests and libtestfs put their directories
# and mounts under it, so the leftover check below sees this run's mounts
# only, never those of a suite running beside it or a user's own.
run_dir=$(mktemp -d "${TMPDIR:-/tmp}/testfs-run.XXXXXX")
run_dir=$(cd "$run_dir" && pwd -P)
export TMPDIR=$run_dir

# Mountpoints (of any file system) under this run's directory.
mounts_under() {
	awk -v p="$1/" 'index($5, p) == 1 {
		for (i = 7; $i != "-"; i++) ;
		print $5 " (" $(i + 1) ")"
	}' /proc/self/mountinfo
}

status=0
meson test -C "$builddir" --print-errorlogs || status=$?

# The suite must not leave a mount behind, whatever happened in it.
left=$(mounts_under "$run_dir")
if [ -n "$left" ]; then
	echo "FAIL: mounts left behind by the suite (directory $run_dir kept):" >&2
	echo "$left" >&2
	status=1
else
	rm -rf "$run_dir"
fi

# One plain summary line from meson's machine-readable log.
log="$builddir/meson-logs/testlog.json"
if [ -f "$log" ]; then
	passed=$(grep -cE '"result": "(OK|EXPECTEDFAIL)"' "$log" || true)
	skipped=$(grep -c '"result": "SKIP"' "$log" || true)
	total=$(grep -c '"result":' "$log" || true)
	echo "$passed passed, $((total - passed - skipped)) failed, $skipped skipped"
	# Parts of tests that passed but did not run here (they need a
	# Debian kernel in testfs-matrix's cache, which this script does not
	# download), as the tests say them: listed, so that "0 skipped" is
	# not read as more than it is.
	awk '{
		if (!match($0, /"name": "[^"]*"/)) next
		name = substr($0, RSTART + 9, RLENGTH - 10)
		sub(/^[^\/]*\/ /, "", name)
		s = $0
		while (match(s, /skipped experiment \047[a-z0-9-]*\047|SKIP \(two kernels\): [^\\"]*|skipped part: [^\\"]*/)) {
			print "  " name ": " substr(s, RSTART, RLENGTH)
			s = substr(s, RSTART + RLENGTH)
		}
	}' "$log" >"$log.parts"
	if [ -s "$log.parts" ]; then
		echo "parts of passing tests that did not run here" \
			"(docs/testing.md, \"Parts that need guest kernels\"):"
		cat "$log.parts"
	fi
	rm -f "$log.parts"
fi
exit $status
