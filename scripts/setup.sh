#!/bin/bash
# Installs what testfs needs from Debian's packages (only what is missing)
# and builds it in ./build.
# Usage: scripts/setup.sh [--matrix] [--matrix-arm64] [--lab]
#                         [MESON_SETUP_ARGS...]
#   --matrix  also what testfs-matrix needs for QEMU guests and Debian's
#             kernels (the list testfs-matrix itself checks: matrix/prereq.c)
#   --matrix-arm64  also arm64 guests: the cross compiler, qemu-system-arm,
#             the arm64 libraries (Debian multiarch), and testfs cross-built
#             in build-arm64 (scripts/setup-arm64.sh)
#   --lab     also what `testfs-matrix build` needs to build lab kernels
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/packages.sh
. scripts/packages.sh
packages=("${build_packages[@]}")
arm64=
while [ $# -gt 0 ]; do
	case $1 in
	--matrix) packages+=("${matrix_packages[@]}") ;;
	--lab) packages+=("${matrix_packages[@]}" "${lab_packages[@]}") ;;
	--matrix-arm64)
		packages+=("${matrix_packages[@]}" "${arm64_packages[@]}")
		arm64=1
		;;
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
if [ -n "$arm64" ]; then
	bash scripts/setup-arm64.sh
fi
