//! `gpu-conformance`: runs random cases of every PTX warp instruction on a GPU and in the lockstep
//! CPU runtime (`warp_runtime::Executor`, sm_90), and compares `d` and `p` for every lane that took
//! part.
//!
//! ```text
//! gpu-conformance [--ptx DIR] [--seed N] [--scale K] [--show N]
//! gpu-conformance --flip-check ...   (self-test: corrupts one GPU bit per case; every case must differ)
//! gpu-conformance --cpu-only [--seed N] [--scale K]   (no GPU: generate and run on the CPU only)
//! ```
//!
//! `DIR` holds `sm_90/warpkit_ptx.ptx` (the `conf_*` kernels, one instruction each, and the `dev_*`
//! kernels written against the device handle) and, optionally, `sm_70/warpkit_ptx.ptx`, whose
//! `dev_redux_*`/`dev_elect` kernels are the handle's fallbacks for targets without `redux.sync` /
//! `elect.sync` (the driver JIT-compiles that PTX for the GPU at hand). The default `DIR` is
//! `ptx/` next to the executable, then `target/ptx/`. Exit status: 0 when every case agrees, 1 on
//! any disagreement, 2 when no GPU run was possible.
//!
//! Every case is one warp; a launch runs a whole batch of cases (one warp each). Only defined
//! behaviour is generated: each active lane is in its own membermask, the lanes of one membermask
//! use the same one (disjoint groups run at once), masks may name exited lanes (the instructions
//! act on "non-exited threads"), and every `shfl` lane whose predicate is true sources a lane that
//! takes part. To add a kernel: add a [`Kind`], its parameters in [`Kind::params`], a generator in
//! [`gen_case`] and its CPU run in [`cpu`].
//!
//! Then every `atom`/`red` form ([`atomics`]): each (space, type, operation) with all 16
//! `.sem`/`.scope` pairs, random and edge operands, compared bitwise.
//!
//! After the instructions, every example kernel (`examples/*.rs`, `#[warp_kernel(entry)]`) runs on
//! random grids on the GPU and in the CPU runtime, and every global buffer is compared: see
//! [`examples`]. To add one: an `Ex` variant there, with its generator, CPU run and name.

mod atomics;
mod examples;
mod rng;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use rng::{Draw, Rng, SeedableRng};
use warp_runtime::semantics::shfl::{source_lane, width_c};
use warp_runtime::{Executor, FloatRedux, ShflMode, Target, VoteMode, Warp, WarpError};
use warpkit::cuda::{CudaError, DeviceBuffer, Gpu, LaunchConfig, Module, RawArg};

// ---------------------------------------------------------------------------------------------
// What is checked
// ---------------------------------------------------------------------------------------------

const MODES: [ShflMode; 4] = [ShflMode::Up, ShflMode::Down, ShflMode::Bfly, ShflMode::Idx];
const VOTES: [VoteMode; 4] = [
    VoteMode::All,
    VoteMode::Any,
    VoteMode::Uni,
    VoteMode::Ballot,
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum RedOp {
    AddU,
    MinU,
    MaxU,
    AddS,
    MinS,
    MaxS,
    And,
    Or,
    Xor,
}
const REDS: [RedOp; 9] = [
    RedOp::AddU,
    RedOp::MinU,
    RedOp::MaxU,
    RedOp::AddS,
    RedOp::MinS,
    RedOp::MaxS,
    RedOp::And,
    RedOp::Or,
    RedOp::Xor,
];

impl RedOp {
    fn ptx(self) -> &'static str {
        match self {
            RedOp::AddU => "add.u32",
            RedOp::MinU => "min.u32",
            RedOp::MaxU => "max.u32",
            RedOp::AddS => "add.s32",
            RedOp::MinS => "min.s32",
            RedOp::MaxS => "max.s32",
            RedOp::And => "and.b32",
            RedOp::Or => "or.b32",
            RedOp::Xor => "xor.b32",
        }
    }
    fn dev(self) -> &'static str {
        match self {
            RedOp::AddU => "add_u32",
            RedOp::MinU => "min_u32",
            RedOp::MaxU => "max_u32",
            RedOp::AddS => "add_i32",
            RedOp::MinS => "min_i32",
            RedOp::MaxS => "max_i32",
            RedOp::And => "and_u32",
            RedOp::Or => "or_u32",
            RedOp::Xor => "xor_u32",
        }
    }
}

/// Which PTX module a kernel comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ptx {
    Sm90,
    Sm70,
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Shfl(ShflMode),
    Vote(VoteMode),
    MatchAny {
        b64: bool,
    },
    MatchAll {
        b64: bool,
    },
    Redux(RedOp),
    Activemask,
    BarWarpSync,
    Elect,
    LaneInfo,
    DevShfl64(ShflMode),
    DevShflSync(ShflMode),
    DevTilePred(ShflMode),
    DevVote,
    DevRedux(RedOp),
    DevReduxF32,
    DevElect,
    DevLaneInfo,
    /// The handle's fallbacks, from the sm_70 module.
    FallbackRedux(RedOp),
    FallbackElect,
}

/// A kernel parameter.
#[derive(Clone, Copy, PartialEq)]
enum Param {
    Active,
    A32,
    A64,
    B,
    C,
    Mask,
    Scratch,
    D32,
    D64,
    P,
    /// `words` u32 outputs per thread.
    DWords(usize),
}

fn mode_name(m: ShflMode) -> &'static str {
    match m {
        ShflMode::Up => "up",
        ShflMode::Down => "down",
        ShflMode::Bfly => "bfly",
        ShflMode::Idx => "idx",
    }
}
fn method_mode(m: ShflMode) -> &'static str {
    match m {
        ShflMode::Bfly => "xor",
        m => mode_name(m),
    }
}
fn vote_name(v: VoteMode) -> &'static str {
    match v {
        VoteMode::All => "all",
        VoteMode::Any => "any",
        VoteMode::Uni => "uni",
        VoteMode::Ballot => "ballot",
    }
}

impl Kind {
    fn all() -> Vec<Kind> {
        let mut v = Vec::new();
        v.extend(MODES.map(Kind::Shfl));
        v.extend(VOTES.map(Kind::Vote));
        v.extend([
            Kind::MatchAny { b64: false },
            Kind::MatchAny { b64: true },
            Kind::MatchAll { b64: false },
            Kind::MatchAll { b64: true },
        ]);
        v.extend(REDS.map(Kind::Redux));
        v.extend([
            Kind::Activemask,
            Kind::BarWarpSync,
            Kind::Elect,
            Kind::LaneInfo,
        ]);
        v.extend(MODES.map(Kind::DevShfl64));
        v.extend(MODES.map(Kind::DevShflSync));
        v.extend(MODES.map(Kind::DevTilePred));
        v.push(Kind::DevVote);
        v.extend(REDS.map(Kind::DevRedux));
        v.extend([Kind::DevReduxF32, Kind::DevElect, Kind::DevLaneInfo]);
        v.extend(REDS.map(Kind::FallbackRedux));
        v.push(Kind::FallbackElect);
        v
    }

    fn module(self) -> Ptx {
        match self {
            Kind::FallbackRedux(_) | Kind::FallbackElect => Ptx::Sm70,
            _ => Ptx::Sm90,
        }
    }

    /// The table row: the instruction, and how it is reached.
    fn name(self) -> String {
        match self {
            Kind::Shfl(m) => format!("shfl.sync.{}.b32", mode_name(m)),
            Kind::Vote(v) => format!("vote.sync.{}", VoteMode::name(v)),
            Kind::MatchAny { b64 } => format!("match.any.sync.{}", if b64 { "b64" } else { "b32" }),
            Kind::MatchAll { b64 } => format!("match.all.sync.{}", if b64 { "b64" } else { "b32" }),
            Kind::Redux(r) => format!("redux.sync.{}", r.ptx()),
            Kind::Activemask => "activemask.b32".into(),
            Kind::BarWarpSync => "bar.warp.sync".into(),
            Kind::Elect => "elect.sync".into(),
            Kind::LaneInfo => "%laneid, %lanemask_*".into(),
            Kind::DevShfl64(m) => format!("Warp::shfl({m:?}) u64 (2x shfl.sync.{})", mode_name(m)),
            Kind::DevShflSync(m) => format!("Warp::shfl_{}_sync f64 (widths)", method_mode(m)),
            Kind::DevTilePred(m) => format!("Warp::tile(w).shfl_{}_pred i32", method_mode(m)),
            Kind::DevVote => "Warp::vote/ballot/all/any/uni/none/not_all".into(),
            Kind::DevRedux(r) => format!("Warp::redux_{} (redux.sync.{})", r.dev(), r.ptx()),
            Kind::DevReduxF32 => "Warp::redux_f32 [sm_90: shfl-tree fallback]".into(),
            Kind::DevElect => "Warp::elect (elect.sync)".into(),
            Kind::DevLaneInfo => "Warp::lane_id/global_id/warp_index/tile".into(),
            Kind::FallbackRedux(r) => {
                format!("Warp::redux_{} [sm_70: shfl-tree fallback]", r.dev())
            }
            Kind::FallbackElect => "Warp::elect [sm_70: ballot fallback]".into(),
        }
    }

    fn kernel(self) -> String {
        match self {
            Kind::Shfl(m) => format!("conf_shfl_sync_{}", mode_name(m)),
            Kind::Vote(v) => format!("conf_vote_sync_{}", vote_name(v)),
            Kind::MatchAny { b64 } => {
                format!("conf_match_any_sync_{}", if b64 { "b64" } else { "b32" })
            }
            Kind::MatchAll { b64 } => {
                format!("conf_match_all_sync_{}", if b64 { "b64" } else { "b32" })
            }
            Kind::Redux(r) => format!("conf_redux_sync_{}", r.ptx().replace('.', "_")),
            Kind::Activemask => "conf_activemask".into(),
            Kind::BarWarpSync => "conf_bar_warp_sync".into(),
            Kind::Elect => "conf_elect_sync".into(),
            Kind::LaneInfo => "conf_lane_info".into(),
            Kind::DevShfl64(m) => format!("dev_shfl_{}_b64", mode_name(m)),
            Kind::DevShflSync(m) => format!("dev_shfl_sync_{}_f64", method_mode(m)),
            Kind::DevTilePred(m) => format!("dev_tile_pred_{}_i32", method_mode(m)),
            Kind::DevVote => "dev_vote".into(),
            Kind::DevRedux(r) | Kind::FallbackRedux(r) => format!("dev_redux_{}", r.dev()),
            Kind::DevReduxF32 => "dev_redux_f32".into(),
            Kind::DevElect | Kind::FallbackElect => "dev_elect".into(),
            Kind::DevLaneInfo => "dev_lane_info".into(),
        }
    }

    fn params(self) -> &'static [Param] {
        use Param::*;
        match self {
            Kind::Shfl(_) => &[Active, A32, B, C, Mask, D32, P],
            Kind::Vote(_) => &[Active, A32, Mask, D32],
            Kind::MatchAny { b64: false } => &[Active, A32, Mask, D32],
            Kind::MatchAny { b64: true } => &[Active, A64, Mask, D32],
            Kind::MatchAll { b64: false } => &[Active, A32, Mask, D32, P],
            Kind::MatchAll { b64: true } => &[Active, A64, Mask, D32, P],
            Kind::Redux(_) | Kind::DevRedux(_) | Kind::FallbackRedux(_) => {
                &[Active, A32, Mask, D32]
            }
            Kind::Activemask => &[Active, D32],
            Kind::BarWarpSync => &[Active, A32, B, Mask, Scratch, D32],
            Kind::Elect | Kind::DevElect | Kind::FallbackElect => &[Active, Mask, D32, P],
            Kind::LaneInfo => &[Active, DWords(6)],
            Kind::DevShfl64(_) => &[Active, A64, B, C, Mask, D64, P],
            Kind::DevShflSync(_) => &[Active, A64, B, C, Mask, D64],
            Kind::DevTilePred(_) => &[Active, A32, B, C, D32, P],
            Kind::DevVote => &[Active, A32, Mask, B, D32],
            Kind::DevReduxF32 => &[Active, A32, B, Mask, D32],
            Kind::DevLaneInfo => &[Active, DWords(8)],
        }
    }

    fn has_p(self) -> bool {
        self.params().contains(&Param::P)
    }

    fn words(self) -> usize {
        let words = |p: &Param| {
            if let Param::DWords(n) = p {
                Some(*n)
            } else {
                None
            }
        };
        self.params().iter().find_map(words).unwrap_or(1)
    }

    fn cases(self, scale: usize) -> usize {
        let base = match self {
            Kind::Shfl(_) => 2048,
            Kind::DevShfl64(_) | Kind::DevShflSync(_) | Kind::DevTilePred(_) => 512,
            Kind::Vote(_)
            | Kind::MatchAny { .. }
            | Kind::MatchAll { .. }
            | Kind::Redux(_)
            | Kind::DevVote
            | Kind::DevReduxF32 => 512,
            Kind::LaneInfo | Kind::DevLaneInfo | Kind::Activemask => 64,
            _ => 256,
        };
        base * scale
    }
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

/// One warp's inputs. `b` and `c` also carry `sel`, `src` and `width` operands (see `Kind::params`).
#[derive(Clone, Debug)]
struct Case {
    active: u32,
    mask: [u32; 32],
    a: [u64; 32],
    b: [u32; 32],
    c: [u32; 32],
}

/// One lane's outputs: `d` (up to 8 words) and `p`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LaneOut {
    d: [u64; 8],
    p: bool,
}

fn bits(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |l| mask >> l & 1 == 1)
}

/// Active lanes and per-lane membermasks: disjoint groups whose masks may also name exited lanes.
fn gen_groups(r: &mut Rng) -> (u32, [u32; 32]) {
    let active = match r.below(8) {
        0..=2 => u32::MAX,
        3 => 1 << r.below(32),
        4 => u32::MAX << r.below(32),
        _ => r.u32() | (1 << r.below(32)),
    };
    let exited = !active;
    let mut mask = [0u32; 32];
    let extra = |r: &mut Rng| if r.chance(1, 2) { exited & r.u32() } else { 0 };
    match r.below(5) {
        // One group: all active lanes.
        0 | 1 => {
            let m = active | extra(r);
            for l in bits(active) {
                mask[l] = m;
            }
        }
        // Aligned tiles of width w.
        2 => {
            let w = r.pick(&[1u32, 2, 4, 8, 16]);
            for t in (0..32).step_by(w as usize) {
                let tile = (((1u64 << w) - 1) << t) as u32;
                let m = (tile & active) | (tile & extra(r));
                for l in bits(tile & active) {
                    mask[l] = m;
                }
            }
        }
        // Random disjoint groups.
        3 => {
            let k = 2 + r.below(6);
            let mut groups = vec![0u32; k as usize];
            for l in bits(active) {
                groups[r.below(k) as usize] |= 1 << l;
            }
            for g in groups {
                let m = g | extra(r);
                for l in bits(g) {
                    mask[l] = m;
                }
            }
        }
        // Single-lane groups.
        _ => {
            for l in bits(active) {
                mask[l] = 1 << l | extra(r);
            }
        }
    }
    (active, mask)
}

/// The lanes that take part with lane `l`: the active lanes of its membermask.
fn participants(c: &Case, l: usize) -> u32 {
    c.mask[l] & c.active
}

fn gen_b(r: &mut Rng) -> u32 {
    match r.below(4) {
        0 => r.below(32),
        1 => r.below(64),
        2 => r.u32(),
        _ => r.pick(&[0, 1, 2, 4, 8, 16, 31, 32, 33, 63, 64, u32::MAX]),
    }
}

fn gen_c(r: &mut Rng, mode: ShflMode) -> u32 {
    match r.below(5) {
        0 => width_c(mode, r.pick(&[1, 2, 4, 8, 16, 32])),
        1 => r.below(1 << 13),
        2 => r.u32(),
        3 => r.pick(&[0, 0x1f, 0x1f00, 0x1c1f, 0x181f, 0x1000, 0x0c10]),
        _ => (r.below(32) << 8) | r.below(32),
    }
}

/// Makes every shuffle defined: a lane whose predicate is true must source a participant; where it
/// does not, `b` becomes one that reads the lane itself (`b = 32k`, or for `.idx` the lane number).
fn fix_shfl(r: &mut Rng, mode: ShflMode, case: &mut Case, c_of: impl Fn(&Case, usize) -> u32) {
    for l in bits(case.active) {
        let part = participants(case, l);
        let (j, p) = source_lane(mode, l as u32, case.b[l], c_of(case, l));
        if p && part >> j & 1 == 0 {
            let k = r.below(1 << 27) << 5;
            case.b[l] = if mode == ShflMode::Idx {
                k | l as u32
            } else {
                k
            };
        }
    }
}

fn gen_f32(r: &mut Rng) -> u32 {
    match r.below(6) {
        0 => r.pick(&[
            0x0000_0000,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0x7fff_ffff,
            0x0000_0001,
            0x8000_0001,
            0x3f80_0000,
            0xbf80_0000,
        ]),
        1 => r.u32(),
        2 => (r.below(2000) as f32 - 1000.0).to_bits(),
        3 => r.u32() & 0x807f_ffff, // zeros and subnormals
        _ => ((r.below(64) as f32) * if r.chance(1, 2) { -1.0 } else { 1.0 }).to_bits(),
    }
}

fn gen_case(r: &mut Rng, kind: Kind) -> Case {
    let (active, mask) = gen_groups(r);
    let mut c = Case {
        active,
        mask,
        a: [0; 32],
        b: [0; 32],
        c: [0; 32],
    };
    // Per-group uniform values: keyed by the group's mask.
    let per_group = |r: &mut Rng, c: &Case, f: &mut dyn FnMut(&mut Rng) -> u32| -> [u32; 32] {
        let mut out = [0u32; 32];
        let mut done = 0u32;
        for l in bits(c.active) {
            if done >> l & 1 == 1 {
                continue;
            }
            let v = f(r);
            for k in bits(c.active & c.mask[l]) {
                out[k] = v;
                done |= 1 << k;
            }
        }
        out
    };
    match kind {
        Kind::Shfl(m) | Kind::DevShfl64(m) => {
            let uniform = r.chance(1, 3);
            let (b0, c0) = (gen_b(r), gen_c(r, m));
            for l in 0..32 {
                c.a[l] = if matches!(kind, Kind::DevShfl64(_)) {
                    r.next()
                } else {
                    r.u32() as u64
                };
                c.b[l] = if uniform { b0 } else { gen_b(r) };
                c.c[l] = if uniform { c0 } else { gen_c(r, m) };
            }
            fix_shfl(r, m, &mut c, |c, l| c.c[l]);
        }
        Kind::DevShflSync(m) => {
            c.c = per_group(r, &c, &mut |r| r.pick(&[1, 2, 4, 8, 16, 32]));
            for l in 0..32 {
                c.a[l] = f64::to_bits(r.below(1 << 20) as f64 * 0.25 - 1000.0);
                c.b[l] = gen_b(r);
            }
            fix_shfl(r, m, &mut c, |c, l| width_c(m, c.c[l]));
        }
        Kind::DevTilePred(m) => {
            // Tiles: the membermask is the tile of the lane's width (uniform over the warp).
            let w = r.pick(&[1u32, 2, 4, 8, 16, 32]);
            for l in 0..32 {
                let base = l as u32 & !(w - 1);
                c.mask[l] = if w == 32 {
                    u32::MAX
                } else {
                    ((1u32 << w) - 1) << base
                };
                c.c[l] = w;
                c.a[l] = r.u32() as u64;
                c.b[l] = gen_b(r);
            }
            fix_shfl(r, m, &mut c, |c, l| width_c(m, c.c[l]));
        }
        Kind::Vote(_) | Kind::DevVote => {
            let bias = r.below(4);
            for l in 0..32 {
                c.a[l] = match bias {
                    0 => 1,
                    1 => 0,
                    _ => r.below(2) as u64,
                };
            }
            c.b = per_group(r, &c, &mut |r| r.below(14));
        }
        Kind::MatchAny { b64 } | Kind::MatchAll { b64 } => {
            let n = 1 + r.below(4);
            let pool: Vec<u64> = (0..n)
                .map(|_| {
                    let v = r.next();
                    if b64 {
                        v
                    } else {
                        v as u32 as u64
                    }
                })
                .collect();
            // Values that differ only in the high word (b64) or are all equal.
            let hi_only = b64 && r.chance(1, 3);
            let all_same = r.chance(1, 4);
            for l in 0..32 {
                let base = if all_same {
                    pool[0]
                } else {
                    pool[r.below(n) as usize]
                };
                c.a[l] = if hi_only {
                    (base & 0xffff_ffff_0000_0000) | 0x1234
                } else {
                    base
                };
            }
        }
        Kind::Redux(_) | Kind::DevRedux(_) | Kind::FallbackRedux(_) => {
            let style = r.below(4);
            for l in 0..32 {
                c.a[l] = match style {
                    0 => r.u32(),
                    1 => r.below(100),
                    2 => r.pick(&[
                        0,
                        1,
                        u32::MAX,
                        0x7fff_ffff,
                        0x8000_0000,
                        0xffff_0000,
                        0x0000_ffff,
                    ]),
                    _ => (r.below(2000) as i32 - 1000) as u32,
                } as u64;
            }
        }
        Kind::DevReduxF32 => {
            for l in 0..32 {
                c.a[l] = gen_f32(r) as u64;
            }
            c.b = per_group(r, &c, &mut |r| r.below(8));
        }
        Kind::BarWarpSync => {
            for l in 0..32 {
                c.a[l] = r.u32() as u64;
                // A lane of the same membermask that takes part.
                let part: Vec<usize> = bits(participants(&c, l)).collect();
                c.b[l] = if part.is_empty() {
                    l as u32
                } else {
                    part[r.below(part.len() as u32) as usize] as u32
                };
            }
        }
        Kind::Activemask | Kind::LaneInfo | Kind::DevLaneInfo => {
            for l in 0..32 {
                c.mask[l] = u32::MAX;
            }
        }
        Kind::Elect | Kind::DevElect | Kind::FallbackElect => {}
    }
    c
}

// ---------------------------------------------------------------------------------------------
// CPU runtime
// ---------------------------------------------------------------------------------------------

fn out1(d: u64, p: bool) -> LaneOut {
    let mut o = LaneOut { d: [0; 8], p };
    o.d[0] = d;
    o
}

/// Runs the case in the lockstep runtime as warp `warp` of a launch.
fn cpu(kind: Kind, case: &Case, warp: u64) -> Result<[Option<LaneOut>; 32], WarpError> {
    // The handle's f32 redux fallback must equal the sm_100a instruction.
    let target = if kind == Kind::DevReduxF32 {
        Target::SM_100A
    } else {
        Target::SM_90
    };
    let exec = Executor::new().target(target).warp_index(warp);
    exec.run_partial(case.active, async |w: &Warp<'_>| {
        let l = w.lane_id() as usize;
        let g = w.group(case.mask[l]);
        let a32 = case.a[l] as u32;
        let (b, c) = (case.b[l], case.c[l]);
        match kind {
            Kind::Shfl(m) => {
                let (d, p) = g.shfl(m, a32, b, c).await;
                out1(d as u64, p)
            }
            Kind::DevShfl64(m) => {
                let (d, p) = g.shfl(m, case.a[l], b, c).await;
                out1(d, p)
            }
            Kind::DevShflSync(m) => {
                let v = f64::from_bits(case.a[l]);
                let d = match m {
                    ShflMode::Up => w.shfl_up_sync(case.mask[l], v, b, c).await,
                    ShflMode::Down => w.shfl_down_sync(case.mask[l], v, b, c).await,
                    ShflMode::Bfly => w.shfl_xor_sync(case.mask[l], v, b, c).await,
                    ShflMode::Idx => w.shfl_idx_sync(case.mask[l], v, b, c).await,
                };
                out1(d.to_bits(), false)
            }
            Kind::DevTilePred(m) => {
                let t = w.tile(c);
                let v = a32 as i32;
                let (d, p) = match m {
                    ShflMode::Up => t.shfl_up_pred(v, b).await,
                    ShflMode::Down => t.shfl_down_pred(v, b).await,
                    ShflMode::Bfly => t.shfl_xor_pred(v, b).await,
                    ShflMode::Idx => t.shfl_idx_pred(v, b).await,
                };
                out1(d as u32 as u64, p)
            }
            Kind::Vote(v) => out1(g.vote(v, a32 != 0, false).await as u64, false),
            Kind::DevVote => {
                let x = a32 != 0;
                let d = match b {
                    0..=7 => g.vote(VOTES[(b & 3) as usize], x, b >= 4).await,
                    8 => g.ballot(x).await,
                    9 => g.all(x).await as u32,
                    10 => g.any(x).await as u32,
                    11 => g.uni(x).await as u32,
                    12 => g.none(x).await as u32,
                    _ => g.not_all(x).await as u32,
                };
                out1(d as u64, false)
            }
            Kind::MatchAny { b64: false } => out1(g.match_any(a32).await as u64, false),
            Kind::MatchAny { b64: true } => out1(g.match_any(case.a[l]).await as u64, false),
            Kind::MatchAll { b64: false } => {
                let (d, p) = g.match_all(a32).await;
                out1(d as u64, p)
            }
            Kind::MatchAll { b64: true } => {
                let (d, p) = g.match_all(case.a[l]).await;
                out1(d as u64, p)
            }
            Kind::Redux(op) | Kind::DevRedux(op) | Kind::FallbackRedux(op) => {
                let s = a32 as i32;
                let d = match op {
                    RedOp::AddU => g.redux_add(a32).await,
                    RedOp::MinU => g.redux_min(a32).await,
                    RedOp::MaxU => g.redux_max(a32).await,
                    RedOp::AddS => g.redux_add(s).await as u32,
                    RedOp::MinS => g.redux_min(s).await as u32,
                    RedOp::MaxS => g.redux_max(s).await as u32,
                    RedOp::And => g.redux_and(a32).await,
                    RedOp::Or => g.redux_or(a32).await,
                    RedOp::Xor => g.redux_xor(a32).await,
                };
                out1(d as u64, false)
            }
            Kind::DevReduxF32 => {
                let q = FloatRedux {
                    max: b & 1 != 0,
                    abs: b & 2 != 0,
                    nan: b & 4 != 0,
                };
                out1(
                    g.redux_f32(f32::from_bits(a32), q).await.to_bits() as u64,
                    false,
                )
            }
            Kind::Activemask => out1(w.activemask().await as u64, false),
            Kind::BarWarpSync => {
                g.syncwarp().await;
                // bar.warp.sync orders the scratch writes: lane `b` wrote a[b] before it.
                out1(case.a[b as usize] as u32 as u64, false)
            }
            Kind::Elect | Kind::DevElect | Kind::FallbackElect => {
                let (d, p) = g.elect().await;
                out1(d as u64, p)
            }
            Kind::LaneInfo => {
                let mut o = LaneOut {
                    d: [0; 8],
                    p: false,
                };
                let v = [
                    w.lane_id(),
                    w.lanemask_eq(),
                    w.lanemask_lt(),
                    w.lanemask_le(),
                    w.lanemask_gt(),
                    w.lanemask_ge(),
                ];
                for (i, x) in v.into_iter().enumerate() {
                    o.d[i] = x as u64;
                }
                o
            }
            Kind::DevLaneInfo => {
                let t = w.tile(8);
                let v = [
                    w.lane_id(),
                    w.global_id() as u32,
                    w.warp_index() as u32,
                    w.lanemask_lt(),
                    w.lanemask_ge(),
                    t.rank(),
                    t.size(),
                    t.membermask(),
                ];
                let mut o = LaneOut {
                    d: [0; 8],
                    p: false,
                };
                for (i, x) in v.into_iter().enumerate() {
                    o.d[i] = x as u64;
                }
                o
            }
        }
    })
}

// ---------------------------------------------------------------------------------------------
// GPU
// ---------------------------------------------------------------------------------------------

/// The loaded modules (warpkit's public `cuda` API: `Gpu`, `Module`, `DeviceBuffer`, `RawArg`).
struct Modules {
    sm90: Module,
    sm70: Option<Module>,
}

enum Buf {
    U32(DeviceBuffer<u32>),
    U64(DeviceBuffer<u64>),
}

const WARPS_PER_BLOCK: usize = 4;

impl Modules {
    /// Runs `cases` (one warp each) in one launch; returns each lane's outputs.
    fn run(&self, kind: Kind, cases: &[Case]) -> Result<Vec<[LaneOut; 32]>, CudaError> {
        let module = match kind.module() {
            Ptx::Sm90 => &self.sm90,
            Ptx::Sm70 => self.sm70.as_ref().expect("sm_70 kinds are skipped without the module"),
        };
        let gpu = module.gpu();
        let warps = cases.len().div_ceil(WARPS_PER_BLOCK) * WARPS_PER_BLOCK;
        let n = warps * 32;
        let lane32 = |f: &dyn Fn(&Case, usize) -> u32| -> Vec<u32> {
            let mut v = vec![0u32; n];
            for (i, c) in cases.iter().enumerate() {
                for l in 0..32 {
                    v[i * 32 + l] = f(c, l);
                }
            }
            v
        };
        let mut bufs = Vec::new();
        for p in kind.params() {
            let b = match p {
                Param::Active => Buf::U32(gpu.upload(&lane32(&|c, l| c.active >> l & 1))?),
                Param::A32 => Buf::U32(gpu.upload(&lane32(&|c, l| c.a[l] as u32))?),
                Param::A64 => {
                    let mut v = vec![0u64; n];
                    for (i, c) in cases.iter().enumerate() {
                        v[i * 32..i * 32 + 32].copy_from_slice(&c.a);
                    }
                    Buf::U64(gpu.upload(&v)?)
                }
                Param::B => Buf::U32(gpu.upload(&lane32(&|c, l| c.b[l]))?),
                Param::C => Buf::U32(gpu.upload(&lane32(&|c, l| c.c[l]))?),
                Param::Mask => Buf::U32(gpu.upload(&lane32(&|c, l| c.mask[l]))?),
                Param::Scratch | Param::D32 | Param::P => Buf::U32(gpu.zeros::<u32>(n)?),
                Param::D64 => Buf::U64(gpu.zeros::<u64>(n)?),
                Param::DWords(w) => Buf::U32(gpu.zeros::<u32>(n * w)?),
            };
            bufs.push(b);
        }
        // The conformance kernels take raw pointers.
        let args: Vec<RawArg<'_>> = bufs
            .iter()
            .map(|b| match b {
                Buf::U32(x) => RawArg::ptr(x),
                Buf::U64(x) => RawArg::ptr(x),
            })
            .collect();
        let cfg = LaunchConfig::blocks(((warps / WARPS_PER_BLOCK) as u32, 1, 1), (32 * WARPS_PER_BLOCK as u32, 1, 1));
        module.launch_raw(&kind.kernel(), &cfg, &args)?;
        gpu.synchronize()?;

        let mut outs = vec![[LaneOut { d: [0; 8], p: false }; 32]; cases.len()];
        for (p, b) in kind.params().iter().zip(&bufs) {
            match (p, b) {
                (Param::D32, Buf::U32(x)) => {
                    let v = x.to_vec()?;
                    for (i, o) in outs.iter_mut().enumerate() {
                        for l in 0..32 {
                            o[l].d[0] = v[i * 32 + l] as u64;
                        }
                    }
                }
                (Param::D64, Buf::U64(x)) => {
                    let v = x.to_vec()?;
                    for (i, o) in outs.iter_mut().enumerate() {
                        for l in 0..32 {
                            o[l].d[0] = v[i * 32 + l];
                        }
                    }
                }
                (Param::P, Buf::U32(x)) => {
                    let v = x.to_vec()?;
                    for (i, o) in outs.iter_mut().enumerate() {
                        for l in 0..32 {
                            o[l].p = v[i * 32 + l] != 0;
                        }
                    }
                }
                (Param::DWords(w), Buf::U32(x)) => {
                    let v = x.to_vec()?;
                    for (i, o) in outs.iter_mut().enumerate() {
                        for l in 0..32 {
                            for k in 0..*w {
                                o[l].d[k] = v[(i * 32 + l) * w + k] as u64;
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(outs)
    }
}

// ---------------------------------------------------------------------------------------------
// Driver
// ---------------------------------------------------------------------------------------------

struct Row {
    name: String,
    kernel: String,
    module: &'static str,
    cases: usize,
    agree: usize,
    disagree: usize,
    shown: Vec<String>,
    note: Option<String>,
}

fn describe(
    kind: Kind,
    case: &Case,
    gpu: &[LaneOut; 32],
    cpu: &Result<[Option<LaneOut>; 32], WarpError>,
) -> String {
    let mut s = format!(
        "    {} ({}): active = {:#010x}\n",
        kind.name(),
        kind.kernel(),
        case.active
    );
    let words = kind.words();
    s += "    lane  mask        a                   b           c           | GPU d / p              | CPU d / p\n";
    for l in 0..32 {
        if case.active >> l & 1 == 0 {
            continue;
        }
        let g = if words > 1 {
            format!("{:x?}", &gpu[l].d[..words])
        } else {
            format!("{:#x} / {}", gpu[l].d[0], gpu[l].p as u8)
        };
        let c = match cpu {
            Ok(o) => match o[l] {
                Some(o) if words > 1 => format!("{:x?}", &o.d[..words]),
                Some(o) => format!("{:#x} / {}", o.d[0], o.p as u8),
                None => "-".into(),
            },
            Err(_) => "error".into(),
        };
        s += &format!(
            "    {l:>4}  {:#010x}  {:#018x}  {:#010x}  {:#010x}  | {g:<22} | {c}\n",
            case.mask[l], case.a[l], case.b[l], case.c[l]
        );
    }
    if let Err(e) = cpu {
        s += &format!("    CPU runtime reported: {e}\n");
    }
    s
}

/// `--flip-check`: flips bit 0 of the GPU's `d` in the highest active lane of every case, to show
/// that the comparison catches a one-bit difference (every case must then disagree).
static FLIP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn agree(
    kind: Kind,
    case: &Case,
    gpu: &[LaneOut; 32],
    cpu: &Result<[Option<LaneOut>; 32], WarpError>,
) -> bool {
    let Ok(cpu) = cpu else { return false };
    let flip_lane = if FLIP.load(std::sync::atomic::Ordering::Relaxed) {
        31 - case.active.leading_zeros() as usize
    } else {
        32
    };
    bits(case.active).all(|l| match cpu[l] {
        None => false,
        Some(c) => {
            let mut g = gpu[l];
            if l == flip_lane {
                g.d[0] ^= 1;
            }
            c.d[..kind.words()] == g.d[..kind.words()] && (!kind.has_p() || c.p == g.p)
        }
    })
}

fn find_ptx_dir(arg: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(d) = arg {
        return Ok(d);
    }
    let mut candidates = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            candidates.push(dir.join("ptx"));
        }
    }
    candidates.push(PathBuf::from("target/ptx"));
    for c in &candidates {
        if c.join("sm_90/warpkit_ptx.ptx").is_file() {
            return Ok(c.clone());
        }
    }
    Err(format!("no sm_90/warpkit_ptx.ptx under {candidates:?}; pass --ptx DIR (built by `cargo xtask ptx`)"))
}

/// The command line.
#[derive(Parser)]
#[command(name = "gpu-conformance", about = "Random cases of every PTX warp instruction and every example kernel, on GPU 0 and in the CPU runtime; exit status 0 when all agree, 1 on a disagreement or GPU error, 2 without a GPU")]
struct Args {
    /// The folder holding sm_90/warpkit_ptx.ptx (and sm_70/); default: ptx/ next to the program, then target/ptx
    #[arg(long, value_name = "DIR")]
    ptx: Option<PathBuf>,
    /// The seed of every generated case
    #[arg(long, default_value_t = 0x5eed_2026)]
    seed: u64,
    /// Run K times the cases
    #[arg(long, value_name = "K", default_value_t = 1)]
    scale: usize,
    /// Show the first N disagreements of each row in full
    #[arg(long, value_name = "N", default_value_t = 3)]
    show: usize,
    /// No GPU: generate every case and run it in the CPU runtime only (checks the generators make
    /// only defined behaviour)
    #[arg(long)]
    cpu_only: bool,
    /// Self-test: corrupt one bit of the GPU output of every case (every case must then disagree)
    #[arg(long)]
    flip_check: bool,
    /// Only run the bug gallery's racy kernels and their fixed twins once each (for
    /// `compute-sanitizer --tool racecheck`)
    #[arg(long)]
    gallery_races: bool,
    /// Only run the bug gallery's mbarrier pipelines: the fixed twins against the CPU runtime,
    /// then the parity bug, which must hang (ended by a watchdog after this many seconds)
    #[arg(long, value_name = "SECONDS")]
    gallery_hang: Option<u64>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let (seed, scale, show) = (args.seed, args.scale, args.show);
    if args.cpu_only {
        return cpu_only(seed, scale);
    }
    FLIP.store(args.flip_check, std::sync::atomic::Ordering::Relaxed);

    // The driver first: a clear message, not a panic, when there is none.
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (major, minor) = gpu.compute_capability();
    println!("device 0: {}, compute capability {major}.{minor} (sm_{major}{minor})", gpu.name());
    if (major, minor) < (9, 0) {
        eprintln!("error: the conformance PTX targets sm_90; this device is sm_{major}{minor}");
        return ExitCode::from(2);
    }
    let dir = match find_ptx_dir(args.ptx) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let load = |sm: &str| gpu.load_file(sm, dir.join(sm).join("warpkit_ptx.ptx"));
    let sm90 = match load("sm_90") {
        Ok(m) => m,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let sm70 = match load("sm_70") {
        Ok(m) => Some(m),
        Err(e) => {
            println!("note: sm_70 fallback kernels skipped: {e}");
            None
        }
    };
    if let Some(seconds) = args.gallery_hang {
        return match examples::gallery_hang(&sm90, seconds) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        };
    }
    if args.gallery_races {
        return match examples::gallery_races(&sm90) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
        };
    }
    println!("PTX: {}; seed {seed:#x}; CPU oracle: warp_runtime::Executor, Target::SM_90 (SM_100A for redux_f32)", dir.display());
    let gpu = Modules { sm90, sm70 };

    let mut rng = Rng::seed_from_u64(seed);
    let mut rows = Vec::new();
    let mut failed_launch = false;
    for kind in Kind::all() {
        let mut row = Row {
            name: kind.name(),
            kernel: kind.kernel(),
            module: if kind.module() == Ptx::Sm70 {
                "sm_70"
            } else {
                "sm_90"
            },
            cases: 0,
            agree: 0,
            disagree: 0,
            shown: Vec::new(),
            note: None,
        };
        if kind.module() == Ptx::Sm70 && gpu.sm70.is_none() {
            row.note = Some("skipped: no sm_70 module".into());
            rows.push(row);
            continue;
        }
        let total = kind.cases(scale);
        let batch = 1024;
        let mut done = 0;
        while done < total {
            let n = batch.min(total - done);
            let cases: Vec<Case> = (0..n).map(|_| gen_case(&mut rng, kind)).collect();
            let outs = match gpu.run(kind, &cases) {
                Ok(o) => o,
                Err(e) => {
                    row.note = Some(format!("GPU error: {e}"));
                    failed_launch = true;
                    break;
                }
            };
            for (i, (case, g)) in cases.iter().zip(&outs).enumerate() {
                let c = cpu(kind, case, i as u64);
                row.cases += 1;
                if agree(kind, case, g, &c) {
                    row.agree += 1;
                } else {
                    row.disagree += 1;
                    if row.shown.len() < show {
                        row.shown.push(describe(kind, case, g, &c));
                    }
                }
            }
            done += n;
        }
        rows.push(row);
    }

    // The example kernels: one row each.
    let (example_rows, example_failed) = examples::run(
        examples::Side::Both(&gpu.sm90),
        seed,
        scale,
        show,
        FLIP.load(std::sync::atomic::Ordering::Relaxed),
    );
    rows.extend(example_rows);
    failed_launch |= example_failed;
    let (pdl, pdl_failed) = examples::pdl_row(&examples::Side::Both(&gpu.sm90), seed, scale, show, FLIP.load(std::sync::atomic::Ordering::Relaxed));
    rows.push(pdl);
    failed_launch |= pdl_failed;

    // atom/red: every form on global and shared memory, every .sem/.scope pair.
    let (atom_rows, atom_failed) = atomics::run(
        examples::Side::Both(&gpu.sm90),
        seed,
        scale,
        show,
        FLIP.load(std::sync::atomic::Ordering::Relaxed),
    );
    rows.extend(atom_rows);
    failed_launch |= atom_failed;

    // tensormap.cp_fenceproxy last: an address the GPU refused would end the context.
    let (tm, tm_failed) = examples::tensormap_row(examples::Side::Both(&gpu.sm90), seed, scale, show, FLIP.load(std::sync::atomic::Ordering::Relaxed));
    rows.push(tm);
    failed_launch |= tm_failed;

    // f32 redux: sm_90 has no redux.sync.f32; the native instruction is checked on the CPU only.
    for q in 0..8u32 {
        let fq = FloatRedux {
            max: q & 1 != 0,
            abs: q & 2 != 0,
            nan: q & 4 != 0,
        };
        rows.push(Row {
            name: format!("{}", warp_runtime::Op::ReduxF32(fq)),
            kernel: "-".into(),
            module: "-",
            cases: 0,
            agree: 0,
            disagree: 0,
            shown: Vec::new(),
            note: Some("CPU only (sm_100a), checked against the spec text by the runtime tests; the handle's sm_90 fallback is checked above".into()),
        });
    }

    println!();
    println!(
        "{:<52} {:<26} {:<6} {:>7} {:>7} {:>7}",
        "instruction", "kernel", "ptx", "cases", "agree", "differ"
    );
    println!("{}", "-".repeat(110));
    let (mut tc, mut ta, mut td) = (0, 0, 0);
    for r in &rows {
        if r.cases == 0 {
            println!(
                "{:<52} {:<26} {:<6} {:>7} {:>7} {:>7}  {}",
                r.name,
                r.kernel,
                r.module,
                "-",
                "-",
                "-",
                r.note.as_deref().unwrap_or("")
            );
            continue;
        }
        println!(
            "{:<52} {:<26} {:<6} {:>7} {:>7} {:>7}{}",
            r.name,
            r.kernel,
            r.module,
            r.cases,
            r.agree,
            r.disagree,
            r.note
                .as_deref()
                .map(|n| format!("  {n}"))
                .unwrap_or_default()
        );
        tc += r.cases;
        ta += r.agree;
        td += r.disagree;
    }
    println!("{}", "-".repeat(110));
    println!(
        "{:<52} {:<26} {:<6} {:>7} {:>7} {:>7}",
        "total", "", "", tc, ta, td
    );
    for r in rows.iter().filter(|r| !r.shown.is_empty()) {
        println!();
        println!(
            "disagreements in {} (first {} of {}):",
            r.name,
            r.shown.len(),
            r.disagree
        );
        for s in &r.shown {
            println!("{s}");
        }
    }
    if td > 0 || failed_launch {
        println!(
            "\nFAIL: {td} disagreeing cases{}",
            if failed_launch {
                ", and GPU errors (see the table)"
            } else {
                ""
            }
        );
        ExitCode::FAILURE
    } else {
        println!("\nOK: {tc} cases, GPU and CPU runtime agree on every participating lane");
        ExitCode::SUCCESS
    }
}

/// `--cpu-only`: generates every case and runs it in the CPU runtime only, reporting cases the
/// runtime rejects (a generator bug: only defined behaviour may be generated). Needs no GPU.
fn cpu_only(seed: u64, scale: usize) -> ExitCode {
    let mut rng = Rng::seed_from_u64(seed);
    let (mut total, mut bad) = (0, 0);
    for kind in Kind::all() {
        for i in 0..kind.cases(scale) {
            let case = gen_case(&mut rng, kind);
            total += 1;
            if let Err(e) = cpu(kind, &case, i as u64) {
                bad += 1;
                if bad <= 5 {
                    println!(
                        "{} ({}): the CPU runtime rejects a generated case:\n{e}\n{case:?}",
                        kind.name(),
                        kind.kernel()
                    );
                }
            }
        }
    }
    let (mut example_rows, _) = examples::run(examples::Side::Cpu, seed, scale, 3, false);
    example_rows.push(examples::pdl_row(&examples::Side::Cpu, seed, scale, 3, false).0);
    example_rows.push(examples::tensormap_row(examples::Side::Cpu, seed, scale, 3, false).0);
    let (atom_rows, _) = atomics::run(examples::Side::Cpu, seed, scale, 3, false);
    println!("cpu-only: atom/red: {} rows, {} cases", atom_rows.len(), atom_rows.iter().map(|r| r.cases).sum::<usize>());
    example_rows.extend(atom_rows);
    for r in &example_rows {
        total += r.cases;
        bad += r.disagree;
        for s in r.shown.iter().take(2) {
            println!("{} ({}): the CPU runtime rejects a generated case:\n{s}", r.name, r.kernel);
        }
    }
    println!("cpu-only: {total} cases generated ({} of them example grids and atom/red elements), {bad} rejected by the CPU runtime", example_rows.iter().map(|r| r.cases).sum::<usize>());
    if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

