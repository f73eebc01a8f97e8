//! Stacks for lane code.
//!
//! Lane futures are polled on the stack of the thread that runs the warp: a single warp's 32
//! futures and results live in the executor's own frame, and whatever a lane calls between two
//! warp instructions (plain recursion, large locals, a debug build's copies of a large result)
//! runs on the same stack. A test thread has 2 MiB, a grid worker got the same, and a kernel
//! returning `[u32; 1024]` per lane overflowed both in a debug build, which aborts the process.
//!
//! Every run therefore makes sure of a stack sized for its kernel: the executor grows the calling
//! thread's stack (with `stacker`, which switches to a fresh, guarded segment only when less
//! than the run needs is left), and grid workers are spawned with that size. The size is a
//! configurable minimum for lane code ([`Executor::lane_stack`](crate::Executor::lane_stack),
//! default [`DEFAULT_LANE_STACK`]) plus what the kernel's types say the run keeps on the stack.
//!
//! A lane that recurses past its stack still overflows it: Rust cannot unwind from a stack
//! overflow, so in process that aborts (isolation in a child process is the way to turn it into
//! a report).

/// The default stack a run guarantees to lane code beyond what its kernel's types need: 1 MiB,
/// half a test thread's.
pub const DEFAULT_LANE_STACK: usize = 1 << 20;

/// How many times its own size a lane future may take on the stack while it is polled (a debug
/// build moves large values through several temporaries).
const POLL_COPIES: usize = 8;

/// How many copies of a warp's 32 results the frames that move them may hold at once (a debug
/// build gives each temporary its own slot): a grid worker with `[u32; 1024]` results needed
/// between 1.5 and 1.75 MiB with a 1 MiB lane minimum, that is about 5 copies of 128 KiB.
pub(crate) const RESULT_COPIES: usize = 16;

/// The stack a run needs: the lane-code minimum, the bytes the run keeps in its own frame, and
/// room for polling futures of `future` bytes.
pub(crate) fn needed(min: usize, in_frame: usize, future: usize) -> usize {
    min.saturating_add(in_frame).saturating_add(future.saturating_mul(POLL_COPIES))
}

/// Runs `f` with at least `bytes` of stack left, on a new stack segment if the current one has
/// less. The check is inline and the switch out of line, so a run with enough stack pays one
/// comparison; `f` must not check again (see [`SEGMENT_MARGIN`]).
#[inline(always)]
pub(crate) fn with_stack<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    if enough(bytes) { f() } else { on_new_stack(bytes, f) }
}

/// Whether at least `bytes` of stack are left on this thread (false where it cannot be told).
#[inline]
pub(crate) fn enough(bytes: usize) -> bool {
    stacker::remaining_stack().is_some_and(|left| left >= bytes)
}

/// What a new segment holds beyond the run's need, for the frames between the switch and the
/// run. (The run must not check again on the new segment: a debug build's frame of a run with
/// large results had used 650 KiB of it before its first statement, and switched again, without
/// end.)
const SEGMENT_MARGIN: usize = 256 << 10;

/// Runs `f` on a new stack segment with `bytes` left for it.
#[cold]
#[inline(never)]
pub(crate) fn on_new_stack<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    stacker::grow(bytes.saturating_add(SEGMENT_MARGIN), f)
}
