#!/bin/sh
# Fails when a man page leaves out something the code offers, so the
# pages stay true as options and functions are added.
#   check-coverage.sh options PROGRAM PAGE   every --option of PROGRAM --help
#   check-coverage.sh names PAGE HEADER...   every testfs_* function or macro
#                                            the headers declare
#   check-coverage.sh config-keys PROGRAM PAGE
#                                            every config file key of PROGRAM
#                                            --help ("keys: a, b, ...;") in
#                                            the page's CONFIGURATION FILE
#   check-coverage.sh defaults PROGRAM PAGE...
#                                            every "--opt ... (N by default)"
#                                            of the pages is PROGRAM --help's
#                                            "Default N" of --opt
set -u
mode=$1
shift
missing=0

# The page's text with roff's \- turned back into -.
page_text() {
	sed 's/\\-/-/g' "$1"
}

check() { # PAGE-TEXT-FILE WORD
	grep -qE -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|\$)" "$1" && return 0
	echo "missing from the page: $2" >&2
	missing=1
}

tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp" "$tmp.res"' EXIT
case $mode in
options)
	prog=$1 page=$2
	page_text "$page" >"$tmp"
	help=$("$prog" --help) || { echo "$prog --help failed" >&2; exit 1; }
	for opt in $(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z0-9-]*' |
		sort -u); do
		check "$tmp" "$opt"
	done
	;;
names)
	page=$1
	shift
	page_text "$page" >"$tmp"
	# Functions and function-like macros; names ending in _ are private.
	for name in $(grep -ohE '\btestfs_[a-z0-9_]*[a-z0-9] *\(' "$@" |
		tr -d ' (' | sort -u); do
		check "$tmp" "$name"
	done
	;;
config-keys)
	prog=$1 page=$2
	# The section only: the keys are words found elsewhere too.
	page_text "$page" |
		sed -n '/^\.SH "*CONFIGURATION FILE/,/^\.SH /p' >"$tmp"
	help=$("$prog" --help) || { echo "$prog --help failed" >&2; exit 1; }
	keys=$(printf '%s\n' "$help" | tr -s ' \n' '  ' |
		sed -n 's/.*(keys: \([^;]*\);.*/\1/p' | tr -d ',')
	[ -n "$keys" ] || { echo "no 'keys: ...;' in $prog --help" >&2; exit 1; }
	for key in $keys; do
		check "$tmp" "$key"
	done
	;;
defaults)
	prog=$1
	shift
	help=$("$prog" --help) || { echo "$prog --help failed" >&2; exit 1; }
	# OPTION TAB DEFAULT of --help: the first "default N" of its entry.
	printf '%s\n' "$help" | awk '
	/^ +(-[a-zA-Z], )?--[a-z]/ {
		opt = $0; sub(/^ +(-[a-zA-Z], )?/, "", opt); sub(/[ =].*/, "", opt)
		done = 0
	}
	opt != "" && !done && match($0, /[Dd]efault:? [0-9]+/) {
		v = substr($0, RSTART, RLENGTH); sub(/.* /, "", v)
		print opt "\t" v; done = 1
	}' >"$tmp"
	# The pages' sentences, roff macros and line breaks out.
	: >"$tmp.res"
	for page in "$@"; do
		page_text "$page" | sed -E 's/^\.[A-Z]+ ?//' | tr '\n' ' ' |
			sed -E 's/ +/ /g; s/\( /(/g; s/ ,/,/g' |
			grep -oE -- '--[a-z][a-z0-9-]*[^().]{0,40}[(,] ?[0-9][0-9A-Za-z]* by default' |
			while read -r said; do
				opt=${said%%[ ,(]*}
				n=${said% by default}
				n=${n##*[ (,]}
				want=$(awk -F '\t' -v o="$opt" \
					'$1 == o { print $2 }' "$tmp")
				if [ "$n" != "$want" ]; then
					echo "$page: '$said', but $opt's default" \
						"is ${want:-not in --help}" >&2
					echo bad
				else
					echo ok
				fi
			done >>"$tmp.res"
	done
	grep -q bad "$tmp.res" && missing=1
	grep -q ok "$tmp.res" || {
		echo "no '--option ... N by default' in $*" >&2
		missing=1
	}
	;;
*)
	echo "usage: check-coverage.sh options PROGRAM PAGE | names PAGE HEADER... | config-keys PROGRAM PAGE | defaults PROGRAM PAGE..." >&2
	exit 2
	;;
esac
exit $missing
