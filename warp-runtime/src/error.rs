//! What a run reports when a kernel does something the PTX ISA leaves undefined.
//!
//! Every report names the rule broken (quoting the PTX ISA), the lanes at fault, and the state of
//! all 32 lanes when the run stopped. Reports are values: the host process never aborts.

use core::fmt;
use std::panic::Location;

use crate::geom::Dim3;
use crate::mem::{LaneFault, Space};
use crate::op::Op;
use crate::schedule::Schedule;
use crate::target::Target;

/// The call site of a warp instruction: the `file:line:col` of the intrinsic call.
pub type Site = &'static Location<'static>;

/// Whether `a` and `b` are the same place in the source. Two `Location`s of one place need not
/// be one static: the compiler makes one for each copy of the code that takes it (a kernel's body
/// inlined into two functions of the runtime, say), so sites are compared by value.
#[inline(always)]
pub(crate) fn same_place(a: Site, b: Site) -> bool {
    core::ptr::eq(a, b) || same_place_apart(a, b)
}

/// [`same_place`] for two `Location`s at different addresses (rare: out of line).
#[cold]
#[inline(never)]
fn same_place_apart(a: Site, b: Site) -> bool {
    a.line() == b.line() && a.column() == b.column() && a.file() == b.file()
}

/// A hash of `site`'s place ([`same_place`] sites hash alike): its line, column and file name.
/// Call paths are made of these (`warp::path_then`, at every call a lane makes), so each thread
/// keeps the hashes of the last sites it saw by address. (Out of line: inlined into every call's
/// poll, it kept the compiler from inlining callees into their callers.)
#[inline(never)]
pub(crate) fn place_hash(site: Site) -> u64 {
    std::thread_local! {
        static SEEN: [core::cell::Cell<(usize, u64)>; 16] = const { [const { core::cell::Cell::new((0, 0)) }; 16] };
    }
    let addr = (site as *const Location<'static>).addr();
    SEEN.with(|seen| {
        let slot = &seen[addr >> 4 & 15];
        let (at, h) = slot.get();
        if at == addr {
            return h;
        }
        let h = hash_place(site);
        slot.set((addr, h));
        h
    })
}

/// [`place_hash`] without the cache.
#[cold]
fn hash_place(site: Site) -> u64 {
    let mix = |h: u64, word: u64| (h.rotate_left(29) ^ word).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let file = site.file().as_bytes();
    let mut h = mix((site.line() as u64) << 32 | site.column() as u64, file.len() as u64);
    let mut words = file.chunks_exact(8);
    for w in &mut words {
        h = mix(h, u64::from_le_bytes(w.try_into().expect("8 bytes")));
    }
    let tail = words.remainder().iter().rev().fold(0u64, |t, &b| t << 8 | b as u64);
    mix(h, tail)
}

/// A set of lanes, displayed as `lane 3` or `lanes 0-15, 17`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct LaneSet(pub u32);

impl LaneSet {
    /// Whether `lane` is in the set.
    pub const fn contains(self, lane: u32) -> bool {
        self.0 >> lane & 1 == 1
    }
}

impl fmt::Display for LaneSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let bits = self.0;
        if bits == 0 {
            return f.write_str("no lanes");
        }
        f.write_str(if bits.count_ones() == 1 { "lane " } else { "lanes " })?;
        let mut first = true;
        let mut lane = 0;
        while lane < 32 {
            if bits >> lane & 1 == 0 {
                lane += 1;
                continue;
            }
            let start = lane;
            while lane + 1 < 32 && bits >> (lane + 1) & 1 == 1 {
                lane += 1;
            }
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            if start == lane {
                write!(f, "{start}")?;
            } else {
                write!(f, "{start}-{lane}")?;
            }
            lane += 1;
        }
        Ok(())
    }
}

/// What one lane was doing when the run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaneState {
    /// Between warp instructions: it had not reached its next one when the run stopped.
    Running,
    /// Waiting at a warp instruction.
    Waiting {
        /// The instruction.
        op: Op,
        /// The membermask it was executed with.
        mask: u32,
        /// Where it was called.
        site: Site,
    },
    /// Suspended on a future that is not a warp instruction; nothing will resume it.
    Blocked,
    /// Suspended at a memory operation (a scheduling point), typically spinning on it.
    AtMemory(MemWait),
    /// Waiting at a CTA barrier.
    AtBarrier {
        /// The instruction (`bar.sync`, `barrier.red.popc.u32`, ...).
        op: Op,
        /// The barrier id `a`, as executed.
        barrier: u32,
        /// The thread count `b`, if given.
        count: Option<u32>,
        /// Whether the warp's arrival was counted (every non-exited lane of the warp reached a
        /// barrier instruction); until then the lane waits for the rest of its warp.
        arrived: bool,
        /// Where it was called.
        site: Site,
    },
    /// Returned from the kernel.
    Exited,
    /// Never launched (a partial warp).
    Inactive,
    /// Panicked.
    Panicked,
}

impl fmt::Display for LaneState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaneState::Running => f.write_str("running (between warp instructions)"),
            LaneState::Waiting { op, mask, site } => {
                write!(f, "waiting at `{op}` with membermask {mask:#010x} at {site}")
            }
            LaneState::Blocked => f.write_str("suspended outside any warp instruction"),
            LaneState::AtMemory(wait) => write!(f, "spinning: {wait}"),
            LaneState::AtBarrier { op, barrier, count, arrived, site } => {
                write!(f, "waiting at `{op}` on barrier {barrier}")?;
                if let Some(b) = count {
                    write!(f, " of {b} threads")?;
                }
                write!(f, " at {site}")?;
                if !arrived {
                    f.write_str(" (its warp has not arrived: the rest of the warp is elsewhere)")?;
                }
                Ok(())
            }
            LaneState::Exited => f.write_str("exited"),
            LaneState::Inactive => f.write_str("inactive (not launched)"),
            LaneState::Panicked => f.write_str("panicked"),
        }
    }
}

/// The state of every lane of the warp when a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The target the run modelled.
    pub target: Target,
    /// The warp's index in its launch (0 for a single warp).
    pub warp: u64,
    /// The warp's block (`%ctaid`).
    pub block: Dim3,
    /// The warp's index in its block.
    pub warp_in_block: u32,
    /// How many warps its block has.
    pub warps_in_block: u32,
    /// The schedule of the run: replaying it with [`Grid::schedule`](crate::Grid::schedule)
    /// reproduces the report.
    pub schedule: Schedule,
    /// The order lanes were polled in within a step: with the schedule, what reproduces a
    /// failure that depends on the order of side effects.
    pub lane_order: crate::LaneOrder,
    /// Each lane's state, indexed by lane id.
    pub lanes: [LaneState; 32],
    /// Where each lane called the last warp instruction it issued (`None` before its first): for
    /// a running lane, the last place it is known to have been.
    pub last_site: [Option<Site>; 32],
}

impl Report {
    /// The lanes in a given state.
    pub fn lanes_where(&self, mut pred: impl FnMut(&LaneState) -> bool) -> LaneSet {
        LaneSet((0..32).filter(|&l| pred(&self.lanes[l])).fold(0, |m, l| m | 1 << l))
    }
}

impl fmt::Display for Report {
    /// One line per run of consecutive lanes in the same state.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.warps_in_block <= 1 {
            // A warp alone in its block (a single warp, or `Grid::new`): the warp's index says all.
            write!(f, "  lane states (warp {}, {}", self.warp, self.target)?;
        } else {
            write!(f, "  lane states (warp {} of block {}, {}", self.warp_in_block, self.block, self.target)?;
        }
        if self.schedule != Schedule::InOrder {
            write!(f, ", schedule {}", self.schedule)?;
        }
        match self.lane_order {
            crate::LaneOrder::Ascending => {}
            crate::LaneOrder::Descending => f.write_str(", lanes polled in descending order")?,
            crate::LaneOrder::Seeded(seed) => write!(f, ", lanes polled in the order of LaneOrder::Seeded({seed})")?,
        }
        f.write_str("):")?;
        // A running lane's line also says where it last completed a warp instruction.
        let last = |l: usize| if self.lanes[l] == LaneState::Running { self.last_site[l] } else { None };
        let mut lane = 0;
        while lane < 32 {
            let mut end = lane;
            while end + 1 < 32 && self.lanes[end + 1] == self.lanes[lane] && last(end + 1) == last(lane) {
                end += 1;
            }
            let span = LaneSet((((1u64 << (end + 1)) - 1) as u32) & !(((1u64 << lane) - 1) as u32));
            write!(f, "\n    {:<12} {}", span.to_string(), self.lanes[lane])?;
            if let Some(site) = last(lane) {
                write!(f, ", last warp instruction at {site}")?;
            }
            lane = end + 1;
        }
        Ok(())
    }
}

/// A memory operation a lane suspended at (a scheduling point), with what it read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemWait {
    /// Where it was called.
    pub site: Site,
    /// The operation (`ld.volatile`, `atom.cas`, ...).
    pub op: &'static str,
    /// The memory space.
    pub space: Space,
    /// The element index.
    pub index: usize,
    /// The bits it read (for an atomic, the old value; for an mbarrier wait, the barrier's
    /// phase).
    pub value: u64,
    /// For an mbarrier wait, what the thread waits for and the barrier's state.
    pub mbarrier: Option<crate::mbarrier::MbarrierView>,
}

impl MemWait {
    /// The same operation at the same place returning the same value: a lane that repeats it
    /// is spinning.
    pub(crate) fn same_as(&self, other: &MemWait) -> bool {
        self.op == other.op && self.space == other.space && self.index == other.index && self.value == other.value && same_place(self.site, other.site)
    }
}

impl fmt::Display for MemWait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.space == Space::Generic {
            return write!(
                f,
                "a plain load at {} (warning: a weak load; on the GPU the compiler may hoist it out of a spin loop, so spin on `load_volatile`)",
                self.site
            );
        }
        if let Some(view) = &self.mbarrier {
            return write!(f, "`{}.{}.b64` of the mbarrier at element {} at {}: {view}", self.op, self.space.name(), self.index, self.site);
        }
        write!(f, "`{}.{}` of element {} read {:#x} at {}", self.op, self.space.name(), self.index, self.value, self.site)
    }
}

/// The state of every warp of a block when a run stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockReport {
    /// The block (`%ctaid`).
    pub block: Dim3,
    /// Each warp's report, in warp order.
    pub warps: Vec<Report>,
}

impl BlockReport {
    /// A block of one warp.
    pub(crate) fn of_warp(report: Box<Report>) -> BlockReport {
        BlockReport { block: report.block, warps: vec![*report] }
    }
}

impl fmt::Display for BlockReport {
    /// Every warp's lane states, one block after another.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, w) in self.warps.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{w}")?;
        }
        Ok(())
    }
}

/// Block reports, one after another.
/// The text of [`WarpError::Aborted`].
struct Aborted<'a> {
    cause: &'a str,
    lane: Option<u32>,
    panics: &'a str,
    output: &'a str,
    report: Option<&'a Report>,
}

impl fmt::Display for Aborted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "isolated run: the child process {}", self.cause)?;
        if let (Some(lane), Some(report)) = (self.lane, self.report) {
            write!(f, "\n  it was running lane {lane} of warp {}", report.warp)?;
            if report.warps_in_block > 1 {
                write!(f, " (warp {} of block {})", report.warp_in_block, report.block)?;
            }
        }
        for line in self.panics.lines() {
            write!(f, "\n  panic: {line}")?;
        }
        if let Some(report) = self.report {
            write!(f, "\n{report}")?;
        }
        let output = self.output.trim_end();
        if !output.is_empty() {
            f.write_str("\n  its standard error ended with:")?;
            for line in output.lines() {
                write!(f, "\n    {line}")?;
            }
        }
        Ok(())
    }
}

struct Blocks<'a>(&'a [BlockReport]);

impl fmt::Display for Blocks<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{b}")?;
        }
        Ok(())
    }
}

/// Which rule of 9.7.13.1 (`bar`, `barrier`) a run broke.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BarrierRule {
    /// An aligned barrier (`bar.*`, or any barrier below sm_70) reached by only part of a warp's
    /// non-exited threads.
    AlignedPartialWarp,
    /// An aligned barrier reached by threads of one warp from different instructions.
    AlignedDifferentSites,
    /// Below sm_70, a warp's threads did not execute the barrier in convergence.
    NotConverged,
    /// The threads of one warp executed different barrier operations (ids, forms or counts).
    WarpDisagrees,
    /// A barrier id outside 0..=15.
    IdOutOfRange,
    /// A thread count that is not a multiple of 32 (or zero for `arrive`).
    BadCount,
    /// Warps name different thread counts for one barrier in flight.
    CountMismatch,
    /// More threads arrived at a barrier than its thread count.
    TooManyArrivals,
    /// `bar.red` mixed with `bar.sync`/`bar.arrive` (or with another reduction) on one active
    /// barrier.
    RedMixed,
    /// A warp that arrived at a barrier executed another operation on it before it completed.
    ArrivedTwice,
    /// A barrier that can never complete: the report shows where every warp is.
    NeverCompletes,
}

impl BarrierRule {
    /// The PTX ISA's words for the rule.
    pub const fn quote(self) -> &'static str {
        match self {
            BarrierRule::AlignedPartialWarp | BarrierRule::AlignedDifferentSites => "Instruction barrier{.cta} has optional .aligned modifier. When specified, it indicates that all threads in CTA will execute the same barrier{.cta} instruction. In conditionally executed code, an aligned barrier{.cta} instruction should only be used if it is known that all threads in CTA evaluate the condition identically, otherwise behavior is undefined.",
            BarrierRule::NotConverged => "For .target sm_6x or below, ... All threads in warp (except for those have exited) must execute barrier{.cta} instruction in convergence.",
            BarrierRule::WarpDisagrees => "barrier{.cta} instruction causes executing thread to wait for all non-exited threads from its warp and marks warps' arrival at barrier.",
            BarrierRule::IdOutOfRange => "Each CTA instance has sixteen barriers numbered 0..15.",
            BarrierRule::BadCount => "When specifying a thread count, the value must be a multiple of the warp size. Note that a non-zero thread count is required for barrier{.cta}.arrive.",
            BarrierRule::CountMismatch => "Different warps may execute different forms of the barrier{.cta} instruction using the same barrier name and thread count.",
            BarrierRule::TooManyArrivals => "Operand b specifies the number of threads participating in the barrier.",
            BarrierRule::RedMixed => "barrier{.cta}.red should not be intermixed with barrier{.cta}.sync or barrier{.cta}.arrive using the same active barrier. Execution in this case is unpredictable.",
            BarrierRule::ArrivedTwice => "Care must be taken to keep a warp from executing more barrier{.cta} instructions than intended (barrier{.cta}.arrive followed by any other barrier{.cta} instruction to the same barrier) prior to the reset of the barrier.",
            BarrierRule::NeverCompletes => "barrier{.cta}.red and barrier{.cta}.sync instructions cause executing thread to wait for non-exited threads of all other warps participating in the barrier to arrive.",
        }
    }

    /// What the rule is, in a few words.
    pub const fn summary(self) -> &'static str {
        match self {
            BarrierRule::AlignedPartialWarp => "undefined behaviour: an aligned barrier is reached by only part of a warp",
            BarrierRule::AlignedDifferentSites => "undefined behaviour: an aligned barrier is reached by one warp's threads from different barrier instructions",
            BarrierRule::NotConverged => "undefined behaviour: a warp's threads do not execute the barrier in convergence",
            BarrierRule::WarpDisagrees => "undefined behaviour: the threads of one warp execute different barrier operations",
            BarrierRule::IdOutOfRange => "undefined behaviour: a barrier id outside 0..=15",
            BarrierRule::BadCount => "undefined behaviour: a barrier thread count that is not a (non-zero, for arrive) multiple of 32",
            BarrierRule::CountMismatch => "undefined behaviour: warps name different thread counts for one barrier",
            BarrierRule::TooManyArrivals => "undefined behaviour: more threads arrive at a barrier than its thread count",
            BarrierRule::RedMixed => "unpredictable: `bar.red` mixed with another barrier operation on one active barrier",
            BarrierRule::ArrivedTwice => "undefined behaviour: a warp executes a second operation on a barrier it already arrived at, before the barrier completed",
            BarrierRule::NeverCompletes => "deadlock: a barrier can never complete",
        }
    }
}

/// A warp instruction that lanes issued and never awaited: where it was called, so that a report
/// names the call even when the lane went on to another instruction or returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unawaited {
    /// The lanes that issued it there.
    pub lanes: LaneSet,
    /// The instruction.
    pub op: Op,
    /// Where it was called (the handle method's caller: `file:line:col` in the kernel).
    pub site: Site,
}

impl fmt::Display for Unawaited {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` called at {} by {} was never awaited", self.op, self.site, self.lanes)
    }
}

/// Why a `shfl.sync` source lane is not a valid source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShflFault {
    /// The reading lane.
    pub lane: u32,
    /// The lane it reads from.
    pub source: u32,
    /// The source lane is not in the membermask.
    pub not_in_mask: bool,
    /// The source lane is not executing: it has exited, or was never launched (a partial warp).
    pub exited: bool,
    /// The source lane was launched (false for a lane past the end of a partial warp, which
    /// never ran).
    pub launched: bool,
}

impl fmt::Display for ShflFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match (self.not_in_mask, self.exited, self.launched) {
            (true, true, true) => "has exited and is not in membermask",
            (true, true, false) => "was never launched (a partial warp) and is not in membermask",
            (true, false, _) => "is not in membermask (and is not executing this instruction)",
            (false, _, true) => "has exited",
            (false, _, false) => "was never launched (it lies past the end of a partial warp)",
        };
        write!(f, "lane {} reads lane {}, which {why}", self.lane, self.source)
    }
}

/// Two lanes that each name the other in their membermask but wait at different instructions or
/// with different membermasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// One lane.
    pub lane: u32,
    /// Its instruction.
    pub op: Op,
    /// Its membermask.
    pub mask: u32,
    /// The other lane, in `mask`.
    pub other: u32,
    /// The other lane's instruction.
    pub other_op: Op,
    /// The other lane's membermask, which contains `lane`.
    pub other_mask: u32,
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lane {} waits at `{}` with membermask {:#010x}; lane {} waits at `{}` with membermask {:#010x}",
            self.lane, self.op, self.mask, self.other, self.other_op, self.other_mask
        )
    }
}

/// One edge of a wait-for graph: `lane` cannot go on until `waits_for` arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitEdge {
    /// The waiting lane.
    pub lane: u32,
    /// A lane of its membermask that has not arrived at its instruction.
    pub waits_for: u32,
}

/// Conflicts grouped by the two (instruction, membermask) pairs that disagree, one line a group.
struct Conflicts<'a>(&'a [Conflict]);

impl fmt::Display for Conflicts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut groups: Vec<(Op, u32, Op, u32, u32, u32)> = Vec::new();
        for c in self.0 {
            match groups.iter_mut().find(|g| (g.0, g.1, g.2, g.3) == (c.op, c.mask, c.other_op, c.other_mask)) {
                Some(g) => {
                    g.4 |= 1 << c.lane;
                    g.5 |= 1 << c.other;
                }
                None => groups.push((c.op, c.mask, c.other_op, c.other_mask, 1 << c.lane, 1 << c.other)),
            }
        }
        for (op, mask, other_op, other_mask, lanes, others) in groups {
            let verb = |set: u32| if set.count_ones() == 1 { "waits" } else { "wait" };
            writeln!(
                f,
                "    {} {} at `{op}` with membermask {mask:#010x}; {} of that mask {} at `{other_op}` with membermask {other_mask:#010x}",
                LaneSet(lanes),
                verb(lanes),
                LaneSet(others),
                verb(others)
            )?;
        }
        Ok(())
    }
}

struct Lines<'a, T>(&'a [T]);

impl<T: fmt::Display> fmt::Display for Lines<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for item in self.0 {
            writeln!(f, "    {item}")?;
        }
        Ok(())
    }
}

const RULE_NOT_IN_MASK: &str = "The behavior of {op} is undefined if the executing thread is not in the membermask.";

fn base_name(op: &Op) -> &'static str {
    match op {
        Op::Shfl { .. } => "shfl.sync",
        Op::Vote(_) => "vote.sync",
        Op::VoteLegacy(_) => "vote",
        Op::MatchAny { .. } | Op::MatchAll { .. } => "match.sync",
        Op::Redux(..) | Op::ReduxF32(_) => "redux.sync",
        Op::Activemask => "activemask",
        Op::BarWarpSync => "bar.warp.sync",
        Op::Elect => "elect.sync",
        Op::Bar(b) if b.aligned => "bar",
        Op::Bar(_) => "barrier",
    }
}

struct Rule<'a>(&'a str, &'a Op);

impl fmt::Display for Rule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.replace("{op}", base_name(self.1)))
    }
}

/// Why a run stopped before every lane exited.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WarpError {
    /// Rule 1: a lane executed an instruction with a membermask that does not include it.
    #[error(
        "undefined behaviour: {lanes} executed `{op}` with a membermask that does not include the executing lane\n  PTX ISA: \"{rule}\"\n{report}",
        rule = Rule(RULE_NOT_IN_MASK, op)
    )]
    NotInMembermask {
        /// The instruction.
        op: Op,
        /// The lanes at fault.
        lanes: LaneSet,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// Rule 2: a `shfl.sync` read a lane that has exited, is not active at the instruction, or is
    /// not in membermask.
    #[error(
        "undefined behaviour: `{op}` reads lanes that are not valid sources\n{faults}  PTX ISA: \"Sourcing from an inactive thread or one not in membermask is undefined.\"\n{report}",
        faults = Lines(faults)
    )]
    InvalidShflSource {
        /// The shuffle.
        op: Op,
        /// Each lane at fault and its source.
        faults: Vec<ShflFault>,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// Rule 3: lanes that name each other in their membermasks wait at different instructions or
    /// with different membermasks, so none of them can complete.
    #[error(
        "undefined behaviour (deadlock): lanes of one membermask wait at different warp instructions or with different membermasks, so none of them can ever complete\n{conflicts}  PTX ISA: \"... will cause executing thread to wait until all non-exited threads in membermask have executed [the instruction] with the same qualifiers and same membermask value before resuming execution.\"\n{report}",
        conflicts = Conflicts(conflicts)
    )]
    Divergent {
        /// The pairs of lanes that disagree (each pair once).
        conflicts: Vec<Conflict>,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// Rule 3, sm_6x form: the lanes of a membermask did not execute the instruction in
    /// convergence (from different call sites or calls of a helper, or with lanes of the
    /// membermask that have exited), which targets below sm_70 do not allow.
    #[error(
        "undefined behaviour on {target}: {lanes} executed `{op}` with membermask {mask:#010x} out of convergence (from different call sites or calls of a helper, or with lanes of the membermask that have exited)\n  PTX ISA: \"For .target sm_6x or below, all threads in membermask must execute the same {base} instruction in convergence\"\n{report}",
        base = base_name(op)
    )]
    NotConverged {
        /// The instruction.
        op: Op,
        /// Its membermask.
        mask: u32,
        /// The lanes that executed it.
        lanes: LaneSet,
        /// The modelled target.
        target: Target,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// Rule 4: some lanes wait and no warp instruction can ever complete.
    #[error(
        "deadlock: {waiting} wait at warp instructions that can never complete, or spin on memory nothing will write\n{edges}{report}",
        edges = Lines(&edges.iter().map(|e| format!("lane {} waits for lane {}", e.lane, e.waits_for)).collect::<Vec<_>>())
    )]
    Deadlock {
        /// The lanes that wait.
        waiting: LaneSet,
        /// Who waits for whom.
        edges: Vec<WaitEdge>,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// Rule 5: a lane panicked.
    #[error("lane {lane} panicked at {location}: {message}\n{report}")]
    LanePanicked {
        /// The lane.
        lane: u32,
        /// The panic message.
        message: String,
        /// Where it panicked (`file:line:col`), or `unknown location`.
        location: String,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// Rule 6: the modelled target lacks the instruction.
    #[error("`{op}` is not available on {target}: it requires {min} or higher (executed by {lanes})\n{report}", min = op.min_target())]
    Unsupported {
        /// The instruction.
        op: Op,
        /// The modelled target.
        target: Target,
        /// The lanes that executed it.
        lanes: LaneSet,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// A lane issued a warp instruction and did not await it before issuing the next one or
    /// returning. `#[warp_kernel]` awaits every intrinsic it sees and rejects the shapes it cannot
    /// see into (a macro, a copy of the handle); code that calls the runtime directly, or a plain
    /// function or method a kernel calls, can still do this, and [`Unawaited`] names the call.
    #[error(
        "{lanes} issued a warp instruction without awaiting it before the next one or before returning; await each intrinsic where it is called\n{unawaited}{report}",
        unawaited = Lines(unawaited)
    )]
    NotAwaited {
        /// The lanes at fault.
        lanes: LaneSet,
        /// Each instruction issued and not awaited, with its call site and lanes.
        unawaited: Vec<Unawaited>,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// Rule 6, for the deprecated `vote` without `.sync` on sm_70 and higher.
    #[error("`{op}` (vote without `.sync`) is not available on {target}: \"Support for vote instruction without a .sync qualifier is removed in PTX ISA version 6.4 for .target sm_70 or higher.\" Use the `vote.sync` forms (`all`, `any`, `uni`, `ballot`) with a membermask (executed by {lanes})\n{report}")]
    VoteRemoved {
        /// The instruction.
        op: Op,
        /// The modelled target.
        target: Target,
        /// The lanes that executed it.
        lanes: LaneSet,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// A CTA barrier (9.7.13.1) used in a way the PTX ISA leaves undefined, or one that can
    /// never complete. The report shows every warp of the block: where each lane waits (barrier
    /// id, count, call site), and which lanes have exited.
    #[error("{summary} (barrier {barrier})\n    {detail}\n  PTX ISA: \"{quote}\"\n{report}", summary = rule.summary(), quote = rule.quote())]
    Barrier {
        /// The rule.
        rule: BarrierRule,
        /// The barrier id, as executed.
        barrier: u32,
        /// Which warps and lanes, and why.
        detail: String,
        /// Every warp of the block.
        report: Box<BlockReport>,
    },

    /// Nothing can make progress: every thread that has not exited waits at a barrier that
    /// cannot complete, or spins on memory that nothing will write, and no other block can
    /// become resident to write it (a GPU hangs here).
    #[error("forward-progress deadlock: {detail}\n{blocks}", blocks = Blocks(blocks))]
    ForwardProgress {
        /// What waits on what, in a sentence.
        detail: String,
        /// Every resident block.
        blocks: Vec<BlockReport>,
    },

    /// The run went on past its time limit ([`Executor::time_limit`](crate::Executor::time_limit),
    /// [`Grid::time_limit`](crate::Grid::time_limit)) without finishing or being found stuck:
    /// lanes that wait while writing memory (a livelock the spin rule cannot see), or more work
    /// than the limit allows. The report shows every lane's state and, for running lanes, where
    /// each last completed a warp instruction.
    #[error("time limit: the run went on for {elapsed:?}, past its limit of {limit:?} ({detail})\n{blocks}", blocks = Blocks(blocks))]
    TimeLimit {
        /// The limit.
        limit: std::time::Duration,
        /// How long it ran.
        elapsed: std::time::Duration,
        /// What the runtime saw in the last stretch, in a sentence.
        detail: String,
        /// Every resident block (the warp, for a single-warp run).
        blocks: Vec<BlockReport>,
    },

    /// An isolated run ([`Executor::isolated`](crate::Executor::isolated),
    /// [`Grid::isolated`](crate::Grid::isolated)) whose child process did not survive the launch:
    /// a stack overflow, an abort (a panic under `panic = "abort"`, a panic while panicking, an
    /// allocation failure), a fault, or a run past its time limit. The host is unharmed; the
    /// report is what the child recorded before it died.
    #[error("{}", Aborted { cause, lane: *lane, panics, output, report: report.as_deref() })]
    Aborted {
        /// How the child ended.
        cause: String,
        /// The lane the child was polling when it died, if it was polling one.
        lane: Option<u32>,
        /// Every panic message the child saw, one per line, with its location.
        panics: String,
        /// The end of the child's standard error.
        output: String,
        /// The lanes of the warp it was polling, as its registers showed them: each waiting lane's
        /// instruction and call site, each running lane's last call site.
        report: Option<Box<Report>>,
    },

    /// A launch that cannot be made as configured (an empty grid, a block of more than 1024
    /// threads, more shared memory than a block may have, results that do not fit in memory).
    #[error("cannot launch: {what}")]
    Launch {
        /// What is wrong.
        what: String,
    },

    /// A memory access the runtime checks went wrong (a shared-memory index out of bounds, a
    /// read of uninitialized shared memory, a bad view of dynamic shared memory).
    #[error("lane {lane}: {fault}\n{report}")]
    Memory {
        /// The lane.
        lane: u32,
        /// What went wrong.
        fault: LaneFault,
        /// Every lane's state.
        report: Box<Report>,
    },

    /// The run completed, and the race detector found data races: pairs of conflicting
    /// accesses (overlapping, at least one a write, not both morally strong) that nothing
    /// orders. On a GPU their result depends on timing. Each race is listed once per pair of
    /// call sites, with both accesses and what would order them.
    #[error("{}", Races { races, total: *total })]
    Race {
        /// The distinct races (first occurrence of each pair of call sites), at most 64.
        races: Vec<Race>,
        /// How many racing pairs of accesses the run saw in all.
        total: u64,
    },
}

/// Where a race happened: between threads of one warp, of one block, or of two blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RaceKind {
    /// Two lanes of one warp: an intra-warp hazard that independent thread scheduling makes real
    /// (on sm_70 and later lanes of a warp run in any order between `bar.warp.sync`s).
    IntraWarp,
    /// Two warps of one block.
    IntraBlock,
    /// Two blocks.
    InterBlock,
}

/// One access of a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceAccess {
    /// The block (`%ctaid`).
    pub block: Dim3,
    /// The warp's index in its block.
    pub warp: u32,
    /// The warp's index in the launch.
    pub global_warp: u64,
    /// The lane.
    pub lane: u32,
    /// The operation (`st.global`, `ld.shared`, `atom.add`, `ld.acquire`, ...).
    pub op: &'static str,
    /// Whether it wrote.
    pub write: bool,
    /// Its `.sem` and `.scope` if it was strong; `None` for a plain (weak) access.
    pub order: Option<(crate::sem::Sem, crate::sem::Scope)>,
    /// The value it read or wrote (for an atomic, the old value), as bits.
    pub value: u64,
    /// The element index the kernel used.
    pub index: usize,
    /// Where it was made.
    pub site: Site,
    /// Whether it is the dependent grid's, in a programmatic dependent launch
    /// ([`launch_dependent`](crate::grid::launch_dependent)); else the launch's (or the primary
    /// grid's).
    pub dependent: bool,
}

impl fmt::Display for RaceAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.block;
        let grid = if self.dependent { " of the dependent grid" } else { "" };
        let launch = if self.dependent { "its grid" } else { "the launch" };
        write!(f, "lane {} of warp {} (block ({}, {}, {}){grid}, warp {} of {launch}): `{}`", self.lane, self.warp, b.x, b.y, b.z, self.global_warp, self.op)?;
        if let Some((sem, scope)) = self.order {
            if !self.op.contains(sem.name()) && !self.op.contains("volatile") {
                write!(f, " (.{}.{})", sem.name(), scope.name())?;
            }
        }
        write!(f, " {} element {} {} {:#x} at {}", if self.write { "wrote" } else { "read" }, self.index, if self.write { "=" } else { "->" }, self.value, self.site)
    }
}

/// A data race: two conflicting accesses that nothing orders.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// The memory space.
    pub space: Space,
    /// The earlier access.
    pub first: RaceAccess,
    /// The later access (in the CPU run's order; on a GPU either may come first).
    pub second: RaceAccess,
    /// Between lanes of a warp, warps of a block, or blocks.
    pub kind: RaceKind,
    /// What would order them.
    pub fix: String,
    /// How many racing pairs of accesses these two call sites made.
    pub count: u64,
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            RaceKind::IntraWarp => "intra-warp hazard",
            RaceKind::IntraBlock => "data race between warps of a block",
            RaceKind::InterBlock => "data race between blocks",
        };
        writeln!(f, "{what} on {} memory:", self.space.name())?;
        writeln!(f, "    {}", self.first)?;
        writeln!(f, "    {}", self.second)?;
        write!(f, "  {}", self.fix)?;
        if self.count > 1 {
            write!(f, "\n  ({} racing pairs at these two call sites)", self.count)?;
        }
        Ok(())
    }
}

/// The text of [`WarpError::Race`].
struct Races<'a> {
    races: &'a [Race],
    total: u64,
}

impl fmt::Display for Races<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "data races: {} racing pairs of accesses at {} pairs of call sites", self.total, self.races.len())?;
        for race in self.races {
            write!(f, "\n  {race}")?;
        }
        Ok(())
    }
}

impl WarpError {
    /// The state of every lane of the warp at fault when the run stopped (for a barrier or
    /// forward-progress report, the first warp of the block report); `None` for a launch that
    /// could not start.
    pub fn report(&self) -> Option<&Report> {
        match self {
            WarpError::NotInMembermask { report, .. }
            | WarpError::InvalidShflSource { report, .. }
            | WarpError::Divergent { report, .. }
            | WarpError::NotConverged { report, .. }
            | WarpError::Deadlock { report, .. }
            | WarpError::LanePanicked { report, .. }
            | WarpError::Unsupported { report, .. }
            | WarpError::NotAwaited { report, .. }
            | WarpError::VoteRemoved { report, .. }
            | WarpError::Memory { report, .. } => Some(report),
            WarpError::Barrier { report, .. } => report.warps.first(),
            WarpError::ForwardProgress { blocks, .. } | WarpError::TimeLimit { blocks, .. } => blocks.first().and_then(|b| b.warps.first()),
            WarpError::Aborted { report, .. } => report.as_deref(),
            WarpError::Launch { .. } | WarpError::Race { .. } => None,
        }
    }
}


/// The same report as `Display`, so that `.unwrap()` on a run shows the sanitizer report.
impl fmt::Debug for WarpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn caller() -> Site {
        Location::caller()
    }

    /// One place, taken in code that each of two modules gets a copy of: a build with several
    /// codegen units (this crate's tests, and release builds of kernels inlined into two of the
    /// runtime's functions) makes a `Location` in each copy.
    #[inline(always)]
    fn copied() -> Site {
        caller()
    }

    mod one {
        #[inline(never)]
        pub(super) fn site() -> super::Site {
            super::copied()
        }
    }

    mod two {
        #[inline(never)]
        pub(super) fn site() -> super::Site {
            super::copied()
        }
    }

    /// Sites are compared, and call paths made, by place: lanes that reach one instruction
    /// through two copies of the kernel's code are at the same instruction (a release build
    /// reported `__syncthreads()` reached "from different barrier instructions" when a warp's
    /// first lane was polled from the direct start's copy and the others from the step's).
    #[test]
    fn a_place_is_one_site_in_every_copy_of_the_code() {
        let (a, b) = (one::site(), two::site());
        assert_eq!((a.file(), a.line(), a.column()), (b.file(), b.line(), b.column()));
        assert!(same_place(a, b), "{a} at {a:p} and {b:p}");
        assert_eq!(place_hash(a), place_hash(b));
        assert_eq!(crate::warp::path_then(7, a, false), crate::warp::path_then(7, b, false));
        // Other places differ: another column, another line.
        let (c, d) = (caller(), caller());
        assert!(!same_place(a, c) && !same_place(c, d), "{a} {c} {d}");
        assert_ne!(place_hash(c), place_hash(d));
        assert_ne!(crate::warp::path_then(7, c, false), crate::warp::path_then(7, d, false));
    }
}
