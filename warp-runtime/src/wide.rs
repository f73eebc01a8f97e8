//! Warp-wide execution: one pass over the warp's lanes per stretch of code, instead of 32 lane
//! futures.
//!
//! `#[warp_kernel]` gives a kernel whose warp instructions all sit in control flow it proves
//! warp-uniform a second form, the *warp-wide* form: the kernel's per-lane values become
//! [`Lanes`] (one slot per lane), the values it proves uniform stay scalars, each stretch of code
//! between two warp instructions runs as a loop over the live lanes (in the run's lane order),
//! and each warp instruction is issued by every live lane through its own handle and completed
//! by the same engine, with the same checks and reports, as in the per-lane executor.
//!
//! The runtime chooses the form before the kernel's body runs. The host `async fn` of such a
//! kernel first *offers* its warp-wide form ([`offer`]): each lane suspends at the offer before
//! running any of the body. When every live lane of the warp offers the same kernel at the same
//! call (the same call site through the same warp-function calls), the engine runs the warp-wide
//! form once for all of them, and each lane's future then returns its lane's result. Otherwise
//! (some lanes elsewhere, a traced run, a target below sm_70, or
//! [`Executor::wide`](crate::Executor::wide) off) the offer is declined and every lane runs the per-lane body: the
//! per-lane executor stays the reference, and nothing in the body has run twice.
//!
//! A run given the kernel itself (`Executor::run_with(&args, kernel)`) polls the first lane
//! alone; when it offered its form at the run's entry, the run is that form, without the other
//! lanes' futures ([`Direct`]).
//!
//! [`wide_runs`] counts the kernels that ran warp-wide on this thread, so that a test or a user
//! can see which path ran.

use core::cell::Cell;
use core::future::Future;
use core::mem::MaybeUninit;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::api::Decode;
use crate::error::{Site, WarpError};
use crate::handle::Warp;
use crate::op::{BarOp, Op};
use crate::semantics::redux::{FloatRedux, ReduxOp, ReduxType};
use crate::semantics::shfl::ShflMode;
use crate::semantics::vote::VoteMode;
use crate::value::{MinMaxType, ReduxBits, ReduxInt, ReduxMinMax, WarpValue};
use crate::warp::{pack, Regs, WarpRun, FULL};

/// `bar.sync 0` as `sync_threads` posts it.
const SYNC_THREADS: Op = Op::Bar(BarOp::new(crate::semantics::barrier::BarKind::Sync, true, false, false));

/// A warp-wide form, as the macro writes it: the body over the lanes' arguments, storing each
/// lane's result.
pub type WideBody<A, R> = fn(&mut WideCtx<'_, '_>, &mut Lanes<A>, &mut Lanes<R>) -> Result<(), WarpError>;

/// The warp-wide form of a kernel with CTA barriers: a future, which suspends the warp at each
/// barrier ([`WideCtx::barrier`]) as the per-lane executor's lanes suspend there, so that the
/// warp is one future in its block's scheduler.
pub type WideAsync<A, R> =
    for<'x, 'c, 'r> fn(&'x mut WideCtx<'c, 'r>, &'x mut Lanes<A>, &'x mut Lanes<R>) -> Pin<Box<dyn Future<Output = Result<(), WarpError>> + 'x>>;

std::thread_local! {
    static WIDE_RUNS: Cell<u64> = const { Cell::new(0) };
    static DIRECT_STARTS: Cell<u64> = const { Cell::new(0) };
    static FORMS_LEARNED: Cell<u64> = const { Cell::new(0) };
}

/// Whether executors let kernels run warp-wide unless told otherwise: yes, unless the
/// environment variable `WARPKIT_WIDE` is `0`.
pub(crate) fn default_on() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var("WARPKIT_WIDE").map_or(true, |v| v.trim() != "0"))
}

/// How many kernel calls ran warp-wide on this thread so far (each counts once per warp). A test
/// reads it before and after a run to see which path the run took.
pub fn wide_runs() -> u64 {
    WIDE_RUNS.with(Cell::get)
}

/// How many warps on this thread started in their kernel's form without making their lanes'
/// futures (`Executor::run_with` on a kernel, an entry kernel's `run_cpu`): each is also one of
/// [`wide_runs`]. For tests of the direct start.
#[doc(hidden)]
pub fn direct_starts() -> u64 {
    DIRECT_STARTS.with(Cell::get)
}

/// How many times a direct start on this thread remembered its kernel's form (`Direct::learn`):
/// a kernel's later direct runs on the thread start the form without polling a lane first. For
/// tests of that.
#[doc(hidden)]
pub fn forms_learned() -> u64 {
    FORMS_LEARNED.with(Cell::get)
}

/// Counts a direct start ([`direct_starts`]).
pub(crate) fn count_direct_start() {
    DIRECT_STARTS.with(|c| c.set(c.get() + 1));
}

/// One value per lane: a per-lane variable of a warp-wide form. A slot is set when its lane
/// defines the variable; reading a lane's slot that was never set panics (the generated code
/// never does).
pub struct Lanes<T> {
    slots: [MaybeUninit<T>; 32],
    set: u32,
}

impl<T> Default for Lanes<T> {
    fn default() -> Lanes<T> {
        Lanes::new()
    }
}

impl<T> Lanes<T> {
    /// No lane's value set.
    #[inline(always)]
    pub const fn new() -> Lanes<T> {
        Lanes { slots: [const { MaybeUninit::uninit() }; 32], set: 0 }
    }

    /// Sets lane `lane`'s value (dropping the one it had).
    #[inline(always)]
    pub fn set(&mut self, lane: u32, value: T) {
        let l = lane as usize & 31;
        if core::mem::needs_drop::<T>() && self.set >> l & 1 == 1 {
            // Cleared first: a `Drop` that panics must not lead to a second drop.
            self.set &= !(1 << l);
            // SAFETY: the bit said the slot holds a value; it is dropped once.
            unsafe { self.slots[l].assume_init_drop() };
        }
        self.slots[l].write(value);
        self.set |= 1 << l;
    }

    /// Takes lane `lane`'s value out.
    #[inline(always)]
    pub fn take(&mut self, lane: u32) -> T {
        let l = lane as usize & 31;
        assert!(self.set >> l & 1 == 1, "warp-wide form: lane {l}'s value read before it was set");
        self.set &= !(1 << l);
        // SAFETY: the bit said the slot holds a value, and it is now clear: read once.
        unsafe { self.slots[l].assume_init_read() }
    }

    /// Drops lane `lane`'s value, if it has one and its type has drop glue (a lane that
    /// returns drops its locals).
    #[inline(always)]
    pub fn drop_lane(&mut self, lane: u32) {
        let l = lane as usize & 31;
        if core::mem::needs_drop::<T>() && self.set >> l & 1 == 1 {
            self.set &= !(1 << l);
            // SAFETY: the bit said the slot holds a value; it is now clear: dropped once.
            unsafe { self.slots[l].assume_init_drop() };
        }
    }

    /// Lane `lane`'s value as a call's argument (see [`LaneArg`]).
    #[inline(always)]
    pub fn arg(&mut self, lane: u32) -> LaneArg<'_, T> {
        LaneArg(self, lane)
    }

    /// The values and the lanes that hold one, moved out (for the run's results).
    #[inline(always)]
    pub(crate) fn into_parts(self) -> ([MaybeUninit<T>; 32], u32) {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is not dropped: the slots are moved out once, with the bits saying
        // which hold a value.
        (unsafe { core::ptr::read(&this.slots) }, this.set)
    }

    /// Every lane's value, read from `values` (which the caller no longer uses as values).
    ///
    /// # Safety
    /// `values` holds 32 initialized `T`s, each read once between it and the result.
    #[inline(always)]
    pub(crate) unsafe fn read_array(values: *const [T; 32]) -> Lanes<T> {
        // SAFETY: the caller's contract; `MaybeUninit<T>` has `T`'s layout.
        Lanes { slots: unsafe { core::ptr::read(values as *const [MaybeUninit<T>; 32]) }, set: FULL }
    }

    /// Sets every lane's value to `value(lane)` (dropping those it had).
    #[inline(always)]
    pub fn fill(&mut self, mut value: impl FnMut(u32) -> T) {
        if core::mem::needs_drop::<T>() {
            (0..32).for_each(|l| self.set(l, value(l)));
            return;
        }
        for (l, slot) in self.slots.iter_mut().enumerate() {
            slot.write(value(l as u32));
        }
        self.set = FULL;
    }

    /// The lanes whose value is set.
    pub fn lanes(&self) -> u32 {
        self.set
    }

    /// The slots as 32-bit registers, when `T` is `u32`, `i32` or `f32` (see `words_of`) and no
    /// lane's value is set (nothing to drop or keep): written through the result, then
    /// [`mark_full`](Self::mark_full).
    #[inline(always)]
    fn slots_as_words(&mut self) -> Option<&mut [MaybeUninit<u32>; 32]> {
        // SAFETY: `T` is one of those primitives (4 bytes, align 4, any bit pattern valid), so
        // its slots are 32 `MaybeUninit<u32>`; none holds a value, so nothing is overwritten.
        (is_word::<T>() && self.set == 0)
            .then(|| unsafe { &mut *(&mut self.slots as *mut [MaybeUninit<T>; 32] as *mut [MaybeUninit<u32>; 32]) })
    }

    /// The slots as pairs of 32-bit words, when `T` is `(u32, bool)`, `(i32, bool)` or
    /// `(f32, bool)` laid out as the value's 4 bytes, then the predicate's byte, then padding
    /// (see `is_word_pair`), and no lane's value is set: a lane's slot is then written as the
    /// value's register and the predicate as a word (0 or 1, in its low byte on a little-endian
    /// target), then [`mark_full`](Self::mark_full).
    #[inline(always)]
    fn slots_as_pairs(&mut self) -> Option<&mut [[MaybeUninit<u32>; 2]; 32]> {
        // SAFETY: `T` is 8 bytes of align 4 (checked), so its slots are 32 pairs of
        // `MaybeUninit<u32>`; none holds a value, so nothing is overwritten.
        (is_word_pair::<T>() && self.set == 0)
            .then(|| unsafe { &mut *(&mut self.slots as *mut [MaybeUninit<T>; 32] as *mut [[MaybeUninit<u32>; 2]; 32]) })
    }

    /// Every slot was written (through [`slots_as_words`](Self::slots_as_words)).
    ///
    /// # Safety
    /// All 32 slots hold a value of `T`.
    #[inline(always)]
    unsafe fn mark_full(&mut self) {
        self.set = FULL;
    }

    /// Every lane's value, when every lane's is set.
    #[inline(always)]
    pub fn full_ref(&self) -> Option<&[T; 32]> {
        // SAFETY: every slot holds a value; `MaybeUninit<T>` has `T`'s layout.
        (self.set == FULL).then(|| unsafe { &*(self.slots.as_ptr() as *const [T; 32]) })
    }

    /// Every lane's value, where every lane is live: each holds one (the generated code sets a
    /// variable in every live lane before it reads it).
    #[inline(always)]
    pub(crate) fn live_full(&self) -> &[T; 32] {
        self.full_ref().expect("warp-wide form: a per-lane value is missing with every lane live")
    }

    /// Every lane's value (every lane holds one).
    #[inline(always)]
    pub(crate) fn into_array(self) -> [T; 32] {
        self.assert_full();
        // Read in one copy (a debug build gives every temporary its own slot, and a run's stack
        // is sized for a bounded number of copies of its results: `crate::stack`).
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: every slot holds a value (`MaybeUninit<T>` has `T`'s layout), and `this` is not
        // dropped, so each is read once.
        unsafe { core::ptr::read(&this.slots as *const [MaybeUninit<T>; 32] as *const [T; 32]) }
    }

    /// Checks that every lane's value is set (a dense stretch's precondition, checked once so
    /// that the reads in its loop need no check of their own).
    #[inline(always)]
    pub fn assert_full(&self) {
        assert!(self.set == FULL, "warp-wide form: a per-lane value is missing in a dense stretch");
    }
}

impl<T> core::ops::Index<u32> for Lanes<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, lane: u32) -> &T {
        let l = lane as usize & 31;
        assert!(self.set >> l & 1 == 1, "warp-wide form: lane {l}'s value read before it was set");
        // SAFETY: the bit says the slot holds a value.
        unsafe { self.slots[l].assume_init_ref() }
    }
}

impl<T> core::ops::IndexMut<u32> for Lanes<T> {
    #[inline(always)]
    fn index_mut(&mut self, lane: u32) -> &mut T {
        let l = lane as usize & 31;
        assert!(self.set >> l & 1 == 1, "warp-wide form: lane {l}'s value read before it was set");
        // SAFETY: the bit says the slot holds a value.
        unsafe { self.slots[l].assume_init_mut() }
    }
}

impl<T> Drop for Lanes<T> {
    #[inline(always)]
    fn drop(&mut self) {
        if !core::mem::needs_drop::<T>() {
            return;
        }
        for l in crate::semantics::lanes(self.set) {
            self.set &= !(1 << l);
            // SAFETY: the bit said the slot holds a value; it is cleared first.
            unsafe { self.slots[l as usize].assume_init_drop() };
        }
    }
}

/// The result of an instruction the engine has completed ([`WideCtx::settle`]): its future is
/// ready. Read through the `Future` bound, as the per-lane form's `.await` reads it, so that a
/// value type the instruction does not take is the same error.
#[inline(always)]
pub fn result<F: Future + Unpin>(mut issued: F) -> F::Output {
    let mut cx = Context::from_waker(core::task::Waker::noop());
    // An instruction's future is pending until polled once (as the lane suspends), then ready.
    for _ in 0..2 {
        if let Poll::Ready(v) = Pin::new(&mut issued).poll(&mut cx) {
            return v;
        }
    }
    unreachable!("a settled instruction's future is ready")
}

/// What an offer became.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum State {
    Pending,
    Declined,
    Ran,
}

/// A lane's offer of a kernel's warp-wide form: lives in the lane's (pinned) future while the
/// lane waits at the offer.
pub(crate) struct Offer {
    /// What runs the form, for the kernel's argument and result types.
    kind: &'static OfferKind,
    /// The kernel's [`WideBody`], erased.
    body: *const (),
    /// The lane's arguments (`*mut Option<A>` in its future), taken by the run.
    args: *mut (),
    /// Where the lane's result goes (`*mut Option<R>`).
    out: *mut (),
    /// The lane's handle (its group's membermask and segment width).
    handle: (u32, u32, u32, u64),
    /// The kernel, `module::name`.
    kernel: &'static str,
    /// What the form needs of every lane's handle.
    needs: Needs,
    /// The kernel's [`SameArgs`], erased (null: none).
    same_args: *const (),
    state: Cell<State>,
    /// Where the offer was made, when by a call that learns for a caller's form (`wide::Calls`;
    /// null otherwise): in the call's future, which holds this offer's. Learnt when the form
    /// runs.
    learn: Cell<*const LearnAt>,
    /// Made behind a last call (`Calls::new_last`) by a kernel that is not that call's callee:
    /// one that a hand-written `async fn` awaits without a call of its own, after which that
    /// function may run warp instructions. Its path says "only last calls", but returning is
    /// not exiting there (`first_poll_offer`).
    deep: Cell<bool>,
    /// The form of a kernel with CTA barriers while it runs, when this lane's offer is the one
    /// that holds it (the lowest offering lane's): a `Running<A, R>`, freed when the form ends
    /// or when this lane's future is dropped.
    running: Cell<*mut ()>,
}

impl Offer {
    /// Whether `other`'s arguments agree with this offer's on the parameters the form takes for
    /// uniform (both offers the same form's, waiting with their arguments).
    fn agrees(&self, other: &Offer) -> bool {
        if self.same_args.is_null() {
            return true;
        }
        // SAFETY: both offers wait with their arguments, `Option<A>`s of the form's `A`, which
        // `same_args` and `kind` are for.
        unsafe { (self.kind.same_offer_args)(self.same_args, self.args, other.args) }
    }

    /// Whether two lanes offered the same form.
    fn same(&self, other: &Offer) -> bool {
        // The same kind is one constant, whose address two offers of one form share (unless
        // two codegen units each have a copy: then its entry is compared).
        self.body == other.body && (core::ptr::eq(self.kind, other.kind) || core::ptr::fn_addr_eq(self.kind.entry, other.kind.entry))
    }
}

/// `entry_direct::<A, R>`, erased.
type DirectEntry = unsafe fn(&mut WideCtx<'_, '_>, *const (), *const (), *mut ()) -> Result<(), WarpError>;

/// The functions that run a form with arguments `A` and results `R` (one per pair, shared by
/// every offer: a lane's offer stays small).
pub(crate) struct OfferKind {
    /// Runs the warp-wide form for the lanes of `ctx`: `entry::<A, R>` (for a form that
    /// suspends at CTA barriers, `entry_async::<A, R>`, which only names the kind: `suspending`
    /// runs it).
    entry: unsafe fn(&mut WideCtx<'_, '_>, *const ()) -> Result<(), WarpError>,
    /// Runs the form with every lane's arguments taken from an array (`entry_direct::<A, R>`),
    /// for a run that starts the kernel itself ([`Direct`]); `None` for a form that suspends.
    direct: Option<DirectEntry>,
    /// For a form that suspends at CTA barriers ([`WideAsync`]).
    suspending: Option<&'static Suspending>,
    /// The names of `A` and `R`.
    types: fn() -> (&'static str, &'static str),
    /// `same_args::<A>`: applies an offer's [`SameArgs`] to two arguments (`*const A`).
    same_args: SameArgsErased,
    /// `same_offer_args::<A>`: the same for two offers' arguments (`*const Option<A>`).
    same_offer_args: SameArgsErased,
}

/// A [`SameArgs`] applied through erased pointers: `(f, a, b)`.
type SameArgsErased = unsafe fn(*const (), *const (), *const ()) -> bool;

/// `OfferKind::same_offer_args`.
///
/// # Safety
/// `f` is a `SameArgs<A>`; `a` and `b` point to `Option<A>`s.
unsafe fn same_offer_args<A>(f: *const (), a: *const (), b: *const ()) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        match (&*(a as *const Option<A>), &*(b as *const Option<A>)) {
            (Some(a), Some(b)) => same_args::<A>(f, a as *const A as *const (), b as *const A as *const ()),
            _ => false,
        }
    }
}

/// `OfferKind::same_args`.
///
/// # Safety
/// `f` is a `SameArgs<A>`; `a` and `b` point to `A`s.
unsafe fn same_args<A>(f: *const (), a: *const (), b: *const ()) -> bool {
    // SAFETY: the caller's contract.
    unsafe {
        let f = core::mem::transmute::<*const (), SameArgs<A>>(f);
        f(&*(a as *const A), &*(b as *const A))
    }
}

/// `start_async::<A, R>`, erased.
type StartAsync = unsafe fn(*mut (), u32, [*const Offer; 32], Option<crate::exec::Deadline>) -> Result<bool, WarpError>;

/// The future of a form that suspends ([`WideAsync`]), boxed.
type FormFuture<'a> = Pin<Box<dyn Future<Output = Result<(), WarpError>> + 'a>>;

/// How a form that suspends at CTA barriers is started, resumed and freed (`Running<A, R>`).
pub(crate) struct Suspending {
    /// Starts the form for the offers of `offered` (in the run behind the pointer) and polls it
    /// once: `Ok(true)` when it ran to its end, `Ok(false)` when it waits at a barrier (held by
    /// the lowest offering lane's offer).
    start: StartAsync,
    /// Polls the form that `offer` holds again, after its barrier completed.
    resume: unsafe fn(*mut (), *const Offer) -> Result<bool, WarpError>,
    /// Drops a `Running<A, R>`.
    free: unsafe fn(*mut ()),
}

struct KindOf<A, R>(core::marker::PhantomData<fn(A) -> R>);

impl<A, R> KindOf<A, R> {
    const KIND: &'static OfferKind =
        &OfferKind { entry: entry::<A, R>, direct: Some(entry_direct::<A, R>), suspending: None, types: type_names::<A, R>, same_args: same_args::<A>, same_offer_args: same_offer_args::<A> };
    const SUSPENDING: &'static OfferKind = &OfferKind {
        entry: entry_async::<A, R>,
        direct: None,
        suspending: Some(&Suspending { start: start_async::<A, R>, resume: resume_async::<A, R>, free: free_async::<A, R> }),
        types: type_names::<A, R>,
        same_args: same_args::<A>,
        same_offer_args: same_offer_args::<A>,
    };
}

fn type_names<A, R>() -> (&'static str, &'static str) {
    (core::any::type_name::<A>(), core::any::type_name::<R>())
}

/// Whether the run of `w`'s warp takes warp-wide forms: a kernel offers its form only then
/// (one load; nothing else of the offer runs otherwise).
#[inline(always)]
pub fn wanted(w: &Warp<'_>) -> bool {
    w.regs.wide_allowed()
}

/// A type, without a value of it: what a closure returns, for [`CopyYes`]/[`CopyNo`] to tell
/// whether it is `Copy` (a constant's value may have a `Drop`), or a callee's future, for a call
/// in a form ([`pack1`], [`CallsForm`]).
pub struct TypeOf<T>(core::marker::PhantomData<fn() -> T>);

impl<T> TypeOf<T> {
    /// A type to be inferred.
    #[allow(clippy::new_without_default)]
    #[inline(always)]
    pub const fn new() -> TypeOf<T> {
        TypeOf(core::marker::PhantomData)
    }
}

/// The type `f` returns; `f` is not called.
#[inline(always)]
pub fn type_of<T>(_f: impl FnOnce() -> T) -> TypeOf<T> {
    TypeOf::new()
}

/// `(&type_of(|| NAME)).__warpkit_is_copy()` is `true` when the constant's type is `Copy` (method
/// resolution takes this impl first when it applies, on a concrete type or by a type
/// parameter's bounds) and `false` otherwise ([`CopyNo`]). A form that binds a constant by a
/// uniform `let` is offered only when it is `Copy`: one value for the warp is then the same as a
/// copy in each lane (no `Drop` runs once where each lane's would run).
pub trait CopyYes {
    /// `true`: the type is `Copy`.
    fn __warpkit_is_copy(&self) -> bool {
        true
    }
}

impl<T: Copy> CopyYes for TypeOf<T> {}

/// See [`CopyYes`].
pub trait CopyNo {
    /// `false`: the type is not known to be `Copy`.
    fn __warpkit_is_copy(&self) -> bool {
        false
    }
}

impl<T> CopyNo for &TypeOf<T> {}

/// Two lanes' arguments for a `GlobalSlice` parameter that a form takes for uniform:
/// `(&SameProbe(&a, &b)).__warpkit_same()` is whether they view the same elements of the same buffer
/// ([`SameYes`]), and `false` for a type of that name that is not warpkit's ([`SameNo`]: the
/// form is then declined).
pub struct SameProbe<'a, T>(pub &'a T, pub &'a T);

/// See [`SameProbe`].
pub trait SameYes {
    /// Whether the two arguments view the same elements.
    fn __warpkit_same(&self) -> bool;
}

impl<T: crate::global::GlobalValue> SameYes for SameProbe<'_, crate::global::GlobalSlice<'_, T>> {
    #[inline(always)]
    fn __warpkit_same(&self) -> bool {
        self.0.same_view(self.1)
    }
}

/// See [`SameProbe`].
pub trait SameNo {
    /// `false`: not known to be the same.
    fn __warpkit_same(&self) -> bool {
        false
    }
}

impl<T> SameNo for &SameProbe<'_, T> {}

/// A kernel's offer of its warp-wide form, awaited at the top of its host `async fn` (only
/// when [`wanted`]): `Ok(result)` when the form ran, `Err(args)` (the arguments, given back)
/// when the lane must run the per-lane body. `kernel` names the kernel (`module::name`), for a
/// run that starts it directly. `needs`: what the form needs of every lane's handle.
/// `same_args`: the form takes some parameters for uniform (one value for the warp), so it runs
/// only when every lane passed the same values for them.
pub fn offer<'a, A, R>(
    w: &Warp<'a>,
    body: WideBody<A, R>,
    args: A,
    kernel: &'static str,
    needs: Needs,
    same_args: Option<SameArgs<A>>,
) -> OfferFuture<'a, A, R> {
    offer_of(w, KindOf::<A, R>::KIND, body as *const (), args, kernel, needs, same_args)
}

/// [`offer`] for the form of a kernel with CTA barriers, which suspends at them.
pub fn offer_suspending<'a, A, R>(
    w: &Warp<'a>,
    body: WideAsync<A, R>,
    args: A,
    kernel: &'static str,
    needs: Needs,
    same_args: Option<SameArgs<A>>,
) -> OfferFuture<'a, A, R> {
    offer_of(w, KindOf::<A, R>::SUSPENDING, body as *const (), args, kernel, needs, same_args)
}

/// Whether two lanes' arguments agree on the parameters a form takes for uniform (see [`offer`]).
pub type SameArgs<A> = fn(&A, &A) -> bool;

/// What a form needs of every offering lane's handle and arguments (see [`offer`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Needs {
    /// The form keeps a vote's result a scalar: every lane's handle must be the whole warp's.
    pub whole_warp: bool,
    /// The form takes the handle's `width()` and `size()` for uniform: every lane's handle must
    /// have the same segment width and number of lanes.
    pub same_shape: bool,
    /// The parameters the form takes for uniform, which every lane must pass alike (bit `i`: the
    /// `i`-th parameter after the handle; the offer's [`SameArgs`] compares them).
    pub same_params: u64,
    /// A lane may return while the others go on to a warp instruction or call: the form treats
    /// the lanes that returned as exited, which they are only when the kernel is the whole
    /// program (offered at the run's entry). Called from another warp function, a lane that
    /// returns goes on in its caller, and the per-lane executor makes the instructions that name
    /// it wait for it (or report that it never comes): the offer is declined there, and a
    /// caller's form does not run such a callee's; unless every call on the way is a last call
    /// ([`Calls::new_last`]), after which the caller runs only lane code, so that returning is
    /// exiting there too as far as the warp's instructions go.
    pub returns_early: bool,
}

impl Needs {
    /// What both `self` and `other` need.
    #[inline(always)]
    pub fn and(self, other: Needs) -> Needs {
        Needs {
            whole_warp: self.whole_warp | other.whole_warp,
            same_shape: self.same_shape | other.same_shape,
            same_params: self.same_params | other.same_params,
            returns_early: self.returns_early | other.returns_early,
        }
    }
}

/// What a kernel's form learned of the warp functions it calls: one per call site, a `static`
/// the macro declares in the kernel's body.
///
/// A form runs a call of a warp function by running the callee's own form for the warp
/// ([`WideCtx::call`]). The per-lane executor does the same only when every lane offers the
/// callee's form and the offers are taken; otherwise the lanes run the callee per lane, and a
/// lane that returns from it early goes on with the caller's code while the others are still in
/// the callee, which a form cannot do. So a caller's form is offered only when, at each of its
/// calls, the callee is known to offer a form that it does not suspend and whose needs the
/// caller's own offer can promise ([`calls_ready`]). That is learned in a run of the caller per
/// lane: the callee's offer, seen at the call's first poll ([`crate::call::Call::learning`]),
/// is learnt when the engine runs its form ([`run_offers`]). What was learned stays: a callee that offered once offers again (its
/// prologue's conditions depend on its types, the run's settings, and what its own calls
/// learned, which stays too).
pub struct Calls {
    learned: [core::sync::atomic::AtomicPtr<Learned>; CALLS_LEARNED],
    /// First polls of the callee that found it waiting elsewhere than at its offer (or returned):
    /// from [`CALLS_GIVE_UP`] on, the calls stop looking (a callee without a form never offers,
    /// and looking cost each lane's call of it about 40 instructions). A callee that offers
    /// only later (its own calls learnt late) is then never learnt: its callers stay per lane.
    unoffered: core::sync::atomic::AtomicU32,
    /// The call is a last call: after it the caller reaches no warp instruction, barrier, call
    /// or atomic (a statement of its body, outside any loop, after which only lane code
    /// follows). A lane that returns from the callee then runs only lane code until the caller
    /// returns, so a callee whose lanes return early (`Needs::returns_early`) may run its form
    /// here when the caller runs where returning is exiting (`warp::only_last_calls`). (Such a
    /// lane then runs that code after the callee's other lanes finish, not before: the order
    /// of its plain loads and stores against theirs shows only where they race.)
    last: bool,
    /// The call hands the callee a tile of the caller's handle (`f(&w.tile(8), ..)`), not the
    /// handle itself ([`Calls::on_tiles`]).
    tiles: bool,
}

/// See [`Calls::unoffered`]: four launches of a 512-warp grid whose warps all call the callee.
const CALLS_GIVE_UP: u32 = 1 << 16;

/// How many instantiations of a caller one call site learns for (a generic kernel's); the calls
/// of any more keep those callers per lane.
const CALLS_LEARNED: usize = 4;

/// A callee's offer seen at one call site, from one instantiation of the caller: made once,
/// never freed (a call site learns at most [`CALLS_LEARNED`] of them).
struct Learned {
    /// The caller's form ([`WideBody`] or [`WideAsync`]), by address.
    caller: usize,
    /// The type name of the callee's future (its function and generic arguments).
    callee: &'static str,
    kind: &'static OfferKind,
    body: *const (),
    needs: Needs,
    /// Whether a form's call found the callee it calls to be this one ([`WideCtx::call`]): the
    /// same every time for one caller's form, so checked once.
    checked: core::sync::atomic::AtomicBool,
}

impl Calls {
    /// Nothing learned.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Calls {
        Calls {
            learned: [const { core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()) }; CALLS_LEARNED],
            unoffered: core::sync::atomic::AtomicU32::new(0),
            last: false,
            tiles: false,
        }
    }

    /// The same call site, where the call hands its callee a tile of the caller's handle
    /// (`w.tile(N)`, `N` a constant) instead of the handle: the callee's form then runs on each
    /// lane's tile. A callee that keeps a vote's result a scalar (`Needs::whole_warp`) is not
    /// run so (a tile's vote is its own). One that takes its group's shape for uniform
    /// (`Needs::same_shape`) is, when every lane's handle is the whole warp's: then every tile
    /// has `N` lanes, so the caller's offer needs that ([`calls_ready`]).
    pub const fn on_tiles(self) -> Calls {
        Calls { tiles: true, ..self }
    }

    /// Nothing learned, at a last call ([`Calls::last`](Self#structfield.last)).
    pub const fn new_last() -> Calls {
        Calls { last: true, ..Calls::new() }
    }

    /// Whether the call site is a last call.
    #[inline(always)]
    pub(crate) fn is_last(&self) -> bool {
        self.last
    }

    /// Whether the calls stopped looking for the callee's offer ([`Calls::unoffered`]).
    #[inline(always)]
    pub(crate) fn given_up(&self) -> bool {
        self.unoffered.load(core::sync::atomic::Ordering::Relaxed) >= CALLS_GIVE_UP
    }

    /// A first poll of the callee found no offer of it.
    #[cold]
    fn unoffered(&self) {
        self.unoffered.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
    }

    /// What this call site learned for the caller's form `caller`.
    #[inline]
    fn find(&self, caller: usize) -> Option<&'static Learned> {
        for slot in &self.learned {
            let p = slot.load(core::sync::atomic::Ordering::Acquire);
            if p.is_null() {
                // `learn` fills the slots in order: none after the first empty one.
                return None;
            }
            // SAFETY: a published entry is never freed nor changed.
            let l = unsafe { &*p };
            if l.caller == caller {
                return Some(l);
            }
        }
        None
    }

    /// Keeps `learned`, unless this caller's is known already (or every slot is taken).
    #[cold]
    fn learn(&self, learned: Learned) {
        if self.find(learned.caller).is_some() {
            return;
        }
        let p = Box::into_raw(Box::new(learned));
        for slot in &self.learned {
            let won = slot.compare_exchange(core::ptr::null_mut(), p, core::sync::atomic::Ordering::AcqRel, core::sync::atomic::Ordering::Acquire);
            match won {
                Ok(_) => return,
                // Another thread learned the same caller meanwhile: one entry is enough.
                // SAFETY: as in `find`.
                Err(q) if unsafe { (*q).caller } == unsafe { (*p).caller } => break,
                Err(_) => {}
            }
        }
        // SAFETY: `p` was not published.
        drop(unsafe { Box::from_raw(p) });
    }
}

/// Whether the form `caller` may be offered as far as its calls go: each call site (with the
/// parameters of the callee that the caller passes values for uniform, bit `i` the `i`-th after
/// the handle) learned for it that the callee offers a form that does not suspend, and takes
/// for uniform only parameters that the caller passes so. `Some`: what the callees need of the
/// lanes' handles, which the caller passes on (it hands each callee its own handle).
#[inline]
pub fn calls_ready(caller: *const (), sites: &[(&'static Calls, u64)]) -> Option<Needs> {
    let mut needs = Needs::default();
    for &(calls, uniform) in sites {
        let l = calls.find(caller.addr())?;
        if l.kind.suspending.is_some() || l.needs.same_params & !uniform != 0 || l.needs.returns_early && !calls.last {
            return None;
        }
        let mut callee = l.needs;
        if calls.tiles {
            // On tiles (`Calls::on_tiles`): not a callee that needs the whole warp's handles;
            // one that needs its handles' shape alike needs the caller's to be the whole warp's.
            if callee.whole_warp {
                return None;
            }
            callee.whole_warp = callee.same_shape;
            callee.same_shape = false;
        }
        // A callee whose lanes return early, at a last call: the caller's lanes return early
        // too.
        needs = needs.and(Needs { same_params: 0, ..callee });
    }
    Some(needs)
}

/// What a call that learns for its call site (`crate::call::Learning`) tells the callee's
/// offer: the call site's `Calls`, the caller's form (by address), and the type name of the
/// callee's future.
pub(crate) struct LearnAt {
    pub(crate) calls: &'static Calls,
    pub(crate) caller: usize,
    pub(crate) callee: fn() -> &'static str,
}

/// Lane `lane`, polling the callee of a call it makes from a kernel with a form run per lane,
/// may just have posted the callee's offer (at the callee's path, which `path` computes): when
/// `learn`, if the form runs, the call site learns it (see [`Calls`]; learnt then, between two
/// steps, every lane of a warp that reaches the caller afterwards sees the same). `at` lives in
/// the call's future, which holds the offer's. At a last call, an offer there that is not the
/// callee's own is marked [`Offer::deep`] (a hand-written `async fn` callee awaited a kernel
/// directly, and may run warp instructions after it).
///
/// An offer at the callee's path is the callee's own only when the callee is the kernel that
/// made it: a hand-written `async fn` that awaits a kernel without [`call`](crate::call) leaves
/// that kernel's offer at the same path. So the offer's kernel must be the callee, by the
/// callee's future's type name (`path::name::{{closure}}`, with generic arguments after the
/// name); a kernel that is an associated function (`path::Type::name`) is not recognised, and
/// its callers keep the per-lane form.
#[inline]
pub(crate) fn first_poll_offer(regs: &Regs, lane: u32, path: impl FnOnce() -> u64, at: &LearnAt, learn: bool) {
    let l = lane as usize & 31;
    // The path only when the lane offered (a callee without a form never does).
    if regs.offered.get() >> l & 1 == 0 {
        // Counted only where forms are on: elsewhere no callee offers.
        if learn && regs.wide_allowed() {
            at.calls.unoffered();
        }
        return;
    }
    if regs.path_at(l) != path() {
        return;
    }
    // SAFETY: the lane posted this offer in the poll just made (at the callee's path: the
    // callee's, or a kernel's that a hand-written callee awaited without a call of its own), and
    // its future is alive.
    let o = unsafe { &*crate::warp::at(&regs.offers, l).get() };
    let own = future_of(o.kernel, (at.callee)());
    if learn && own {
        o.learn.set(at);
    }
    if !own && at.calls.is_last() {
        o.deep.set(true);
    }
}

/// Whether `future` (a type name) is the future of the `async fn` `kernel` (`module::name`).
fn future_of(kernel: &str, future: &str) -> bool {
    let future = future.strip_prefix("{async fn body of ").unwrap_or(future);
    future.strip_prefix(kernel).is_some_and(|rest| rest.starts_with('<') || rest.starts_with("::{{closure}}") || rest.starts_with("()"))
}

/// `(&callee).__warpkit_call_in(..)`, on the [`TypeOf`] the `pack` functions inferred (the callee's
/// future, [`pack1`]), runs a call in a form ([`WideCtx::call`]) when that is a future (method resolution takes this impl first when it applies); otherwise
/// ([`CallsNothing`]) the kernel does not compile anyway (its per-lane body's call of a function
/// that is not a warp function is an error at the call, `WarpCall`), and the form adds no error
/// of its own.
pub trait CallsForm {
    /// The callee's result.
    type Out;
    /// See [`WideCtx::call`].
    fn __warpkit_call_in<'r, A>(
        &self,
        ctx: &mut WideCtx<'_, 'r>,
        calls: &'static Calls,
        site: Site,
        tiles: Option<&Lanes<Warp<'r>>>,
        args: &mut Lanes<A>,
        out: &mut Lanes<Self::Out>,
    ) -> Result<(), WarpError>;
}

impl<F: Future> CallsForm for TypeOf<F> {
    type Out = F::Output;
    #[inline(always)]
    fn __warpkit_call_in<'r, A>(
        &self,
        ctx: &mut WideCtx<'_, 'r>,
        calls: &'static Calls,
        site: Site,
        tiles: Option<&Lanes<Warp<'r>>>,
        args: &mut Lanes<A>,
        out: &mut Lanes<F::Output>,
    ) -> Result<(), WarpError> {
        ctx.call::<A, F>(calls, site, tiles, args, out)
    }
}

/// See [`CallsForm`].
pub trait CallsNothing {
    /// Never called: the kernel does not compile.
    fn __warpkit_call_in<'r, A, R>(&self, _: &mut WideCtx<'_, 'r>, _: &'static Calls, _: Site, _: Option<&Lanes<Warp<'r>>>, _: &mut Lanes<A>, _: &mut Lanes<R>) -> Result<(), WarpError> {
        unreachable!("a call of a function that is not a warp function does not compile")
    }
}

impl<F> CallsNothing for &TypeOf<F> {}

/// A lane's tile that a call in a form hands its callee (`&t` or `t`), as a handle.
#[inline(always)]
pub fn tile_handle<'r, H: core::borrow::Borrow<Warp<'r>>>(h: H) -> Warp<'r> {
    *h.borrow()
}

/// A per-lane variable passed whole to a call in a form: `v.arg(lane).__warpkit_value()` is the lane's
/// value, copied when its type is `Copy` ([`ArgCopy`], which method resolution takes
/// first when it applies), else moved out ([`ArgMove`]): the per-lane form's call moves it then,
/// so the kernel does not read it again before setting it.
pub struct LaneArg<'a, T>(pub &'a mut Lanes<T>, pub u32);

/// See [`LaneArg`].
pub trait ArgCopy<T> {
    /// The lane's value, copied.
    fn __warpkit_value(self) -> T;
}

impl<T: Copy> ArgCopy<T> for LaneArg<'_, T> {
    #[inline(always)]
    fn __warpkit_value(self) -> T {
        self.0[self.1]
    }
}

/// See [`LaneArg`].
pub trait ArgMove<T> {
    /// The lane's value, moved out.
    fn __warpkit_value(self) -> T;
}

impl<T> ArgMove<T> for &mut LaneArg<'_, T> {
    #[inline(always)]
    fn __warpkit_value(self) -> T {
        self.0.take(self.1)
    }
}

/// A per-lane variable assigned whole in a form's lane code (`v = e;`): `v.assign(lane).__warpkit_put(e)`
/// writes the lane's value in place when its type is `Copy` ([`AssignCopy`], which method
/// resolution takes first when it applies), else sets it ([`AssignMove`]): the lane may have
/// moved its value out before (`let t = s; s = ..;`), which Rust allows, and the old value, if
/// any, is dropped.
pub struct LaneAssign<'a, T>(pub &'a mut Lanes<T>, pub u32);

impl<T> Lanes<T> {
    /// Lane `lane`'s variable, to be assigned (see [`LaneAssign`]).
    #[inline(always)]
    pub fn assign(&mut self, lane: u32) -> LaneAssign<'_, T> {
        LaneAssign(self, lane)
    }
}

/// See [`LaneAssign`].
pub trait AssignCopy<T> {
    /// Writes the lane's value in place.
    fn __warpkit_put(self, value: T);
}

impl<T: Copy> AssignCopy<T> for LaneAssign<'_, T> {
    #[inline(always)]
    fn __warpkit_put(self, value: T) {
        self.0[self.1] = value;
    }
}

/// See [`LaneAssign`].
pub trait AssignMove<T> {
    /// Sets the lane's value, dropping the one it holds, if any.
    fn __warpkit_put(self, value: T);
}

impl<T> AssignMove<T> for &mut LaneAssign<'_, T> {
    #[inline(always)]
    fn __warpkit_put(self, value: T) {
        self.0.set(self.1, value);
    }
}

macro_rules! pack_fns {
    ($($name:ident ($($a:ident: $t:ident),*) -> $out:ty;)*) => {$(
        /// One lane's arguments of a call in a form (after the handle), as the callee's form
        /// takes them: one parameter's value as it is, several as a tuple. `callee` names the
        /// function, whose parameters (after the handle) the arguments are converted to as in a
        /// call of it; `future` learns its future's type.
        #[inline(always)]
        #[allow(clippy::unused_unit, clippy::too_many_arguments)]
        pub fn $name<'w, K, F, $($t),*>(_callee: &K, _future: &mut TypeOf<F>, $($a: $t),*) -> $out
        where
            K: FnOnce(&'w Warp<'w>, $($t),*) -> F,
        {
            ($($a),*)
        }
    )*};
}

pack_fns! {
    pack0() -> ();
    pack1(a: A) -> A;
    pack2(a: A, b: B) -> (A, B);
    pack3(a: A, b: B, c: C) -> (A, B, C);
    pack4(a: A, b: B, c: C, d: D) -> (A, B, C, D);
    pack5(a: A, b: B, c: C, d: D, e: E) -> (A, B, C, D, E);
    pack6(a: A, b: B, c: C, d: D, e: E, f: G) -> (A, B, C, D, E, G);
}

fn offer_of<'a, A, R>(
    w: &Warp<'a>,
    kind: &'static OfferKind,
    body: *const (),
    args: A,
    kernel: &'static str,
    needs: Needs,
    same_args: Option<SameArgs<A>>,
) -> OfferFuture<'a, A, R> {
    OfferFuture {
        regs: w.regs,
        lane: w.lane,
        offer: Offer {
            kind,
            body,
            args: core::ptr::null_mut(),
            out: core::ptr::null_mut(),
            handle: (w.lane, w.mask, w.width, w.base),
            kernel,
            needs,
            same_args: same_args.map_or(core::ptr::null(), |f| f as *const ()),
            state: Cell::new(State::Pending),
            learn: Cell::new(core::ptr::null()),
            deep: Cell::new(false),
            running: Cell::new(core::ptr::null_mut()),
        },
        posted: false,
        args: Some(args),
        out: None,
        _pin: core::marker::PhantomPinned,
    }
}

/// Whether the run is polling `w`'s lane to start its warp in the kernel's form (see [`probe`]):
/// one load, so that a wrapper entry's lanes skip the rest of its prologue otherwise.
#[inline(always)]
pub fn probing(w: &Warp<'_>) -> bool {
    w.regs.probing.get()
}

/// What a wrapper entry kernel (one that only calls a warp function: it loads, calls and
/// stores) does at its top instead of offering its form: when the run polls the lane to start
/// the warp in the form (`Grid::run_entry`, for an entry launched through its type), it leaves
/// the form in the registers and returns true, and the kernel returns at once, having run
/// nothing. Otherwise it does nothing. Per lane, a wrapper's lanes reach its callee's offer in
/// one step, so an offer of its own would save no step; it would only cost every lane's future
/// its size and its polls (the histogram example's entry, whose callee has no form: 30-40%
/// slower).
pub fn probe<A, R>(w: &Warp<'_>, body: WideBody<A, R>, kernel: &'static str, same_args: Option<SameArgs<A>>) -> bool {
    let regs = w.regs;
    // At the run's entry only: not an entry kernel called by another kernel.
    if !regs.probing.get() || regs.path_at(w.lane as usize & 31) != crate::warp::PATH_ENTRY {
        return false;
    }
    let kind = KindOf::<A, R>::KIND;
    let Some(direct) = kind.direct else { return false };
    let same = same_args.map_or(core::ptr::null(), |f| f as *const ());
    regs.probed.set(Some(Direct { direct, body: body as *const (), types: (kind.types)(), kernel, same: (same, kind.same_args) }));
    true
}

/// The future of [`offer`]. It holds the lane's arguments and, once the form ran, its result;
/// the registers point at its offer while the lane waits, and it withdraws the offer if dropped
/// first.
#[must_use = "an offer does nothing unless awaited"]
pub struct OfferFuture<'a, A, R> {
    regs: &'a Regs,
    lane: u32,
    offer: Offer,
    posted: bool,
    args: Option<A>,
    out: Option<R>,
    _pin: core::marker::PhantomPinned,
}

impl<A, R> Future for OfferFuture<'_, A, R> {
    type Output = Result<R, A>;

    #[inline]
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<R, A>> {
        // SAFETY: nothing is moved out of the pinned future but the `Option`s' contents; the
        // offer's address, and those of `args` and `out`, stay valid while it is pinned, which
        // is while the registers may hold them (`Drop` withdraws the offer).
        let this = unsafe { self.get_unchecked_mut() };
        if !this.posted {
            // Outside a run of this warp (a future polled by some other executor): the
            // per-lane body, with no suspension.
            let here = crate::mem::current().is_some_and(|(r, l)| core::ptr::eq(r, this.regs) && l == this.lane);
            if here && this.regs.wide_allowed() {
                this.posted = true;
                this.offer.args = &mut this.args as *mut Option<A> as *mut ();
                this.offer.out = &mut this.out as *mut Option<R> as *mut ();
                this.regs.post_offer(this.lane, &this.offer as *const Offer);
                return Poll::Pending;
            }
        }
        match (this.out.take(), this.args.take()) {
            (Some(r), _) => Poll::Ready(Ok(r)),
            (None, Some(args)) => Poll::Ready(Err(args)),
            (None, None) => unreachable!("an offer completes once"),
        }
    }
}

impl<A, R> Drop for OfferFuture<'_, A, R> {
    fn drop(&mut self) {
        // Dropped while the registers still hold the offer (a future polled once and dropped by
        // code that does not await it): withdraw it.
        if self.posted && self.offer.state.get() == State::Pending {
            self.regs.withdraw_offer(self.lane, &self.offer as *const Offer);
        }
        // A form that suspends, dropped before its end (its run failed): freed here, before the
        // other lanes' futures (whose values its arguments may borrow) are.
        let running = self.offer.running.replace(core::ptr::null_mut());
        if let (false, Some(s)) = (running.is_null(), self.offer.kind.suspending) {
            // SAFETY: `running` is the `Running` this kind's `start` made, not otherwise
            // referenced while the run is not stepping (it is being dropped).
            unsafe { (s.free)(running) };
        }
    }
}

/// `Offer::entry`: takes every offering lane's arguments, runs the form, and writes each lane's
/// result where its future reads it.
///
/// # Safety
/// `body` is a `WideBody<A, R>`, and every offer of `ctx` was made by [`offer::<A, R>`] with it,
/// its future still pinned and waiting.
unsafe fn entry<A, R>(ctx: &mut WideCtx<'_, '_>, body: *const ()) -> Result<(), WarpError> {
    // SAFETY: the caller's contract.
    let body: WideBody<A, R> = unsafe { core::mem::transmute::<*const (), WideBody<A, R>>(body) };
    let mut args = Lanes::<A>::new();
    // SAFETY: the caller's contract.
    unsafe { take_args(ctx.offered, &ctx.offers, &mut args) };
    let mut outs = Lanes::<R>::new();
    let result = body(ctx, &mut args, &mut outs);
    // SAFETY: as above.
    unsafe { give_results(&mut outs, &ctx.offers) };
    result
}

/// Takes the arguments of the lanes of `offered` from their offers into `args`: the form runs
/// for them (each offer is `Ran`).
///
/// # Safety
/// The offers of `offered` were made by [`offer`] or [`offer_suspending`] for this `A`, their
/// futures pinned and waiting.
unsafe fn take_args<A>(offered: u32, offers: &[*const Offer; 32], args: &mut Lanes<A>) {
    for lane in crate::semantics::lanes(offered) {
        // SAFETY: the caller's contract; an offer's `args` is its waiting future's `Option<A>`,
        // not otherwise borrowed while the lane waits.
        let offer = unsafe { &*offers[lane as usize] };
        let taken = unsafe { (*(offer.args as *mut Option<A>)).take() };
        args.set(lane, taken.expect("a waiting offer holds its arguments"));
        offer.state.set(State::Ran);
    }
}

/// Writes each returned lane's result where its offer's future reads it.
///
/// # Safety
/// The offers of the lanes of `outs` were made for this `R`, their futures pinned and waiting.
unsafe fn give_results<R>(outs: &mut Lanes<R>, offers: &[*const Offer; 32]) {
    for lane in crate::semantics::lanes(outs.lanes()) {
        let value = outs.take(lane);
        // SAFETY: the caller's contract; an offer's `out` is the lane's `Option<R>`, not
        // otherwise borrowed while the lane waits.
        unsafe { *((*offers[lane as usize]).out as *mut Option<R>) = Some(value) };
    }
}

/// `Offer::direct`: the form, each lane's arguments read from `args` (`*const [A; 32]`, copied:
/// the caller's arguments are `Copy`), each lane's result written to `outs` (`*mut Lanes<R>`).
///
/// # Safety
/// `body` is a `WideBody<A, R>`; `args` and `outs` point to what the names say, of these `A`
/// and `R`.
unsafe fn entry_direct<A, R>(ctx: &mut WideCtx<'_, '_>, body: *const (), args: *const (), outs: *mut ()) -> Result<(), WarpError> {
    // SAFETY: the caller's contract.
    let (body, args, outs) = unsafe {
        (core::mem::transmute::<*const (), WideBody<A, R>>(body), &*(args as *const [A; 32]), &mut *(outs as *mut Lanes<R>))
    };
    // SAFETY (both reads): the caller's `A` is `Copy`: reading it leaves the caller's array as
    // it was.
    let mut lanes = if ctx.offered == FULL {
        unsafe { Lanes::<A>::read_array(args) }
    } else {
        let mut lanes = Lanes::<A>::new();
        for lane in crate::semantics::lanes(ctx.offered) {
            lanes.set(lane, unsafe { core::ptr::read(&args[lane as usize]) });
        }
        lanes
    };
    body(ctx, &mut lanes, outs)
}

/// The `entry` of a kind whose form suspends: names the kind (offers compare it); never called
/// (`run_offers` starts such a form through [`Suspending`]).
unsafe fn entry_async<A, R>(_: &mut WideCtx<'_, '_>, _: *const ()) -> Result<(), WarpError> {
    unreachable!("the form of {} suspends at barriers: `Suspending::start` starts it", core::any::type_name::<fn(A) -> R>())
}

/// A form that suspends at CTA barriers, while it runs: its future, and everything its context
/// refers to, in one allocation (the future borrows the rest).
struct Running<'a, A, R> {
    /// Declared first: dropped before what it borrows.
    fut: Option<FormFuture<'a>>,
    ctx: MaybeUninit<WideCtx<'a, 'a>>,
    run: Cell<*mut WarpRun<'a>>,
    current: crate::mem::FormCurrent,
    hs: [Warp<'a>; 32],
    own: core::cell::OnceCell<[Warp<'a>; 32]>,
    args: Lanes<A>,
    outs: Lanes<R>,
    /// The offers of the lanes that run the form, and the lanes exited before it.
    offers: [*const Offer; 32],
    exited: u32,
}

impl<A, R> Drop for Running<'_, A, R> {
    fn drop(&mut self) {
        self.fut = None;
        // SAFETY: `ctx` is initialised as soon as the allocation is made (`start_async`), and
        // nothing refers to it once the future is gone.
        unsafe { self.ctx.assume_init_drop() };
    }
}

/// `Suspending::start` for a form taking `A` and giving `R`.
///
/// # Safety
/// `run` is the `WarpRun` whose lanes of `offered` posted `offers` (made by
/// [`offer_suspending::<A, R>`], one body) in the step that runs this, and wait at them.
unsafe fn start_async<A, R>(run: *mut (), offered: u32, offers: [*const Offer; 32], deadline: Option<crate::exec::Deadline>) -> Result<bool, WarpError> {
    let run = run as *mut WarpRun<'_>;
    let first = offered.trailing_zeros() as usize;
    // SAFETY: the caller's contract: the offers live in the lanes' pinned futures.
    let (leader, regs, exited) = unsafe { (&*offers[first], (*run).regs, (*run).exited) };
    // SAFETY: the body was made by `offer_suspending::<A, R>`.
    let body: WideAsync<A, R> = unsafe { core::mem::transmute::<*const (), WideAsync<A, R>>(leader.body) };
    // Built in place (the lanes' values and handles are a few kilobytes).
    let p = Box::into_raw(Box::<Running<'_, A, R>>::new_uninit()) as *mut Running<'_, A, R>;
    // SAFETY: every field is written before the allocation is read or dropped as a `Running`
    // (nothing below can panic before `leader.running` owns it: the arguments are taken from
    // waiting offers, which hold them).
    unsafe {
        use core::ptr::addr_of_mut;
        addr_of_mut!((*p).fut).write(None);
        addr_of_mut!((*p).ctx).write(MaybeUninit::uninit());
        addr_of_mut!((*p).run).write(Cell::new(run));
        addr_of_mut!((*p).hs).write(offered_handles(regs, offered, &offers));
        addr_of_mut!((*p).own).write(core::cell::OnceCell::new());
        addr_of_mut!((*p).outs).write(Lanes::new());
        addr_of_mut!((*p).offers).write(offers);
        addr_of_mut!((*p).exited).write(exited);
        addr_of_mut!((*p).args).write(Lanes::new());
        take_args(offered, &offers, &mut *addr_of_mut!((*p).args));
        addr_of_mut!((*p).current).write(crate::mem::FormCurrent::enter(regs));
    }
    // SAFETY: `p` is a fresh allocation that lives until `free_async` or the form's end; the
    // context and the future refer to its other fields, which never move, and each field is
    // reached through `p` alone (no reference to the whole is made while the future lives, so
    // none overlaps the future's own references to the context and the lanes). The leader's
    // offer owns it from here (its future is dropped before the other lanes' in a failed run).
    unsafe {
        use core::ptr::{addr_of, addr_of_mut};
        let ctx = WideCtx::new(&*addr_of!((*p).run), &*addr_of!((*p).current), offered, offers, Some(&*addr_of!((*p).hs)), &*addr_of!((*p).own), deadline, leader.body);
        (*addr_of_mut!((*p).ctx)).write(ctx);
        let fut = body(&mut *(*addr_of_mut!((*p).ctx)).as_mut_ptr(), &mut *addr_of_mut!((*p).args), &mut *addr_of_mut!((*p).outs));
        *addr_of_mut!((*p).fut) = Some(core::mem::transmute::<FormFuture<'_>, FormFuture<'_>>(fut));
        leader.running.set(p as *mut ());
        poll_running(p, leader)
    }
}

/// `Suspending::resume`.
///
/// # Safety
/// `leader` holds a `Running<A, R>` waiting at a barrier of the warp of `run`, which completed.
unsafe fn resume_async<A, R>(run: *mut (), leader: *const Offer) -> Result<bool, WarpError> {
    // SAFETY: the caller's contract.
    unsafe {
        let leader = &*leader;
        let p = leader.running.get() as *mut Running<'_, A, R>;
        (*core::ptr::addr_of!((*p).run)).set(run as *mut WarpRun<'_>);
        (*core::ptr::addr_of!((*p).current)).reenter();
        poll_running(p, leader)
    }
}

/// `Suspending::free`.
///
/// # Safety
/// `p` is a `Running<A, R>` that `start_async` made, not referenced elsewhere.
unsafe fn free_async<A, R>(p: *mut ()) {
    // SAFETY: the caller's contract.
    drop(unsafe { Box::from_raw(p as *mut Running<'_, A, R>) });
}

/// Polls the form `p` (attached to its run): `Ok(true)` when it ended (each lane's result then
/// in its offer, and `p` freed), `Ok(false)` when it waits at a barrier (it detached itself:
/// [`WideCtx::barrier`]). A lane's panic unwinds from here with the registers naming it, as the
/// form's context does when it is on the stack.
///
/// # Safety
/// `p` is `leader`'s `Running<A, R>`, attached to the run that steps now.
unsafe fn poll_running<A, R>(p: *mut Running<'_, A, R>, leader: &Offer) -> Result<bool, WarpError> {
    use core::ptr::{addr_of, addr_of_mut};
    /// Detaches the form if a lane's panic unwinds through its poll.
    struct Unwind(*mut ());
    impl Drop for Unwind {
        fn drop(&mut self) {
            if std::thread::panicking() {
                // SAFETY: set below to the context of the form being polled (initialised),
                // whose future is abandoned: it is only dropped after this.
                unsafe { (*(self.0 as *mut WideCtx<'_, '_>)).detach_unwinding() };
            }
        }
    }
    // SAFETY (every access below): the caller's contract; each field is reached through `p`.
    let guard = Unwind(unsafe { (*addr_of_mut!((*p).ctx)).as_mut_ptr() } as *mut ());
    let mut cx = Context::from_waker(core::task::Waker::noop());
    let fut = unsafe { &mut *addr_of_mut!((*p).fut) };
    let polled = fut.as_mut().expect("a running form has its future").as_mut().poll(&mut cx);
    core::mem::forget(guard);
    match polled {
        Poll::Pending => {
            debug_assert!(unsafe { (*addr_of!((*p).run)).get() }.is_null(), "a form suspends only at a barrier, detached");
            Ok(false)
        }
        Poll::Ready(result) => {
            unsafe { *addr_of_mut!((*p).fut) = None };
            unsafe { give_results(&mut *addr_of_mut!((*p).outs), &*addr_of!((*p).offers)) };
            // The lanes return from their futures in the next step, each with its result.
            unsafe { (*addr_of_mut!((*p).ctx)).assume_init_mut().exited = *addr_of!((*p).exited) };
            leader.running.set(core::ptr::null_mut());
            // SAFETY: made by `start_async`; nothing refers to it after this.
            drop(unsafe { Box::from_raw(p) });
            result.map(|()| true)
        }
    }
}

/// The handles of the lanes of `offered` as they offered, the warp's own for the others.
fn offered_handles<'r>(regs: &'r Regs, offered: u32, offers: &[*const Offer; 32]) -> [Warp<'r>; 32] {
    core::array::from_fn(|l| {
        if offered >> l & 1 == 1 {
            // SAFETY: the lanes of `offered` posted these offers in this step and wait at them.
            let (lane, mask, width, base) = unsafe { (*offers[l]).handle };
            Warp { regs, lane, mask, width, base }
        } else {
            Warp::new(regs, l as u32)
        }
    })
}

/// How many kernels' forms a thread remembers for direct runs ([`Direct::known`]): the last
/// few kernels run directly, replaced in turn.
const KNOWN_FORMS: usize = 4;

/// The forms direct runs took on a thread, by their kernel's future's `poll` ([`Direct::learn`]).
struct Known {
    polls: [Cell<*const ()>; KNOWN_FORMS],
    forms: [Cell<Option<Direct>>; KNOWN_FORMS],
    next: Cell<u32>,
}

std::thread_local! {
    static KNOWN: Known = const {
        Known { polls: [const { Cell::new(core::ptr::null()) }; KNOWN_FORMS], forms: [const { Cell::new(None) }; KNOWN_FORMS], next: Cell::new(0) }
    };
}

/// A kernel's warp-wide form, taken from its offer before any lane runs: what a run that starts
/// the kernel itself (`Executor::run_with(&args, kernel)`, not a closure that calls it) runs
/// without making the lanes' futures. The run is the one the offers of every lane would make.
#[derive(Clone, Copy)]
pub(crate) struct Direct {
    direct: DirectEntry,
    body: *const (),
    types: (&'static str, &'static str),
    kernel: &'static str,
    /// The offer's [`SameArgs`] (null: none) and its kind's `same_args`.
    same: (*const (), SameArgsErased),
}

impl Direct {
    /// The form lane `lane` offered in the step just polled, if it did.
    pub(crate) fn offered(regs: &Regs, lane: u32) -> Option<Direct> {
        let offered = regs.offered.get();
        // Offered by the kernel at the run's entry, not by a warp function it called.
        if offered != 1 << lane || regs.path_at(lane as usize) != crate::warp::PATH_ENTRY {
            return None;
        }
        // SAFETY: the lane posted this offer in the poll just made, and its future is alive.
        let o = unsafe { &*crate::warp::at(&regs.offers, lane as usize & 31).get() };
        Some(Direct { direct: o.kind.direct?, body: o.body, types: (o.kind.types)(), kernel: o.kernel, same: (o.same_args, o.kind.same_args) })
    }

    /// The form a direct run on this thread took for the kernel whose future's `poll` is at
    /// `poll` (see [`Direct::learn`]), if one did.
    #[inline(always)]
    pub(crate) fn known(poll: *const ()) -> Option<Direct> {
        KNOWN.with(|k| k.polls.iter().position(|p| core::ptr::eq(p.get(), poll)).and_then(|i| k.forms[i].get()))
    }

    /// Remembers that the kernel whose future's `poll` is at `poll` offered this form at the
    /// entry of a direct run, so that the thread's next direct runs of it start the form without
    /// polling a lane first.
    ///
    /// Sound because a lane's poll up to its offer runs only the macro's prologue, which reads
    /// no argument and has no effect, and which offers the same form every time: the same
    /// `poll` is the same code (two kernels' futures share a `poll` only if the linker merged
    /// identical functions, which then offer the same form); a kernel that offers at all offers
    /// whenever the run takes forms (its calls' learning stays, `Calls`); and the rest of the
    /// decision (`Direct::of` for the run's kernel, `agrees` for its arguments, the run taking
    /// forms) is made again for each run.
    pub(crate) fn learn(poll: *const (), direct: Direct) {
        KNOWN.with(|k| {
            if k.polls.iter().any(|p| core::ptr::eq(p.get(), poll)) {
                return;
            }
            let i = k.next.get() as usize % KNOWN_FORMS;
            k.next.set(k.next.get().wrapping_add(1));
            k.polls[i].set(poll);
            k.forms[i].set(Some(direct));
            FORMS_LEARNED.with(|c| c.set(c.get() + 1));
        });
    }

    /// Whether the launched lanes' arguments agree on the parameters the form takes for
    /// uniform (`Direct::of::<K, A, R>` holds).
    pub(crate) fn agrees<A>(&self, args: &[A; 32], launched: u32) -> bool {
        let (f, same) = self.same;
        let first = launched.trailing_zeros() as usize & 31;
        // SAFETY: `f` is the form's `SameArgs<A>` (`of` checked `A`).
        f.is_null() || crate::semantics::lanes(launched).all(|l| unsafe { same(f, &args[first] as *const A as *const (), &args[l as usize] as *const A as *const ()) })
    }

    /// Whether the form is the kernel `K`'s own, taking arguments `A` and giving results `R`:
    /// `K` is the function the offer names (an `async fn` item prints as its path, with its
    /// generic arguments), and the form's functions are those of `A` and `R`.
    pub(crate) fn of<K, A, R>(&self) -> bool {
        let k = core::any::type_name::<K>();
        let named = k == self.kernel || k.strip_prefix(self.kernel).is_some_and(|rest| rest.starts_with('<'));
        named
            && core::ptr::fn_addr_eq(self.direct, entry_direct::<A, R> as DirectEntry)
            && self.types == (core::any::type_name::<A>(), core::any::type_name::<R>())
    }
}

/// The form of a kernel `K` with arguments `A` and results `R` that this thread already ran
/// directly (`Direct::known`), found for one run's arguments: the run starts in it without a
/// lane's poll or the lanes' futures (`Executor::drive_known`).
pub(crate) struct KnownForm<A, R> {
    direct: Direct,
    _types: core::marker::PhantomData<fn(A) -> R>,
}

impl<A, R> KnownForm<A, R> {
    /// The known form of the kernel `K` whose future's `poll` is at `poll` (as
    /// `WarpRun::first_step_direct` learns it: one address taken in one place, since a
    /// function's copies in two codegen units have two), when `Direct::of` holds for it with `A`
    /// and `R` and the `launched` lanes' `args` agree on its uniform parameters (the decision
    /// `first_step_direct` makes after a lane's poll).
    #[inline(always)]
    pub(crate) fn find<K>(poll: *const (), args: &[A; 32], launched: u32) -> Option<KnownForm<A, R>> {
        // (With no lane launched there is none to run, and no form starts.)
        let direct = Direct::known(poll).filter(|d| launched != 0 && d.of::<K, A, R>() && d.agrees(args, launched))?;
        Some(KnownForm { direct, _types: core::marker::PhantomData })
    }

    /// The form.
    #[inline(always)]
    pub(crate) fn direct(&self) -> &Direct {
        &self.direct
    }
}

/// Runs `direct` for the live lanes of `run`, each lane's arguments from `args`
/// (`*const [A; 32]`), its result into `outs` (`*mut Lanes<R>`), with the warp's own handles
/// (each `Warp::new(regs, lane)`).
///
/// # Safety
/// `direct.of::<K, A, R>()` for the `A` and `R` behind the pointers, and `A: Copy`.
pub(crate) unsafe fn run_direct<'r>(
    run: &mut WarpRun<'r>,
    direct: &Direct,
    args: *const (),
    outs: *mut (),
    deadline: Option<crate::exec::Deadline>,
) -> Result<(), WarpError> {
    let live = !run.exited;
    let own = core::cell::OnceCell::new();
    let current = crate::mem::FormCurrent::enter(run.regs);
    let run = Cell::new(run as *mut WarpRun<'r>);
    let mut ctx = WideCtx::new(&run, &current, live, [core::ptr::null(); 32], None, &own, deadline, direct.body);
    // SAFETY: the caller's contract.
    unsafe { (direct.direct)(&mut ctx, direct.body, args, outs) }
}

/// Operand `b` of an instruction a warp-wide form issues ([`WideCtx::issue`]).
#[derive(Clone, Copy)]
pub enum B<'a> {
    /// The instruction has none.
    None,
    /// The same in every lane: a literal or a uniform name, read once.
    Uniform(u32),
    /// Each lane's own.
    Lanes(&'a Lanes<u32>),
}

/// A part of a shuffle's `b` operand word (its `b` or its `c`) that is a uniform value or a
/// per-lane variable's name: read after the stretch that ends at the instruction, where each
/// live lane's variable holds what the lane would read at the instruction (see
/// [`WideCtx::b_word`]).
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    /// The same in every lane.
    Uniform(u32),
    /// Each lane's own.
    Lanes(&'a Lanes<u32>),
}

impl Lanes<u32> {
    /// The variable as a part of a shuffle's `b` operand ([`Operand`]).
    #[inline(always)]
    pub fn operand(&self) -> Operand<'_> {
        Operand::Lanes(self)
    }
}

impl Operand<'_> {
    /// Lane `l`'s value.
    #[inline(always)]
    fn at(self, l: u32) -> u32 {
        match self {
            Operand::Uniform(v) => v,
            Operand::Lanes(v) => v[l],
        }
    }

    /// The value, when every lane holds the same one (every lane live).
    #[inline(always)]
    fn uniform(self) -> Option<u32> {
        match self {
            Operand::Uniform(v) => Some(v),
            Operand::Lanes(v) => {
                let words = v.live_full();
                all_equal(words).then_some(words[0])
            }
        }
    }

    /// Every lane's value, when every lane holds one.
    #[inline(always)]
    fn all(self) -> [u32; 32] {
        match self {
            Operand::Uniform(v) => [v; 32],
            Operand::Lanes(v) => *v.live_full(),
        }
    }
}

/// The live lanes of a stretch, in the run's lane order.
pub struct LaneIter {
    mask: u32,
    /// The run's permutation (`None`: ascending).
    order: Option<[u8; 32]>,
    at: usize,
}

impl Iterator for LaneIter {
    type Item = u32;
    #[inline(always)]
    fn next(&mut self) -> Option<u32> {
        match &self.order {
            None => {
                if self.mask == 0 {
                    return None;
                }
                let lane = self.mask.trailing_zeros();
                self.mask &= self.mask - 1;
                Some(lane)
            }
            Some(order) => {
                while self.at < 32 {
                    let lane = order[self.at] as u32 & 31;
                    self.at += 1;
                    if self.mask >> lane & 1 == 1 {
                        return Some(lane);
                    }
                }
                None
            }
        }
    }
}

/// The warp-wide form's view of its warp: the live lanes, their handles, and the engine that
/// completes the instructions they issue.
pub struct WideCtx<'c, 'r> {
    /// The run, while the form runs: the engine's step that runs or resumes the form puts it
    /// here, and nothing else uses the run until the form returns or suspends (null while a form
    /// that suspends at CTA barriers waits at one).
    run: &'c Cell<*mut WarpRun<'r>>,
    /// This form's lane for memory accesses and reports (`crate::mem::FormCurrent`).
    current: &'c crate::mem::FormCurrent,
    /// The lanes that have returned: the run's, kept here while the form runs (a field of the
    /// form's own context stays in a register through a stretch's loop; the run's, behind a
    /// second reference, would be stored at every lane) and given back to the run before the
    /// engine looks at it, and when the form ends.
    exited: u32,
    /// The lanes that offered (every live lane when the run started).
    offered: u32,
    offers: [*const Offer; 32],
    /// The run's deadline (its clock count is the run's, `WarpRun::clock`).
    deadline: Option<crate::exec::Deadline>,
    /// Each lane's handle, as it offered the form (`None`: each lane's is the warp's own,
    /// made when asked for).
    hs: Option<&'c [Warp<'r>; 32]>,
    /// The warp's own handles, once asked for ([`handles`](Self::handles)).
    own: &'c core::cell::OnceCell<[Warp<'r>; 32]>,
    /// The instruction the current stretch ends with, when the form issues it itself
    /// ([`issue`](Self::issue)): if a lane panics in the stretch, the lanes before it in the
    /// lane order have reached the instruction and wait at it, as in the per-lane executor.
    pending: Option<(Op, Site)>,
    /// Whether every lane's handle is the whole warp's (membermask and segment of 32).
    full_warp: bool,
    /// When every lane's handle is its own tile of one width (the warp's tiles, `w.tile(8)` in
    /// every lane): that width; else 0 ([`tile_width`]).
    tiles: u32,
    /// The form itself ([`WideBody`] or [`WideAsync`], erased): what its calls learned is
    /// this instantiation's ([`Calls`]).
    body: *const (),
}

/// A warp instruction the warp-wide form completes from every lane's operands at once
/// ([`WideCtx::issue`]), exactly as the handle method of the same name posts it for each lane.
pub trait WideInstr<T> {
    /// How the method's result is decoded from the destination registers.
    type Out: Decode;
    /// The instruction.
    fn op(&self) -> Op;
    /// The request word lane `w` posts for it with operand `b`.
    fn key(&self, w: &Warp<'_>, b: u32) -> u64;
    /// Operand `a` of a value.
    fn bits(value: &T) -> u64;
    /// The request words of a whole warp whose handles are all the whole warp's, from lane 0's
    /// (`key0`, which `key` made with `bs[0]`) and each lane's `b`: `Some` where `key` takes
    /// nothing from such a handle that differs between lanes and puts `b`'s bits it keeps at bit
    /// 12 (the crate's shuffles), so that the 32 words are made in one loop the compiler
    /// vectorizes; `None` (the default) makes each with `key`.
    #[doc(hidden)]
    #[inline(always)]
    fn keys_of_warp(&self, _key0: u64, _bs: &[u32; 32]) -> Option<[u64; 32]> {
        None
    }
}

/// `key0` with the `width` bits from bit 12 replaced by each lane's `bs[l]` (see
/// [`WideInstr::keys_of_warp`]).
#[inline(always)]
fn keys_with_b(key0: u64, bs: &[u32; 32], width: u32) -> [u64; 32] {
    let m = (1u64 << width) - 1;
    let base = key0 & !(m << 12);
    let mut keys = [0u64; 32];
    for (k, &b) in keys.iter_mut().zip(bs) {
        *k = base | (b as u64 & m) << 12;
    }
    keys
}

/// The shuffles on the handle's own membermask and segment, by their result's decoding.
macro_rules! shfl_own {
    ($(#[$doc:meta])* $name:ident => $out:ident) => {
        $(#[$doc])*
        pub struct $name(pub ShflMode);
        impl<T: WarpValue> WideInstr<T> for $name {
            type Out = crate::api::$out<T>;
            fn op(&self) -> Op {
                Op::Shfl { mode: self.0, words: T::WORDS }
            }
            #[inline(always)]
            fn key(&self, w: &Warp<'_>, b: u32) -> u64 {
                crate::handle::fam::shfl_own_key(w, self.0, T::WORDS, b)
            }
            #[inline(always)]
            fn bits(value: &T) -> u64 {
                value.to_bits()
            }
            /// `b[4:0]` at bit 12; the rest from the handle's base, the same in every
            /// whole-warp handle.
            #[inline(always)]
            fn keys_of_warp(&self, key0: u64, bs: &[u32; 32]) -> Option<[u64; 32]> {
                Some(keys_with_b(key0, bs, 5))
            }
        }
    };
}

shfl_own! {
    /// `shfl_up`/`shfl_down`/`shfl_xor`/`shfl_idx`: the handle's membermask and segment.
    ShflOwn => AsValue
}
shfl_own! {
    /// `shfl_up_pred`/`shfl_down_pred`/`shfl_xor_pred`/`shfl_idx_pred`: [`ShflOwn`] that also
    /// returns the predicate.
    ShflOwnPred => AsValuePred
}

/// `shfl(mode, value, b, c)`: explicit `b` and `c` with the handle's membermask. The form's `b`
/// operand is both, as [`shfl_bc`] packs them.
pub struct Shfl(pub ShflMode);
impl<T: WarpValue> WideInstr<T> for Shfl {
    type Out = crate::api::AsValuePred<T>;
    fn op(&self) -> Op {
        Op::Shfl { mode: self.0, words: T::WORDS }
    }
    #[inline(always)]
    fn key(&self, w: &Warp<'_>, bc: u32) -> u64 {
        let c = (bc >> 5 & 0x1f) | (bc >> 10 & 0x1f) << 8;
        pack(Op::Shfl { mode: self.0, words: T::WORDS }, w.mask, bc & 0x1f, c)
    }
    #[inline(always)]
    fn bits(value: &T) -> u64 {
        value.to_bits()
    }
    /// The packed `b` and `c` ([`shfl_bc`]'s 15 bits) land at bits 12..27 as `pack` puts them;
    /// the rest is the opcode and the membermask, the same in every whole-warp handle.
    #[inline(always)]
    fn keys_of_warp(&self, key0: u64, bcs: &[u32; 32]) -> Option<[u64; 32]> {
        Some(keys_with_b(key0, bcs, 15))
    }
}

/// The operands `b` and `c` of [`Shfl`] as one word: the bits of them that `shfl.sync` reads
/// (`b[4:0]`, `c[4:0]`, `c[12:8]`; the request word keeps no others), so two lanes' words are
/// equal exactly when their requests are.
#[inline(always)]
pub fn shfl_bc(b: u32, c: u32) -> u32 {
    b & 0x1f | (c & 0x1f) << 5 | (c >> 8 & 0x1f) << 10
}

/// `match_any` (`false`) and `match_all` (`true`).
pub struct Match<const ALL: bool>;

/// [`Match`]'s two instructions, on the handle's membermask.
macro_rules! match_instr {
    ($all:literal, $op:ident, $out:ident) => {
        impl<T: WarpValue> WideInstr<T> for Match<$all> {
            type Out = crate::api::$out;
            fn op(&self) -> Op {
                Op::$op { b64: T::WORDS == 2 }
            }
            #[inline(always)]
            fn key(&self, w: &Warp<'_>, _: u32) -> u64 {
                pack(<Self as WideInstr<T>>::op(self), w.mask, 0, 0)
            }
            #[inline(always)]
            fn bits(value: &T) -> u64 {
                value.to_bits()
            }
        }
    };
}

match_instr!(false, MatchAny, AsU32);
match_instr!(true, MatchAll, AsU32Pred);

/// Every lane's operand `a` as a 32-bit register: in place (see [`words_of`]), else copied into
/// `copy`.
#[inline(always)]
fn operand_words<'x, I: WideInstr<T>, T>(a: &'x [T; 32], copy: &'x mut [u32; 32]) -> &'x [u32; 32] {
    match words_of(a) {
        Some(src) => src,
        None => {
            *copy = core::array::from_fn(|l| I::bits(&a[l]) as u32);
            copy
        }
    }
}

/// A shuffle of values of one 32-bit register completed by `shfl` (one of `crate::simd`'s: it
/// writes every lane's register and gives the predicate mask, or gives `None`, having written
/// nothing, where it does not apply): whether it completed. The operands are read in place when
/// they are u32, i32 or f32, and the results written in place when they are (by their types'
/// names: any bit pattern is a value of theirs, so no implementation of the public `WideInstr`
/// can make this unsound); otherwise the operands are copied out and the results decoded. One
/// call of `shfl`, which inlines.
#[inline(always)]
fn shfl_words<I: WideInstr<T>, T>(
    simd: crate::simd::Simd,
    a: &[T; 32],
    out: &mut Lanes<<I::Out as Decode>::Output>,
    shfl: impl Fn(&[u32; 32], &mut [MaybeUninit<u32>; 32]) -> Option<u32>,
) -> bool {
    let mut copy = [0u32; 32];
    let src = operand_words::<I, T>(a, &mut copy);
    let mut d = [MaybeUninit::<u32>::uninit(); 32];
    if decodes_word_pair::<I::Out>() {
        if let Some(pairs) = out.slots_as_pairs() {
            // Results `(value, predicate)` (`shfl` with its predicate): each lane's pair written
            // as two words, on the vector units (decoding each pair was not vectorized).
            let Some(pred) = shfl(src, &mut d) else { return false };
            // SAFETY: `shfl` wrote every register of `d` when it gave the mask.
            let d = unsafe { &*(&d as *const [MaybeUninit<u32>; 32] as *const [u32; 32]) };
            crate::simd::pairs_into(simd, d, pred, pairs);
            // SAFETY: every slot was just written with a value's register and a predicate of 0
            // or 1 where the pair's `bool` is (`is_word_pair`): a valid `(T, bool)`.
            unsafe { out.mark_full() };
            return true;
        }
    }
    let slots = out.slots_as_words();
    let in_place = slots.is_some();
    let Some(pred) = shfl(src, slots.unwrap_or(&mut d)) else { return false };
    if in_place {
        // SAFETY: every slot was just written with a `u32` register, which is a valid value of
        // the result type (u32, i32 or f32).
        unsafe { out.mark_full() };
    } else {
        // SAFETY: `shfl` wrote every register of `d` when it gave the mask.
        out.fill(|l| I::Out::decode(unsafe { d[l as usize].assume_init() } as u64, pred >> l & 1 == 1));
    }
    true
}

/// A warp's values as their 32-bit registers, in place, when
/// `T` is `u32`, `i32` or `f32`: 4 bytes, no padding, every bit pattern the `u32` that their
/// `to_bits`/`to_word` give. Decided by the type's name, not by anything a user's impl of a public
/// trait could claim (a type of the user's is named by its path, never `u32`); for any other
/// type the values are copied.
#[inline(always)]
fn words_of<T>(values: &[T; 32]) -> Option<&[u32; 32]> {
    // SAFETY: `T` is `u32`, `i32` or `f32` (4 bytes, align 4, no padding), whose bits read as a
    // `u32` are the register value; the array is borrowed for as long as the result.
    is_word::<T>().then(|| unsafe { &*(values as *const [T; 32] as *const [u32; 32]) })
}

/// Whether `T` is `u32`, `i32` or `f32`, by its name (see [`words_of`]).
#[inline(always)]
fn is_word<T>() -> bool {
    matches!(core::any::type_name::<T>(), "u32" | "i32" | "f32") && core::mem::size_of::<T>() == 4 && core::mem::align_of::<T>() == 4
}

/// Whether `T` is `(u32, bool)`, `(i32, bool)` or `(f32, bool)` (by name, as [`is_word`]) laid
/// out so that the words `(r, p as u32)` are its bytes on this target: the value at offset 0, the
/// predicate at offset 4, 8 bytes of align 4, little-endian (the predicate's byte is the low byte
/// of the second word; the others are padding).
#[inline(always)]
fn is_word_pair<T>() -> bool {
    macro_rules! laid_out {
        ($t:ty) => {
            core::mem::offset_of!(($t, bool), 0) == 0
                && core::mem::offset_of!(($t, bool), 1) == 4
                && core::mem::size_of::<($t, bool)>() == 8
                && core::mem::align_of::<($t, bool)>() == 4
        };
    }
    let laid_out = match core::any::type_name::<T>() {
        "(u32, bool)" => laid_out!(u32),
        "(i32, bool)" => laid_out!(i32),
        "(f32, bool)" => laid_out!(f32),
        _ => false,
    };
    laid_out && cfg!(target_endian = "little") && core::mem::size_of::<T>() == 8 && core::mem::align_of::<T>() == 4
}

/// Whether `D` decodes `(d, p)` as a pair of a word type's value with `d`'s low 32 bits and `p`
/// (the crate's own decoders that do, named: a user's `Decode` may do anything).
#[inline(always)]
fn decodes_word_pair<D: Decode>() -> bool {
    use crate::api::{AsU32Pred, AsValuePred};
    let d = core::any::type_name::<D>();
    d == core::any::type_name::<AsValuePred<u32>>()
        || d == core::any::type_name::<AsValuePred<i32>>()
        || d == core::any::type_name::<AsValuePred<f32>>()
        || d == core::any::type_name::<AsU32Pred>()
}

/// `ballot`.
pub struct Ballot;
impl WideInstr<bool> for Ballot {
    type Out = crate::api::AsU32;
    fn op(&self) -> Op {
        Op::Vote(VoteMode::Ballot)
    }
    #[inline(always)]
    fn key(&self, w: &Warp<'_>, _: u32) -> u64 {
        pack(Op::Vote(VoteMode::Ballot), w.mask, 0, 0)
    }
    #[inline(always)]
    fn bits(value: &bool) -> u64 {
        *value as u64
    }
}

/// `all`, `any`, `uni`.
pub struct VoteBool(pub VoteMode);
impl WideInstr<bool> for VoteBool {
    type Out = crate::api::AsBool;
    fn op(&self) -> Op {
        Op::Vote(self.0)
    }
    #[inline(always)]
    fn key(&self, w: &Warp<'_>, _: u32) -> u64 {
        pack(Op::Vote(self.0), w.mask, 0, 0)
    }
    #[inline(always)]
    fn bits(value: &bool) -> u64 {
        *value as u64
    }
}

/// `redux_add`.
pub struct ReduxAdd;
impl<T: ReduxInt> WideInstr<T> for ReduxAdd {
    type Out = crate::api::AsWord<T>;
    fn op(&self) -> Op {
        Op::Redux(ReduxOp::Add, T::TYPE)
    }
    #[inline(always)]
    fn key(&self, w: &Warp<'_>, _: u32) -> u64 {
        pack(Op::Redux(ReduxOp::Add, T::TYPE), w.mask, 0, 0)
    }
    #[inline(always)]
    fn bits(value: &T) -> u64 {
        value.to_word() as u64
    }
}

/// `redux_and`, `redux_or`, `redux_xor`.
pub struct ReduxBitwise(pub ReduxOp);
impl<T: ReduxBits> WideInstr<T> for ReduxBitwise {
    type Out = crate::api::AsWord<T>;
    fn op(&self) -> Op {
        Op::Redux(self.0, ReduxType::B32)
    }
    #[inline(always)]
    fn key(&self, w: &Warp<'_>, _: u32) -> u64 {
        pack(Op::Redux(self.0, ReduxType::B32), w.mask, 0, 0)
    }
    #[inline(always)]
    fn bits(value: &T) -> u64 {
        value.to_word() as u64
    }
}

/// `redux_min` (`false`), `redux_max` (`true`).
pub struct ReduxMinMaxOf(pub bool);
impl<T: ReduxMinMax> WideInstr<T> for ReduxMinMaxOf {
    type Out = crate::api::AsWord<T>;
    fn op(&self) -> Op {
        let int = if self.0 { ReduxOp::Max } else { ReduxOp::Min };
        match T::TYPE {
            MinMaxType::U32 => Op::Redux(int, ReduxType::U32),
            MinMaxType::S32 => Op::Redux(int, ReduxType::S32),
            MinMaxType::F32 => Op::ReduxF32(FloatRedux { max: self.0, abs: false, nan: false }),
        }
    }
    #[inline(always)]
    fn key(&self, w: &Warp<'_>, _: u32) -> u64 {
        pack(<Self as WideInstr<T>>::op(self), w.mask, 0, 0)
    }
    #[inline(always)]
    fn bits(value: &T) -> u64 {
        value.to_word() as u64
    }
}

/// Where a warp-wide form issues an instruction: `#[track_caller]`, called at the user's
/// method, as the handle method records it.
#[track_caller]
#[inline(always)]
pub fn site() -> Site {
    core::panic::Location::caller()
}

impl<'c, 'r> WideCtx<'c, 'r> {
    /// A run of the form `body` for the lanes of `offered` (with their `offers`, null in a
    /// direct run or a call from another form) and their handles `hs` (`None`: the warp's own);
    /// counted in [`wide_runs`]. (Each part is a field the context keeps.)
    #[allow(clippy::too_many_arguments)]
    fn new(
        run: &'c Cell<*mut WarpRun<'r>>,
        current: &'c crate::mem::FormCurrent,
        offered: u32,
        offers: [*const Offer; 32],
        hs: Option<&'c [Warp<'r>; 32]>,
        own: &'c core::cell::OnceCell<[Warp<'r>; 32]>,
        deadline: Option<crate::exec::Deadline>,
        body: *const (),
    ) -> Self {
        let (full_warp, tiles) = hs.map_or((true, 0), handles_shape);
        WIDE_RUNS.with(|c| c.set(c.get() + 1));
        // SAFETY: the caller attached the run.
        let exited = unsafe { (*run.get()).exited };
        WideCtx { run, current, exited, offered, offers, deadline, hs, own, pending: None, full_warp, tiles, body }
    }

    /// The run. Each use holds it within one method of the form's context.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    fn run(&self) -> &mut WarpRun<'r> {
        // SAFETY: while the form runs (the only time its code calls the context's methods), the
        // cell holds the run the engine's step lent it (see the field), which nothing else
        // uses meanwhile; no method keeps two of these references alive at once.
        unsafe { &mut *self.run.get() }
    }

    /// The live lanes, in the run's lane order: a stretch's loop.
    #[inline(always)]
    pub fn lanes(&self) -> LaneIter {
        let live = !self.exited;
        match self.run().order_ref() {
            // Ascending: the live lanes' bits, lowest first.
            None => LaneIter { mask: live, order: None, at: 0 },
            Some(order) => LaneIter { mask: live, order: Some(*order), at: 0 },
        }
    }

    /// Whether every lane is live and lanes run in ascending order: a stretch is then a plain
    /// loop over `0..32`.
    #[inline(always)]
    pub fn dense(&self) -> bool {
        self.exited == 0 && self.run().order_ref().is_none()
    }

    /// Lane `lane` runs now (for its memory accesses and, if it panics, the report).
    #[inline(always)]
    pub fn enter(&self, lane: u32) {
        crate::mem::form_lane(lane);
    }

    /// Each live lane's arguments, taken out of `args` and handed to `each` (which puts them in
    /// the parameters' variables): with every lane live and holding its arguments, in one pass
    /// without a check per lane; otherwise lane by lane, in the run's lane order (moving
    /// arguments has no effect that the order could show).
    #[inline(always)]
    pub fn unpack<A>(&self, args: &mut Lanes<A>, mut each: impl FnMut(u32, A)) {
        if self.exited == 0 && args.set == FULL {
            // Cleared first: each slot is read once, below (were `each` to panic, the rest would
            // be leaked, not dropped twice).
            args.set = 0;
            for (l, slot) in args.slots.iter().enumerate() {
                // SAFETY: the bits said every slot holds a value; each is read once.
                each(l as u32, unsafe { slot.assume_init_read() });
            }
            return;
        }
        for l in self.lanes() {
            each(l, args.take(l));
        }
    }

    /// Every lane's handle, as the kernel received it (lanes that did not offer get the
    /// warp's), in an array that lives as long as the form (made at the first call in a direct
    /// run).
    #[inline(always)]
    pub fn handles(&self) -> &'c [Warp<'r>; 32] {
        match self.hs {
            Some(hs) => hs,
            None => {
                let regs = self.run().regs;
                self.own.get_or_init(|| core::array::from_fn(|l| Warp::new(regs, l as u32)))
            }
        }
    }

    /// Lane `lane`'s handle, as the kernel received it (lanes that did not offer get the
    /// warp's).
    #[inline(always)]
    pub fn handle(&self, lane: u32) -> Warp<'r> {
        handle_of(self.hs, self.run().regs, lane)
    }

    /// The first offering lane's handle: uniform code's, for the queries whose value every
    /// lane's handle shares (the warp's position; with `same_shape`, the group's width and size).
    #[inline(always)]
    pub fn first_handle(&self) -> Warp<'r> {
        self.handle(self.offered.trailing_zeros() & 31)
    }

    /// The current stretch ends with `instr` at `site`, which the form issues itself
    /// ([`issue`](Self::issue)); `_operands` names its operands' type.
    #[inline(always)]
    pub fn expect<I: WideInstr<T>, T>(&mut self, instr: &I, site: Site, _operands: &Lanes<T>) {
        self.pending = Some((instr.op(), site));
    }

    /// The `b` operand of a shuffle whose `b` (and `c`) are each a uniform value or a per-lane
    /// variable (`c`: `None` for an instruction whose `b` is one argument): each live lane's
    /// word, packed as [`shfl_bc`] packs it, computed after the stretch (reading a variable has
    /// no effect, so this is what each lane computes at the instruction, without a loop that
    /// enters each lane). `Uniform` when every live lane's word is the same: the request is
    /// then the same in each lane as far as `b` goes, which is all `issue` looks at.
    #[inline(always)]
    pub fn b_word<'b>(&self, b: Operand<'_>, c: Option<Operand<'_>>, words: &'b mut Lanes<u32>) -> B<'b> {
        let live = !self.exited;
        let word = |b: u32, c: Option<u32>| c.map_or(b, |c| shfl_bc(b, c));
        if live == FULL {
            // Each part the same in every lane (the reduce tree's `offset` and clamp): one word,
            // without making the 32.
            if let (Some(b), Some(c)) = (b.uniform(), c.map_or(Some(None), |c| c.uniform().map(Some))) {
                return B::Uniform(word(b, c));
            }
            // Packed as arrays, with no `Option` in the loop (which kept it from vectorizing).
            let bs = b.all();
            let all: [u32; 32] = match c {
                None => bs,
                Some(c) => {
                    let cs = c.all();
                    // A plain loop: `array::from_fn` was not vectorized here.
                    let mut all = [0u32; 32];
                    for ((x, &b), &c) in all.iter_mut().zip(&bs).zip(&cs) {
                        *x = shfl_bc(b, c);
                    }
                    all
                }
            };
            if all_equal(&all) {
                return B::Uniform(all[0]);
            }
            words.fill(|l| all[l as usize]);
            return B::Lanes(words);
        }
        let mut first = None;
        let mut same = true;
        for l in crate::semantics::lanes(live) {
            let x = word(b.at(l), c.map(|c| c.at(l)));
            words.set(l, x);
            same &= *first.get_or_insert(x) == x;
        }
        if same {
            return B::Uniform(first.unwrap_or(0));
        }
        B::Lanes(words)
    }

    /// Issues `instr` at `site` in every live lane with its operands `a` (and `b`), and
    /// completes it: the results into `out`, decoded as the handle method decodes them. When every live
    /// lane is the whole warp and posts the same request, the engine's completion runs on the
    /// operands directly, as it does after a step in which all 32 lanes posted it; otherwise
    /// each lane posts its request and the engine settles it, with its reports.
    #[inline(always)]
    pub fn issue<I: WideInstr<T>, T>(&mut self, instr: &I, site: Site, a: &Lanes<T>, b: B<'_>, out: &mut Lanes<<I::Out as Decode>::Output>) -> Result<(), WarpError> {
        self.pending = None;
        self.tick()?;
        let run = self.run();
        run.exited = self.exited;
        let hs = self.hs;
        let handle = |l: u32| handle_of(hs, run.regs, l);
        let regs = run.regs;
        let live = !run.exited;
        let b_of = |l: u32| match b {
            B::None => 0,
            B::Uniform(b) => b,
            B::Lanes(b) => b[l],
        };
        // A lane with a request of its own still posted (issued and never awaited, behind a
        // plain method) must post this one over it, for the engine's report.
        if live == FULL && !regs.any_posted() {
            let a = a.live_full();
            let key0 = instr.key(&handle(0), b_of(0));
            // Every handle the whole warp's: the requests are equal when the `b`s are.
            let same = match (self.full_warp, self.tiles) {
                (true, _) => same_b(b),
                // The tiles' requests differ in their membermasks (below).
                (false, 0) => (1..32u32).all(|l| instr.key(&handle(l), b_of(l)) == key0),
                (false, _) => false,
            };
            // The descriptor's instruction, as the request word holds it (not decoded from it).
            let op = instr.op();
            debug_assert_eq!(op, crate::warp::op_of(key0));
            if same && crate::warp::mask_of(key0) == FULL && op.synchronizing() && op.supported_on(run.target) {
                // What the engine's completion computes for a converged instruction of 32-bit
                // operands, on the CPU's vector units (`crate::simd`), kept out of the registers
                // (no report reads a completed instruction's operands). The operands are read in
                // place when they are u32, i32 or f32, else copied into `copy`.
                let mut copy = [0u32; 32];
                let simd = run.simd;
                let uniform = |out: &mut Lanes<_>, r: u32| out.fill(|_| I::Out::decode(r as u64, false));
                match op {
                    Op::Shfl { mode, words: 1 } => {
                        let (b, c) = (crate::warp::b_of(key0), crate::warp::c_of(key0));
                        if shfl_words::<I, T>(simd, a, out, |src, d| crate::simd::shfl32_into(simd, mode, src, b, c, d)) {
                            regs.issued_by_all(None, site);
                            return Ok(());
                        }
                    }
                    Op::Vote(mode) => {
                        regs.issued_by_all(None, site);
                        uniform(out, crate::semantics::vote::vote(mode, crate::simd::nonzero(simd, operand_words::<I, T>(a, &mut copy)), FULL));
                        return Ok(());
                    }
                    Op::Redux(rop, ty) => {
                        regs.issued_by_all(None, site);
                        uniform(out, crate::simd::redux32(simd, rop, ty, operand_words::<I, T>(a, &mut copy)));
                        return Ok(());
                    }
                    _ => {}
                }
                let bits: [u64; 32] = core::array::from_fn(|l| I::bits(&a[l]));
                if let Op::Shfl { mode, .. } = op {
                    // What the engine's completion computes for a converged shuffle, kept out of
                    // the registers (no report reads a completed instruction's operands).
                    regs.issued_by_all(None, site);
                    let mut d = [0u64; 32];
                    let pred = crate::semantics::shfl::converged(mode, &bits, crate::warp::b_of(key0), crate::warp::c_of(key0), &mut d);
                    out.fill(|l| I::Out::decode(d[l as usize], pred >> l & 1 == 1));
                    return Ok(());
                }
                regs.issued_by_all(Some(&bits), site);
                // The engine reads the registers (its reports name the current lane).
                self.current.sync();
                run.complete(op, FULL, FULL, Some(key0))?;
                self.current.resume();
                out.fill(|l| {
                    let (d, p) = regs.result_of(l);
                    I::Out::decode(d, p)
                });
                return Ok(());
            }
            // Every handle the whole warp's and the lanes' `b` or `c` different (a clamp per lane,
            // as the segmented reduction's): one shuffle of the whole warp in which each lane
            // reads its own source, as the engine's completion routes it (`shfl::route`, then
            // `apply`, with the whole warp participating: no read is undefined). Computed here,
            // without posting each lane's request.
            if let (Op::Shfl { mode, .. }, B::Lanes(words), true) = (op, b, self.full_warp) {
                if crate::warp::mask_of(key0) == FULL && op.synchronizing() && op.supported_on(run.target) {
                    let words = words.live_full();
                    // Lane 0's word and the others' `b` (every handle the whole warp's).
                    let keys: [u64; 32] = match instr.keys_of_warp(key0, words) {
                        Some(keys) => {
                            debug_assert!(keys.iter().enumerate().all(|(l, &k)| k == instr.key(&handle(l as u32), words[l])), "keys_of_warp disagrees with key");
                            keys
                        }
                        None => core::array::from_fn(|l| instr.key(&handle(l as u32), words[l])),
                    };
                    // Values of one register: on the vector units (`simd::shfl32_keyed`).
                    let simd = run.simd;
                    if matches!(op, Op::Shfl { words: 1, .. }) && shfl_words::<I, T>(simd, a, out, |src, d| Some(crate::simd::shfl32_keyed_into(simd, mode, src, &keys, d))) {
                        regs.issued_by_all(None, site);
                        return Ok(());
                    }
                    let route = crate::semantics::shfl::route(mode, &keys.map(crate::warp::b_of), &keys.map(crate::warp::c_of), FULL);
                    debug_assert_eq!(route.undefined, 0);
                    let bits: [u64; 32] = core::array::from_fn(|l| I::bits(&a[l]));
                    let d = crate::semantics::shfl::apply(&route, &bits, FULL);
                    regs.issued_by_all(None, site);
                    out.fill(|l| I::Out::decode(d[l as usize], route.pred >> l & 1 == 1));
                    return Ok(());
                }
            }
            // Every handle its lane's tile of one width: a shuffle on it whose `b`s are equal
            // and whose `c` has the tile's segments is one shuffle in each tile, which the
            // engine completes for each tile's lanes as its participants: what `segmented`
            // computes when every lane reads a lane of its own tile (otherwise a read is
            // undefined, which the engine reports below).
            if let Op::Shfl { mode, .. } = op {
                let c = crate::warp::c_of(key0);
                let segment = c >> 8 & 0x1f;
                let tiled = self.tiles != 0 && segment == 0x1f & !(self.tiles - 1) && crate::warp::mask_of(key0) == handle(0).mask;
                if tiled && same_b(b) && op.synchronizing() && op.supported_on(run.target) {
                    let bw = crate::warp::b_of(key0);
                    // Values of one register: on the vector units (`simd::shfl32_segments`).
                    let simd = run.simd;
                    if matches!(op, Op::Shfl { words: 1, .. }) && shfl_words::<I, T>(simd, a, out, |src, d| crate::simd::shfl32_segments_into(simd, mode, src, bw, c, d)) {
                        regs.issued_by_all(None, site);
                        return Ok(());
                    }
                    let bits: [u64; 32] = core::array::from_fn(|l| I::bits(&a[l]));
                    let mut d = [0u64; 32];
                    if let Some(pred) = crate::semantics::shfl::segmented(mode, &bits, bw, c, &mut d) {
                        regs.issued_by_all(None, site);
                        out.fill(|l| I::Out::decode(d[l as usize], pred >> l & 1 == 1));
                        return Ok(());
                    }
                }
            }
        }
        for l in crate::semantics::lanes(live) {
            regs.post_key(l, instr.key(&self.handle(l), b_of(l)), I::bits(&a[l]), site);
        }
        self.current.sync();
        self.run().settle_wide()?;
        self.current.resume();
        for l in crate::semantics::lanes(live) {
            let (d, p) = regs.result_of(l);
            out.set(l, I::Out::decode(d, p));
        }
        Ok(())
    }

    /// Calls a warp function in every live lane, each with its arguments from `args` (packed by
    /// [`pack1`] and the others) and its own handle, or the tile of it in `tiles` (a call site
    /// [`Calls::on_tiles`]), and completes the call: each lane's result into `out`. `calls` is
    /// the call site's; `site` where the call is.
    ///
    /// The form was offered only when `calls` had learned that the callee offers its form and
    /// what it needs ([`calls_ready`]); the per-lane executor would then run that form for the
    /// warp once every lane offered it, and so does this, without the lanes' futures: the
    /// lanes enter the call (their call paths are the callee's while it runs), the callee's form
    /// runs for the live lanes, and they return from it together.
    #[inline(never)]
    pub fn call<A, F: Future>(&mut self, calls: &'static Calls, site: Site, tiles: Option<&Lanes<Warp<'r>>>, args: &mut Lanes<A>, out: &mut Lanes<F::Output>) -> Result<(), WarpError> {
        self.pending = None;
        let learned = calls.find(self.body.addr()).expect("warpkit: a warp-wide form was offered before its calls learned their callees (a bug in warpkit)");
        // The callee this call site learned is the one this instantiation of the form calls,
        // and its form takes these arguments and gives these results: the same answer for every
        // call of one caller's form, so asked once. (Two instantiations of a generic caller
        // whose forms the compiler merged into one function would share an entry; but this
        // function's code names the callee's type, so forms that call different callees differ
        // and are not merged.)
        if !learned.checked.load(core::sync::atomic::Ordering::Relaxed) {
            let callee = core::any::type_name::<F>();
            let (learnt, types) = ((learned.kind.types)(), type_names::<A, F::Output>());
            assert!(
                learned.callee == callee && learnt == types,
                "warpkit: a warp-wide form's call learned the callee `{}` taking `{}` and giving `{}`, but calls `{callee}` taking `{}` and giving `{}` (a bug in warpkit)",
                learned.callee,
                learnt.0,
                learnt.1,
                types.0,
                types.1
            );
            learned.checked.store(true, core::sync::atomic::Ordering::Relaxed);
        }
        let live = !self.exited;
        if live == 0 {
            // Every lane has returned: none makes the call.
            return Ok(());
        }
        let run = self.run();
        run.exited = self.exited;
        let regs = run.regs;
        let mut hs = self.handles();
        let (mut full_warp, mut tile) = (self.full_warp, self.tiles);
        let derived: [Warp<'r>; 32];
        if let Some(t) = tiles {
            // Each live lane's tile (the lanes that returned keep the caller's handle: the
            // callee's form runs none of their code), in place when every lane set one.
            hs = match t.full_ref() {
                Some(all) => all,
                None => {
                    derived = core::array::from_fn(|l| if live >> l & 1 == 1 { t[l as u32] } else { hs[l] });
                    &derived
                }
            };
            (full_warp, tile) = handles_shape(hs);
        }
        let callers = regs.enter_calls(live, site, calls.last);
        let own = core::cell::OnceCell::new();
        // What `WideCtx::new` makes, with the caller's handles, whose shape the caller knows
        // (comparing 32 handles again cost 1.5% of the reduce example's instructions).
        WIDE_RUNS.with(|c| c.set(c.get() + 1));
        // Dropped at the end of this block, where it is (`drop(ctx)` moved its 300-odd bytes
        // into the call first).
        let result = {
            let mut ctx = WideCtx {
                run: self.run,
                current: self.current,
                exited: self.exited,
                offered: live,
                offers: [core::ptr::null(); 32],
                deadline: self.deadline,
                hs: Some(hs),
                own: &own,
                pending: None,
                full_warp,
                tiles: tile,
                body: learned.body,
            };
            // SAFETY: the learned body is a `WideBody` (its kind does not suspend: `calls_ready`)
            // of these `A` and `F::Output` (checked above).
            let body = unsafe { core::mem::transmute::<*const (), WideBody<A, F::Output>>(learned.body) };
            let result = body(&mut ctx, args, out);
            // The lanes that returned from the callee go on in the caller (the callee's context,
            // dropped, gave the run back with the registers naming its last lane: lane code runs
            // next, in the lanes the caller enters).
            ctx.exited = self.exited;
            result
        };
        result?;
        self.current.resume();
        regs.leave_calls(&callers);
        Ok(())
    }

    /// Lane `lane` returns `value`.
    #[inline(always)]
    pub fn ret<R>(&mut self, outs: &mut Lanes<R>, lane: u32, value: R) {
        outs.set(lane, value);
        self.exited |= 1 << (lane & 31);
    }

    /// Completes the warp instruction every live lane has just issued, as the engine completes
    /// it after a step; each lane then reads its result from its instruction's future
    /// ([`result`]).
    #[inline]
    pub fn settle(&mut self) -> Result<(), WarpError> {
        self.tick()?;
        let run = self.run();
        run.exited = self.exited;
        self.current.sync();
        run.settle_wide()?;
        self.current.resume();
        Ok(())
    }

    /// The CTA barrier every live lane has just issued (through its handle, which posted it):
    /// the form suspends, and the warp waits at the barrier as its lanes would (the engine's
    /// step reads their requests). Awaited, the future is ready once the block resumes the
    /// warp, the barrier completed; each lane then reads its result from its instruction's future
    /// ([`result`]).
    #[inline]
    pub fn barrier(&mut self) -> Result<Suspend, WarpError> {
        self.tick()?;
        if self.exited == FULL {
            // Every lane has returned: nothing waits (the warp has exited, as far as the block
            // is concerned), and the form runs on to its end.
            return Ok(Suspend { polled: true });
        }
        self.detach();
        Ok(Suspend { polled: false })
    }

    /// The current stretch ends with `w.sync_threads()` at `site`, which the form issues itself
    /// ([`sync_threads`](Self::sync_threads)): if a lane panics in the stretch, the lanes before
    /// it wait there, as in the per-lane executor.
    #[inline(always)]
    pub fn expect_sync_threads(&mut self, site: Site) {
        self.pending = Some((SYNC_THREADS, site));
    }

    /// `w.sync_threads()` (`bar.sync 0`) in every live lane, each lane's request posted as the
    /// handle method posts it (the request does not depend on the handle), then
    /// [`barrier`](Self::barrier).
    #[inline]
    pub fn sync_threads(&mut self, site: Site) -> Result<Suspend, WarpError> {
        self.pending = None;
        let regs = self.run().regs;
        let key = pack(SYNC_THREADS, 0, 0, 0);
        for l in crate::semantics::lanes(!self.exited) {
            regs.post_key(l, key, 0, site);
        }
        self.barrier()
    }

    /// The form runs again after [`barrier`](Self::barrier): lane code runs next.
    #[inline]
    pub fn resumed(&mut self) {
        self.current.resume();
    }

    /// The form waits at a barrier: it leaves the run (and the thread's current lane) to the
    /// engine until resumed (`resume_async` attaches it again).
    fn detach(&mut self) {
        self.run().exited = self.exited;
        self.current.leave();
        self.run.set(core::ptr::null_mut());
    }

    /// A lane's panic unwinds through the form's poll: the registers name the lane and the
    /// lanes that reached the pending instruction, as the context's drop does when it is on the
    /// stack; then the form is detached.
    fn detach_unwinding(&mut self) {
        if self.run.get().is_null() {
            return;
        }
        self.posts_on_panic();
        self.current.leave();
        self.run.set(core::ptr::null_mut());
    }

    /// Counts an instruction; every so many, looks at the run's clock: a uniform loop that never
    /// ends is ended by the run's time limit, as in the per-lane executor.
    #[inline(always)]
    fn tick(&mut self) -> Result<(), WarpError> {
        let run = self.run();
        run.clock = run.clock.saturating_sub(1);
        if run.clock == 0 {
            run.clock = crate::exec::CLOCK_EVERY;
            if let Some((d, elapsed)) = self.deadline.as_ref().and_then(|d| Some((d, d.passed()?))) {
                run.exited = self.exited;
                self.current.sync();
                let blocks = vec![crate::block::block_report(core::slice::from_ref(&*run))];
                let detail = "the warp ran warp-wide (a uniform loop that does not end?)".to_string();
                return Err(WarpError::TimeLimit { limit: d.limit(), elapsed, detail, blocks });
            }
        }
        Ok(())
    }

    /// The value every live lane got from a vote or reduction of the whole warp (`None` when no
    /// lane is live).
    #[inline(always)]
    pub fn uniform<T: Copy>(&self, results: &Lanes<T>) -> Option<T> {
        self.lanes().next().map(|l| results[l])
    }

    /// Whether every lane has returned: a uniform loop ends then (no lane runs it any more).
    #[inline(always)]
    pub fn done(&self) -> bool {
        self.exited == FULL
    }

    /// The first live lane in the lane order runs now: a uniform statement, which every lane
    /// would run alike, panics (if it does) as that lane's.
    #[inline(always)]
    pub fn enter_first(&self) {
        if let Some(l) = self.lanes().next() {
            self.enter(l);
        }
    }
}

impl WideCtx<'_, '_> {
    /// The run is given back: its exited lanes and current lane are the form's; if a lane
    /// panicked in a stretch that ends with an instruction the form issues itself, the lanes
    /// that got there first wait at it, as their posts would show.
    fn posts_on_panic(&mut self) {
        self.run().exited = self.exited;
        self.current.sync();
        if let Some((op, site)) = self.pending.take() {
            if std::thread::panicking() {
                let regs = self.run().regs;
                let panicked = regs.current_lane();
                // A lane runs its whole stretch before the next lane starts: the live lanes
                // before the one that panicked got to the instruction.
                for l in self.lanes().take_while(|&l| l != panicked) {
                    // A CTA barrier's request names no membermask.
                    let mask = if op.is_barrier() { 0 } else { self.handle(l).mask };
                    regs.post_key(l, pack(op, mask, 0, 0), 0, site);
                }
            }
        }
    }
}

impl Drop for WideCtx<'_, '_> {
    fn drop(&mut self) {
        // A form suspended at a CTA barrier, dropped because its run failed elsewhere, touches
        // nothing of the run.
        if !self.run.get().is_null() {
            self.posts_on_panic();
        }
    }
}

/// The future of [`WideCtx::barrier`]: pending once (the form suspends), then ready.
#[must_use = "await it (the macro does)"]
pub struct Suspend {
    polled: bool,
}

impl Future for Suspend {
    type Output = ();

    #[inline]
    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if core::mem::replace(&mut self.polled, true) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// Lane `lane`'s handle: from `hs`, or the warp's own.
#[inline(always)]
fn handle_of<'r>(hs: Option<&[Warp<'r>; 32]>, regs: &'r Regs, lane: u32) -> Warp<'r> {
    match hs {
        Some(hs) => hs[lane as usize & 31],
        None => Warp::new(regs, lane & 31),
    }
}

/// Whether every lane's `b` operand is the same (with every lane live).
#[inline(always)]
fn same_b(b: B<'_>) -> bool {
    match b {
        B::None | B::Uniform(_) => true,
        B::Lanes(b) => {
            // Compared as an array (the index checks of `Lanes` would keep the comparison from
            // vectorizing: 107 instructions per element of the reduce example, 15 shuffles per
            // warp).
            all_equal(b.live_full())
        }
    }
}

/// Whether the 32 words are equal (the bits in which each differs from the first, or-ed over
/// the array: a fold that vectorizes to a few instructions, where one of comparisons did not).
#[inline(always)]
fn all_equal(words: &[u32; 32]) -> bool {
    words.iter().fold(0, |d, &x| d | (x ^ words[0])) == 0
}

/// What a form's context keeps of its handles' shape: whether they are the whole warp's, and
/// else the width of the tiles they are, or 0 ([`tile_width`]).
fn handles_shape(hs: &[Warp<'_>; 32]) -> (bool, u32) {
    if whole_warp(hs) {
        (true, 0)
    } else {
        (false, tile_width(hs))
    }
}

/// When every handle is its own lane's tile of one width `w` (membermask the `w` lanes of its
/// tile, segment `w`; the warp's tiles, as `w.tile(8)` in every lane of the whole warp makes):
/// `w`; otherwise 0. A shuffle on such handles ([`WideInstr`]s post the handle's membermask)
/// posts requests that differ only in the membermask when the `b`s are equal.
fn tile_width(hs: &[Warp<'_>; 32]) -> u32 {
    let w = hs[0].width;
    if !w.is_power_of_two() || w > 32 {
        return 0;
    }
    let lanes = if w == 32 { FULL } else { (1u32 << w) - 1 };
    let tiles = hs.iter().enumerate().all(|(l, h)| h.lane == l as u32 && h.width == w && h.mask == lanes << (l as u32 & !(w - 1)));
    if tiles {
        w
    } else {
        0
    }
}

/// Whether every handle is the whole warp's own.
fn whole_warp(hs: &[Warp<'_>; 32]) -> bool {
    hs.iter().enumerate().all(|(l, h)| h.lane == l as u32 && h.mask == FULL && h.width == 32 && h.base == hs[0].base)
}

/// Runs the warp-wide form that the lanes of `offered` (every live lane of `run`) offered. A form
/// that suspends at CTA barriers and waits at one is left in `run.form` (see
/// `WarpRun::resume_form`).
pub(crate) fn run_offers(run: &mut WarpRun<'_>, offered: u32, offers: [*const Offer; 32], deadline: Option<crate::exec::Deadline>) -> Result<(), WarpError> {
    let first = offered.trailing_zeros();
    // SAFETY: the lanes of `offered` posted these offers in this step and wait at them.
    let leader = unsafe { &*offers[first as usize] };
    if let Some(s) = leader.kind.suspending {
        // SAFETY: `same_offers` checked that every lane offered this kind and body.
        let ended = unsafe { (s.start)(run as *mut WarpRun<'_> as *mut (), offered, offers, deadline)? };
        if !ended {
            run.form = leader;
        }
        return Ok(());
    }
    let (entry, body) = (leader.kind.entry, leader.body);
    let at = leader.learn.get();
    if !at.is_null() {
        // SAFETY: the call's future that made the leader's offer holds it, pinned, and waits.
        let at = unsafe { &*at };
        at.calls.learn(Learned { caller: at.caller, callee: (at.callee)(), kind: leader.kind, body, needs: leader.needs, checked: core::sync::atomic::AtomicBool::new(false) });
    }
    let exited = run.exited;
    let regs = run.regs;
    let hs = offered_handles(regs, offered, &offers);
    let own = core::cell::OnceCell::new();
    let current = crate::mem::FormCurrent::enter(regs);
    let run = Cell::new(run as *mut WarpRun<'_>);
    let mut ctx = WideCtx::new(&run, &current, offered, offers, Some(&hs), &own, deadline, body);
    // SAFETY: `same_offers` checked that every lane offered this entry and body.
    let result = unsafe { entry(&mut ctx, body) };
    // The lanes return from their futures in the next step, each with its result.
    ctx.exited = exited;
    result
}

/// Resumes the form that `run.form` holds, waiting at a barrier that completed: `Ok(true)` when it
/// ended.
pub(crate) fn resume_form(run: &mut WarpRun<'_>) -> Result<bool, WarpError> {
    // SAFETY: `run.form` is the leader's offer, whose future is pinned and waits at it while the
    // form runs; its kind is a suspending one.
    let leader = unsafe { &*run.form };
    let s = leader.kind.suspending.expect("a suspended form is a suspending kind's");
    // SAFETY: as above; the run steps now.
    unsafe { (s.resume)(run as *mut WarpRun<'_> as *mut (), leader) }
}

/// Whether the offers of the lanes of `offered` are all one form, offered at one call.
pub(crate) fn same_offers(regs: &Regs, offered: u32, offers: &[*const Offer; 32]) -> bool {
    let first = offered.trailing_zeros() as usize;
    // SAFETY: the lanes of `offered` posted these offers in this step and wait at them.
    let a = unsafe { &*offers[first] };
    let path = regs.path_at(first);
    if a.needs.returns_early && !crate::warp::only_last_calls(path) {
        return false;
    }
    // What every lane's offer is checked for, asked of the first one once (the handles' shape
    // and the arguments only when the form needs them).
    let (handles, args, early) = (a.needs.whole_warp || a.needs.same_shape, !a.same_args.is_null(), a.needs.returns_early);
    crate::semantics::lanes(offered).all(|l| {
        let b = unsafe { &*offers[l as usize] };
        let shaped = !handles || {
            let (lane, mask, width, _) = b.handle;
            let whole = !a.needs.whole_warp || (lane == l && mask == FULL && width == 32);
            whole && (!a.needs.same_shape || (width == a.handle.2 && mask.count_ones() == a.handle.1.count_ones()))
        };
        a.same(b) && shaped && regs.path_at(l as usize) == path && (!args || a.agrees(b)) && !(early && b.deep.get())
    })
}

/// Declines the offers of the lanes of `offered`: they run the per-lane body.
pub(crate) fn decline(offered: u32, offers: &[*const Offer; 32]) {
    for l in crate::semantics::lanes(offered) {
        // SAFETY: as in `same_offers`.
        unsafe { (*offers[l as usize]).state.set(State::Declined) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{AsU32, AsU32Pred, AsValue, AsValuePred};

    /// The pairs written as two words are exactly the crate's `(word, bool)` results, and the
    /// words are where the pair's fields are.
    #[test]
    fn word_pairs_are_the_crates_own() {
        assert!(is_word_pair::<(u32, bool)>() && is_word_pair::<(i32, bool)>() && is_word_pair::<(f32, bool)>());
        assert!(!is_word_pair::<(u64, bool)>() && !is_word_pair::<(u32, u8)>() && !is_word_pair::<(bool, u32)>() && !is_word_pair::<u64>());
        assert!(decodes_word_pair::<AsValuePred<u32>>() && decodes_word_pair::<AsValuePred<i32>>());
        assert!(decodes_word_pair::<AsValuePred<f32>>() && decodes_word_pair::<AsU32Pred>());
        assert!(!decodes_word_pair::<AsValuePred<u64>>() && !decodes_word_pair::<AsValue<u32>>() && !decodes_word_pair::<AsU32>());
        // Two words written as `shfl_words` writes them read back as the decoded pair.
        let mut out = Lanes::<(f32, bool)>::new();
        let pairs = out.slots_as_pairs().expect("(f32, bool) is a word pair");
        for (l, pair) in pairs.iter_mut().enumerate() {
            *pair = [MaybeUninit::new((l as f32 * 1.5).to_bits()), MaybeUninit::new(l as u32 % 3 & 1)];
        }
        // SAFETY: every slot written as above.
        unsafe { out.mark_full() };
        for l in 0..32u32 {
            assert_eq!(out[l], AsValuePred::<f32>::decode(u64::from((l as f32 * 1.5).to_bits()), l % 3 & 1 == 1));
        }
    }
}
