#!/bin/bash
# One SIGTERM must end the daemon whenever it arrives. Runs the daemon
# under valgrind RUNS times, keeps it busy with control writes, sends one
# SIGTERM at a random moment and fails if the daemon still runs 20 s later
# (a hang guard: it normally ends within a second). Under valgrind a
# signal that arrives while a request is being served is handled just
# before the next read of /dev/fuse; before testfs woke its own loop, about
# one run in nine then waited for a request that never came.
# Usage: scripts/valgrind-sigterm.sh [BUILDDIR [RUNS]]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/sigterm-lib.sh
. scripts/sigterm-lib.sh
builddir=${1:-${BUILDDIR:-build}}
runs=${2:-10}
testfs=$builddir/src/testfs

mnt="" pid=""
cleanup() {
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
	if [ -n "$mnt" ]; then
		if mountpoint -q "$mnt" 2>/dev/null; then
			fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" || true
		fi
		rmdir "$mnt" 2>/dev/null || true
		rm -f "$mnt.valgrind.log"
	fi
}
trap cleanup EXIT INT TERM

hangs=0
for i in $(seq "$runs"); do
	mnt=$(mktemp -d "${TMPDIR:-/tmp}/testfs-sigterm.XXXXXX")
	valgrind --quiet --log-file="$mnt.valgrind.log" \
		"$testfs" -f -q --file big.bin:16M "$mnt" &
	pid=$!
	for _ in $(seq 300); do
		timeout 5 test -e "$mnt/.testfs/ctl" && break
		sleep 0.1
	done
	sigterm_busy "$mnt" "$pid" "0.$((RANDOM % 10))"
	if ! ended_within "$pid" 200; then
		echo "run $i: the daemon still runs 20 s after one SIGTERM" >&2
		hangs=$((hangs + 1))
		kill -TERM "$pid" 2>/dev/null || true
		sleep 2
	fi
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
	cleanup
	mnt=""
done
echo "valgrind-sigterm: $hangs of $runs runs ignored the first SIGTERM"
[ "$hangs" = 0 ]
