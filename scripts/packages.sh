#!/bin/bash
# Sourced by scripts/setup.sh, scripts/test.sh and .ci/run: installs the
# Debian packages of a list that are missing, and only those.
#
#   install_missing WHAT PACKAGE...
#   NO_RECOMMENDS=1 install_missing WHAT PACKAGE...   (--no-install-recommends)
#
# As root: apt-get installs what is missing. Otherwise: prints the
# missing packages and the command that installs them, and returns 1.

# shellcheck disable=SC2034 # used by the scripts that source this file
# The packages a build needs (scripts/setup.sh).
build_packages=(gcc libc6-dev libfuse3-dev fuse3 liburing-dev
	libcriterion-dev meson ninja-build pkg-config man-db groff-base)

# shellcheck disable=SC2034
# What the test suite needs beyond a build, so that `bash scripts/test.sh`
# runs every test: chromium and zlib1g-dev for the report pages (suite
# report: pages in headless Chromium, screenshots decoded with zlib);
# qemu-system-x86 and busybox-static for the kernel matrix (suite matrix,
# and the tutorial's experiment 11); python3 and binutils (nm) for the
# layer and circle check (tools/callgraph.py, the test callgraph);
# lava-common for LAVA's job schema (the test lava_schema checks the jobs
# of testfs-matrix lava-job with it).
test_packages=(chromium zlib1g-dev qemu-system-x86 busybox-static python3
	binutils lava-common)

# shellcheck disable=SC2034
# The benchmarks (scripts/bench.sh): perf for the profile of the servers
# during a 1 MiB read stream (Debian's perf is in linux-perf).
bench_packages=(linux-perf)

# shellcheck disable=SC2034
# testfs-matrix's QEMU guests and Debian's kernels (scripts/setup.sh
# --matrix; the list testfs-matrix itself checks: matrix/prereq.c).
matrix_packages=(qemu-system-x86 busybox-static apt dpkg xz-utils)

# shellcheck disable=SC2034
# arm64 guests (scripts/setup.sh --matrix-arm64): the cross compiler (for
# testfs and for the 64 KiB-page lab kernel, testfs-matrix build --arch
# arm64-64k, with lab_packages) and qemu-system-aarch64; the arm64
# libraries come through multiarch (scripts/setup-arm64.sh:
# arm64_libraries, arm64_sysroot_packages).
arm64_packages=(gcc-aarch64-linux-gnu qemu-system-arm)
# shellcheck disable=SC2034
# arm64 libraries installed beside the host's (Multi-Arch: same).
arm64_libraries=(libfuse3-dev:arm64 liburing-dev:arm64)
# shellcheck disable=SC2034
# arm64 packages that cannot be installed beside the host's (Criterion's
# libnanomsg5 is not Multi-Arch: same; busybox-static and fuse3 are
# programs): unpacked (dpkg -x) into build-arm64's sysroot with the
# libraries they depend on that are not installed.
arm64_sysroot_packages=(libcriterion3:arm64 libcriterion-dev:arm64
	busybox-static:arm64 fuse3:arm64)

# shellcheck disable=SC2034
# Lab kernel builds (scripts/setup.sh --lab, testfs-matrix build/bisect).
lab_packages=(gcc make ccache flex bison bc patch tar xz-utils util-linux
	libelf-dev libssl-dev)

# shellcheck disable=SC2034
# LAVA: lava-common's job schema (the suite validates the jobs of
# testfs-matrix lava-job with it), the dispatcher alone (lava-run, the CI
# step), lavacli (testfs-matrix --lava) and a whole local instance
# (scripts/lava-local.sh: the server, PostgreSQL, gunicorn3).
lava_packages=(lava-common lava-dispatcher lavacli)
lava_server_packages=(lava-server lava-dispatcher lavacli postgresql gunicorn
	curl)

install_missing() {
	local what=$1 p
	local missing=()

	shift
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		echo "setup: missing Debian packages ($what): ${missing[*]}" >&2
		echo "setup: run as root (or: sudo apt-get install ${missing[*]})" >&2
		return 1
	fi
	echo "setup: installing ($what) ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		${NO_RECOMMENDS:+--no-install-recommends} \
		"${missing[@]}" >/dev/null
}
