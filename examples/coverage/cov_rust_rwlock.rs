// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//! The coverage workload with Rust's std::sync::RwLock (futex words of its
//! own): the bg threads hold the read side, the ui takes the write side.

#[path = "cov_workload.rs"]
mod cov_workload;

use std::sync::RwLock;

struct L(RwLock<()>);

impl cov_workload::CovLock for L {
    fn ui(&self, body: &mut dyn FnMut()) {
        let _g = self.0.write().unwrap();
        body();
    }
    fn bg(&self, body: &mut dyn FnMut()) {
        let _g = self.0.read().unwrap();
        body();
    }
}

fn main() {
    cov_workload::run("rust_rwlock", L(RwLock::new(())));
}
