#!/bin/bash
# Does --threads change what readahead does for one reader? For each
# read_ahead_kb and read size, reads one file cold from start to end with
# dd on testfs --threads 1, 2 and 4 (one mount each, the thread counts
# alternating from run to run) and compares the FUSE_READs the log shows:
# the sequence of (first page, pages, cause), how many, how large, and
# whether every run gave the same sequence as the first --threads 1 run.
# It also prints each mount's median throughput over the runs. The data
# behind the --threads default (docs/design-transport.md).
#
# Usage (as root): scripts/threads-readahead.sh [--runs N] [--size MIB]
#                  [--threads "1 2 4"]
#   --runs N       runs per setting and thread count (1..50, default 5)
#   --size MIB     file size in MiB (1..4096, default 64)
#   --threads LIST the thread counts compared, the first is the reference
#                  (default "1 2 4")
# Environment: BUILDDIR (default build): the testfs of that build.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=5
size=64
threads="1 2 4"
while [ $# -gt 0 ]; do
	case "$1" in
	--runs | --size | --threads)
		if [ $# -lt 2 ]; then
			echo "threads-readahead: $1 needs a value" >&2
			exit 2
		fi
		case "$1" in
		--runs) runs=$2 ;;
		--size) size=$2 ;;
		--threads) threads=$2 ;;
		esac
		shift
		;;
	-h | --help)
		sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "threads-readahead: unknown argument '$1' (try --help)" >&2
		exit 2
		;;
	esac
	shift
done
number() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
if ! number "$runs" 1 50 || ! number "$size" 1 4096; then
	echo "threads-readahead: --runs 1..50, --size 1..4096" >&2
	exit 2
fi
for k in $threads; do
	if ! number "$k" 1 256; then
		echo "threads-readahead: --threads: '$k' is not 1..256" >&2
		exit 2
	fi
done
if [ "$(id -u)" != 0 ]; then
	echo "threads-readahead: needs root (read_ahead_kb, tracing)" >&2
	exit 1
fi
for tool in jq dd; do
	command -v $tool >/dev/null || {
		echo "threads-readahead: needs $tool" >&2
		exit 1
	}
done
testfs=$(realpath "${BUILDDIR:-build}/src/testfs")
work=$(mktemp -d /tmp/testfs-threads-ra.XXXXXX)
mounted=()
cleanup() {
	for m in "${mounted[@]}"; do
		fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "threads-readahead: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r)," \
	"a ${size} MiB stamp file, $runs runs per setting"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| ra KiB | read size | --threads | FUSE_READs | mean KiB | causes |" \
	"runs like the reference | distinct sequences | MB/s median |"
echo "|--:|--:|--:|--:|--:|---|--:|--:|--:|"
for ra in 128 1024; do
	for k in $threads; do
		d=$work/t$k.$ra
		mkdir -p "$d"
		timeout 20 "$testfs" -q --threads "$k" --ra-kb "$ra" \
			--watch-pid $$ --file "f.bin:${size}M:stamp" "$d"
		mounted+=("$d")
	done
	for bs in 4K 1M; do
		ref=""
		declare -A same=() seqs=() mbs=() summary=()
		for r in $(seq "$runs"); do
			order=$threads
			# Alternate: forward in odd runs, backward in even ones.
			[ $((r % 2)) = 0 ] && order=$(echo $threads | tr ' ' '\n' | tac | tr '\n' ' ')
			for k in $order; do
				d=$work/t$k.$ra
				echo drop-cache f.bin >"$d/.testfs/ctl"
				echo clear >"$d/.testfs/ctl"
				t0=$(date +%s%N)
				dd if="$d/f.bin" of=/dev/null bs=$bs status=none
				t1=$(date +%s%N)
				mbs[$k]+="$(((size * 1048576 * 1000) / (t1 - t0))) "
				jq -c 'select(.file == "f.bin") | [.page, .pages, .cause]' \
					<"$d/.testfs/log" >"$work/seq.$k.$r"
				h=$(md5sum <"$work/seq.$k.$r" | cut -c1-12)
				[ -z "$ref" ] && ref=$h
				[ "$h" = "$ref" ] && same[$k]=$((${same[$k]:-0} + 1))
				seqs[$k]+="$h "
				if [ "$r" = 1 ]; then
					summary[$k]=$(jq -s -r '
						"\(length) | \((map(.[1]) | add) * 4 / length | floor) | " +
						(group_by(.[2]) | map("\(.[0][2]) \(length)") | join(", "))' \
						<"$work/seq.$k.$r")
				fi
			done
		done
		for k in $threads; do
			distinct=$(echo ${seqs[$k]} | tr ' ' '\n' | sort -u | wc -l)
			med=$(echo ${mbs[$k]} | tr ' ' '\n' | sort -n |
				awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}')
			echo "| $ra | $bs | $k | ${summary[$k]} | ${same[$k]:-0} of $runs |" \
				"$distinct | $med |"
		done
		unset same seqs mbs summary
	done
done
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "FUSE_READs, mean KiB and causes are of each thread count's first run;"
echo "the reference is the first run of --threads ${threads%% *}."
