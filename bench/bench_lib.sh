# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# bench_lib.sh: what the benchmark scripts share (sourced, not run):
# their messages, what they need, their private mounts and their cold
# reads. A script sets BENCH (its name, for messages) and sources this.

bench_say() { echo "$BENCH: $*" >&2; }

# bench_value OPTION ARGC: an option that takes a value has one.
bench_value() {
	[ "$2" -ge 2 ] || { bench_say "$1 wants a value"; exit 2; }
}

# bench_needs WHY TOOL...: root (exit 77 without it, as the suite's
# skips do) and every TOOL, all missing ones named at once with their
# Debian packages.
bench_needs() {
	local why=$1 t missing=() pkgs=()
	shift
	if [ "$(id -u)" != 0 ]; then
		bench_say "needs root ($why)"
		exit 77
	fi
	for t in "$@"; do
		command -v "$t" >/dev/null && continue
		missing+=("$t")
		case $t in
		dd|timeout) pkgs+=(coreutils) ;;
		fincore|mountpoint) pkgs+=(util-linux) ;;
		*) pkgs+=("$t") ;;
		esac
	done
	[ ${#missing[@]} = 0 ] && return
	pkgs=("$(printf '%s\n' "${pkgs[@]}" | sort -u | tr '\n' ' ')")
	bench_say "needs ${missing[*]}: apt-get install ${pkgs[0]% }"
	exit 1
}

# bench_start_work: a private directory ($work) for the mounts, whose
# servers are started with bench_mount; all unmounted, ended and removed
# on every exit.
bench_start_work() {
	work=$(mktemp -d "/tmp/$BENCH.XXXXXX")
	bench_dirs=() bench_pids=()
	trap bench_cleanup EXIT
	trap 'exit 130' INT TERM HUP
}

bench_cleanup() {
	local i
	for i in "${!bench_dirs[@]}"; do
		umount "${bench_dirs[$i]}" 2>/dev/null ||
			umount -l "${bench_dirs[$i]}" 2>/dev/null || true
		kill "${bench_pids[$i]}" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$work"
}

# bench_mount I COMMAND...: runs COMMAND with the mountpoint $work/mI
# appended, in the background (stderr to $work/errI); the mountpoint is
# bench_dirs[I], the server's pid bench_pids[I].
bench_mount() {
	local i=$1 d=$work/m$1
	shift
	mkdir "$d"
	"$@" "$d" 2>"$work/err$i" &
	bench_pids[i]=$! bench_dirs[i]=$d
}

# bench_wait_for I PATH LABEL: up to 10 s for PATH (a file of mount I)
# to appear; else says why LABEL did not mount and exits.
bench_wait_for() {
	for _ in $(seq 100); do
		[ -e "$2" ] && return
		sleep 0.1
	done
	bench_say "$3 did not mount:"
	cat "$work/err$1" >&2
	exit 1
}

# bench_cold FILE: drops FILE's pages (posix_fadvise DONTNEED through dd
# iflag=nocache) until fincore counts none cached.
bench_cold() {
	for _ in $(seq 20); do
		dd if="$1" iflag=nocache count=0 status=none
		[ "$(fincore -n -b -o PAGES "$1" | tr -d ' ')" = 0 ] && return
		sleep 0.2
	done
	bench_say "$1 stays cached"
	exit 1
}
