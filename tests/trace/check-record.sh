#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest cli.record: `superpass record` leaves no tracefs instance behind.
# SIGINT and SIGTERM end it cleanly; after a SIGKILL its watchdog removes
# the instance; what a recorder killed together with its watchdog left,
# and instances planted under dead or reused PIDs, `record --cleanup` and
# the next `record` remove, while a live owner's instance and anyone else's
# are kept. Needs root and tracefs (mounted here if it is not, and
# unmounted after): without them it is skipped (exit 77).
# usage: check-record.sh SUPERPASS
set -u
sp=$1
. "$(dirname "$0")/../cli-lib.sh"

skip() {
	echo "SKIP: $*"
	exit "${SUPERPASS_SKIP_CODE:-77}"
}

[ "$(id -u)" = 0 ] || skip "not root"
tr='' mounted=''
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
	if [ -d "$d/instances" ]; then
		tr=$d
		break
	fi
done
if [ -z "$tr" ]; then
	grep -qw tracefs /proc/filesystems 2>/dev/null || skip "no tracefs in this kernel"
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || skip "cannot mount tracefs"
	tr=/sys/kernel/tracing mounted=1
fi
inst=$tr/instances

# Whatever fails, nothing of ours stays: recorders and watchdogs started
# here, their instances and the planted ones, the mount.
pids='' planted=''
rm_instance() {
	[ -d "$1" ] || return 0
	echo 0 >"$1/tracing_on" 2>/dev/null
	echo 0 >"$1/events/enable" 2>/dev/null
	rmdir "$1" 2>/dev/null
}
cleanup() {
	for p in $pids; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in $pids; do
		for d in "$inst/superpass-record-$p" "$inst/superpass-record-$p-"*; do
			rm_instance "$d"
		done
	done
	for d in $planted; do
		rm_instance "$inst/$d"
	done
	[ -z "$mounted" ] || umount /sys/kernel/tracing 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The instance directories named after recorder PID, one a line.
instances_of() {
	for d in "$inst/superpass-record-$1" "$inst/superpass-record-$1-"*; do
		[ -d "$d" ] && echo "$d"
	done
	return 0
}

# PID's start time, /proc/PID/stat field 22 (the 20th after the comm).
start_of() {
	sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f20
}

# Whether PID is gone (or a zombie: dead, its parent not reaping yet).
gone() {
	[ ! -e "/proc/$1/stat" ] && return 0
	case $(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) in
	Z | X | "") return 0 ;;
	esac
	return 1
}

# The children of PID (the watchdog, for a recorder with no command).
children_of() {
	parent=$1 rp=')'
	for s in /proc/[0-9]*/stat; do
		l=$(cat "$s" 2>/dev/null) || continue
		# after the comm: state, ppid, ...
		set -- ${l##*"$rp"}
		if [ "${2:-}" = "$parent" ]; then
			s=${s#/proc/}
			echo "${s%/stat}"
		fi
	done
	return 0
}

# wait_until TRIES CMD...: polls CMD every 0.1 s, at most TRIES times.
wait_until() {
	n=$1
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	"$@"
}

no_instance_of() {
	[ -z "$(instances_of "$1")" ]
}

# start_recorder NAME: a recorder for 10 minutes in the background ($rec),
# its instance ($rec_inst) once it records (the events on, tracing on).
# Reading the instance's files holds it busy: never while it is removed.
recording() {
	rec_inst=$(instances_of "$rec" | head -n 1)
	[ -n "$rec_inst" ] &&
		[ "$(cat "$rec_inst/events/sched/sched_switch/enable" 2>/dev/null)" = 1 ] &&
		[ "$(cat "$rec_inst/tracing_on" 2>/dev/null)" = 1 ]
}
start_recorder() {
	(exec "$sp" record -q --buffer-kb 64 --duration 600 -o "$tmp/$1.trace") 2>"$tmp/$1.err" &
	rec=$!
	pids="$pids $rec"
	if ! wait_until 300 recording; then
		cli_fail "$1: the recorder (pid $rec) did not start recording"
		sed 's/^/    /' "$tmp/$1.err"
		return 1
	fi
	echo "ok: $1: recording in $rec_inst"
}

# 1. SIGINT and SIGTERM: the recorder removes its instance itself and exits 0.
for sig in INT TERM; do
	start_recorder "sig$sig" || continue
	kill -"$sig" "$rec"
	wait "$rec"
	rc=$?
	[ "$rc" = 0 ] || cli_fail "SIG$sig: the recorder exited with $rc, want 0"
	if no_instance_of "$rec"; then
		echo "ok: SIG$sig: no instance left"
	else
		cli_fail "SIG$sig: left $(instances_of "$rec")"
	fi
done

# 2. SIGKILL: the watchdog removes the instance, and says so.
if start_recorder sigkill; then
	kill -KILL "$rec"
	wait "$rec" 2>/dev/null
	if wait_until 300 no_instance_of "$rec"; then
		echo "ok: SIGKILL: the instance was removed"
		wait_until 100 grep -q "watchdog removed" "$tmp/sigkill.err" ||
			cli_fail "SIGKILL: the watchdog did not say what it removed: $(cat "$tmp/sigkill.err")"
	else
		cli_fail "SIGKILL: left $(instances_of "$rec") tracing"
	fi
fi

# 3. The recorder and its watchdog both killed (the watchdog stopped first,
# so that it cannot act): the instance stays, and record --cleanup removes
# it, saying which; then there is nothing to clean.
if start_recorder both; then
	wd=$(children_of "$rec")
	if [ -z "$wd" ]; then
		cli_fail "both: the recorder (pid $rec) has no watchdog child"
	else
		pids="$pids $wd"
		kill -STOP $wd
		kill -KILL "$rec"
		wait "$rec" 2>/dev/null
		kill -KILL $wd
		for w in $wd; do
			wait_until 300 gone "$w" || cli_fail "both: the watchdog $w did not die"
		done
		left=$(instances_of "$rec")
		if [ -z "$left" ]; then
			cli_fail "both: the instance was gone before any cleanup"
		else
			cli_expect_rc 0 "both: record --cleanup" "$sp" record --cleanup &&
				{ grep -qF "/instances/${left##*/} left" "$tmp/out" ||
					cli_fail "both: --cleanup did not name ${left##*/}: $(cat "$tmp/out")"; }
			no_instance_of "$rec" || cli_fail "both: --cleanup left $left"
		fi
	fi
fi

# 4. Planted instances: under a dead PID (an older recorder's name, with
# events on), under a live PID that is no superpass (older name), under a
# live PID with another start time (reused); removed by --cleanup. Kept: a
# live PID with its own start time (a live recorder's) and a name not ours.
sh -c 'exit 0' &
dead=$!
wait "$dead"
self_start=$(start_of $$)
stale="superpass-record-$dead superpass-record-$$ superpass-record-$$-$((self_start + 1))"
kept="superpass-record-$$-$self_start superpass-test-$$"
planted="$stale $kept"
for d in $planted; do
	mkdir "$inst/$d" || cli_die "cannot plant $inst/$d"
done
echo 1 >"$inst/superpass-record-$dead/events/sched/sched_switch/enable" 2>/dev/null
if cli_expect_rc 0 "planted: record --cleanup" "$sp" record --cleanup; then
	for d in $stale; do
		[ -d "$inst/$d" ] && cli_fail "planted: --cleanup left $d"
		grep -qF "/instances/$d left" "$tmp/out" ||
			cli_fail "planted: --cleanup did not name $d"
	done
	for d in $kept; do
		[ -d "$inst/$d" ] || cli_fail "planted: --cleanup removed $d"
	done
fi
# (the kept ones are not listed, and neither are those removed above)
cli_expect_output 0 "nothing to clean" "$sp" record --cleanup

# 5. The next record removes a dead recorder's instance before it starts.
[ -d "$inst/superpass-record-$dead" ] || mkdir "$inst/superpass-record-$dead" ||
	cli_die "cannot plant superpass-record-$dead"
if cli_expect_rc 0 "next record" "$sp" record -q --buffer-kb 64 --duration 0.2 -o "$tmp/next.trace"; then
	[ -d "$inst/superpass-record-$dead" ] && cli_fail "next record: left superpass-record-$dead"
	cli_expect_err "superpass-record-$dead" "next record: names what it removed"
fi

# 6. Usage.
cli_expect_output 2 "takes no command" "$sp" record --cleanup -- true
cli_expect_output 0 "--cleanup" "$sp" record --help
cli_done cli.record
