#!/bin/sh
# Bad command lines of the benchmark programs: each gets a message on
# stderr and exit status 2, quickly; --help exits 0. The mountpoint does
# not exist, so a command line taken by mistake fails without a mount.
#   bench_args.sh MINIMAL_SERVER CONCURRENCY COLD_READERS_SH
set -u
minimal=$1
concurrency=$2
cold_readers=$3
failed=0
mp=/nonexistent/mnt

expect() { # STATUS PROGRAM ARGS...
	want=$1
	shift
	err=$(timeout 10 "$@" 2>&1 >/dev/null)
	got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: $* exited $got, expected $want" >&2
		failed=1
	elif [ "$want" = 2 ] && [ -z "$err" ]; then
		echo "FAIL: $* gave no message" >&2
		failed=1
	fi
}

expect 0 "$minimal" --help
for args in "" "--size" "--size 0 $mp" "--size 1X $mp" \
	"--size 1M --threads 0 $mp" "--size 1M --threads 257 $mp" \
	"--size 1M --threads x $mp" "--size 1M --threads $mp" \
	"--size 1M --fill $mp" "--size 1M --fill copy $mp" \
	"--size 1M --ready-fd 99999 $mp" "--size 1M --bogus $mp"; do
	# shellcheck disable=SC2086 # word splitting is the point
	expect 2 "$minimal" $args
done

expect 0 "$concurrency" --help
for args in "--rounds" "--rounds 0" "--rounds 32" "--rounds x" \
	"--size 15" "--size 4097" "--threads 1" "--threads 257" \
	"--pattern" "--pattern ones" "--daemon-arg" \
	"$(for a in a b c d e f g h i; do printf -- '--daemon-arg %s ' $a; done)" \
	"--bogus" "extra"; do
	# shellcheck disable=SC2086
	expect 2 "$concurrency" $args
done

expect 0 bash "$cold_readers" --help
for args in "--rounds" "--rounds 0" "--rounds 100" "--rounds x" \
	"--size 8" "--size 18" "--size 99999999999" "--ra-kb 2" \
	"--threads 1" "--threads 257" "--bogus" "extra"; do
	# shellcheck disable=SC2086
	expect 2 bash "$cold_readers" $args
done
exit $failed
