#!/bin/bash
# Sets up (packages, build), mounts testfs with its default file set and
# shows readahead at work: an mmap slice, the same slice mapped PROT_EXEC,
# and a read(2) stream, each with the pages the kernel fetched.
set -euo pipefail
cd "$(dirname "$0")/.."
builddir=${BUILDDIR:-build}
bash scripts/setup.sh >/dev/null
testfs=$builddir/src/testfs
touch_=$builddir/src/testfs-touch

mnt=$(mktemp -d /tmp/testfs-demo.XXXXXX)
pid=""
cleanup() {
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
	fi
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	rmdir "$mnt" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

echo "== mounting testfs (default files) at $mnt"
# Exits only once the mount is ready; --watch-pid ends it with this script.
"$testfs" --watch-pid $$ "$mnt"
ls -l "$mnt"
echo
echo "== effective settings: $mnt/.testfs/config"
head -c 400 "$mnt/.testfs/config"; echo " ..."
echo
echo "== 1. map pages 1024-2047 of big.bin and touch each page (mmap faults)"
timeout 60 "$touch_" "$mnt/big.bin" 1024 1024
echo "   The kernel read around the first fault (half a window before it) and"
echo "   kept reading whole windows past the end of the mapping."
echo
echo "== 2. the same slice mapped PROT_EXEC (read-around clamped to the VMA)"
timeout 60 "$touch_" --exec "$mnt/big.bin" 1024 1024
echo
echo "== 3. read(2) of pages 0-63, 4 KiB at a time"
timeout 60 "$touch_" --read "$mnt/big.bin" 0 64
echo "   The first window is 4x the request; each hit on the marker page"
echo "   starts the next, larger window (up to read_ahead_kb)."
echo
echo "== the raw log of the last run: $mnt/.testfs/log"
head -n 3 "$mnt/.testfs/log"
echo
echo "== counters: $mnt/.testfs/stats"
cat "$mnt/.testfs/stats"
