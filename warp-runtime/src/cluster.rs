//! Thread block clusters (sm_90): the cluster registers, `barrier.cluster`, distributed shared
//! memory (`mapa`, `ld`/`st`/`atom` on `.shared::cluster`), the remote mbarrier arrive, and
//! `red.async`/`st.async` into a peer block's shared memory (PTX ISA 9.7.13.3, 9.7.13.7,
//! 9.7.13.15.13), on both targets.
//!
//! A launch with a cluster shape ([`Grid::cluster`](crate::Grid::cluster), CUDA's
//! `cudaLaunchAttributeClusterDimension`) groups its blocks into clusters that run together: on
//! the CPU runtime every block of a cluster is resident at once, on one CPU thread, as a GPU
//! schedules a cluster on one GPC. A block reads its place with [`Warp::cluster_ctarank`],
//! [`Warp::cluster_nctarank`], [`Warp::clusterid`], [`Warp::cluster_ctaid`] and the others, and
//! another block's shared memory through [`SharedSlice::map_shared_rank`] (CUDA's
//! `cluster.map_shared_rank`), which gives a [`DsmemSlice`].
//!
//! ```
//! use warp_runtime::{Grid, Warp};
//!
//! // Each of 4 blocks of a cluster publishes its rank; after the cluster barrier every block
//! // reads its right-hand neighbour's through distributed shared memory.
//! let out = Grid::blocks(4, 32)
//!     .cluster(4)
//!     .executor(warp_runtime::Executor::new().target("sm_90".parse().unwrap()))
//!     .map(async |w: &Warp<'_>| {
//!         let mine = w.shared_array::<u32, 1>();
//!         if w.thread_rank() == 0 {
//!             mine.store(0, 10 * w.cluster_ctarank());
//!         }
//!         w.cluster_sync().await;
//!         let right = mine.map_shared_rank((w.cluster_ctarank() + 1) % w.cluster_nctarank());
//!         let v = right.load(0);
//!         w.cluster_sync().await; // no block exits while another may still read its memory
//!         v
//!     })
//!     .unwrap();
//! assert_eq!([out[0], out[32], out[64], out[96]], [10, 20, 30, 0]);
//! ```
//!
//! | method | instruction | target |
//! |---|---|---|
//! | `cluster_ctarank`, `cluster_nctarank`, `clusterid`, `nclusterid`, `cluster_ctaid`, `cluster_nctaid`, `is_explicit_cluster` | `%cluster_ctarank`, ... | sm_90 |
//! | `barrier_cluster_arrive` / `_relaxed` / `_aligned` / `_relaxed_aligned` | `barrier.cluster.arrive{.relaxed}{.aligned}` | sm_90 |
//! | `barrier_cluster_wait` / `_aligned` | `barrier.cluster.wait{.aligned}` | sm_90 |
//! | `cluster_sync` | `barrier.cluster.arrive` + `barrier.cluster.wait` | sm_90 |
//! | `SharedSlice::map_shared_rank(rank)` | `mapa.shared::cluster.u64` | sm_90 |
//! | `DsmemSlice::load` / `store` | `ld.shared::cluster` / `st.shared::cluster` | sm_90 |
//! | `DsmemSlice::atomic_*`, `red_*` (every scalar form of `SharedSlice`) | `atom.shared::cluster`, `red.shared::cluster` | sm_90 |
//! | `DsmemSlice::mbarrier_arrive_cluster(i)`, `mbarrier_arrive_expect_tx_cluster(i, tx)` | `mbarrier.arrive{.expect_tx}.release.cluster.shared::cluster.b64 _, [a]` | sm_90 |
//! | `DsmemSlice::mbarrier_arrive_cluster_with(i, n, sem, scope)`, `mbarrier_arrive_drop_cluster_with` | `mbarrier.arrive{_drop}{.sem}{.scope}.shared::cluster.b64 _, [a], n` | sm_90 |
//! | `DsmemSlice::mbarrier_expect_tx_cluster(i, tx)`, `mbarrier_complete_tx_cluster(i, tx)` | `mbarrier.{expect,complete}_tx.relaxed.cluster.shared::cluster.b64` | sm_90 |
//! | `DsmemSlice::red_async_add`/`_min`/`_max`/`_inc`/`_dec`/`_and`/`_or`/`_xor` | `red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes` | sm_90 |
//! | `DsmemSlice::st_async(i, v, bar, bar_i)` | `st.async.shared::cluster.mbarrier::complete_tx::bytes.b32`/`.b64` | sm_90 |
//!
//! # What the CPU runtime checks
//!
//! Each as [`WarpError::Memory`](crate::WarpError::Memory) with
//! [`LaneFault::Cluster`](crate::mem::LaneFault::Cluster) and its [`ClusterRule`]: a thread that
//! arrives twice at `barrier.cluster` before it completes; a wait by a thread that has not
//! arrived (it waits for every non-exited thread of the cluster, itself included); lanes of one
//! warp at different `.aligned` arrivals; a `mapa` rank outside the cluster; an access to the
//! shared memory of a block that has exited; a `red.async`/`st.async` whose destination and
//! mbarrier are in different blocks, or in the executing thread's own block. A cluster barrier
//! that can never complete ends the launch as a forward-progress report showing each waiting
//! lane at `barrier.cluster.wait`. The race detector sees distributed shared memory as the
//! owning block's shared memory (accesses from any block of the cluster), `.cluster` scope as
//! the blocks of one cluster, `barrier.cluster.arrive` (`.release` unless `.relaxed`) and `wait`
//! (`.acquire`) as a release and an acquire, and the complete-tx of `red.async`/`st.async` as a
//! `.release.cluster` operation on the mbarrier, as 9.7.13.7 says.
//!
//! `barrier.cluster.arrive` also waits for the other non-exited lanes of the warp to arrive
//! ("cause the executing thread to wait for all non-exited threads from its warp"): a lane that
//! never arrives leaves its warp-mates waiting, reported as a forward-progress deadlock. (The wait
//! of `barrier.cluster.wait` for its warp is implied: the cluster's phase needs every lane.)

#[cfg(not(target_arch = "nvptx64"))]
use core::cell::{Cell, RefCell};

use crate::global::GlobalValue;
#[cfg_attr(all(target_arch = "nvptx64", not(target_feature = "sm_90")), allow(unused_imports))]
use crate::shared::{Mem, SharedSlice};

/// The undefined or hanging uses of clusters the CPU runtime reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClusterRule {
    /// A thread arrived at `barrier.cluster` a second time before the barrier completed.
    ArriveTwice,
    /// `barrier.cluster.wait` by a thread with no arrival of its own pending: it waits for every
    /// non-exited thread of the cluster to arrive, itself included, so it never returns.
    WaitWithoutArrive,
    /// Lanes of one warp executed different `barrier.cluster.arrive.aligned` instructions.
    AlignedDiverged,
    /// `mapa` with a CTA rank that is not in the cluster.
    RankOutOfRange,
    /// An access to the shared memory of a block of the cluster that has exited.
    PeerExited,
    /// `red.async`/`st.async` with its destination and its mbarrier in different blocks.
    AsyncDifferentCtas,
    /// `red.async`/`st.async` into the executing thread's own block.
    AsyncOwnCta,
    /// `clusterlaunchcontrol.try_cancel` by a block that has seen one fail.
    TryCancelAfterFailure,
    /// `clusterlaunchcontrol.query_cancel.get_first_ctaid` of a failed response.
    FirstCtaidOfFailure,
}

impl ClusterRule {
    /// The rule, quoted from the PTX ISA (or the CUDA C++ Programming Guide, where it says so).
    pub fn quote(self) -> &'static str {
        match self {
            ClusterRule::ArriveTwice => "PTX ISA 9.7.13.3: \"Each thread must arrive at the barrier only once before the barrier completes.\"",
            ClusterRule::WaitWithoutArrive => {
                "PTX ISA 9.7.13.3: \"barrier.cluster.wait instruction causes the executing thread to wait for all non-exited threads of the cluster to perform barrier.cluster.arrive.\""
            }
            ClusterRule::AlignedDiverged => {
                "PTX ISA 9.7.13.3: \"The optional .aligned qualifier indicates that all threads in the warp must execute the same barrier.cluster instruction.\""
            }
            ClusterRule::RankOutOfRange => "mapa's CTA rank must name a block of the cluster: 0 ..= %cluster_nctarank - 1",
            ClusterRule::PeerExited => {
                "CUDA C++ Programming Guide, Distributed Shared Memory: all distributed shared memory operations must happen before a thread block exits (cluster.sync() before the exit)"
            }
            ClusterRule::AsyncDifferentCtas => {
                "PTX ISA 9.7.13.7: \"The shared-memory addresses of the destination operand a and the mbarrier operand mbar must meet all of the following conditions: They belong to the same CTA. [...] Otherwise, the behavior is undefined.\""
            }
            ClusterRule::TryCancelAfterFailure => {
                "PTX ISA 9.7.13.17: \"If the executing CTA has already observed the completion of a clusterlaunchcontrol.try_cancel instruction as failed, then the behavior of issuing a subsequent clusterlaunchcontrol.try_cancel instruction is undefined.\""
            }
            ClusterRule::FirstCtaidOfFailure => {
                "PTX ISA 9.7.13.18: \"If the request fails the behavior of clusterlaunchcontrol.query_cancel.get_first_ctaid is undefined.\""
            }
            ClusterRule::AsyncOwnCta => {
                "PTX ISA 9.7.13.7: \"The CTA to which they belong is different from the CTA of the executing thread, but must be within the same cluster. Otherwise, the behavior is undefined.\""
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Host: a block's link to its cluster, and the cluster barrier.
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::{arrive, wait, ClusterLink};
#[cfg(not(target_arch = "nvptx64"))]
pub use host::{ClusterArrive, ClusterWait, GridDepWait};

/// What the `barrier_cluster_arrive*` methods return: on the host a future (the arrival, then a
/// wait for the warp's other non-exited lanes to arrive too), which `#[warp_kernel]` awaits; on
/// the GPU nothing.
#[cfg(not(target_arch = "nvptx64"))]
pub type Arrive = ClusterArrive;
/// What the `barrier_cluster_arrive*` methods return: on the GPU nothing.
#[cfg(target_arch = "nvptx64")]
pub type Arrive = ();
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::grid_dependency_wait;

/// What `barrier_cluster_wait` and `cluster_sync` return: on the host a future (a scheduling
/// point each time the barrier has not completed, which `#[warp_kernel]` awaits), on the GPU
/// nothing.
#[cfg(not(target_arch = "nvptx64"))]
pub type Wait = ClusterWait;
/// What `barrier_cluster_wait` and `cluster_sync` return: on the GPU nothing.
#[cfg(target_arch = "nvptx64")]
pub type Wait = ();

/// What `griddepcontrol_wait` returns: on the host a future that suspends the lane until the
/// primary grid of its programmatic dependent launch has completed (at once outside one), which
/// `#[warp_kernel]` awaits; on the GPU nothing.
#[cfg(not(target_arch = "nvptx64"))]
pub type GridWait = host::GridDepWait;
/// What `griddepcontrol_wait` returns: on the GPU nothing.
#[cfg(target_arch = "nvptx64")]
pub type GridWait = ();

#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::block::BlockCtx;
    use crate::error::{MemWait, Site};
    use crate::mem::{self, LaneFault, MemOp, Space};
    use crate::warp::Regs;

    /// A block's place in its cluster. Invariant: the driver that sets the pointers keeps the
    /// contexts and registers alive, unmoved, while any registers of the cluster exist.
    pub(crate) struct ClusterLink {
        /// The contexts of the cluster's blocks, by rank (null: the block alone).
        group: Cell<(*const BlockCtx, usize)>,
        rank: Cell<u32>,
        /// The block's warps' registers.
        warps: Cell<(*const Regs, usize)>,
        /// Whether every warp of the block has returned.
        pub(crate) done: Cell<bool>,
        /// The cluster barrier (in the context of rank 0).
        bar: RefCell<ClusterBarrier>,
        /// The launch's `clusterlaunchcontrol.try_cancel`: takes the next cluster that has not
        /// started and returns its first block's index. Invariant: the driver that sets it
        /// keeps it alive while any block of the launch runs.
        cancel: Cell<Option<*const (dyn Fn() -> Option<u64> + 'static)>>,
        /// The block saw a `try_cancel` fail (`query_cancel`), after which another is undefined.
        pub(crate) cancel_failed: Cell<bool>,
        /// In a programmatic dependent launch's primary grid: the block has triggered the
        /// dependent (or completed).
        pub(crate) pdl_triggered: Cell<bool>,
    }

    impl Default for ClusterLink {
        fn default() -> Self {
            ClusterLink {
                group: Cell::new((core::ptr::null(), 0)),
                rank: Cell::new(0),
                warps: Cell::new((core::ptr::null(), 0)),
                done: Cell::new(false),
                bar: RefCell::new(ClusterBarrier::default()),
                cancel: Cell::new(None),
                cancel_failed: Cell::new(false),
                pdl_triggered: Cell::new(false),
            }
        }
    }

    impl ClusterLink {
        /// A new block in this context: rank `rank` of the cluster whose contexts are `group`,
        /// with warps `warps`.
        pub(crate) fn start(&self, group: &[BlockCtx], rank: u32, warps: &[Regs]) {
            self.group.set((group.as_ptr(), group.len()));
            self.rank.set(rank);
            self.warps.set((warps.as_ptr(), warps.len()));
            self.done.set(false);
            self.cancel_failed.set(false);
            self.pdl_triggered.set(false);
            if rank == 0 {
                // Sized at its first use: a launch that never uses it allocates nothing.
                self.bar.borrow_mut().sized = false;
            }
        }

        /// Sets the launch's cancellation (see `cancel`).
        pub(crate) fn set_cancel(&self, cancel: &(dyn Fn() -> Option<u64> + '_)) {
            // SAFETY of the lifetime: the invariant of `cancel`; it is only called while a block
            // of the launch runs.
            let p: *const (dyn Fn() -> Option<u64> + '_) = cancel;
            self.cancel.set(Some(unsafe { core::mem::transmute::<*const (dyn Fn() -> Option<u64> + '_), *const (dyn Fn() -> Option<u64> + 'static)>(p) }));
        }

        /// Forgets the launch's cancellation (the driver's closure is about to go).
        pub(crate) fn clear_cancel(&self) {
            self.cancel.set(None);
        }

        /// Cancels the next cluster that has not started: its first block's index.
        pub(crate) fn cancel_next(&self) -> Option<u64> {
            // SAFETY: the invariant of `cancel`.
            self.cancel.get().and_then(|f| unsafe { (*f)() })
        }

        /// The cluster's blocks (`me` alone outside a cluster launch).
        pub(crate) fn group<'a>(&self, me: &'a BlockCtx) -> &'a [BlockCtx] {
            match self.group.get() {
                (p, n) if !p.is_null() => {
                    // SAFETY: the invariant of `ClusterLink`.
                    unsafe { core::slice::from_raw_parts(p, n) }
                }
                _ => core::slice::from_ref(me),
            }
        }

        /// The block's rank in its cluster.
        pub(crate) fn rank(&self) -> u32 {
            self.rank.get()
        }

        fn warps(&self) -> &[Regs] {
            match self.warps.get() {
                // SAFETY: the invariant of `ClusterLink`.
                (p, n) if !p.is_null() => unsafe { core::slice::from_raw_parts(p, n) },
                _ => &[],
            }
        }
    }

    /// `barrier.cluster`'s state: its phase, who arrived in it, and what they released.
    #[derive(Default)]
    struct ClusterBarrier {
        phase: u32,
        /// Warps per block.
        wpb: usize,
        /// Per warp of the cluster (rank * wpb + warp): the lanes that arrived in this phase.
        arrived: Vec<u32>,
        /// Per warp: the instruction and step of an `.aligned` arrival in this phase.
        aligned: Vec<Option<(Site, u64)>>,
        /// Per thread: 1 + the phase of its last arrival not yet waited for (0: none).
        pending: Vec<u32>,
        /// The race detector's join of the releasing arrivals.
        join: crate::race::ClusterJoin,
        /// Whether it is sized for the current cluster (a new cluster resets it at its first use).
        sized: bool,
    }

    impl ClusterBarrier {
        fn reset(&mut self, blocks: usize, wpb: usize) {
            self.phase = 0;
            self.wpb = wpb;
            self.arrived.clear();
            self.arrived.resize(blocks * wpb, 0);
            self.aligned.clear();
            self.aligned.resize(blocks * wpb, None);
            self.pending.clear();
            self.pending.resize(blocks * wpb * 32, 0);
            self.join.reset();
            self.sized = true;
        }

        /// Completes the phase if every non-exited thread of the cluster has arrived.
        fn try_complete(&mut self, group: &[BlockCtx]) {
            for (r, ctx) in group.iter().enumerate() {
                if ctx.cluster.done.get() {
                    continue;
                }
                for (w, regs) in ctx.cluster.warps().iter().enumerate() {
                    if regs.live_lanes() & !self.arrived[r * self.wpb + w] != 0 {
                        return;
                    }
                }
            }
            self.phase = self.phase.wrapping_add(1);
            self.arrived.iter_mut().for_each(|a| *a = 0);
            self.aligned.iter_mut().for_each(|a| *a = None);
            self.join.complete();
            mem::wrote();
        }
    }

    #[cold]
    #[track_caller]
    pub(super) fn fault(rule: ClusterRule, op: &'static str, detail: String) -> ! {
        fault_at(rule, op, detail, std::panic::Location::caller())
    }

    #[cold]
    fn fault_at(rule: ClusterRule, op: &'static str, detail: String, site: Site) -> ! {
        mem::fault(LaneFault::Cluster { rule, op, detail, site })
    }

    /// Reports `op` below sm_90.
    #[track_caller]
    pub(super) fn gate(op: &'static str) {
        crate::ordered::gate(op, 90)
    }

    /// The running lane's block, its cluster's blocks and its thread's warp slot in the cluster.
    fn here() -> Option<(&'static Regs, u32, &'static BlockCtx, &'static [BlockCtx], usize)> {
        let (regs, lane) = mem::current()?;
        let ctx = regs.block();
        let group = ctx.cluster.group(ctx);
        let slot = ctx.cluster.rank() as usize * ctx.cluster.warps().len().max(1) + regs.pos().warp_in_block as usize;
        Some((regs, lane, ctx, group, slot))
    }

    /// The cluster barrier, sized for a one-block run that did not size it.
    fn barrier<'a>(group: &'a [BlockCtx], ctx: &BlockCtx, regs: &Regs) -> core::cell::RefMut<'a, ClusterBarrier> {
        let mut bar = group[0].cluster.bar.borrow_mut();
        if !bar.sized {
            let wpb = ctx.cluster.warps().len().max(regs.pos().warps_in_block as usize).max(1);
            bar.reset(group.len(), wpb);
        }
        bar
    }

    /// `barrier.cluster.arrive{.relaxed}{.aligned}` by the running lane: see [`ClusterArrive`].
    #[track_caller]
    pub(crate) fn arrive(release: bool, aligned: bool) -> ClusterArrive {
        let op = match (release, aligned) {
            (true, false) => "barrier.cluster.arrive",
            (false, false) => "barrier.cluster.arrive.relaxed",
            (true, true) => "barrier.cluster.arrive.aligned",
            (false, true) => "barrier.cluster.arrive.relaxed.aligned",
        };
        gate(op);
        ClusterArrive { site: std::panic::Location::caller(), op, release, aligned, phase: None }
    }

    /// `barrier.cluster.arrive`: the lane arrives at its first poll, then, as the instruction
    /// "cause[s] the executing thread to wait for all non-exited threads from its warp", it
    /// waits until every non-exited lane of its warp has arrived in the same phase (or the phase
    /// has completed). A lane that never comes leaves the others waiting, as on the GPU.
    #[must_use = "await it (`#[warp_kernel]` does)"]
    pub struct ClusterArrive {
        site: Site,
        op: &'static str,
        release: bool,
        aligned: bool,
        /// The phase it arrived in, once it has.
        phase: Option<u32>,
    }

    impl core::future::Future for ClusterArrive {
        type Output = ();

        fn poll(mut self: core::pin::Pin<&mut Self>, _: &mut core::task::Context<'_>) -> core::task::Poll<()> {
            let phase = match self.phase {
                Some(p) => p,
                None => {
                    let (_, p) = arrive_at(self.site, self.release, self.aligned);
                    self.phase = Some(p);
                    p
                }
            };
            let Some((regs, _, ctx, group, slot)) = here() else { return core::task::Poll::Ready(()) };
            let bar = barrier(group, ctx, regs);
            let arrived = bar.arrived[slot];
            if bar.phase != phase || arrived | !regs.live_lanes() == u32::MAX {
                return core::task::Poll::Ready(());
            }
            drop(bar);
            regs.note_yield(MemWait { site: self.site, op: self.op, space: Space::Shared, index: 0, value: arrived as u64, mbarrier: None });
            core::task::Poll::Pending
        }
    }

    /// The arrival of [`arrive`] made at `site`; returns the instruction and the phase.
    pub(super) fn arrive_at(site: Site, release: bool, aligned: bool) -> (&'static str, u32) {
        let op = match (release, aligned) {
            (true, false) => "barrier.cluster.arrive",
            (false, false) => "barrier.cluster.arrive.relaxed",
            (true, true) => "barrier.cluster.arrive.aligned",
            (false, true) => "barrier.cluster.arrive.relaxed.aligned",
        };
        crate::ordered::gate_at(op, 90, site);
        let Some((regs, lane, ctx, group, slot)) = here() else { return (op, 0) };
        let mut bar = barrier(group, ctx, regs);
        if bar.arrived[slot] >> lane & 1 == 1 {
            let phase = bar.phase;
            drop(bar);
            fault_at(ClusterRule::ArriveTwice, op, format!("the thread already arrived in phase {phase}, which has not completed"), site);
        }
        if aligned {
            let here = (site, regs.step());
            match bar.aligned[slot] {
                // Lanes of a warp leave a cluster wait in different steps on the CPU (the warp-wide
                // wait of `barrier.cluster` is not modelled), so only the instruction is compared.
                Some((s, _)) if !crate::error::same_place(s, site) => {
                    drop(bar);
                    fault_at(
                        ClusterRule::AlignedDiverged,
                        op,
                        format!("another lane of warp {} arrived at the aligned barrier at {s}, another instruction", regs.pos().warp_in_block),
                        site,
                    );
                }
                _ => bar.aligned[slot] = Some(here),
            }
        }
        bar.arrived[slot] |= 1 << lane;
        let phase = bar.phase;
        bar.pending[slot * 32 + lane as usize] = phase.wrapping_add(1);
        bar.join.arrive(regs, lane, release);
        mem::wrote();
        bar.try_complete(group);
        (op, phase)
    }

    /// `barrier.cluster.wait{.aligned}`: a future that completes when the phase the lane arrived
    /// in has completed (a scheduling point each time it finds it has not).
    #[must_use = "await it (`#[warp_kernel]` does)"]
    pub struct ClusterWait {
        site: Site,
        op: &'static str,
        /// `cluster_sync`: the arrival is still to make, at the first poll.
        arrive: bool,
    }

    /// `barrier.cluster.wait{.aligned}`, after an arrival when `arrive_first` (`cluster_sync`).
    #[track_caller]
    pub(crate) fn wait(arrive_first: bool, aligned: bool) -> ClusterWait {
        let op = if aligned { "barrier.cluster.wait.aligned" } else { "barrier.cluster.wait" };
        gate(op);
        ClusterWait { site: std::panic::Location::caller(), op, arrive: arrive_first }
    }

    impl core::future::Future for ClusterWait {
        type Output = ();

        fn poll(mut self: core::pin::Pin<&mut Self>, _: &mut core::task::Context<'_>) -> core::task::Poll<()> {
            if core::mem::take(&mut self.arrive) {
                arrive_at(self.site, true, false);
            }
            let Some((regs, lane, ctx, group, slot)) = here() else { return core::task::Poll::Ready(()) };
            let t = slot * 32 + lane as usize;
            let mut bar = barrier(group, ctx, regs);
            let pending = bar.pending[t];
            if pending == 0 {
                drop(bar);
                let detail = "the thread has no arrival pending: it would wait for itself to arrive, and never return";
                fault_at(ClusterRule::WaitWithoutArrive, self.op, detail.into(), self.site);
            }
            bar.try_complete(group);
            // The phase it arrived in (`pending - 1`) has completed when the barrier moved past it.
            if bar.phase.wrapping_sub(pending) < u32::MAX / 2 {
                bar.pending[t] = 0;
                bar.join.acquire(regs, lane);
                return core::task::Poll::Ready(());
            }
            let phase = bar.phase as u64;
            drop(bar);
            regs.note_yield(MemWait { site: self.site, op: self.op, space: Space::Shared, index: 0, value: phase, mbarrier: None });
            core::task::Poll::Pending
        }
    }

    /// `griddepcontrol.wait`: see [`super::GridWait`].
    #[must_use = "await it (`#[warp_kernel]` does)"]
    pub struct GridDepWait {
        site: Site,
        polls: u64,
    }

    #[track_caller]
    pub(crate) fn grid_dependency_wait() -> GridDepWait {
        crate::ordered::gate("griddepcontrol.wait", 90);
        GridDepWait { site: std::panic::Location::caller(), polls: 0 }
    }

    impl core::future::Future for GridDepWait {
        type Output = ();

        fn poll(mut self: core::pin::Pin<&mut Self>, _: &mut core::task::Context<'_>) -> core::task::Poll<()> {
            let Some((regs, lane)) = mem::current() else { return core::task::Poll::Ready(()) };
            match crate::grid::pdl_wait_ready() {
                None => {
                    regs.races.grid_dependency_wait(&regs.block().races, regs.pos().warp_in_block, lane);
                    core::task::Poll::Ready(())
                }
                Some(ready) => {
                    // The primary grid progresses on its own thread: not a spin.
                    self.polls += 1;
                    let value = ready << 32 | (self.polls & 0xffff_ffff);
                    regs.note_yield(MemWait { site: self.site, op: "griddepcontrol.wait", space: Space::Global, index: 0, value, mbarrier: None });
                    std::thread::yield_now();
                    core::task::Poll::Pending
                }
            }
        }
    }

    /// The block `rank` of the running lane's cluster, reporting a rank outside it.
    #[track_caller]
    pub(super) fn peer(rank: u32) -> Option<&'static BlockCtx> {
        let (_, _, _, group, _) = here()?;
        match group.get(rank as usize) {
            Some(p) => Some(p),
            None => fault(ClusterRule::RankOutOfRange, "mapa", format!("rank {rank} in a cluster of {} blocks", group.len())),
        }
    }

    /// The running lane's rank in its cluster.
    pub(super) fn own_rank() -> u32 {
        here().map_or(0, |(_, _, ctx, ..)| ctx.cluster.rank())
    }

    /// Reports `op` on the shared memory of block `rank` when that block has exited.
    #[track_caller]
    pub(super) fn check_alive(peer: Option<&BlockCtx>, rank: u32, op: &'static str) {
        if peer.is_some_and(|p| p.cluster.done.get()) {
            fault(ClusterRule::PeerExited, op, format!("block rank {rank} of the cluster has exited; its shared memory is gone"));
        }
    }

    /// `clusterlaunchcontrol.try_cancel` of the running lane into `resp[i]`, completing 16 bytes
    /// on `bar[bar_i]`, in its own block or (multicast) every block of its cluster.
    #[track_caller]
    pub(super) fn try_cancel(resp: &SharedSlice<'_, u128>, i: usize, bar: &SharedSlice<'_, u64>, bar_i: usize, multicast: bool) -> MemOp<()> {
        let op = if multicast { "clusterlaunchcontrol.try_cancel.multicast::cluster::all" } else { "clusterlaunchcontrol.try_cancel" };
        crate::ordered::gate(op, 100);
        let Some((regs, _, ctx, group, _)) = here() else { return MemOp::new((), op, Space::Shared, i, 0, std::panic::Location::caller()) };
        if multicast && regs.target().suffix == crate::target::ArchSuffix::None {
            mem::fault(LaneFault::Unsupported { op, min: "sm_100a or a family target (sm_100f and later)", target: regs.target(), site: std::panic::Location::caller() });
        }
        if ctx.cluster.cancel_failed.get() {
            fault(ClusterRule::TryCancelAfterFailure, op, "this block's query_cancel already saw a try_cancel fail".into());
        }
        let response = match ctx.cluster.cancel_next() {
            Some(first) => {
                let id = regs.pos().nctaid.index_of(first);
                1u128 << 127 | (id.z as u128) << 64 | (id.y as u128) << 32 | id.x as u128
            }
            None => 0,
        };
        let targets: &[BlockCtx] = if multicast { group } else { core::slice::from_ref(ctx) };
        let mut last = None;
        for (rank, t) in targets.iter().enumerate() {
            if multicast {
                check_alive(Some(t), rank as u32, op);
            }
            resp.in_arena(&t.arena).write(op, i, response, crate::race::Order::Weak);
            last = Some(bar.in_arena(&t.arena).host_tx_release_scoped(bar_i, op, 16, crate::sem::Scope::Cluster));
        }
        last.expect("a block is in its cluster")
    }

    /// `query_cancel.is_canceled`: a failure seen is remembered by the running lane's block.
    pub(super) fn saw_cancel(canceled: bool) {
        if let (Some((_, _, ctx, _, _)), false) = (here(), canceled) {
            ctx.cluster.cancel_failed.set(true);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Distributed shared memory.
// ---------------------------------------------------------------------------------------------

/// A view of a shared array of another block of the cluster (or of the executing block itself):
/// what [`SharedSlice::map_shared_rank`] (`mapa`) returns. Loads and stores are
/// `ld`/`st.shared::cluster`, atomics `atom`/`red.shared::cluster` (every scalar form of
/// [`SharedSlice`]), and mbarriers in it take remote arrivals and `red.async`/`st.async`
/// completions.
pub struct DsmemSlice<'w, T: GlobalValue> {
    /// The elements: on the host, the same elements in the owning block's shared memory; on the
    /// GPU, a view at the `.shared::cluster` address `mapa` gave (whose checked `addr_of` the
    /// `.shared::cluster` instructions use).
    inner: SharedSlice<'w, T>,
    #[cfg(not(target_arch = "nvptx64"))]
    peer: Option<&'w crate::block::BlockCtx>,
    rank: u32,
}

impl<T: GlobalValue> Clone for DsmemSlice<'_, T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: GlobalValue> Copy for DsmemSlice<'_, T> {}

impl<T: GlobalValue> core::fmt::Debug for DsmemSlice<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DsmemSlice").field("rank", &self.rank).field("len", &self.len()).finish()
    }
}

impl<'w, T: GlobalValue + crate::shared::dev::SharedAsm> SharedSlice<'w, T> {
    /// `mapa.shared::cluster`: the same array in the shared memory of block `rank` of the
    /// cluster (CUDA's `cluster.map_shared_rank`). A static array is the same declaration there,
    /// dynamic shared memory the same offset. A rank outside the cluster is reported (on the GPU,
    /// `trap`). sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    #[inline(always)]
    #[track_caller]
    pub fn map_shared_rank(&self, rank: u32) -> DsmemSlice<'w, T> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::gate("mapa.shared::cluster");
            match host::peer(rank) {
                // SAFETY of the lifetime: the peer's context lives as long as the running block's
                // (the cluster's blocks stay resident together).
                Some(p) => {
                    let p: &'w crate::block::BlockCtx = unsafe { &*(p as *const crate::block::BlockCtx) };
                    DsmemSlice { inner: self.in_arena(&p.arena), peer: Some(p), rank }
                }
                None => DsmemSlice { inner: *self, peer: None, rank },
            }
        }
        #[cfg(target_arch = "nvptx64")]
        {
            if rank >= crate::nvptx::cluster_nctarank() {
                // SAFETY: `trap` aborts the kernel.
                unsafe { core::arch::asm!("trap;", options(noreturn, nostack)) }
            }
            let d: u64;
            // SAFETY: maps a `.shared` address of this block; reads no memory.
            unsafe { core::arch::asm!("mapa.shared::cluster.u64 {d}, {a}, {r};", d = out(reg64) d, a = in(reg64) self.base_addr(), r = in(reg32) rank, options(pure, nomem, nostack)) };
            // SAFETY: `d` is the address of this view's elements in block `rank`'s shared memory.
            DsmemSlice { inner: unsafe { SharedSlice::from_shared_addr(d, self.len()) }, rank }
        }
    }
}

impl<'w, T: GlobalValue> DsmemSlice<'w, T> {
    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.inner.elements()
    }

    /// Whether the view is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rank of the block whose shared memory this is.
    #[inline(always)]
    pub fn rank(&self) -> u32 {
        self.rank
    }

    /// The `.shared::cluster` address of element `i` (`trap` when out of range).
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    fn addr_of(&self, i: usize) -> u64 {
        self.inner.addr_of(i)
    }

}

impl<'w, T: GlobalValue + crate::shared::dev::SharedAsm> DsmemSlice<'w, T> {
    /// Reads element `i` (`ld.shared::cluster`).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, i: usize) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "ld.shared::cluster");
            self.inner.read("ld.shared::cluster", i, crate::race::Order::Weak)
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            T::ld_cluster(self.addr_of(i))
        }
    }

    /// Writes element `i` (`st.shared::cluster`).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, i: usize, value: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "st.shared::cluster");
            self.inner.write("st.shared::cluster", i, value, crate::race::Order::Weak)
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            T::st_cluster(self.addr_of(i), value)
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: GlobalValue> DsmemSlice<'_, T> {
    /// The one place every host `atom`/`red` on distributed shared memory happens: sm_90, the
    /// owning block alive, then the owning block's shared-memory atomic.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn atom_host<const N: usize>(
        &self,
        i: usize,
        form: crate::atomic::Form,
        sem: crate::sem::Sem,
        scope: crate::sem::Scope,
        f: impl Fn(usize, T) -> T,
    ) -> [T; N] {
        host::gate("atom.shared::cluster");
        host::check_alive(self.peer, self.rank, form.mnemonic());
        self.inner.atom_host::<N>(i, form, sem, scope, f)
    }
}

#[cfg(target_arch = "nvptx64")]
impl<T: GlobalValue> DsmemSlice<'_, T> {
    const SP: crate::atomic::Sp = crate::atomic::Sp::Cluster;

    #[inline(always)]
    fn dev_addr(&self, i: usize, n: usize) -> u64 {
        let _ = n;
        self.addr_of(i)
    }
}

crate::atomic::scalar_methods!(DsmemSlice, "shared::cluster", Shared);

// ---------------------------------------------------------------------------------------------
// Remote arrivals, red.async and st.async.
// ---------------------------------------------------------------------------------------------

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
impl DsmemSlice<'_, u64> {
    /// `mbarrier.arrive.release.cluster.shared::cluster.b64 _, [a]`: one arrival on the mbarrier
    /// at element `i` of a block of the cluster (no state is returned for a remote barrier).
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_cluster(&self, i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "mbarrier.arrive.shared::cluster");
            let m = self.inner.host_arrive(i, "mbarrier.arrive.release.cluster.shared::cluster", 90, 1, false, false, None, crate::ArriveSem::Release, crate::MbarScope::Cluster);
            m.map(|_| ())
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            core::arch::asm!("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [{a}];", a = in(reg64) self.addr_of(i), options(nostack));
        }
    }

    /// `mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [a], tx`: an expect-tx
    /// of `tx` bytes and one arrival on the mbarrier at element `i` of a block of the cluster.
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_expect_tx_cluster(&self, i: usize, tx: u32) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "mbarrier.arrive.expect_tx.shared::cluster");
            let m = self.inner.host_arrive(i, "mbarrier.arrive.expect_tx.release.cluster.shared::cluster", 90, 1, false, false, Some(tx), crate::ArriveSem::Release, crate::MbarScope::Cluster);
            m.map(|_| ())
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            core::arch::asm!("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [{a}], {t};", a = in(reg64) self.addr_of(i), t = in(reg32) tx, options(nostack));
        }
    }
}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
impl DsmemSlice<'_, u64> {
    /// `mbarrier.arrive{.sem}{.scope}.shared::cluster.b64 _, [a], count`: an arrival of `count`
    /// on the mbarrier at element `i` of a block of the cluster (sm_90).
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_cluster_with(&self, i: usize, count: u32, sem: crate::ArriveSem, scope: crate::MbarScope) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "mbarrier.arrive.shared::cluster");
            self.inner.host_arrive(i, "mbarrier.arrive.shared::cluster (count)", 90, count, false, false, None, sem, scope).map(|_| ())
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            dev::remote_arrive(self.addr_of(i), count, sem, scope, false)
        }
    }

    /// `mbarrier.arrive_drop{.sem}{.scope}.shared::cluster.b64 _, [a], count`: an arrival of
    /// `count` that also lowers the expected count of the next phases, on a block of the
    /// cluster (sm_90).
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_arrive_drop_cluster_with(&self, i: usize, count: u32, sem: crate::ArriveSem, scope: crate::MbarScope) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "mbarrier.arrive_drop.shared::cluster");
            self.inner.host_arrive(i, "mbarrier.arrive_drop.shared::cluster", 90, count, false, true, None, sem, scope).map(|_| ())
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            dev::remote_arrive(self.addr_of(i), count, sem, scope, true)
        }
    }

    /// `mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [a], tx` on a block of the
    /// cluster (sm_90).
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_expect_tx_cluster(&self, i: usize, tx: u32) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "mbarrier.expect_tx.shared::cluster");
            self.inner.host_tx(i, "mbarrier.expect_tx.relaxed.cluster.shared::cluster", tx, false)
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            core::arch::asm!("mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64 [{a}], {t};", a = in(reg64) self.addr_of(i), t = in(reg32) tx, options(nostack))
        }
    }

    /// `mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [a], tx` on a block of the
    /// cluster (sm_90).
    #[inline(always)]
    #[track_caller]
    pub fn mbarrier_complete_tx_cluster(&self, i: usize, tx: u32) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::check_alive(self.peer, self.rank, "mbarrier.complete_tx.shared::cluster");
            self.inner.host_tx(i, "mbarrier.complete_tx.relaxed.cluster.shared::cluster", tx, true)
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            core::arch::asm!("mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64 [{a}], {t};", a = in(reg64) self.addr_of(i), t = in(reg32) tx, options(nostack))
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: GlobalValue> DsmemSlice<'_, T> {
    /// The checks of `red.async`/`st.async` (9.7.13.7): the destination and the mbarrier in one
    /// block, not the executing thread's, which is alive.
    #[track_caller]
    fn check_async(&self, op: &'static str, bar: &DsmemSlice<'_, u64>) {
        host::gate(op);
        if bar.rank != self.rank {
            host::fault(ClusterRule::AsyncDifferentCtas, op, format!("the destination is in block rank {} and the mbarrier in block rank {}", self.rank, bar.rank));
        }
        let own = host::own_rank();
        if self.rank == own {
            host::fault(ClusterRule::AsyncOwnCta, op, format!("the destination and the mbarrier are in block rank {own}, the executing thread's own"));
        }
        host::check_alive(self.peer, self.rank, op);
    }

    /// The complete-tx of `bytes` on `bar[bar_i]` that ends an asynchronous operation:
    /// `.release` at `.cluster` scope.
    #[track_caller]
    fn complete(&self, op: &'static str, bar: &DsmemSlice<'_, u64>, bar_i: usize, bytes: u32) -> crate::mem::MemOp<()> {
        bar.inner.host_tx_release_scoped(bar_i, op, bytes, crate::sem::Scope::Cluster)
    }

    /// A `red.async` of `op` with operand `b` on element `i`, completing on `bar[bar_i]`.
    #[track_caller]
    fn red_async_host(&self, op: crate::semantics::atom::AtomOp, mnemonic: &'static str, i: usize, b: T, bar: DsmemSlice<'_, u64>, bar_i: usize) -> crate::mem::MemOp<()> {
        self.check_async(mnemonic, &bar);
        let form = crate::atomic::Form::red(op);
        let sem = crate::sem::Sem::Relaxed;
        let [_] = self.inner.atom_host_as::<1>(i, form, mnemonic, sem, crate::sem::Scope::Cluster, |_, old: T| crate::atomic::apply(op, crate::mem::Space::Shared, old, b, b));
        self.complete(mnemonic, &bar, bar_i, T::BYTES as u32)
    }
}

/// The element types of `red.async`'s `.add`: `u32`, `i32` (`.s32`), `u64`.
pub trait RedAsyncAdd: GlobalValue + dev::RedAsyncAddAsm {}
impl RedAsyncAdd for u32 {}
impl RedAsyncAdd for i32 {}
impl RedAsyncAdd for u64 {}
/// The element types of `red.async`'s `.min`/`.max`: `u32`, `i32` (`.s32`).
pub trait RedAsyncMinMax: GlobalValue + dev::RedAsyncMinMaxAsm {}
impl RedAsyncMinMax for u32 {}
impl RedAsyncMinMax for i32 {}
/// The element types of `st.async`: 4- and 8-byte values (`.b32`, `.b64`).
pub trait StAsync: GlobalValue + dev::StAsyncAsm {}
impl StAsync for u32 {}
impl StAsync for i32 {}
impl StAsync for f32 {}
impl StAsync for u64 {}
impl StAsync for i64 {}
impl StAsync for f64 {}

macro_rules! red_async_methods {
    ($($(#[$m:meta])* $name:ident, $tr:ident, $op:ident, $ptx:literal;)*) => {$(
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
        impl<T: $tr> DsmemSlice<'_, T> {
            $(#[$m])*
            #[inline(always)]
            #[track_caller]
            pub fn $name(&self, i: usize, b: T, bar: DsmemSlice<'_, u64>, bar_i: usize) -> Mem<()> {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    self.red_async_host(crate::semantics::atom::AtomOp::$op, concat!("red.async.", $ptx), i, b, bar, bar_i)
                }
                // SAFETY: `addr_of` checked both indices.
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    T::$name(self.addr_of(i), b, bar.addr_of(bar_i))
                }
            }
        }
    )*};
}

red_async_methods! {
    /// `red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add`: adds `b` to
    /// element `i` of another block of the cluster, then a complete-tx of the element's bytes on
    /// `bar[bar_i]` in that block (`.release.cluster`). sm_90.
    red_async_add, RedAsyncAdd, Add, "add";
    /// `red.async....min` (`.u32`, `.s32`), as [`red_async_add`](Self::red_async_add).
    red_async_min, RedAsyncMinMax, Min, "min";
    /// `red.async....max` (`.u32`, `.s32`), as [`red_async_add`](Self::red_async_add).
    red_async_max, RedAsyncMinMax, Max, "max";
}

macro_rules! red_async_u32_methods {
    ($($(#[$m:meta])* $name:ident, $op:ident, $ptx:literal;)*) => {
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
        impl DsmemSlice<'_, u32> {$(
            $(#[$m])*
            #[inline(always)]
            #[track_caller]
            pub fn $name(&self, i: usize, b: u32, bar: DsmemSlice<'_, u64>, bar_i: usize) -> Mem<()> {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    self.red_async_host(crate::semantics::atom::AtomOp::$op, concat!("red.async.", $ptx), i, b, bar, bar_i)
                }
                // SAFETY: `addr_of` checked both indices.
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    dev::$name(self.addr_of(i), b, bar.addr_of(bar_i))
                }
            }
        )*}
    };
}

red_async_u32_methods! {
    /// `red.async....inc.u32`: `(r >= b) ? 0 : r + 1`, as [`red_async_add`](Self::red_async_add).
    red_async_inc, Inc, "inc";
    /// `red.async....dec.u32`: `(r == 0 || r > b) ? b : r - 1`.
    red_async_dec, Dec, "dec";
    /// `red.async....and.b32`.
    red_async_and, And, "and";
    /// `red.async....or.b32`.
    red_async_or, Or, "or";
    /// `red.async....xor.b32`.
    red_async_xor, Xor, "xor";
}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
impl<T: StAsync> DsmemSlice<'_, T> {
    /// `st.async.shared::cluster.mbarrier::complete_tx::bytes.b32`/`.b64`: stores `value` into
    /// element `i` of another block of the cluster, then a complete-tx of its bytes on
    /// `bar[bar_i]` in that block (`.release.cluster`). The store itself is weak: a reader orders
    /// it by waiting on the mbarrier. sm_90.
    #[inline(always)]
    #[track_caller]
    pub fn st_async(&self, i: usize, value: T, bar: DsmemSlice<'_, u64>, bar_i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.check_async("st.async", &bar);
            self.inner.write("st.async", i, value, crate::race::Order::Weak);
            self.complete("st.async", &bar, bar_i, T::BYTES as u32)
        }
        // SAFETY: `addr_of` checked both indices.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            T::st_async(self.addr_of(i), value, bar.addr_of(bar_i))
        }
    }
}

/// The `.shared::cluster` asm of each element type (nvptx64).
#[doc(hidden)]
pub mod dev {
    /// `red.async...add` of one type. Safety: `a` and `bar` are `.shared::cluster` addresses of
    /// an aligned element and an mbarrier of one other block of the cluster.
    pub trait RedAsyncAddAsm: Copy {
        #[cfg(target_arch = "nvptx64")]
        unsafe fn red_async_add(a: u64, b: Self, bar: u64);
    }
    /// `red.async...min`/`.max` of one type, with the same safety contract.
    pub trait RedAsyncMinMaxAsm: Copy {
        #[cfg(target_arch = "nvptx64")]
        unsafe fn red_async_min(a: u64, b: Self, bar: u64);
        #[cfg(target_arch = "nvptx64")]
        unsafe fn red_async_max(a: u64, b: Self, bar: u64);
    }
    /// A remote `mbarrier.arrive{_drop}{.sem}{.scope}.shared::cluster.b64 _, [a], count`.
    /// Safety: `a` is the `.shared::cluster` address of an mbarrier of a block of the cluster.
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    #[inline(always)]
    pub(crate) unsafe fn remote_arrive(a: u64, count: u32, sem: crate::ArriveSem, scope: crate::MbarScope, drop: bool) {
        use crate::{ArriveSem::*, MbarScope::*};
        macro_rules! go {
            ($f:literal, $q:literal) => {
                core::arch::asm!(concat!("mbarrier.", $f, $q, ".shared::cluster.b64 _, [{a}], {c};"), a = in(reg64) a, c = in(reg32) count, options(nostack))
            };
        }
        // `.relaxed` needs PTX 8.6; before it `.release`, which orders more.
        let relaxed = cfg!(target_feature = "ptx86") && sem == Relaxed;
        match (drop, relaxed, scope) {
            (false, false, Cta) => go!("arrive", ".release.cta"),
            (false, false, Cluster) => go!("arrive", ".release.cluster"),
            (true, false, Cta) => go!("arrive_drop", ".release.cta"),
            (true, false, Cluster) => go!("arrive_drop", ".release.cluster"),
            #[cfg(target_feature = "ptx86")]
            (false, true, Cta) => go!("arrive", ".relaxed.cta"),
            #[cfg(target_feature = "ptx86")]
            (false, true, Cluster) => go!("arrive", ".relaxed.cluster"),
            #[cfg(target_feature = "ptx86")]
            (true, true, Cta) => go!("arrive_drop", ".relaxed.cta"),
            #[cfg(target_feature = "ptx86")]
            (true, true, Cluster) => go!("arrive_drop", ".relaxed.cluster"),
            #[cfg(not(target_feature = "ptx86"))]
            (_, true, _) => {}
        }
    }

    /// `st.async` of one type, with the same safety contract.
    pub trait StAsyncAsm: Copy {
        #[cfg(target_arch = "nvptx64")]
        unsafe fn st_async(a: u64, v: Self, bar: u64);
    }

    /// One `red.async` instruction: operation, type, register class.
    #[cfg(target_arch = "nvptx64")]
    macro_rules! red_async {
        ($op:literal, $ty:literal, $reg:ident, $a:expr, $b:expr, $bar:expr) => {
            core::arch::asm!(
                concat!("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.", $op, ".", $ty, " [{a}], {b}, [{m}];"),
                a = in(reg64) $a, b = in($reg) $b, m = in(reg64) $bar, options(nostack))
        };
    }

    #[cfg(not(target_arch = "nvptx64"))]
    macro_rules! add_asm {
        ($($t:ty, $reg:ident, $ty:literal;)*) => {$( impl RedAsyncAddAsm for $t {} )*};
    }
    #[cfg(target_arch = "nvptx64")]
    macro_rules! add_asm {
        ($($t:ty, $reg:ident, $ty:literal;)*) => {$(
            impl RedAsyncAddAsm for $t {
                #[inline(always)]
                unsafe fn red_async_add(a: u64, b: $t, bar: u64) {
                    red_async!("add", $ty, $reg, a, b, bar)
                }
            }
        )*};
    }
    add_asm! {
        u32, reg32, "u32";
        i32, reg32, "s32";
        u64, reg64, "u64";
    }

    #[cfg(not(target_arch = "nvptx64"))]
    macro_rules! minmax_asm {
        ($($t:ty, $ty:literal;)*) => {$( impl RedAsyncMinMaxAsm for $t {} )*};
    }
    #[cfg(target_arch = "nvptx64")]
    macro_rules! minmax_asm {
        ($($t:ty, $ty:literal;)*) => {$(
            impl RedAsyncMinMaxAsm for $t {
                #[inline(always)]
                unsafe fn red_async_min(a: u64, b: $t, bar: u64) {
                    red_async!("min", $ty, reg32, a, b, bar)
                }
                #[inline(always)]
                unsafe fn red_async_max(a: u64, b: $t, bar: u64) {
                    red_async!("max", $ty, reg32, a, b, bar)
                }
            }
        )*};
    }
    minmax_asm! {
        u32, "u32";
        i32, "s32";
    }

    /// The `.u32`/`.b32`-only operations. Safety: as [`RedAsyncAddAsm`].
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    macro_rules! u32_ops {
        ($($name:ident, $op:literal, $ty:literal;)*) => {$(
            #[inline(always)]
            pub(crate) unsafe fn $name(a: u64, b: u32, bar: u64) {
                red_async!($op, $ty, reg32, a, b, bar)
            }
        )*};
    }
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_90"))]
    u32_ops! {
        red_async_inc, "inc", "u32";
        red_async_dec, "dec", "u32";
        red_async_and, "and", "b32";
        red_async_or, "or", "b32";
        red_async_xor, "xor", "b32";
    }

    #[cfg(not(target_arch = "nvptx64"))]
    macro_rules! st_async_asm {
        ($($t:ty, $reg:ident, $ty:literal, |$v:ident| $to:expr;)*) => {$( impl StAsyncAsm for $t {} )*};
    }
    #[cfg(target_arch = "nvptx64")]
    macro_rules! st_async_asm {
        ($($t:ty, $reg:ident, $ty:literal, |$v:ident| $to:expr;)*) => {$(
            impl StAsyncAsm for $t {
                #[inline(always)]
                unsafe fn st_async(a: u64, $v: $t, bar: u64) {
                    core::arch::asm!(
                        concat!("st.async.shared::cluster.mbarrier::complete_tx::bytes.", $ty, " [{a}], {v}, [{m}];"),
                        a = in(reg64) a, v = in($reg) $to, m = in(reg64) bar, options(nostack))
                }
            }
        )*};
    }
    st_async_asm! {
        u32, reg32, "b32", |v| v;
        i32, reg32, "b32", |v| v as u32;
        f32, reg32, "b32", |v| v.to_bits();
        u64, reg64, "b64", |v| v;
        i64, reg64, "b64", |v| v as u64;
        f64, reg64, "b64", |v| v.to_bits();
    }
}

// ---------------------------------------------------------------------------------------------
// clusterlaunchcontrol (sm_100)
// ---------------------------------------------------------------------------------------------

impl SharedSlice<'_, u128> {
    /// `clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128
    /// [addr], [mbar]` (sm_100): asks to cancel a cluster of this launch that has not started,
    /// writing a 16-byte response to element `i` and completing its 16 bytes on `bar[bar_i]`
    /// (announce them with `mbarrier_arrive_expect_tx`, wait, then decode the response with
    /// [`query_cancel_is_canceled`] and [`query_cancel_first_ctaid`]). The work-stealing shape of
    /// persistent kernels: a block that cancels a cluster does that cluster's work itself.
    ///
    /// On the CPU the cancelled cluster is the next the launch would start (none when every
    /// block has started: the request fails); it never runs, so `Grid::map` has no results for
    /// it and reports that; launch such kernels with `run`.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100"))]
    #[inline(always)]
    #[track_caller]
    pub fn clusterlaunchcontrol_try_cancel(&self, i: usize, bar: SharedSlice<'_, u64>, bar_i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::try_cancel(self, i, &bar, bar_i, false)
        }
        // SAFETY: `addr_of` checked both indices.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            core::arch::asm!(
                "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [{a}], [{m}];",
                a = in(reg64) self.addr_of(i), m = in(reg64) bar.addr_of(bar_i), options(nostack)
            )
        }
    }

    /// `clusterlaunchcontrol.try_cancel....multicast::cluster::all.b128` (sm_100a): the same,
    /// with the response written to element `i` and completed on `bar[bar_i]` in every block of
    /// the cluster (each block must be running: an exited one is reported).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100a"))]
    #[inline(always)]
    #[track_caller]
    pub fn clusterlaunchcontrol_try_cancel_multicast(&self, i: usize, bar: SharedSlice<'_, u64>, bar_i: usize) -> Mem<()> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            host::try_cancel(self, i, &bar, bar_i, true)
        }
        // SAFETY: `addr_of` checked both indices.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            core::arch::asm!(
                "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128 [{a}], [{m}];",
                a = in(reg64) self.addr_of(i), m = in(reg64) bar.addr_of(bar_i), options(nostack)
            )
        }
    }
}

/// `clusterlaunchcontrol.query_cancel.is_canceled.pred.b128` (sm_100): whether a
/// `try_cancel` response says a cluster was cancelled. On the CPU a block that sees a failure is
/// remembered: another `try_cancel` by it is undefined, and reported.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100"))]
#[inline(always)]
pub fn query_cancel_is_canceled(response: u128) -> bool {
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let canceled = response >> 127 & 1 == 1;
        host::saw_cancel(canceled);
        canceled
    }
    #[cfg(target_arch = "nvptx64")]
    {
        let d: u32;
        // SAFETY: decodes a register.
        unsafe {
            core::arch::asm!(
                "{{", ".reg .b128 %h;", ".reg .pred %p;", "mov.b128 %h, {{{lo}, {hi}}};",
                "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p, %h;", "selp.u32 {d}, 1, 0, %p;", "}}",
                lo = in(reg64) response as u64, hi = in(reg64) (response >> 64) as u64, d = out(reg32) d, options(pure, nomem, nostack)
            )
        };
        d != 0
    }
}

/// `clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128` (sm_100): the `%ctaid` of
/// the first block of the cluster a successful `try_cancel` cancelled (undefined for a failed
/// one: reported on the CPU).
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100"))]
#[inline(always)]
#[track_caller]
pub fn query_cancel_first_ctaid(response: u128) -> crate::Dim3 {
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if response >> 127 & 1 == 0 {
            host::fault(ClusterRule::FirstCtaidOfFailure, "clusterlaunchcontrol.query_cancel.get_first_ctaid", "the response is of a try_cancel that failed".into());
        }
        crate::Dim3::new(response as u32, (response >> 32) as u32, (response >> 64) as u32)
    }
    #[cfg(target_arch = "nvptx64")]
    {
        let (x, y, z): (u32, u32, u32);
        // SAFETY: decodes a register.
        unsafe {
            core::arch::asm!(
                "{{", ".reg .b128 %h;", ".reg .b32 %w;", "mov.b128 %h, {{{lo}, {hi}}};",
                "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {{{x}, {y}, {z}, %w}}, %h;", "}}",
                lo = in(reg64) response as u64, hi = in(reg64) (response >> 64) as u64, x = out(reg32) x, y = out(reg32) y, z = out(reg32) z,
                options(pure, nomem, nostack)
            )
        };
        crate::Dim3::new(x, y, z)
    }
}
