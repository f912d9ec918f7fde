#!/bin/bash
# Installs what testfs needs from Debian's packages (only what is missing)
# and builds it in ./build. Usage: scripts/setup.sh [MESON_SETUP_ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/packages.sh
. scripts/packages.sh
install_missing "build" "${build_packages[@]}" || exit 1

builddir=${BUILDDIR:-build}
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" "$@"
elif [ $# -gt 0 ]; then
	meson configure "$builddir" "$@"
fi
meson compile -C "$builddir"
