#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest "kmod.build-rt": superpass.ko refuses PREEMPT_RT kernels (kmod/Kbuild
# says why): building against Debian's linux-headers-*-rt-amd64 must stop
# before compiling anything, with exactly one "superpass: PREEMPT_RT" line.
#   build-rt-refusal.sh [SERIES]     KDIR= overrides the headers
# Exit 77 (skip) when no rt headers are installed (tests/setup-debian.sh
# installs 6.1's).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SERIES=${1:-}
if [ -z "${KDIR:-}" ]; then
	KDIR=$(ls -d /usr/src/linux-headers-${SERIES:+$SERIES.}*-rt-amd64 2>/dev/null | sort -V | tail -1)
	[ -n "$KDIR" ] || { echo "SKIP: no /usr/src/linux-headers-${SERIES:+$SERIES.}*-rt-amd64 (apt-get install linux-headers-rt-amd64)"; exit "${SUPERPASS_SKIP_CODE:-77}"; }
fi
grep -qs '^CONFIG_PREEMPT_RT=y' "$KDIR/.config" || { echo "FAIL: $KDIR is not a PREEMPT_RT kernel's headers"; exit 1; }
OUT=$(mktemp -d "${TMPDIR:-/tmp}/superpass-kmod-rt.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
echo "== superpass.ko against $KDIR (PREEMPT_RT): the build must refuse"
out=$(make -C "$ROOT/kmod" KDIR="$KDIR" OUT="$OUT" WERROR=1 2>&1)
rc=$?
echo "$out"
fails=0
[ $rc != 0 ] || { echo "FAIL: the build succeeded"; fails=1; }
n=$(grep -c 'superpass: PREEMPT_RT kernel: not supported (mutexes and rwsems are rt_mutex based' <<<"$out")
[ "$n" = 1 ] || { echo "FAIL: $n refusal lines (want 1)"; fails=1; }
# It stopped before the compiler ran: no object, no compiler diagnostic.
if grep -qE '(error|warning):' <<<"$out" || ls "$OUT"/*.o >/dev/null 2>&1; then
	echo "FAIL: the compiler ran before the refusal"; fails=1
fi
[ $fails = 0 ] || exit 1
echo "ok: refused in one line"
