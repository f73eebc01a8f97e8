//! How much memory a running warp of a kernel occupies.
//!
//! A warp run allocates nothing on the heap: [`Executor::run_partial`](crate::Executor::run_partial)
//! keeps everything in its own stack frame. The parts that grow with the kernel are the 32 lane
//! futures, kept in place in a fixed array, each the state machine rustc generates for the kernel
//! (every local that lives across a warp instruction, and the futures of the warp functions it is
//! suspended in), and the 32 result slots; the executor's per-warp registers and the 32 lane
//! handles are the same for every kernel. (A few words of bookkeeping, such as the masks of
//! lanes started and returned, are left out.)
//!
//! ```
//! use warp_runtime::{footprint::warp_footprint, Warp};
//!
//! let kernel = async |w: &Warp<'_>| {
//!     let mut v = w.lane_id();
//!     for offset in [16, 8, 4, 2, 1] {
//!         v += w.shfl_down(v, offset).await;
//!     }
//!     v
//! };
//! let f = warp_footprint(&kernel);
//! assert_eq!(f.total(), f.registers + f.handles + f.lane_futures + f.results);
//! println!("{f}"); // "N B per warp: registers .. B + 32 lanes x (future .. B, handle .. B, result .. B)"
//! ```

use core::fmt;
use core::future::Future;
use core::mem::size_of;

use crate::warp::Regs;
use crate::handle::Warp;

/// The bytes one running warp of a kernel occupies (all of it on the stack of the thread that
/// runs the warp; none on the heap). Computed from the types alone: nothing is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Footprint {
    /// The executor's per-warp register block: every lane's request (instruction, membermask,
    /// operands, call site) and result registers.
    pub registers: usize,
    /// The 32 lane handles ([`Warp`]) the lane futures borrow.
    pub handles: usize,
    /// One lane's future: the kernel's state machine.
    pub lane_future: usize,
    /// The 32 lane futures, in place: `32 * lane_future`.
    pub lane_futures: usize,
    /// The 32 result slots, each the size of the kernel's result.
    pub results: usize,
}

impl Footprint {
    /// Everything: `registers + handles + lane_futures + results`.
    pub fn total(&self) -> usize {
        self.registers + self.handles + self.lane_futures + self.results
    }
}

impl fmt::Display for Footprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} B per warp: registers {} B + 32 lanes x (future {} B, handle {} B, result {} B)",
            self.total(),
            self.registers,
            self.lane_futures / 32,
            self.handles / 32,
            self.results / 32,
        )
    }
}

/// The memory a warp running `kernel` occupies; see [`Footprint`].
///
/// `kernel` is what [`Executor::run`](crate::Executor::run), [`run_partial`](crate::Executor::run_partial)
/// or a [`Grid`](crate::Grid) launch takes. It is not called: the sizes come from its types.
pub fn warp_footprint<K, R>(kernel: &K) -> Footprint
where
    K: AsyncFn(&Warp<'_>) -> R,
{
    // The closure is never called: it only names the type of the lane future, which cannot be
    // written on stable Rust (`AsyncFnMut::CallRefFuture` is unstable).
    let future = future_size(|| kernel(no_handle()));
    Footprint {
        registers: size_of::<Regs>(),
        handles: 32 * size_of::<Warp<'static>>(),
        lane_future: future,
        lane_futures: 32 * future,
        results: 32 * size_of::<R>(),
    }
}

/// The size of the future `make` would return.
pub(crate) fn future_size<F: Future>(_make: impl FnOnce() -> F) -> usize {
    size_of::<F>()
}

/// Stands for a lane handle in the never-called closure of [`warp_footprint`].
pub(crate) fn no_handle() -> &'static Warp<'static> {
    unreachable!("warp_footprint never calls the kernel")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Executor;

    /// The size of a lane future made the ordinary way, with a real handle in a real run,
    /// measured with `size_of_val`: an independent route to `lane_future`.
    fn measured_in_a_run<K, R>(kernel: &K) -> usize
    where
        K: AsyncFn(&Warp<'_>) -> R,
    {
        let sizes = Executor::new()
            .run(async |w: &Warp<'_>| {
                let fut = kernel(w);
                core::mem::size_of_val(&fut)
            })
            .unwrap();
        sizes[0]
    }

    #[test]
    fn lane_future_is_the_size_of_the_future_a_run_makes() {
        let small = async |w: &Warp<'_>| w.shfl_down(w.lane_id(), 1).await;
        let big = async |w: &Warp<'_>| {
            let table = [w.lane_id() as u64; 64];
            w.syncwarp().await;
            table.iter().sum::<u64>()
        };
        let (fs, fb) = (warp_footprint(&small), warp_footprint(&big));
        assert_eq!(fs.lane_future, measured_in_a_run(&small));
        assert_eq!(fb.lane_future, measured_in_a_run(&big));
        // The table lives across the `syncwarp` await, so it is in the state machine.
        assert!(fb.lane_future >= fs.lane_future + 64 * 8, "{fb:?} vs {fs:?}");
        assert_eq!(fb.lane_futures, 32 * fb.lane_future);
        assert_eq!(fb.results, 32 * 8); // u64
        assert_eq!(fs.results, 32 * 4); // u32
    }

    #[test]
    fn the_parts_add_up_and_the_registers_hold_every_lane() {
        let f = warp_footprint(&async |w: &Warp<'_>| w.redux_add(w.lane_id()).await);
        assert_eq!(f.total(), f.registers + f.handles + f.lane_futures + f.results);
        // At least a 64-bit operand and a 64-bit result per lane, whatever the layout.
        assert!(f.registers >= 32 * 16, "{f:?}");
        assert_eq!(f.handles, 32 * size_of::<Warp<'static>>());
        assert!(f.to_string().starts_with(&format!("{} B per warp", f.total())));
    }
}
