# Sourced by the doc tests (run.sh, c-example.sh): exits 77 (skipped)
# unless running as root with a usable FUSE. Usage: require_root_fuse WHY
require_root_fuse() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: $1"
		exit 77
	fi
	if [ ! -c /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
		echo "SKIP: no /dev/fuse or fusermount3"
		exit 77
	fi
}
