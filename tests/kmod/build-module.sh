#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ctest "kmod_build": the kernel compile check. Builds superpass.ko with
# warnings as errors against the newest Debian linux-headers-*-amd64 (or
# KDIR). Exit 77 (skip) only when no kernel headers are installed at all.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ -z "${KDIR:-}" ]; then
	KDIR=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -1 || true)
	[ -n "$KDIR" ] || { echo "SKIP: no /usr/src/linux-headers-*-amd64 (apt-get install linux-headers-amd64)"; exit "${SUPERPASS_SKIP_CODE:-77}"; }
fi
make -C "$ROOT/kmod" KDIR="$KDIR"
modinfo "$ROOT/kmod/superpass.ko" | grep -E "^(filename|license|vermagic|parm)"
