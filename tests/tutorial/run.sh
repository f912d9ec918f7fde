#!/bin/bash
# The doc test of docs/tutorial.md: runs every command of every experiment
# on a fresh testfs mount and checks what the text shows.
#
#   tests/tutorial/run.sh [--doc FILE] [--only NAME] BUILD_DIR
#
# How the tutorial is read (see the comment at the top of tutorial.md):
#  - "<!-- experiment: NAME -->" starts an experiment; everything up to the
#    next one (prose, blocks, checks) belongs to it.
#  - In ```console blocks, a line "# CMD" is a command (a trailing "\"
#    continues it on the next line); the other lines are the output the
#    text shows. Each shown line must match a line of the real output, in
#    order; "..." inside a line matches anything, a line that is only
#    "..." skips any number of lines.
#  - "<!-- needs: SHELL COMMAND -->": the experiment runs only where the
#    command succeeds (else it is skipped, and said to be);
#    "<!-- limit: SECONDS -->" sets its time limit (default 120 s).
#  - "<!-- check: line="TEXT" expect="FIGURE" -->" (or '...' quotes, for
#    values with double quotes): some output line holding TEXT holds
#    FIGURE, and FIGURE is written in the experiment's prose (outside code
#    blocks), so editing the figure in the prose fails too. min=N instead of expect:
#    the first number after TEXT on that line is at least N (figures that
#    vary from run to run).
#
# Each experiment gets its own mountpoint for /mnt/t, a time limit, and is
# unmounted on every path (also when this script is killed: the daemons
# run with --watch-pid of this script, and auto_unmount).
#
# Figures are the kernel's policy: on a kernel other than the one the
# tutorial names (its "kernel: X.Y" line), a figure that differs is
# reported as a kernel difference and the test is skipped, not failed; so
# does TESTFS_POLICY=warn. A command that fails, or a check whose figure
# is missing from the text, fails on any kernel.
#
# Exit status: 0 all matched, 1 a mismatch, 77 skipped (no root, no FUSE,
# or kernel differences only), 2 bad usage.
set -uo pipefail

doc=
only=
while [ $# -gt 1 ]; do
	case $1 in
	--doc) doc=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -ne 1 ] || [ ! -d "$1" ]; then
	echo "usage: run.sh [--doc FILE] [--only NAME] BUILD_DIR" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
doc=${doc:-$src/docs/tutorial.md}
limit=${TUTORIAL_TIME_LIMIT:-120}

# shellcheck source=tests/tutorial/require.sh
. "$(dirname "$0")/require.sh"
require_root_fuse "the tutorial runs as root (read_ahead_kb, kernel tracing)"

work=$(mktemp -d "${TMPDIR:-/tmp}/testfs-test.tutorial.XXXXXX")
mnt=$work/mnt
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	if grep -q " $mnt " /proc/mounts; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt"
	fi
	rm -rf "$work"
}
child=
trap cleanup EXIT
# Killed (a suite time limit): end the running experiment, then clean up.
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; exit 1' INT TERM HUP

# The programs come from the directories the tutorial's own "export
# PATH=$PWD/build/..." line names (in BUILD_DIR here), so that line is
# tested too: a program that moves in the build tree fails it. A page
# without that line (README.md) names them by their paths in the build
# tree, build/src/testfs, ...: the commands run in a directory whose
# build/ mirrors BUILD_DIR, so such a path that moves fails the same way.
pathline=$(grep -m1 '^export PATH=' "$doc" || true)
if [ -z "$pathline" ] && ! grep -q '^# build/' "$doc"; then
	echo "FAIL: $doc has no 'export PATH=\$PWD/build/...' line" \
		"and no command that names build/..." >&2
	exit 1
fi
if [ -z "$pathline" ]; then
	# build/ as BUILD_DIR, but build/src/testfs runs the daemon with
	# --watch-pid of this script, as testfs() below does.
	mkdir -p "$work/build/src"
	for e in "$build"/*; do
		[ "${e##*/}" = src ] || ln -s "$e" "$work/build/"
	done
	for e in "$build"/src/*; do
		[ "${e##*/}" = testfs ] || ln -s "$e" "$work/build/src/"
	done
	printf '#!/bin/sh\nexec "%s" --watch-pid %s "$@"\n' \
		"$build/src/testfs" $$ >"$work/build/src/testfs"
	chmod +x "$work/build/src/testfs"
fi
bindirs=
IFS=: read -ra entries <<<"${pathline#export PATH=}"
for e in "${entries[@]}"; do
	# shellcheck disable=SC2016 # the literal text of the tutorial
	case $e in
	'$PWD/build/'*) bindirs=$bindirs:$build/${e#\$PWD/build/} ;;
	esac
done
[ -n "$bindirs" ] && export PATH=${bindirs#:}:$PATH
progs=
[ -n "$pathline" ] && progs="testfs testfs-touch testfs-scenario \
	testfs-report testfs-matrix ra-slice ra-split"
for prog in $progs; do
	# Found in the build tree, not an installed copy.
	if [[ $(command -v "$prog") != "$build"/* ]]; then
		where=$(find "$build" -name "$prog" -type f -perm -u+x \
			-not -path '*.p/*' 2>/dev/null | head -1)
		echo "FAIL: the tutorial's PATH line does not reach $prog" \
			"(built at ${where:-nowhere in $build})" >&2
		exit 1
	fi
done
export TESTFS_BIN=$build/src/testfs

# Split the tutorial into experiments: NAME/cmds, NAME/shown, NAME/checks
# (line TAB kind TAB value), NAME/text (its prose: no comments, no code
# blocks, whose output lines are checked one by one instead).
awk -v dir="$work" '
function flush_cmd() {
	if (cmd != "") { print cmd > (d "/cmds"); cmd = "" }
}
function attr(s, k,    re) {
	re = k "=\"[^\"]*\""
	if (match(s, re)) return substr(s, RSTART + length(k) + 2, RLENGTH - length(k) - 3)
	re = k "=\047[^\047]*\047"
	if (match(s, re)) return substr(s, RSTART + length(k) + 2, RLENGTH - length(k) - 3)
	re = k "=[0-9]+"
	if (match(s, re)) return substr(s, RSTART + length(k) + 1, RLENGTH - length(k) - 1)
	return ""
}
/^<!-- experiment: [a-z0-9-]+ -->$/ {
	flush_cmd()
	name = $3; d = dir "/" name
	system("mkdir -p \"" d "\"")
	print name > (dir "/order")
	printf "" > (d "/cmds"); printf "" > (d "/shown"); printf "" > (d "/checks")
	next
}
name == "" { next }
/^<!-- check:/ {
	l = attr($0, "line"); e = attr($0, "expect"); m = attr($0, "min")
	if (e != "") printf "%s\texpect\t%s\n", l, e > (d "/checks")
	else if (m != "") printf "%s\tmin\t%s\n", l, m > (d "/checks")
	else printf "%s\tbad\t%s\n", l, $0 > (d "/checks")
	next
}
/^<!-- needs: .* -->$/ {
	sub(/^<!-- needs: /, ""); sub(/ -->$/, ""); print > (d "/needs"); next
}
/^<!-- limit: [0-9]+ -->$/ { print $3 > (d "/limit"); next }
/^<!--/ { next }
/^```console$/ { incon = 1; infence = 1; next }
/^```/ && incon { flush_cmd(); incon = 0; infence = 0; next }
/^```/ { infence = !infence; next }
!infence { print > (d "/text") }
incon && cmd != "" {
	line = $0; cont = sub(/\\$/, "", line)
	sub(/^ +/, " ", line)
	cmd = cmd line
	if (!cont) flush_cmd()
	next
}
incon && /^# / {
	line = substr($0, 3); cont = sub(/\\$/, "", line)
	cmd = line
	if (!cont) flush_cmd()
	next
}
incon { print > (d "/shown") }
' "$doc"

if [ ! -s "$work/order" ]; then
	echo "FAIL: $doc has no experiments" >&2
	exit 1
fi

# The tutorial names its kernel; another kernel turns figure mismatches
# into reported differences.
doc_kernel=$(sed -n 's/^.*<!-- kernel: \([0-9.]*\) -->.*$/\1/p' "$doc" | head -1)
run_kernel=$(uname -r)
policy=fail
case $run_kernel in
"$doc_kernel" | "$doc_kernel".* | "$doc_kernel"-*) ;;
*) policy=warn ;;
esac
[ "${TESTFS_POLICY:-}" = warn ] && policy=warn
# The mutation test wants every mismatch to fail, whatever the kernel.
[ -n "${TUTORIAL_STRICT:-}" ] && policy=fail

failed=0
differs=0
ran=0
skipped=0

# How many experiments the tutorial has, as README.md and the tutorial
# say it in words ("in eleven experiments"): checked on the real pages.
if [ "$doc" = "$src/docs/tutorial.md" ] || [ "$doc" = "$src/README.md" ]; then
	words=(zero one two three four five six seven eight nine ten eleven
		twelve thirteen fourteen fifteen sixteen seventeen eighteen
		nineteen twenty)
	n=$(grep -c '^<!-- experiment: ' "$src/docs/tutorial.md")
	for f in "$src/README.md" "$src/docs/tutorial.md"; do
		for said in $(tr -s '\n' ' ' <"$f" |
			grep -ioE 'in [a-z]+ (tested )?experiments' |
			awk '{ print tolower($2) }'); do
			if [ "$said" != "${words[$n]:-$n}" ]; then
				echo "FAIL: ${f#"$src"/} says '$said experiments';" \
					"docs/tutorial.md has $n"
				failed=$((failed + 1))
			fi
		done
	done
fi

# A mismatch of a figure, noted for the attempt in progress.
miss() {
	misses+="$1"$'\n'
	nmiss=$((nmiss + 1))
}

# Whether output line $1 matches shown line $2, where "..." in the shown
# line stands for any text (the rest is literal).
matches() {
	local line=$1 rest=$2 seg
	if [[ $rest != *...* ]]; then
		[ "$line" = "$rest" ]
		return
	fi
	seg=${rest%%...*}
	[[ $line == "$seg"* ]] || return 1
	line=${line:${#seg}}
	rest=${rest#*...}
	while [[ $rest == *...* ]]; do
		seg=${rest%%...*}
		[[ $line == *"$seg"* ]] || return 1
		line=${line#*"$seg"}
		rest=${rest#*...}
	done
	[[ $line == *"$rest" ]]
}

# Runs experiment $1 once on a fresh mount: 0 when its commands ran (then
# misses/nmiss hold the figures that did not match), 1 when they failed.
attempt() {
	local name=$1 d=$work/$1 status i j skip found shown line kind value
	local lines n prose
	misses=
	nmiss=0
	mkdir -p "$mnt"
	{
		echo "set -e"
		# Every mount of the experiment goes when this script goes.
		echo "testfs() { command testfs --watch-pid $$ \"\$@\"; }"
		echo "cd '$work'"
		sed "s#/mnt/t#$mnt#g" "$d/cmds"
	} >"$d/script"
	local this_limit
	this_limit=$(cat "$d/limit" 2>/dev/null || echo "$limit")
	timeout -k 5 "$this_limit" bash "$d/script" >"$d/out" 2>&1 &
	child=$!
	wait "$child"
	status=$?
	child=
	sed -i "s#$mnt#/mnt/t#g" "$d/out"
	# TUTORIAL_SHOW=1 prints the real output, to write the text from.
	[ -n "${TUTORIAL_SHOW:-}" ] && { echo "== $name"; cat "$d/out"; }
	if grep -q " $mnt " /proc/mounts; then
		fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt"
	fi
	if [ $status -ne 0 ]; then
		echo "FAIL: experiment '$name': its commands failed (status $status$([ $status = 124 ] && echo ", time limit ${this_limit}s")); output:"
		sed 's/^/    /' "$d/out"
		return 1
	fi

	# The shown output, line by line, in order.
	mapfile -t out <"$d/out"
	i=0
	skip=0
	while IFS= read -r shown; do
		if [[ $shown =~ ^[[:space:]]*\.\.\.$ ]]; then
			skip=1
			continue
		fi
		j=$i
		found=-1
		# Without a "..." line before it, a shown line is the next one.
		while [ $j -lt ${#out[@]} ]; do
			if matches "${out[$j]}" "$shown"; then
				found=$j
				break
			fi
			[ $skip = 0 ] && break
			j=$((j + 1))
		done
		if [ $found -lt 0 ]; then
			miss "the text shows the line
      $shown
    but the output has no such line after line $i:
$(sed -n "$((i + 1)),$((i + 12))p" "$d/out" | sed 's/^/      /')"
			break
		fi
		i=$((found + 1))
		skip=0
	done <"$d/shown"

	# The checks of stated figures.
	while IFS=$'\t' read -r line kind value; do
		lines=$(grep -F -- "$line" "$d/out" || true)
		if [ "$kind" = expect ]; then
			if ! grep -F -- "$line" "$d/out" | grep -qF -- "$value"; then
				miss "expected \"$value\" on the line \"$line\", got:
$(printf '%s\n' "${lines:-(no such line)}" | head -5 | sed 's/^/      /')"
			fi
		elif [ "$kind" = min ]; then
			n=$(printf '%s\n' "$lines" | head -1 | awk -v k="$line" '{
				i = index($0, k); s = substr($0, i + length(k))
				if (match(s, /[0-9]+/)) print substr(s, RSTART, RLENGTH) }')
			if [ -z "$n" ] || [ "$n" -lt "$value" ]; then
				miss "expected at least $value on the line \"$line\", got: ${lines:-(no such line)}"
			fi
		fi
	done <"$d/checks"
	return 0
}

while read -r name; do
	[ -n "$only" ] && [ "$name" != "$only" ] && continue
	d=$work/$name
	ran=$((ran + 1))

	# An experiment that needs what this machine may lack (a guest
	# kernel in testfs-matrix's cache) says so; without it, it is
	# skipped, and said to be.
	if [ -s "$d/needs" ] && ! (cd "$work" && bash -c "$(cat "$d/needs")") \
		>/dev/null 2>&1; then
		echo "skipped experiment '$name': it needs $(cat "$d/needs")"
		skipped=$((skipped + 1))
		continue
	fi

	# The text's own consistency: no run needed, no second chance.
	prose=$(tr -s '\n ' '  ' <"$d/text")
	while IFS=$'\t' read -r line kind value; do
		if [ "$kind" = bad ]; then
			echo "FAIL: experiment '$name': a check needs expect=\"...\" or min=N: $value"
			failed=$((failed + 1))
		elif [ "$kind" = expect ] && [[ $prose != *"$value"* ]]; then
			# Prose wraps: compared with its lines joined.
			echo "FAIL: experiment '$name': the prose no longer states \"$value\", which its check expects"
			failed=$((failed + 1))
		fi
	done <"$d/checks"

	# A busy machine may evict a page that readahead fetched (it is then
	# fetched again, one read more) or delay a reply: a figure that does
	# not match gets two more runs, each on a fresh mount, and only a
	# figure that is wrong three times in a row counts. An edited figure
	# is wrong every time.
	first=
	for try in 1 2 3; do
		if ! attempt "$name"; then
			failed=$((failed + 1))
			nmiss=-1
			break
		fi
		[ "$nmiss" = 0 ] && break
		[ -z "$first" ] && first=$misses
	done
	if [ "$nmiss" -gt 0 ]; then
		if [ $policy = warn ]; then
			echo "KERNEL DIFFERENCE: experiment '$name' (the tutorial shows Linux $doc_kernel, this is $run_kernel, 3 runs):"
			differs=$((differs + nmiss))
		else
			echo "FAIL: experiment '$name' (3 runs, the last shown):"
			failed=$((failed + nmiss))
		fi
		printf '%s' "$misses" | sed 's/^/  /'
	elif [ "$nmiss" = 0 ] && [ -n "$first" ]; then
		echo "note: experiment '$name' matched on run $try; run 1 differed (a busy machine?):"
		printf '%s' "$first" | sed 's/^/  /'
	fi
	echo "ran experiment '$name': $(wc -l <"$d/cmds") commands, $(wc -l <"$d/checks") checks"
done <"$work/order"

if [ -n "$only" ] && [ $ran = 0 ]; then
	echo "FAIL: no experiment named '$only'"
	exit 1
fi
if [ $failed -gt 0 ]; then
	echo "$failed mismatches in $ran experiments of $doc"
	exit 1
fi
if [ $differs -gt 0 ]; then
	echo "SKIP: $differs kernel differences in $ran experiments (see above)"
	exit 77
fi
echo "all $((ran - skipped)) experiments of $doc that ran match ($skipped skipped)"
exit 0
