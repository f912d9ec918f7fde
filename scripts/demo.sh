#!/bin/bash
# Sets up (packages, build) and runs the vma-boundary scenario: a private
# testfs mount, the middle third of a file mapped and touched in order,
# and the report of what the kernel fetched around the VMA, with a page
# map. The mount is private to the run and removed on every path (the
# daemon watches this process; testfs-scenario has a time limit).
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${BUILDDIR:-build}
bash scripts/setup.sh >/dev/null
export TESTFS_BIN=$PWD/$builddir/src/testfs

timeout 120 "$builddir/scenario/testfs-scenario" run vma-boundary "$@"
echo
echo "More: $builddir/scenario/testfs-scenario list | help NAME | run NAME [--json] [PARAM=VALUE ...]"
echo "      e.g. run vma-boundary ra=1024, run vma-boundary exec=yes, run mprotect-split"
