#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot each cached lab kernel under QEMU (TCG) from a small busybox
# initramfs holding testfs and testfs-touch, and check what testfs needs of
# it: the four readahead:* events with the host's fields (name, type,
# offset, size, in order), and what mmap fault readahead fetches around a
# mapped slice, pages [1024, 2047] of a 16 MiB file, at 128 KiB and 1 MiB.
#
#   kernel/check.sh [--scenarios DIR] [SPEC|NAME]...
#
# (default: every cached lab kernel). --scenarios DIR also runs
# testfs-scenario's vma-boundary and mprotect-split (default PARAMs) in each
# guest, keeps their text reports in DIR/<name>.<scenario>.txt and prints
# their verdicts.
#
# Expected outside the slice, before/after, at ra 128 KiB and 1 MiB:
#   lab:6.12                        16/48 and 128/384: read-around centred
#       on the first fault, then async windows up to the one the last
#       marker starts (the same as Debian's 6.12 and the host's 6.18)
#   lab:6.12+vma-limit              0/0 and 0/0
#   lab:6.12+vma-limit-conditional  0/32 and 0/256: the read-around starts
#       at the VMA start, and the async window triggered exactly ra_pages
#       before the VMA end is not limited (the fault is not *within*
#       ra_pages of the end), so one window past the end is read
# Needs the testfs binaries (bash scripts/setup.sh) in ${BUILDDIR:-build}.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
# shellcheck source=kernel/cache-dir.sh
. "$here/cache-dir.sh"
cache=${TESTFS_CACHE:-$(matrix_cache_dir)}
bin=$repo/${BUILDDIR:-build}/src
host_events=/sys/kernel/tracing/events/readahead

die() {
	echo "check.sh: $*" >&2
	exit 1
}

for b in testfs testfs-touch; do
	[ -x "$bin/$b" ] || die "$bin/$b missing: run bash scripts/setup.sh"
done
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing"
[ -x /usr/bin/busybox ] || die "busybox missing (apt-get install busybox-static)"
[ -d "$host_events" ] || die "no $host_events here to compare fields with"

scen_dir=
if [ "${1:-}" = --scenarios ]; then
	[ $# -ge 2 ] || die "--scenarios needs a folder"
	scen_dir=$2
	shift 2
	mkdir -p "$scen_dir" || die "cannot create $scen_dir"
	scen_dir=$(cd "$scen_dir" && pwd)
	[ -x "$repo/${BUILDDIR:-build}/scenario/testfs-scenario" ] ||
		die "testfs-scenario missing: run bash scripts/setup.sh"
fi

names=()
for a in "$@"; do
	n=${a//:/-}
	[ -f "$cache/kernels/$n/bzImage" ] ||
		die "no kernel $a in $cache/kernels (kernel/build.sh builds it)"
	names+=("$n")
done
if [ ${#names[@]} = 0 ]; then
	for d in "$cache"/kernels/lab-*/; do
		[ -f "$d/bzImage" ] && names+=("$(basename "$d")")
	done
fi
[ ${#names[@]} -gt 0 ] || die "no lab kernel in $cache/kernels"

work=$(mktemp -d /tmp/testfs-kcheck.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT

# The initramfs: busybox, the two binaries and the libraries they load
root=$work/root
mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib64}
cp /usr/bin/busybox "$bin/testfs" "$bin/testfs-touch" "$root/bin/"
bins=("$bin/testfs" "$bin/testfs-touch")
if [ -n "$scen_dir" ]; then
	b=$repo/${BUILDDIR:-build}
	mkdir -p "$root/scenario" "$root/lib"
	cp "$b/scenario/testfs-scenario" "$root/scenario/"
	# libtestfs mounts with auto_unmount, which needs fusermount3
	cp "$(command -v fusermount3)" "$root/bin/"
	cp -L "$b"/lib/libtestfs.so.0 "$root/lib/"
	bins+=("$b/scenario/testfs-scenario" "$(command -v fusermount3)")
	echo scenarios >"$root/scenarios"
fi
for lib in $(for b in "${bins[@]}"; do ldd "$b"; done |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
	sort -u); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
cat >"$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing
mount -t tmpfs tmpfs /tmp
echo 1 >/proc/sys/kernel/printk
echo "@@release $(uname -r)"
for e in page_cache_sync_ra page_cache_async_ra page_cache_ra_order \
	page_cache_ra_unbounded; do
	f=/sys/kernel/tracing/events/readahead/$e/format
	if [ -f $f ]; then
		grep 'field:' $f | grep -v common_ | tr -s '\t ' '  ' |
			sed "s/^/@@field $e/"
	else
		echo "@@field $e MISSING"
	fi
done
for ra in 128 1024; do
	m=/tmp/m$ra
	mkdir -p $m
	testfs -f -q --no-auto-unmount --file touch.bin:16M --ra-kb $ra $m \
		>/tmp/daemon$ra.log 2>&1 &
	pid=$!
	i=0
	while [ ! -f $m/.testfs/config ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	timeout 60 testfs-touch $m/touch.bin 1024 1024 2>&1 |
		sed "s/^/@@touch$ra /"
	kill $pid
	wait $pid
	umount $m 2>/dev/null
	sed "s/^/@@daemon$ra /" /tmp/daemon$ra.log
done
if [ -f /scenarios ]; then
	export TESTFS_BIN=/bin/testfs TMPDIR=/tmp HOME=/tmp
	for s in vma-boundary mprotect-split; do
		/scenario/testfs-scenario run $s 2>&1 | sed "s/^/@@$s /"
	done
fi
echo "@@done"
poweroff -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.gz"

# The host's field lines, in the same form as the guest prints them
host_fields() {
	grep 'field:' "$host_events/$1/format" | grep -v common_ |
		tr -s '\t ' '  ' | sed "s/^/@@field $1/"
}

# A kernel built with --patch carries a policy testfs does not know by
# name: its figures are shown, not judged ("-")
expect() {
	case $1 in
	lab-*+vma-limit-conditional) echo "0/32 0/256" ;;
	lab-*+vma-limit) echo "0/0 0/0" ;;
	lab-*+*) echo "- -" ;;
	lab-*) echo "16/48 128/384" ;;
	esac
}

failed=0
for n in "${names[@]}"; do
	k=$cache/kernels/$n
	out=$work/$n.console
	ok=1
	# A TCG guest very rarely oopses early in boot: one retry
	for _ in 1 2; do
		timeout 300 qemu-system-x86_64 -nographic -no-reboot -m 1G \
			-smp 1 -kernel "$k/bzImage" -initrd "$work/initrd.gz" \
			-append "console=ttyS0 panic=-1 quiet" >"$out" 2>&1 </dev/null ||
			true
		grep -q '^@@done' "$out" && break
	done
	# Without the carriage returns and the terminal resets of the firmware
	tr -d '\r' <"$out" | sed 's/^.*@@/@@/' >"$out.txt"
	if ! grep -q '^@@done' "$out.txt"; then
		echo "$n: FAIL: the guest did not finish; console tail:"
		tail -n 20 "$out.txt"
		failed=1
		continue
	fi
	echo "$n: booted $(sed -n 's/^@@release //p' "$out.txt")"
	for e in page_cache_sync_ra page_cache_async_ra page_cache_ra_order \
		page_cache_ra_unbounded; do
		if diff <(host_fields $e) <(grep "^@@field $e " "$out.txt") \
			>"$work/diff"; then
			echo "  readahead:$e: same fields as the host"
		else
			echo "  readahead:$e: FAIL: fields differ from the host:"
			sed 's/^/    /' "$work/diff"
			ok=0
		fi
	done
	read -r e128 e1024 <<<"$(expect "$n")"
	for ra in 128 1024; do
		line=$(grep "^@@touch$ra .* before the range" "$out.txt" || true)
		got=$(echo "$line" |
			sed -n 's/.*: \([0-9]*\) before the range, \([0-9]*\) after it/\1\/\2/p')
		want=$e128
		[ $ra = 128 ] || want=$e1024
		if [ -n "$got" ] && [ "$want" = - ]; then
			echo "  ra $ra KiB: $got pages before/after the VMA"
		elif [ -n "$got" ] && [ "$got" = "$want" ]; then
			echo "  ra $ra KiB: $got pages before/after the VMA, as expected"
		else
			echo "  ra $ra KiB: FAIL: ${got:-no result} before/after," \
				"expected $want"
			grep "^@@touch$ra \|^@@daemon$ra " "$out.txt" | head -n 12 |
				sed 's/^/    /'
			ok=0
		fi
		grep "^@@touch$ra \(kernel fetched\|  read-around\)" "$out.txt" |
			head -n 2 | sed "s/^@@touch$ra /    /"
	done
	if [ -n "$scen_dir" ]; then
		for s in vma-boundary mprotect-split; do
			sed -n "s/^@@$s //p" "$out.txt" >"$scen_dir/$n.$s.txt"
			echo "  $s ($scen_dir/$n.$s.txt):"
			grep -E '^(touch time|pages fetched (before|after) the VMA):' \
				"$scen_dir/$n.$s.txt" | sed 's/^/    /'
			grep -E '^  - policy:|^      (verdict|observed):' \
				"$scen_dir/$n.$s.txt" | sed 's/^/  /'
		done
	fi
	[ $ok = 1 ] || failed=1
done
exit $failed
