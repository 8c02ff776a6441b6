#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest "run_cli": `superpass run`: every bad option rejected with exit
# status 125 and a message naming it; the command's exit status passed
# through (128 + N for a signal); the summary of a real critical blocking;
# --stats keeping the JSON; an LD_PRELOAD that was set kept; and an
# installed copy (cmake --install) finding its own installed interposer.
#   check-cli.sh SUPERPASS PROBE BUILD_DIR LIBDIR
set -eu
sp=$1 probe=$2 build=$3 libdir=$4
. "$(dirname "$0")/../cli-lib.sh"
expect_rc() { cli_expect_rc "$@"; }   # WANT DESCRIPTION CMD...
expect_err() { cli_expect_err "$@" || :; } # TEXT DESCRIPTION

# --help: exit 0, and every option the parser takes is in it.
expect_rc 0 "--help" "$sp" run --help
for o in --critical --k --prio --budget-us --mode --stats --quiet --help; do
	grep -qF -- "$o" "$tmp/out" || cli_fail "--help lacks $o"
done

# Bad options: 125, and the message names what was wrong.
bad() { # TEXT ARGS...
	text=$1
	shift
	if expect_rc 125 "run $*" "$sp" run "$@"; then expect_err "$text" "run $*"; fi
}
bad "-c NAME,... is required" -- true
bad "no command given" -c main
bad "no command given" -c main --
bad "-c: empty item in 'main,'" -c main, -- true
bad "-c: empty item in ',main'" -c ,main -- true
bad "a name is too long" -c a-name-longer-than-15 -- true
bad "--k wants an integer in [1, 64], got '0'" -c main --k 0 -- true
bad "--k wants an integer in [1, 64], got '65'" -c main --k 65 -- true
bad "--k wants an integer in [1, 64], got ''" -c main --k '' -- true
bad "--k wants an integer in [1, 64], got '+4'" -c main --k +4 -- true
bad "--k wants an integer in [1, 64], got ' 4'" -c main --k ' 4' -- true
bad "--prio wants an integer in [1, 98], got '99'" -c main --prio 99 -- true
bad "--budget-us wants an integer in [0, 10000000], got 'x'" -c main --budget-us x -- true
bad "--mode 'turbo'" -c main --mode turbo -- true
cli_expect_conventions "superpass run" 125 --stats "$sp" run
bad "unknown option '--frobnicate'" -c main --frobnicate -- true
bad "superpass run: option '--k' needs a value" -c main --k
bad "\"%p\" may appear once" -c main --stats "$tmp/%p/x.json" -- true
SUPERPASS_PRELOAD=/nonexistent.so expect_rc 125 "missing library" "$sp" run -c main -- true
expect_err "libsuperpass-preload.so not found" "missing library"

# The command's own failures: 127 not found, 126 not executable.
expect_rc 127 "command not found" "$sp" run -c main -- /nonexistent/cmd
expect_err "cannot run /nonexistent/cmd" "command not found"
printf 'x\n' >"$tmp/noexec"
expect_rc 126 "command not executable" "$sp" run -c main -- "$tmp/noexec"

# Exit status passed through, a signal death as 128 + N.
expect_rc 3 "exit 3" "$sp" run -c main -- /bin/sh -c 'exit 3'
expect_err "exited with status 3" "exit 3"
expect_rc 143 "SIGTERM" "$sp" run -c main -- /bin/sh -c 'kill -TERM $$'
expect_err "killed by signal 15" "SIGTERM"

# Nothing seen is said, -q or not, with the reasons: no statistics at all
# (sh writes none), a -c name no thread had (with the names seen), and
# critical threads that ran without one lock wait.
expect_rc 0 "no statistics" "$sp" run -q -c main -- /bin/sh -c 'exit 0'
expect_err "superpass run: warning: no statistics came back from /bin/sh" "no statistics"
expect_err "statically linked" "no statistics"
expect_err "superpass kmod" "no statistics"
! grep -q "exited with status" "$tmp/err" || cli_fail "-q: the note of the exit status printed"
expect_rc 0 "unmatched -c" "$sp" run -c main,no-such-thread -- "$probe" contend 20000 none
expect_err "superpass run: warning: -c no-such-thread: no thread of $probe that took a lock the interposer sees had that name; the names seen: " "unmatched -c"
expect_err "holder" "unmatched -c"
! grep -q "warning: -c main" "$tmp/err" || cli_fail "unmatched -c: main warned of, but it matched"
! grep -q "no lock wait" "$tmp/err" || cli_fail "unmatched -c: a wait was seen, said it was not"
expect_rc 0 "no wait seen" "$sp" run -q -c main -- "$probe" threads
expect_err "superpass run: warning: the critical threads ran but no lock wait of theirs was seen" "no wait seen"
expect_err "Go's, whose system calls bypass libc" "no wait seen"
expect_err "Go's os.Exit" "no wait seen"
expect_err "superpass kmod" "no wait seen"
expect_err "blockings 0" "no wait seen"
! grep -q "warning: -c" "$tmp/err" || cli_fail "no wait seen: -c main warned of, but it matched"

# A real critical blocking: the probe's main thread waits for a nice 19
# holder. The summary has its count, percentiles and the fast track. A file
# an earlier run left under a name --stats gives again is not the
# command's: not in the summary, but said.
printf '{ "blockings": 99 }\n' >"$tmp/st-1.json"
touch -d '2020-01-01 00:00' "$tmp/st-1.json"
expect_rc 0 "summary" "$sp" run -c main --k 2 --prio 3 --stats "$tmp/st-%p.json" -- \
	"$probe" contend 20000 none
for t in "critical threads main: sp_probe (tid" "blockings 1: P50" "P99.9" "max" "grants 1" \
	"budget expiries 0" "throttles 0" \
	"(1 statistics file of that name from before this run: not read)"; do
	expect_err "$t" "summary"
done
if grep -q "pid 1[ ,]\|blockings 99" "$tmp/err"; then
	cli_fail "the summary read an earlier run's file:"; cat "$tmp/err"
fi
rm -f "$tmp/st-1.json"
ls "$tmp"/st-*.json >/dev/null 2>&1 || cli_fail "--stats file missing"
grep -q '"blockings": 1' "$tmp"/st-*.json || cli_fail "--stats JSON"

# Overflow, limit and suspicion counters that are not zero: each in the
# summary with what it means and what to change, and only those. The
# command leaves a statistics file like the one of a run at scale (under a
# pid that is not its own: a process of the command with no blocking of
# its own, which the summary must not fold into "nothing to say").
printf '%s\n' '{ "pid": 999999, "mode": "fifo", "core": true, "blockings": 0,' \
	'"grants": 40, "grant_overflows": 2821, "waiter_overflows": 1300,' \
	'"depth_limited": 4867, "deadlocks": 701, "stale_events": 34064,' \
	'"reader_overflows": 5, "task_overflows": 0, "expiries": 3, "threads": [] }' \
	>"$tmp/scale.json"
expect_rc 0 "summary of limits" "$sp" run -c main --stats "$tmp/ov-%p.json" -- \
	cp "$tmp/scale.json" "$tmp/ov-999999.json"
for t in "pid 999999" "limits hit and suspicions (what it means; what to change):" \
	"grant_overflows 2821: grant table full;" \
	"Change: no SUPERPASS_ setting or option: the interposer's max_grants is 256" \
	"waiter_overflows 1300: waiters beyond the waiter slots;" \
	"the interposer's waiters_per_lock is 8" \
	"depth_limited 4867: walks cut by max_depth" "the interposer's max_depth is 8" \
	"deadlocks 701: cycles of waits" "fix the order" \
	"stale_events 34064: release/unblock not matching the graph;" \
	"reader_overflows 5: readers beyond K" "--k N (SUPERPASS_READERS=N), 1..64, default 4" \
	"expiries 3:" "--budget-us N (SUPERPASS_BUDGET_US=N, default 20000"; do
	expect_err "$t" "summary of limits"
done
for t in "task_overflows" "lock_overflows" "bad_events" "more process"; do
	! grep -qF -- "$t" "$tmp/err" || { cli_fail "summary of limits: '$t' printed:"; cat "$tmp/err"; }
done
[ "$(grep -c "grant_overflows" "$tmp/err")" = 1 ] ||
	{ cli_fail "summary of limits: grant_overflows not told exactly once:"; cat "$tmp/err"; }

# The settings reach the command; an LD_PRELOAD that was set is kept.
# (ASan would refuse to start a sanitized superpass with libm preloaded
# before its runtime: that check is for superpass itself, not for CMD.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
LD_PRELOAD=/lib/x86_64-linux-gnu/libm.so.6 expect_rc 0 "environment" \
	"$sp" run -q -c main,sp-ui --k 2 --prio 3 --budget-us 500 --mode nice -- /usr/bin/env
for t in "SUPERPASS_CRITICAL=main,sp-ui" "SUPERPASS_READERS=2" "SUPERPASS_PRIO=3" \
	"SUPERPASS_BUDGET_US=500" "SUPERPASS_MODE=nice"; do
	grep -qF -- "$t" "$tmp/out" || cli_fail "environment lacks $t"
done
# (a sanitized build puts its sanitizer runtime first)
grep -q '^LD_PRELOAD=\(.*:\)\?/lib/x86_64-linux-gnu/libm.so.6:.*libsuperpass-preload\.so\.[0-9][0-9]*$' "$tmp/out" ||
	{ cli_fail "LD_PRELOAD not kept, or no interposer:"; grep LD_PRELOAD "$tmp/out"; }

# The examples run as their comments say, without an error.
ex=$build/examples
if [ -x "$ex/example_interposer" ]; then
	expect_rc 0 "example_interposer" "$sp" run -c render -- "$ex/example_interposer"
	grep -q "^render: worst wait for its locks" "$tmp/out" || cli_fail "example_interposer: no result"
	grep -q "^    blockings [1-9]" "$tmp/err" || { cli_fail "example_interposer: no blocking seen:"; cat "$tmp/err"; }
	! grep -q "warning" "$tmp/err" || { cli_fail "example_interposer: warned:"; cat "$tmp/err"; }
	expect_rc 0 "example_runtime" "$ex/example_runtime"
	grep -q '"blockings": ' "$tmp/out" || cli_fail "example_runtime: no statistics JSON on stdout"
	[ ! -s "$tmp/err" ] || { cli_fail "example_runtime: stderr not empty:"; cat "$tmp/err"; }
	expect_rc 0 "sp_policy_demo" "$ex/sp_policy_demo"
	[ ! -s "$tmp/err" ] || { cli_fail "sp_policy_demo: stderr not empty:"; cat "$tmp/err"; }
else
	echo "note: no examples in $ex (SUPERPASS_EXAMPLES off?)"
fi

# Installed: the copy in PREFIX/bin uses PREFIX/LIBDIR's interposer.
if [ "$libdir" = lib ]; then
	cmake --install "$build" --prefix "$tmp/inst" >/dev/null
	LD_LIBRARY_PATH="$tmp/inst/lib" expect_rc 0 "installed" \
		"$tmp/inst/bin/superpass" run -q -c main -- /usr/bin/env
	grep -q "^LD_PRELOAD=.*$tmp/inst/lib/libsuperpass-preload.so" "$tmp/out" ||
		{ cli_fail "installed copy used another interposer:"; grep LD_PRELOAD "$tmp/out"; }
else
	echo "note: CMAKE_INSTALL_LIBDIR=$libdir: install check needs 'lib' (relocatable)"
fi
exit "$fail"
