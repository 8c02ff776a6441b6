#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The whole test suite, as CI runs it: three builds of everything with
# warnings as errors (plain, AddressSanitizer+UBSan, ThreadSanitizer), each
# running every ctest test. The kernel-module tests (label "kmod": the
# module build and the QEMU boot) run in the plain build only: sanitizer
# flags do not apply to the kernel.
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
echo "=== superpass: all three builds passed ==="
