#!/bin/bash
# A LAVA instance on this one machine, from Debian's packages, without
# systemd: a private PostgreSQL cluster (initdb, pg_ctl), the server
# (gunicorn3 lava_server.wsgi), the scheduler (lava-server manage
# lava-scheduler) and one worker (lava-worker) with two qemu devices.
# Everything it makes is in one folder; `down` stops what `up` started
# (by the pids it wrote) and removes the folder. docs/matrix.md says how
# testfs-matrix uses it and what differs in a real lab.
#
#   scripts/lava-local.sh up      # prints the URL and the token file
#   scripts/lava-local.sh env     # the same, as shell assignments
#   scripts/lava-local.sh down
#
# Environment: TESTFS_LAVA_DIR (default /tmp/testfs-lava), TESTFS_LAVA_PORT
# (the server, 8090), TESTFS_LAVA_PGPORT (PostgreSQL, 55432),
# TESTFS_LAVA_DEVICES (the qemu devices, 2), TESTFS_LAVA_PING (seconds
# between two of the worker's calls to the server, 2). As root (the
# worker runs QEMU, the packages are installed when missing).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${TESTFS_LAVA_DIR:-/tmp/testfs-lava}
port=${TESTFS_LAVA_PORT:-8090}
pgport=${TESTFS_LAVA_PGPORT:-55432}
ndev=${TESTFS_LAVA_DEVICES:-2}
# The worker learns of a job to start, and the server of a job that ended,
# at the worker's next call: lava-worker's default of 20 s made a 20 s job
# take 40 s when it ended just after a call. (Without lava-publisher, as
# here, nothing wakes the worker sooner.)
ping=${TESTFS_LAVA_PING:-2}
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
url=http://127.0.0.1:$port
user=admin

say() { echo "lava-local: $*"; }
die() { echo "lava-local: $*" >&2; exit 1; }

# The server's settings: its database, where the device dictionaries
# are, no e-mail, HTTP (no HTTPS cookies).
server_env() {
	export DATABASE_URL="postgres://lavaserver@127.0.0.1:$pgport/lavaserver"
	export LAVA_SETTINGS_DEVICES_PATH="$dir/devices"
	export LAVA_SETTINGS_HEALTH_CHECKS_PATH="$dir/health-checks"
	# The job logs in the folder too: LAVA's default media folder is
	# shared by every instance on the machine, and a new instance's job
	# N (by date and id) would find an older instance's job N's log.
	export LAVA_SETTINGS_MEDIA_ROOT="$dir/media/"
	export LAVA_YAML_SETTINGS_CSRF_COOKIE_SECURE=false
	export LAVA_YAML_SETTINGS_SESSION_COOKIE_SECURE=false
	export ALLOWED_HOSTS="127.0.0.1,localhost"
}

manage() { server_env; lava-server manage "$@"; }

# The admin user and its token, device type qemu, worker1 and its token,
# the devices qemu-0N tagged page-4k and page-16k (under TCG
# qemu-system-aarch64 runs either page size; testfs-matrix tags its
# arm64 jobs so), all health Good; what exists is kept.
setup_py='
import os
from django.contrib.auth.models import User
from lava_scheduler_app.models import Device, DeviceType, Tag, Worker
from linaro_django_xmlrpc.models import AuthToken
name = os.environ["LAVA_USER"]
u = User.objects.filter(username=name).first()
if u is None:
    u = User.objects.create_user(name, "", name)
    u.is_staff = u.is_superuser = True
    u.save()
secret = open(os.environ["LAVA_TOKEN_FILE"]).read().strip()
AuthToken.objects.get_or_create(user=u, secret=secret,
                                defaults={"description": "testfs-matrix"})
dt = DeviceType.objects.get_or_create(name="qemu")[0]
w = Worker.objects.get_or_create(hostname="worker1")[0]
tags = [Tag.objects.get_or_create(name=t)[0] for t in ("page-4k", "page-16k")]
for i in range(1, int(os.environ["LAVA_NDEV"]) + 1):
    d = Device.objects.get_or_create(
        hostname="qemu-0%d" % i,
        defaults={"device_type": dt, "worker_host": w,
                  "state": Device.STATE_IDLE})[0]
    d.health = Device.HEALTH_GOOD
    d.save()
    d.tags.add(*tags)
os.umask(0o077)
with open(os.environ["LAVA_WORKER_TOKEN"], "w") as f:
    f.write(w.token)
print("set up: user", name, "worker1", Device.objects.count(), "devices")
'


# Starts "$@" in the background (its own session), its pid in $1.pid.
start() {
	local name=$1
	shift
	setsid "$@" > "$dir/$name.out" 2>&1 < /dev/null &
	echo $! > "$dir/$name.pid"
}

# Waits up to $2 s for command $1 (a string) to succeed.
wait_for() {
	local i
	for ((i = 0; i < $2 * 2; i++)); do
		eval "$1" > /dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

# The pids of session $1 (a pid `start` wrote) and of all their
# descendants, whatever their own session: lava-run runs in a process
# group of its own and QEMU (started through pexpect) in a session of its
# own, and neither ends with lava-worker (a worker started again takes
# its running jobs back). The session outlives its leader while a member
# lives, so a job is found after its worker died too.
session_tree() {
	ps -eo pid=,ppid=,sid= | awk -v s="$1" '
		{ pid[NR] = $1; ppid[NR] = $2; if ($3 == s) mine[$1] = 1 }
		END {
			do {
				more = 0
				for (i = 1; i <= NR; i++)
					if (!(pid[i] in mine) && (ppid[i] in mine)) {
						mine[pid[i]] = 1
						more = 1
					}
			} while (more)
			for (p in mine) print p
		}'
}

# Those of $@ still running.
alive() {
	local p
	for p in "$@"; do
		kill -0 "$p" 2> /dev/null && echo "$p"
	done
	return 0
}

# Ends the session of pid file $1 and its descendants: SIGTERM (lava-run
# then ends its QEMU and its job), SIGKILL to what is left after 10 s.
stop_pid() {
	local f=$1 pids left i
	[ -f "$f" ] || return 0
	# shellcheck disable=SC2207
	pids=($(session_tree "$(cat "$f")"))
	if [ ${#pids[@]} -gt 0 ]; then
		kill -TERM "${pids[@]}" 2> /dev/null || true
		for ((i = 0; i < 20; i++)); do
			left=$(alive "${pids[@]}")
			[ -z "$left" ] && break
			sleep 0.5
		done
		# shellcheck disable=SC2086
		[ -z "$left" ] || kill -KILL $left 2> /dev/null || true
	fi
	rm -f "$f"
}

print_env() {
	echo "TESTFS_LAVA_URL=http://$user@127.0.0.1:$port"
	echo "TESTFS_LAVA_TOKEN_FILE=$dir/token"
	# For jobs submitted by hand (testfs-matrix lava-job's job.yaml).
	echo "# lavacli identities add --uri $url/RPC2 --username $user" \
		"--token \"\$(cat $dir/token)\" testfs-local"
}

up() {
	[ "$(id -u)" = 0 ] || die "run as root (the worker boots QEMU)"
	if [ -f "$dir/server.pid" ] && kill -0 "$(cat "$dir/server.pid")" 2> /dev/null; then
		say "already up in $dir"
		print_env
		return 0
	fi
	# shellcheck source=scripts/packages.sh
	. "$here/packages.sh"
	NO_RECOMMENDS=1 install_missing "LAVA" "${lava_server_packages[@]}"
	[ -n "$pgbin" ] || die "PostgreSQL's initdb not found"
	local t0=$SECONDS
	mkdir -p "$dir/devices" "$dir/health-checks" "$dir/worker"
	chmod 755 "$dir"
	install -d -o lavaserver -g lavaserver "$dir/media"

	say "PostgreSQL cluster in $dir/pg, port $pgport"
	if [ ! -d "$dir/pg" ]; then
		install -d -o lavaserver -g lavaserver "$dir/pg"
		runuser -u lavaserver -- "$pgbin/initdb" -D "$dir/pg" -A trust \
			-U lavaserver -E UTF8 > "$dir/initdb.out"
	fi
	# (still running after an `up` that failed later on: kept)
	runuser -u lavaserver -- "$pgbin/pg_ctl" -D "$dir/pg" status \
		> /dev/null 2>&1 ||
		runuser -u lavaserver -- "$pgbin/pg_ctl" -D "$dir/pg" -w -t 60 \
			-l "$dir/pg/postgres.log" \
			-o "-p $pgport -k $dir/pg -c listen_addresses=127.0.0.1" \
			start > /dev/null
	"$pgbin/psql" -h 127.0.0.1 -p "$pgport" -U lavaserver -d postgres -tAc \
		"SELECT 1 FROM pg_database WHERE datname='lavaserver'" | grep -q 1 ||
		"$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U lavaserver lavaserver

	say "the server's database (lava-server manage migrate)"
	manage migrate --noinput > "$dir/migrate.out"
	say "user $user, device type qemu, worker worker1, $ndev qemu devices"
	if [ ! -s "$dir/token" ]; then
		(umask 077 && head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' \
			> "$dir/token")
	fi
	local i
	for ((i = 1; i <= ndev; i++)); do
		echo "{% extends 'qemu.jinja2' %}" > "$dir/devices/qemu-0$i.jinja2"
	done
	# One Django shell for all of it: each `lava-server manage` command
	# starts Django anew (a minute each on a loaded machine).
	LAVA_USER=$user LAVA_TOKEN_FILE=$dir/token LAVA_NDEV=$ndev \
		LAVA_WORKER_TOKEN=$dir/worker.token manage shell -c "$setup_py" \
		> "$dir/setup.out"

	say "server on $url (gunicorn3), scheduler, worker"
	server_env
	start server gunicorn3 lava_server.wsgi --bind "127.0.0.1:$port" \
		--workers 2 --worker-class eventlet --timeout 120
	start scheduler lava-server manage lava-scheduler --level INFO
	wait_for "curl -sf $url/api/v0.2/system/version/" 180 ||
		die "the server did not answer on $url (see $dir/server.out)"
	local wtoken
	wtoken=$(cat "$dir/worker.token")
	start worker lava-worker --name worker1 --url "$url/" \
		--worker-dir "$dir/worker" --level INFO --ping-interval "$ping" \
		${wtoken:+--token "$wtoken"}
	# The worker is online when the server says so.
	wait_for "curl -sf $url/api/v0.2/workers/worker1/ | grep -q '\"state\": *\"Online\"'" 180 ||
		die "worker1 did not come online (see $dir/worker.out)"
	say "up in $((SECONDS - t0)) s"
	print_env
}

down() {
	local m left
	stop_pid "$dir/worker.pid"
	stop_pid "$dir/scheduler.pid"
	stop_pid "$dir/server.pid"
	if [ -d "$dir/pg" ] && [ -n "$pgbin" ]; then
		runuser -u lavaserver -- "$pgbin/pg_ctl" -D "$dir/pg" -m fast \
			-w -t 30 stop > /dev/null 2>&1 ||
			runuser -u lavaserver -- "$pgbin/pg_ctl" -D "$dir/pg" \
				-m immediate -w -t 30 stop > /dev/null 2>&1 || true
	fi
	# Anything mounted in the folder (a job's) goes before the folder:
	# rm -rf would go through a mount.
	awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts |
		sort -r | while read -r m; do
		umount "$m" 2> /dev/null || umount -l "$m"
	done
	left=$(awk -v d="$dir/" 'index($2, d) == 1 { print $2 }' /proc/mounts)
	[ -z "$left" ] || die "still mounted in $dir: $left"
	if [ -f "$dir/pg/postmaster.pid" ] &&
		kill -0 "$(head -1 "$dir/pg/postmaster.pid")" 2> /dev/null; then
		die "PostgreSQL (pid $(head -1 "$dir/pg/postmaster.pid")) did not stop"
	fi
	# Only a folder this script made (its token file or cluster in it).
	if [ -d "$dir" ] && { [ -d "$dir/pg" ] || [ -f "$dir/token" ]; }; then
		rm -rf "$dir"
	fi
	say "down"
}

case ${1:-} in
up) up ;;
down) down ;;
env) print_env ;;
*)
	echo "usage: $0 up|down|env" >&2
	exit 2
	;;
esac
