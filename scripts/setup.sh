#!/bin/bash
# Installs what testfs needs from Debian's packages (only what is missing)
# and builds it in ./build.
# Usage: scripts/setup.sh [--matrix] [--lab] [MESON_SETUP_ARGS...]
#   --matrix  also what testfs-matrix needs for QEMU guests and Debian's
#             kernels (the list testfs-matrix itself checks: matrix/prereq.c)
#   --lab     also what `testfs-matrix build` needs to build lab kernels
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(gcc libc6-dev libfuse3-dev fuse3 liburing-dev libcriterion-dev
	  meson ninja-build pkg-config man-db groff-base)
matrix_packages=(qemu-system-x86 busybox-static apt dpkg xz-utils)
lab_packages=(gcc make ccache flex bison bc patch tar xz-utils util-linux
	      libelf-dev libssl-dev)
while [ $# -gt 0 ]; do
	case $1 in
	--matrix) packages+=("${matrix_packages[@]}") ;;
	--lab) packages+=("${matrix_packages[@]}" "${lab_packages[@]}") ;;
	*) break ;;
	esac
	shift
done
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing Debian packages: ${missing[*]}" >&2
		echo "setup: run as root (or: sudo apt-get install ${missing[*]})" >&2
		exit 1
	fi
	echo "setup: installing ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

builddir=${BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" "$@"
elif [ $# -gt 0 ]; then
	meson configure "$builddir" "$@"
fi
meson compile -C "$builddir"
