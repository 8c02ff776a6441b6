#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""The coverage workload with Python's threading.Lock, as cov_workload.c
does it in C: a "ui" thread (nice -10, 120 Hz, L twice a frame), two "bg"
threads (nice 19, hold L for 0.5-1.5 ms of CPU), four "hog" threads
(nice 0). `cov_python.py [SECONDS [RECORD_FILE]]`.

threading's names do not reach the OS thread name (CPython 3.11): each
thread sets its own with prctl(PR_SET_NAME) through ctypes, so that
`superpass run -c ui` finds the ui. All of them also wait for the GIL.
time.monotonic_ns() is CLOCK_MONOTONIC, the clock of superpass's actuator
log; time.thread_time_ns() the thread's CPU time."""

import ctypes
import os
import sys
import threading
import time

PERIOD_NS = 8333333
PR_SET_NAME = 15
_libc = ctypes.CDLL(None, use_errno=True)
L = threading.Lock()
stop = threading.Event()


def burn(ns):
    t0 = time.thread_time_ns()
    while time.thread_time_ns() - t0 < ns:
        pass


def setup(name, nice):
    _libc.prctl(PR_SET_NAME, ctypes.c_char_p(name.encode()), 0, 0, 0)
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, nice)
    except OSError as e:
        print(f"{name}: cannot set nice {nice} ({e}): the inversion will be weaker",
              file=sys.stderr)
    return tid


class Log:
    """One thread's record, preallocated, written at exit."""

    def __init__(self, cap):
        self.tid = 0
        self.s = [0] * cap
        self.e = [0] * cap
        self.n = 0

    def note(self, a, b):
        if self.n < len(self.s):
            self.s[self.n] = a
            self.e[self.n] = b
            self.n += 1


def bg(log, seed):
    log.tid = setup("bg", 19)
    while not stop.is_set():
        seed = (seed * 1103515245 + 12345) & 0xFFFFFFFF
        hold = 500000 + (seed >> 8) % 1000000
        with L:
            t1 = time.monotonic_ns()
            burn(hold)
            t2 = time.monotonic_ns()
        log.note(t1, t2)
        time.sleep(0.0005)


def hog():
    setup("hog", 0)
    while not stop.is_set():
        burn(1000000)


def ui(seconds, holds, waits, out):
    holds.tid = waits.tid = setup("ui", -10)
    longest = 0
    nxt = time.monotonic_ns()
    end = nxt + int(seconds * 1e9)
    while nxt < end:
        for i in range(2):
            t0 = time.monotonic_ns()
            with L:
                t1 = time.monotonic_ns()
                burn(20000)
                t2 = time.monotonic_ns()
            waits.note(t0, t1)
            holds.note(t1, t2)
            longest = max(longest, t1 - t0)
            if i == 0:
                burn(500000)
        nxt += PERIOD_NS
        t = time.monotonic_ns()
        if nxt < t:
            nxt = t
        else:
            time.sleep((nxt - t) / 1e9)
    stop.set()
    out.append(longest)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 8.0
    if not 0 < seconds <= 3600:
        print(f"usage: {sys.argv[0]} [SECONDS [RECORD_FILE]]", file=sys.stderr)
        return 2
    frames = int(seconds * 120) + 16
    holds = [Log(2 * frames), Log(int(seconds * 2000) + 16), Log(int(seconds * 2000) + 16)]
    waits = Log(2 * frames)
    out = []
    threads = [threading.Thread(target=bg, args=(holds[1 + i], (i + 1) * 2654435761 & 0xFFFFFFFF))
               for i in range(2)]
    threads += [threading.Thread(target=hog) for _ in range(4)]
    u = threading.Thread(target=ui, args=(seconds, holds[0], waits, out))
    for t in threads + [u]:
        t.start()
    u.join()
    for t in threads:
        t.join()
    print(f"ui: longest_wait_ms={out[0] / 1e6:.3f} waits={waits.n} impl=python_lock", flush=True)
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w", encoding="ascii") as f:
            f.write(f"pid {os.getpid()}\nimpl python_lock\n")
            for lg in holds:
                for j in range(lg.n):
                    f.write(f"hold {lg.tid} {lg.s[j]} {lg.e[j]}\n")
            for j in range(waits.n):
                f.write(f"wait {waits.tid} {waits.s[j]} {waits.e[j]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
