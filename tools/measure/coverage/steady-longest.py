#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The ui's longest wait for L once a run is past its warm-up, from a
coverage program's own record (examples/coverage: "wait TID START END",
"hold TID START END", CLOCK_MONOTONIC ns).

    steady-longest.py RECORD WARMUP_MS

Prints the longest wait in ms among those that began WARMUP_MS or more
after the first event of the record (0: every wait), or "null" if none.
Why a warm-up: superpass learns a futex word's candidate holders from its
first wakes, so a word's first contended wait finds no candidate; the
table leaves the same first stretch out of every row, plain and superpass
alike. Standard library only."""

import sys


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: steady-longest.py RECORD WARMUP_MS")
    path, warmup_ns = sys.argv[1], float(sys.argv[2]) * 1e6
    waits, t0 = [], None
    try:
        with open(path, encoding="ascii") as f:
            for n, line in enumerate(f, 1):
                w = line.split()
                if not w or w[0] not in ("wait", "hold"):
                    continue
                if len(w) != 4:
                    sys.exit(f"steady-longest.py: {path}:{n}: want '{w[0]} TID START END'")
                start, end = int(w[2]), int(w[3])
                t0 = start if t0 is None else min(t0, start)
                if w[0] == "wait":
                    waits.append((start, end))
    except (OSError, ValueError) as e:
        sys.exit(f"steady-longest.py: {path}: {e}")
    steady = [(e - s) / 1e6 for s, e in waits if t0 is not None and s - t0 >= warmup_ns]
    print(f"{max(steady):.3f}" if steady else "null")


if __name__ == "__main__":
    main()
