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
echo "SPT boot ok kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"

check() { # name ok(0/1) detail
	if [ "$2" = 1 ]; then echo "SPT_CHECK $1 PASS $3"; else echo "SPT_CHECK $1 FAIL $3"; fi
}

/spw --micro | sed "s/^/SPT micro base /"
for sc in inode $MMSC fpos; do
	echo "SPT phase $sc base"
	/spw --scenario $sc --seconds $SECS | sed "s/^/SPT $sc base /"
	echo "SPT phase $sc module"
	from=$(( $(dmesg | wc -l) + 1 ))
	if insmod /superpass.ko log_boosts=200; then ok=1; else ok=0; fi
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
	/spw --scenario $sc --seconds $SECS --module --no-mark | sed "s/^/SPT $sc idle /"
	/spw --scenario $sc --seconds $SECS --module | sed "s/^/SPT $sc module /"
	if grep -q '^superpass ' /proc/modules; then ok=0; else ok=1; fi
	check "${sc}_unloaded" $ok ""
	dmesg | sed -n "$from,\$p" | grep "superpass: fast-track tid" | sed "s/.*fast-track tid \([0-9]*\) (\(.*\))/SPT $sc boost \1 \2/"
	dmesg | sed -n "$from,\$p" | grep -q "critical: expected TID" && ok=1 || ok=0
	check "${sc}_bad_input_logged" $ok ""
done
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

# The rest of the interface, once, on a fresh load with reader tracking off.
if insmod /superpass.ko readers=0 selftest=0; then ok=1; else ok=0; fi
check load_readers_off $ok ""
grep -q "^reader_tracking 0" /proc/superpass/config && ok=1 || ok=0
check config_reader_tracking_off $ok ""
echo "fifo_prio 7" > /proc/superpass/config && grep -q "^fifo_prio 7" /proc/superpass/config && ok=1 || ok=0
check config_set_fifo_prio $ok ""
if echo "depth 3" > /proc/superpass/config 2>/dev/null; then ok=0; else ok=1; fi
check config_depth_is_load_time $ok ""
if echo "reader_tracking 1" > /proc/superpass/config 2>/dev/null; then ok=0; else ok=1; fi
check config_readers_need_hooks $ok ""
# A pid marks all of its threads; -pid unmarks them.
/spw --scenario inode --seconds 3 >/dev/null &
spw_pid=$!
sleep 1
nthreads=$(ls /proc/$spw_pid/task | wc -l)
echo $spw_pid > /proc/superpass/critical
nmarked=$(wc -l < /proc/superpass/critical)
[ "$nthreads" -gt 1 ] && [ "$nmarked" = "$nthreads" ] && ok=1 || ok=0
check mark_pid_marks_threads $ok "threads $nthreads marked $nmarked"
echo -$spw_pid > /proc/superpass/critical
[ "$(wc -l < /proc/superpass/critical)" = 0 ] && ok=1 || ok=0
check unmark_pid $ok ""
if echo 999999 > /proc/superpass/critical 2>/dev/null; then ok=0; else ok=1; fi
check unknown_tid_rejected $ok ""
wait $spw_pid
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
