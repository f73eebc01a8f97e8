//! Warp-function calls: the call path that tells a helper's instructions apart.
//!
//! On a GPU a helper's warp instruction becomes, after inlining, one instruction per call of the
//! helper: `am` below is two `activemask` instructions, one in each arm, and each returns the
//! lanes of its own arm. The runtime tells such lanes apart by their whole call path (the
//! warp-function call sites from the kernel's entry to the instruction), not only by the
//! instruction's own call site. `#[warp_kernel]` wraps every call of another warp function in
//! [`call`]; the future it returns extends the lane's path by the call's site while the callee
//! runs, and restores the caller's path when it returns.
//!
//! ```
//! use warp_runtime::{call, Executor, Warp};
//!
//! // What `#[warp_kernel] fn am(w: &Warp) -> u32 { w.activemask() }` expands to on the host.
//! async fn am(w: &Warp<'_>) -> u32 {
//!     w.activemask().await
//! }
//!
//! // `if w.lane_id() % 2 == 0 { am(w) } else { am(w) }` in a `#[warp_kernel]`:
//! let masks = Executor::new()
//!     .run(async |w: &Warp<'_>| if w.lane_id() % 2 == 0 { call(am(w)).await } else { call(am(w)).await })
//!     .unwrap();
//! assert_eq!((masks[0], masks[1]), (0x5555_5555, 0xaaaa_aaaa));
//!
//! // Without `call`, both arms reach the one `activemask` call site in `am`: one instruction.
//! let masks = Executor::new().run(async |w: &Warp<'_>| if w.lane_id() % 2 == 0 { am(w).await } else { am(w).await }).unwrap();
//! assert_eq!((masks[0], masks[1]), (0xffff_ffff, 0xffff_ffff));
//! ```
//!
//! Code written against the runtime directly (async closures and functions awaiting each other)
//! makes such calls only where it wraps them in [`call`]; elsewhere its lanes are told apart by
//! their instructions' call sites alone.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::error::Site;

/// The callee's future of a warp-function call at `site` (see the [module docs](self)).
#[track_caller]
#[inline(always)]
pub fn call<F: Future>(callee: F) -> Call<F> {
    Call { callee, site: core::panic::Location::caller(), caller: None, last: false }
}

/// A warp-function call in flight: while the callee runs, the lane's call path is its caller's
/// followed by the call's site.
#[must_use = "a warp function does nothing unless awaited"]
pub struct Call<F> {
    /// The callee's future (structurally pinned).
    callee: F,
    /// Where the call is.
    site: Site,
    /// The caller's path, from the first poll (in a run) until the callee returns.
    caller: Option<u64>,
    /// A last call (`wide::Calls::new_last`; known only where the call learns).
    last: bool,
}

impl<F> Call<F> {
    /// The call, made by a kernel with a warp-wide form `caller` (erased) running per lane, at a
    /// call site whose [`Calls`](crate::wide::Calls) is `calls`: its first poll tells `calls`
    /// whether the callee offered its form (learnt if that form runs), so that `caller` can be
    /// offered next time.
    #[inline(always)]
    pub fn learning(self, calls: &'static crate::wide::Calls, caller: *const ()) -> Learning<F>
    where
        F: Future,
    {
        Learning { call: Call { last: calls.is_last(), ..self }, at: crate::wide::LearnAt { calls, caller: caller.addr(), callee: core::any::type_name::<F> }, first: true }
    }
}

/// A [`Call`] that learns for its call site (see [`Call::learning`]).
#[must_use = "a warp function does nothing unless awaited"]
pub struct Learning<F> {
    /// Structurally pinned.
    call: Call<F>,
    /// What the callee's offer, if it makes one, points to (this future is pinned while the
    /// offer waits in it).
    at: crate::wide::LearnAt,
    first: bool,
}

impl<F: Future> Future for Learning<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `call` is structurally pinned (never moved out); `at` and `first` are plain
        // data, and `at` stays where it is while the future is pinned.
        let this = unsafe { self.get_unchecked_mut() };
        let call = unsafe { Pin::new_unchecked(&mut this.call) };
        // One call of the callee's poll, and the learning after it, in a function of its own:
        // with the learning around a second call of it, the compiler would not inline the
        // callee's body into the caller's (histogram example: 2% more instructions).
        let poll = call.poll(cx);
        if this.first {
            // A last call checks its callee's offer even after the call site stopped learning.
            let learn = !this.at.calls.given_up();
            this.first = (learn || this.at.calls.is_last()) && !first_poll_after(&this.at, this.call.caller, this.call.site, poll.is_pending(), learn);
        }
        poll
    }
}

/// After a [`Learning`] call's first poll in a run: the lane, if it is waiting in the callee
/// (entered from the caller's path `caller`, at `site`), may have posted an offer at the
/// callee's path, which the call site learns from when `learn`, and which a last call checks
/// is its callee's own (`wide::first_poll_offer`). Whether the poll was in a run (else the next
/// one does this).
#[inline(never)]
fn first_poll_after(at: &crate::wide::LearnAt, caller: Option<u64>, site: Site, pending: bool, learn: bool) -> bool {
    let Some((regs, lane)) = crate::mem::current() else { return false };
    if let (Some(caller), true) = (caller, pending) {
        // The path the callee runs at.
        crate::wide::first_poll_offer(regs, lane, || crate::warp::path_then(caller, site, at.calls.is_last()), at, learn);
    }
    true
}

impl<F: Future> Future for Call<F> {
    type Output = F::Output;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: `callee` is structurally pinned (never moved out, dropped in place with the
        // `Call`); `site` and `caller` are plain data that is never pinned.
        let this = unsafe { self.get_unchecked_mut() };
        if this.caller.is_none() {
            if let Some((regs, lane)) = crate::mem::current() {
                this.caller = Some(regs.enter_call(lane, this.site, this.last));
            }
        }
        // SAFETY: see above.
        let poll = unsafe { Pin::new_unchecked(&mut this.callee) }.poll(cx);
        if poll.is_ready() {
            if let (Some(caller), Some((regs, lane))) = (this.caller.take(), crate::mem::current()) {
                regs.leave_call(lane, caller);
            }
        }
        poll
    }
}
