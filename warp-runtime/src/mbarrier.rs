//! `mbarrier`: asynchronous barrier objects in shared memory (PTX ISA 9.7.13.15), on both
//! targets.
//!
//! An mbarrier is a `u64` element of a [`SharedSlice`] (so it is in shared memory and 8-byte
//! aligned by construction: an object anywhere else is not expressible). Its operations are
//! methods of `SharedSlice<'_, u64>` named `mbarrier_*`; on the host each is a scheduling point
//! (a [`MemOp`](crate::mem::MemOp) that `#[warp_kernel]` awaits), so a lane polling
//! `mbarrier_try_wait_parity` in a loop lets the producer run, and a wait that can never complete
//! ends as a `Deadlock` (one warp) or `ForwardProgress` (a grid) report showing, for every waiting
//! thread, the phase it waits for and the barrier's phase, pending count and tx-count.
//!
//! | method | instruction | target |
//! |---|---|---|
//! | `mbarrier_init(i, count)` | `mbarrier.init.shared.b64` | sm_80 |
//! | `mbarrier_inval(i)` | `mbarrier.inval.shared.b64` | sm_80 |
//! | `mbarrier_arrive(i)` | `mbarrier.arrive.shared.b64` (`.release.cta`, count 1) | sm_80 |
//! | `mbarrier_arrive_no_complete(i, count)` | `mbarrier.arrive.noComplete.shared.b64` | sm_80 |
//! | `mbarrier_arrive_with(i, count, sem, scope)` | `mbarrier.arrive{.sem}{.scope}.shared.b64` with `count` | sm_90 |
//! | `mbarrier_arrive_drop(i)` | `mbarrier.arrive_drop.shared.b64` | sm_80 |
//! | `mbarrier_arrive_drop_no_complete(i, count)` | `mbarrier.arrive_drop.noComplete.shared.b64` | sm_80 |
//! | `mbarrier_arrive_expect_tx(i, tx)` | `mbarrier.arrive.expect_tx.shared.b64` | sm_90 |
//! | `mbarrier_expect_tx(i, tx)` | `mbarrier.expect_tx.relaxed.cta.shared.b64` | sm_90 |
//! | `mbarrier_complete_tx(i, tx)` | `mbarrier.complete_tx.relaxed.cta.shared.b64` | sm_90 |
//! | `mbarrier_test_wait(i, state)` | `mbarrier.test_wait.shared.b64` | sm_80 |
//! | `mbarrier_test_wait_parity(i, parity)` | `mbarrier.test_wait.parity.shared.b64` | sm_80 (PTX 7.1: in this crate's builds, sm_90) |
//! | `mbarrier_try_wait(i, state)` | `mbarrier.try_wait.shared.b64` | sm_90 |
//! | `mbarrier_try_wait_parity(i, parity)` | `mbarrier.try_wait.parity.shared.b64` | sm_90 |
//! | `mbarrier_try_wait_parity_with(i, parity, sem, scope)` | `mbarrier.try_wait.parity{.sem}{.scope}.shared.b64` | sm_90 |
//! | `mbarrier_try_wait_hint(i, state, ns)`, `mbarrier_try_wait_parity_hint(i, parity, ns)` | `mbarrier.try_wait{.parity}.shared.b64 p, [a], x, suspendTimeHint` | sm_90 |
//! | [`MbarrierToken::pending_count`] | `mbarrier.pending_count.b64` | sm_80 |
//! | `cp_async_bulk(dst, src, start, len, bar, i)` (any element type) | `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` | sm_90 |
//!
//! `try_wait` returns at once on the CPU (as it may on the GPU: "resumes execution when the
//! specified phase completes OR before the phase completes following a system-dependent time
//! limit"). `.relaxed` needs PTX 8.6: in builds for an older PTX the device emits `.release` or
//! `.acquire` instead, which order more, never less.
//!
//! What the CPU runtime reports, each as [`WarpError::Memory`](crate::WarpError::Memory) with
//! [`LaneFault::Mbarrier`](crate::mem::LaneFault::Mbarrier) and the rule ([`MbarrierRule`]):
//! an operation on an object that was never initialized or was invalidated; `init` of an object
//! in use; counts and tx-counts outside their ranges; more arrivals than the phase has pending
//! (the lanes of a warp arriving together are one arrive-on, as on the H100, which traps); a
//! `.noComplete` arrival that completes the phase; a wait on a state two or more phases old or a
//! parity other than 0 and 1; an arrival in a phase whose predecessor no wait saw complete;
//! `pending_count` of a state that no `.noComplete` arrival returned. The race detector sees
//! `init` as a plain store and the arrivals and successful waits as release and acquire
//! operations on the object, so a thread that arrives or waits without a barrier after another
//! thread's `init` is a race, and the waits order what the arrivals' threads wrote before.

#[cfg_attr(all(target_arch = "nvptx64", not(target_feature = "sm_80")), allow(unused_imports))]
use crate::shared::{Mem, SharedSlice};

/// The `.sem` of an arrival: "`.sem = {.release, .relaxed}`", `.release` by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArriveSem {
    /// `.release`: the arrival releases the thread's prior memory accesses.
    Release,
    /// `.relaxed` (PTX 8.6): no ordering.
    Relaxed,
}

/// The `.sem` of a wait: "`.sem = {.acquire, .relaxed}`", `.acquire` by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WaitSem {
    /// `.acquire`: a wait that returns true acquires what the phase's arrivals released.
    Acquire,
    /// `.relaxed` (PTX 8.6): no ordering.
    Relaxed,
}

/// The `.scope` of an mbarrier operation: "`.scope = {.cta, .cluster}`", `.cta` by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MbarScope {
    /// `.cta`.
    Cta,
    /// `.cluster` (sm_90): the blocks of the cluster (the block alone in a launch without
    /// clusters).
    Cluster,
}

impl From<MbarScope> for crate::sem::Scope {
    fn from(s: MbarScope) -> crate::sem::Scope {
        match s {
            MbarScope::Cta => crate::sem::Scope::Cta,
            MbarScope::Cluster => crate::sem::Scope::Cluster,
        }
    }
}

/// The opaque `state` an arrival returns: give it to `mbarrier_test_wait`/`mbarrier_try_wait`,
/// or, from a `.noComplete` arrival, to [`pending_count`](Self::pending_count). Its bits are
/// implementation specific (on the H100 and on the CPU, bit 63 is the parity of the phase the
/// arrival saw).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MbarrierToken(pub u64);

impl MbarrierToken {
    /// `mbarrier.pending_count.b64`: the pending arrival count before the `.noComplete` arrival
    /// that returned this state. Undefined for any other state: reported on the CPU.
    #[inline(always)]
    #[track_caller]
    pub fn pending_count(self) -> u32 {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let token = crate::semantics::mbarrier::Token(self.0);
            host::gate("mbarrier.pending_count.b64", 80);
            if !token.no_complete() {
                host::fault(
                    MbarrierRule::PendingCountToken,
                    "mbarrier.pending_count.b64",
                    None,
                    "the state was not returned by an `.noComplete` arrival".into(),
                );
            }
            token.pending()
        }
        #[cfg(target_arch = "nvptx64")]
        {
            device::pending_count(self.0)
        }
    }
}

/// Which rule of 9.7.13.15 an mbarrier operation broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MbarrierRule {
    /// An operation other than `init` on memory that holds no initialized object (never
    /// initialized, or invalidated).
    NotInitialized,
    /// `init` of an object that is in use.
    InitInUse,
    /// A count outside `1 ..= 2^20 - 1` (`init`) or over `2^20 - 1` (an arrival).
    CountOutOfRange,
    /// More arrivals than the current phase has pending.
    TooManyArrivals,
    /// A `.noComplete` arrival that completed the phase.
    NoCompleteCompleted,
    /// The tx-count left `-(2^20 - 1) ..= 2^20 - 1`.
    TxOutOfRange,
    /// A wait on a state that is neither of the current phase nor of the one before.
    StaleState,
    /// A wait on a parity other than 0 and 1.
    BadParity,
    /// An arrival in a phase whose predecessor no wait saw complete.
    NoWaitBetweenPhases,
    /// `pending_count` of a state no `.noComplete` arrival returned.
    PendingCountToken,
    /// A plain load, store or atomic on a live object.
    PlainAccess,
    /// A bulk copy whose addresses are not 16-byte aligned or whose size is not a non-zero
    /// multiple of 16 bytes.
    BulkCopyAlignment,
    /// A `cp.async` whose addresses are not aligned to its size.
    CopyAlignment,
}

impl MbarrierRule {
    /// The PTX ISA sentence (or, where the spec has only a range, the range and what the H100
    /// does).
    pub fn quote(self) -> &'static str {
        match self {
            MbarrierRule::NotInitialized => {
                "Performing any mbarrier operation except mbarrier.init on a memory location that does not contain a valid mbarrier object, results in undefined behaviour."
            }
            MbarrierRule::InitInUse => {
                "The behavior of performing an mbarrier.init operation on a memory location containing a valid mbarrier object is undefined; invalidate the mbarrier object using mbarrier.inval first"
            }
            MbarrierRule::CountOutOfRange => {
                "The valid range of values for the operand count is [1, ..., 2^20 - 1] (expected arrival count 1 .. 2^20 - 1, pending arrival count 0 .. 2^20 - 1)"
            }
            MbarrierRule::TooManyArrivals => {
                "Pending arrival count: 0 .. 2^20 - 1 (an arrive-on of more than is pending leaves that range; the H100 traps with \"unspecified launch failure\")"
            }
            MbarrierRule::NoCompleteCompleted => {
                "A mbarrier.arrive operation with .noComplete qualifier must not cause the mbarrier to complete its current phase, otherwise the behavior is undefined."
            }
            MbarrierRule::TxOutOfRange => "tx-count: -(2^20 - 1) .. 2^20 - 1",
            MbarrierRule::StaleState => {
                "The test_wait and try_wait operations are valid only for: the current incomplete phase, for which waitComplete returns False; the immediately preceding phase, for which waitComplete returns True."
            }
            MbarrierRule::BadParity => "An even phase has integer parity 0 and an odd phase has integer parity of 1. So the valid values of phaseParity operand are 0 and 1.",
            MbarrierRule::NoWaitBetweenPhases => {
                "For each phase of the mbarrier object, at least one test_wait or try_wait operation must be performed which returns True for waitComplete before an arrive-on operation in the subsequent phase."
            }
            MbarrierRule::BulkCopyAlignment => {
                "cp.async.bulk: both srcMem and dstMem must be 16-byte aligned, and size must be a multiple of 16"
            }
            MbarrierRule::CopyAlignment => "cp.async: dst and src must be aligned to cp-size (4, 8 or 16 bytes)",
            MbarrierRule::PlainAccess => {
                "Performing any non-mbarrier or mbarrier.init operations on an initialized mbarrier object results in undefined behavior."
            }
            MbarrierRule::PendingCountToken => {
                "The state operand is a 64-bit register that must be the result of a prior mbarrier.arrive.noComplete or mbarrier.arrive_drop.noComplete instruction. Otherwise, the behavior is undefined."
            }
        }
    }
}

/// An mbarrier as a waiting thread saw it (in [`MemWait`](crate::error::MemWait), so that a
/// report of a wait that never completes shows each thread's view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MbarrierView {
    /// The phase the thread waits to see complete (from its state or parity).
    pub waits_for: WaitsFor,
    /// The barrier's current phase.
    pub phase: u64,
    /// Its pending arrival count.
    pub pending: u32,
    /// Its expected arrival count.
    pub expected: u32,
    /// Its tx-count.
    pub tx: i32,
}

/// What a wait names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitsFor {
    /// A parity (`.parity` forms).
    Parity(u32),
    /// The phase of a state.
    Phase(u64),
}

impl core::fmt::Display for MbarrierView {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.waits_for {
            WaitsFor::Parity(p) => write!(f, "waits for the phase of parity {p} to complete")?,
            WaitsFor::Phase(p) => write!(f, "waits for phase {p} to complete")?,
        }
        write!(
            f,
            "; the barrier is in phase {} (parity {}), {} of {} arrivals pending, tx-count {}",
            self.phase,
            self.phase & 1,
            self.pending,
            self.expected,
            self.tx
        )
    }
}

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::Table;

#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use core::cell::RefCell;
    use std::collections::HashMap;

    use super::*;
    use crate::error::{MemWait, Site};
    use crate::mem::{self, LaneFault, MemOp, Space};
    use crate::race::{self, Access, Kind, Order};
    use crate::sem::{Scope, Sem};
    use crate::semantics::mbarrier::{MbarFault, Mbarrier, Token};

    /// One warp instruction's arrivals in flight: the lanes of a warp that arrive at one call
    /// site in one step are one arrive-on on the GPU, with the sum of their counts and one state.
    #[derive(Clone, Copy)]
    struct Group {
        regs: usize,
        step: u64,
        site: Site,
        token: Token,
        /// The pending count before the instruction, and the counts so far.
        pending: u32,
        sum: u64,
    }

    /// An initialized mbarrier.
    pub(crate) struct Entry {
        m: Mbarrier,
        init: Site,
        /// A wait returned true for the phase before the current one (true in phase 0).
        waited: bool,
        group: Option<Group>,
    }

    /// The block's mbarriers, by byte offset in its shared memory.
    #[derive(Default)]
    pub(crate) struct Table {
        map: RefCell<HashMap<usize, Entry>>,
        /// Whether `map` holds any object (one test on every plain shared access).
        live: core::cell::Cell<bool>,
    }

    impl Table {
        /// Whether no object was ever initialized here.
        pub(crate) fn untouched(&self) -> bool {
            // `map` holds objects only while `live` (set at each insertion, cleared with it).
            !self.live.get()
        }

        /// Forgets every object (a new block).
        pub(crate) fn reset(&self) {
            if self.live.get() {
                self.map.borrow_mut().clear();
                self.live.set(false);
            }
        }

        /// Reports a plain access (`op`) of `bytes` bytes at byte offset `at` that touches a
        /// live object: "Performing any non-mbarrier or mbarrier.init operations on an
        /// initialized mbarrier object results in undefined behavior."
        #[inline(always)]
        #[track_caller]
        pub(crate) fn check_plain(&self, op: &'static str, at: usize, bytes: usize, index: usize) {
            if self.live.get() {
                self.check_plain_slow(op, at, bytes, index);
            }
        }

        #[inline(never)]
        #[track_caller]
        fn check_plain_slow(&self, op: &'static str, at: usize, bytes: usize, index: usize) {
            let map = self.map.borrow();
            let first = at & !7;
            let hit = (first..at + bytes).step_by(8).find_map(|o| map.get(&o).map(|e| (o, e.init)));
            drop(map);
            if let Some((o, init)) = hit {
                fault(
                    MbarrierRule::PlainAccess,
                    op,
                    Some(index),
                    format!("a plain `{op}` touches the mbarrier object at byte {o} of shared memory, initialized at {init} and not invalidated"),
                );
            }
        }
    }

    /// Reports `op` if the running lane's target is below sm_`min`.
    #[track_caller]
    pub(super) fn gate(op: &'static str, min: u32) {
        crate::ordered::gate(op, min)
    }

    #[cold]
    #[track_caller]
    pub(super) fn fault(rule: MbarrierRule, op: &'static str, index: Option<usize>, detail: String) -> ! {
        mem::fault(LaneFault::Mbarrier { rule, op, index, detail, site: std::panic::Location::caller() })
    }

    fn rule_of(f: MbarFault) -> (MbarrierRule, String) {
        match f {
            MbarFault::CountOutOfRange { count } => (MbarrierRule::CountOutOfRange, format!("count {count}")),
            MbarFault::TooManyArrivals { count, pending } => {
                (MbarrierRule::TooManyArrivals, format!("an arrive-on of {count} with {pending} arrivals pending"))
            }
            MbarFault::NoCompleteCompleted => (MbarrierRule::NoCompleteCompleted, "the arrival completed the phase".into()),
            MbarFault::TxOutOfRange { tx } => (MbarrierRule::TxOutOfRange, format!("the tx-count would be {tx}")),
        }
    }

    /// What an operation returns: its result, the bits the race detector records, and, for a
    /// wait, the view of the barrier a report shows.
    type Done<R> = (R, u64, Option<MemWait>);

    impl SharedSlice<'_, u64> {
        /// The one place every host mbarrier operation happens: the target gate, the index, the
        /// object's entry, the operation `f`, the race detector's hook (kind and order), and the
        /// scheduling point.
        #[track_caller]
        #[allow(clippy::too_many_arguments)]
        fn mbar<R: Copy>(
            &self,
            i: usize,
            op: &'static str,
            min: u32,
            kind: Kind,
            order: impl FnOnce(&R) -> Order,
            f: impl FnOnce(Option<&mut Entry>, Site) -> Result<(Option<Entry>, Done<R>), (MbarrierRule, String)>,
        ) -> MemOp<R> {
            let site: Site = std::panic::Location::caller();
            gate(op, min);
            let at = self.byte_offset(op, i);
            let table = &self.arena().mbarriers;
            let outcome = {
                let mut t = table.map.borrow_mut();
                f(t.get_mut(&at), site).map(|(new, done)| {
                    if let Some(new) = new {
                        t.insert(at, new);
                        table.live.set(true);
                    }
                    done
                })
            };
            let (value, bits, wait) = match outcome {
                Ok(x) => x,
                Err((rule, detail)) => fault(rule, op, Some(i), detail),
            };
            if kind != Kind::Load {
                mem::wrote();
            }
            let order = order(&value);
            race::access(|| self.race_loc(i), move || Access { op, kind, order }, site, || ((), bits));
            let mut m = MemOp::new(value, op, Space::Shared, i, bits, site);
            if let Some(w) = wait {
                m = m.with_wait(w);
            }
            m
        }

        /// `mbarrier.init.shared.b64 [addr], count`: a barrier expecting `count` arrivals per
        /// phase, in phase 0.
        #[track_caller]
        pub(super) fn host_init(&self, i: usize, count: u32) -> MemOp<()> {
            self.mbar(i, "mbarrier.init", 80, Kind::Store, |_| Order::Weak, |e, site| {
                if let Some(e) = e {
                    return Err((MbarrierRule::InitInUse, format!("the object was initialized at {} and not invalidated", e.init)));
                }
                let m = Mbarrier::init(count).map_err(rule_of)?;
                Ok((Some(Entry { m, init: site, waited: true, group: None }), ((), 0, None)))
            })
        }

        /// `mbarrier.inval.shared.b64 [addr]`.
        #[track_caller]
        pub(super) fn host_inval(&self, i: usize) -> MemOp<()> {
            let at = self.byte_offset("mbarrier.inval", i);
            let m = self.mbar(i, "mbarrier.inval", 80, Kind::Store, |_| Order::Weak, |e, _| match e {
                None => Err(not_initialized()),
                Some(e) => Ok((None, ((), e.m.phase, None))),
            });
            self.arena().mbarriers.map.borrow_mut().remove(&at);
            m
        }

        /// An arrival (`arrive`, `arrive_drop`, `arrive.expect_tx`; `tx` for the latter two
        /// forms' expect-tx), grouped per warp instruction unless `.noComplete`.
        #[track_caller]
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn host_arrive(
            &self,
            i: usize,
            op: &'static str,
            min: u32,
            count: u32,
            no_complete: bool,
            drop: bool,
            tx: Option<u32>,
            sem: ArriveSem,
            scope: MbarScope,
        ) -> MemOp<MbarrierToken> {
            let order = Order::Object { sem: if sem == ArriveSem::Release { Sem::Release } else { Sem::Relaxed }, scope: Scope::from(scope) };
            let (regs, step) = mem::current().map_or((0, 0), |(r, _)| (r as *const _ as usize, r.step()));
            self.mbar(i, op, min, Kind::Rmw, |_| order, |e, site| {
                let e = e.ok_or_else(not_initialized)?;
                let same = e.group.filter(|g| !no_complete && g.regs == regs && g.step == step && crate::error::same_place(g.site, site));
                if same.is_none() && !e.waited {
                    return Err((
                        MbarrierRule::NoWaitBetweenPhases,
                        format!("an arrival in phase {} before any wait returned true for phase {}", e.m.phase, e.m.phase - 1),
                    ));
                }
                let this = if tx.is_some() { 1 } else { count as u64 };
                if let Some(g) = same.filter(|g| g.sum + this > g.pending as u64) {
                    return Err((
                        MbarrierRule::TooManyArrivals,
                        format!(
                            "the warp's lanes at this instruction arrive with {} in all, one arrive-on on the GPU, and the phase had {} pending",
                            g.sum + this,
                            g.pending
                        ),
                    ));
                }
                let before = e.m;
                let result = match tx {
                    Some(tx) => e.m.arrive_expect_tx(tx, drop),
                    None if drop => e.m.arrive_drop(count, no_complete),
                    None => e.m.arrive(count, no_complete),
                };
                let (token, completed) = result.map_err(rule_of)?;
                let token = match same {
                    Some(g) => {
                        e.group = Some(Group { sum: g.sum + this, ..g });
                        g.token
                    }
                    None => {
                        e.group = (!no_complete).then_some(Group { regs, step, site, token, pending: before.pending, sum: this });
                        token
                    }
                };
                if completed {
                    e.waited = false;
                }
                Ok((None, (MbarrierToken(token.0), e.m.phase, None)))
            })
        }

        /// `expect_tx` or `complete_tx` of `tx` bytes.
        #[track_caller]
        pub(crate) fn host_tx(&self, i: usize, op: &'static str, tx: u32, complete: bool) -> MemOp<()> {
            let order = Order::Object { sem: Sem::Relaxed, scope: Scope::Cta };
            self.mbar(i, op, 90, Kind::Rmw, |_| order, |e, _| {
                let e = e.ok_or_else(not_initialized)?;
                let done = if complete { e.m.complete_tx(tx) } else { e.m.expect_tx(tx) }.map_err(rule_of)?;
                if done {
                    e.waited = false;
                }
                Ok((None, ((), e.m.phase, None)))
            })
        }

        /// The `complete_tx` of `tx` bytes of an asynchronous copy this lane issued: a release
        /// (what the copy wrote is visible to the waits that see the phase complete).
        #[track_caller]
        pub(crate) fn host_tx_release(&self, i: usize, op: &'static str, tx: u32) -> MemOp<()> {
            self.host_tx_release_scoped(i, op, tx, Scope::Cta)
        }

        /// The same, a release at `scope` (`red.async`/`st.async`: `.cluster`).
        #[track_caller]
        pub(crate) fn host_tx_release_scoped(&self, i: usize, op: &'static str, tx: u32, scope: Scope) -> MemOp<()> {
            let order = Order::Object { sem: Sem::Release, scope };
            self.mbar(i, op, 90, Kind::Rmw, |_| order, |e, _| {
                let e = e.ok_or_else(not_initialized)?;
                if e.m.complete_tx(tx).map_err(rule_of)? {
                    e.waited = false;
                }
                Ok((None, ((), e.m.phase, None)))
            })
        }

        /// `cp.async.mbarrier.arrive` without `.noinc`: the pending count goes up by one, and the
        /// arrive-on the system makes when the thread's earlier `cp.async`s complete (at once on
        /// the CPU, where they completed when issued) takes it down again: a release of the
        /// thread's copies, with no change to the phase.
        #[track_caller]
        pub(super) fn host_cp_async_arrive(&self, i: usize) -> MemOp<()> {
            let order = Order::Object { sem: Sem::Release, scope: Scope::Cta };
            self.mbar(i, "cp.async.mbarrier.arrive", 80, Kind::Rmw, |_| order, |e, _| {
                let e = e.ok_or_else(not_initialized)?;
                if e.m.pending >= crate::semantics::mbarrier::MAX_COUNT {
                    return Err((MbarrierRule::CountOutOfRange, format!("the pending count {} + 1 would leave its range", e.m.pending)));
                }
                Ok((None, ((), e.m.phase, None)))
            })
        }

        /// A wait (`test_wait`/`try_wait`, with a state or a parity).
        #[track_caller]
        pub(super) fn host_wait(&self, i: usize, op: &'static str, min: u32, on: WaitsFor, sem: WaitSem, scope: MbarScope) -> MemOp<bool> {
            let scope = Scope::from(scope);
            let acquire = if sem == WaitSem::Acquire { Sem::Acquire } else { Sem::Relaxed };
            // A wait that returns true acquires what the phase's arrivals released; one that
            // returns false orders nothing.
            let order = move |done: &bool| Order::Object { sem: if *done { acquire } else { Sem::Relaxed }, scope };
            self.mbar(i, op, min, Kind::Load, order, |e, site| {
                let e = e.ok_or_else(not_initialized)?;
                let done = match on {
                    WaitsFor::Parity(p) if p > 1 => return Err((MbarrierRule::BadParity, format!("parity {p}"))),
                    WaitsFor::Parity(p) => e.m.test_wait_parity(p),
                    WaitsFor::Phase(t) => e.m.test_wait(Token(t)).ok_or_else(|| {
                        let age = Token(t).age(e.m.phase);
                        (
                            MbarrierRule::StaleState,
                            format!(
                                "the state is of phase {}, {age} phases before the current phase {} (the GPU compares only the parity, and would answer for the wrong phase)",
                                e.m.phase - age,
                                e.m.phase
                            ),
                        )
                    })?,
                };
                if done {
                    e.waited = true;
                }
                let waits_for = match on {
                    WaitsFor::Phase(t) => WaitsFor::Phase(e.m.phase - Token(t).age(e.m.phase)),
                    p => p,
                };
                let view = MbarrierView { waits_for, phase: e.m.phase, pending: e.m.pending, expected: e.m.expected, tx: e.m.tx };
                let wait = MemWait { site, op, space: Space::Shared, index: i, value: e.m.phase, mbarrier: Some(view) };
                Ok((None, (done, e.m.phase, Some(wait))))
            })
        }
    }

    fn not_initialized() -> (MbarrierRule, String) {
        (MbarrierRule::NotInitialized, "no `mbarrier_init` of this element since the block started, or it was invalidated".into())
    }
}

// ---------------------------------------------------------------------------------------------
// The methods, on both targets
// ---------------------------------------------------------------------------------------------

impl SharedSlice<'_, u64> {
    /// `mbarrier.init.shared.b64`: makes element `i` an mbarrier expecting `count` arrivals per
    /// phase (`1 ..= 2^20 - 1`), in phase 0 with a tx-count of 0. Other threads must not use
    /// it before a barrier (`sync_threads`) orders the `init` before their use.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_init(&self, i: usize, count: u32) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_init(i, count)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::init(self.addr_of(i), count)
        }
    }

    /// `mbarrier.inval.shared.b64`: element `i` holds no mbarrier afterwards (it may be
    /// initialized again, or used as memory).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_inval(&self, i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_inval(i)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::inval(self.addr_of(i))
        }
    }

    /// `mbarrier.arrive.shared.b64 state, [addr]`: one arrival (`.release.cta`); returns the
    /// state of the phase arrived on.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive(&self, i: usize) -> Mem<MbarrierToken> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_arrive(i, "mbarrier.arrive", 80, 1, false, false, None, ArriveSem::Release, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            MbarrierToken(device::arrive(self.addr_of(i)))
        }
    }

    /// `mbarrier.arrive{.sem}{.scope}.shared.b64 state, [addr], count` (sm_90): `count`
    /// arrivals.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_with(&self, i: usize, count: u32, sem: ArriveSem, scope: MbarScope) -> Mem<MbarrierToken> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_arrive(i, "mbarrier.arrive", 90, count, false, false, None, sem, scope)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            MbarrierToken(device::arrive_with(self.addr_of(i), count, sem, scope))
        }
    }

    /// `mbarrier.arrive.noComplete.shared.b64 state, [addr], count`: `count` arrivals that must
    /// not complete the phase; its state gives [`MbarrierToken::pending_count`].
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_no_complete(&self, i: usize, count: u32) -> Mem<MbarrierToken> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_arrive(i, "mbarrier.arrive.noComplete", 80, count, true, false, None, ArriveSem::Release, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            MbarrierToken(device::arrive_no_complete(self.addr_of(i), count, false))
        }
    }

    /// `mbarrier.arrive_drop.shared.b64 state, [addr]`: one arrival, and one fewer expected
    /// in every later phase (a thread leaving the barrier's participants).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_drop(&self, i: usize) -> Mem<MbarrierToken> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_arrive(i, "mbarrier.arrive_drop", 80, 1, false, true, None, ArriveSem::Release, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            MbarrierToken(device::arrive_drop(self.addr_of(i)))
        }
    }

    /// `mbarrier.arrive_drop.noComplete.shared.b64 state, [addr], count`.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_drop_no_complete(&self, i: usize, count: u32) -> Mem<MbarrierToken> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_arrive(i, "mbarrier.arrive_drop.noComplete", 80, count, true, true, None, ArriveSem::Release, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            MbarrierToken(device::arrive_no_complete(self.addr_of(i), count, true))
        }
    }

    /// `mbarrier.arrive.expect_tx.shared.b64 state, [addr], txCount` (sm_90): adds `tx` to the
    /// tx-count, then one arrival.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_expect_tx(&self, i: usize, tx: u32) -> Mem<MbarrierToken> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_arrive(i, "mbarrier.arrive.expect_tx", 90, 1, false, false, Some(tx), ArriveSem::Release, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            MbarrierToken(device::arrive_expect_tx(self.addr_of(i), tx))
        }
    }

    /// `mbarrier.expect_tx.relaxed.cta.shared.b64 [addr], txCount` (sm_90): `tx` more bytes
    /// the current phase waits for.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_expect_tx(&self, i: usize, tx: u32) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_tx(i, "mbarrier.expect_tx", tx, false)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::expect_tx(self.addr_of(i), tx)
        }
    }

    /// `mbarrier.complete_tx.relaxed.cta.shared.b64 [addr], txCount` (sm_90): `tx` bytes
    /// arrived, as an asynchronous copy would signal.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_complete_tx(&self, i: usize, tx: u32) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_tx(i, "mbarrier.complete_tx", tx, true)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::complete_tx(self.addr_of(i), tx)
        }
    }

    /// `mbarrier.test_wait.shared.b64 waitComplete, [addr], state`: whether the phase of
    /// `state` has completed (`.acquire.cta`: true orders the arrivals' prior writes before
    /// what follows).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_test_wait(&self, i: usize, state: MbarrierToken) -> Mem<bool> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_wait(i, "mbarrier.test_wait", 80, WaitsFor::Phase(state.0), WaitSem::Acquire, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::test_wait(self.addr_of(i), state.0)
        }
    }

    /// `mbarrier.test_wait.parity.shared.b64 waitComplete, [addr], phaseParity`: whether the
    /// phase of parity `parity` (0 or 1) is the completed one before the current phase. PTX 7.1:
    /// on the GPU, in builds for sm_90 and later.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_test_wait_parity(&self, i: usize, parity: u32) -> Mem<bool> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_wait(i, "mbarrier.test_wait.parity", 80, WaitsFor::Parity(parity), WaitSem::Acquire, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::test_wait_parity(self.addr_of(i), parity)
        }
    }

    /// `mbarrier.try_wait.shared.b64 waitComplete, [addr], state` (sm_90): as `test_wait`, but
    /// the GPU may suspend the thread a while before answering false.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_try_wait(&self, i: usize, state: MbarrierToken) -> Mem<bool> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_wait(i, "mbarrier.try_wait", 90, WaitsFor::Phase(state.0), WaitSem::Acquire, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::try_wait(self.addr_of(i), state.0)
        }
    }

    /// `mbarrier.try_wait.shared.b64 waitComplete, [addr], state, suspendTimeHint` (sm_90): as
    /// [`mbarrier_try_wait`](Self::mbarrier_try_wait), with `hint_ns` nanoseconds as the time
    /// limit the GPU may suspend the thread for instead of its own. On the CPU the wait answers at
    /// once, as `try_wait` may: the hint has no CPU effect.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_try_wait_hint(&self, i: usize, state: MbarrierToken, hint_ns: u32) -> Mem<bool> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let _ = hint_ns;
            self.host_wait(i, "mbarrier.try_wait (suspendTimeHint)", 90, WaitsFor::Phase(state.0), WaitSem::Acquire, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::try_wait_hint(self.addr_of(i), state.0, hint_ns)
        }
    }

    /// `mbarrier.try_wait.parity.shared.b64 waitComplete, [addr], phaseParity, suspendTimeHint`
    /// (sm_90): [`mbarrier_try_wait_parity`](Self::mbarrier_try_wait_parity) with a time hint
    /// (no CPU effect, as for [`mbarrier_try_wait_hint`](Self::mbarrier_try_wait_hint)).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_try_wait_parity_hint(&self, i: usize, parity: u32, hint_ns: u32) -> Mem<bool> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let _ = hint_ns;
            self.host_wait(i, "mbarrier.try_wait.parity (suspendTimeHint)", 90, WaitsFor::Parity(parity), WaitSem::Acquire, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::try_wait_parity_hint(self.addr_of(i), parity, hint_ns)
        }
    }

    /// `mbarrier.try_wait.parity.shared.b64 waitComplete, [addr], phaseParity` (sm_90).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_try_wait_parity(&self, i: usize, parity: u32) -> Mem<bool> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_wait(i, "mbarrier.try_wait.parity", 90, WaitsFor::Parity(parity), WaitSem::Acquire, MbarScope::Cta)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::try_wait_parity(self.addr_of(i), parity, WaitSem::Acquire, MbarScope::Cta)
        }
    }

    /// `mbarrier.try_wait.parity{.sem}{.scope}.shared.b64` (sm_90).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_try_wait_parity_with(&self, i: usize, parity: u32, sem: WaitSem, scope: MbarScope) -> Mem<bool> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.host_wait(i, "mbarrier.try_wait.parity", 90, WaitsFor::Parity(parity), sem, scope)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::try_wait_parity(self.addr_of(i), parity, sem, scope)
        }
    }
}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
impl SharedSlice<'_, u64> {
    /// `cp.async.mbarrier.arrive.shared.b64 [addr]` (sm_80): the mbarrier at element `i` tracks
    /// this thread's earlier [`cp_async`](SharedSlice::cp_async)s: its pending count goes up by
    /// one now and down by one (an arrive-on) when they complete, so the phase cannot complete
    /// before they do, and the count `init` gave is unchanged.
    #[inline(always)]
    #[track_caller]
    pub fn cp_async_mbarrier_arrive(&self, i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            // The thread's copies complete, then their arrive-on.
            self.arena().copy_group(false, None);
            self.host_cp_async_arrive(i)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::cp_async_arrive(self.addr_of(i), false)
        }
    }

    /// `cp.async.mbarrier.arrive.noinc.shared.b64 [addr]` (sm_80): an arrive-on of the mbarrier
    /// at element `i` when this thread's earlier `cp_async`s complete, which `init`'s count must
    /// include.
    #[inline(always)]
    #[track_caller]
    pub fn cp_async_mbarrier_arrive_noinc(&self, i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            // The thread's copies complete, then their arrive-on (one per thread: the system
            // makes each thread's on its own).
            self.arena().copy_group(false, None);
            let m = self.host_arrive(i, "cp.async.mbarrier.arrive.noinc", 80, 1, false, false, None, ArriveSem::Release, MbarScope::Cta);
            m.map(|_| ())
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::cp_async_arrive(self.addr_of(i), true)
        }
    }
}

impl<T: crate::GlobalValue> SharedSlice<'_, T> {
    /// `cp.async.ca.shared.global [dst], [src], cp-size` (sm_80): copies `N` elements of `src`
    /// from `src_i` to this array from `dst`, asynchronously; `N` elements are 4, 8 or 16 bytes
    /// (a compile error otherwise), and both addresses must be aligned to that size. The copy
    /// completes by `cp_async_wait_group`/`cp_async_wait_all` of the thread that issued it, or,
    /// for other threads, through an mbarrier that tracks it
    /// ([`cp_async_mbarrier_arrive`](SharedSlice::cp_async_mbarrier_arrive)).
    ///
    /// On the CPU the source is read when the copy is issued and the destination written when
    /// the issuing thread waits for it (`cp_async_wait_group`/`_wait_all`, or a
    /// `cp_async_mbarrier_arrive` that tracks it), as that thread's write: a thread that reads
    /// the destination before that sees the old contents (or an uninitialized read is reported),
    /// and a read by another thread that no wait and barrier order after it is a race. A copy no
    /// wait completes is never written.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    #[inline(always)]
    #[track_caller]
    pub fn cp_async<const N: usize>(&self, dst: usize, src: crate::GlobalSlice<'_, T>, src_i: usize) -> Mem<()> {
        const { assert!(matches!(N * T::BYTES, 4 | 8 | 16), "cp.async copies 4, 8 or 16 bytes: N elements of T must be one of these") };
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let op = "cp.async.ca.shared.global";
            host::gate(op, 80);
            let size = N * T::BYTES;
            let dst_at = self.byte_offset(op, dst);
            let src_at = src.buffer_index(src_i) * T::BYTES;
            if dst_at % size != 0 || src_at % size != 0 {
                host::fault(MbarrierRule::CopyAlignment, op, None, format!("{size} bytes from byte {src_at} of the global buffer to byte {dst_at} of shared memory"));
            }
            let _ = self.byte_offset(op, dst + N - 1);
            // The source is read now; the destination is written when the thread waits for the
            // copy (`cp_async_wait_group`/`_wait_all`, or a tracking mbarrier arrival).
            for k in 0..N {
                let v = src.load(src_i + k);
                let at = self.byte_offset(op, dst + k);
                self.arena().defer_copy(at, T::BYTES, v.to_bits128(), dst + k, std::panic::Location::caller());
            }
            crate::mem::MemOp::new((), op, crate::mem::Space::Shared, dst, 0, std::panic::Location::caller())
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            let _ = self.addr_of(dst + N - 1);
            let (d, s) = (self.addr_of(dst), src.dev_addr_of(src_i, N));
            match N * T::BYTES {
                4 => device::cp_async::<4>(d, s),
                8 => device::cp_async::<8>(d, s),
                _ => device::cp_async::<16>(d, s),
            }
        }
    }

    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], size,
    /// [mbar]` (sm_90): copies `len` elements of `src` from `src_start` to this array from `dst`,
    /// asynchronously, and completes their bytes on the mbarrier at element `bar_i` of `bar`
    /// (announce them first with `mbarrier_arrive_expect_tx`). Both addresses must be 16-byte
    /// aligned and the size a multiple of 16 bytes; the copy's writes are visible to a thread
    /// once its wait on the barrier's phase returns true.
    ///
    /// On the CPU the copy happens at once, as writes of the issuing thread, and its bytes
    /// complete on the barrier with release semantics: a wait that returns true orders them
    /// before what follows, and a read of the stage that no wait orders is a race.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn cp_async_bulk(&self, dst: usize, src: crate::GlobalSlice<'_, T>, src_start: usize, len: usize, bar: SharedSlice<'_, u64>, bar_i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let op = "cp.async.bulk.shared::cluster.global";
            host::gate(op, 90);
            let bytes = len * T::BYTES;
            let dst_at = self.byte_offset(op, dst) as u64;
            let src_at = (src.buffer_index(src_start) * T::BYTES) as u64;
            if bytes == 0 || bytes % 16 != 0 || dst_at % 16 != 0 || src_at % 16 != 0 {
                host::fault(
                    MbarrierRule::BulkCopyAlignment,
                    op,
                    None,
                    format!("{bytes} bytes from byte {src_at} of the global buffer to byte {dst_at} of shared memory"),
                );
            }
            for k in 0..len {
                let v = src.load(src_start + k);
                self.write("cp.async.bulk (write)", dst + k, v, crate::race::Order::Weak);
            }
            bar.host_tx_release(bar_i, "cp.async.bulk (complete_tx)", bytes as u32)
        }
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            device::cp_async_bulk(self.addr_of(dst), src.dev_addr_of(src_start, len), (len * T::BYTES) as u32, bar.addr_of(bar_i))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Device
// ---------------------------------------------------------------------------------------------

#[cfg(target_arch = "nvptx64")]
#[cfg_attr(not(target_feature = "sm_90"), allow(dead_code))]
mod device {
    use core::arch::asm;

    use super::{ArriveSem, MbarScope, WaitSem};

    /// `op` with predicate result `%p` moved into a `u32`.
    macro_rules! pred {
        ($s:expr, $($args:tt)*) => {{
            let d: u32;
            asm!("{{", ".reg .pred %p;", $s, "selp.u32 {d}, 1, 0, %p;", "}}", d = out(reg32) d, $($args)* options(nostack));
            d != 0
        }};
    }

    #[inline(always)]
    pub(super) unsafe fn init(a: u64, count: u32) {
        asm!("mbarrier.init.shared.b64 [{a}], {c};", a = in(reg64) a, c = in(reg32) count, options(nostack))
    }

    #[inline(always)]
    pub(super) unsafe fn inval(a: u64) {
        asm!("mbarrier.inval.shared.b64 [{a}];", a = in(reg64) a, options(nostack))
    }

    #[inline(always)]
    pub(super) unsafe fn arrive(a: u64) -> u64 {
        let s: u64;
        asm!("mbarrier.arrive.shared.b64 {s}, [{a}];", s = out(reg64) s, a = in(reg64) a, options(nostack));
        s
    }

    #[inline(always)]
    pub(super) unsafe fn arrive_drop(a: u64) -> u64 {
        let s: u64;
        asm!("mbarrier.arrive_drop.shared.b64 {s}, [{a}];", s = out(reg64) s, a = in(reg64) a, options(nostack));
        s
    }

    #[inline(always)]
    pub(super) unsafe fn arrive_no_complete(a: u64, count: u32, drop: bool) -> u64 {
        let s: u64;
        if drop {
            asm!("mbarrier.arrive_drop.noComplete.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack));
        } else {
            asm!("mbarrier.arrive.noComplete.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack));
        }
        s
    }

    #[inline(always)]
    pub(super) unsafe fn arrive_with(a: u64, count: u32, sem: ArriveSem, scope: MbarScope) -> u64 {
        let s: u64;
        match (sem, scope) {
            (ArriveSem::Release, MbarScope::Cta) => {
                asm!("mbarrier.arrive.release.cta.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack))
            }
            (ArriveSem::Release, MbarScope::Cluster) => {
                asm!("mbarrier.arrive.release.cluster.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack))
            }
            #[cfg(target_feature = "ptx86")]
            (ArriveSem::Relaxed, MbarScope::Cta) => {
                asm!("mbarrier.arrive.relaxed.cta.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack))
            }
            #[cfg(target_feature = "ptx86")]
            (ArriveSem::Relaxed, MbarScope::Cluster) => {
                asm!("mbarrier.arrive.relaxed.cluster.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack))
            }
            // `.relaxed` needs PTX 8.6; before it `.release`, which orders more.
            #[cfg(not(target_feature = "ptx86"))]
            (ArriveSem::Relaxed, MbarScope::Cta) => {
                asm!("mbarrier.arrive.release.cta.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack))
            }
            #[cfg(not(target_feature = "ptx86"))]
            (ArriveSem::Relaxed, MbarScope::Cluster) => {
                asm!("mbarrier.arrive.release.cluster.shared.b64 {s}, [{a}], {c};", s = out(reg64) s, a = in(reg64) a, c = in(reg32) count, options(nostack))
            }
        }
        s
    }

    #[inline(always)]
    pub(super) unsafe fn arrive_expect_tx(a: u64, tx: u32) -> u64 {
        let s: u64;
        asm!("mbarrier.arrive.expect_tx.shared.b64 {s}, [{a}], {t};", s = out(reg64) s, a = in(reg64) a, t = in(reg32) tx, options(nostack));
        s
    }

    #[inline(always)]
    pub(super) unsafe fn expect_tx(a: u64, tx: u32) {
        asm!("mbarrier.expect_tx.relaxed.cta.shared.b64 [{a}], {t};", a = in(reg64) a, t = in(reg32) tx, options(nostack))
    }

    #[inline(always)]
    pub(super) unsafe fn complete_tx(a: u64, tx: u32) {
        asm!("mbarrier.complete_tx.relaxed.cta.shared.b64 [{a}], {t};", a = in(reg64) a, t = in(reg32) tx, options(nostack))
    }

    #[inline(always)]
    pub(super) unsafe fn test_wait(a: u64, state: u64) -> bool {
        pred!("mbarrier.test_wait.shared.b64 %p, [{a}], {s};", a = in(reg64) a, s = in(reg64) state,)
    }

    #[inline(always)]
    pub(super) unsafe fn test_wait_parity(a: u64, parity: u32) -> bool {
        pred!("mbarrier.test_wait.parity.shared.b64 %p, [{a}], {p};", a = in(reg64) a, p = in(reg32) parity,)
    }

    #[inline(always)]
    pub(super) unsafe fn try_wait(a: u64, state: u64) -> bool {
        pred!("mbarrier.try_wait.shared.b64 %p, [{a}], {s};", a = in(reg64) a, s = in(reg64) state,)
    }

    #[inline(always)]
    pub(super) unsafe fn try_wait_hint(a: u64, state: u64, hint: u32) -> bool {
        pred!("mbarrier.try_wait.shared.b64 %p, [{a}], {s}, {h};", a = in(reg64) a, s = in(reg64) state, h = in(reg32) hint,)
    }

    #[inline(always)]
    pub(super) unsafe fn try_wait_parity_hint(a: u64, parity: u32, hint: u32) -> bool {
        pred!("mbarrier.try_wait.parity.shared.b64 %p, [{a}], {p}, {h};", a = in(reg64) a, p = in(reg32) parity, h = in(reg32) hint,)
    }

    #[inline(always)]
    pub(super) unsafe fn try_wait_parity(a: u64, parity: u32, sem: WaitSem, scope: MbarScope) -> bool {
        match (sem, scope) {
            (WaitSem::Acquire, MbarScope::Cta) => pred!("mbarrier.try_wait.parity.acquire.cta.shared.b64 %p, [{a}], {p};", a = in(reg64) a, p = in(reg32) parity,),
            (WaitSem::Acquire, MbarScope::Cluster) => pred!("mbarrier.try_wait.parity.acquire.cluster.shared.b64 %p, [{a}], {p};", a = in(reg64) a, p = in(reg32) parity,),
            #[cfg(target_feature = "ptx86")]
            (WaitSem::Relaxed, MbarScope::Cta) => pred!("mbarrier.try_wait.parity.relaxed.cta.shared.b64 %p, [{a}], {p};", a = in(reg64) a, p = in(reg32) parity,),
            #[cfg(target_feature = "ptx86")]
            (WaitSem::Relaxed, MbarScope::Cluster) => pred!("mbarrier.try_wait.parity.relaxed.cluster.shared.b64 %p, [{a}], {p};", a = in(reg64) a, p = in(reg32) parity,),
            // `.relaxed` needs PTX 8.6; before it `.acquire`, which orders more.
            #[cfg(not(target_feature = "ptx86"))]
            (WaitSem::Relaxed, MbarScope::Cta) => pred!("mbarrier.try_wait.parity.acquire.cta.shared.b64 %p, [{a}], {p};", a = in(reg64) a, p = in(reg32) parity,),
            #[cfg(not(target_feature = "ptx86"))]
            (WaitSem::Relaxed, MbarScope::Cluster) => pred!("mbarrier.try_wait.parity.acquire.cluster.shared.b64 %p, [{a}], {p};", a = in(reg64) a, p = in(reg32) parity,),
        }
    }

    #[inline(always)]
    pub(super) unsafe fn cp_async_bulk(dst: u64, src: u64, bytes: u32, bar: u64) {
        asm!(
            "{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {s};",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [{d}], [%ga], {n}, [{b}];", "}}",
            d = in(reg64) dst, s = in(reg64) src, n = in(reg32) bytes, b = in(reg64) bar, options(nostack)
        )
    }

    #[cfg_attr(not(target_feature = "sm_80"), allow(dead_code))]
    #[inline(always)]
    pub(super) unsafe fn cp_async<const SIZE: usize>(dst: u64, src: u64) {
        asm!(
            "{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {s};",
            "cp.async.ca.shared.global [{d}], [%ga], {n};", "}}",
            d = in(reg64) dst, s = in(reg64) src, n = const SIZE, options(nostack)
        )
    }

    #[cfg_attr(not(target_feature = "sm_80"), allow(dead_code))]
    #[inline(always)]
    pub(super) unsafe fn cp_async_arrive(bar: u64, noinc: bool) {
        if noinc {
            asm!("cp.async.mbarrier.arrive.noinc.shared.b64 [{b}];", b = in(reg64) bar, options(nostack))
        } else {
            asm!("cp.async.mbarrier.arrive.shared.b64 [{b}];", b = in(reg64) bar, options(nostack))
        }
    }

    #[inline(always)]
    pub(super) fn pending_count(state: u64) -> u32 {
        let d: u32;
        // SAFETY: reads only registers.
        unsafe { asm!("mbarrier.pending_count.b64 {d}, {s};", d = out(reg32) d, s = in(reg64) state, options(pure, nomem, nostack)) };
        d
    }
}
