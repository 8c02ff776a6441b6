#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The whole test suite, as CI runs it: four builds of everything with
# warnings as errors (plain, static libraries, AddressSanitizer+UBSan,
# ThreadSanitizer), each running every ctest test, an arm64 cross build
# whose tests run under qemu-user, and a clang build of the fuzz targets
# (label "fuzz"). The kernel-module tests (label "kmod": the module build
# and the QEMU boot) run in the plain build (amd64) and the
# arm64 build (arm64) only: sanitizer flags do not apply to the kernel, and
# the static build's libraries are not the module's.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# Tests that lack a prerequisite (kernel headers, QEMU, root) exit 77 and
# ctest reports them skipped; here, where tests/setup-debian.sh installed
# everything, a missing prerequisite is a failure.
export SUPERPASS_SKIP_CODE=1
out=${SUPERPASS_TEST_DIR:-$root/build-test}
jobs=$(nproc)

stage() { echo "=== superpass: $1 ==="; }
elapsed() { echo "=== superpass: $1 took $(( $(date +%s) - $2 )) s ==="; }

configure_build() {
	local name=$1
	shift
	cmake -S "$root" -B "$out/$name" -DSUPERPASS_WERROR=ON "$@"
	cmake --build "$out/$name" -j "$jobs"
}

test_build() {
	local name=$1
	shift
	ctest --test-dir "$out/$name" --output-on-failure --timeout 900 "$@"
}

# The QEMU boots (label "qemu": 6.1 and 6.12 amd64, 6.1 arm64) are most of
# the time, and each keeps one core busy (TCG with one host thread,
# tests/kmod/run-qemu-test.sh says why): so the two amd64 boots run at
# once, and the arm64 boot runs beside the sanitizer builds' compiles.
# Everything else runs as before, alone: the other tests keep the whole
# machine they were written for (no test runs while a boot runs, except
# the other boot). A boot's figures are benchmark output, never asserted.
t0=$(date +%s)

# SUPERPASS_DEBUG_CHECKS: a failed SP_ASSERT (a count below zero, a
# broken invariant) aborts the test instead of printing and going on.
stage "plain build"
configure_build plain -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_DEBUG_CHECKS=ON
test_build plain -LE qemu
# -FA: the module builds (their fixture setup) ran just above.
stage "plain build: the amd64 QEMU boots (6.1 and 6.12 at once)"
t=$(date +%s)
test_build plain -L qemu -j 2 -FA 'kmod\.built-.*'
elapsed "amd64 QEMU boots" "$t"

# arm64: everything cross-built (cmake/aarch64-linux-gnu.cmake; without
# superpass::trace and replay, whose libtracecmd-dev Debian cannot install
# for arm64 beside amd64's), its tests run as arm64 binaries under
# qemu-user, in one plain build (the sanitizers are the amd64 builds' job);
# its kmod tests are the arm64 module's (tests/kmod/CMakeLists.txt): built
# and booted in qemu-system-aarch64, the guest using this build's arm64
# superpass command. The few checks qemu-user cannot support (robust
# futexes, set-user-ID, execveat) skip inside their programs, saying why;
# any test that exits 77 here (a prerequisite missing) still fails, as
# above.
stage "arm64 build"
t=$(date +%s)
configure_build arm64 -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_DEBUG_CHECKS=ON
test_build arm64 -LE qemu
stage "arm64 build: the arm64 QEMU boot, beside the sanitizer and static builds' compiles"
boot_log=$out/arm64-qemu-boot.log
# Its own session, so that a failure below can stop it and its QEMU.
setsid bash -c 'cd "$1" && shift && exec "$@"' _ "$PWD" \
	ctest --test-dir "$out/arm64" --output-on-failure --timeout 900 -L qemu -FA 'kmod\.built-.*' \
	>"$boot_log" 2>&1 &
boot_pid=$!
trap 'kill -- -"$boot_pid" 2>/dev/null || true' EXIT
# Sanitizer flags do not apply to the kernel: no kmod tests there.
stage "asan build (compile)"
configure_build asan -DCMAKE_BUILD_TYPE=Debug -DSUPERPASS_SANITIZE=address,undefined
stage "tsan build (compile)"
configure_build tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_SANITIZE=thread \
	-DSUPERPASS_DEBUG_CHECKS=ON
# Static libraries: no version script hides a library's internal globals,
# so a name clash between them and libc or the program shows here.
stage "static build (compile)"
configure_build static -DBUILD_SHARED_LIBS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	-DSUPERPASS_DEBUG_CHECKS=ON
boot_rc=0
wait "$boot_pid" || boot_rc=$?
trap - EXIT
cat "$boot_log"
[ "$boot_rc" = 0 ] || { echo "=== superpass: the arm64 QEMU boot failed (ctest exit $boot_rc) ==="; exit 1; }
elapsed "arm64 stage" "$t"

stage "asan build (tests)"
test_build asan -LE kmod
stage "tsan build (tests)"
test_build tsan -LE kmod
stage "static build (tests)"
test_build static -LE kmod
# The libFuzzer targets (tests/fuzz), built with clang: each runs its seeds
# and a fixed number of inputs more, the same ones every time.
stage "fuzz build (clang, libFuzzer, ASan+UBSan)"
cmake -S "$root" -B "$out/fuzz" -DSUPERPASS_WERROR=ON -DCMAKE_C_COMPILER=clang \
	-DSUPERPASS_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_DEBUG_CHECKS=ON
cmake --build "$out/fuzz" -j "$jobs" --target superpass-fuzzers
test_build fuzz -L fuzz
elapsed "run-all.sh" "$t0"
echo "=== superpass: all six builds passed (plain, static, asan, tsan, arm64, fuzz) ==="
