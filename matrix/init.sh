#!/bin/busybox sh
# testfs-matrix's guest init: mounts what testfs needs, loads FUSE where it
# is a module, runs the matrix command (/matrix/cmd: its arguments, one per
# line) through /matrix/run.sh with its output on the serial console, and
# powers off.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tmpfs tmpfs /tmp
# No task names in trace events: with the top level's record-cmd on (the
# default, and every new instance inherits it) enabling or disabling an
# event hooks sched_switch and sched_wakeup, patching the scheduler's code
# each time testfs starts or stops; under TCG that patching has locked 6.1
# guests up (docs/matrix.md). testfs keeps pids, not names.
for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	[ -f $t/options/record-cmd ] && echo 0 > $t/options/record-cmd
done
mkdir -p /dev/shm /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t devpts devpts /dev/pts
# Only emergencies on the console: kernel messages would cut the frames.
echo 1 > /proc/sys/kernel/printk
# A guest kernel that locks up (a CPU stuck in the kernel, a task blocked
# for 120 s) panics at once instead of eating the time limit silently:
# testfs-matrix then boots it again and says why.
echo 1 > /proc/sys/kernel/softlockup_panic 2>/dev/null
echo 1 > /proc/sys/kernel/hung_task_panic 2>/dev/null
[ -f /lib/modules/fuse.ko ] && insmod /lib/modules/fuse.ko
echo "@@testfs-matrix booted $(uname -r)"
export LD_LIBRARY_PATH=/matrix/lib
export TESTFS_BIN=/matrix/bin/testfs MATRIX_TOUCH=/matrix/bin/testfs-touch
export MATRIX_SCENARIO=/matrix/bin/testfs-scenario MATRIX_TESTS=/matrix/tests
export MATRIX_WORK=/tmp/matrix HOME=/root TMPDIR=/tmp
set --
while IFS= read -r a; do
	set -- "$@" "$a"
done < /matrix/cmd
sh /matrix/run.sh "$@"
sync
poweroff -f
