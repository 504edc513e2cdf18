// SPDX-License-Identifier: GPL-2.0

//! rust_panics N: panics unwound through frames with values to drop and
//! caught by catch_unwind, N rounds. Prints what it counted: the same with
//! and without tracing.
use std::cell::Cell;
use std::panic;

thread_local! {
    static DROPS: Cell<u64> = Cell::new(0);
}

struct Guard(u64);

impl Drop for Guard {
    fn drop(&mut self) {
        DROPS.with(|d| d.set(d.get() + self.0));
    }
}

#[inline(never)]
fn leaf(i: u64) -> u64 {
    if i % 3 == 0 {
        panic!("three {}", i);
    }
    i
}

#[inline(never)]
fn guarded(n: u64, i: u64) -> u64 {
    let _g = Guard(1);
    let v: Vec<u64> = (0..(n % 5) + 1).collect();
    if n == 0 {
        return leaf(i) + v.len() as u64;
    }
    guarded(n - 1, i) + v[0]
}

#[inline(never)]
fn round(i: u64) -> Option<u64> {
    panic::catch_unwind(|| guarded(i % 30, i)).ok()
}

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(300);
    panic::set_hook(Box::new(|_| {})); // the default hook would print each panic
    let (mut values, mut caught) = (0u64, 0u64);
    for i in 0..n {
        match round(i) {
            Some(v) => values += v,
            None => caught += 1,
        }
    }
    let drops = DROPS.with(|d| d.get());
    println!("values {} caught {} drops {}", values, caught, drops);
}
