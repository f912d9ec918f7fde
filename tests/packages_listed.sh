#!/bin/bash
# The packages a test names when it skips ("apt-get install PKG") are
# installed by `bash scripts/test.sh`: each is in scripts/packages.sh's
# build_packages or test_packages, so the README's test command skips
# nothing on a fresh machine. Usage: packages_listed.sh SRCDIR
set -u
src=$1
# shellcheck source=scripts/packages.sh
. "$src/scripts/packages.sh"
listed=" ${build_packages[*]} ${test_packages[*]} "
named=$(grep -rhoE 'apt-get install [a-z0-9][a-z0-9.+-]*( [a-z0-9][a-z0-9.+-]*)*' \
	"$src/tests" "$src/report/tests" | sed 's/^apt-get install //' |
	tr ' ' '\n' | sort -u)
[ -n "$named" ] || { echo "FAIL: no test names a package it needs"; exit 1; }
status=0
for p in $named; do
	case $listed in
	*" $p "*) echo "ok: $p" ;;
	*)
		echo "FAIL: a test skips without $p, which scripts/test.sh" \
			"does not install (scripts/packages.sh: test_packages)"
		status=1
		;;
	esac
done
exit $status
