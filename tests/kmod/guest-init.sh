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
echo "SPT boot ok kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"

check() { # name ok(0/1) detail
	if [ "$2" = 1 ]; then echo "SPT_CHECK $1 PASS $3"; else echo "SPT_CHECK $1 FAIL $3"; fi
}

for sc in inode mmap; do
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
	/spw --scenario $sc --seconds $SECS --module | sed "s/^/SPT $sc module /"
	if grep -q '^superpass ' /proc/modules; then ok=0; else ok=1; fi
	check "${sc}_unloaded" $ok ""
	dmesg | sed -n "$from,\$p" | grep "superpass: fast-track tid" | sed "s/.*fast-track tid \([0-9]*\) (\(.*\))/SPT $sc boost \1 \2/"
	dmesg | sed -n "$from,\$p" | grep -q "critical: expected TID" && ok=1 || ok=0
	check "${sc}_bad_input_logged" $ok ""
done
dmesg > /tmp/dmesg.all
if grep -E "BUG|WARNING|Oops|lockdep|Call Trace|general protection" /tmp/dmesg.all >/dev/null; then
	grep -E -A20 "BUG|WARNING|Oops|lockdep|Call Trace|general protection" /tmp/dmesg.all | sed "s/^/SPT dmesg /"
	check dmesg_clean 0 ""
else
	check dmesg_clean 1 ""
fi
grep superpass /tmp/dmesg.all | grep -v "fast-track tid" | sed "s/^/SPT log /"
echo "SPT_DONE"
poweroff -f
