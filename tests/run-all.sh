#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The whole test suite, as CI runs it: three builds of everything with
# warnings as errors (plain, AddressSanitizer+UBSan, ThreadSanitizer), each
# running every ctest test, and an arm64 cross build whose tests run under
# qemu-user. The kernel-module tests (label "kmod": the module build and the
# QEMU boot) run in the plain build (amd64) and the arm64 build (arm64)
# only: sanitizer flags do not apply to the kernel.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# Tests that lack a prerequisite (kernel headers, QEMU, root) exit 77 and
# ctest reports them skipped; here, where tests/setup-debian.sh installed
# everything, a missing prerequisite is a failure.
export SUPERPASS_SKIP_CODE=1
out=${SUPERPASS_TEST_DIR:-$root/build-test}
jobs=$(nproc)

run_build() {
	local name=$1 ctest_extra=$2
	shift 2
	echo "=== superpass: $name build ==="
	cmake -S "$root" -B "$out/$name" -DSUPERPASS_WERROR=ON "$@"
	cmake --build "$out/$name" -j "$jobs"
	# shellcheck disable=SC2086
	ctest --test-dir "$out/$name" --output-on-failure --timeout 900 $ctest_extra
}

# SUPERPASS_DEBUG_CHECKS: a failed SP_VERIFY (a count below zero, a
# broken invariant) aborts the test instead of printing and going on.
run_build plain "" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_DEBUG_CHECKS=ON
run_build asan "-LE kmod" -DCMAKE_BUILD_TYPE=Debug -DSUPERPASS_SANITIZE=address,undefined
run_build tsan "-LE kmod" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_SANITIZE=thread \
	-DSUPERPASS_DEBUG_CHECKS=ON

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
arm64_start=$(date +%s)
run_build arm64 "" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_DEBUG_CHECKS=ON
echo "=== superpass: arm64 stage took $(( $(date +%s) - arm64_start )) s ==="
echo "=== superpass: all four builds passed (plain, asan, tsan, arm64) ==="
