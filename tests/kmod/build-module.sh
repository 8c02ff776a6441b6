#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest "kmod.build-SERIES": the kernel compile check.
#   build-module.sh [SERIES [ARCH]]  SERIES: 6.1, 6.12 (a kernel release prefix)
#                                    ARCH: amd64 (default) or arm64 (cross,
#                                    ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
# Builds superpass.ko with warnings as errors (WERROR=1, as CI wants; a plain
# or DKMS build never uses -Werror) against KDIR, else the newest Debian
# /usr/src/linux-headers-SERIES.*-amd64 (no SERIES: the newest of all; never
# kmod/Makefile's default, which follows whatever headers were installed last),
# out of tree into a temporary directory (or OUT), and checks that the
# build left the source tree as it found it: `git status --porcelain
# --ignored` (ignored files too: the top .gitignore hides *.o and *.ko) is
# the same before and after. Exit 77 (skip) only when no kernel headers
# are installed at all.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SERIES=${1:-}
ARCH=${2:-amd64}
case "$ARCH" in
amd64) KMAKE=() ;;
arm64)
	KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		{ echo "SKIP: aarch64-linux-gnu-gcc missing (tests/setup-debian.sh installs gcc-aarch64-linux-gnu)"; exit "${SUPERPASS_SKIP_CODE:-77}"; }
	;;
*) echo "build-module.sh: ARCH: amd64 or arm64, not '$ARCH'" >&2; exit 2 ;;
esac
if [ -z "${KDIR:-}" ]; then
	# Not the PREEMPT_RT headers (-rt-amd64): the module refuses them
	# (build-rt-refusal.sh).
	KDIR=$(ls -d /usr/src/linux-headers-${SERIES:+$SERIES.}*-$ARCH 2>/dev/null | grep -v -- "-rt-$ARCH\$" | sort -V | tail -1 || true)
	[ -n "$KDIR" ] || { echo "SKIP: no /usr/src/linux-headers-${SERIES:+$SERIES.}*-$ARCH (tests/setup-debian.sh installs 6.1 and 6.12 for amd64, 6.1 for arm64)"; exit "${SUPERPASS_SKIP_CODE:-77}"; }
fi
echo "== superpass.ko against $KDIR"
if [ -z "${OUT:-}" ]; then
	OUT=$(mktemp -d "${TMPDIR:-/tmp}/superpass-kmod.XXXXXX")
	trap 'rm -rf "$OUT"' EXIT
fi

# Outside a git checkout (a release tarball) there is nothing to compare.
tree_state() {
	if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$ROOT" status --porcelain --ignored
	fi
}
before=$(tree_state)

make -C "$ROOT/kmod" "${KMAKE[@]}" KDIR="$KDIR" OUT="$OUT" WERROR=1
modinfo "$OUT/superpass.ko" | grep -E "^(filename|version|license|vermagic|parm)"

after=$(tree_state)
if [ "$before" != "$after" ]; then
	echo "FAIL: building the module changed the source tree (- before, + after):"
	diff -u <(printf '%s\n' "$before") <(printf '%s\n' "$after") || true
	exit 1
fi
echo "ok: superpass.ko built in $OUT; the source tree is unchanged"
