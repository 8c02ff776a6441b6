#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Installs what building and testing superpass needs on Debian 12.
# Runs apt-get as root (through sudo when not root). Safe to run again.
set -euo pipefail

packages=(
	build-essential cmake pkg-config          # userspace build
	libcmocka-dev liburcu-dev                 # tests, RCU for the core
	libjson-c-dev                             # superpass::sim reads rt-app JSON
	rt-app                                    # the same workloads on the real kernel
	linux-headers-amd64 kmod                  # kernel module build
	qemu-system-x86 linux-image-amd64         # kernel module end-to-end test
	busybox-static cpio
	libtracecmd-dev libtraceevent-dev libtracefs-dev  # superpass::trace, record
	libjson-c-dev zlib1g-dev trace-cmd        # analyze output, gzip traces, fixtures
)

as_root=()
if [ "$(id -u)" -ne 0 ]; then
	as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
