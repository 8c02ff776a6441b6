// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//! The coverage workload with Rust's std::sync::Mutex: a futex word of its
//! own (0/1/2) and libc's syscall(SYS_futex, FUTEX_WAIT_BITSET) to wait.

#[path = "cov_workload.rs"]
mod cov_workload;

use std::sync::Mutex;

struct L(Mutex<()>);

impl cov_workload::CovLock for L {
    fn ui(&self, body: &mut dyn FnMut()) {
        let _g = self.0.lock().unwrap();
        body();
    }
    fn bg(&self, body: &mut dyn FnMut()) {
        let _g = self.0.lock().unwrap();
        body();
    }
}

fn main() {
    cov_workload::run("rust_mutex", L(Mutex::new(())));
}
