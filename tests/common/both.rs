//! Runs a kernel both ways, warp-wide and per lane, and asserts that the two give the same
//! values and the same reports (issue 15's differential check). Tests use `both()` where they
//! would use `Executor::new()`; the per-lane executor is the reference.

#![allow(dead_code)]

use core::fmt::Debug;

use warpkit::prelude::*;

/// An executor pair: the same configuration, warp-wide forms off and on.
#[derive(Clone, Copy)]
pub struct Both {
    ex: Executor,
}

/// `Executor::new()`, run both ways.
pub fn both() -> Both {
    Both { ex: Executor::new() }
}

impl Both {
    pub fn target(self, target: Target) -> Both {
        Both { ex: self.ex.target(target) }
    }
    pub fn order(self, order: LaneOrder) -> Both {
        Both { ex: self.ex.order(order) }
    }
    pub fn races(self, on: bool) -> Both {
        Both { ex: self.ex.races(on) }
    }
    pub fn warp_index(self, warp: u64) -> Both {
        Both { ex: self.ex.warp_index(warp) }
    }

    /// `Executor::run`, both ways.
    pub fn run<K, R>(&self, kernel: K) -> Result<[R; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Copy,
        R: PartialEq + Debug,
    {
        // By value: a `#[warp_kernel]` fn given itself takes the direct warp-wide run.
        compare(|ex| ex.run(kernel), self.ex)
    }

    /// `Executor::run_with`, both ways.
    pub fn run_with<A, K, R>(&self, args: &[A; 32], kernel: K) -> Result<[R; 32], WarpError>
    where
        A: Copy,
        K: AsyncFn(&Warp<'_>, A) -> R + Copy,
        R: PartialEq + Debug,
    {
        compare(|ex| ex.run_with(args, kernel), self.ex)
    }

    /// `Executor::run_partial`, both ways.
    pub fn run_partial<K, R>(&self, launched: u32, kernel: K) -> Result<[Option<R>; 32], WarpError>
    where
        K: AsyncFn(&Warp<'_>) -> R + Copy,
        R: PartialEq + Debug,
    {
        compare(|ex| ex.run_partial(launched, kernel), self.ex)
    }
}

/// Runs `run` per lane, then with warp-wide forms (on the CPU's vector units, then with the
/// portable code), and asserts the same outcome: equal values, or reports that print the same
/// (rule, lanes, each lane's state and call site).
pub fn compare<T: PartialEq + Debug>(run: impl Fn(Executor) -> Result<T, WarpError>, ex: Executor) -> Result<T, WarpError> {
    let per_lane = run(ex.wide(false));
    let portable = run(ex.wide(true).simd(false));
    agree(&per_lane, &portable);
    let before = warpkit::wide_runs();
    let wide = run(ex.wide(true));
    if std::env::var_os("WARPKIT_SHOW_WIDE").is_some() {
        eprintln!("warp-wide runs: {}", warpkit::wide_runs() - before);
    }
    agree(&per_lane, &wide);
    wide
}

pub fn agree<T: PartialEq + Debug>(per_lane: &Result<T, WarpError>, wide: &Result<T, WarpError>) {
    match (per_lane, wide) {
        // Equal, or (NaNs) printing the same.
        (Ok(a), Ok(b)) => {
            if a != b {
                assert_eq!(format!("{a:?}"), format!("{b:?}"), "the warp-wide form's values differ from the per-lane executor's");
            }
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "the warp-wide form's report differs from the per-lane executor's"),
        (a, b) => panic!("per lane: {a:?}\nwarp-wide: {b:?}"),
    }
}
