#!/bin/sh
# testfs-matrix's runner: runs one matrix command (scenario, touch, suite)
# on the kernel it runs on and prints its results on stdout between frame
# lines, base64-encoded, so a serial console can carry them intact:
#
#	@@testfs-matrix begin NAME
#	<base64 lines>
#	@@testfs-matrix end NAME BYTES
#
# and "@@testfs-matrix progress TEXT" lines. testfs-matrix runs it on the
# host (bash or dash) and inside each guest (busybox sh).
#
# Environment: TESTFS_BIN, MATRIX_TOUCH, MATRIX_SCENARIO (the daemon,
# testfs-touch, testfs-scenario), MATRIX_TESTS (the folder of the ra_*
# suite binaries; empty: none), MATRIX_WORK (a scratch folder it fills).
# Usage: run.sh scenario NAME [PARAM=VALUE...]
#        run.sh touch FIRST COUNT [--exec] [--ra-kb N]
#        run.sh suite [TEST...]

daemon=${TESTFS_BIN:?TESTFS_BIN not set}
touch=${MATRIX_TOUCH:?MATRIX_TOUCH not set}
scenario=${MATRIX_SCENARIO:?MATRIX_SCENARIO not set}
work=${MATRIX_WORK:?MATRIX_WORK not set}
export TESTFS_BIN
# An emulated guest on a loaded host starts the daemon with tracing in
# more than libtestfs's 10 s (the whole suite failed so at a load of 40)
export TESTFS_TIMEOUT_MS=${TESTFS_TIMEOUT_MS:-60000}

frame() {
	echo "@@testfs-matrix begin $1"
	base64 < "$2"
	echo "@@testfs-matrix end $1 $(wc -c < "$2")"
}

frame_text() {
	printf '%s' "$2" > "$work/.text"
	frame "$1" "$work/.text"
}

progress() {
	echo "@@testfs-matrix progress $*"
}

# A plain result line per test case, beside the frames, for a CI engine
# that reads the console without decoding frames (a LAVA monitors test;
# matrix/lava.c writes its pattern):
#	testfs-result: name=CASE result=pass|fail|skip measurement=N units=U
# (N: the kernel policy differences of a suite test, the exit status of a
# scenario or touch). CASE has no spaces.
result_line() {
	echo "testfs-result: name=$1 result=$2 measurement=$3 units=$4"
}

# The result lines of suite binary $1 from its TAP ($2) and verbose log
# ($3): BINARY.SUITE.TEST, with the [WARN] lines (policy differences)
# of each test counted.
suite_results() {
	awk -v bin="$1" -v rc="$4" '
	FILENAME != tap && /^\[RUN \] / { cur = substr($0, 8); next }
	FILENAME != tap && /^\[WARN\] / { if (cur != "") warn[cur]++; next }
	FILENAME == tap && /^(not )?ok - / {
		nok = /^not ok/
		line = $0
		sub(/^(not )?ok - /, "", line)
		split(line, f, " ")
		name = f[1]
		res = nok ? "fail" : index($0, "# SKIP") ? "skip" : "pass"
		n = warn[name] + 0
		gsub(/::/, ".", name)
		printf "testfs-result: name=%s.%s result=%s measurement=%d units=policy_differences\n", bin, name, res, n
		seen++
	}
	END {
		if (!seen && rc != 0)
			printf "testfs-result: name=%s result=fail measurement=%d units=exit_status\n", bin, rc
	}' tap="$2" "$3" "$2"
}

# What the running kernel offers testfs, as one JSON object.
caps() {
	t=/sys/kernel/tracing
	[ -d $t/events ] || t=/sys/kernel/debug/tracing
	fuse=missing
	[ -c /dev/fuse ] && fuse=built-in
	[ -c /dev/fuse ] && [ -d /sys/module/fuse/sections ] && fuse=module
	ra=false
	[ -d $t/events/readahead/page_cache_ra_unbounded ] && ra=true
	fm=false
	[ -d $t/events/filemap/mm_filemap_fault ] && fm=true
	cs=false
	# (grep on /proc/kallsyms takes seconds in an emulated guest)
	[ -d $t/events/syscalls/sys_enter_cachestat ] && cs=true
	printf '{"release":"%s","fuse":"%s","readahead_events":%s,' \
		"$(uname -r)" $fuse $ra
	printf '"filemap_events":%s,"cachestat":%s}' $fm $cs
}

run_scenario() {
	progress "scenario $*"
	"$scenario" run "$@" --json --html "$work/page.html" \
		> "$work/result.json" 2> "$work/stderr"
	rc=$?
	frame result "$work/result.json"
	# For testfs-matrix --html: only the page's data (its #data line; the
	# page's script and styles are the host's own).
	if [ -f "$work/page.html" ]; then
		sed -n 's/^<script type="application\/json" id="data">\(.*\)<\/script>$/\1/p' \
			"$work/page.html" > "$work/page.json"
		frame page "$work/page.json"
	fi
	tail -c 4000 "$work/stderr" > "$work/stderr.tail"
	frame stderr "$work/stderr.tail"
	frame_text status "$rc"
	[ "$rc" = 0 ] && r=pass || r=fail
	result_line "scenario.$1" $r "$rc" exit_status
}

run_touch() {
	first=$1 count=$2
	shift 2
	exec_opt= ra_opt=
	while [ $# -gt 0 ]; do
		case $1 in
		--exec) exec_opt=--exec ;;
		--ra-kb) ra_opt="--ra-kb $2"; shift ;;
		esac
		shift
	done
	mnt="$work/mnt"
	mkdir -p "$mnt"
	progress "touch $first $count $exec_opt $ra_opt"
	# shellcheck disable=SC2086
	"$daemon" -f --file touch.bin:256M $ra_opt "$mnt" \
		> "$work/daemon.log" 2>&1 &
	pid=$!
	i=0
	while [ ! -f "$mnt/.testfs/config" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	"$touch" $exec_opt "$mnt/touch.bin" "$first" "$count" \
		> "$work/touch.txt" 2>&1
	rc=$?
	cat "$mnt/.testfs/config" > "$work/config.json" 2>/dev/null
	# For testfs-matrix --html: the reads and accesses, with causes.
	cat "$mnt/.testfs/log" > "$work/log.jsonl" 2>/dev/null
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	umount "$mnt" 2>/dev/null
	frame result "$work/touch.txt"
	frame config "$work/config.json"
	frame testfs-log "$work/log.jsonl"
	tail -c 4000 "$work/daemon.log" > "$work/stderr.tail"
	frame stderr "$work/stderr.tail"
	frame_text status "$rc"
	[ "$rc" = 0 ] && r=pass || r=fail
	result_line "touch.$first.$count" $r "$rc" exit_status
}

# A suite binary's kernel requirement, when it has one: the reason to
# skip it on a kernel that lacks it.
requirement() {
	case $1 in
	ra_causes)
		grep -q '"readahead_events":true' "$work/caps.json" ||
			echo "needs the readahead:* tracepoints, which this kernel lacks"
		;;
	ra_page_age)
		# Ages end at accesses: faults and lookups come from filemap:*.
		grep -q '"filemap_events":true' "$work/caps.json" ||
			echo "needs the filemap:* tracepoints (accesses), which this kernel lacks"
		;;
	esac
}

# Whether test binary $1 is to run: every one, or those named.
wanted() {
	[ -z "$suite_only" ] && return 0
	case " $suite_only " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

run_suite() {
	# Arguments without '/' name test binaries; one with '/' is a
	# Criterion pattern (SUITE/TEST glob): only those tests run (the
	# others are left out of the results, not reported skipped).
	suite_only=
	filter=
	for a in "$@"; do
		case $a in
		*/*) filter=--filter=$a ;;
		*) suite_only="$suite_only $a" ;;
		esac
	done
	if [ -z "$MATRIX_TESTS" ] || [ ! -d "$MATRIX_TESTS" ]; then
		frame_text error "the suite's test binaries were not found"
		frame_text status 2
		return
	fi
	for t in "$MATRIX_TESTS"/ra_*; do
		[ -f "$t" ] && [ -x "$t" ] || continue
		n=${t##*/}
		wanted "$n" || continue
		why=$(requirement "$n")
		if [ -n "$why" ]; then
			progress "$n skipped: $why"
			frame_text "skip:$n" "$why"
			result_line "$n" skip 0 policy_differences
			continue
		fi
		progress "$n"
		TESTFS_POLICY=warn timeout 600 "$t" --jobs=1 --verbose ${filter:+"$filter"} \
			--tap="$work/$n.tap" > "$work/$n.out" 2>&1
		rc=$?
		[ -f "$work/$n.tap" ] || : > "$work/$n.tap"
		# Criterion reports the tests a pattern left out as skipped
		[ -z "$filter" ] || sed -i '/# SKIP test was skipped$/d' "$work/$n.tap"
		# ... and a binary with none of them is left out
		if [ -n "$filter" ] && [ $rc = 0 ] &&
			! grep -q '^\(not \)\?ok - ' "$work/$n.tap"; then
			continue
		fi
		frame "tap:$n" "$work/$n.tap"
		frame "log:$n" "$work/$n.out"
		frame_text "rc:$n" "$rc"
		suite_results "$n" "$work/$n.tap" "$work/$n.out" "$rc"
	done
	frame_text status 0
}

mkdir -p "$work"
printf '%s\n' "$@" > "$work/command"
frame command "$work/command"
caps > "$work/caps.json"
frame caps "$work/caps.json"
cmd=$1
shift
case $cmd in
scenario) run_scenario "$@" ;;
touch) run_touch "$@" ;;
suite) run_suite "$@" ;;
*) frame_text error "unknown command $cmd"; frame_text status 2 ;;
esac
echo "@@testfs-matrix done"
