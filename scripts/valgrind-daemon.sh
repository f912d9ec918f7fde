#!/bin/bash
# Runs the daemon under valgrind (memcheck) through a short but complete
# session: mount, data reads by read(2) and mmap, every control command and
# control file, a bad command, then unmount by one SIGTERM sent while a
# client keeps the daemon busy. Fails on any memcheck error or leak, and
# when that SIGTERM does not end the daemon. The session runs twice: over
# /dev/fuse, then with --transport uring (FUSE over io_uring where the
# kernel has it; the /dev/fuse fallback where it does not). Over the ring
# the daemon's mount guard (a forked child, src/daemon/mount_guard.h) runs
# under valgrind too and logs to the same file; the daemon reaps it before
# exiting, so its report is in the log when it is read.
# Usage: scripts/valgrind-daemon.sh [BUILDDIR]
set -euo pipefail
if [ -z "${VALGRIND_TRANSPORT:-}" ]; then
	VALGRIND_TRANSPORT=dev "$0" "$@"
	exec env VALGRIND_TRANSPORT=uring "$0" "$@"
fi
transport=$VALGRIND_TRANSPORT
cd "$(dirname "$0")/.."
# shellcheck source=scripts/sigterm-lib.sh
. scripts/sigterm-lib.sh
builddir=${1:-${BUILDDIR:-build}}
testfs=$builddir/src/testfs
touch_=$builddir/tools/testfs-touch

mnt=$(mktemp -d /tmp/testfs-valgrind.XXXXXX)
vlog=$mnt.valgrind.log
pid=""
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" || true
	fi
	rmdir "$mnt" 2>/dev/null || true
	rm -f "$mnt.jsonl"
}
trap cleanup EXIT INT TERM

valgrind --quiet --error-exitcode=99 --leak-check=full \
	--show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
	--log-file="$vlog" \
	"$testfs" -f -q --file big.bin:16M --file d/z.bin:1M:zero \
	--log "$mnt.jsonl" --ra-kb 256 --transport "$transport" \
	--rule 'file=big.bin,pages=0-63,latency=fixed:1ms' \
	--error 'file=d/z.bin,pages=10-10,errno=EIO' "$mnt" &
pid=$!

for _ in $(seq 300); do
	timeout 5 mountpoint -q "$mnt" && timeout 5 test -e "$mnt/.testfs/ctl" && break
	sleep 0.1
done
mountpoint -q "$mnt" || { echo "valgrind: mount did not appear" >&2; cat "$vlog" >&2; exit 1; }

timeout 60 "$touch_" "$mnt/big.bin" 100 200 >/dev/null
timeout 60 "$touch_" --read "$mnt/big.bin" 0 300 >/dev/null
cat "$mnt/d/z.bin" >/dev/null 2>&1 || true   # page 10 fails with EIO
echo "latency ufs4:qd=4" > "$mnt/.testfs/ctl"
timeout 60 "$touch_" --read "$mnt/big.bin" 1000 64 >/dev/null
echo "rules clear" > "$mnt/.testfs/ctl"
echo "mark valgrind" > "$mnt/.testfs/ctl"
echo "drop-cache" > "$mnt/.testfs/ctl"
echo "bogus" > "$mnt/.testfs/ctl" 2>/dev/null || true
for f in log log.bin config stats error; do cat "$mnt/.testfs/$f" >/dev/null; done
# As root the kernel correlation runs too, and must have explained reads.
if [ "$(id -u)" = 0 ]; then
	grep -q '"trace":{"on":true' "$mnt/.testfs/config" ||
		{ echo "valgrind: tracing is off: $(grep -o '"trace":{[^}]*}' "$mnt/.testfs/config")" >&2; exit 1; }
	grep -q '"cause":"async"' "$mnt.jsonl" ||
		{ echo "valgrind: no read was attributed" >&2; exit 1; }
fi
ls -laR "$mnt" >/dev/null
# As root on a kernel with FUSE over io_uring, the reads went over the ring.
if [ "$transport" = uring ] && [ "$(id -u)" = 0 ] &&
	[ -e /sys/module/fuse/parameters/enable_uring ]; then
	grep -q '"transport":"uring"' "$mnt/.testfs/config" ||
		{ echo "valgrind: not on the ring: $(grep -o '"transport_note":[^,]*' "$mnt/.testfs/config")" >&2; exit 1; }
fi

# One SIGTERM must end the daemon, also one that lands while a request is
# being served (under valgrind a signal that arrives then was handled just
# before the next read of /dev/fuse, which then waited for a request that
# never came). A client keeps the daemon busy until the signal is sent.
sigterm_busy "$mnt" "$pid" 0.3
# The daemon normally ends in well under 1 s.
if ! ended_within "$pid" 600; then
	echo "valgrind: the daemon still runs 60 s after one SIGTERM" >&2
	exit 1
fi
status=0
wait "$pid" || status=$?
pid=""
if [ "$status" != 0 ] || grep -q "^==" "$vlog"; then
	echo "valgrind: daemon exit status $status" >&2
	cat "$vlog" >&2
	rm -f "$vlog"
	exit 1
fi
rm -f "$vlog"
lines=$(wc -l < "$mnt.jsonl")
echo "valgrind: daemon clean over $transport (no errors, no leaks; $lines log lines written)"
