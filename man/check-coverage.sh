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
trap 'rm -f "$tmp"' EXIT
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
*)
	echo "usage: check-coverage.sh options PROGRAM PAGE | names PAGE HEADER... | config-keys PROGRAM PAGE" >&2
	exit 2
	;;
esac
exit $missing
