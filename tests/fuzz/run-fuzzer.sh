#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Runs one libFuzzer target of tests/fuzz on its seeds.
#   run-fuzzer.sh FUZZER LIMIT [-LIBFUZZER_OPTION ...] SEED...
# LIMIT: N (ctest: the seeds, then N inputs more, -seed=1: the same inputs
# every run) or Ns (a long run: N seconds). A SEED is a directory or a
# .tar.gz of one (unpacked). The inputs it finds go to $SP_FUZZ_OUT/new
# (emptied first), a crash's input to $SP_FUZZ_OUT/crash-*; SP_FUZZ_OUT
# defaults to $TMPDIR/superpass-fuzz-NAME. Exit status: libFuzzer's (0: no
# crash, leak, timeout or sanitizer report).
set -eu
fz=$1 limit=$2
shift 2
name=$(basename "$fz")
out=${SP_FUZZ_OUT:-${TMPDIR:-/tmp}/superpass-fuzz-$name}
rm -rf "$out/new" "$out/seeds"
mkdir -p "$out/new" "$out/seeds"
abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
fz=$(abs "$fz")
opts= seeds= nseeds=0
for a in "$@"; do
	case $a in
	-dict=*) opts="$opts -dict=$(abs "${a#-dict=}")" ;;
	-*) opts="$opts $a" ;;
	*.tar.gz)
		d=$out/seeds/$(basename "$a" .tar.gz)
		mkdir -p "$d"
		tar -xzf "$(abs "$a")" -C "$d"
		seeds="$seeds $d" ;;
	*) seeds="$seeds $(abs "$a")" ;;
	esac
done
for d in $seeds; do
	nseeds=$((nseeds + $(find "$d" -type f | wc -l)))
done
case $limit in
*s) opts="$opts -max_total_time=${limit%s}" ;;
*) opts="$opts -runs=$((nseeds + limit)) -seed=1" ;;
esac
cd "$out"
# shellcheck disable=SC2086
exec "$fz" -max_len=4096 -timeout=20 -rss_limit_mb=2560 -print_final_stats=1 \
	-artifact_prefix="$out/" $opts "$out/new" $seeds
