#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of the superpass QEMU test guest (busybox). Runs the workload
# without and with superpass.ko for each scenario, checks the kernel log,
# prints "SPT ..." lines on the serial console and powers off. The host
# script (run-qemu-test.sh) decides pass or fail from those lines.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
SECS=$(sed -n 's/.*sp_seconds=\([0-9]*\).*/\1/p' /proc/cmdline)
[ -n "$SECS" ] || SECS=6
# The mmap_lock scenario the host chose for this kernel (run-qemu-test.sh:
# mmap up to 6.3, populate from 6.4 where faults take per-VMA locks).
MMSC=$(sed -n 's/.*sp_mm=\([a-z]*\).*/\1/p' /proc/cmdline)
[ -n "$MMSC" ] || MMSC=mmap
# The scenarios to run (run-qemu-test.sh --scenarios; default all four).
SCENS=$(sed -n 's/.*sp_scen=\([a-z,]*\).*/\1/p' /proc/cmdline | tr , ' ')
[ -n "$SCENS" ] || SCENS="inode $MMSC fpos futex"
# "go": the futex scenario with Go's sync.Mutex (/spgo), when the host
# had a Go toolchain to build it (run-qemu-test.sh).
[ -z "$(sed -n 's/.*sp_scen=\([a-z,]*\).*/\1/p' /proc/cmdline)" ] && [ -x /spgo ] && SCENS="$SCENS go"
# The program of a scenario.
wl() { if [ "$1" = go ]; then echo /spgo; else echo /spw; fi; }
# sp_trace=MS (run-qemu-test.sh --trace-long MS): the module runs record
# sched_switch, sched_waking and lock contention in ftrace; the first
# critical operation over MS ms stops it, and the trace of that operation
# is printed ("SPT SCEN trace ...").
TRACE=$(sed -n 's/.*sp_trace=\([0-9]*\).*/\1/p' /proc/cmdline)
T=/sys/kernel/tracing
if [ -n "$TRACE" ]; then
	mount -t tracefs nodev $T
	echo 0 > $T/tracing_on
	echo mono > $T/trace_clock
	echo 8192 > $T/buffer_size_kb
	for e in sched/sched_switch sched/sched_waking lock/contention_begin lock/contention_end; do
		echo 1 > $T/events/$e/enable
	done
	# Entry to the rwsem slow paths: a writer spins on the owner there
	# before contention_begin fires. Kept where the symbol exists.
	for f in rwsem_down_write_slowpath rwsem_down_read_slowpath; do
		echo "p:sp_$f $f" >> $T/kprobe_events 2>/dev/null && echo 1 > $T/events/kprobes/sp_$f/enable
	done
fi
# sp_record=1 (run-qemu-test.sh --record-base DIR): after each scenario's
# base run, a second base run ("traced") under `superpass record` (the
# host's command: mono clock, sched_switch/waking/wakeup_new/fork/exit,
# task_rename, futex and lock:contention_begin/end, streamed from
# trace_pipe into a tmpfs file, so no buffer has to hold the whole run).
# At the end the traces go, as one tar, to the first virtio disk: the host
# reads them unmangled there, not through the console.
RECORD=$(sed -n 's/.*sp_record=\([0-9]*\).*/\1/p' /proc/cmdline)
if [ -n "$RECORD" ]; then
	mkdir -p /tmp/rec
	# virtio_blk and what it needs (run-qemu-test.sh copies them, in
	# load order, when the kernel has them as modules).
	[ -r /mods/order ] && while read -r m; do insmod /mods/$m 2>/dev/null; done < /mods/order
fi
record_base() { # scenario
	[ -n "$RECORD" ] || return 0
	echo "SPT phase $1 traced"
	/usr/bin/superpass record -q -o /tmp/rec/base-$1.trace -- $(wl $1) --scenario $1 --seconds $SECS |
		sed "s/^/SPT $1 traced /"
	echo "SPT $1 traced_bytes $(wc -c < /tmp/rec/base-$1.trace)"
}
record_out() {
	[ -n "$RECORD" ] || return 0
	d=""
	for i in 1 2 3 4 5; do
		for c in /dev/vda /dev/vdb; do [ -b $c ] && { d=$c; break; }; done
		[ -n "$d" ] && break
		sleep 1
	done
	[ -n "$d" ] || { check record_disk 0 "no virtio disk (/dev/vda) for the traces"; return 0; }
	(cd /tmp && tar -cf $d rec) && sync && ok=1 || ok=0
	check record_disk $ok "$d $(du -sk /tmp/rec | cut -f1) KiB"
}
trace_args() { [ -n "$TRACE" ] && { echo > $T/trace; echo 1 > $T/tracing_on; echo "--trace-long $TRACE"; }; }
# The trace from 500 ms before the long operation to its end.
trace_dump() { # scenario
	[ -n "$TRACE" ] || return 0
	echo 0 > $T/tracing_on
	cat $T/trace > /tmp/trace.txt
	m=$(grep -m1 SPLONG /tmp/trace.txt)
	[ -n "$m" ] || { echo "SPT $1 trace none"; return 0; }
	echo "SPT $1 trace marker ${m#*SPLONG }"
	s=$(echo "${m#*SPLONG }" | awk '{ print $4 - 0.500 }')
	e=$(echo "${m#*SPLONG }" | awk '{ print $6 }')
	awk -v s="$s" -v e="$e" '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; if (t >= s && t <= e) print; break } }' /tmp/trace.txt |
		sed "s/^/SPT $1 trace /"
}
echo "SPT boot ok kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"

check() { # name ok(0/1) detail
	if [ "$2" = 1 ]; then echo "SPT_CHECK $1 PASS $3"; else echo "SPT_CHECK $1 FAIL $3"; fi
}

/spw --micro | sed "s/^/SPT micro base /"

# Probe cost per contention event (sp_probe_cost.ko: two kthreads on one
# CPU taking turns on a mutex, then an rwsem): without superpass.ko, with
# it loaded and nothing marked, and with both kthreads marked critical.
# Three runs of each; the host prints the figures.
PC_ITERS=$(sed -n 's/.*sp_pc_iters=\([0-9]*\).*/\1/p' /proc/cmdline)
[ -n "$PC_ITERS" ] || PC_ITERS=2000
pcost() { # mode
	for kind in mutex rwsem; do
		for r in 1 2 3; do
			echo "$kind $PC_ITERS" > /proc/sp_probe_cost &&
				sed -n "s/^kind /SPT pcost $1 /p" /proc/sp_probe_cost
		done
	done
}
if insmod /sp_probe_cost.ko; then ok=1; else ok=0; fi
check pcost_insmod $ok ""
pcost base
# allow_kthreads=1: the loop's two threads are kernel threads.
insmod /superpass.ko selftest=0 allow_kthreads=1
# The kprobe optimiser patches the probes in after the load, which slows
# the first runs: let it finish first.
sleep 1
pcost idle
for t in $(sed -n 's/^tids //p' /proc/sp_probe_cost); do echo $t > /proc/superpass/critical; done
echo "SPT pcost marked_threads $(wc -l < /proc/superpass/critical)"
pcost marked
sed -n 's/^\(detect_blocks\|detect_unlocks\|act_boosts\|grants\) /SPT pcost stats \1 /p' /proc/superpass/stats
rmmod superpass
rmmod sp_probe_cost && ok=1 || ok=0
check pcost_rmmod $ok ""
for sc in $SCENS; do
	echo "SPT phase $sc base"
	$(wl $sc) --scenario $sc --seconds $SECS | sed "s/^/SPT $sc base /"
	record_base $sc
	echo "SPT phase $sc module"
	from=$(( $(dmesg | wc -l) + 1 ))
	if insmod /superpass.ko log_boosts=200 ${TRACE:+log_waits_ms=$TRACE}; then ok=1; else ok=0; fi
	check "${sc}_insmod" $ok ""
	if dmesg | sed -n "$from,\$p" | grep -q "superpass: self-test passed"; then ok=1; else ok=0; fi
	check "${sc}_selftest" $ok ""
	cat /proc/superpass/config | sed "s/^/SPT $sc config /"
	# Bad input must be refused with EINVAL and a log line.
	if echo bogus > /proc/superpass/critical 2>/dev/null; then ok=0; else ok=1; fi
	check "${sc}_bad_input_rejected" $ok ""
	[ $sc = inode ] && /spw --micro | sed "s/^/SPT micro loaded /"
	# Probe cost alone: loaded, nothing marked (compare with base).
	echo "SPT phase $sc idle"
	$(wl $sc) --scenario $sc --seconds $SECS --module --no-mark | sed "s/^/SPT $sc idle /"
	$(wl $sc) --scenario $sc --seconds $SECS --module $(trace_args) | sed "s/^/SPT $sc module /"
	trace_dump $sc
	if grep -q '^superpass ' /proc/modules; then ok=0; else ok=1; fi
	check "${sc}_unloaded" $ok ""
	dmesg | sed -n "$from,\$p" | grep "superpass: fast-track tid" | sed "s/.*fast-track tid \([0-9]*\) (\(.*\))/SPT $sc boost \1 \2/"
	dmesg | sed -n "$from,\$p" | grep -q "critical: expected TID" && ok=1 || ok=0
	check "${sc}_bad_input_logged" $ok ""
done
# The traces out now: what follows cannot lose them.
record_out
# Load, mark every thread of a running inversion, unload: three times, under
# load. Afterwards no thread of it may be left in SCHED_FIFO (policy 1 in
# field 41 of /proc/PID/task/TID/stat).
/spw --scenario $MMSC --seconds 600 >/dev/null &
spw_pid=$!
sleep 1
ok=1
for i in 1 2 3; do
	insmod /superpass.ko selftest=0 || ok=0
	echo $spw_pid > /proc/superpass/critical || ok=0
	sleep 1
	rmmod superpass || ok=0
done
fifo=$(cat /proc/$spw_pid/task/*/stat 2>/dev/null | awk '$41 != 0' | wc -l)
[ "$fifo" = 0 ] || ok=0
check cycles_under_load $ok "threads left non-SCHED_OTHER: $fifo"
kill $spw_pid
wait $spw_pid 2>/dev/null

# The rest of the interface, once, on a fresh load with reader tracking
# and the futex hook off.
if insmod /superpass.ko readers=0 futex=0 selftest=0; then ok=1; else ok=0; fi
check load_readers_off $ok ""
grep -q "^reader_tracking 0" /proc/superpass/config && ok=1 || ok=0
check config_reader_tracking_off $ok ""
grep -q "^futex_hook 0" /proc/superpass/stats && ok=1 || ok=0
check load_futex_off $ok ""
echo "fifo_prio 7" > /proc/superpass/config && grep -q "^fifo_prio 7" /proc/superpass/config && ok=1 || ok=0
check config_set_fifo_prio $ok ""
if echo "depth 3" > /proc/superpass/config 2>/dev/null; then ok=0; else ok=1; fi
check config_depth_is_load_time $ok ""
if echo "reader_tracking 1" > /proc/superpass/config 2>/dev/null; then ok=0; else ok=1; fi
check config_readers_need_hooks $ok ""
# A pid marks all of its threads; -pid unmarks them. The marked set must
# be the process's threads. The workload may still be starting threads
# when it is marked (a slow guest; the newer ones are marked by the fork
# hook): so compare the sets, taken with the task list read before and
# after the marked list and unchanged, up to 5 times.
/spw --scenario inode --seconds 60 >/dev/null &
spw_pid=$!
sleep 1
echo $spw_pid > /proc/superpass/critical
ok=0
for try in 1 2 3 4 5; do
	tasks=$(ls /proc/$spw_pid/task | sort -n | tr '\n' ' ')
	marked=$(sort -n /proc/superpass/critical | tr '\n' ' ')
	tasks_after=$(ls /proc/$spw_pid/task | sort -n | tr '\n' ' ')
	[ "$tasks" = "$tasks_after" ] || { sleep 1; continue; }
	[ "$(echo $tasks | wc -w)" -gt 1 ] && [ "$marked" = "$tasks" ] && ok=1
	break
done
check mark_pid_marks_threads $ok "threads [$tasks] marked [$marked]"
echo -$spw_pid > /proc/superpass/critical
[ "$(wc -l < /proc/superpass/critical)" = 0 ] && ok=1 || ok=0
check unmark_pid $ok ""
if echo 999999 > /proc/superpass/critical 2>/dev/null; then ok=0; else ok=1; fi
check unknown_tid_rejected $ok ""
kill $spw_pid
wait $spw_pid 2>/dev/null
# superpass kmod, marked processes' later threads, the privilege gate.
. /guest-interface.sh
if rmmod superpass; then ok=1; else ok=0; fi
check rmmod_readers_off $ok ""
dmesg > /tmp/dmesg.all
# Lockdep reports only exist in a kernel built with CONFIG_PROVE_LOCKING
# (Debian's is not): say which, rather than grep for what cannot appear.
# The host copies the guest kernel's config to /kconfig; /proc/config.gz is
# there only with CONFIG_IKCONFIG_PROC.
kconfig=""
if [ -r /proc/config.gz ]; then kconfig=$(zcat /proc/config.gz)
elif [ -r /kconfig ]; then kconfig=$(cat /kconfig); fi
pattern="BUG|WARNING|Oops|Call Trace|general protection"
if [ -z "$kconfig" ]; then
	echo "SPT note lockdep: no kernel config to look at (no /proc/config.gz, no /kconfig): lockdep not checked"
elif echo "$kconfig" | grep -q "^CONFIG_PROVE_LOCKING=y"; then
	echo "SPT note lockdep: CONFIG_PROVE_LOCKING=y: its reports are checked"
	pattern="$pattern|possible circular locking|possible recursive locking|inconsistent lock state|lockdep"
else
	echo "SPT note lockdep not configured in this kernel (no CONFIG_PROVE_LOCKING): not checked"
fi
if grep -E "$pattern" /tmp/dmesg.all >/dev/null; then
	grep -E -A20 "$pattern" /tmp/dmesg.all | sed "s/^/SPT dmesg /"
	check dmesg_clean 0 ""
else
	check dmesg_clean 1 ""
fi
grep superpass /tmp/dmesg.all | grep -v "fast-track tid" | sed "s/^/SPT log /"
echo "SPT_DONE"
poweroff -f
