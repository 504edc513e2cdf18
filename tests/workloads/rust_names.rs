// SPDX-License-Identifier: GPL-2.0
//! rust_names: a CPU-bound Rust program whose hot functions have mangled
//! names, for the demangling tests (built twice, with legacy and with v0
//! symbol mangling):
//!
//!   main -> rust_names::shapes::Widget::spin     (2 units of work a round)
//!   main -> rust_names::shapes::mix::<u64>       (1 unit of work a round)
//!
//! usage: rust_names SECONDS

use std::hint::black_box;
use std::time::{Duration, Instant};

const UNIT: u64 = 400_009; // loop iterations in one unit of work

mod shapes {
    use std::hint::black_box;

    pub struct Widget {
        pub seed: u64,
    }

    impl Widget {
        #[inline(never)]
        pub fn spin(&self, rounds: u64) -> u64 {
            let mut s = self.seed;
            for _ in 0..rounds {
                s = black_box(s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407));
            }
            s
        }
    }

    #[inline(never)]
    pub fn mix<T: Into<u64>>(x: T, rounds: u64) -> u64 {
        let mut s: u64 = x.into();
        for _ in 0..rounds {
            s ^= s << 13;
            s = black_box(s ^ (s >> 7));
        }
        s
    }
}

#[inline(never)]
fn run(seconds: f64) -> u64 {
    let w = shapes::Widget { seed: 3 };
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut x = 1u64;
    loop {
        x = x.wrapping_add(w.spin(black_box(2 * UNIT)));
        x = shapes::mix(x, black_box(UNIT));
        if Instant::now() >= deadline {
            return x;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seconds = match args.get(1).map(|s| s.parse::<f64>()) {
        Some(Ok(s)) if args.len() == 2 && s >= 0.0 => s,
        _ => {
            eprintln!("usage: rust_names SECONDS");
            std::process::exit(2);
        }
    };
    black_box(run(seconds));
}
