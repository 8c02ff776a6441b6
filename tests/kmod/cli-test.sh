#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest "cli.kmod": `superpass kmod` on the host, where superpass.ko is not
# loaded (the QEMU test, kmod.qemu-*, drives the real module with it):
# usage errors, the not-loaded errors, and, through --proc DIR, the
# parsing of the module's files (a stats file like the module writes,
# with a tid hidden from the reader as "-") and what mark/config write.
#   cli-test.sh SUPERPASS_BINARY
set -uo pipefail
SP=${1:?usage: cli-test.sh SUPERPASS_BINARY}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/superpass-cli-kmod.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1: $2"; fails=$((fails + 1)); }
# expect NAME RC REGEX CMD...: CMD exits RC and its output matches REGEX.
expect() {
	local name=$1 rc=$2 re=$3 out got
	shift 3
	out=$("$@" 2>&1)
	got=$?
	if [ "$got" = "$rc" ] && grep -qE -- "$re" <<<"$out"; then ok "$name"; else
		bad "$name" "rc $got (want $rc), output: $(head -3 <<<"$out" | tr '\n' '|')"; fi
}

# --help, and every command it names is one the dispatcher knows.
expect help 0 '^usage: superpass kmod' "$SP" kmod --help
expect top_help_names_kmod 0 'superpass kmod COMMAND' "$SP" --help
for c in $("$SP" kmod --help | sed -n 's/^  \([a-z]\+\) .*/\1/p' | sort -u); do
	if "$SP" kmod --proc "$tmp/none" "$c" 1 2>&1 | grep -q 'unknown command'; then
		bad "help_command_${c}_known" "the dispatcher does not know '$c'"
	else
		ok "help_command_${c}_known"
	fi
done
[ "$("$SP" kmod --help | sed -n 's/^  \([a-z]\+\) .*/\1/p' | sort -u | tr '\n' ' ')" = \
	"config list mark stats status unmark " ] && ok help_lists_every_command ||
	bad help_lists_every_command "$("$SP" kmod --help | sed -n 's/^  \([a-z]\+\) .*/\1/p' | tr '\n' ' ')"

# Not loaded.
none=(--proc "$tmp/none")
expect status_not_loaded 1 '^superpass.ko: not loaded' "$SP" kmod "${none[@]}" status
expect mark_not_loaded 1 'superpass.ko is not loaded' "$SP" kmod "${none[@]}" mark $$
expect unmark_not_loaded 1 'superpass.ko is not loaded' "$SP" kmod "${none[@]}" unmark $$
expect list_not_loaded 1 'superpass.ko is not loaded' "$SP" kmod "${none[@]}" list
expect stats_not_loaded 1 'superpass.ko is not loaded' "$SP" kmod "${none[@]}" stats --json
expect config_not_loaded 1 'superpass.ko is not loaded' "$SP" kmod "${none[@]}" config fifo_prio 3
if [ ! -e /proc/superpass ]; then
	expect real_status_not_loaded 1 '^superpass.ko: not loaded \(no /proc/superpass\)' "$SP" kmod status
	expect real_mark_not_loaded 1 'not loaded' "$SP" kmod mark $$
else
	echo "note: superpass.ko is loaded on this host: the default /proc/superpass checks are skipped"
fi

# Usage errors (exit 2), before anything is touched.
expect no_command 2 '^superpass kmod: which command' "$SP" kmod
expect unknown_command 2 "unknown command 'frob'" "$SP" kmod frob
expect unknown_option 2 "^superpass kmod: unknown option '--frob'" "$SP" kmod --frob status
expect mark_nothing 2 'at least one TID' "$SP" kmod "${none[@]}" mark
expect mark_not_number 2 "'12ab' is not a tid" "$SP" kmod "${none[@]}" mark 12ab
expect mark_zero 2 "'0' is not a tid" "$SP" kmod "${none[@]}" mark 0
expect mark_negative 2 "'-5' is not a tid" "$SP" kmod "${none[@]}" unmark -5
expect mark_too_big 2 "'99999999999' is not a tid" "$SP" kmod "${none[@]}" mark 99999999999
expect stats_bad_option 2 "unknown option '--xml'" "$SP" kmod "${none[@]}" stats --xml
expect config_one_arg 2 'KEY VALUE' "$SP" kmod "${none[@]}" config fifo_prio
expect status_extra 2 'takes no arguments' "$SP" kmod "${none[@]}" status now

# A directory shaped like /proc/superpass.
fake=$tmp/fake
mkdir "$fake"
printf '%s\n' $$ >"$fake/critical"
printf '%s\n' 'depth 8' 'readers_k 4' 'budget_ms 20' 'throttle_permille 500' 'fifo_prio 1' \
	'reader_tracking 1' >"$fake/config"
printf '%s\n' 'blockings 42' 'grants 7' 'blocking_p50_ns 1500000' 'blocking_p999_ns 81000000' \
	'detect_fork_marks 3' 'grant_overflows 2821' 'reader_overflows 0' 'queue_overflows 2' \
	'long_blocking tid 321 ms 81 rwsem owner 654 readers_tracked 2 untracked 1 readers_now 3' \
	'long_blocking tid - ms 60 mutex owner - readers_tracked 0 untracked 0 readers_now 0' >"$fake/stats"
f=(--proc "$fake")
expect status_fake 0 '^marked +1 threads$' "$SP" kmod "${f[@]}" status
expect status_config 0 '^  throttle_permille 500$' "$SP" kmod "${f[@]}" status
expect list_fake 0 "^ *$$ +$$  $(cat /proc/$$/comm)\$" "$SP" kmod "${f[@]}" list
expect stats_row 0 '^grants +7$' "$SP" kmod "${f[@]}" stats
expect stats_ns_in_ms 0 '^blocking_p999_ns +81000000 +81.000 ms$' "$SP" kmod "${f[@]}" stats
expect stats_long 0 '^  tid 321 ms 81 rwsem owner 654' "$SP" kmod "${f[@]}" stats
expect stats_advice 0 '^  grant_overflows 2821: grant table full; .* Change: no module parameter: the table has 256 grants\.$' \
	"$SP" kmod "${f[@]}" stats
expect stats_advice_host 0 '^  queue_overflows 2: the actuation queue was full; ' "$SP" kmod "${f[@]}" stats
out=$("$SP" kmod "${f[@]}" stats)
grep -q '^  reader_overflows' <<<"$out" && bad stats_advice_zero "a zero counter told: $out" ||
	ok stats_advice_zero
json=$("$SP" kmod "${f[@]}" stats --json)
for re in '"blockings": ?42' '"blocking_p999_ns": ?81000000' '"detect_fork_marks": ?3' \
	'"tid": ?321' '"kind": ?"rwsem"' '"owner": ?654' '"readers_now": ?3' '"tid": ?null' \
	'"owner": ?null' '"kind": ?"mutex"'; do
	grep -qE "$re" <<<"$json" && ok "stats_json $re" || bad "stats_json" "no $re in: $json"
done
[ "$(grep -c '"tid"' <<<"$json")" = 2 ] && ok stats_json_two_longs || bad stats_json_two_longs "$json"

# What mark, unmark and config write (one write each).
: >"$fake/critical"
expect mark_writes 0 "^marked $$\$" "$SP" kmod "${f[@]}" mark $$
[ "$(cat "$fake/critical")" = "$$" ] && ok mark_wrote_tid || bad mark_wrote_tid "$(cat "$fake/critical")"
expect unmark_writes 0 "^unmarked $$\$" "$SP" kmod "${f[@]}" unmark $$
[ "$(cat "$fake/critical")" = "-$$" ] && ok unmark_wrote_minus_tid || bad unmark_wrote_minus_tid "$(cat "$fake/critical")"
gone=$(( $(cat /proc/sys/kernel/pid_max) + 1 ))
expect mark_no_such_thread 1 "mark $gone: no such thread or process" "$SP" kmod "${f[@]}" mark $gone
expect config_load_time 1 'depth sizes the module.s tables and is fixed at load time' \
	"$SP" kmod "${f[@]}" config depth 3
expect config_unknown_key 1 "unknown key 'colour'" "$SP" kmod "${f[@]}" config colour 3
cp "$fake/config" "$tmp/config.keep"
expect config_writes 0 '^$' "$SP" kmod "${f[@]}" config fifo_prio 5
[ "$(head -1 "$fake/config")" = "fifo_prio 5" ] && ok config_wrote_line || bad config_wrote_line "$(head -1 "$fake/config")"
cp "$tmp/config.keep" "$fake/config"

# No write access: the reason names the privilege.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 0755 "$tmp"
	printf '%s\n' $$ >"$fake/critical"
	chmod 0444 "$fake/critical" "$fake/config"
	expect mark_permission 1 'permission denied: writing to the module needs CAP_SYS_NICE' \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$SP" kmod "${f[@]}" mark $$
	expect list_unprivileged 0 "^ *$$ " \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$SP" kmod "${f[@]}" list
else
	echo "note: not root or no setpriv: the permission message is not checked here (the QEMU test checks the module's EPERM)"
fi

[ $fails = 0 ] || { echo "FAIL: $fails check(s)"; exit 1; }
echo PASS
