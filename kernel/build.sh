#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a testfs lab kernel: Debian's linux-source-6.12 with the readahead
# tracepoints and any other patch series of kernel/, configured for a QEMU
# guest (kernel/guest.config), cached under the shared kernel cache.
#
#   kernel/build.sh [--source debian:6.12] [--patches SERIES]... [--jobs N]
#                   [--force]
#
# Prints the kernel's SPEC (lab:6.12, lab:6.12+vma-limit, ...) on stdout;
# progress goes to stderr. Layout under ${TESTFS_CACHE:-~/.cache/testfs}:
#   src/linux-source-6.12/   the tarball, unpacked once, never modified
#   build/<name>/            a hard-link copy of it with the series applied
#                            (patch breaks the links of the files it changes)
#   build/<name>/obj/        the out-of-tree build (O=obj). Being a direct
#                            child of the source tree, kbuild names every
#                            source by a relative path, so the compiler
#                            command lines are the same in every variant and
#                            ccache hits across variants
#   ccache/                  CCACHE_DIR
#   kernels/<name>/          bzImage, release, config, source.txt
# A cached kernel is reused while source.txt (the tarball's version, the
# sha256 of guest.config and of every patch) still describes it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=kernel/cache-dir.sh
. "$here/cache-dir.sh"
cache=${TESTFS_CACHE:-$(matrix_cache_dir)}
source_spec=debian:6.12
# Applied to every lab kernel: the readahead events, and the (inert) hard
# limit on struct readahead_control, so that every lab kernel has the same
# pagemap.h and a policy series only changes mm/filemap.c
base_series=(tracepoints ra-max-index)
series=("${base_series[@]}")
jobs=2
force=0

die() {
	echo "build.sh: $*" >&2
	exit 1
}

say() {
	echo "build.sh: $*" >&2
}

usage() {
	cat >&2 <<USAGE
usage: kernel/build.sh [--source debian:6.12] [--patches SERIES]...
                       [--jobs N] [--force]
Builds (or finds cached) a lab kernel and prints its SPEC on stdout.
Series (${base_series[*]} are always applied): $(cd "$here" && ls -d -- */ | tr -d / | tr '\n' ' ')
USAGE
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--source)
		[ $# -ge 2 ] || die "--source needs a value (debian:6.12)"
		source_spec=$2
		shift 2
		;;
	--source=*)
		source_spec=${1#--source=}
		shift
		;;
	--patches)
		[ $# -ge 2 ] || die "--patches needs a series name"
		set -- "--patches=$2" "${@:3}"
		;;
	--patches=*)
		s=${1#--patches=}
		shift
		[[ $s =~ ^[a-z0-9][a-z0-9-]*$ ]] ||
			die "bad series name '$s' (letters, digits, '-')"
		[ -d "$here/$s" ] && ls "$here/$s"/*.patch >/dev/null 2>&1 ||
			die "no patch series '$s' in $here"
		# the base series are applied to every lab kernel; keep them once
		[[ " ${series[*]} " == *" $s "* ]] || series+=("$s")
		;;
	--jobs)
		[ $# -ge 2 ] || die "--jobs needs a number"
		set -- "--jobs=$2" "${@:3}"
		;;
	--jobs=*)
		jobs=${1#--jobs=}
		shift
		[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "bad --jobs '$jobs'"
		;;
	--force)
		force=1
		shift
		;;
	-h | --help)
		usage 0
		;;
	*)
		echo "build.sh: unknown argument '$1'" >&2
		usage
		;;
	esac
done

case $source_spec in
debian:6.12)
	tarball=/usr/src/linux-source-6.12.tar.xz
	pkg=linux-source-6.12
	;;
*)
	die "unknown --source '$source_spec' (supported: debian:6.12)"
	;;
esac
[ -r "$tarball" ] || die "$tarball missing (apt-get install $pkg)"
ver=${source_spec#*:}
pkgver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || echo unknown)

name=lab-$ver
spec=lab:$ver
for s in "${series[@]:${#base_series[@]}}"; do
	name+=+$s
	spec+=+$s
done

mkdir -p "$cache"/{src,build,ccache,kernels}
cache=$(cd "$cache" && pwd)
pristine=$cache/src/$pkg
tree=$cache/build/$name
obj=$tree/obj
out=$cache/kernels/$name
log=$cache/build/$name.log

# What the kernel is made of; equal text means the cached kernel is it
describe() {
	echo "source: $source_spec ($pkg $pkgver, $(basename "$tarball"))"
	echo "config: x86_64_defconfig + guest.config" \
		"$(sha256sum <"$here/guest.config" | cut -d' ' -f1)"
	local s p
	for s in "${series[@]}"; do
		for p in "$here/$s"/*.patch; do
			echo "patch: $s/$(basename "$p")" \
				"$(sha256sum <"$p" | cut -d' ' -f1)"
		done
	done
}
want=$(describe)

if [ $force = 0 ] && [ -f "$out/bzImage" ] &&
	[ "$(cat "$out/source.txt" 2>/dev/null)" = "$want" ]; then
	say "$spec is cached in $out"
	echo "$spec"
	exit 0
fi

# One build per variant at a time; other variants may build alongside
exec 9>"$cache/build/$name.lock"
flock 9

# Unpack the tarball once, atomically, whoever asks first
if [ ! -f "$pristine/.testfs-unpacked" ]; then
	(
		flock 8
		if [ ! -f "$pristine/.testfs-unpacked" ]; then
			say "unpacking $tarball (about a minute)"
			tmp=$cache/src/.tmp-unpack.$$
			rm -rf "$tmp" && mkdir -p "$tmp"
			tar -xJf "$tarball" -C "$tmp"
			[ -d "$tmp/$pkg" ] || die "$tarball has no $pkg/"
			rm -rf "$pristine"
			mv "$tmp/$pkg" "$pristine" && rmdir "$tmp"
			echo "$pkg $pkgver" >"$pristine/.testfs-unpacked"
		fi
	) 8>"$cache/src/.unpack.lock"
fi

# Files the series touch, from the patches' "+++ b/<path>" lines
patched_files() {
	local s
	for s in "$@"; do
		sed -n 's|^+++ b/||p' "$here/$s"/*.patch
	done | sort -u
}

# Give the variant tree exactly the files of the pristine tree plus the
# series. The series are applied to copies of the files they touch in a
# staging folder first, so a patch that fails leaves the tree as it was; then
# only the files whose content changes are replaced (with a new mtime, so
# make rebuilds what depends on them), and files an earlier series touched
# but this one does not are restored from the pristine tree.
# A built sibling variant (same source and config, not building now) to
# start a new variant from: with a copy of its objects, and its mtimes on
# the files both trees patch alike, the new variant's first build compiles
# only what differs (mm/filemap.c for a policy series) and links.
seed=
find_seed() {
	local d sum
	sum=$(sha256sum <"$here/guest.config" | cut -d' ' -f1)
	for d in "$cache/build/lab-$ver" "$cache/build/lab-$ver"+*; do
		[ -d "$d" ] && [ "$d" != "$tree" ] || continue
		[ -f "$d/obj/arch/x86/boot/bzImage" ] || continue
		[ "$(cat "$d/obj/.testfs-config" 2>/dev/null)" = "$sum" ] ||
			continue
		# Held until the copy is made: the sibling must not build now
		exec 7>"$d.lock"
		if flock -n 7; then
			seed=$d
			return 0
		fi
		exec 7>&-
	done
	return 0
}

prepare_tree() {
	if [ ! -d "$tree" ]; then
		find_seed
		say "linking a source tree for $name${seed:+ (objects from $(basename "$seed"))}"
		rm -rf "$tree.tmp"
		cp -al "$pristine" "$tree.tmp"
		rm -f "$tree.tmp/.testfs-unpacked"
		mv "$tree.tmp" "$tree"
	fi
	local stage=$tree.stage f s p
	rm -rf "$stage" && mkdir -p "$stage"
	patched_files "${series[@]}" >"$stage.new"
	# The seed's patched files too: its objects were built from them, so
	# one this variant leaves pristine must still be rebuilt here.
	local seeded=
	[ -n "$seed" ] && [ ! -d "$obj" ] && seeded=$seed
	local lists=("$stage.new")
	[ -f "$tree/.testfs-patched-files" ] &&
		lists+=("$tree/.testfs-patched-files")
	[ -n "$seeded" ] && [ -f "$seeded/.testfs-patched-files" ] &&
		lists+=("$seeded/.testfs-patched-files")
	sort -u "${lists[@]}" >"$stage.all"
	while read -r f; do
		if [ -e "$pristine/$f" ]; then
			mkdir -p "$stage/$(dirname "$f")"
			cp "$pristine/$f" "$stage/$f"
		fi
	done <"$stage.all"
	: >"$log"
	for s in "${series[@]}"; do
		for p in "$here/$s"/*.patch; do
			echo "== patch $s/$(basename "$p")" >>"$log"
			if ! patch -d "$stage" -p1 -N --no-backup-if-mismatch \
				-r - <"$p" >>"$log" 2>&1; then
				tail -n 30 "$log" >&2
				die "patch $s/$(basename "$p") does not apply" \
					"to $pkg $pkgver (log: $log)"
			fi
		done
	done
	while read -r f; do
		if [ ! -e "$stage/$f" ]; then
			rm -f "$tree/$f"
		elif ! cmp -s "$stage/$f" "$tree/$f" ||
			{ [ -n "$seeded" ] && ! cmp -s "$stage/$f" "$seeded/$f"; }; then
			# Differs from the tree, or from what the seed's
			# objects were built from: a copy with a new mtime
			# rm first: the tree's file may be a link to the pristine one
			rm -f "$tree/$f"
			mkdir -p "$tree/$(dirname "$f")"
			if [ -n "$seed" ] && cmp -s "$stage/$f" "$seed/$f"; then
				cp -p "$seed/$f" "$tree/$f"
			else
				cp "$stage/$f" "$tree/$f"
			fi
		fi
	done <"$stage.all"
	mv "$stage.new" "$tree/.testfs-patched-files"
	rm -rf "$stage" "$stage.all"
	if [ -n "$seed" ]; then
		if [ ! -d "$obj" ]; then
			cp -a "$seed/obj" "$obj.tmp" && mv "$obj.tmp" "$obj"
		fi
		exec 7>&-
	fi
}

configure() {
	local sum
	sum=$(sha256sum <"$here/guest.config" | cut -d' ' -f1)
	if [ -f "$obj/.config" ] &&
		[ "$(cat "$obj/.testfs-config" 2>/dev/null)" = "$sum" ]; then
		return 0
	fi
	say "configuring $name (x86_64_defconfig + guest.config)"
	mkdir -p "$obj"
	{
		make -C "$tree" O=obj x86_64_defconfig &&
			"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" \
				"$obj/.config" "$here/guest.config" &&
			make -C "$tree" O=obj olddefconfig
	} >>"$log" 2>&1 || {
		tail -n 30 "$log" >&2
		die "configuring $name failed (log: $log)"
	}
	echo "$sum" >"$obj/.testfs-config"
}

export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$cache CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
export KBUILD_BUILD_USER=testfs KBUILD_BUILD_HOST=lab

prepare_tree
configure

# The release names the variant: 6.12.117-lab, 6.12.117-lab+vma-limit
localversion=${name#lab-"$ver"}
say "building $spec in $obj (nice -n 19, make -j$jobs, log: $log)"
start=$(date +%s)
nice -n 19 make -C "$tree" O=obj -j"$jobs" CC="ccache gcc" \
	HOSTCC="ccache gcc" LOCALVERSION="$localversion" bzImage \
	>>"$log" 2>&1 &
pid=$!
last_total=$(cat "$cache/build/.steps" 2>/dev/null || echo "")
tick=0
while kill -0 "$pid" 2>/dev/null; do
	sleep 1
	tick=$((tick + 1))
	[ $((tick % 30)) = 0 ] && kill -0 "$pid" 2>/dev/null || continue
	el=$(($(date +%s) - start))
	steps=$(grep -c '^  [A-Z]' "$log" || true)
	say "$spec: $((el / 60))m$((el % 60))s, $steps build steps" \
		"${last_total:+(a full build has about $last_total)}"
done
rc=0
wait "$pid" || rc=$?
el=$(($(date +%s) - start))
if [ $rc != 0 ]; then
	tail -n 40 "$log" >&2
	die "building $spec failed after ${el}s (log: $log)"
fi
steps=$(grep -c '^  [A-Z]' "$log" || true)
[ "$steps" -lt 1000 ] || echo "$steps" >"$cache/build/.steps"
say "built $spec in ${el}s ($steps build steps)"

tmp=$cache/kernels/.tmp-$name.$$
rm -rf "$tmp" && mkdir -p "$tmp"
cp "$obj/arch/x86/boot/bzImage" "$tmp/bzImage"
cp "$obj/include/config/kernel.release" "$tmp/release"
cp "$obj/.config" "$tmp/config"
echo "$want" >"$tmp/source.txt"
if [ -d "$out" ]; then
	mv "$out" "$cache/kernels/.old-$name.$$"
fi
mv "$tmp" "$out"
rm -rf "$cache/kernels/.old-$name.$$"
say "installed $spec in $out (release $(cat "$out/release"))"
echo "$spec"
