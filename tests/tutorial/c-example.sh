#!/bin/bash
# The doc test of the C test that README.md and libtestfs(3) show: takes
# the page's first C example and the failure message the page shows
# after it, builds the example the way libtestfs(3) says (pkg-config
# against BUILD_DIR/meson-uninstalled), runs it, and checks that its one
# failure is the shown message, word for word.
#
#   tests/tutorial/c-example.sh BUILD_DIR PAGE
#
# PAGE is README.md (a ```c block, then the next ``` block: the message;
# a block without #include lines gets the man page's four) or a man page
# (the first .EX/.EE block after .SH EXAMPLES, then the next one; the
# message's lines are joined by spaces).
#
# Figures are the kernel's policy: on a kernel other than the page's
# ("On Linux X.Y"), a message that differs is reported and the test is
# skipped; a failure to build or run fails anywhere. A busy machine may
# evict a fetched page (one read more): a message must be wrong on three
# runs to count.
#
# Exit status: 0 matched, 1 a mismatch or a failure, 77 skipped (no root,
# no FUSE, another kernel), 2 bad usage.
set -uo pipefail

if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -r "$2" ]; then
	echo "usage: c-example.sh BUILD_DIR PAGE" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
page=$2
# shellcheck source=tests/tutorial/require.sh
. "$(dirname "$0")/require.sh"
require_root_fuse "the example raises read_ahead_kb (root)"

work=$(mktemp -d "${TMPDIR:-/tmp}/testfs-test.c-example.XXXXXX")
trap 'rm -rf "$work"' EXIT

case $page in
*.md)
	awk -v d="$work" '
	/^```c$/ && !code { code = 1; next }
	/^```/ && code == 1 { code = 2; next }
	code == 1 { print > (d "/test.c") }
	code == 2 && /^```$/ && !msg { msg = 1; next }
	code == 2 && msg == 1 && /^```/ { msg = 2; next }
	code == 2 && msg == 1 { print > (d "/message") }
	' "$page"
	;;
*)
	awk -v d="$work" '
	/^\.SH EXAMPLES/ { ex = 1; next }
	/^\.SH / { ex = 0 }
	!ex { next }
	/^\.EX/ { n++; inside = 1; next }
	/^\.EE/ { inside = 0; next }
	inside && n == 1 { print > (d "/test.c") }
	inside && n == 2 { print > (d "/message") }
	' "$page"
	# The roff escapes of a man page's code.
	sed -i -e 's/\\-/-/g' -e 's/\\e/\\/g' "$work/test.c" "$work/message"
	;;
esac
if [ ! -s "$work/test.c" ] || [ ! -s "$work/message" ]; then
	echo "FAIL: $page: no C example followed by its failure message"
	exit 1
fi
if ! grep -q '^#include' "$work/test.c"; then
	{
		printf '#include <%s>\n' criterion/criterion.h sys/mman.h \
			testfs.h testfs/criterion.h
		cat "$work/test.c"
	} >"$work/full.c"
	mv "$work/full.c" "$work/test.c"
fi
message=$(tr -s '\n' ' ' <"$work/message" | sed 's/ $//')
doc_kernel=$(grep -oE 'On Linux [0-9]+\.[0-9]+' "$page" | head -1 |
	awk '{ print $3 }')

# Built as libtestfs(3) says, against this build tree. A sanitized tree
# (CI's ASan build) needs the example built with the same sanitizers: its
# libtestfs wants the runtime loaded first.
export PKG_CONFIG_PATH=$build/meson-uninstalled
sanitize=$(python3 -c 'import json, sys
for o in json.load(open(sys.argv[1])):
    if o["name"] == "b_sanitize" and o["value"] not in ("none", []):
        v = o["value"]
        print("-fsanitize=" + (v if isinstance(v, str) else ",".join(v)))
' "$build/meson-info/intro-buildoptions.json" 2>/dev/null)
# shellcheck disable=SC2046,SC2086 # pkg-config's flags are words
if ! cc -o "$work/test" "$work/test.c" $sanitize \
	$(pkg-config --cflags --libs testfs) 2>"$work/cc.err"; then
	echo "FAIL: $page: the example does not build:"
	sed 's/^/    /' "$work/cc.err"
	exit 1
fi

# Criterion shows a failure as "[----] FILE:LINE: Assertion Failed", then
# the message's lines as "[----]   TEXT".
for try in 1 2 3; do
	LD_LIBRARY_PATH=$build/lib timeout -k 5 120 "$work/test" \
		>"$work/out" 2>&1
	status=$?
	if ! grep -q 'Synthesis: Tested: 1 ' "$work/out" || [ "$status" = 124 ]; then
		echo "FAIL: $page: the example did not run (status $status):"
		sed 's/^/    /' "$work/out"
		exit 1
	fi
	fails=$(grep -c 'Assertion Failed' "$work/out")
	sed -n 's/^\[----\]  *//p' "$work/out" >"$work/said"
	matched=0
	[ "$status" != 0 ] && [ "$fails" = 1 ] &&
		grep -qxF -- "$message" "$work/said" && matched=1
	[ "$matched" = 1 ] && break
	echo "run $try: the example's failures ($fails, status $status):"
	sed 's/^/    /' "$work/out"
done
if [ "$matched" = 1 ]; then
	echo "the example of $page fails as the page shows: $message"
	exit 0
fi
echo "the page shows:"
echo "    $message"
# TUTORIAL_STRICT (tests/tutorial/mutate.sh): a mismatch fails anywhere.
case $(uname -r) in
"$doc_kernel" | "$doc_kernel".* | "$doc_kernel"-*) strict=${doc_kernel:+1} ;;
*) strict=${TUTORIAL_STRICT:-} ;;
esac
if [ -n "$strict" ]; then
	echo "FAIL: $page: the message differs on 3 runs"
	exit 1
fi
echo "SKIP: $page shows Linux ${doc_kernel:-(none named)}, this is $(uname -r)"
exit 77
