//! The race detector: shadow state for shared and global memory, at lane granularity.
//!
//! Every host memory access of a kernel (plain, volatile, relaxed/acquire/release, atomic) goes
//! through [`access`] with its location ([`Loc`]) and what it is ([`Access`]). With the detector
//! on (the default in debug builds, so in `cargo test`; see [`default_on`]), each access is
//! checked against the location's history and recorded; the races found are reported when the
//! run ends, as [`WarpError::Race`](crate::WarpError::Race), each with both accesses.
//!
//! # The model (PTX ISA 8, "Memory Consistency Model")
//!
//! Two accesses *conflict* when they overlap and at least one writes. They *race* when they
//! conflict, are not *morally strong* (both strong, each one's scope including the other's
//! thread, covering the same bytes), and neither *happens before* the other. Happens-before is
//! built from:
//!
//! - program order within a thread (a lane);
//! - `bar.warp.sync` among its participating lanes (only it: `shfl.sync`, `vote.sync` and the
//!   other warp instructions order no memory);
//! - a CTA barrier (`bar`/`barrier` `.sync`/`.red`/`.arrive`): each arriving thread's earlier
//!   accesses happen before what the threads that wait at it (`.sync`, `.red`) do afterwards;
//! - a release (a `.release` store or atomic, or a `fence`/`membar` followed by a strong write)
//!   read by an acquire (an `.acquire` load or atomic, or a strong read followed by a fence) on
//!   the same location, when the scope of each includes the other's thread. Atomics after the
//!   release continue its release sequence; a plain or relaxed store by another thread ends it.
//! - below sm_70, the lockstep execution of a warp: lanes of a warp execute each instruction
//!   together, so their accesses at different steps are ordered (same-step conflicting accesses,
//!   such as 32 lanes storing to one element, still race).
//!
//! Each thread carries a vector clock, compressed for the GPU's hierarchy (FastTrack's epochs,
//! Flanagan & Freund, PLDI'09): its own clock, what it knows of its warp's lanes (32 clocks),
//! and, shared between the threads that learnt it together at a barrier, what it knows of the
//! threads of its block and of other blocks. A location keeps its last write and its reads since
//! (one epoch while they are ordered, a list when concurrent), each with the access's lane,
//! warp, block, call site, operation and value, and the release clock a later acquire of it
//! joins.
//!
//! # Granularity and limits
//!
//! Global memory is shadowed per element, shared memory per 4-byte word (an 8-byte element covers
//! two). Two 2-byte elements of one shared word written by different lanes do not race, but the
//! word keeps only the last write, so a later unordered read of the other half goes unreported.
//! `fence.sc` is modelled as `fence.acq_rel` (the SC total order only adds ordering among strong
//! operations, which do not race). Accesses of earlier launches happen before a launch.

use core::cell::{Cell, RefCell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::Site;
use crate::geom::Dim3;
use crate::mem::Space;
use crate::sem::{Scope, Sem};

/// Whether an access reads, writes, or both (an atomic read-modify-write, `red` included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// A read-modify-write: an atomic (`atom`, `red`).
    Rmw,
}

/// The strength of an access in the PTX memory model (8.4): weak (a plain `ld`/`st`), or strong
/// with its semantics and scope (`.volatile` is `.relaxed` at `.sys` scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// A plain (weak) access.
    Weak,
    /// A strong access.
    Strong {
        /// Its semantics.
        sem: Sem,
        /// Its scope.
        scope: Scope,
    },
    /// A `.volatile` access: `.relaxed` at `.sys` scope for the memory model, but between lanes
    /// of one warp the pre-Volta idiom of warp-synchronous code: there an unordered conflict
    /// with it is an intra-warp hazard.
    Volatile,
    /// An operation on a synchronization object (an mbarrier): atomic with every other
    /// operation on the object, whatever their scopes (the hardware performs each on the object
    /// as a whole), and synchronizing as a strong operation of `sem` at `scope`.
    Object {
        /// Its semantics.
        sem: Sem,
        /// Its scope.
        scope: Scope,
    },
}

impl Order {
    /// A `.volatile` access.
    pub(crate) const VOLATILE: Order = Order::Volatile;
}

/// What an access is: its mnemonic (for reports), whether it reads or writes, and its order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    /// The PTX mnemonic, as reports show it (`st.global`, `atom.add`, `ld.acquire.gpu`).
    pub op: &'static str,
    /// Load, store or read-modify-write.
    pub kind: Kind,
    /// Weak, or strong with `.sem` and `.scope`.
    pub order: Order,
}

// ---------------------------------------------------------------------------------------------
// Whether the detector runs.
// ---------------------------------------------------------------------------------------------

/// Whether runs check for races unless told otherwise: the environment variable `WARPKIT_RACES`
/// (`0`/`off` or `1`/`on`) if set, else on in builds with debug assertions (`cargo test`, `cargo
/// run`) and off in release builds (`cargo bench`, `--release`).
pub fn default_on() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| match std::env::var("WARPKIT_RACES").as_deref() {
        Ok("0" | "off" | "false") => false,
        Ok("1" | "on" | "true") => true,
        _ => cfg!(debug_assertions),
    })
}

/// Generations: a launch's global memory and a block's shared memory start empty when their
/// generation is new, without clearing anything.
static GENERATION: AtomicU32 = AtomicU32::new(1);

fn next_generation() -> u32 {
    // Skips 0, the generation of a never-used unit.
    loop {
        let g = GENERATION.fetch_add(1, Ordering::Relaxed);
        if g != 0 {
            return g;
        }
    }
}

/// The most distinct races (pairs of call sites) a run keeps; further ones are only counted.
const MAX_RACES: usize = 64;

/// One launch's detector: its generation, its geometry (for reports) and the races found.
pub(crate) struct RunRaces {
    generation: u32,
    grid: Dim3,
    block: Dim3,
    /// The cluster shape (1 x 1 x 1 without clusters): `.cluster` scope is its blocks.
    cluster: Dim3,
    lockstep: bool,
    found: AtomicBool,
    sink: Mutex<Sink>,
    /// A programmatic dependent launch: what the primary grid's blocks knew when they finished,
    /// and the dependent grid's place.
    pdl: Option<Mutex<Pdl>>,
}

/// The two grids of a programmatic dependent launch, for the detector.
#[derive(Default)]
struct Pdl {
    /// Joined as the primary grid's blocks finish: every block's final clocks, and those of the
    /// blocks that finished without `griddepcontrol.launch_dependents`.
    all: Vc,
    untriggered: Vc,
    /// Set when the dependent grid starts: its first block index, its geometry, and the clocks
    /// its threads start with (the untriggered blocks': the dependent starts after they
    /// completed) and acquire at `griddepcontrol.wait` (every block's).
    dependent: Option<Dependent>,
}

struct Dependent {
    first: u32,
    grid: Dim3,
    block: Dim3,
    start: Arc<Vc>,
}

#[derive(Default)]
struct Sink {
    races: Vec<crate::error::Race>,
    total: u64,
    /// Releases whose scope did not include a thread that read them: (releasing block and
    /// thread, reading block and thread, the release's site and scope, the read's site).
    misses: Vec<Miss>,
}

#[derive(Clone, Copy)]
struct Miss {
    from: (u32, u32),
    to: (u32, u32),
    release: Site,
    scope: Scope,
    read: Site,
    read_scope: Scope,
}

impl RunRaces {
    /// A launch of `grid` blocks of `block` threads; `lockstep` below sm_70.
    pub(crate) fn new(grid: Dim3, block: Dim3, cluster: Dim3, lockstep: bool) -> Arc<RunRaces> {
        Arc::new(RunRaces { generation: next_generation(), grid, block, cluster, lockstep, found: AtomicBool::new(false), sink: Mutex::new(Sink::default()), pdl: None })
    }

    /// The detector of a programmatic dependent launch's primary grid; the dependent grid runs
    /// under it after [`RunRaces::start_dependent`].
    pub(crate) fn new_primary(grid: Dim3, block: Dim3, cluster: Dim3, lockstep: bool) -> Arc<RunRaces> {
        Arc::new(RunRaces {
            generation: next_generation(),
            grid,
            block,
            cluster,
            lockstep,
            found: AtomicBool::new(false),
            sink: Mutex::new(Sink::default()),
            pdl: Some(Mutex::new(Pdl::default())),
        })
    }

    /// The primary grid has finished: the dependent grid, `grid` blocks of `block` threads, has
    /// block indices from `first` on.
    pub(crate) fn start_dependent(&self, first: u32, grid: Dim3, block: Dim3) {
        if let Some(pdl) = &self.pdl {
            let mut p = pdl.lock().unwrap_or_else(|e| e.into_inner());
            let start = Arc::new(p.untriggered.clone());
            p.dependent = Some(Dependent { first, grid, block, start });
        }
    }

    /// The dependent grid's first block, if this is a programmatic dependent launch that has
    /// started it.
    fn dependent_first(&self) -> Option<u32> {
        let pdl = self.pdl.as_ref()?.lock().unwrap_or_else(|e| e.into_inner());
        pdl.dependent.as_ref().map(|d| d.first)
    }

    /// Block `block`'s position (`%ctaid`) and whether it is the dependent grid's.
    fn position(&self, block: u32) -> (Dim3, bool) {
        if let Some(pdl) = &self.pdl {
            let p = pdl.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(d) = p.dependent.as_ref().filter(|d| block >= d.first) {
                return (d.grid.index_of((block - d.first) as u64), true);
            }
        }
        (self.grid.index_of(block as u64), false)
    }

    /// The threads of block `block`.
    fn threads_of(&self, block: u32) -> u32 {
        if let Some(pdl) = &self.pdl {
            let p = pdl.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(d) = p.dependent.as_ref().filter(|d| block >= d.first) {
                return d.block.x * d.block.y * d.block.z;
            }
        }
        self.block.x * self.block.y * self.block.z
    }

    /// The cluster of the block of linear index `block`.
    fn cluster_of(&self, block: u32) -> u64 {
        let c = self.cluster;
        if c.count() == 1 || self.pdl.is_some() {
            return block as u64;
        }
        let id = self.grid.index_of(block as u64);
        let n = Dim3::new(self.grid.x / c.x, self.grid.y / c.y, self.grid.z / c.z);
        n.rank_of(Dim3::new(id.x / c.x, id.y / c.y, id.z / c.z))
    }

    /// Whether a thread of block `other` is in scope `scope` of a thread of block `own`.
    #[inline]
    fn includes(&self, scope: Scope, own: u32, other: u32) -> bool {
        match scope {
            Scope::Cta => own == other,
            Scope::Cluster => own == other || self.cluster_of(own) == self.cluster_of(other),
            Scope::Gpu | Scope::Sys => true,
        }
    }

    /// The races found, as the run's error, if any.
    pub(crate) fn result(&self) -> Result<(), crate::WarpError> {
        if !self.found.load(Ordering::Relaxed) {
            return Ok(());
        }
        let sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        Err(crate::WarpError::Race { races: sink.races.clone(), total: sink.total })
    }
}

/// What a block's warps share of the detector: the launch's, and the block's own generation.
pub(crate) struct BlockRaces {
    run: RefCell<Option<Arc<RunRaces>>>,
    /// Whether `run` is `Some`: read whenever a warp becomes current (`mem::Current`), where a
    /// borrow of the cell, with its panic path, made the worker's loop slower (reduce: 1,372 ->
    /// 1,393 instructions per element).
    on: Cell<bool>,
    /// The block's linear index in its launch.
    block: Cell<u32>,
    /// The generation of the block's shared memory.
    generation: Cell<u32>,
    /// The block's threads.
    threads: Cell<u32>,
    /// Whether a thread of the block executed `griddepcontrol.launch_dependents`.
    triggered: Cell<bool>,
}

impl BlockRaces {
    pub(crate) fn off() -> BlockRaces {
        BlockRaces { run: RefCell::new(None), on: Cell::new(false), block: Cell::new(0), generation: Cell::new(0), threads: Cell::new(32), triggered: Cell::new(false) }
    }

    /// Whether no run started detection here and no thread triggered a dependent launch: as
    /// [`off`](Self::off) made it.
    pub(crate) fn untouched(&self) -> bool {
        // `run` is `Some` only while `on` (`start` sets both).
        !self.on.get() && !self.triggered.get() && self.block.get() == 0 && self.generation.get() == 0 && self.threads.get() == 32
    }

    /// The block of linear index `block` of `run` starts (`None`: no detection).
    pub(crate) fn start(&self, run: Option<&Arc<RunRaces>>, block: u64) {
        *self.run.borrow_mut() = run.cloned();
        self.on.set(run.is_some());
        self.triggered.set(false);
        if let Some(run) = run {
            // A dependent grid's blocks come after the primary grid's.
            let offset = if crate::grid::pdl_dependent_here() { run.dependent_first().unwrap_or(0) } else { 0 };
            let block = offset + block as u32;
            self.block.set(block);
            self.generation.set(next_generation());
            self.threads.set(run.threads_of(block));
        }
    }

    /// A thread of the block executed `griddepcontrol.launch_dependents`.
    pub(crate) fn trigger(&self) {
        self.triggered.set(true);
    }

    /// The block has finished: in a programmatic dependent launch's primary grid, what its
    /// threads knew joins what the dependent grid acquires (at its start if the block never
    /// triggered it, else at `griddepcontrol.wait`).
    pub(crate) fn finish(&self, warps: &[crate::warp::Regs]) {
        let run = self.run.borrow();
        let Some(pdl) = run.as_ref().and_then(|r| r.pdl.as_ref()) else { return };
        let mut vc = Vc::default();
        for regs in warps {
            if let Some(w) = regs.races.state.borrow().as_deref() {
                for lane in 0..32 {
                    vc = vc.join(&w.snapshot(lane));
                }
            }
        }
        let mut p = pdl.lock().unwrap_or_else(|e| e.into_inner());
        if p.dependent.as_ref().is_some_and(|d| self.block.get() >= d.first) {
            return; // a dependent grid's block
        }
        if !self.triggered.get() {
            p.untriggered = p.untriggered.join(&vc);
        }
        p.all = p.all.join(&vc);
    }

    #[inline]
    pub(crate) fn is_on(&self) -> bool {
        self.on.get()
    }

    /// The generation of the block's shared memory.
    pub(crate) fn generation(&self) -> u32 {
        self.generation.get()
    }
}

// ---------------------------------------------------------------------------------------------
// Vector clocks.
// ---------------------------------------------------------------------------------------------

/// What a thread knows of other threads' clocks: per block (linear index), a clock per thread of
/// the block (indexed by thread rank). Blocks it knows nothing of are absent. Blocks are grouped
/// in chunks of [`CHUNK`] consecutive indices, each shared by `Arc`: a join of two clocks that
/// share most of their chunks (a release sequence many blocks join, then acquire) touches only the
/// chunks that differ, so it costs what changed rather than the number of blocks known.
#[derive(Clone, Debug, Default)]
pub(crate) struct Vc {
    /// Sorted by chunk index (block / CHUNK); each chunk's blocks sorted by block.
    chunks: Vec<(u32, Chunk)>,
}

/// Blocks per chunk of a [`Vc`].
const CHUNK: u32 = 32;

type Chunk = Arc<[(u32, Arc<[u32]>)]>;

impl Vc {
    fn chunk(&self, block: u32) -> Option<&Chunk> {
        let c = block / CHUNK;
        self.chunks.binary_search_by_key(&c, |(k, _)| *k).ok().map(|i| &self.chunks[i].1)
    }

    /// The clocks this clock holds for block `block`'s threads.
    fn block(&self, block: u32) -> Option<&Arc<[u32]>> {
        let chunk = self.chunk(block)?;
        chunk.binary_search_by_key(&block, |(b, _)| *b).ok().map(|i| &chunk[i].1)
    }

    #[inline]
    fn get(&self, block: u32, tib: u32) -> u32 {
        self.block(block).and_then(|c| c.get(tib as usize).copied()).unwrap_or(0)
    }

    /// Whether it knows of any block but `block`.
    fn knows_other_than(&self, block: u32) -> bool {
        self.chunks.iter().any(|(_, c)| c.iter().any(|(b, _)| *b != block))
    }

    /// The element-wise maximum of `self` and `other`: a merge of the two chunk lists, sorted by
    /// chunk, sharing every chunk (and every block's clocks) the two have in common.
    fn join(&self, other: &Vc) -> Vc {
        Vc {
            chunks: merge(&self.chunks, &other.chunks, |x, y| {
                if Arc::ptr_eq(x, y) {
                    x.clone()
                } else {
                    merge(x, y, |p, q| {
                        if Arc::ptr_eq(p, q) {
                            p.clone()
                        } else {
                            let len = p.len().max(q.len());
                            (0..len).map(|k| p.get(k).copied().unwrap_or(0).max(q.get(k).copied().unwrap_or(0))).collect()
                        }
                    })
                    .into()
                }
            }),
        }
    }

    /// `self` with block `block`'s clocks replaced by `clocks`.
    fn set_block(&mut self, block: u32, clocks: Arc<[u32]>) {
        let c = block / CHUNK;
        match self.chunks.binary_search_by_key(&c, |(k, _)| *k) {
            Ok(i) => {
                let mut blocks = self.chunks[i].1.to_vec();
                match blocks.binary_search_by_key(&block, |(b, _)| *b) {
                    Ok(j) => blocks[j].1 = clocks,
                    Err(j) => blocks.insert(j, (block, clocks)),
                }
                self.chunks[i].1 = blocks.into();
            }
            Err(i) => self.chunks.insert(i, (c, Arc::from([(block, clocks)]))),
        }
    }

    /// `self` with the clocks of block `block` raised by `f(clocks)`.
    fn with_block(&self, block: u32, threads: usize, f: impl FnOnce(&mut [u32])) -> Vc {
        let mut clocks: Vec<u32> = self.block(block).map_or_else(Vec::new, |c| c.to_vec());
        if clocks.len() < threads {
            clocks.resize(threads, 0);
        }
        f(&mut clocks);
        let mut out = self.clone();
        out.set_block(block, clocks.into());
        out
    }
}

/// The merge of two lists sorted by key, with `both` combining the values of a key in both.
fn merge<V: Clone>(a: &[(u32, V)], b: &[(u32, V)], both: impl Fn(&V, &V) -> V) -> Vec<(u32, V)> {
    let mut out = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (&a[i], &b[j]);
        if x.0 == y.0 {
            out.push((x.0, both(&x.1, &y.1)));
            i += 1;
            j += 1;
        } else if x.0 < y.0 {
            out.push(x.clone());
            i += 1;
        } else {
            out.push(y.clone());
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// A release's clock as a location keeps it: what the releasing thread knew, and who released
/// with which scope (for the scope rule and for reports).
#[derive(Clone)]
struct Release {
    vc: Arc<Vc>,
    block: u32,
    tib: u32,
    scope: Scope,
    site: Site,
    /// The releases of other scope domains earlier in the same release sequence (an mbarrier
    /// that takes `.cta` arrivals of its block and `.cluster` arrivals of other blocks): an
    /// acquire joins those whose scopes include both threads. `None` when there are none.
    earlier: Option<Arc<Vec<Release>>>,
}

impl Release {
    /// The set of threads its scope covers, as a key: releases of one key in a sequence merge.
    fn domain(&self, run: &RunRaces) -> (u8, u64) {
        match self.scope {
            Scope::Cta => (0, self.block as u64),
            Scope::Cluster => (1, run.cluster_of(self.block)),
            Scope::Gpu | Scope::Sys => (2, 0),
        }
    }

    /// This release and the earlier ones of its sequence.
    fn parts(&self) -> impl Iterator<Item = &Release> {
        core::iter::once(self).chain(self.earlier.iter().flat_map(|e| e.iter()))
    }
}

/// One lane's detector state.
struct Lane {
    /// Its own clock: the epoch of its accesses since its last release.
    clock: u32,
    /// What it knows of its warp's lanes.
    warp: [u32; 32],
    /// What it knows of its block's and other blocks' threads.
    known: Arc<Vc>,
    /// The release clock of its last `fence` (a strong write after it releases with it).
    fence: Option<Release>,
    /// Releases its strong reads saw since its last fence (its next fence acquires them).
    pending: Option<Arc<Vc>>,
    /// The last release clock it acquired (acquiring it again learns nothing). Held, not
    /// pointed to: a clock dropped and another allocated at its address must not look acquired.
    last_acquired: Option<Arc<Vc>>,
}

impl Lane {
    fn fresh(empty: &Arc<Vc>) -> Lane {
        Lane { clock: 1, warp: [0; 32], known: empty.clone(), fence: None, pending: None, last_acquired: None }
    }
}

/// A warp's detector state (in its registers; made at its first access with the detector on).
pub(crate) struct WarpRaces {
    run: Arc<RunRaces>,
    block: u32,
    warp: u32,
    threads: u32,
    shared_generation: u32,
    /// The warp's step (below sm_70, accesses of its lanes at different steps are ordered).
    step: u32,
    lanes: [Lane; 32],
}

impl WarpRaces {
    fn new(block: &BlockRaces, warp: u32) -> Option<Box<WarpRaces>> {
        let run = block.run.borrow().clone()?;
        // A dependent grid's threads start knowing what the primary's untriggered blocks did.
        let start = run.pdl.as_ref().and_then(|p| {
            let p = p.lock().unwrap_or_else(|e| e.into_inner());
            p.dependent.as_ref().filter(|d| block.block.get() >= d.first).map(|d| d.start.clone())
        });
        let empty = start.unwrap_or_else(|| Arc::new(Vc::default()));
        Some(Box::new(WarpRaces {
            run,
            block: block.block.get(),
            warp,
            threads: block.threads.get(),
            shared_generation: block.generation.get(),
            step: 0,
            lanes: core::array::from_fn(|_| Lane::fresh(&empty)),
        }))
    }

    fn tib(&self, lane: u32) -> u32 {
        self.warp * 32 + lane
    }

    /// What lane `lane` knows of thread `tib` of block `block`.
    #[inline]
    fn knows(&self, lane: u32, block: u32, tib: u32) -> u32 {
        let l = &self.lanes[lane as usize];
        let k = l.known.get(block, tib);
        if block == self.block && tib / 32 == self.warp {
            k.max(l.warp[(tib % 32) as usize])
        } else {
            k
        }
    }

    /// Lane `lane`'s vector clock as a release publishes it.
    fn snapshot(&self, lane: u32) -> Arc<Vc> {
        let l = &self.lanes[lane as usize];
        let base = self.warp as usize * 32;
        Arc::new(l.known.with_block(self.block, self.threads as usize, |clocks| {
            for (i, &c) in l.warp.iter().enumerate() {
                if let Some(slot) = clocks.get_mut(base + i) {
                    *slot = (*slot).max(c);
                }
            }
            if let Some(slot) = clocks.get_mut(base + lane as usize) {
                *slot = (*slot).max(l.clock);
            }
        }))
    }

    /// Lane `lane` acquires `vc`.
    fn acquire(&mut self, lane: u32, vc: &Arc<Vc>) {
        let l = &mut self.lanes[lane as usize];
        if l.last_acquired.as_ref().is_some_and(|last| Arc::ptr_eq(last, vc)) {
            return;
        }
        l.known = Arc::new(l.known.join(vc));
        l.last_acquired = Some(vc.clone());
    }
}

/// The detector state of a warp's registers.
pub(crate) struct RegsRaces {
    state: RefCell<Option<Box<WarpRaces>>>,
}

impl RegsRaces {
    pub(crate) const fn new() -> RegsRaces {
        RegsRaces { state: RefCell::new(None) }
    }

    /// A new block starts in these registers.
    pub(crate) fn reset(&self) {
        *self.state.borrow_mut() = None;
    }

    /// The warp's state, made at the first call while its block detects races.
    #[inline]
    fn with<R>(&self, block: &BlockRaces, warp: u32, f: impl FnOnce(&mut WarpRaces) -> R) -> Option<R> {
        let mut state = self.state.borrow_mut();
        if state.is_none() {
            if !block.is_on() {
                return None;
            }
            *state = WarpRaces::new(block, warp);
        }
        state.as_deref_mut().map(f)
    }

    /// A new step of the warp begins (below sm_70: its lanes' accesses of earlier steps are
    /// ordered before the next ones).
    #[inline(always)]
    pub(crate) fn step(&self) {
        if let Some(w) = self.state.borrow_mut().as_deref_mut() {
            w.step = w.step.wrapping_add(1);
        }
    }

    /// `bar.warp.sync` completed for the lanes of `group`: each learns what every other knew,
    /// and their accesses before it happen before their accesses after it.
    pub(crate) fn warp_sync(&self, block: &BlockRaces, warp: u32, group: u32) {
        self.with(block, warp, |w| Self::warp_sync_in(w, group));
    }

    fn warp_sync_in(w: &mut WarpRaces, group: u32) {
        let mut joined = [0u32; 32];
        let mut known: Option<Arc<Vc>> = None;
        let mut differs = false;
        for l in crate::semantics::lanes(group) {
            let lane = &w.lanes[l as usize];
            for (j, c) in joined.iter_mut().zip(lane.warp) {
                *j = (*j).max(c);
            }
            joined[l as usize] = joined[l as usize].max(lane.clock);
            match &known {
                None => known = Some(lane.known.clone()),
                Some(k) if Arc::ptr_eq(k, &lane.known) => {}
                Some(_) => differs = true,
            }
        }
        let known = if differs {
            let mut vc = Vc::default();
            for l in crate::semantics::lanes(group) {
                vc = vc.join(&w.lanes[l as usize].known);
            }
            Some(Arc::new(vc))
        } else {
            known
        };
        for l in crate::semantics::lanes(group) {
            let lane = &mut w.lanes[l as usize];
            lane.warp = joined;
            if let Some(k) = &known {
                lane.known = k.clone();
            }
            lane.clock += 1;
        }
    }

    /// Lanes `lanes` arrive at a CTA barrier: adds what they know to the barrier's `join` and
    /// starts their next epoch (what they do after arriving is not ordered before the others).
    pub(crate) fn barrier_arrive(&self, block: &BlockRaces, warp: u32, lanes: u32, join: &mut BarrierJoin) {
        self.with(block, warp, |w| Self::barrier_arrive_in(w, lanes, join));
    }

    fn barrier_arrive_in(w: &mut WarpRaces, lanes: u32, join: &mut BarrierJoin) {
        let base = w.warp as usize * 32;
        if join.own.len() < w.threads as usize {
            join.own.resize(w.threads as usize, 0);
        }
        join.block = w.block;
        // What the arriving lanes know of their warp, joined first and folded into `own` once.
        let mut mates = [0u32; 32];
        for l in crate::semantics::lanes(lanes) {
            let lane = &mut w.lanes[l as usize];
            if !join.seen.contains(&Arc::as_ptr(&lane.known)) {
                join.seen.push(Arc::as_ptr(&lane.known));
                if let Some(clocks) = lane.known.block(w.block) {
                    for (o, c) in join.own.iter_mut().zip(clocks.iter()) {
                        *o = (*o).max(*c);
                    }
                }
                // Other blocks in one merge (`take` replaces this block's entry with `own`).
                if lane.known.knows_other_than(w.block) {
                    join.others = join.others.join(&lane.known);
                }
            }
            for (m, &c) in mates.iter_mut().zip(&lane.warp) {
                *m = (*m).max(c);
            }
            mates[l as usize] = mates[l as usize].max(lane.clock);
            lane.clock += 1;
        }
        for (o, &m) in join.own.iter_mut().skip(base).zip(&mates) {
            *o = (*o).max(m);
        }
    }

    /// The barrier completed for lanes `lanes` that waited at it: they acquire its join.
    pub(crate) fn barrier_complete(&self, lanes: u32, vc: &Arc<Vc>) {
        let mut state = self.state.borrow_mut();
        let Some(w) = state.as_deref_mut() else { return };
        for l in crate::semantics::lanes(lanes) {
            w.lanes[l as usize].known = vc.clone();
            w.lanes[l as usize].last_acquired = None;
        }
    }

    /// `griddepcontrol.wait` by lane `lane` of a dependent grid: it acquires what every block of
    /// the primary grid did.
    pub(crate) fn grid_dependency_wait(&self, block: &BlockRaces, warp: u32, lane: u32) {
        // The wait returns once the primary grid has completed: every block's clocks are in.
        let complete = block.run.borrow().as_ref().and_then(|r| {
            let p = r.pdl.as_ref()?.lock().unwrap_or_else(|e| e.into_inner());
            p.dependent.as_ref().filter(|d| block.block.get() >= d.first).map(|_| Arc::new(p.all.clone()))
        });
        if let Some(c) = complete {
            self.with(block, warp, |w| w.acquire(lane, &c));
        }
    }

    /// A `fence` (or `membar`) of semantics `sem` and scope `scope` by lane `lane`.
    pub(crate) fn fence(&self, block: &BlockRaces, warp: u32, lane: u32, sem: Sem, scope: Scope, site: Site) {
        self.with(block, warp, |w| {
            if sem.acquires() {
                if let Some(p) = w.lanes[lane as usize].pending.take() {
                    w.acquire(lane, &p);
                }
            }
            if sem.releases() {
                let vc = w.snapshot(lane);
                let (block, tib) = (w.block, w.tib(lane));
                let l = &mut w.lanes[lane as usize];
                l.fence = Some(Release { vc, block, tib, scope, site, earlier: None });
                l.clock += 1;
            }
        });
    }
}

/// What the threads arriving at `barrier.cluster` in one phase released, joined, and what the
/// last completed phase released (the waits acquire it).
#[derive(Default)]
pub(crate) struct ClusterJoin {
    open: Option<Vc>,
    done: Option<Arc<Vc>>,
}

impl ClusterJoin {
    /// A new cluster.
    pub(crate) fn reset(&mut self) {
        *self = ClusterJoin::default();
    }

    /// Lane `lane` of `regs` arrives; a `.release` arrival adds what it knows.
    pub(crate) fn arrive(&mut self, regs: &crate::warp::Regs, lane: u32, release: bool) {
        let block = &regs.block().races;
        regs.races.with(block, regs.pos().warp_in_block, |w| {
            if release {
                let vc = w.snapshot(lane);
                self.open = Some(match self.open.take() {
                    Some(o) => o.join(&vc),
                    None => (*vc).clone(),
                });
            }
            w.lanes[lane as usize].clock += 1;
        });
    }

    /// The phase completes.
    pub(crate) fn complete(&mut self) {
        self.done = Some(Arc::new(self.open.take().unwrap_or_default()));
    }

    /// Lane `lane` of `regs` returns from `barrier.cluster.wait` (`.acquire`).
    pub(crate) fn acquire(&self, regs: &crate::warp::Regs, lane: u32) {
        if let Some(done) = &self.done {
            let block = &regs.block().races;
            regs.races.with(block, regs.pos().warp_in_block, |w| w.acquire(lane, done));
        }
    }
}

/// What the threads arriving at one CTA barrier phase knew, joined.
#[derive(Default)]
pub(crate) struct BarrierJoin {
    block: u32,
    own: Vec<u32>,
    others: Vc,
    seen: Vec<*const Vc>,
}

impl BarrierJoin {
    /// Whether no thread with the detector on has arrived.
    pub(crate) fn is_empty(&self) -> bool {
        self.own.is_empty() && self.seen.is_empty()
    }

    /// The join, as the waiting threads acquire it; the barrier starts its next phase empty.
    pub(crate) fn take(&mut self) -> Arc<Vc> {
        let mut vc = core::mem::take(&mut self.others);
        let own: Arc<[u32]> = core::mem::take(&mut self.own).into();
        vc.set_block(self.block, own);
        self.seen.clear();
        Arc::new(vc)
    }
}

// ---------------------------------------------------------------------------------------------
// Shadow memory.
// ---------------------------------------------------------------------------------------------

const READ: u8 = 1;
const WRITE: u8 = 2;
const STRONG: u8 = 4;
const VOLATILE: u8 = 8;
const OBJECT: u8 = 16;

/// One access as a location remembers it.
#[derive(Clone, Copy)]
struct Rec {
    block: u32,
    tib: u32,
    clock: u32,
    step: u32,
    /// The first unit and the number of units of the access (morally strong accesses cover the
    /// same bytes).
    first: u32,
    units: u8,
    flags: u8,
    scope: Scope,
    sem: Sem,
    site: Site,
    value: u64,
    op: &'static str,
    index: u32,
}

impl Rec {
    fn strong(&self) -> bool {
        self.flags & STRONG != 0
    }
    fn writes(&self) -> bool {
        self.flags & WRITE != 0
    }
    fn volatile(&self) -> bool {
        self.flags & VOLATILE != 0
    }
}

#[derive(Default)]
struct UnitState {
    generation: u32,
    write: Option<Rec>,
    read: Option<Rec>,
    /// Concurrent reads beyond `read`, and the location's release clock.
    more: Option<Box<More>>,
}

#[derive(Default)]
struct More {
    reads: Vec<Rec>,
    /// Earlier writes that the last write is not ordered after (strong writes, which do not race
    /// with each other, such as the atomics of many threads): a later plain access races with
    /// each one it is not ordered after, not only with the last.
    writes: Vec<Rec>,
    /// `Some((first, units))` when every one of `writes` is strong, not volatile, of scope `.gpu`
    /// or wider and covers units `first..first + units`: morally strong with every such access,
    /// which then need not scan them (the concurrent atomics of a histogram's counters).
    wide: Option<(u32, u8)>,
    release: Option<Release>,
}

impl More {
    /// The key of [`More::wide`] that `r` can share.
    fn wide_key(r: &Rec) -> Option<(u32, u8)> {
        (r.strong() && !r.volatile() && r.scope.includes(0, 1)).then_some((r.first, r.units))
    }

    /// Recomputes [`More::wide`] after `writes` lost records.
    fn rewiden(&mut self) {
        let mut keys = self.writes.iter().map(More::wide_key);
        let first = keys.next().flatten();
        self.wide = if keys.all(|k| k == first) { first } else { None };
    }

    fn push_write(&mut self, r: Rec) {
        let key = More::wide_key(&r);
        self.wide = if self.writes.is_empty() || self.wide == key { key } else { None };
        self.writes.push(r);
    }
}

/// The most concurrent writes a location keeps (beyond that the oldest are dropped, and a race
/// with one of them only may go unreported).
const MAX_WRITES: usize = 32;

/// One unit of shadow memory, locked while an access checks and updates it.
struct Unit {
    lock: AtomicBool,
    state: UnsafeCell<UnitState>,
}

// SAFETY: `state` is only touched while `lock` is held (see `Shadow::lock`).
unsafe impl Sync for Unit {}
unsafe impl Send for Unit {}

/// Units per page: shadow memory is allocated a page at a time, where accesses land.
const PAGE: usize = 256;

/// The shadow state of one buffer (global) or one block's shared memory.
pub(crate) struct Shadow {
    units: usize,
    pages: OnceLock<Box<[OnceLock<Box<[Unit]>>]>>,
    /// A block's shared memory: the generation of the block using it (0: the accessing
    /// warp's block's, or a global buffer).
    generation: AtomicU32,
}

impl Shadow {
    /// The shadow of `units` units (global: elements; shared: 4-byte words). Allocates nothing
    /// until the detector records an access, and then only the pages accesses reach.
    pub(crate) const fn new(units: usize) -> Shadow {
        Shadow { units, pages: OnceLock::new(), generation: AtomicU32::new(0) }
    }

    /// Whether the detector never recorded an access here, and no block set a generation: as
    /// [`new`](Self::new) made it.
    pub(crate) fn untouched(&self) -> bool {
        self.pages.get().is_none() && self.generation.load(Ordering::Relaxed) == 0
    }

    /// A block's shared memory starts a new generation (a new block in its slot).
    pub(crate) fn set_generation(&self, generation: u32) {
        self.generation.store(generation, Ordering::Relaxed);
    }

    fn unit(&self, u: usize) -> Option<&Unit> {
        let pages = self.pages.get_or_init(|| (0..self.units.div_ceil(PAGE)).map(|_| OnceLock::new()).collect());
        let page = pages.get(u / PAGE)?;
        let units = page.get_or_init(|| (0..PAGE).map(|_| Unit { lock: AtomicBool::new(false), state: UnsafeCell::new(UnitState::default()) }).collect());
        units.get(u % PAGE)
    }

    /// The bytes of shadow state allocated so far.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.pages.get().map_or(0, |pages| pages.iter().filter(|p| p.get().is_some()).count() * PAGE * core::mem::size_of::<Unit>())
    }
}

/// The most units one access covers (a `.v8` vector of 8 elements; a 128-bit shared access is 4
/// words).
const MAX_UNITS: usize = 16;

/// Units `first..first + n`, locked (no allocation: an access locks at most [`MAX_UNITS`]).
struct Locked<'s> {
    units: [Option<&'s Unit>; MAX_UNITS],
}

impl<'s> Locked<'s> {
    fn lock(shadow: &'s Shadow, first: usize, n: usize) -> Locked<'s> {
        let mut units = [None; MAX_UNITS];
        for (slot, u) in units.iter_mut().zip(first..first + n.min(MAX_UNITS)) {
            *slot = shadow.unit(u);
        }
        for u in units.iter().flatten() {
            while u.lock.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
                std::hint::spin_loop();
            }
        }
        Locked { units }
    }

    fn iter(&self) -> impl Iterator<Item = &'s Unit> + '_ {
        self.units.iter().flatten().copied()
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        for u in self.units.iter().flatten() {
            u.lock.store(false, Ordering::Release);
        }
    }
}

/// Where an access is: units `first..first + units` of `shadow` (global memory: elements of the
/// whole buffer; shared memory: 4-byte words of the arena), and the element index the kernel
/// used (for reports).
#[derive(Clone, Copy)]
pub(crate) struct Loc<'s> {
    /// The shadow of the buffer or arena.
    pub shadow: &'s Shadow,
    /// The state space.
    pub space: Space,
    /// The first unit.
    pub first: usize,
    /// How many units.
    pub units: usize,
    /// The index the kernel used.
    pub index: usize,
}

/// Performs `op`, a kernel's access `access` at `loc()` made at `site`, and records it. `op` does
/// the memory operation and returns its result with the value it read or wrote (the bits,
/// zero-extended; for a read-modify-write, the old value). The detector runs `op` while it holds
/// the location's shadow, so that on several CPU threads the order the detector sees is the order
/// memory saw (a release store and the acquire load that reads it).
///
/// Every host memory access of a kernel goes through here: plain loads and stores, volatile and
/// ordered loads and stores, every atomic and `red`. Outside a run (a host-side access), or with
/// the detector off, it only runs `op`.
#[inline(always)]
pub(crate) fn access<'l, R>(loc: impl FnOnce() -> Loc<'l>, access: impl FnOnce() -> Access, site: Site, op: impl FnOnce() -> (R, u64)) -> R {
    // One thread-local flag, the launch's setting (`mem::races_on`; the common case in a
    // benchmark is off): the lane and its block's detector are looked up only when it is on.
    if !crate::mem::races_on() {
        return op().0;
    }
    let Some((regs, lane)) = crate::mem::current() else { return op().0 };
    let block = &regs.block().races;
    // Where the access is, and what it is, only now (with the detector off, nothing is made of
    // it: a store built its `Access` before this check, 5 of its 33 instructions in a form).
    let (loc, access) = (loc(), access());
    let warp = regs.pos().warp_in_block;
    let locked = Locked::lock(loc.shadow, loc.first, loc.units);
    let (result, value) = op();
    let raced = regs.races.with(block, warp, |w| check(w, lane, &loc, &locked, access, site, value));
    drop(locked);
    if raced == Some(true) {
        regs.trace_race(lane, access.op, site);
    }
    result
}

/// Checks lane `lane`'s access against the history of each unit and records it.
/// Returns whether the access raced.
fn check(w: &mut WarpRaces, lane: u32, loc: &Loc<'_>, locked: &Locked<'_>, access: Access, site: Site, value: u64) -> bool {
    let (strong, sem, scope) = match access.order {
        Order::Weak => (false, Sem::Relaxed, Scope::Sys),
        Order::Strong { sem, scope } => (true, sem, scope),
        Order::Volatile => (true, Sem::Relaxed, Scope::Sys),
        Order::Object { sem, scope } => (true, sem, scope),
    };
    let volatile = access.order == Order::Volatile;
    let flags = match access.kind {
        Kind::Load => READ,
        Kind::Store => WRITE,
        Kind::Rmw => READ | WRITE,
    } | if strong { STRONG } else { 0 }
        | if volatile { VOLATILE } else { 0 }
        | if matches!(access.order, Order::Object { .. }) { OBJECT } else { 0 };
    let me = Rec {
        block: w.block,
        tib: w.tib(lane),
        clock: w.lanes[lane as usize].clock,
        step: w.step,
        first: loc.first as u32,
        units: loc.units.min(255) as u8,
        flags,
        scope,
        sem,
        site,
        value,
        op: access.op,
        index: loc.index as u32,
    };
    let generation = match loc.space {
        // A block's shared memory, from any block of its cluster: that block's generation.
        Space::Shared => match loc.shadow.generation.load(Ordering::Relaxed) {
            0 => w.shared_generation,
            g => g,
        },
        _ => w.run.generation,
    };
    let lockstep = w.run.lockstep;
    let ordered = |w: &WarpRaces, prior: &Rec| -> bool {
        if prior.block == me.block && prior.tib == me.tib {
            return true;
        }
        if lockstep && prior.block == me.block && prior.tib / 32 == me.tib / 32 && prior.step != me.step {
            return true;
        }
        prior.clock <= w.knows(lane, prior.block, prior.tib)
    };
    let morally_strong = |prior: &Rec| -> bool {
        // Between lanes of one warp, volatile accesses are the pre-Volta warp-synchronous idiom:
        // strong for the memory model, but a hazard without `bar.warp.sync` since Volta.
        let same_warp = prior.block == me.block && prior.tib / 32 == me.tib / 32;
        if prior.flags & OBJECT != 0 && flags & OBJECT != 0 {
            return true;
        }
        prior.strong()
            && strong
            && !(same_warp && (volatile || prior.volatile()))
            && prior.first == me.first
            && prior.units == me.units
            && w.run.includes(prior.scope, prior.block, me.block)
            && w.run.includes(scope, me.block, prior.block)
    };
    // What a strong write releases, computed once for all its units.
    let mine = if flags & WRITE != 0 && strong {
        if sem.releases() {
            Some(Release { vc: w.snapshot(lane), block: me.block, tib: me.tib, scope, site, earlier: None })
        } else {
            w.lanes[lane as usize].fence.clone()
        }
    } else {
        None
    };
    // An access morally strong with every write a `More::wide` list can hold.
    let wide = More::wide_key(&me);
    let mut race: Option<Rec> = None;
    let mut acquired: Option<Release> = None;
    for unit in locked.iter() {
        // SAFETY: the unit is locked by `locked` for the duration of this call.
        let st = unsafe { &mut *unit.state.get() };
        if st.generation != generation {
            *st = UnitState { generation, ..UnitState::default() };
        }
        // Conflicts with the last write (any access), and with the reads since (a write).
        let listed = st.more.as_deref().filter(|m| !(wide.is_some() && m.wide == wide));
        let writes = st.write.iter().chain(listed.into_iter().flat_map(|m| m.writes.iter()));
        for prior in writes {
            // The cheap test first: atomics against atomics are morally strong.
            if race.is_none() && !morally_strong(prior) && !ordered(w, prior) {
                race = Some(*prior);
            }
        }
        if flags & WRITE != 0 && race.is_none() {
            let reads = st.read.iter().chain(st.more.iter().flat_map(|m| m.reads.iter()));
            for prior in reads {
                if !morally_strong(prior) && !ordered(w, prior) {
                    race = Some(*prior);
                    break;
                }
            }
        }
        // The release clock: an acquire (or a strong read before a fence) reads it.
        if flags & READ != 0 && strong {
            if let Some(rel) = st.more.as_ref().and_then(|m| m.release.as_ref()) {
                acquired = Some(rel.clone());
            }
        }
        // Record the access.
        if flags & WRITE != 0 {
            // Earlier writes this one is not ordered after stay (concurrent strong writes).
            let keep = |r: &Rec| !(r.block == me.block && r.tib == me.tib) && !ordered(w, r);
            let previous = st.write.replace(me).filter(|r| keep(r));
            st.read = None;
            let release = release_of(&w.run, strong, access.kind, st.more.as_ref().and_then(|m| m.release.clone()), mine.clone());
            if previous.is_some() || release.is_some() || st.more.is_some() {
                let m = st.more.get_or_insert_with(Box::default);
                m.reads.clear();
                m.release = release;
                if let Some(p) = previous {
                    // Pruned when full (amortized: a full list of concurrent atomics loses its
                    // older half rather than being re-checked at every write).
                    if m.writes.len() >= MAX_WRITES {
                        m.writes.retain(|r| keep(r));
                        if m.writes.len() >= MAX_WRITES {
                            m.writes.drain(..MAX_WRITES / 2);
                        }
                        m.rewiden();
                    }
                    m.push_write(p);
                }
            }
        } else {
            record_read(w, st, me, &ordered);
        }
    }
    // Synchronization after the access: acquire what it read; a release starts a new epoch.
    if let Some(rel) = acquired {
        let (own_block, tib) = (w.block, me.tib);
        // The parts of the release sequence whose scopes include both threads.
        let ok = |r: &Release| w.run.includes(scope, own_block, r.block) && w.run.includes(r.scope, r.block, own_block);
        let vc = if rel.earlier.is_none() {
            ok(&rel).then(|| rel.vc.clone())
        } else {
            let mut joined: Option<Vc> = None;
            for r in rel.parts().filter(|r| ok(r)) {
                joined = Some(match joined {
                    None => (*r.vc).clone(),
                    Some(j) => j.join(&r.vc),
                });
            }
            joined.map(Arc::new)
        };
        if let Some(vc) = vc {
            if sem.acquires() {
                w.acquire(lane, &vc);
            } else {
                let l = &mut w.lanes[lane as usize];
                l.pending = Some(match l.pending.take() {
                    Some(p) if !Arc::ptr_eq(&p, &vc) => Arc::new(p.join(&vc)),
                    _ => vc,
                });
            }
        } else if rel.block != own_block || rel.tib != tib {
            let mut sink = w.run.sink.lock().unwrap_or_else(|e| e.into_inner());
            if sink.misses.len() < MAX_RACES {
                sink.misses.push(Miss { from: (rel.block, rel.tib), to: (own_block, tib), release: rel.site, scope: rel.scope, read: site, read_scope: scope });
            }
        }
    }
    if flags & WRITE != 0 && strong && sem.releases() {
        w.lanes[lane as usize].clock += 1;
    }
    if let Some(prior) = race {
        report(w, loc, prior, me);
    }
    race.is_some()
}

/// The release clock a location holds after write `me`: a release sets it (an atomic continues
/// the release sequence it was in), a strong write after a fence releases with the fence's
/// clock, an atomic keeps it, any other write ends it.
/// `mine` is what write `me` releases itself: its own clock if it is a release, else the clock of
/// its lane's last fence.
fn release_of(run: &RunRaces, strong: bool, kind: Kind, current: Option<Release>, mine: Option<Release>) -> Option<Release> {
    if !strong {
        return None;
    }
    match (kind, current, mine) {
        // Releases of one scope domain merge; the others stay apart, so that an acquire joins
        // only those whose scopes include it.
        (Kind::Rmw, Some(cur), Some(mine)) if cur.domain(run) == mine.domain(run) => {
            Some(Release { vc: Arc::new(cur.vc.join(&mine.vc)), earlier: cur.earlier.clone(), ..mine })
        }
        (Kind::Rmw, Some(cur), Some(mut mine)) => {
            let key = mine.domain(run);
            let mut earlier: Vec<Release> = Vec::new();
            for r in cur.parts() {
                if r.domain(run) == key {
                    mine.vc = Arc::new(mine.vc.join(&r.vc));
                } else if let Some(e) = earlier.iter_mut().find(|e| e.domain(run) == r.domain(run)) {
                    e.vc = Arc::new(e.vc.join(&r.vc));
                } else {
                    earlier.push(Release { earlier: None, ..r.clone() });
                }
            }
            mine.earlier = (!earlier.is_empty()).then(|| Arc::new(earlier));
            Some(mine)
        }
        (Kind::Rmw, cur, None) => cur,
        (_, _, mine) => mine,
    }
}

/// Records read `me` in a unit's read set: it replaces the reads ordered before it.
fn record_read(w: &WarpRaces, st: &mut UnitState, me: Rec, ordered: &impl Fn(&WarpRaces, &Rec) -> bool) {
    let mine = |r: &Rec| r.block == me.block && r.tib == me.tib;
    match &st.read {
        None => st.read = Some(me),
        // The reads the list holds stay until it is full or a write clears it: pruning at every
        // read made 256 threads reading one broadcast word quadratic.
        Some(r) if mine(r) || ordered(w, r) => st.read = Some(me),
        Some(_) => {
            let m = st.more.get_or_insert_with(Box::default);
            if m.reads.len() >= MAX_READS {
                m.reads.retain(|r| !mine(r) && !ordered(w, r));
                if m.reads.len() >= MAX_READS {
                    m.reads.drain(..MAX_READS / 2);
                }
            }
            m.reads.push(me);
        }
    }
}

/// The most concurrent reads a location keeps beyond its last (pruned of the ones ordered before
/// a new read when full; then the oldest half goes, and a race with one of those only may go
/// unreported).
const MAX_READS: usize = 64;

/// Records the race between `prior` and `me` (lane `lane` of `w`).
#[cold]
#[inline(never)]
fn report(w: &WarpRaces, loc: &Loc<'_>, prior: Rec, me: Rec) {
    use crate::error::{Race, RaceAccess, RaceKind};
    let run = &w.run;
    run.found.store(true, Ordering::Relaxed);
    let mut sink = run.sink.lock().unwrap_or_else(|e| e.into_inner());
    sink.total += 1;
    let same = |r: &&mut Race| crate::error::same_place(r.first.site, prior.site) && crate::error::same_place(r.second.site, me.site) && r.first.op == prior.op && r.second.op == me.op;
    if let Some(r) = sink.races.iter_mut().find(same) {
        r.count += 1;
        return;
    }
    if sink.races.len() >= MAX_RACES {
        return;
    }
    let describe = |r: &Rec| {
        let (block, dependent) = run.position(r.block);
        let first = if dependent { run.dependent_first().unwrap_or(0) } else { 0 };
        let warps_per_block = run.threads_of(r.block).div_ceil(32);
        RaceAccess {
        block,
        dependent,
        warp: r.tib / 32,
        global_warp: (r.block - first) as u64 * warps_per_block as u64 + (r.tib / 32) as u64,
        lane: r.tib % 32,
        op: r.op,
        write: r.writes(),
        order: if r.strong() { Some((r.sem, r.scope)) } else { None },
        value: r.value,
        index: r.index as usize,
        site: r.site,
        }
    };
    let kind = if prior.block != me.block {
        RaceKind::InterBlock
    } else if prior.tib / 32 != me.tib / 32 {
        RaceKind::IntraBlock
    } else {
        RaceKind::IntraWarp
    };
    let miss = sink.misses.iter().find(|m| m.from == (prior.block, prior.tib) && m.to == (me.block, me.tib)).copied();
    let same_store = crate::error::same_place(prior.site, me.site) && prior.writes() && me.writes() && kind != RaceKind::InterBlock;
    let dependent = run.dependent_first();
    let pdl_pair = dependent.is_some_and(|first| (prior.block >= first) != (me.block >= first));
    let fix = match (miss, kind) {
        (_, RaceKind::InterBlock) if pdl_pair => "the primary and the dependent grid of a programmatic dependent launch: the dependent grid's access comes before its `griddepcontrol.wait` (`w.griddepcontrol_wait()`), which alone orders the primary grid's memory operations (of the blocks that triggered the launch with `griddepcontrol.launch_dependents`) before it".to_string(),
        (None, _) if same_store => format!(
            "both are the same store, executed by {}: no barrier can order the threads of one instruction; give each thread its own element, or use an atomic (`atom`/`red`) if they add up",
            if kind == RaceKind::IntraWarp { "lanes of one warp together" } else { "threads of one block" }
        ),
        (Some(m), _) => {
            let (a, b) = (run.grid.index_of(prior.block as u64), run.grid.index_of(me.block as u64));
            let needed = if run.cluster_of(prior.block) == run.cluster_of(me.block) { "cluster" } else { "gpu" };
            format!(
                "the release at {} has `.{}` scope and the read at {} that reads it `.{}` scope: each must include the other's thread (blocks ({}, {}, {}) and ({}, {}, {})); with `.{needed}` scope on both they would order them",
                m.release,
                m.scope.name(),
                m.read,
                m.read_scope.name(),
                a.x,
                a.y,
                a.z,
                b.x,
                b.y,
                b.z,
            )
        }
        (None, RaceKind::IntraWarp) => format!(
            "lanes {} and {} of one warp: independent thread scheduling (sm_70 and later) runs them in any order between `bar.warp.sync`s; a `__syncwarp()` between them would order them{}",
            prior.tib % 32,
            me.tib % 32,
            if prior.volatile() || me.volatile() {
                " (`volatile` keeps the compiler from caching the value, but does not make the lanes of a warp execute together: the warp-synchronous idiom that CUDA 9 broke)"
            } else {
                ""
            }
        ),
        (None, RaceKind::IntraBlock) => {
            "warps of one block: a `__syncthreads()` (`bar.sync`) both take part in between them would order them, or a release/acquire on a flag".to_string()
        }
        (None, RaceKind::InterBlock) if run.cluster.count() > 1 && run.cluster_of(prior.block) == run.cluster_of(me.block) => {
            "blocks of one cluster: a `barrier.cluster` arrive and wait (`cluster_sync()`) both take part in between them would order them, or a release/acquire at `.cluster` scope (an mbarrier wait, a flag)".to_string()
        }
        (None, RaceKind::InterBlock) => "different blocks: only a release/acquire pattern at `.gpu` scope (a `.release` store or atomic of a flag that the other block reads with `.acquire`, or fences around relaxed atomics) would order them; a barrier orders only its own block".to_string(),
    };
    sink.races.push(Race { space: loc.space, first: describe(&prior), second: describe(&me), kind, fix, count: 1 });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A clock as a plain map: (block, thread) → clock.
    type Plain = std::collections::BTreeMap<(u32, u32), u32>;

    fn build(entries: &[(u32, u32, u32)]) -> (Vc, Plain) {
        let (mut vc, mut plain) = (Vc::default(), Plain::new());
        for &(block, tib, clock) in entries {
            vc = vc.with_block(block, 4, |c| c[tib as usize] = c[tib as usize].max(clock));
            let e = plain.entry((block, tib)).or_default();
            *e = (*e).max(clock);
        }
        (vc, plain)
    }

    fn entries() -> impl Strategy<Value = Vec<(u32, u32, u32)>> {
        // Blocks across several chunks, some shared by both sides.
        prop::collection::vec((0u32..200, 0u32..4, 1u32..50), 0..40)
    }

    proptest! {
        /// The chunked join is the element-wise maximum, whichever side holds a block.
        #[test]
        fn join_is_the_elementwise_maximum(a in entries(), b in entries(), shared in entries()) {
            let (common, common_plain) = build(&shared);
            let (va, pa) = build(&a);
            let (vb, pb) = build(&b);
            // Both sides start from one clock, so that they share chunks as released clocks do.
            let (va, vb) = (common.join(&va), common.join(&vb));
            let joined = va.join(&vb);
            for block in 0..200 {
                for tib in 0..4 {
                    let want = [&pa, &pb, &common_plain].iter().map(|p| p.get(&(block, tib)).copied().unwrap_or(0)).max().unwrap();
                    prop_assert_eq!(joined.get(block, tib), want, "block {} thread {}", block, tib);
                }
            }
            prop_assert_eq!(joined.knows_other_than(0), [&pa, &pb, &common_plain].iter().any(|p| p.keys().any(|(b, _)| *b != 0)));
        }
    }

    #[test]
    fn a_join_shares_the_chunks_both_sides_hold() {
        let (common, _) = build(&(0..96).map(|b| (b, 0, 1)).collect::<Vec<_>>());
        let mine = common.with_block(100, 4, |c| c[1] = 7);
        let joined = common.join(&mine);
        // Chunks 0..3 are the same `Arc`s as `common`'s; only the one with block 100 is new.
        for (c, chunk) in &joined.chunks[..3] {
            let theirs = &common.chunks.iter().find(|(k, _)| k == c).unwrap().1;
            assert!(Arc::ptr_eq(chunk, theirs), "chunk {c} was copied");
        }
        assert_eq!(joined.get(100, 1), 7);
    }
}
