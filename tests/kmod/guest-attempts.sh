#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Run by guest-interface.sh under an unprivileged identity (a plain user,
# the root of a new user namespace, a user holding an fd that root opened):
# every kind of write to /proc/superpass, through `superpass kmod` and
# directly, must be refused; reading stats must work. Prints one line per
# attempt, judged by guest-interface.sh:
#   SPT_IDENT LABEL uid UID caps CAPEFF
#   SPT_DENIED LABEL NAME ok|BAD detail
#   SPT_READ LABEL stats ok|BAD
#   SPT_SEES LABEL critical TIDS...     what `critical` shows this reader
#   SPT_SEES LABEL long_blocking ...    what `stats` shows of long blockings
# guest-attempts.sh LABEL ROOT_PID OWN_PID [fd]   (fd: fd 3 is open on
# /proc/superpass/critical, opened by root)
SP=/usr/bin/superpass
L=$1 wpid=$2 npid=$3 fd=$4
denied() { # NAME WANT CMD...: CMD fails and says WANT
	name=$1 want=$2
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc != 0 ] && echo "$out" | grep -q "$want"; then
		echo "SPT_DENIED $L $name ok"
	else
		echo "SPT_DENIED $L $name BAD rc=$rc $(echo "$out" | head -2 | tr '\n' ' ')"
	fi
}
echo "SPT_IDENT $L uid $(id -u) caps $(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status)"
eperm="Operation not permitted"
denied cli_mark_other "$eperm" $SP kmod mark "$wpid"
denied cli_mark_own "$eperm" $SP kmod mark "$npid"
denied cli_unmark "$eperm" $SP kmod unmark "$wpid"
denied cli_config_fifo_prio "$eperm" $SP kmod config fifo_prio 50
denied cli_config_reader_tracking "$eperm" $SP kmod config reader_tracking 0
denied raw_mark "$eperm" sh -c "echo $wpid > /proc/superpass/critical"
denied raw_unmark "$eperm" sh -c "echo -$wpid > /proc/superpass/critical"
denied raw_config "$eperm" sh -c "echo 'fifo_prio 50' > /proc/superpass/config"
# stats is 0444: the open fails (EACCES), or, for a user namespace's root
# that maps uid 0 (DAC override over root's inode), the write (EPERM).
denied raw_stats "Permission denied\|Operation not permitted" sh -c "echo 1 > /proc/superpass/stats"
[ "$fd" = fd ] && denied raw_passed_fd "$eperm" sh -c "echo $wpid >&3"
if $SP kmod stats >/tmp/attempt-stats.$$ 2>&1 && grep -q '^blockings ' /tmp/attempt-stats.$$; then
	echo "SPT_READ $L stats ok"
else
	echo "SPT_READ $L stats BAD $(head -1 /tmp/attempt-stats.$$)"
fi
rm -f /tmp/attempt-stats.$$
echo "SPT_SEES $L critical $(tr '\n' ' ' </proc/superpass/critical)"
grep '^long_blocking' /proc/superpass/stats | sed "s/^/SPT_SEES $L /"
exit 0
