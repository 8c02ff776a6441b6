# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# Cross build for 64-bit Arm Linux (aarch64) on a Debian host:
#
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#   cmake --build build-arm64 -j2
#   ctest --test-dir build-arm64     # the arm64 binaries, run by qemu-user
#
# What it needs (tests/setup-debian.sh installs it): gcc-aarch64-linux-gnu,
# libc6-dev-arm64-cross, the arm64 -dev packages beside the amd64 ones
# (dpkg --add-architecture arm64; liburcu-dev:arm64, libcmocka-dev:arm64,
# libjson-c-dev:arm64) and qemu-user-static for the tests. Debian's cross
# gcc searches the multiarch directories (/usr/include/aarch64-linux-gnu,
# /usr/lib/aarch64-linux-gnu) by itself; pkg-config is pointed at the
# arm64 .pc files only, so that no amd64 library can be picked up.
#
# libtracecmd-dev is not Multi-Arch: same (it cannot be installed for
# arm64 beside the amd64 one), so SUPERPASS_TRACE defaults to AUTO in a
# cross build: superpass::trace, superpass::replay and the record, analyze
# and replay commands are built only if their libraries are found.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(SP_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${SP_CROSS_TRIPLE}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${SP_CROSS_TRIPLE})

# Atomics: GCC's -moutline-atomics (its default for aarch64 since GCC 10,
# spelled out here so that the choice does not depend on the compiler's
# build) calls libgcc helpers that use the ARMv8.1 LSE instructions (CAS,
# LDADD, SWP) when the CPU has them and LL/SC loops otherwise, chosen once
# at startup from HWCAP_ATOMICS. So one binary runs on ARMv8.0 cores (the
# Cortex-A53/A57 of many boards, QEMU's cortex-a57) and uses LSE on phones
# (Pixel 8's Cortex-X3/A715/A510 are ARMv9). -march=armv8.1-a would inline
# LSE and fault on v8.0; -mno-outline-atomics would inline LL/SC, which
# scales worse under contention on big cores. The helpers are linked
# statically from libgcc.a into each binary and library (hidden symbols):
# no PLT hop, nothing to export. The kernel module is not built here: Linux
# uses no compiler atomics (its atomic64_* are inline asm patched to LSE at
# boot), and a stray __atomic builtin there would fail modpost on an
# undefined __aarch64_* helper, so it cannot slip in unnoticed.
set(CMAKE_C_FLAGS_INIT "-moutline-atomics")

# Libraries and headers of the target only; programs (pkg-config, the
# shells of the tests) of the host.
set(CMAKE_FIND_ROOT_PATH /usr/${SP_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${SP_CROSS_TRIPLE}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# ctest runs the test programs through qemu-user. With binfmt_misc
# registered (tests/setup-debian.sh) arm64 binaries also start directly,
# which the tests that are shell scripts around a binary rely on.
find_program(SP_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64)
if(SP_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${SP_QEMU_AARCH64})
endif()
