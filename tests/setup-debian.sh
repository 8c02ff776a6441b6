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
	rt-tests                                  # cyclictest: the wakeup floor behind boost_us
	linux-headers-amd64 kmod                  # kernel module build (6.1)
	linux-headers-rt-amd64                    # kmod.build-rt: PREEMPT_RT is refused (6.1)
	qemu-system-x86 linux-image-amd64         # kernel module end-to-end test (6.1)
	dwarves                                   # pahole: the 6.12 headers' BTF step
	busybox-static cpio
	libtracecmd-dev libtraceevent-dev libtracefs-dev  # superpass::trace, record
	libjson-c-dev zlib1g-dev trace-cmd        # analyze output, gzip traces, fixtures
	python3                                   # checks/layering.py: the layout tests
	librsvg2-bin                              # rsvg-convert: cli.svg renders the SVGs
	clang libclang-rt-dev                     # libFuzzer: run-all.sh's fuzz build (tests/fuzz)
	scdoc groff-base man-db                   # manual pages (docs/man) and cli.man's render check
	bash-completion                           # cli.completion: the completion under bash-completion
	g++ libglib2.0-dev rustc golang-go        # examples/coverage: the workload in C++, GLib, Rust, Go
	openjdk-17-jdk-headless                   # ... in Java (python3 above: ... in Python)
)

as_root=()
if [ "$(id -u)" -ne 0 ]; then
	as_root=(sudo)
fi

export DEBIAN_FRONTEND=noninteractive
# Linux 6.12 (the current LTS) next to bookworm's 6.1: bookworm-backports,
# a suite of Debian's own archive. kmod.build-6.12 / kmod.qemu-6.12 use it.
if [ ! -e /etc/apt/sources.list.d/bookworm-backports.sources ]; then
	printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
		'Suites: bookworm-backports' 'Components: main' \
		'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' |
		"${as_root[@]}" tee /etc/apt/sources.list.d/bookworm-backports.sources >/dev/null
fi

# arm64 (tests/run-all.sh's arm64 stage): the project's libraries and tests
# cross-built (cmake/aarch64-linux-gnu.cmake) against Debian's arm64 -dev
# packages, which install beside the amd64 ones (Multi-Arch: same), and run
# under qemu-user; the kernel module cross-built and booted in
# qemu-system-aarch64. libtracecmd-dev is not Multi-Arch: same, so the arm64
# build leaves superpass::trace, superpass::replay and their commands out.
arm64_packages=(
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross   # cross compiler, static libc
	qemu-user-static qemu-system-arm              # arm64 binaries, arm64 guest
	libcmocka-dev:arm64 liburcu-dev:arm64 libjson-c-dev:arm64
)
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	"${as_root[@]}" dpkg --add-architecture arm64
fi

"${as_root[@]}" apt-get update -q
"${as_root[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}" "${arm64_packages[@]}"
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

# ---- arm64: qemu-user for the cross-built tests, the guest kernel and busybox ----
# Register qemu-aarch64 with binfmt_misc, so that the arm64 test binaries
# (and the scripts that run them) start like native ones. systemd-binfmt
# does it at boot where systemd runs; a container or CI runner may have
# neither it nor binfmt_misc mounted. The F flag opens the interpreter
# now, so it works in any mount namespace later.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/register" ]; then
	"${as_root[@]}" mount -t binfmt_misc binfmt_misc "$binfmt"
fi
if [ ! -e "$binfmt/qemu-aarch64" ]; then
	conf=/usr/lib/binfmt.d/qemu-aarch64.conf
	[ -r "$conf" ] || { echo "setup-debian: $conf missing (qemu-user-static)" >&2; exit 1; }
	"${as_root[@]}" sh -c "cat '$conf' > '$binfmt/register'"
fi

# The arm64 kernel of the same Debian release as the amd64 6.1 headers
# installed above, at exactly their version: its headers package must sit
# beside the installed linux-headers-REL-common (it is symlinks into it)
# and depends on a native arm64 gcc we do not want, so it is unpacked
# (dpkg -x), not installed; the amd64 linux-kbuild-6.1 serves the cross
# build. The image (its linux-image package would pull arm64 kmod and
# initramfs-tools) and busybox-static:arm64 (it conflicts with the amd64
# one) are unpacked into $arm64_guest. A stamp holding the version makes
# each step happen once per kernel version.
arm64_guest=/usr/local/lib/superpass-arm64
rel=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	sed -n 's/.*linux-headers-\(6\.1\.[^ ,]*\)-amd64.*/\1/p')
[ -n "$rel" ] || { echo "setup-debian: cannot tell the 6.1 release of linux-headers-amd64" >&2; exit 1; }
kver=$(dpkg-query -W -f='${Version}' "linux-headers-$rel-common")
bbver=$(apt-cache policy busybox-static:arm64 | sed -n 's/^  Candidate: //p')
unpack_deb() { # PACKAGE=VERSION DESTDIR: download and unpack, not install
	local tmp
	tmp=$(mktemp -d)
	chmod 755 "$tmp"   # apt's _apt user downloads into it
	(cd "$tmp" && apt-get download -q "$1" >/dev/null) &&
		"${as_root[@]}" dpkg-deb -x "$tmp"/*.deb "$2"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}
hdr=/usr/src/linux-headers-$rel-arm64
if [ "$(cat "$hdr/.superpass-deb-version" 2>/dev/null)" != "$kver" ]; then
	stage=$(mktemp -d)
	unpack_deb "linux-headers-$rel-arm64:arm64=$kver" "$stage"
	"${as_root[@]}" rm -rf "$hdr"
	"${as_root[@]}" mv "$stage/usr/src/linux-headers-$rel-arm64" "$hdr"
	"${as_root[@]}" rm -rf "$stage"
	echo "$kver" | "${as_root[@]}" tee "$hdr/.superpass-deb-version" >/dev/null
fi
"${as_root[@]}" mkdir -p "$arm64_guest"
if [ "$(cat "$arm64_guest/.vmlinuz-$rel-arm64.version" 2>/dev/null)" != "$kver" ]; then
	stage=$(mktemp -d)
	unpack_deb "linux-image-$rel-arm64:arm64=$kver" "$stage"
	"${as_root[@]}" cp "$stage/boot/vmlinuz-$rel-arm64" "$stage/boot/config-$rel-arm64" "$arm64_guest/"
	"${as_root[@]}" rm -rf "$stage"
	echo "$kver" | "${as_root[@]}" tee "$arm64_guest/.vmlinuz-$rel-arm64.version" >/dev/null
fi
if [ "$(cat "$arm64_guest/.busybox.version" 2>/dev/null)" != "$bbver" ]; then
	stage=$(mktemp -d)
	unpack_deb "busybox-static:arm64=$bbver" "$stage"
	"${as_root[@]}" cp "$stage/bin/busybox" "$arm64_guest/busybox"
	"${as_root[@]}" rm -rf "$stage"
	echo "$bbver" | "${as_root[@]}" tee "$arm64_guest/.busybox.version" >/dev/null
fi
