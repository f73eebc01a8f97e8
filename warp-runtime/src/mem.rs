//! What memory operations need from the engine: which lane executes them, whether the run makes
//! progress, faults that end a run with a report, and scheduling points.
//!
//! - **The executing lane.** While the engine polls a warp, a thread-local names the warp's
//!   registers, and the registers name the lane being polled; a memory operation finds its lane
//!   there (for reports, and for the scheduling point below). Outside a run there is none.
//! - **Progress.** Every store and every atomic counts a write on the running thread. A run whose
//!   lanes only re-read the same locations while nothing is written anywhere is spinning; the
//!   schedulers use this to switch warps and blocks, and to report a forward-progress deadlock
//!   when nothing can ever change.
//! - **Faults.** An out-of-bounds or uninitialized shared-memory access ends the run with a
//!   structured report ([`LaneFault`], reported as [`WarpError::Memory`](crate::WarpError::Memory)).
//!   It unwinds the lane with [`std::panic::resume_unwind`], which runs no panic hook, and the
//!   engine's guard turns it back into the fault.
//! - **Scheduling points.** Atomics and volatile loads return a [`MemOp`] future on the host:
//!   the operation is performed when it is called, and awaiting it suspends the lane once, so
//!   that other lanes, warps and blocks run before it goes on (as independent thread scheduling
//!   guarantees on sm_70+ hardware). A spin-wait on a flag another lane, warp or block sets
//!   therefore completes. `#[warp_kernel]` awaits these calls like warp instructions.

use core::cell::Cell;
use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::error::{MemWait, Site};
use crate::warp::Regs;

std::thread_local! {
    /// The registers of the warp whose lanes are being polled on this thread, or null.
    static CURRENT: Cell<*const Regs> = const { Cell::new(core::ptr::null()) };
    /// Writes to memory by kernels on this thread (stores, atomics), ever.
    static WRITES: Cell<u64> = const { Cell::new(0) };
    /// The lane whose code the warp-wide form running on this thread runs: a thread-local, not
    /// the registers' own `current`, because the form's loops store it for every lane, and a
    /// store to a thread-local cannot change the form's per-lane values (a store through the
    /// registers' reference might, for all the compiler knows, and would keep them out of
    /// registers). Meanwhile the registers' `current` holds [`IN_FORM`].
    static FORM_LANE: Cell<u32> = const { Cell::new(0) };
    /// Whether the race detector runs for the warp of [`CURRENT`] (set with it: the detector is
    /// on or off for a whole launch): an access asks this one flag before anything else.
    static RACES: Cell<bool> = const { Cell::new(false) };
}

/// What the registers' `current` holds while their warp's form runs lane code: the lane is
/// [`FORM_LANE`]'s (no lane has this number).
const IN_FORM: u32 = u32::MAX;

/// While a warp-wide form of `regs`' warp runs (see `crate::wide::WideCtx`): the lane its code
/// runs is [`form_lane`]'s. Before the engine reads the registers, [`sync`](Self::sync) puts
/// that lane in them, and [`resume`](Self::resume) hands it back to the thread-local; on drop,
/// the registers hold the lane, and the previous form's lane (a lane's code may run a warp of
/// its own) is restored. A form that suspends at a CTA barrier [`leave`](Self::leave)s the
/// thread-local to the warps that run meanwhile and [`reenter`](Self::reenter)s it when resumed.
pub(crate) struct FormCurrent {
    regs: *const Regs,
    previous: Cell<u32>,
    /// Whether the thread-local is this form's (false while it is suspended).
    attached: Cell<bool>,
}

impl FormCurrent {
    #[inline(always)]
    pub(crate) fn enter(regs: &Regs) -> FormCurrent {
        let previous = FORM_LANE.with(|c| c.replace(regs.current_lane()));
        regs.set_current(IN_FORM);
        FormCurrent { regs, previous: Cell::new(previous), attached: Cell::new(true) }
    }

    /// The registers' `current` made the form's lane (before the engine reads them).
    #[inline(always)]
    pub(crate) fn sync(&self) {
        // SAFETY: the form that made this guard keeps its registers alive while it lives.
        unsafe { (*self.regs).set_current(FORM_LANE.with(Cell::get)) };
    }

    /// Lane code runs again: the lane is the thread-local's.
    #[inline(always)]
    pub(crate) fn resume(&self) {
        // SAFETY: as in `sync`.
        unsafe { (*self.regs).set_current(IN_FORM) };
    }

    /// The form suspends: the registers hold its lane, and the thread-local is the previous
    /// form's again.
    pub(crate) fn leave(&self) {
        if self.attached.replace(false) {
            self.sync();
            FORM_LANE.with(|c| c.set(self.previous.get()));
        }
    }

    /// The suspended form runs again, in the lane the registers hold.
    pub(crate) fn reenter(&self) {
        if !self.attached.replace(true) {
            // SAFETY: as in `sync`: a suspended form's registers outlive it.
            let lane = unsafe { (*self.regs).current_lane() };
            self.previous.set(FORM_LANE.with(|c| c.replace(lane)));
            self.resume();
        }
    }
}

impl Drop for FormCurrent {
    #[inline(always)]
    fn drop(&mut self) {
        // A suspended form dropped (its run failed elsewhere) touches nothing.
        if self.attached.get() {
            self.sync();
            FORM_LANE.with(|c| c.set(self.previous.get()));
        }
    }
}

/// Lane `lane`'s code runs now, in the warp-wide form of this thread's [`FormCurrent`].
#[inline(always)]
pub(crate) fn form_lane(lane: u32) {
    FORM_LANE.with(|c| c.set(lane));
}

/// While alive, `regs` is the current warp of this thread (its lanes are the ones polled); on drop
/// the previous one is restored (a lane may run a warp of its own).
pub(crate) struct Current {
    previous: *const Regs,
    races: bool,
}

impl Current {
    #[inline(always)]
    pub(crate) fn enter(regs: &Regs) -> Current {
        let races = RACES.with(|c| c.replace(regs.block().races.is_on()));
        Current { previous: CURRENT.with(|c| c.replace(regs)), races }
    }
}

impl Drop for Current {
    #[inline(always)]
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.previous));
        RACES.with(|c| c.set(self.races));
    }
}

/// Whether the race detector runs for the current warp (false outside a run).
#[inline(always)]
pub(crate) fn races_on() -> bool {
    RACES.with(Cell::get)
}

/// The current warp's registers and the lane being polled, if a lane is running.
#[inline]
pub(crate) fn current() -> Option<(&'static Regs, u32)> {
    current_regs().map(|r| {
        let lane = r.current_lane();
        (r, if lane == IN_FORM { FORM_LANE.with(Cell::get) } else { lane })
    })
}

/// The current warp's registers, if a lane is running.
#[inline(always)]
fn current_regs() -> Option<&'static Regs> {
    let regs = CURRENT.with(Cell::get);
    // SAFETY: `CURRENT` is non-null only while a `Current` guard lives, which its driver keeps for
    // no longer than the registers it names; the reference is used only while a lane of that
    // warp is polled, on this thread.
    unsafe { regs.as_ref() }
}

/// The number of writes kernels made on this thread so far.
#[inline(always)]
pub(crate) fn writes() -> u64 {
    WRITES.with(Cell::get)
}

/// Counts a write (a store, or an atomic) by a kernel.
#[inline(always)]
pub(crate) fn wrote() {
    WRITES.with(|w| w.set(w.get().wrapping_add(1)));
}

/// A memory space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// `.global`.
    Global,
    /// `.shared` (of the thread's own block).
    Shared,
    /// No state space: a plain `load` whose address the runtime does not know (PTX generic
    /// addressing).
    Generic,
}

impl Space {
    /// The PTX state-space qualifier without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Generic => "generic",
        }
    }
}

/// A memory access that went wrong, raised in the lane that made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LaneFault {
    /// A shared-memory index past the end of the array.
    SharedOutOfBounds {
        /// The access (`ld.shared.u32`, ...).
        op: &'static str,
        /// The index.
        index: usize,
        /// The array's length in elements.
        len: usize,
        /// Where the array was declared (or the dynamic shared memory was viewed).
        declared: Site,
        /// Where the access was made.
        site: Site,
    },
    /// A shared-memory read of bytes that no thread of the block has written. The hardware
    /// leaves shared memory uninitialized at the start of a block.
    SharedUninitialized {
        /// The access.
        op: &'static str,
        /// The index.
        index: usize,
        /// Where the array was declared.
        declared: Site,
        /// Where the read was made.
        site: Site,
    },
    /// A memory instruction (an ordered load or store, a fence) that the run's target does not
    /// have.
    Unsupported {
        /// The instruction (`ld.acquire.gpu.global`, `fence.sc.cluster`, ...).
        op: &'static str,
        /// The lowest target that has it.
        min: &'static str,
        /// The run's target.
        target: crate::target::Target,
        /// Where it was executed.
        site: Site,
    },
    /// A view of dynamic shared memory that does not fit what the launch provides, or is not
    /// aligned for its element type; or static shared arrays larger than a block may have.
    SharedLayout {
        /// What is wrong, in a sentence.
        what: String,
        /// Where the view or array was made.
        site: Site,
    },
    /// An `atom`/`red` form the run's target lacks (the spec's Target ISA Notes).
    AtomUnsupported {
        /// The instruction as PTX (`atom.acquire.cluster.global.add.u32`).
        instruction: String,
        /// The Target ISA Note it needs, quoted.
        needs: &'static str,
        /// The modelled target.
        target: crate::target::Target,
        /// Where it was executed.
        site: Site,
    },
    /// An mbarrier operation the spec leaves undefined (9.7.13.15).
    Mbarrier {
        /// The rule broken.
        rule: crate::mbarrier::MbarrierRule,
        /// The instruction (`mbarrier.arrive`, ...).
        op: &'static str,
        /// The element of the shared array holding the object (none for `pending_count`).
        index: Option<usize>,
        /// What happened: counts, phases.
        detail: String,
        /// Where it was executed.
        site: Site,
    },
    /// A vector `atom`/`red` whose address is not a multiple of the vector's size ("Addresses
    /// as Operands": a vector access must be aligned to its whole size).
    AtomMisaligned {
        /// The instruction as PTX.
        instruction: String,
        /// The index of its first element.
        index: usize,
        /// The alignment it needs, in bytes.
        align: usize,
        /// Where it was executed.
        site: Site,
    },
    /// A misuse of clusters: `barrier.cluster`, distributed shared memory, `red.async` or
    /// `st.async` ([`crate::cluster`]).
    Cluster {
        /// The rule it breaks.
        rule: crate::cluster::ClusterRule,
        /// The instruction.
        op: &'static str,
        /// What happened.
        detail: String,
        /// Where.
        site: Site,
    },
}

impl fmt::Display for LaneFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneFault::SharedOutOfBounds { op, index, len, declared, site } => write!(
                f,
                "`{op}` at {site} reads or writes element {index} of a shared array of {len} elements (declared at {declared})"
            ),
            LaneFault::SharedUninitialized { op, index, declared, site } => write!(
                f,
                "`{op}` at {site} reads element {index} of the shared array declared at {declared}, which no thread of the block has written: shared memory is uninitialized when a block starts"
            ),
            LaneFault::SharedLayout { what, site } => write!(f, "{what} (at {site})"),
            LaneFault::AtomUnsupported { instruction, needs, target, site } => {
                write!(f, "`{instruction}` at {site} is not available on {target}: \"{needs}\"")
            }
            LaneFault::AtomMisaligned { instruction, index, align, site } => write!(
                f,
                "`{instruction}` at {site} on element {index} is not aligned to its {align} bytes: a vector access must be aligned to its whole size"
            ),
            LaneFault::Mbarrier { rule, op, index, detail, site } => {
                let at = index.map_or(String::new(), |i| format!(" on the mbarrier at element {i}"));
                write!(f, "`{op}` at {site}{at}: {detail}\n  PTX ISA: \"{}\"", rule.quote())
            }
            LaneFault::Cluster { rule, op, detail, site } => write!(f, "`{op}` at {site}: {detail}\n  {}", rule.quote()),
            LaneFault::Unsupported { op, min, target, site } => {
                write!(f, "`{op}` at {site} is not available on {target}: it requires {min} or higher")
            }
        }
    }
}

/// Ends the calling lane with `fault` (reported as [`WarpError::Memory`](crate::WarpError::Memory)).
/// Outside a run, panics with its text.
#[cold]
#[inline(never)]
pub(crate) fn fault(fault: LaneFault) -> ! {
    if current().is_some() {
        std::panic::resume_unwind(Box::new(fault))
    } else {
        panic!("{fault}")
    }
}

/// A memory operation that has been performed, as a scheduling point: awaiting it suspends the
/// lane once (letting every other lane, warp and block run) and then yields the operation's
/// result. Outside a run it is ready at once.
#[must_use = "an atomic or volatile load is a scheduling point: await it (`#[warp_kernel]` does) to get its value and let other threads run"]
pub struct MemOp<T> {
    value: T,
    /// What the lane waits at, until the first poll records it.
    wait: Option<MemWait>,
}

impl<T> MemOp<T> {
    /// The operation `op` on element `index` of `space`, which returned `value` (as `bits`).
    #[inline(always)]
    pub(crate) fn new(value: T, op: &'static str, space: Space, index: usize, bits: u64, site: Site) -> MemOp<T> {
        MemOp { value, wait: Some(MemWait { site, op, space, index, value: bits, mbarrier: None }) }
    }

    /// The same operation, suspending at `wait` (an mbarrier wait's view of the barrier).
    #[inline(always)]
    pub(crate) fn with_wait(self, wait: MemWait) -> MemOp<T> {
        MemOp { wait: Some(wait), ..self }
    }

    /// The operation's result without suspending (for code outside `#[warp_kernel]` that needs
    /// no scheduling point).
    pub fn value(self) -> T {
        self.value
    }

    /// The same scheduling point with its value mapped.
    #[inline(always)]
    pub(crate) fn map<U>(self, f: impl FnOnce(T) -> U) -> MemOp<U> {
        MemOp { value: f(self.value), wait: self.wait }
    }
}

impl<T: Copy> Future for MemOp<T> {
    type Output = T;

    #[inline]
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        // SAFETY: nothing of `MemOp` is structurally pinned: the value is copied out and `wait`
        // is replaced in place.
        let this = unsafe { self.get_unchecked_mut() };
        match this.wait.take() {
            Some(wait) => match current() {
                Some((regs, _)) => {
                    regs.note_yield(wait);
                    Poll::Pending
                }
                None => Poll::Ready(this.value),
            },
            None => Poll::Ready(this.value),
        }
    }
}

/// An atomic (`atom`/`red`) of a kernel that has a warp-wide form, as a scheduling point below
/// sm_70 only (as [`pauses_lockstep`] says for a plain load). `#[warp_kernel]` awaits a kernel's
/// atomics through it instead of awaiting the [`MemOp`] itself when none of them can spin (each
/// sits outside any loop that could run forever: see [`pauses_lockstep`]). The warp-wide form runs
/// a lane's code from one warp instruction to the next without a pause, atomics included, so
/// the per-lane form does not pause at them either (on sm_70+), and both interleave the lanes'
/// accesses alike. Below sm_70 (no form runs there) it pauses as the [`MemOp`] does.
#[inline(always)]
pub fn lockstep_atomic<T: Copy>(op: MemOp<T>) -> LockstepAtomic<T> {
    LockstepAtomic { op }
}

/// The future of [`lockstep_atomic`].
#[must_use = "await it (`#[warp_kernel]` does)"]
pub struct LockstepAtomic<T> {
    op: MemOp<T>,
}

impl<T: Copy> Future for LockstepAtomic<T> {
    type Output = T;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        // SAFETY: nothing of `LockstepAtomic` is structurally pinned (nor of its `MemOp`).
        let this = unsafe { self.get_unchecked_mut() };
        if this.op.wait.is_some() {
            if let Some((regs, _)) = current() {
                if regs.target().independent_scheduling() {
                    this.op.wait = None;
                }
            }
        }
        // SAFETY: as above: `op` is never moved while pinned (it has nothing pinned itself).
        unsafe { Pin::new_unchecked(&mut this.op) }.poll(cx)
    }
}

/// An atomic's result in a warp-wide form's lane code (see [`lockstep_atomic`]): the operation
/// was performed when it was called, and a form does not pause at it.
#[inline(always)]
pub fn form_atomic<T>(op: MemOp<T>) -> T {
    op.value
}

/// How many plain loads a lane makes between two scheduling points.
pub const LOADS_PER_POINT: u8 = 32;

/// Whether a lane's plain load pauses it here, as an occasional scheduling point: every
/// [`LOADS_PER_POINT`]th plain load of a lane suspends it once, so that a lane (or warp, or block)
/// spinning with plain loads on a flag another one sets lets that one run. Counts the load.
/// `#[warp_kernel]` asks it after every `x.load(..)` of a kernel body, and awaits [`pause`] when it
/// says so; outside a run it says no.
///
/// A spin on a plain (weak) load works here, but the GPU's compiler may hoist a weak load out of
/// the loop: a report of lanes stuck at one says so. Spin on `load_volatile` instead.
///
/// A question and a future awaited only when the answer is yes, rather than a future awaited at
/// every load: the future's value, site and flags were written into the lane's future and read
/// back at every access (about 30 instructions per load of the search example, a fifth of its
/// per-lane cost).
#[inline(always)]
pub fn pauses_load() -> bool {
    // The registers' current lane is the lane polled: a load that asks is in a kernel's per-lane
    // body, never in a warp-wide form's lane code (whose loads do not pause, and where the
    // registers hold `IN_FORM`), so `current`'s look at the form's lane is skipped (were it
    // `IN_FORM`, lane 31's count would move: a pause elsewhere, nothing worse).
    current_regs().is_some_and(|r| r.count_load(r.current_lane()))
}

/// Whether a lane's plain access pauses it here: below sm_70, where the lanes of a warp execute in
/// lockstep (every lane's store, or load, before any lane's next instruction), each store is a
/// scheduling point, and so is each load of a kernel that has a warp-wide form. `#[warp_kernel]`
/// asks it after every `x.store(..)` (and the ordered stores) of a kernel body, and after the loads
/// of a kernel with a warp-wide form instead of [`pauses_load`]: none of those loads can spin
/// (each sits outside any loop that could run forever), and the warp-wide form runs a lane's code
/// from one instruction to the next without a pause, so the per-lane form does not pause there
/// either on sm_70 and later, and both interleave the lanes' accesses alike. Outside a run it says
/// no.
#[inline(always)]
pub fn pauses_lockstep() -> bool {
    current().is_some_and(|(regs, _)| !regs.target().independent_scheduling())
}

/// A plain load's value, after a pause ([`pauses_load`], [`pauses_lockstep`]): the lane suspends
/// once, at the caller's site.
#[track_caller]
#[inline(always)]
pub fn pause<T>(value: T) -> AccessPoint<T> {
    AccessPoint { value: Some(value), site: core::panic::Location::caller(), store: false, polled: false }
}

/// A store's result, after a pause ([`pauses_lockstep`]): the lane suspends once, at the caller's
/// site.
#[track_caller]
#[inline(always)]
pub fn pause_store<T>(value: T) -> AccessPoint<T> {
    AccessPoint { value: Some(value), site: core::panic::Location::caller(), store: true, polled: false }
}

/// The future of [`pause`] and [`pause_store`]: a plain access as a scheduling point.
#[must_use = "await it (`#[warp_kernel]` does)"]
pub struct AccessPoint<T> {
    value: Option<T>,
    site: Site,
    /// A store, or a load.
    store: bool,
    polled: bool,
}

impl<T> Future for AccessPoint<T> {
    type Output = T;

    #[inline]
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<T> {
        // SAFETY: nothing of `AccessPoint` is structurally pinned: the value is moved out once.
        let this = unsafe { self.get_unchecked_mut() };
        if !this.polled {
            this.polled = true;
            if let Some((regs, _)) = current() {
                let op = if this.store { "st" } else { "ld" };
                regs.note_yield(MemWait { site: this.site, op, space: Space::Generic, index: 0, value: 0, mbarrier: None });
                return Poll::Pending;
            }
        }
        Poll::Ready(this.value.take().expect("an AccessPoint is polled to completion once"))
    }
}
