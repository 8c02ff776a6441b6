# SPDX-License-Identifier: GPL-2.0-only
# Sourced by guest-init.sh (it defines check()) with superpass.ko loaded
# and nothing marked: `superpass kmod`, the threads a marked process
# creates later (the fork probe), the privilege gate of /proc/superpass,
# and what one write may do (a whole line; a whole process or nothing;
# not init or kernel threads; from a child pid namespace; during rmmod; a
# full task table). Leaves the module loaded again (readers=0,
# max_tasks=16). Prints SPT_CHECK lines; run-qemu-test.sh lists the names
# it wants.
SP=/usr/bin/superpass
# $1: file, $2: text; 1 if the file has a line matching it.
has() { grep -qE "$2" "$1" && echo 1 || echo 0; }
# The tids and thread count of `critical` as root sees it.
marked() { tr '\n' ' ' </proc/superpass/critical; }
nmarked() { wc -l </proc/superpass/critical; }
# Waits up to 60 s for a file (TCG is slow, but nothing here is timed).
await() { i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done; [ -e "$1" ]; }

# ---- superpass kmod ----
$SP kmod status >/tmp/cli.out 2>&1; rc=$?
sed "s/^/SPT cli status /" /tmp/cli.out
ver=$(cat /sys/module/superpass/version)
[ $rc = 0 ] && [ "$(has /tmp/cli.out '^superpass.ko: loaded')" = 1 ] &&
	[ "$(has /tmp/cli.out "^version +$ver\$")" = 1 ] &&
	[ "$(awk '$1 == "kernel" { print $2 }' /tmp/cli.out)" = "$(uname -r)" ] &&
	[ "$(has /tmp/cli.out '^  fifo_prio [0-9]+$')" = 1 ] &&
	[ "$(has /tmp/cli.out '^marked +0 threads$')" = 1 ] && ok=1 || ok=0
check cli_status $ok "rc $rc"
$SP kmod config fifo_prio 9 && $SP kmod config | grep -q "^fifo_prio 9$" && ok=1 || ok=0
check cli_config_set $ok ""
$SP kmod config depth 3 >/tmp/cli.out 2>&1; rc=$?
[ $rc = 1 ] && [ "$(has /tmp/cli.out 'fixed at load time')" = 1 ] && ok=1 || ok=0
check cli_config_load_time $ok "rc $rc"
$SP kmod config bogus 1 >/tmp/cli.out 2>&1; rc=$?
[ $rc = 1 ] && [ "$(has /tmp/cli.out "unknown key 'bogus'")" = 1 ] && ok=1 || ok=0
check cli_config_unknown_key $ok "rc $rc"
$SP kmod config fifo_prio 0 >/tmp/cli.out 2>&1; rc=$?
[ $rc = 1 ] && [ "$(has /tmp/cli.out 'module refused it')" = 1 ] &&
	$SP kmod config | grep -q "^fifo_prio 9$" && ok=1 || ok=0
check cli_config_refused $ok "rc $rc"
$SP kmod mark 999999 >/tmp/cli.out 2>&1; rc=$?
[ $rc = 1 ] && [ "$(has /tmp/cli.out 'no such thread or process')" = 1 ] && ok=1 || ok=0
check cli_mark_unknown_tid $ok "rc $rc"
# The module's own answer for a tid that is gone (no CLI pre-check).
echo 999999 >/proc/superpass/critical 2>/tmp/cli.out
[ "$(has /tmp/cli.out 'No such process')" = 1 ] && ok=1 || ok=0
check module_unknown_tid_esrch $ok "$(cat /tmp/cli.out)"
$SP kmod stats >/tmp/cli.out 2>&1; rc=$?
[ $rc = 0 ] && [ "$(has /tmp/cli.out '^blockings +[0-9]+$')" = 1 ] &&
	[ "$(has /tmp/cli.out '^blocking_p999_ns +[0-9]+ +[0-9.]+ ms$')" = 1 ] && ok=1 || ok=0
check cli_stats_table $ok "rc $rc"
$SP kmod stats --json >/tmp/cli.out 2>&1; rc=$?
[ $rc = 0 ] && [ "$(has /tmp/cli.out '"blockings": ?[0-9]+')" = 1 ] &&
	[ "$(has /tmp/cli.out '"long_blockings": ?\[')" = 1 ] && ok=1 || ok=0
check cli_stats_json $ok "rc $rc"

# ---- a marked process's later threads (sched_process_fork) ----
rm -rf /tmp/late && mkdir /tmp/late
/sp-late /tmp/late &
lpid=$!
$SP kmod mark $lpid >/dev/null && [ "$(marked)" = "$lpid " ] && ok=1 || ok=0
check fork_mark_pid $ok "marked: $(marked)"
touch /tmp/late/go1
await /tmp/late/batch1
b1=$(grep -v child /tmp/late/batch1 | tr '\n' ' ')
child=$(sed -n 's/^child //p' /tmp/late/batch1)
ok=1
for t in $lpid $b1; do echo " $(marked)" | grep -q " $t " || ok=0; done
[ "$(nmarked)" = 4 ] || ok=0
check fork_marks_new_threads $ok "threads $lpid $b1; marked: $(marked)"
echo " $(marked)" | grep -q " $child " && ok=0 || ok=1
check fork_child_process_not_marked $ok "child $child; marked: $(marked)"
$SP kmod list >/tmp/cli.out 2>&1
sed "s/^/SPT cli list /" /tmp/cli.out
[ "$(grep -c " $lpid  sp-late$" /tmp/cli.out)" = 4 ] && ok=1 || ok=0
check cli_list $ok ""
$SP kmod unmark $lpid >/dev/null && [ "$(nmarked)" = 0 ] && ok=1 || ok=0
check fork_unmark_pid $ok "marked: $(marked)"
touch /tmp/late/go2
await /tmp/late/batch2
[ "$(nmarked)" = 0 ] && ok=1 || ok=0
check fork_unmarked_stays_unmarked $ok "new threads $(tr '\n' ' ' </tmp/late/batch2); marked: $(marked)"
fm=$(sed -n 's/^detect_fork_marks //p' /proc/superpass/stats)
[ "${fm:-0}" -ge 3 ] && ok=1 || ok=0
check fork_marks_counted $ok "detect_fork_marks ${fm:-missing}"
touch /tmp/late/stop
wait $lpid

# ---- the privilege gate ----
# A root-owned inversion, not marked, and a process of user nobody.
# It runs until killed: how long the attempts below take under TCG varies
# too much for a fixed run length.
/spw --scenario inode --seconds 3600 >/dev/null &
wpid=$!
# Killed below with the inversion, for the same reason: a fixed sleep may
# end before the last attempt.
su -s /bin/sh nobody -c 'exec sleep 3600' &
npid=$!
# Until su has become nobody's sleep and the inversion has all its 8
# threads (main, 2 holders, 4 hogs, the critical one).
i=0
while { [ "$(sed -n 's/^Uid:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$npid/status)" != 65534 ] ||
	[ "$(ls /proc/$wpid/task | wc -l)" != 8 ]; } && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
# tid, nice, policy of every thread of the inversion.
sched_of() { for t in /proc/$wpid/task/*; do awk '{ print $1, $19, $41 }' $t/stat; done | sort; }
sched_before=$(sched_of)
boosts_before=$(sed -n 's/^act_boosts //p' /proc/superpass/stats)
config_before=$(cat /proc/superpass/config)
as_nobody() { su -s /bin/sh nobody -c "$*"; }
as_nobody /guest-attempts.sh nobody $wpid $npid >/tmp/att.out 2>&1
unshare -U -r /guest-attempts.sh userns-root $wpid $npid >>/tmp/att.out 2>&1
as_nobody unshare -U -r /guest-attempts.sh userns-nobody $wpid $npid >>/tmp/att.out 2>&1
exec 3>/proc/superpass/critical
as_nobody /guest-attempts.sh nobody-fd $wpid $npid fd >>/tmp/att.out 2>&1
exec 3>&-
sed "s/^/SPT sec /" /tmp/att.out
for l in nobody userns-root userns-nobody nobody-fd; do
	case $l in userns-*) uid=0 ;; *) uid=65534 ;; esac
	n=$(grep -c "^SPT_DENIED $l .* ok$" /tmp/att.out)
	want=9
	[ $l = nobody-fd ] && want=10
	[ "$(has /tmp/att.out "^SPT_IDENT $l uid $uid ")" = 1 ] &&
		! grep -q "^SPT_DENIED $l .* BAD" /tmp/att.out && [ "$n" = $want ] && ok=1 || ok=0
	check sec_writes_denied_$l $ok "$n of $want refused; $(grep "^SPT_DENIED $l .* BAD" /tmp/att.out | head -2 | tr '\n' ' ')"
	[ "$(has /tmp/att.out "^SPT_READ $l stats ok")" = 1 ] && ok=1 || ok=0
	check sec_stats_readable_$l $ok ""
done
[ "$(sched_of)" = "$sched_before" ] && [ "$(nmarked)" = 0 ] &&
	[ "$(sed -n 's/^act_boosts //p' /proc/superpass/stats)" = "$boosts_before" ] &&
	[ "$(cat /proc/superpass/config)" = "$config_before" ] && ok=1 || ok=0
check sec_nothing_changed $ok "marked $(nmarked), act_boosts $boosts_before -> $(sed -n 's/^act_boosts //p' /proc/superpass/stats)"

# What a reader sees: root marks both processes; nobody sees only its own.
$SP kmod mark $wpid $npid >/dev/null
all=$(marked)
as_nobody /guest-attempts.sh nobody-reads $wpid $npid >/tmp/att.out 2>&1
seen=$(sed -n 's/^SPT_SEES nobody-reads critical //p' /tmp/att.out)
[ "$seen" = "$npid " ] && echo " $all" | grep -q " $npid " &&
	[ "$(echo $all | wc -w)" -gt 2 ] && ok=1 || ok=0
check sec_critical_shows_own_threads_only $ok "root sees: $all; nobody sees: $seen"
# Long blockings of root's threads, if the marked inversion made any
# over 50 ms by now, show neither tid nor owner to nobody.
sleep 6
as_nobody /guest-attempts.sh nobody-reads $wpid $npid >/tmp/att.out 2>&1
nlong=$(grep -c "^SPT_SEES nobody-reads long_blocking" /tmp/att.out)
if [ "$nlong" -gt 0 ]; then
	grep "^SPT_SEES nobody-reads long_blocking" /tmp/att.out | grep -v " tid - .* owner - " >/tmp/att.bad
	[ ! -s /tmp/att.bad ] && [ "$(grep -c '^long_blocking tid [0-9]' /proc/superpass/stats)" -gt 0 ] && ok=1 || ok=0
	check sec_long_blockings_hide_tids $ok "$nlong lines; shown to nobody: $(head -1 /tmp/att.bad)"
else
	echo "SPT note no blocking over 50 ms in the privilege phase: long_blocking visibility not checked"
fi
$SP kmod unmark $wpid $npid >/dev/null
kill $wpid $npid 2>/dev/null
wait $wpid 2>/dev/null
wait $npid 2>/dev/null

# ---- what one write may do: a whole line, a whole process or nothing ----
# Threads of a process; the core's live task entries.
nthreads() { ls /proc/$1/task 2>/dev/null | wc -l; }
tasks_now() { sed -n 's/^tasks_now //p' /proc/superpass/stats; }
# Starts `spw --idle-threads N` (N + 1 threads) in $ipid, and waits for
# all of its threads.
idle() {
	/spw --idle-threads $1 >/dev/null &
	ipid=$!
	i=0
	while [ "$(nthreads $ipid)" != $(($1 + 1)) ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
}
sleep 3600 &
s1=$!
sleep 3600 &
s2=$!
# Two writes on one open file, neither a whole line: not two tids.
{ printf %s $s1; printf %s $s2; } >/proc/superpass/critical 2>/dev/null
[ "$(nmarked)" = 0 ] &&
	[ "$(dmesg | grep -c 'superpass: critical: a write must be one line ending in a newline (got [0-9]* bytes, no newline)')" -ge 2 ] &&
	ok=1 || ok=0
check write_split_refused $ok "tids $s1 $s2; marked: $(marked)"
printf '%s\n%s\n' $s1 $s2 >/proc/superpass/critical 2>/dev/null
[ "$(nmarked)" = 0 ] && ok=1 || ok=0
check write_two_lines_refused $ok "marked: $(marked)"
echo $s1 >/proc/superpass/critical && [ "$(marked)" = "$s1 " ] && ok=1 || ok=0
check write_line_marks $ok "marked: $(marked)"
echo -$s1 >/proc/superpass/critical
cfg=$(cat /proc/superpass/config)
printf 'fifo_prio 5' >/proc/superpass/config 2>/dev/null && ok=0 || ok=1
[ "$(cat /proc/superpass/config)" = "$cfg" ] || ok=0
check config_write_without_newline_refused $ok ""
kill $s1 $s2
wait $s1 $s2 2>/dev/null

# More threads than one write marks: refused whole.
idle 300
big=$ipid
t0=$(tasks_now)
echo $big >/proc/superpass/critical 2>/tmp/w.err && ok=0 || ok=1
[ "$(nthreads $big)" = 301 ] && [ "$(nmarked)" = 0 ] && [ "$(tasks_now)" = "$t0" ] &&
	[ "$(has /tmp/w.err 'Argument list too long')" = 1 ] || ok=0
check mark_too_many_threads_refused $ok "threads $(nthreads $big); marked $(nmarked); tasks_now $t0 -> $(tasks_now); $(cat /tmp/w.err)"
$SP kmod mark $big >/tmp/cli.out 2>&1; rc=$?
[ $rc = 1 ] && [ "$(has /tmp/cli.out 'more threads than the module marks at once')" = 1 ] &&
	[ "$(nmarked)" = 0 ] && ok=1 || ok=0
check cli_mark_too_many_threads $ok "rc $rc: $(cat /tmp/cli.out)"
kill $big
wait $big 2>/dev/null

# Init and kernel threads: refused unless allow_kthreads=1.
echo 1 >/proc/superpass/critical 2>/tmp/w.err && ok=0 || ok=1
[ "$(nmarked)" = 0 ] && [ "$(has /tmp/w.err 'Invalid argument')" = 1 ] || ok=0
check mark_init_refused $ok "marked: $(marked); $(cat /tmp/w.err)"
kt=2
[ "$(cat /proc/$kt/comm)" = kthreadd ] || kt=$(grep -l '^kthreadd$' /proc/[0-9]*/comm | head -1 | cut -d/ -f3)
echo $kt >/proc/superpass/critical 2>/tmp/w.err && ok=0 || ok=1
[ "$(nmarked)" = 0 ] && [ "$(has /tmp/w.err 'Invalid argument')" = 1 ] || ok=0
check mark_kthread_refused $ok "kthreadd $kt; marked: $(marked); $(cat /tmp/w.err)"
$SP kmod mark $kt >/tmp/cli.out 2>&1; rc=$?
[ $rc = 1 ] && [ "$(has /tmp/cli.out 'is a kernel thread')" = 1 ] && ok=1 || ok=0
check cli_mark_kthread_refused $ok "rc $rc: $(cat /tmp/cli.out)"

# A writer in a child pid namespace names tids by that namespace's numbers;
# a pid it cannot see is no such thread to it; its pid 1 is not init.
rm -f /tmp/ns.*
sleep 3600 &
outer=$!
unshare -p -f sh -c '
	sleep 3601 &
	s=$!
	echo "nspid $s" >/tmp/ns.out
	echo $s >/proc/superpass/critical && echo "mark ok" >>/tmp/ns.out
	echo "sees $(tr "\n" " " </proc/superpass/critical)" >>/tmp/ns.out
	echo '"$outer"' >/proc/superpass/critical 2>/tmp/ns.err && echo "outer marked" >>/tmp/ns.out
	echo 1 >/proc/superpass/critical && echo "nsinit ok" >>/tmp/ns.out
	touch /tmp/ns.ready
	while [ ! -e /tmp/ns.done ]; do sleep 0.1; done
	echo -$s >/proc/superpass/critical
	echo -1 >/proc/superpass/critical
	kill $s
' &
nsjob=$!
await /tmp/ns.ready
sed "s/^/SPT pidns /" /tmp/ns.out
# Global numbers from NSpid: the sleep and the namespace's init.
gs="" nss="" gi=""
for f in $(grep -lE '^NSpid:[[:space:]]*[0-9]+[[:space:]]+[0-9]+$' /proc/[0-9]*/status 2>/dev/null); do
	l=$(sed -n 's/^NSpid:[[:space:]]*//p' $f)
	g=$(echo $l | cut -d' ' -f1)
	n=$(echo $l | cut -d' ' -f2)
	case "$(tr '\0' ' ' 2>/dev/null <${f%/status}/cmdline)" in "sleep 3601 ") gs=$g nss=$n ;; esac
	[ "$n" = 1 ] && gi=$g
done
echo "SPT pidns global sleep $gs (ns $nss) init $gi; marked: $(marked)"
[ -n "$gs" ] && [ "$(has /tmp/ns.out "^nspid $nss\$")" = 1 ] && [ "$(has /tmp/ns.out '^mark ok$')" = 1 ] &&
	echo " $(marked)" | grep -q " $gs " && ok=1 || ok=0
check pidns_marks_by_ns_pid $ok "sleep global $gs ns $nss; marked: $(marked)"
[ "$(has /tmp/ns.out "^sees $nss \$")" = 1 ] && ok=1 || ok=0
check pidns_reads_ns_pids $ok "$(grep '^sees' /tmp/ns.out)"
[ "$(has /tmp/ns.out '^outer marked$')" = 0 ] && [ "$(has /tmp/ns.err 'No such process')" = 1 ] &&
	! echo " $(marked)" | grep -q " $outer " && ok=1 || ok=0
check pidns_outside_pid_unknown $ok "outer $outer: $(cat /tmp/ns.err)"
[ -n "$gi" ] && [ "$(has /tmp/ns.out '^nsinit ok$')" = 1 ] && echo " $(marked)" | grep -q " $gi " && ok=1 || ok=0
check pidns_init_is_not_init $ok "ns init global $gi; marked: $(marked)"
touch /tmp/ns.done
wait $nsjob 2>/dev/null
[ "$(nmarked)" = 0 ] && ok=1 || ok=0
check pidns_unmarked $ok "marked: $(marked)"
kill $outer
wait $outer 2>/dev/null

# rmmod while writes go on (and an fd open across it): no crash, rmmod
# done (retried if refused while busy), the fd refused afterwards.
rm -f /tmp/rm.*
sleep 3600 &
rs=$!
(
	n=0
	while [ ! -e /tmp/rm.stop ]; do
		echo $rs >/proc/superpass/critical && n=$((n + 1))
		[ $n = 1 ] && : >/tmp/rm.started
		echo -$rs >/proc/superpass/critical
	done 2>/dev/null
	echo $n >/tmp/rm.count
) &
wl=$!
await /tmp/rm.started
exec 4>/proc/superpass/critical
tries=0
until rmmod superpass 2>/dev/null; do
	tries=$((tries + 1))
	[ $tries -ge 50 ] && break
	sleep 0.1
done
touch /tmp/rm.stop
wait $wl
grep -q '^superpass ' /proc/modules && ok=0 || ok=1
[ "$(cat /tmp/rm.count)" -gt 0 ] || ok=0
check rmmod_during_writes $ok "rmmod retries $tries; marks written $(cat /tmp/rm.count)"
echo $rs >&4 2>/dev/null && ok=0 || ok=1
exec 4>&-
check write_after_rmmod_refused $ok ""
kill $rs
wait $rs 2>/dev/null

# A task table of 16 entries: a mark that does not fit is refused whole
# and leaves the table as it was (its removed entries become free again
# at the worker's next reclaim, about once a second: waited for below).
insmod /superpass.ko readers=0 selftest=0 max_tasks=16 allow_kthreads=1 &&
	grep -q '^max_tasks 16$' /proc/superpass/config && ok=1 || ok=0
check load_small_task_table $ok ""
reclaimed() { sed -n 's/^worker_reclaimed //p' /proc/superpass/stats; }
idle 24
big=$ipid
t0=$(tasks_now)
r0=$(reclaimed)
echo $big >/proc/superpass/critical 2>/tmp/w.err && ok=0 || ok=1
[ "$(nmarked)" = 0 ] && [ "$(tasks_now)" = "$t0" ] && [ "$(has /tmp/w.err 'No space left')" = 1 ] || ok=0
check table_full_refused_whole $ok "threads $(nthreads $big); marked $(nmarked); tasks_now $t0 -> $(tasks_now); $(cat /tmp/w.err)"
$SP kmod mark $big >/tmp/cli.out 2>&1; rc=$?
[ $rc = 1 ] && [ "$(has /tmp/cli.out 'task table cannot take every thread')" = 1 ] && ok=1 || ok=0
check cli_table_full $ok "rc $rc: $(cat /tmp/cli.out)"
# Both refusals took back 16 entries each.
i=0
while [ "$(reclaimed)" -lt $((r0 + 32)) ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
idle 4
small=$ipid
want=$(ls /proc/$small/task | sort -n | tr '\n' ' ')
echo $small >/proc/superpass/critical && [ "$(sort -n /proc/superpass/critical | tr '\n' ' ')" = "$want" ] && ok=1 || ok=0
check table_mark_that_fits $ok "want $want; marked: $(marked)"
idle 12
mid=$ipid
t0=$(tasks_now)
echo $mid >/proc/superpass/critical 2>/dev/null && ok=0 || ok=1
[ "$(sort -n /proc/superpass/critical | tr '\n' ' ')" = "$want" ] && [ "$(tasks_now)" = "$t0" ] || ok=0
check table_full_keeps_other_marks $ok "tasks_now $t0 -> $(tasks_now); marked: $(marked)"
echo -$small >/proc/superpass/critical
kill $big $small $mid
wait $big $small $mid 2>/dev/null
echo $kt >/proc/superpass/critical && [ "$(marked)" = "$kt " ] && ok=1 || ok=0
check mark_kthread_allowed $ok "marked: $(marked)"
echo -$kt >/proc/superpass/critical
