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
	linux-headers-amd64 kmod                  # kernel module build (6.1)
	linux-headers-rt-amd64                    # kmod_build_rt: PREEMPT_RT is refused (6.1)
	qemu-system-x86 linux-image-amd64         # kernel module end-to-end test (6.1)
	dwarves                                   # pahole: the 6.12 headers' BTF step
	busybox-static cpio
	libtracecmd-dev libtraceevent-dev libtracefs-dev  # superpass::trace, record
	libjson-c-dev zlib1g-dev trace-cmd        # analyze output, gzip traces, fixtures
)

as_root=()
if [ "$(id -u)" -ne 0 ]; then
	as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
# Linux 6.12 (the current LTS) next to bookworm's 6.1: bookworm-backports,
# a suite of Debian's own archive. kmod_build_6.12 / kmod_qemu_6.12 use it.
if [ ! -e /etc/apt/sources.list.d/bookworm-backports.sources ]; then
	printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
		'Suites: bookworm-backports' 'Components: main' \
		'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
		"${as_root[@]}" tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
fi

"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"
# Keep 6.1: not the backports metapackages (they would replace 6.1's) and
# not -t (it upgrades every related package, linux-libc-dev too), but 6.12's
# versioned packages, by the names the backports metapackages depend on today,
# each taken from backports (PKG/bookworm-backports).
bpo_deps() { apt-cache depends "$1/bookworm-backports" 2>/dev/null |
	sed -n 's/^  Depends: \(linux-[a-z]*-6\.12\.[^ ]*-amd64\(-unsigned\)\?\)$/\1/p' | head -1; }
k612_image=$(bpo_deps linux-image-amd64)
k612_headers=$(bpo_deps linux-headers-amd64)
if [ -z "$k612_image" ] || [ -z "$k612_headers" ]; then
	echo "setup-debian: no Linux 6.12 in bookworm-backports (image '$k612_image', headers '$k612_headers')" >&2
	exit 1
fi
"${as_root[@]}" apt-get install -y -q --no-install-recommends \
	"$k612_image/bookworm-backports" "$k612_headers/bookworm-backports"
