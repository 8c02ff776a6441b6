#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
"""How a glibc rwlock's read phases were handed on, in a trace and in its
replay: the measurement behind the rwlock figures of
docs/results/replay.md. A measurement, not a test: nothing is asserted.

usage: rw-handoffs.py TRACE EVENTS POLICY [--critical PREFIX] [--k K]

TRACE: a `superpass record` trace (ftrace text) of the run to compare;
EVENTS: `superpass replay --events` output of the replay; POLICY: which of
its sections (none, superpass, ...). For the critical thread (the writer,
default comm prefix sp-ui) and the readers (the other threads that wait
for or wake on the rwlock's words), each side gives:
  - handoffs: the writer's unlocks that handed the read phase to queued
    readers (trace: its futex_wake on the word it waits on, and how many
    it woke; replay: readers that acquire at the instant it releases), and
    how many of them went to more than K readers at once;
  - writer woken on the waker's CPU: of the writer's wakes by a reader's
    unlock, how many put it on that reader's CPU;
  - re-request: from a reader's unlock that let the writer in to that
    reader's next request for the lock, when it comes within 5 ms (trace:
    only requests that waited show), how many within 100 us;
  - reader moves: readers seen on another CPU than the one they last ran
    on.
"""
import argparse
import collections
import re
import statistics

SW = re.compile(r'\[(\d+)\] \S+ (\d+\.\d+): sched_switch: prev_comm=(.*?) prev_pid=(\d+) '
                r'.*==> next_comm=(.*?) next_pid=(\d+)')
FX = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\].*?\s(\d+\.\d+): sys_futex'
                r'(?:\(uaddr: (0x[0-9a-f]+), op: (0x[0-9a-f]+),| -> (\S+))')
WK = re.compile(r'^\s*(.+?)-(\d+)\s+\[(\d+)\] (\S+) (\d+\.\d+): sched_waking: comm=(.*?) pid=(\d+) '
                r'prio=\d+ target_cpu=(\d+)')
WAITS = {0x80, 0x89, 0x189, 0x0, 0x9, 0x109}


def trace_side(path, crit, k):
    lines = open(path, errors='replace').read().splitlines()
    words = collections.Counter()
    for l in lines:
        m = FX.search(l)
        if m and m.group(1).startswith(crit) and m.group(5) and int(m.group(6), 16) in WAITS:
            words[int(m.group(5), 16)] += 1
    if not words:
        raise SystemExit(f'{path}: the critical thread ({crit}*) never waited on a futex')
    wr = words.most_common(1)[0][0]  # __wrphase_futex
    near = lambda a: abs(a - wr) < 16
    readers, crit_tids = set(), set()
    for l in lines:
        m = FX.search(l)
        if m and m.group(5) and near(int(m.group(5), 16)):
            (crit_tids if m.group(1).startswith(crit) else readers).add(m.group(2))
    pend = set()  # a futex_wake of the word, until it returns
    handoffs = collections.Counter()
    last_out = {}  # reader tid -> when its unlock woke the writer
    rereq = []
    cpu_of, moves = {}, 0
    for l in lines:
        m = SW.search(l)
        if m:
            cpu, nxt = int(m.group(1)), m.group(6)
            if nxt in readers:
                moves += nxt in cpu_of and cpu_of[nxt] != cpu
                cpu_of[nxt] = cpu
            continue
        m = FX.search(l)
        if not m:
            continue
        _, tid, _, t, addr, op, ret = m.groups()
        if addr is not None:
            a, o = int(addr, 16), int(op, 16)
            if not near(a):
                continue
            if o & 0x7f == 1 and a == wr:
                pend.add(tid)
                if tid in readers:
                    last_out[tid] = float(t)
            elif o in WAITS and tid in last_out:
                dt = (float(t) - last_out.pop(tid)) * 1e6
                if dt < 5000:
                    rereq.append(dt)
        elif tid in pend:
            pend.discard(tid)
            n = int(ret, 16) if ret.startswith('0x') else int(ret)
            if tid in crit_tids and 0 < n < 1 << 20:
                handoffs[n] += 1
    same, other = writer_placement(lines, readers, crit_tids)
    return handoffs, same, other, rereq, moves


def writer_placement(lines, readers, crit_tids):
    same = other = 0
    waiting = {}
    for l in lines:
        m = WK.search(l)
        if m:
            _, waker, cpu, flags, _, _, wakee, _ = m.groups()
            if wakee in crit_tids and waker in readers and 'h' not in flags:
                waiting[wakee] = int(cpu)
            continue
        m = SW.search(l)
        if m and m.group(6) in waiting:
            if int(m.group(1)) == waiting.pop(m.group(6)):
                same += 1
            else:
                other += 1
    return same, other


def events_side(path, policy, crit, k):
    ev = []
    sect = None
    for l in open(path):
        if l.startswith('# superpass replay events:'):
            sect = l.split()[5]
            continue
        if l.startswith('#') or sect != policy:
            continue
        f = l.split()
        ev.append((float(f[0]), f[1], int(f[2]), int(f[3]), f[4], f[5], int(f[6])))
    if not ev:
        raise SystemExit(f'{path}: no events of policy {policy}')
    readers = {e[4] for e in ev if e[1] == 'acquire' and e[6] == 1}
    writer = {e[4] for e in ev if e[4].startswith(crit)}
    handoffs = collections.Counter()
    same = other = 0
    rereq, last_out = [], {}
    cpu_of, moves = {}, 0
    i = 0
    while i < len(ev):
        t, kind, cpu, rq, th, lk, arg = ev[i]
        if kind == 'switch':
            if th in readers:
                if th in cpu_of and cpu_of[th] != cpu:
                    moves += 1
                cpu_of[th] = cpu
        elif kind == 'release' and th in writer:
            n, j = 0, i + 1
            while j < len(ev) and ev[j][0] == t:
                n += ev[j][1] == 'acquire' and ev[j][4] in readers
                j += 1
            if n:
                handoffs[n] += 1
        elif kind == 'release' and th in readers:
            j = i + 1
            while j < len(ev) and ev[j][0] == t:
                if ev[j][1] == 'wake' and ev[j][4] in writer:
                    last_out[th] = t
                    if ev[j][3] == cpu:
                        same += 1
                    else:
                        other += 1
                j += 1
        elif kind in ('block', 'acquire') and th in last_out and th in readers:
            dt = (t - last_out.pop(th)) * 1e6
            if dt < 5000:
                rereq.append(dt)
        i += 1
    return handoffs, same, other, rereq, moves


def show(name, side, k):
    handoffs, same, other, rereq, moves = side
    q = sorted(rereq)
    med = statistics.median(q) if q else float('nan')
    print(f'{name}: handoffs {sum(handoffs.values())} (to more than {k} readers: '
          f'{sum(v for n, v in handoffs.items() if n > k)}); writer woken on the waker\'s CPU '
          f'{same} of {same + other}; re-request within 100 us {sum(1 for x in q if x < 100)} of '
          f'{len(q)} (median {med:.0f} us); reader moves {moves}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('events')
    ap.add_argument('policy')
    ap.add_argument('--critical', default='sp-ui')
    ap.add_argument('--k', type=int, default=4)
    a = ap.parse_args()
    show('trace ', trace_side(a.trace, a.critical, a.k), a.k)
    show('replay', events_side(a.events, a.policy, a.critical, a.k), a.k)


if __name__ == '__main__':
    main()
