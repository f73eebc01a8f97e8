//! Execution traces: what every lane of a warp did at every step of a run, and two pictures of it.
//!
//! A [`Tracer`] given to an [`Executor`](crate::Executor) or a [`Grid`](crate::Grid) records,
//! for each traced warp and each step of the lockstep engine:
//! - which lanes ran (were polled) in the step;
//! - each lane's state at the end of it ([`LaneState`]: waiting at an instruction with its
//!   membermask and call site, at a CTA barrier, spinning at a memory operation, exited, ...);
//! - each instruction that completed, with every participating lane's operands and results;
//! - barrier arrivals and completions, lanes that exited, data races, and the report that ended
//!   the run.
//!
//! The recorded [`Trace`] exports as Chrome trace-event JSON ([`Trace::to_perfetto_json`], for
//! `ui.perfetto.dev` and `chrome://tracing`) and as a self-contained HTML page with an SVG lane
//! timeline ([`Trace::to_html`]).
//!
//! A run without a tracer records nothing: the engine tests one `Option` per step.
//!
//! ```
//! use warp_runtime::{trace::Tracer, Executor, Warp};
//!
//! let tracer = Tracer::new();
//! Executor::new()
//!     .trace(&tracer)
//!     .run(async |w: &Warp<'_>| {
//!         let mut v = w.lane_id();
//!         if v % 2 == 0 {
//!             // Only the even lanes: they shuffle among themselves.
//!             let even = w.activemask().await;
//!             v += w.group(even).shfl_xor(v, 2).await;
//!         }
//!         v + w.shfl_xor(v, 1).await // every lane
//!     })
//!     .unwrap();
//! let trace = tracer.trace();
//! let steps = &trace.warps[0].steps;
//! // `activemask`, the even lanes' shuffle, the full shuffle (the odd lanes waited at it since
//! // step 0), then every lane returns.
//! let done: Vec<_> = steps.iter().map(|s| s.completed.0).collect();
//! assert_eq!(done, [0x5555_5555, 0x5555_5555, u32::MAX, 0]);
//! assert!(trace.to_html().contains("<svg"));
//! ```

mod html;
mod json;

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::error::{LaneSet, LaneState, Site, WarpError};
use crate::geom::Dim3;
use crate::op::Op;

/// Where a run records its trace. Cheap to clone (clones share the recording); each run that
/// uses it replaces what it held.
#[derive(Clone)]
pub struct Tracer {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Tracer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracer").field("id", &self.shared.id).field("config", &self.shared.config).finish()
    }
}

/// Which steps and warps a tracer keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Config {
    /// Per warp, the most recent steps kept (`None`: all of them).
    last: Option<usize>,
    /// The warps traced, by index in the launch (`None`: all).
    warps: Option<(u64, u64)>,
}

struct Shared {
    id: u64,
    config: Config,
    /// The next step's position on the run's timeline (shared by the warps of a launch).
    seq: AtomicU64,
    data: Mutex<Trace>,
}

/// The tracers alive, by id: an [`Executor`](crate::Executor) is `Copy` and holds only the id.
fn registry() -> &'static Mutex<HashMap<u64, Weak<Shared>>> {
    static REGISTRY: OnceLock<Mutex<HashMap<u64, Weak<Shared>>>> = OnceLock::new();
    REGISTRY.get_or_init(Default::default)
}

impl Default for Tracer {
    fn default() -> Tracer {
        Tracer::new()
    }
}

impl Tracer {
    /// A tracer that keeps every step of every warp (for small runs).
    pub fn new() -> Tracer {
        Tracer::with(Config { last: None, warps: None })
    }

    /// A tracer that keeps, per warp, the last `steps` steps (a ring: memory stays bounded
    /// however long the run).
    pub fn last(steps: usize) -> Tracer {
        Tracer::with(Config { last: Some(steps.max(1)), warps: None })
    }

    /// Traces only the warps of the launch whose index (block-major: `block * warps_per_block
    /// + warp`) is in `warps`; the others run untraced.
    pub fn warps(self, warps: core::ops::Range<u64>) -> Tracer {
        let config = Config { warps: Some((warps.start, warps.end)), ..self.shared.config };
        Tracer::with(config)
    }

    fn with(config: Config) -> Tracer {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        let shared = Arc::new(Shared { id, config, seq: AtomicU64::new(0), data: Mutex::new(Trace::default()) });
        let mut reg = registry().lock().unwrap_or_else(|e| e.into_inner());
        reg.retain(|_, w| w.strong_count() > 0);
        reg.insert(id, Arc::downgrade(&shared));
        Tracer { shared }
    }

    /// The id an executor keeps.
    pub(crate) fn id(&self) -> u64 {
        self.shared.id
    }

    /// What the last run recorded.
    pub fn trace(&self) -> Trace {
        self.shared.data.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// A run's handle on its tracer (found from the executor's id when the run starts).
#[derive(Clone)]
pub(crate) struct RunTracer {
    shared: Arc<Shared>,
}

impl RunTracer {
    /// The tracer of id `id`, emptied for a new run (`None` if it was dropped). Out of line: the
    /// engine's run loop stays the size it was without tracing.
    #[inline(never)]
    pub(crate) fn begin(id: Option<u64>) -> Option<RunTracer> {
        let id = id?;
        let shared = registry().lock().unwrap_or_else(|e| e.into_inner()).get(&id)?.upgrade()?;
        *shared.data.lock().unwrap_or_else(|e| e.into_inner()) = Trace::default();
        shared.seq.store(0, Ordering::Relaxed);
        Some(RunTracer { shared })
    }

    /// A recorder for warp `warp` of the launch, if the tracer selects it.
    pub(crate) fn warp(&self, warp: u64, block: Dim3, warp_in_block: u32, launched: u32) -> Option<Box<WarpTracer>> {
        if let Some((lo, hi)) = self.shared.config.warps {
            if !(lo..hi).contains(&warp) {
                return None;
            }
        }
        Some(Box::new(WarpTracer {
            shared: self.shared.clone(),
            trace: WarpTrace { warp, block, warp_in_block, launched: LaneSet(launched), dropped: 0, steps: VecDeque::new() },
            instrs: Vec::new(),
            step: 0,
            runnable: launched,
            exited: !launched,
        }))
    }

    /// The run ended with `error`.
    #[inline(never)]
    pub(crate) fn finish(&self, error: Option<&WarpError>) {
        let mut data = self.shared.data.lock().unwrap_or_else(|e| e.into_inner());
        data.warps.sort_by_key(|w| w.warp);
        let trace = core::mem::take(&mut *data);
        *data = match error {
            Some(e) => trace.with_report(e),
            None => trace,
        };
    }
}

/// The warps a report is about (for a race, the second access's warp; for a block's report,
/// every warp of it).
fn failing_warps(e: &WarpError) -> Vec<u64> {
    match e {
        WarpError::Race { races, .. } => races.first().map(|r| r.second.global_warp).into_iter().collect(),
        WarpError::Barrier { report, .. } => report.warps.iter().map(|r| r.warp).collect(),
        WarpError::ForwardProgress { blocks, .. } | WarpError::TimeLimit { blocks, .. } => blocks.iter().flat_map(|b| b.warps.iter().map(|r| r.warp)).collect(),
        _ => e.report().map(|r| r.warp).into_iter().collect(),
    }
}

/// The (warp, lane, site) of both accesses of each reported race.
fn race_sites(e: &WarpError) -> Vec<(u64, u32, Site)> {
    match e {
        WarpError::Race { races, .. } => races.iter().flat_map(|r| [(r.first.global_warp, r.first.lane, r.first.site), (r.second.global_warp, r.second.lane, r.second.site)]).collect(),
        _ => Vec::new(),
    }
}

/// What a run recorded.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// The traced warps, by index in the launch.
    pub warps: Vec<WarpTrace>,
    /// The instructions the steps refer to (by index).
    pub instrs: Vec<Instr>,
    /// The report that ended the run, if it failed.
    pub report: Option<TraceReport>,
}

/// An instruction as lanes executed it: its operation, membermask and call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    /// The instruction.
    pub op: Op,
    /// The membermask (for a CTA barrier, its id in the low bits of `a`, see the lanes' values).
    pub mask: u32,
    /// Where it was called.
    pub site: Site,
}

/// The report that ended a traced run.
#[derive(Clone, Debug)]
pub struct TraceReport {
    /// The report, as `Display` writes it.
    pub text: String,
    /// The warps it is about (for a race, the second access's warp; for a barrier or
    /// forward-progress report, every warp of its blocks). Their last steps are outlined.
    pub warps: Vec<u64>,
    /// For a race report: each access's warp, lane and call site.
    pub races: Vec<(u64, u32, Site)>,
}

/// One warp's steps.
#[derive(Clone, Debug)]
pub struct WarpTrace {
    /// The warp's index in its launch.
    pub warp: u64,
    /// Its block (`%ctaid`).
    pub block: Dim3,
    /// Its index in the block.
    pub warp_in_block: u32,
    /// The lanes launched.
    pub launched: LaneSet,
    /// Steps dropped from the front (a ring tracer keeps the last ones).
    pub dropped: u64,
    /// The steps kept, oldest first.
    pub steps: VecDeque<TraceStep>,
}

/// One step of a warp: the engine polled the lanes of `ran` until each stopped at its next
/// instruction (or returned), then completed what could complete.
#[derive(Clone, Debug)]
pub struct TraceStep {
    /// The step's position on the run's timeline, shared by every traced warp of the launch.
    pub seq: u64,
    /// The warp's own step number (from 0).
    pub step: u64,
    /// The lanes polled in this step.
    pub ran: LaneSet,
    /// Each lane's state at the end of the step (before completed lanes resume): a lane of
    /// `completed` shows the instruction it completed.
    pub lanes: [LaneState; 32],
    /// The lanes whose instruction completed in this step.
    pub completed: LaneSet,
    /// The instructions that completed, with each lane's operands and results.
    pub executed: Vec<Executed>,
    /// What else happened: exits, barrier arrivals and completions, races.
    pub events: Vec<TraceEvent>,
}

/// An instruction that completed, with its lanes' values.
#[derive(Clone, Debug)]
pub struct Executed {
    /// Index into [`Trace::instrs`].
    pub instr: usize,
    /// The lanes that executed it.
    pub lanes: LaneSet,
    /// Per lane of `lanes`, in ascending order: operand `a`, operand `b` (shuffles' source
    /// lane or offset; 0 otherwise), result `d` and predicate `p`.
    pub values: Vec<LaneValues>,
}

/// One lane's operands and results at an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneValues {
    /// The lane.
    pub lane: u32,
    /// Operand `a` (the value, predicate or barrier id), zero-extended.
    pub a: u64,
    /// Operand `b` of a shuffle (`b[4:0]`).
    pub b: u32,
    /// Result `d`.
    pub d: u64,
    /// Predicate result `p`.
    pub p: bool,
}

/// Something that happened in a step besides instructions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceEvent {
    /// These lanes returned from the kernel in this step.
    Exited(LaneSet),
    /// These lanes panicked.
    Panicked(LaneSet),
    /// The warp's arrival at a CTA barrier was counted (these lanes wait at it).
    BarrierArrived(LaneSet),
    /// A CTA barrier completed for these lanes, which resume.
    BarrierCompleted(LaneSet),
    /// A lane's access raced with an earlier one (the run's report has both accesses).
    Race {
        /// The lane.
        lane: u32,
        /// The access's operation.
        op: &'static str,
        /// Where it was made.
        site: Site,
    },
}

/// The recorder of one warp (in its [`WarpRun`](crate::warp::WarpRun)); hands its steps to the
/// tracer when dropped.
pub(crate) struct WarpTracer {
    shared: Arc<Shared>,
    trace: WarpTrace,
    /// This warp's instruction table (merged into the trace's when dropped).
    instrs: Vec<Instr>,
    step: u64,
    /// The lanes the next step polls (the engine's `runnable` as the last step left it).
    pub(crate) runnable: u32,
    /// The lanes exited as of the last step recorded.
    pub(crate) exited: u32,
}

impl WarpTracer {
    /// The index of `instr` in this warp's table.
    pub(crate) fn instr(&mut self, instr: Instr) -> usize {
        match self.instrs.iter().position(|i| i.op == instr.op && i.mask == instr.mask && crate::error::same_place(i.site, instr.site)) {
            Some(i) => i,
            None => {
                self.instrs.push(instr);
                self.instrs.len() - 1
            }
        }
    }

    /// Records a step.
    pub(crate) fn push(&mut self, ran: u32, lanes: [LaneState; 32], completed: u32, executed: Vec<Executed>, events: Vec<TraceEvent>) {
        let seq = self.shared.seq.fetch_add(1, Ordering::Relaxed);
        if let Some(last) = self.shared.config.last {
            while self.trace.steps.len() >= last {
                self.trace.steps.pop_front();
                self.trace.dropped += 1;
            }
        }
        self.trace.steps.push_back(TraceStep { seq, step: self.step, ran: LaneSet(ran), lanes, completed: LaneSet(completed), executed, events });
        self.step += 1;
    }

    /// Adds `event` to the last step recorded.
    pub(crate) fn event(&mut self, event: TraceEvent) {
        if let Some(s) = self.trace.steps.back_mut() {
            s.events.push(event);
        }
    }
}

impl Drop for WarpTracer {
    fn drop(&mut self) {
        let mut data = self.shared.data.lock().unwrap_or_else(|e| e.into_inner());
        // This warp's instruction indices, in the trace's table.
        let map: Vec<usize> = self
            .instrs
            .iter()
            .map(|i| match data.instrs.iter().position(|t| t == i) {
                Some(t) => t,
                None => {
                    data.instrs.push(*i);
                    data.instrs.len() - 1
                }
            })
            .collect();
        let mut trace = core::mem::replace(&mut self.trace, WarpTrace { warp: 0, block: Dim3::new(0, 0, 0), warp_in_block: 0, launched: LaneSet(0), dropped: 0, steps: VecDeque::new() });
        for s in &mut trace.steps {
            for e in &mut s.executed {
                e.instr = map[e.instr];
            }
        }
        data.warps.push(trace);
    }
}

impl Trace {
    /// This trace with `error` as the report that ended it.
    pub fn with_report(mut self, error: &WarpError) -> Trace {
        self.report = Some(TraceReport { text: error.to_string(), warps: failing_warps(error), races: race_sites(error) });
        self
    }
}

impl WarpError {
    /// The picture of the traced run that returned this error: `tracer`'s trace as HTML
    /// ([`Trace::to_html`]), with this report and its step outlined.
    pub fn picture(&self, tracer: &Tracer) -> String {
        tracer.trace().with_report(self).to_html()
    }

    /// Writes [`picture`](Self::picture) to `path`.
    pub fn write_picture(&self, tracer: &Tracer, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        std::fs::write(path, self.picture(tracer))
    }
}
