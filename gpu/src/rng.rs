//! The seeded generator of the GPU programs: rand_chacha's `ChaCha8Rng`, the one generator of the
//! tests, benchmarks and GPU programs (and of the runtime's schedule seeds), with the short names
//! the case generators read best with.

pub use rand::SeedableRng;

/// A seeded, reproducible generator: `Rng::seed_from_u64(seed)`.
pub type Rng = rand_chacha::ChaCha8Rng;

/// Draws, in the words the generators use (gpu-bench uses only `u32`).
#[allow(dead_code)]
pub trait Draw {
    /// A uniform `u32`.
    fn u32(&mut self) -> u32;
    /// A uniform `u64`.
    fn next(&mut self) -> u64;
    /// Uniform in `0..n`.
    fn below(&mut self, n: u32) -> u32;
    /// True with probability `num / den`.
    fn chance(&mut self, num: u32, den: u32) -> bool;
    /// One of `xs`, uniformly.
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T;
}

impl Draw for Rng {
    fn u32(&mut self) -> u32 {
        rand::RngExt::random(self)
    }
    fn next(&mut self) -> u64 {
        rand::RngExt::random(self)
    }
    fn below(&mut self, n: u32) -> u32 {
        rand::RngExt::random_range(self, 0..n)
    }
    fn chance(&mut self, num: u32, den: u32) -> bool {
        rand::RngExt::random_ratio(self, num, den)
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u32) as usize]
    }
}
