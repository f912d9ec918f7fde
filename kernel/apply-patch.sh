#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Apply one patch for kernel/build.sh and say how it went, hunk by hunk.
#
#   kernel/apply-patch.sh DIR PATCH LABEL FUZZ
#
# Applies PATCH (-p1) to the files in DIR (build.sh's staging copy, never a
# user's tree) with `patch --fuzz FUZZ`. Every hunk that needed an offset or
# fuzz is reported on stderr with its file and its "@@" header; a hunk that
# fails is reported the same way with the first lines of its reject, and
# whether a larger --fuzz would apply it. Exit 0 applied, 1 not.
set -uo pipefail

[ $# = 4 ] || {
	echo "usage: kernel/apply-patch.sh DIR PATCH LABEL FUZZ" >&2
	exit 2
}
dir=$1 p=$2 label=$3 fuzz=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/testfs-apply.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
cp -a "$dir/." "$work/before"

# "FILE<TAB>N<TAB>HEADER<TAB>LINE" for every hunk of the patch, FILE as -p1
# names it, LINE its line in the patch
hunks() {
	awk '
	function strip(s) {
		sub(/\t.*/, "", s)
		sub(/^[^\/]*\//, "", s)
		return s
	}
	/^--- / { old = substr($0, 5) }
	/^\+\+\+ / {
		f = substr($0, 5)
		if (f ~ /^\/dev\/null/) f = old
		f = strip(f); n = 0
	}
	/^@@ -/ { n++; print f "\t" n "\t" $0 "\t" NR }
	' "$p"
}

header() {
	hunks | awk -F'\t' -v f="$1" -v n="$2" '$1 == f && $2 == n { print $3 }'
}

# "FILE: hunk #N HEADER" of the first hunk at or after line $1 of the
# patch (patch names a missing file by the input line of its first hunk)
hunk_at() {
	hunks | awk -F'\t' -v at="$1" '$4 >= at { print $1 ": hunk #" $2 " " $3; exit }'
}

out=$(patch -d "$dir" -p1 -N --no-backup-if-mismatch -F "$fuzz" \
	-r "$work/rej" <"$p" 2>&1)
rc=$?
file=
failed=0
while IFS= read -r line; do
	case $line in
	"patching file "*)
		file=${line#patching file }
		file=${file#\'}
		file=${file%\'}
		;;
	"Hunk #"*" succeeded at "*)
		n=${line#Hunk #}
		n=${n%% *}
		how=${line#* succeeded at }
		how=${how%.}
		echo "$label: $file: hunk #$n $(header "$file" "$n"): applied at line $how" >&2
		;;
	"Hunk #"*" FAILED at "*)
		n=${line#Hunk #}
		n=${n%% *}
		at=${line#* FAILED at }
		echo "$label: $file: hunk #$n $(header "$file" "$n") FAILED (expected at line ${at%.})" >&2
		failed=$((failed + 1))
		;;
	*"Reversed (or previously applied) patch detected"*)
		echo "$label: $file: already applied in this source (or reversed)" >&2
		failed=$((failed + 1))
		;;
	*"can't find file to patch at input line "*)
		at=${line##*input line }
		echo "$label: $(hunk_at "${at%%[!0-9]*}"): its file is not in this source" >&2
		failed=$((failed + 1))
		;;
	*"can't find file to patch"* | *"No such file"*)
		echo "$label: a file it changes is not in this source: $line" >&2
		failed=$((failed + 1))
		;;
	esac
done <<<"$out"
if [ $rc != 0 ]; then
	if [ -s "$work/rej" ]; then
		echo "$label: the reject begins:" >&2
		grep -v '^\(---\|+++\|\*\*\*\) ' "$work/rej" | head -n 8 |
			sed 's/^/    /' >&2
	elif [ $failed = 0 ]; then
		echo "$out" | tail -n 8 | sed "s/^/$label: /" >&2
	fi
	# Would more fuzz do? (tried on the copy taken before)
	for f in $(seq $((fuzz + 1)) 3); do
		if patch -d "$work/before" -p1 -N --dry-run -F "$f" \
			<"$p" >/dev/null 2>&1; then
			echo "$label: applies with --fuzz $f (check the hunks it moves)" >&2
			break
		fi
	done
	exit 1
fi
exit 0
