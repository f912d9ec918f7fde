#!/bin/sh
# Renders one man page the way man(1) shows it and fails on any warning:
# a page that renders with warnings shows something other than what was
# written. Usage: check-page.sh PAGE
set -u
page=$1
[ -r "$page" ] || { echo "check-page: cannot read $page" >&2; exit 1; }
if ! command -v man >/dev/null 2>&1; then
	echo "check-page: man(1) is not installed (man-db, groff-base;" \
		"scripts/setup.sh installs them)" >&2
	# Skipped, as the FUSE tests skip without FUSE; CI must not skip.
	[ "${CI:-}" = true ] && exit 1
	exit 77
fi
warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
	man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
status=$?
if [ -n "$warnings" ]; then
	printf '%s: warnings:\n%s\n' "$page" "$warnings" >&2
	exit 1
fi
if [ $status -ne 0 ]; then
	echo "$page: man exited with status $status" >&2
	exit 1
fi
exit 0
