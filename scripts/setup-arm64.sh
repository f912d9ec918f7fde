#!/bin/bash
# testfs cross-built for arm64 guests (testfs-matrix --kernel
# debian:VERSION/arm64 or /arm64-16k). Run by scripts/setup.sh
# --matrix-arm64 after the cross compiler is installed; as root it also
# installs what is missing:
#   - the arm64 architecture in dpkg (multiarch) and the arm64 libfuse3
#     and liburing beside the host's (scripts/packages.sh arm64_libraries);
#   - Criterion's arm64 libraries and busybox-static's arm64 busybox,
#     which cannot be installed beside the host's, unpacked (dpkg -x,
#     never installed) with what they depend on into BUILDDIR/sysroot;
# then builds testfs in BUILDDIR (default build-arm64) with
# cross/aarch64-linux-gnu.ini and prints how long the build took.
# Environment: BUILDDIR_ARM64 (default build-arm64).
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=scripts/packages.sh
. scripts/packages.sh
builddir=${BUILDDIR_ARM64:-build-arm64}
sysroot=$PWD/$builddir/sysroot

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	if [ "$(id -u)" != 0 ]; then
		echo "setup-arm64: dpkg has no arm64 architecture; as root:" >&2
		echo "  dpkg --add-architecture arm64 && apt-get update" >&2
		exit 1
	fi
	echo "setup-arm64: dpkg --add-architecture arm64"
	dpkg --add-architecture arm64
	apt-get update -qq
fi
install_missing "arm64 libraries" "${arm64_libraries[@]}" || exit 1

# The packages to unpack: the sysroot packages and every arm64 package
# they depend on that dpkg does not have installed.
if [ ! -f "$sysroot/.complete" ]; then
	mapfile -t closure < <(apt-cache depends --recurse --no-recommends \
		--no-suggests --no-conflicts --no-breaks --no-replaces \
		--no-enhances "${arm64_sysroot_packages[@]}" |
		grep -E '^(lib|zlib)[^ ]*:arm64$' | grep -v -- '-dev:arm64$' | sort -u)
	wanted=("${arm64_sysroot_packages[@]}")
	for p in "${closure[@]}"; do
		if [[ " ${arm64_sysroot_packages[*]} " != *" $p "* ]] &&
			! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed"; then
			wanted+=("$p")
		fi
	done
	debs=$(mktemp -d /tmp/testfs-arm64-debs.XXXXXX)
	trap 'rm -rf "$debs"' EXIT
	echo "setup-arm64: unpacking into $sysroot: ${wanted[*]}"
	(cd "$debs" && apt-get download -qq "${wanted[@]}")
	rm -rf "$sysroot"
	mkdir -p "$sysroot"
	for d in "$debs"/*.deb; do
		dpkg -x "$d" "$sysroot"
	done
	# Criterion's .pc names /usr: the sysroot's own folders instead; its
	# static link's private requirements (no -dev packages here) go.
	for pc in "$sysroot"/usr/lib/aarch64-linux-gnu/pkgconfig/*.pc; do
		sed -i -e "s|^prefix=/usr\$|prefix=$sysroot/usr|" \
			-e '/^Requires.private:/d' "$pc"
	done
	touch "$sysroot/.complete"
fi

# The sysroot's part of the cross configuration.
lib=$sysroot/usr/lib/aarch64-linux-gnu
cat > "$builddir/sysroot.ini" <<INI
[properties]
pkg_config_libdir = ['$lib/pkgconfig',
	'/usr/lib/aarch64-linux-gnu/pkgconfig', '/usr/share/pkgconfig']

[built-in options]
c_link_args = ['-Wl,-rpath-link,$lib',
	'-Wl,-rpath-link,$sysroot/lib/aarch64-linux-gnu',
	'-Wl,-rpath-link,/usr/lib/aarch64-linux-gnu',
	'-Wl,-rpath-link,/lib/aarch64-linux-gnu']
INI

start=$SECONDS
if [ ! -f "$builddir/build.ninja" ]; then
	meson setup "$builddir" --cross-file cross/aarch64-linux-gnu.ini \
		--cross-file "$builddir/sysroot.ini" "$@"
fi
meson compile -C "$builddir"
echo "setup-arm64: testfs for arm64 in $builddir ($((SECONDS - start)) s)"
