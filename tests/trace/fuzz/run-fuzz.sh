#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Fuzzes the ftrace text reader and the analysis with libFuzzer (clang
# -fsanitize=fuzzer,address,undefined), by hand, for long runs; CI runs the
# same target for a fixed number of inputs (tests/fuzz, ctest fuzz.trace).
#   run-fuzz.sh [SECONDS]   (default 600)
# corpus/ holds the seeds (slices of the fixtures, every text form) and
# corpus-min.tar.gz what earlier runs found, minimised (-merge=1); both are
# unpacked into $TMPDIR/superpass-fuzz/corpus, where new finds go. Crashes
# land in $TMPDIR/superpass-fuzz. To refresh the tarball after a run:
#   ./fuzz_trace_text -merge=1 min corpus && tar -C min -czf corpus-min.tar.gz .
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
secs=${1:-600}
out=${TMPDIR:-/tmp}/superpass-fuzz
mkdir -p "$out/corpus"
tar -xzf "$here/corpus-min.tar.gz" -C "$out/corpus"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I "$root/include" -I "$root/lib/os" -I "$root/lib/core" -I "$root/lib/util" \
	-I "$root/lib/analysis/trace" -I "$here/../helpers" \
	"$here/fuzz_trace_text.c" "$root"/lib/analysis/trace/sp_trace_*.c "$root/lib/core/sp_hist.c" \
	$(pkg-config --cflags --libs libtracecmd json-c zlib) -pthread -lm -o "$out/fuzz_trace_text"
# libtraceevent's own leaks are not looked at: the .dat reader is not fuzzed here
cd "$out"
LSAN_OPTIONS=suppressions=$here/../lsan.supp \
	./fuzz_trace_text -max_total_time="$secs" -max_len=4096 -timeout=10 \
	-print_final_stats=1 "$out/corpus" "$here/corpus" 2>&1 | tail -25
