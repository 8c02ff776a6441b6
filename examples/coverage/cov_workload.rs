// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//! The coverage workload in Rust (std only), as cov_workload.c does it in
//! C: a `ui` thread (nice -10, 120 Hz, L twice a frame), two `bg` threads
//! (nice 19, hold L for 0.5-1.5 ms of CPU), four `hog` threads (nice 0).
//! `PROG [SECONDS [RECORD_FILE]]`; the record lists each hold of L and each
//! ui wait in CLOCK_MONOTONIC ns (tools/measure/coverage/candidates.py).

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

/// The lock under test: `ui` takes the exclusive side, `bg` the shared
/// side (the same for a mutex); each runs `body` while holding it.
pub trait CovLock: Sync + Send + 'static {
    fn ui(&self, body: &mut dyn FnMut());
    fn bg(&self, body: &mut dyn FnMut());
}

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

extern "C" {
    fn clock_gettime(clk: i32, ts: *mut Timespec) -> i32;
    fn setpriority(which: i32, who: u32, prio: i32) -> i32;
    fn gettid() -> i32;
}

const CLOCK_MONOTONIC: i32 = 1;
const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
const PERIOD_NS: u64 = 8_333_333;

fn now(clk: i32) -> u64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe { clock_gettime(clk, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

fn burn_ns(ns: u64) {
    let t0 = now(CLOCK_THREAD_CPUTIME_ID);
    while now(CLOCK_THREAD_CPUTIME_ID) - t0 < ns {}
}

/// Per thread (std's Builder::name names the OS thread too): the nice value.
fn setup(name: &str, nice: i32) -> i32 {
    let tid = unsafe { gettid() };
    if unsafe { setpriority(0, tid as u32, nice) } != 0 {
        eprintln!("{}: cannot set nice {} (not root?): the inversion will be weaker", name, nice);
    }
    tid
}

struct Log {
    tid: i32,
    spans: Vec<(u64, u64)>, // preallocated: no allocation while running
}

impl Log {
    fn new(cap: usize) -> Log {
        Log { tid: 0, spans: Vec::with_capacity(cap) }
    }
    fn note(&mut self, s: u64, e: u64) {
        if self.spans.len() < self.spans.capacity() {
            self.spans.push((s, e));
        }
    }
}

pub fn run<L: CovLock>(imp: &str, lock: L) {
    let args: Vec<String> = std::env::args().collect();
    let seconds: f64 = args.get(1).map(|s| s.parse().unwrap_or(-1.0)).unwrap_or(8.0);
    if !(seconds > 0.0 && seconds <= 3600.0) {
        eprintln!("usage: {} [SECONDS [RECORD_FILE]]", args[0]);
        std::process::exit(2);
    }
    let lock = Arc::new(lock);
    let stop = Arc::new(AtomicBool::new(false));
    let frames = (seconds * 120.0) as usize + 16;
    let mut bgs = Vec::new();
    for i in 0..2 {
        let (lock, stop) = (lock.clone(), stop.clone());
        let mut log = Log::new((seconds * 2000.0) as usize + 16);
        bgs.push(
            thread::Builder::new()
                .name("bg".into())
                .spawn(move || {
                    log.tid = setup("bg", 19);
                    let mut seed: u32 = (i as u32 + 1).wrapping_mul(2654435761);
                    while !stop.load(Ordering::Relaxed) {
                        seed = seed.wrapping_mul(1103515245).wrapping_add(12345);
                        let hold = 500_000 + ((seed >> 8) % 1_000_000) as u64;
                        let (mut t1, mut t2) = (0, 0);
                        lock.bg(&mut || {
                            t1 = now(CLOCK_MONOTONIC);
                            burn_ns(hold);
                            t2 = now(CLOCK_MONOTONIC);
                        });
                        log.note(t1, t2);
                        thread::sleep(std::time::Duration::from_micros(500));
                    }
                    log
                })
                .unwrap(),
        );
    }
    let mut hogs = Vec::new();
    for _ in 0..4 {
        let stop = stop.clone();
        hogs.push(
            thread::Builder::new()
                .name("hog".into())
                .spawn(move || {
                    setup("hog", 0);
                    while !stop.load(Ordering::Relaxed) {
                        burn_ns(1_000_000);
                    }
                })
                .unwrap(),
        );
    }
    let ui = {
        let (lock, stop) = (lock.clone(), stop.clone());
        let (mut holds, mut waits) = (Log::new(2 * frames), Log::new(2 * frames));
        thread::Builder::new()
            .name("ui".into())
            .spawn(move || {
                let tid = setup("ui", -10);
                holds.tid = tid;
                waits.tid = tid;
                let mut longest = 0u64;
                let mut next = now(CLOCK_MONOTONIC);
                let end = next + (seconds * 1e9) as u64;
                while next < end {
                    for i in 0..2 {
                        let t0 = now(CLOCK_MONOTONIC);
                        let (mut t1, mut t2) = (0, 0);
                        lock.ui(&mut || {
                            t1 = now(CLOCK_MONOTONIC);
                            burn_ns(20_000);
                            t2 = now(CLOCK_MONOTONIC);
                        });
                        waits.note(t0, t1);
                        holds.note(t1, t2);
                        longest = longest.max(t1 - t0);
                        if i == 0 {
                            burn_ns(500_000);
                        }
                    }
                    next += PERIOD_NS;
                    let t = now(CLOCK_MONOTONIC);
                    if next < t {
                        next = t;
                    } else {
                        thread::sleep(std::time::Duration::from_nanos(next - t));
                    }
                }
                stop.store(true, Ordering::Relaxed);
                (longest, holds, waits)
            })
            .unwrap()
    };
    let (longest, uiholds, waits) = ui.join().unwrap();
    let mut logs = vec![uiholds];
    for b in bgs {
        logs.push(b.join().unwrap());
    }
    for h in hogs {
        h.join().unwrap();
    }
    println!("ui: longest_wait_ms={:.3} waits={} impl={}", longest as f64 / 1e6, waits.spans.len(), imp);
    if let Some(path) = args.get(2) {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).expect("record file"));
        writeln!(f, "pid {}\nimpl {}", std::process::id(), imp).unwrap();
        for l in &logs {
            for (s, e) in &l.spans {
                writeln!(f, "hold {} {} {}", l.tid, s, e).unwrap();
            }
        }
        for (s, e) in &waits.spans {
            writeln!(f, "wait {} {} {}", waits.tid, s, e).unwrap();
        }
    }
}
