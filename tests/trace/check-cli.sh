#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# ctest trace_cli: `superpass analyze` exit codes and messages on good and
# bad input. usage: check-cli.sh SUPERPASS FIXTURES
set -u
sp=$1 fx=$2
. "$(dirname "$0")/../cli-lib.sh"
expect() { # CODE PATTERN(stderr+stdout) CMD...
	cli_expect_output "$@" || :
}
expect 0 "waiter (tid" "$sp" analyze "$fx/lockpair-record.trace.gz" --critical waiter \
	--json "$tmp/a.json" --chrome "$tmp/a.chrome.json" --svg "$tmp/a.svg"
[ -s "$tmp/a.json" ] && [ -s "$tmp/a.chrome.json" ] && [ -s "$tmp/a.svg" ] || cli_fail "outputs"
expect 0 "waiter (tid" "$sp" analyze "$fx/lockpair.dat.gz" --critical waiter
: > "$tmp/empty"
expect 2 "no event to analyse" "$sp" analyze "$tmp/empty"
expect 2 "No such file" "$sp" analyze "$tmp/missing"
head -c 20000 "$sp" > "$tmp/binary"
expect 2 "binary data" "$sp" analyze "$tmp/binary"
printf 'garbage line\n  x-1 [000] ..... 1.0: sched_waking: comm=a\n' > "$tmp/bad.txt"
expect 2 "line 2" "$sp" analyze "$tmp/bad.txt"
expect 2 "--tid wants an integer in \[1, 2147483647\], got 'abc'" "$sp" analyze "$tmp/bad.txt" --tid abc
expect 2 "--tid wants an integer in \[1, 2147483647\], got '0'" "$sp" analyze "$tmp/bad.txt" --tid 0
expect 2 "--tid: empty item" "$sp" analyze "$tmp/bad.txt" --tid 5,,6
expect 2 "--threads wants an integer in \[1, 8\], got '0'" "$sp" analyze "$tmp/bad.txt" --threads 0
expect 2 "--threads wants an integer in \[1, 8\], got '9'" "$sp" analyze "$tmp/bad.txt" --threads 9
expect 2 "--worst wants an integer in \[0, 1000\], got '5x'" "$sp" analyze "$tmp/bad.txt" --worst 5x
expect 0 "waiter (tid" "$sp" analyze "$fx/lockpair-record.trace.gz" --critical waiter --threads 2
# a gzip bomb that says .dat: refused at the limit, which is named
{ printf '\027\010\104tracing'; head -c 16777216 /dev/zero; } | gzip -1 > "$tmp/bomb.dat.gz"
expect 2 "expands past 4 MiB.*gunzip -k" env SUPERPASS_TRACE_GZ_MAX_MIB=4 \
	"$sp" analyze "$tmp/bomb.dat.gz"
expect 2 "SUPERPASS_TRACE_GZ_MAX_MIB wants MiB.*got '0'" env SUPERPASS_TRACE_GZ_MAX_MIB=0 \
	"$sp" analyze "$tmp/bomb.dat.gz"
expect 2 "which trace" "$sp" analyze
# a text file that is no trace at all: said so, with how many lines
printf 'root:x:0:0:root:/root:/bin/bash\nbin:x:1:1:bin:/bin:/usr/sbin/nologin\n' > "$tmp/passwd"
expect 2 "^superpass analyze: .*passwd: not a trace: 2 of 2 lines unparsable" \
	"$sp" analyze "$tmp/passwd"
# the convention of every subcommand: prefix, exit 2, getopt's messages ours
expect 2 "^superpass analyze: unknown option '-x'" "$sp" analyze -x "$tmp/passwd"
expect 2 "^superpass analyze: unknown option '--foo'" "$sp" analyze --foo=1 "$tmp/passwd"
expect 2 "^superpass analyze: option '--json' needs a value" "$sp" analyze "$tmp/passwd" --json
# a selection that matches nothing is warned of, with the names seen
expect 0 "^superpass analyze: warning: --critical nosuch: no thread.*waiter" \
	"$sp" analyze "$fx/lockpair-record.trace.gz" --critical nosuch,waiter
expect 0 "^superpass analyze: warning: --tid 2147483647: no thread" \
	"$sp" analyze "$fx/lockpair-record.trace.gz" --tid 2147483647
cli_run "$sp" analyze "$fx/lockpair-record.trace.gz" --critical waiter
! grep -q warning "$tmp/err" || cli_fail "a selection that matched warned: $(cat "$tmp/err")"
# --no-summary: nothing on stdout; -q keeps the results
cli_run "$sp" analyze "$fx/lockpair-record.trace.gz" --critical waiter --no-summary
[ "$rc" = 0 ] && [ ! -s "$tmp/out" ] || cli_fail "--no-summary: exit $rc, stdout $(wc -c <"$tmp/out") bytes"
expect 0 "waiter (tid" "$sp" analyze "$fx/lockpair-record.trace.gz" --critical waiter -q
cli_expect_conventions "superpass analyze" 2 --json "$sp" analyze "$fx/lockpair-record.trace.gz"
cli_expect_conventions "superpass record" 2 --output "$sp" record
expect 0 "usage: superpass analyze" "$sp" analyze --help
expect 2 "give a command" "$sp" record
exit "$fail"
