//! Blocks: the warps of a CTA, their shared memory, and their sixteen barriers.
//!
//! A block's warps run interleaved on one CPU thread (see [`crate::grid`]). When every
//! non-exited lane of a warp waits at a CTA barrier instruction, the warp has *arrived*
//! (9.7.13.1: "`barrier{.cta}` instruction causes executing thread to wait for all non-exited
//! threads from its warp and marks warps' arrival at barrier"); [`Barriers::arrive`] checks the
//! rules the spec attaches to the arrival, counts it (a whole warp, 32 threads, partial or not),
//! and completes the barrier when its thread count is reached, resuming every waiting warp with
//! `bar.red`'s result. A warp that exits entirely no longer counts towards a barrier without a
//! thread count.

use crate::error::{BarrierRule, BlockReport, LaneSet, Site, WarpError};
use crate::geom::Dim3;
use crate::op::Op;
use crate::semantics::barrier::{self, BarKind, BarRed, BARRIERS};
use crate::shared::Arena;
use crate::warp::WarpRun;

/// What the warps of a block share while their lanes run: where the block is, and its shared
/// memory. (The barriers are the scheduler's, in [`Barriers`].)
pub(crate) struct BlockCtx {
    /// The block's shared memory.
    pub(crate) arena: Arena,
    /// The race detector's view of the block.
    pub(crate) races: crate::race::BlockRaces,
    /// The block's cluster: its blocks' contexts, its rank in them, its warps' registers, whether
    /// it has finished, and (in the cluster's first block) the cluster barrier.
    pub(crate) cluster: crate::cluster::ClusterLink,
}

impl BlockCtx {
    pub(crate) fn new(dynamic_shared: usize) -> BlockCtx {
        BlockCtx { arena: Arena::new(dynamic_shared), races: crate::race::BlockRaces::off(), cluster: crate::cluster::ClusterLink::default() }
    }

    /// Whether a run left this block as `new(0)` made it, but for its cluster link (which
    /// `ClusterLink::start` sets again for the next run): no shared memory used, no race
    /// detection, no dependent launch triggered.
    pub(crate) fn untouched(&self) -> bool {
        self.arena.dynamic_bytes() == 0 && self.arena.untouched() && self.races.untouched()
    }
}

/// What one barrier has seen since it last completed.
#[derive(Clone, Copy, Debug, Default)]
struct Barrier {
    /// Warps (bit per warp of the block) that arrived in this phase.
    arrived: u32,
    /// Of those, warps that wait for completion (`.sync`, `.red`).
    waiting: u32,
    /// The thread count of this phase (`None`: every thread of the block), set by the first
    /// arrival.
    count: Option<u32>,
    /// `.red`'s operator, if this phase reduces.
    red: Option<BarRed>,
    /// Whether a `.sync` or `.arrive` arrived in this phase.
    plain: bool,
    /// Participating threads (non-exited lanes of arrived warps) and how many have `c` true.
    threads: u32,
    true_threads: u32,
    /// The first arrival of this phase: its instruction, call site, call path and warp.
    first: Option<(Op, Site, u64, usize)>,
}

/// The sixteen barriers of a block.
pub(crate) struct Barriers {
    bars: [Barrier; BARRIERS as usize],
    /// The block's warps.
    warps: u32,
    /// Warps that have exited entirely.
    exited: u32,
    /// Whether `.aligned` rules apply to every barrier (below sm_70: "barrier{.cta} instruction
    /// without .aligned modifier is equivalent to .aligned variant").
    all_aligned: bool,
    /// For the race detector: what the threads arriving at each barrier's phase knew.
    joins: [crate::race::BarrierJoin; BARRIERS as usize],
    /// The barriers some warp arrived at since the last reset (bit `id`): only those need one
    /// (most blocks use none, or barrier 0 alone, and resetting all 16 joins cost a one-warp
    /// block of the histogram example 460 instructions).
    used: u16,
}

/// Said of two arrivals at one call site reached through different warp-function calls: on a GPU
/// each call inlines its own copy of the barrier.
const THROUGH_OTHER_CALLS: &str = ", the same call site reached through other warp-function calls (each call is its own barrier instruction on a GPU)";

/// One lane group's barrier request, as read from a warp's registers.
struct Arrival {
    op: Op,
    id: u32,
    count: Option<u32>,
    lanes: u32,
    true_lanes: u32,
    site: Site,
    /// The call path to `site` (the warp-function calls it was reached through).
    path: u64,
}

impl Barriers {
    pub(crate) fn new(warps: u32, independent_scheduling: bool) -> Barriers {
        Barriers { bars: [Barrier::default(); BARRIERS as usize], warps, exited: 0, all_aligned: !independent_scheduling, joins: Default::default(), used: 0 }
    }

    /// Makes the barriers fresh for the next block of a slot.
    pub(crate) fn reset(&mut self) {
        for id in crate::semantics::lanes(self.used as u32) {
            self.bars[id as usize] = Barrier::default();
            self.joins[id as usize] = Default::default();
        }
        self.used = 0;
        self.exited = 0;
    }

    /// Warp `w` arrived: every non-exited lane of `runs[w]` waits at a barrier instruction (the
    /// lanes of `runs[w].barrier_lanes()`). Checks the rules, counts the arrival, and completes
    /// the barrier if this was the last one.
    pub(crate) fn arrive(&mut self, w: usize, runs: &mut [WarpRun<'_>]) -> Result<(), WarpError> {
        let lanes = runs[w].barrier_lanes();
        let arrival = self.read_arrival(w, lanes, runs)?;
        let Op::Bar(form) = arrival.op else { unreachable!("barrier lanes wait at barrier instructions") };
        let id = arrival.id;
        if id >= BARRIERS {
            return Err(self.error(BarrierRule::IdOutOfRange, id, format!("warp {w} ({}) executed `{}` with barrier id {id}", LaneSet(lanes), arrival.op), runs));
        }
        if let Some(b) = arrival.count {
            if !barrier::count_is_valid(b, form.kind == BarKind::Arrive) {
                return Err(self.error(BarrierRule::BadCount, id, format!("warp {w} executed `{}` on barrier {id} with thread count {b}", arrival.op), runs));
            }
        }
        let bar = &self.bars[id as usize];
        if bar.arrived & (1 << w) != 0 {
            return Err(self.error(
                BarrierRule::ArrivedTwice,
                id,
                format!("warp {w} arrived at barrier {id} and then executed `{}` on it before the barrier completed", arrival.op),
                runs,
            ));
        }
        if bar.arrived != 0 {
            if bar.count != arrival.count {
                let show = |c: Option<u32>| c.map_or("every thread of the block".to_string(), |b| format!("{b} threads"));
                return Err(self.error(
                    BarrierRule::CountMismatch,
                    id,
                    format!("{} arrived at barrier {id} for {}; warp {w} arrives with `{}` for {}", WarpSet(bar.arrived), show(bar.count), arrival.op, show(arrival.count)),
                    runs,
                ));
            }
            let red = match form.kind {
                BarKind::Red(r) => Some(r),
                _ => None,
            };
            if bar.red != red || (red.is_some() && bar.plain) {
                return Err(self.error(
                    BarrierRule::RedMixed,
                    id,
                    format!("barrier {id} is active with {} from {}; warp {w} executes `{}`", if bar.red.is_some() { "`bar.red`" } else { "`bar.sync`/`bar.arrive`" }, WarpSet(bar.arrived), arrival.op),
                    runs,
                ));
            }
            // A barrier of the whole CTA (no thread count) that is aligned is `__syncthreads()`:
            // "all threads in CTA will execute the same barrier{.cta} instruction". (Counted
            // barriers may be reached from different instructions: the spec's producer/consumer
            // model pairs `bar.arrive` and `bar.sync`.)
            if let Some((first_op, first_site, first_path, first_warp)) = bar.first {
                let aligned = matches!(first_op, Op::Bar(f) if f.aligned) || form.aligned || self.all_aligned;
                let same_site = crate::error::same_place(first_site, arrival.site);
                if arrival.count.is_none() && aligned && (first_op != arrival.op || !same_site || first_path != arrival.path) {
                    return Err(self.error(
                        BarrierRule::AlignedDifferentSites,
                        id,
                        format!(
                            "warp {first_warp} executes `{first_op}` at {first_site}; warp {w} executes `{}` at {}{}",
                            arrival.op,
                            arrival.site,
                            if same_site { THROUGH_OTHER_CALLS } else { "" }
                        ),
                        runs,
                    ));
                }
            }
        }
        // Count the arrival.
        self.used |= 1 << id;
        let bar = &mut self.bars[id as usize];
        bar.first.get_or_insert((arrival.op, arrival.site, arrival.path, w));
        bar.arrived |= 1 << w;
        bar.count = arrival.count;
        match form.kind {
            BarKind::Red(r) => {
                bar.red = Some(r);
                bar.threads += arrival.lanes.count_ones();
                bar.true_threads += arrival.true_lanes.count_ones();
            }
            _ => bar.plain = true,
        }
        // Every arrival releases: what its threads did before it happens before what the waiting
        // threads do after the barrier completes.
        let regs = runs[w].regs;
        regs.races.barrier_arrive(&regs.block().races, regs.pos().warp_in_block, lanes, &mut self.joins[id as usize]);
        if form.kind == BarKind::Arrive {
            runs[w].complete_barrier(lanes, 0);
        } else {
            bar.waiting |= 1 << w;
            runs[w].take_arrival(lanes);
        }
        self.try_complete(id, runs)
    }

    /// Warp `w` has exited entirely: it no longer counts towards barriers without a thread count,
    /// which may now complete.
    pub(crate) fn warp_exited(&mut self, w: usize, runs: &mut [WarpRun<'_>]) -> Result<(), WarpError> {
        self.exited |= 1 << w;
        for id in 0..BARRIERS {
            if self.bars[id as usize].arrived != 0 && self.bars[id as usize].count.is_none() {
                self.try_complete(id, runs)?;
            }
        }
        Ok(())
    }

    /// Completes barrier `id` if its count is reached; reports more arrivals than the count.
    fn try_complete(&mut self, id: u32, runs: &mut [WarpRun<'_>]) -> Result<(), WarpError> {
        let bar = self.bars[id as usize];
        let live_warps = (self.warps_mask() & !self.exited).count_ones();
        let expected = barrier::expected_threads(bar.count, live_warps);
        let arrived = barrier::arrived_threads(bar.arrived.count_ones());
        if arrived > expected {
            return Err(self.error(
                BarrierRule::TooManyArrivals,
                id,
                format!("{} ({arrived} threads, counted a whole warp at a time) arrived at barrier {id} of {expected} threads", WarpSet(bar.arrived)),
                runs,
            ));
        }
        if arrived == expected {
            let d = bar.red.map_or(0, |op| barrier::reduce(op, bar.threads, bar.true_threads));
            let join = &mut self.joins[id as usize];
            let acquired = (!join.is_empty()).then(|| join.take());
            for w in crate::semantics::lanes(bar.waiting) {
                let lanes = runs[w as usize].taken;
                if let Some(vc) = &acquired {
                    runs[w as usize].regs.races.barrier_complete(lanes, vc);
                }
                runs[w as usize].complete_barrier(lanes, d);
            }
            self.bars[id as usize] = Barrier::default();
        }
        Ok(())
    }

    fn warps_mask(&self) -> u32 {
        if self.warps >= 32 {
            u32::MAX
        } else {
            (1 << self.warps) - 1
        }
    }

    /// Reads warp `w`'s barrier requests and checks that its lanes agree: one barrier, one form,
    /// one count, and (aligned) one instruction.
    fn read_arrival(&self, w: usize, lanes: u32, runs: &mut [WarpRun<'_>]) -> Result<Arrival, WarpError> {
        let run = &runs[w];
        let regs = run.regs;
        let first = lanes.trailing_zeros() as usize;
        let op = regs.op_at(first);
        let a = regs.a_at(first);
        let Op::Bar(form) = op else { unreachable!("barrier lanes wait at barrier instructions") };
        let count = form.counted.then_some((a >> 32) as u32);
        let id = a as u32;
        let mut true_lanes = 0;
        let code = regs.op_code_at(first);
        for l in crate::semantics::lanes(lanes) {
            if regs.op_code_at(l as usize) != code || regs.a_at(l as usize) != a {
                let other = regs.op_at(l as usize);
                let other_a = regs.a_at(l as usize);
                return Err(self.error(
                    BarrierRule::WarpDisagrees,
                    id,
                    format!("in warp {w}, lane {first} executes `{op}` on barrier {id}; lane {l} executes `{other}` on barrier {}", other_a as u32),
                    runs,
                ));
            }
            if regs.bar_pred_at(l as usize) {
                true_lanes |= 1 << l;
            }
        }
        if (form.aligned || self.all_aligned) && !run.same_site(lanes) {
            let rule = if form.aligned { BarrierRule::AlignedDifferentSites } else { BarrierRule::NotConverged };
            let site = regs.site_at(first);
            let other = crate::semantics::lanes(lanes).find(|&l| !regs.same_instruction(l as usize, first)).unwrap_or(first as u32);
            let other_site = regs.site_at(other as usize);
            return Err(self.error(
                rule,
                id,
                format!(
                    "in warp {w}, lane {first} reaches `{op}` at {site}; lane {other} reaches it at {other_site}{}",
                    if crate::error::same_place(site, other_site) { THROUGH_OTHER_CALLS } else { "" }
                ),
                runs,
            ));
        }
        Ok(Arrival { op, id, count, lanes, true_lanes, site: regs.site_at(first), path: regs.path_at(first) })
    }

    /// Every warp that can run has finished or waits at a barrier: the barriers they wait at can
    /// never complete.
    pub(crate) fn never_completes(&self, runs: &[WarpRun<'_>]) -> WarpError {
        let mut lines = Vec::new();
        for (id, bar) in self.bars.iter().enumerate() {
            if bar.arrived == 0 {
                continue;
            }
            let live_warps = (self.warps_mask() & !self.exited).count_ones();
            let expected = barrier::expected_threads(bar.count, live_warps);
            let missing = self.warps_mask() & !self.exited & !bar.arrived;
            lines.push(format!(
                "barrier {id} waits for {expected} threads; {} arrived ({} threads); {}",
                WarpSet(bar.arrived),
                barrier::arrived_threads(bar.arrived.count_ones()),
                if missing == 0 { "no other warp of the block is left to arrive".to_string() } else { format!("{} of the block wait elsewhere", WarpSet(missing)) }
            ));
        }
        let id = self.bars.iter().position(|b| b.arrived != 0).unwrap_or(0) as u32;
        WarpError::Barrier { rule: BarrierRule::NeverCompletes, barrier: id, detail: lines.join("\n    "), report: Box::new(block_report(runs)) }
    }

    fn error(&self, rule: BarrierRule, barrier: u32, detail: String, runs: &[WarpRun<'_>]) -> WarpError {
        WarpError::Barrier { rule, barrier, detail, report: Box::new(block_report(runs)) }
    }
}

/// Every warp's report.
pub(crate) fn block_report(runs: &[WarpRun<'_>]) -> BlockReport {
    let warps: Vec<_> = runs.iter().map(|r| *r.report()).collect();
    BlockReport { block: warps.first().map_or(Dim3::new(0, 0, 0), |w| w.block), warps }
}

/// A set of warps of a block, displayed like a lane set: `warp 3`, `warps 0-2, 5`.
struct WarpSet(u32);

impl core::fmt::Display for WarpSet {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = LaneSet(self.0).to_string();
        match (s.strip_prefix("lanes "), s.strip_prefix("lane ")) {
            (Some(rest), _) => write!(f, "warps {rest}"),
            (_, Some(rest)) => write!(f, "warp {rest}"),
            _ => f.write_str("no warps"),
        }
    }
}
