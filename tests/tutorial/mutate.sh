#!/bin/bash
# The doc test must fail when a figure of the tutorial is edited: edits a
# copy of docs/tutorial.md in three ways (a shown output line, a figure in
# the prose, a check's value) and expects run.sh to fail each time, naming
# the experiment. Usage: tests/tutorial/mutate.sh BUILD_DIR
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
doc=$here/../../docs/tutorial.md
work=$(mktemp -d /tmp/testfs-test.tutorial-mutate.XXXXXX)
trap 'rm -rf "$work"' EXIT

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the tutorial runs as root"
	exit 77
fi

if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: mutate.sh BUILD_DIR" >&2
	exit 2
fi
build=$1
failed=0

# mutate NAME EXPERIMENT SED_EXPRESSION [DOC]: the edit must change the
# copy of DOC (the tutorial by default), and run.sh on the copy must exit 1
# with a FAIL line for EXPERIMENT.
mutate() {
	local name=$1 exp=$2 expr=$3 doc=${4:-$doc} status
	sed "$expr" "$doc" >"$work/$name.md"
	if cmp -s "$doc" "$work/$name.md"; then
		echo "FAIL: $name: the edit '$expr' no longer changes $doc"
		failed=1
		return
	fi
	TUTORIAL_STRICT=1 bash "$here/run.sh" --doc "$work/$name.md" \
		--only "$exp" "$build" >"$work/$name.out" 2>&1
	status=$?
	if [ $status -eq 1 ] &&
		grep -q "^FAIL: experiment '$exp'" "$work/$name.out"; then
		echo "ok: $name: $(grep -m1 "^FAIL: experiment" "$work/$name.out")"
	else
		echo "FAIL: $name: run.sh exited $status on the edited tutorial:"
		sed 's/^/    /' "$work/$name.out"
		failed=1
	fi
}

# A figure of the window ramp in a shown output line, a figure in the
# prose, and the value of a check.
mutate shown-line ramp 's/^"page":28,"pages":32$/"page":28,"pages":36/'
mutate prose readaround 's/^1 inside, 15 after it\.$/1 inside, 14 after it./'
mutate check-value exec \
	's/expect="0 before the mapping, 1024 inside, 0 after it"/expect="0 before the mapping, 1024 inside, 1 after it"/'
# The README's tour, the same three ways.
readme=$here/../../README.md
mutate readme-shown-line tour \
	's/^1088 pages in 34 requests, spanning \[1008, 2095\]/1089 pages in 34 requests, spanning [1008, 2095]/' \
	"$readme"
mutate readme-prose tour 's/^range, 384 after it\.$/range, 383 after it./' \
	"$readme"
mutate readme-check-value tour \
	's/expect="16 before the range, 48 after it"/expect="16 before the range, 47 after it"/' \
	"$readme"
# The C test README.md shows: its failure message, edited, fails it.
sed 's/^big\.bin: readahead fetched 384 pages past/big.bin: readahead fetched 385 pages past/' \
	"$readme" >"$work/c-message.md"
if cmp -s "$readme" "$work/c-message.md"; then
	echo "FAIL: c-message: the edit no longer changes README.md"
	failed=1
elif TUTORIAL_STRICT=1 bash "$here/c-example.sh" "$build" \
	"$work/c-message.md" >"$work/c-message.out" 2>&1; then
	echo "FAIL: c-message: c-example.sh passed the edited message"
	failed=1
elif grep -q '^FAIL: .*the message differs' "$work/c-message.out"; then
	echo "ok: c-message: $(grep -m1 '^FAIL: ' "$work/c-message.out")"
else
	echo "FAIL: c-message: c-example.sh failed otherwise:"
	sed 's/^/    /' "$work/c-message.out"
	failed=1
fi
exit $failed
