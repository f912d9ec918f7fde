# shellcheck shell=bash
# Sourced by scripts/valgrind-daemon.sh and scripts/valgrind-sigterm.sh,
# not run: one SIGTERM sent to a daemon while a client keeps it busy,
# and the wait for it to end.

# sigterm_busy MNT PID PAUSE: a client writes "mark busy" to MNT's
# control file in a loop; PAUSE seconds later daemon PID gets one
# SIGTERM, then the client is stopped.
sigterm_busy() {
	local mnt=$1 pid=$2 busy
	( while :; do { echo "mark busy" > "$mnt/.testfs/ctl"; } 2>/dev/null || exit 0; done ) &
	busy=$!
	sleep "$3"
	kill -TERM "$pid"
	kill "$busy" 2>/dev/null || true
	wait "$busy" 2>/dev/null || true
}

# ended_within PID TENTHS: waits up to TENTHS tenths of a second for PID
# to end (a hang guard, not a time bound); false if it still runs.
ended_within() {
	for _ in $(seq "$2"); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	! kill -0 "$1" 2>/dev/null
}
