#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a testfs lab kernel: a kernel source (a Debian linux-source-VERSION
# or a tree the user has) with the readahead series of kernel/ it needs and
# any patch files, configured for a QEMU guest (kernel/guest.config), cached
# under the shared kernel cache.
#
#   kernel/build.sh [--source debian:VERSION|PATH] [--patches SERIES]...
#                   [--patch-file NAME=FILE]... [--fuzz N] [--jobs N]
#                   [--arch x86_64|arm64-64k] [--force] [--one-tree]
#
# --arch arm64-64k builds an arm64 kernel with 64 KiB pages through the cross
# compiler (aarch64-linux-gnu-gcc): allnoconfig + guest.config +
# guest-arm64-64k.config, an Image; its SPEC ends in /arm64-64k
# (lab:7.3+vma-limit/arm64-64k) and its folders' names in -arm64-64k
# (build/lab-7.3+vma-limit-arm64-64k). CROSS_COMPILE overrides the tool
# chain's prefix (aarch64-linux-gnu-).
# Prints the kernel's SPEC (lab:6.12, lab:7.3+vma-limit, ...) on stdout;
# progress goes to stderr. Layout under ${TESTFS_CACHE:-~/.cache/testfs}:
#   debs/linux-source-V.*    a fetched source package's tarball (when it
#                            is not installed in /usr/src)
#   src/linux-source-V/      the tarball, unpacked once, never modified
#                            (a PATH source is used where it is, read only)
#   build/<name>/            a hard-link copy of it with the series applied
#                            (files a patch changes are replaced, never
#                            written through the link)
#   build/<name>/obj/        the out-of-tree build (O=obj). Being a direct
#                            child of the source tree, kbuild names every
#                            source by a relative path, so the compiler
#                            command lines are the same in every variant and
#                            ccache hits across variants
#   ccache/                  CCACHE_DIR
#   kernels/<name>/          bzImage (arm64: Image), release, config, source.txt
# A cached kernel is reused while source.txt (the source's version, the
# sha256 of guest.config and of every patch) still describes it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=kernel/cache-dir.sh
. "$here/cache-dir.sh"
cache=${TESTFS_CACHE:-$(matrix_cache_dir)}
source_spec=debian:6.12
named=()      # --patches SERIES, in order
pfiles=()     # --patch-file NAME=FILE, in order
fuzz=2
jobs=2
one_tree=0
force=0
arch=x86_64

die() {
	echo "build.sh: $*" >&2
	exit 1
}

bad() {
	echo "build.sh: $*" >&2
	exit 2
}

# An option given without its value: what the value is
missing_value() {
	case $1 in
	--patches) die "--patches needs a series name" ;;
	--patch-file) bad "--patch-file needs NAME=FILE" ;;
	--fuzz | --jobs) bad "$1 needs a number" ;;
	--arch) bad "--arch needs a value (x86_64, arm64-64k)" ;;
	esac
}

say() {
	echo "build.sh: $*" >&2
}

usage() {
	cat >&2 <<USAGE
usage: kernel/build.sh [--source debian:VERSION|PATH] [--patches SERIES]...
                       [--patch-file NAME=FILE]... [--fuzz N] [--jobs N]
                       [--arch x86_64|arm64-64k] [--force]
Builds (or finds cached) a lab kernel and prints its SPEC on stdout.
Series: $(cd "$here" && ls -d -- */ | tr -d / | tr '\n' ' ')
USAGE
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--source)
		[ $# -ge 2 ] || bad "--source needs a value (debian:6.12)"
		source_spec=$2
		shift 2
		;;
	--source=*)
		source_spec=${1#--source=}
		shift
		;;
	--patches | --patch-file | --fuzz | --jobs | --arch)
		# "--OPTION VALUE" is read as "--OPTION=VALUE"
		[ $# -ge 2 ] || missing_value "$1"
		set -- "$1=$2" "${@:3}"
		;;
	--patches=*)
		s=${1#--patches=}
		shift
		[[ $s =~ ^[a-z0-9][a-z0-9-]*$ ]] ||
			bad "bad series name '$s' (letters, digits, '-')"
		named+=("$s")
		;;
	--patch-file=*)
		s=${1#--patch-file=}
		shift
		[[ ${s%%=*} =~ ^[a-z0-9][a-z0-9-]*$ ]] && [ -f "${s#*=}" ] ||
			bad "bad --patch-file '$s' (NAME=FILE, NAME of letters, digits, '-')"
		pfiles+=("$s")
		;;
	--fuzz=*)
		fuzz=${1#--fuzz=}
		shift
		[[ $fuzz =~ ^[0-9]$ ]] || bad "bad --fuzz '$fuzz' (0 to 9)"
		;;
	--jobs=*)
		jobs=${1#--jobs=}
		shift
		[[ $jobs =~ ^[1-9][0-9]*$ ]] || bad "bad --jobs '$jobs'"
		;;
	--arch=*)
		arch=${1#--arch=}
		shift
		case $arch in
		x86_64 | arm64-64k) ;;
		*) bad "unknown --arch '$arch' (x86_64, arm64-64k)" ;;
		esac
		;;
	--force)
		force=1
		shift
		;;
	--one-tree)
		# bisect: every variant in one build tree, re-patched
		one_tree=1
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

# What differs between the architectures: the make variables, the config
# (x86_64: defconfig + guest.config; arm64: allnoconfig + both fragments),
# the image and the name's tag
fragments=("$here/guest.config")
if [ "$arch" = arm64-64k ]; then
	# CROSS_COMPILE: another arm64 tool chain's prefix
	cross=${CROSS_COMPILE:-aarch64-linux-gnu-}
	command -v "${cross}gcc" >/dev/null ||
		die "--arch arm64-64k needs the cross compiler ${cross}gcc, which is not installed (apt-get install gcc-aarch64-linux-gnu, or scripts/setup.sh --matrix-arm64; CROSS_COMPILE=PREFIX names another)"
	kmake=(ARCH=arm64 CROSS_COMPILE="$cross" CC="ccache ${cross}gcc")
	base_config=allnoconfig
	fragments+=("$here/guest-arm64-64k.config")
	target=Image
	image=arch/arm64/boot/Image
	archtag=-arm64-64k
	archspec=/arm64-64k
else
	kmake=(CC="ccache gcc")
	base_config=x86_64_defconfig
	target=bzImage
	image=arch/x86/boot/bzImage
	archtag=
	archspec=
fi
config_sum() {
	cat "${fragments[@]}" | sha256sum | cut -d' ' -f1
}

mkdir -p "$cache"/{src,build,ccache,kernels}
cache=$(cd "$cache" && pwd)

# A kernel tree: a top Makefile with VERSION and PATCHLEVEL, Kbuild, and
# the readahead code testfs patches
kernel_tree() {
	[ -f "$1/Makefile" ] && [ -f "$1/Kbuild" ] &&
		[ -f "$1/mm/readahead.c" ] && [ -d "$1/arch/x86" ] &&
		grep -qE '^VERSION = [0-9]+$' "$1/Makefile" &&
		grep -qE '^PATCHLEVEL = [0-9]+$' "$1/Makefile"
}

tarball=
case $source_spec in
debian:*)
	ver=${source_spec#debian:}
	[[ $ver =~ ^[0-9]+\.[0-9]+$ ]] ||
		bad "unknown --source '$source_spec' (debian:MAJOR.MINOR, e.g. debian:6.12, debian:7.3, or the path of a kernel tree)"
	pkg=linux-source-$ver
	tarball=/usr/src/$pkg.tar.xz
	pkgver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || echo unknown)
	if [ ! -r "$tarball" ] && [ -r "$cache/debs/$pkg.tar.xz" ]; then
		tarball=$cache/debs/$pkg.tar.xz
		pkgver=$(cat "$cache/debs/$pkg.version" 2>/dev/null || echo unknown)
	fi
	[ -r "$tarball" ] || die "$pkg is neither in /usr/src nor in $cache/debs (testfs-matrix build --source $source_spec fetches it)"
	pristine=$cache/src/$pkg
	name=lab-$ver
	;;
*)
	[ -d "$source_spec" ] ||
		bad "--source '$source_spec': neither debian:VERSION nor a folder"
	kernel_tree "$source_spec" ||
		bad "--source '$source_spec' is not a kernel tree (no Makefile with VERSION and PATCHLEVEL, Kbuild, mm/readahead.c, arch/x86)"
	pristine=$(cd "$source_spec" && pwd)
	# kbuild refuses an out-of-tree build of a tree built in place
	[ ! -e "$pristine/.config" ] && [ ! -d "$pristine/include/config" ] ||
		die "--source '$source_spec' has an in-tree build (.config): testfs builds out of tree and never cleans your tree; give a clean tree (make mrproper in a copy)"
	mk() { sed -n "s/^$1 = //p" "$pristine/Makefile" | head -n1; }
	ver=$(mk VERSION).$(mk PATCHLEVEL)
	pkg="tree $pristine"
	pkgver=$ver.$(mk SUBLEVEL)$(mk EXTRAVERSION)
	# The folder's name tells two trees of one line apart
	tag=$(basename "$pristine" | tr -c 'a-zA-Z0-9\n' - | tr A-Z a-z | cut -c1-24)
	name=lab-$ver-$tag
	;;
esac

# The base series of a source line: what every lab kernel of it carries
# (6.x: the readahead events, and the inert hard limit on struct
# readahead_control, so that every lab kernel has the same pagemap.h and a
# policy series only changes mm/filemap.c; 7.x: the events, where missing)
case $ver in
6.*) base_series=(tracepoints ra-max-index) ;;
*) base_series=(tracepoints) ;;
esac

# kernel/SERIES, or kernel/MAJOR.x/SERIES where a source line needs a port;
# a series written for one other line only (kernel/7.x/fuse-large-folios)
# is tried as written, and a hunk that does not apply says why
series_dir() {
	local other
	if [ -d "$here/${ver%%.*}.x/$1" ]; then
		echo "$here/${ver%%.*}.x/$1"
	elif [ -d "$here/$1" ]; then
		echo "$here/$1"
	else
		for other in "$here"/*.x/"$1"; do
			[ -d "$other" ] && echo "$other" && return
		done
		echo "$here/$1"
	fi
}

for s in "${named[@]}"; do
	d=$(series_dir "$s")
	ls "$d"/*.patch >/dev/null 2>&1 || bad "no patch series '$s' in $here"
	case $d in
	"$here/$s" | "$here/${ver%%.*}.x/$s") ;;
	*)
		line=${d#"$here"/}
		echo "build.sh: series $s is written for ${line%%/*}; trying it on $ver as written" >&2
		;;
	esac
done
series=("${base_series[@]}")
for s in "${named[@]}"; do
	# the base series are applied to every lab kernel; keep them once
	[[ " ${series[*]} " == *" $s "* ]] || series+=("$s")
done
suffix=
for s in "${series[@]:${#base_series[@]}}"; do
	suffix+=+$s
done
# the patches of one file share its name
prev=
for pf in "${pfiles[@]}"; do
	[ "${pf%%=*}" = "$prev" ] || suffix+=+${pf%%=*}
	prev=${pf%%=*}
done
# A long series is named by its first patch, how many follow and a hash
# of all names, so the release fits uname's 64 characters
if [ ${#suffix} -gt 40 ]; then
	first=${suffix#+}
	first=${first%%+*}
	count=$(($(tr -cd + <<<"$suffix" | wc -c) - 1))
	suffix=+$first+${count}more-$(sha256sum <<<"$suffix" | cut -c1-8)
fi
spec=lab:${name#lab-}$suffix$archspec
# testfs-matrix's name of the SPEC: ':' and '/' made '-'
name+=$suffix$archtag
tree=$cache/build/$name
[ $one_tree = 0 ] || tree=$cache/build/${name%%+*}+one-tree$archtag
obj=$tree/obj
out=$cache/kernels/$name
log=$tree.log

# What the kernel is made of; equal text means the cached kernel is it
describe() {
	if [ -n "$tarball" ]; then
		echo "source: $source_spec ($pkg $pkgver, $(basename "$tarball"))"
	else
		echo "source: $pkg ($pkgver, $(tree_sum))"
	fi
	echo "config: $base_config + $(echo "${fragments[@]##*/}" |
		sed 's/ / + /g') $(config_sum)"
	local s p
	for s in "${series[@]}"; do
		for p in "$(series_dir "$s")"/*.patch; do
			echo "patch: $s/$(basename "$p")" \
				"$(sha256sum <"$p" | cut -d' ' -f1)"
		done
	done
	for p in "${pfiles[@]}"; do
		echo "patch: ${p%%=*} $(sha256sum <"${p#*=}" | cut -d' ' -f1)"
	done
	[ ${#pfiles[@]} = 0 ] || echo "fuzz: $fuzz"
}

# A user tree's content, cheaply: every file's path, size and mtime
tree_sum() {
	(cd "$pristine" && find . -path ./.git -prune -o -type f \
		-printf '%P %s %T@\n' | LC_ALL=C sort | sha256sum | cut -c1-16)
}
# One build per variant at a time; other variants may build alongside
exec 9>"$tree.lock"
flock 9

# Unpack the tarball once, atomically, whoever asks first
if [ -n "$tarball" ] && [ ! -f "$pristine/.testfs-unpacked" ]; then
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

# A base series is left out where the source has what it adds already
# (7.x has the readahead events): kernel/SERIES/provides names a file and
# a pattern that is in it once the series is applied
present() {
	local f pat
	[ -f "$here/$1/provides" ] || return 1
	read -r f pat <"$here/$1/provides"
	grep -qE -- "$pat" "$pristine/$f" 2>/dev/null
}
kept=()
for s in "${series[@]}"; do
	if [[ " ${base_series[*]} " == *" $s "* ]] && present "$s"; then
		say "$pkg has what $s adds ($(cut -d' ' -f1 "$here/$s/provides")): not applied"
		continue
	fi
	kept+=("$s")
done
series=("${kept[@]}")

want=$(describe)

if [ $force = 0 ] && [ -f "$out/$target" ] &&
	[ "$(cat "$out/source.txt" 2>/dev/null)" = "$want" ]; then
	say "$spec is cached in $out"
	echo "$spec"
	exit 0
fi

# Every patch, in order: "LABEL<TAB>FILE" (the series', then --patch-file)
all_patches() {
	local s p
	for s in "${series[@]}"; do
		for p in "$(series_dir "$s")"/*.patch; do
			printf '%s\t%s\n' "$s/$(basename "$p")" "$p"
		done
	done
	for p in "${pfiles[@]}"; do
		printf '%s\t%s\n' "$(basename "${p#*=}" .patch)" "${p#*=}"
	done
}

# Files the patches touch, from their "--- a/" and "+++ b/" lines (-p1)
patched_files() {
	all_patches | cut -f2 | while read -r p; do
		sed -n 's/^\(---\|+++\) //p' "$p" | sed 's/\t.*//' |
			grep -v '^/dev/null$' | sed 's|^[^/]*/||'
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
	sum=$(config_sum)
	for d in "$cache/build/${name%%+*}$archtag" "$cache/build/${name%%+*}"+*; do
		[ -d "$d" ] && [ "$d" != "$tree" ] || continue
		[ -f "$d/obj/$image" ] || continue
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

# A copy of the source to patch: hard links where the cache is on the
# source's file system (the tree's files are then replaced, never written),
# else a plain copy; a git checkout's .git stays where it is
link_tree() {
	local e
	mkdir -p "$2" || return 1
	for e in "$1"/* "$1"/.[!.]*; do
		[ -e "$e" ] || continue
		[ "$(basename "$e")" != .git ] || continue
		cp -al "$e" "$2/" 2>/dev/null || cp -a "$e" "$2/" || return 1
	done
}

prepare_tree() {
	# No objects yet (a new tree, or one whose first patch step failed)
	[ -d "$obj" ] || find_seed
	if [ -d "$tree" ] && [ -n "$seed" ]; then
		say "$name has no objects yet: starting from $(basename "$seed")'s"
	fi
	if [ ! -d "$tree" ]; then
		say "linking a source tree for $name${seed:+ (objects from $(basename "$seed"))}"
		rm -rf "$tree.tmp"
		link_tree "$pristine" "$tree.tmp" ||
			die "copying $pristine to $tree.tmp failed (disk full?)"
		rm -f "$tree.tmp/.testfs-unpacked"
		mv "$tree.tmp" "$tree"
	fi
	local stage=$tree.stage f s p
	rm -rf "$stage" && mkdir -p "$stage"
	patched_files >"$stage.new"
	# The seed's patched files too: its objects were built from them, so
	# one this variant leaves pristine must still be rebuilt here.
	local seeded=
	if [ -n "$seed" ] && [ ! -d "$obj" ]; then seeded=$seed; fi
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
	local label f2 pf
	while IFS=$'\t' read -r label pf; do
		echo "== patch $label" >>"$log"
		f2=$fuzz
		# kernel/'s own series apply as written
		[[ $pf == "$here"/* ]] && f2=2
		if ! bash "$here/apply-patch.sh" "$stage" "$pf" "$label" \
			"$f2" 2>"$stage.out"; then
			cat "$stage.out" >&2
			cat "$stage.out" >>"$log"
			rm -rf "$stage" "$stage.all" "$stage.new" "$stage.out"
			die "patch $label does not apply to $pkg $pkgver" \
				"(--fuzz $f2); $tree is as it was"
		fi
		cat "$stage.out" >&2
		cat "$stage.out" >>"$log"
	done < <(all_patches)
	rm -f "$stage.out"
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
			cp -a "$seed/obj" "$obj.tmp" || die "copying $seed/obj failed (disk full?)"
			# objtool's own build (7.x) names its folders by their
			# absolute paths in its .cmd files: with the seed's
			# paths it would be rebuilt, and every object, which
			# depends on the objtool binary, with it
			grep -rlF --include='.*.cmd' "$seed/" "$obj.tmp/tools" 2>/dev/null |
				xargs -r sed -i "s|$seed/|$tree/|g"
			mv "$obj.tmp" "$obj"
		fi
		exec 7>&-
	fi
}

configure() {
	local sum
	sum=$(config_sum)
	if [ -f "$obj/.config" ] &&
		[ "$(cat "$obj/.testfs-config" 2>/dev/null)" = "$sum" ]; then
		return 0
	fi
	say "configuring $name ($base_config + ${fragments[*]##*/})"
	mkdir -p "$obj"
	if [ "$base_config" = allnoconfig ]; then
		# every symbol no, but those the fragments set
		cat "${fragments[@]}" >"$obj/.testfs-fragment"
		make -C "$tree" O=obj "${kmake[@]}" \
			KCONFIG_ALLCONFIG="$obj/.testfs-fragment" allnoconfig >>"$log" 2>&1
	else
		{
			make -C "$tree" O=obj "${kmake[@]}" "$base_config" &&
				"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" \
					"$obj/.config" "${fragments[@]}" &&
				make -C "$tree" O=obj "${kmake[@]}" olddefconfig
		} >>"$log" 2>&1
	fi || {
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

# The release names the variant: 6.12.117-lab, 7.3.4-lab+vma-limit
# (guest.config's CONFIG_LOCALVERSION is the "-lab")
localversion=$suffix
nice=${TESTFS_LAB_NICE:-19}
say "building $spec in $obj (nice -n $nice, make -j$jobs, log: $log)"
start=$(date +%s)
# make runs in a session of its own: its own process group, which a
# signal to build.sh takes down whole (a background job of a script
# ignores SIGINT, so Ctrl-C alone would leave it compiling), and its own
# scheduler autogroup, whose nice value is what counts against the
# machine's other sessions (a process's nice only counts inside its own).
# (Lowering the autogroup's nice below 0 needs CAP_SYS_NICE: else it
# keeps 0, the process's own nice still applies.)
# shellcheck disable=SC2016
setsid sh -c 'echo "$0" >/proc/self/autogroup 2>/dev/null
	exec nice -n "$0" "$@"' "$nice" make -C "$tree" O=obj -j"$jobs" \
	"${kmake[@]}" HOSTCC="ccache gcc" LOCALVERSION="$localversion" \
	"$target" >>"$log" 2>&1 </dev/null &
pid=$!
trap 'kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null || true
	say "interrupted: $spec was not installed (log: $log)"; exit 130' \
	INT TERM HUP
last_total=$(cat "$cache/build/.steps-$ver$archtag" 2>/dev/null || echo "")
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
	if grep -q 'No space left on device' "$log"; then
		die "building $spec failed after ${el}s: the disk is full" \
			"($(df -h "$cache" | awk 'NR==2 {print $4 " free on " $6}'));" \
			"nothing was installed (log: $log)"
	fi
	die "building $spec failed after ${el}s; nothing was installed (log: $log)"
fi
steps=$(grep -c '^  [A-Z]' "$log" || true)
[ "$steps" -lt 1000 ] || echo "$steps" >"$cache/build/.steps-$ver$archtag"
say "built $spec in ${el}s ($steps build steps)"

# Installed whole or not at all: a copy in a temporary folder, renamed
tmp=$cache/kernels/.tmp-$name.$$
trap 'rm -rf "$tmp"' EXIT
rm -rf "$tmp" && mkdir -p "$tmp"
{
	cp "$obj/$image" "$tmp/$target" &&
		cp "$obj/include/config/kernel.release" "$tmp/release" &&
		cp "$obj/.config" "$tmp/config" &&
		echo "$want" >"$tmp/source.txt"
} || die "installing $spec in $cache/kernels failed (disk full?); nothing was installed"
if [ -d "$out" ]; then
	mv "$out" "$cache/kernels/.old-$name.$$"
fi
mv "$tmp" "$out"
rm -rf "$cache/kernels/.old-$name.$$"
say "installed $spec in $out (release $(cat "$out/release"))"
echo "$spec"
