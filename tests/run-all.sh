#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The whole test suite, as CI runs it: three builds of everything with
# warnings as errors (plain, AddressSanitizer+UBSan, ThreadSanitizer), each
# running every ctest test, and an arm64 cross build whose tests run under
# qemu-user. The kernel-module tests (label "kmod": the module build and the
# QEMU boot) run in the plain build only: sanitizer flags do not apply to
# the kernel.
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
# The plain build's arm64 module tests (label arm64) run in the arm64 stage.
run_build plain "-LE arm64" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_DEBUG_CHECKS=ON
run_build asan "-LE kmod" -DCMAKE_BUILD_TYPE=Debug -DSUPERPASS_SANITIZE=address,undefined
run_build tsan "-LE kmod" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_SANITIZE=thread \
	-DSUPERPASS_DEBUG_CHECKS=ON

# arm64: everything cross-built (cmake/aarch64-linux-gnu.cmake; without
# superpass::trace and replay, whose libtracecmd-dev Debian cannot install
# for arm64 beside amd64's) and its tests run as arm64 binaries under
# qemu-user, in one plain build (the sanitizers are the amd64 builds' job).
# The amd64 module tests (label kmod) are not the cross build's; the arm64
# module is built and booted in qemu-system-aarch64 by the plain build's
# tests of label arm64. qemu-user emulates no robust futex list, so the
# one runtime check that needs it (test_exit_while_boosted) is skipped
# inside its program, saying why; any test that exits 77 here (a
# prerequisite missing) still fails, as above.
arm64_start=$(date +%s)
run_build arm64 "-LE kmod" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSUPERPASS_DEBUG_CHECKS=ON
echo "=== superpass: arm64 kernel module (plain build, label arm64) ==="
ctest --test-dir "$out/plain" --output-on-failure --timeout 900 -L arm64
echo "=== superpass: arm64 stage took $(( $(date +%s) - arm64_start )) s ==="
echo "=== superpass: all four builds passed (plain, asan, tsan, arm64) ==="
