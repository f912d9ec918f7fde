# SPDX-License-Identifier: MIT
# Sourced by kernel/build.sh and kernel/check.sh (which set $here).
# The kernel cache is testfs-matrix's (matrix/cache.c, one definition):
# it passes it as TESTFS_CACHE; run alone, this asks `testfs-matrix
# cache-dir` (TESTFS_MATRIX, the build tree's, or the installed one).
matrix_cache_dir() {
	local m
	for m in "${TESTFS_MATRIX:-}" "$here/../${BUILDDIR:-build}/matrix/testfs-matrix" \
		"$(command -v testfs-matrix || true)"; do
		if [ -n "$m" ] && [ -x "$m" ]; then
			"$m" cache-dir
			return
		fi
	done
	echo "$(basename "$0"): testfs-matrix not found (build testfs, or set" \
		"TESTFS_MATRIX or TESTFS_CACHE)" >&2
	exit 1
}
