#!/bin/bash
# Installs what testfs needs from Debian's packages (only what is missing)
# and builds it in ./build.
# Usage: scripts/setup.sh [--matrix] [--lab] [MESON_SETUP_ARGS...]
#   --matrix  also what testfs-matrix needs for QEMU guests and Debian's
#             kernels (the list testfs-matrix itself checks: matrix/prereq.c)
#   --lab     also what `testfs-matrix build` needs to build lab kernels
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/packages.sh
. scripts/packages.sh
packages=("${build_packages[@]}")
while [ $# -gt 0 ]; do
	case $1 in
	--matrix) packages+=("${matrix_packages[@]}") ;;
	--lab) packages+=("${matrix_packages[@]}" "${lab_packages[@]}") ;;
	*) break ;;
	esac
	shift
done
install_missing "build" "${packages[@]}" || exit 1

builddir=${BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" "$@"
elif [ $# -gt 0 ]; then
	meson configure "$builddir" "$@"
fi
meson compile -C "$builddir"
