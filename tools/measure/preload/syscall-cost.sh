#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
# The interposer's syscall() against glibc's, interleaved runs:
#   tools/measure/preload/syscall-cost.sh BUILD_DIR [RUNS]
# prints each run's ns per call, plain and under the interposer (with a
# critical thread named, so that the runtime is on), and the ratio of the
# medians.
set -euo pipefail
build=${1:?usage: syscall-cost.sh BUILD_DIR [RUNS]}
runs=${2:-5}
prog=$build/tools/measure/sp_syscall_cost
preload=$(ls "$build"/lib/libsuperpass-preload.so* | head -n 1)
[ -x "$prog" ] || { echo "syscall-cost.sh: $prog not built" >&2; exit 2; }
plain=() under=()
for ((i = 0; i < runs; i++)); do
	p=$("$prog")
	u=$(LD_PRELOAD=$preload SUPERPASS_CRITICAL=main SUPERPASS_QUIET=1 "$prog")
	echo "plain: $p"
	echo "under: $u"
	plain+=("$p") under+=("$u")
done
python3 - "${plain[@]}" -- "${under[@]}" <<'PY'
import re, statistics, sys
args = sys.argv[1:]
cut = args.index('--')
def cols(lines):
    v = [[float(x) for x in re.findall(r'([0-9.]+) ns', l)] for l in lines]
    return [statistics.median(c) for c in zip(*v)], [(min(c), max(c)) for c in zip(*v)]
(p, pr), (u, ur) = cols(args[:cut]), cols(args[cut + 1:])
for name, a, b, ar, br in zip(('getppid', 'futex wake (unknown word)'), p, u, pr, ur):
    print(f'{name}: glibc {a:.1f} ns ({ar[0]:.1f}-{ar[1]:.1f}), interposer {b:.1f} ns '
          f'({br[0]:.1f}-{br[1]:.1f}), {b / a:.2f}x')
PY
