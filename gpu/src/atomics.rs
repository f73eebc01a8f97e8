//! `atom`/`red` on the GPU against the CPU runtime: one row per (kernel, operation), each over
//! all 16 `.sem`/`.scope` pairs (`q`), with random and edge operands.
//!
//! A case is one element: thread `t` applies the operation to its own element (no two threads
//! share one, so the result does not depend on their order), and both the returned old value
//! (`atom`) and the element afterwards are compared bitwise. The kernels are
//! `ptx/src/atomics.rs`'s, whose bodies (`ptx/src/atomics_ops.rs`, included here) are the CPU
//! runtime's too: the GPU runs them from the sm_90 module, the CPU in a grid of the same shape
//! (`Target::SM_90`; blocks of 128 threads with dynamic shared memory for the shared kernels).
//!
//! Operands mix uniform random bits with each type's edge values: for integers 0, 1, the
//! extremes, and for `inc`/`dec` small bounds around the element (r = s, r = s + 1, r = 0,
//! wrapping); for floats ±0, ±inf, the smallest and largest subnormals and normals, 1, quiet and
//! signalling NaNs with payloads, and pairs that round to a tie. f16x2/bf16x2 shared adds are
//! known to be miscompiled by ptxas (DESIGN notes): a disagreement there is recorded, not bent.

use warp_runtime::shared::dev::SharedAsm;
use warp_runtime::{bf16, f16, Bf16x2, Executor, F16x2, GlobalBuffer, GlobalSlice, GlobalValue, Grid, SharedSlice, Target, Warp, WarpError};
use warpkit::cuda::{CudaError, LaunchConfig, Module, RawArg};

use super::examples::Side;
use super::rng::{Draw, Rng, SeedableRng};
use super::Row;

/// The kernels' bodies, one source with the GPU's.
#[allow(dead_code, unused_imports)]
#[path = "../../ptx/src/atomics_ops.rs"]
mod ops;

const BLOCK: u32 = 128;

/// How an element type's edge values look.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Edge {
    Int,
    F32,
    F64,
    F16,
    Bf16,
    B128,
}

/// Random bits of `bytes` bytes, often an edge value of the type.
fn draw(r: &mut Rng, edge: Edge, bytes: usize) -> u128 {
    let rnd = (r.next() as u128) << 64 | r.next() as u128;
    let mask = if bytes == 16 { u128::MAX } else { (1u128 << (8 * bytes)) - 1 };
    if r.chance(1, 2) {
        return rnd & mask;
    }
    let e: &[u128] = match edge {
        Edge::Int => &[0, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x7fff_ffff_ffff_ffff, 0x8000_0000_0000_0000, u64::MAX as u128],
        Edge::F32 => &[0, 0x8000_0000, 0x0000_0001, 0x007f_ffff, 0x8000_0400, 0x0080_0000, 0x0080_0001, 0x7f7f_ffff, 0x3f80_0000, 0x3380_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0x7fc0_1234, 0x7f80_0001, 0xffc0_0042],
        Edge::F64 => &[
            0,
            0x8000_0000_0000_0000,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x3ff0_0000_0000_0000,
            0x3ca0_0000_0000_0000,
            0x7fef_ffff_ffff_ffff,
            0x7ff0_0000_0000_0000,
            0xfff0_0000_0000_0000,
            0x7ff8_0000_0000_0000,
            0x7ff8_0000_0000_beef,
            0x7ff0_0000_0000_0042,
            0xfff0_0000_0000_0777,
        ],
        Edge::F16 => &[0, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x1400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7e12, 0x7c01, 0xfd00, 0x6800],
        Edge::Bf16 => &[0, 0x8000, 0x0001, 0x007f, 0x0080, 0x3f80, 0x3b80, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7fc5, 0x7f81, 0xffa0, 0x4380],
        Edge::B128 => &[0, u128::MAX, 1, 1 << 64, 1 << 127],
    };
    // Packed pairs: an edge value in each half.
    if bytes == 4 && matches!(edge, Edge::F16 | Edge::Bf16) {
        return r.pick(e) | r.pick(e) << 16;
    }
    r.pick(e) & mask
}

/// One scalar kernel of `atomics.rs`: its types and operations.
struct Scalar {
    ty: &'static str,
    edge: Edge,
    bytes: usize,
    ops: &'static [u32],
}

const INT32: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17];
const INT: &[u32] = &[0, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12, 15, 16, 17];
const FLOAT: &[u32] = &[0, 8, 9, 10];
const HALF: &[u32] = &[0, 9, 10];
const B128: &[u32] = &[8, 9];
const VEC_ADD: &[u32] = &[0, 10];
const VEC_ALL: &[u32] = &[0, 1, 2, 10, 11, 12];

const SCALARS: [Scalar; 11] = [
    Scalar { ty: "u32", edge: Edge::Int, bytes: 4, ops: INT32 },
    Scalar { ty: "s32", edge: Edge::Int, bytes: 4, ops: INT },
    Scalar { ty: "u64", edge: Edge::Int, bytes: 8, ops: INT },
    Scalar { ty: "s64", edge: Edge::Int, bytes: 8, ops: INT },
    Scalar { ty: "f32", edge: Edge::F32, bytes: 4, ops: FLOAT },
    Scalar { ty: "f64", edge: Edge::F64, bytes: 8, ops: FLOAT },
    Scalar { ty: "f16", edge: Edge::F16, bytes: 2, ops: HALF },
    Scalar { ty: "bf16", edge: Edge::Bf16, bytes: 2, ops: HALF },
    Scalar { ty: "f16x2", edge: Edge::F16, bytes: 4, ops: FLOAT },
    Scalar { ty: "bf16x2", edge: Edge::Bf16, bytes: 4, ops: FLOAT },
    Scalar { ty: "b128", edge: Edge::B128, bytes: 16, ops: B128 },
];

/// The vector kernels: (name suffix, element type, edge, element bytes, N, operations).
const VECTORS: [(&str, Edge, usize, usize, &[u32]); 12] = [
    ("vec2_f32", Edge::F32, 4, 2, VEC_ADD),
    ("vec4_f32", Edge::F32, 4, 4, VEC_ADD),
    ("vec2_f16", Edge::F16, 2, 2, VEC_ALL),
    ("vec4_f16", Edge::F16, 2, 4, VEC_ALL),
    ("vec8_f16", Edge::F16, 2, 8, VEC_ALL),
    ("vec2_bf16", Edge::Bf16, 2, 2, VEC_ALL),
    ("vec4_bf16", Edge::Bf16, 2, 4, VEC_ALL),
    ("vec8_bf16", Edge::Bf16, 2, 8, VEC_ALL),
    ("vec2_f16x2", Edge::F16, 4, 2, VEC_ALL),
    ("vec4_f16x2", Edge::F16, 4, 4, VEC_ALL),
    ("vec2_bf16x2", Edge::Bf16, 4, 2, VEC_ALL),
    ("vec4_bf16x2", Edge::Bf16, 4, 4, VEC_ALL),
];

const OP_NAMES: [&str; 10] = ["add", "min", "max", "inc", "dec", "and", "or", "xor", "exch", "cas"];

fn op_name(op: u32) -> String {
    if op >= 10 {
        format!("red.{}", OP_NAMES[(op - 10) as usize])
    } else {
        format!("atom.{}", OP_NAMES[op as usize])
    }
}

/// One launch's data: `n` elements (vectors: `n * N`), each as bits.
struct Case {
    n: usize,
    mem: Vec<u128>,
    b: Vec<u128>,
    c: Vec<u128>,
}

/// Operands for `op`: `inc`/`dec` get small bounds near the element; `cas` compares equal about
/// half the time.
fn gen(r: &mut Rng, edge: Edge, bytes: usize, op: u32, elems: usize, n: usize) -> Case {
    let mut mem = Vec::with_capacity(elems);
    let (mut b, mut c) = (Vec::with_capacity(elems), Vec::with_capacity(elems));
    for _ in 0..elems {
        let m = draw(r, edge, bytes);
        let (mut bv, cv) = (draw(r, edge, bytes), draw(r, edge, bytes));
        let mut mv = m;
        if op % 10 == 3 || op % 10 == 4 {
            // inc/dec: s small, r around it (r = s, s + 1, 0, and large values that wrap).
            bv = r.below(8) as u128;
            mv = match r.below(5) {
                0 => bv,
                1 => bv + 1,
                2 => 0,
                3 => r.below(10) as u128,
                _ => m & 0xffff_ffff,
            };
        }
        if op == 9 && r.chance(1, 2) {
            bv = mv;
        }
        mem.push(mv);
        b.push(bv);
        c.push(cv);
    }
    Case { n, mem, b, c }
}

fn to_bytes(v: &[u128], bytes: usize) -> Vec<u32> {
    let mut out: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()[..bytes].to_vec()).collect();
    out.resize(out.len().div_ceil(4).max(1) * 4, 0);
    out.chunks(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

fn from_bytes(words: &[u32], bytes: usize, count: usize) -> Vec<u128> {
    let raw: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    (0..count)
        .map(|k| {
            let mut b = [0u8; 16];
            b[..bytes].copy_from_slice(&raw[k * bytes..(k + 1) * bytes]);
            u128::from_le_bytes(b)
        })
        .collect()
}

/// What one side computed: each element's old value (`None` for `red`) and the memory after.
type Out = (Vec<Option<u128>>, Vec<u128>);

fn gpu_run(m: &Module, kernel: &str, case: &Case, bytes: usize, vec: usize, op: u32, q: u32, shared: bool) -> Result<Vec<u128>, CudaError> {
    let g = m.gpu();
    let elems = case.mem.len();
    let mem = g.upload(&to_bytes(&case.mem, bytes))?;
    let b = g.upload(&to_bytes(&case.b, bytes))?;
    let c = g.upload(&to_bytes(&case.c, bytes))?;
    let old = g.upload(&to_bytes(&vec![0; elems], bytes))?;
    let n = case.n as u32;
    let blocks = n.div_ceil(BLOCK);
    let mut config = LaunchConfig::blocks(blocks, BLOCK);
    if shared {
        config = config.dynamic_shared_bytes(BLOCK * bytes as u32);
    }
    if vec > 1 {
        m.launch_raw(kernel, &config, &[RawArg::ptr(&mem), RawArg::ptr(&b), RawArg::ptr(&old), n.into(), op.into(), q.into()])?;
    } else {
        m.launch_raw(kernel, &config, &[RawArg::ptr(&mem), RawArg::ptr(&b), RawArg::ptr(&c), RawArg::ptr(&old), n.into(), op.into(), q.into()])?;
    }
    let mut out = from_bytes(&old.to_vec()?, bytes, elems);
    out.extend(from_bytes(&mem.to_vec()?, bytes, elems));
    Ok(out)
}

type GlobalBody<T> = fn(GlobalSlice<'_, T>, usize, u32, T, T, u32) -> Option<T>;
type SharedBody<T> = fn(SharedSlice<'_, T>, usize, u32, T, T, u32) -> Option<T>;

fn cpu_global<T: GlobalValue>(case: &Case, op: u32, q: u32, body: GlobalBody<T>) -> Result<Out, WarpError> {
    let init: Vec<T> = case.mem.iter().map(|&x| T::from_bits128(x)).collect();
    let buffer = GlobalBuffer::from_slice(&init);
    let mem = buffer.slice();
    let (b, c) = (&case.b, &case.c);
    let old = Grid::new(case.n as u64).executor(Executor::new().target(Target::SM_90)).map(async |w: &Warp<'_>| {
        let t = w.global_id() as usize;
        body(mem, t, op, T::from_bits128(b[t]), T::from_bits128(c[t]), q).map(T::to_bits128)
    })?;
    Ok((old, buffer.to_vec().into_iter().map(T::to_bits128).collect()))
}

fn cpu_shared<T: GlobalValue + SharedAsm>(case: &Case, op: u32, q: u32, body: SharedBody<T>) -> Result<Out, WarpError> {
    let n = case.n;
    let (m, b, c) = (&case.mem, &case.b, &case.c);
    let out = Grid::blocks((n as u32).div_ceil(BLOCK), BLOCK)
        .dynamic_shared_bytes(BLOCK * T::BYTES as u32)
        .executor(Executor::new().target(Target::SM_90))
        .map(async |w: &Warp<'_>| {
            let t = w.global_id() as usize;
            if t >= n {
                return None;
            }
            let (s, r) = (w.dynamic_shared::<T>(), w.thread_rank() as usize);
            s.store(r, T::from_bits128(m[t]));
            let old = body(s, r, op, T::from_bits128(b[t]), T::from_bits128(c[t]), q).map(T::to_bits128);
            Some((old, s.load(r).to_bits128()))
        })?;
    let (old, mem) = out.into_iter().take(n).map(|o| o.expect("a thread below n")).unzip();
    Ok((old, mem))
}

type VecBody<T, const N: usize> = fn(GlobalSlice<'_, T>, usize, u32, [T; N], u32) -> Option<[T; N]>;

fn cpu_vec<T: GlobalValue, const N: usize>(case: &Case, op: u32, q: u32, body: VecBody<T, N>) -> Result<Out, WarpError> {
    let init: Vec<T> = case.mem.iter().map(|&x| T::from_bits128(x)).collect();
    let buffer = GlobalBuffer::from_slice(&init);
    let mem = buffer.slice();
    let b = &case.b;
    let old = Grid::new(case.n as u64).executor(Executor::new().target(Target::SM_90)).map(async |w: &Warp<'_>| {
        let t = w.global_id() as usize;
        let v: [T; N] = core::array::from_fn(|k| T::from_bits128(b[N * t + k]));
        body(mem, N * t, op, v, q)
    })?;
    let old = old.into_iter().flat_map(|o| (0..N).map(move |k| o.map(|a| a[k].to_bits128()))).collect();
    Ok((old, buffer.to_vec().into_iter().map(T::to_bits128).collect()))
}

/// The CPU side of `kernel`.
fn cpu(kernel: &str, case: &Case, op: u32, q: u32) -> Result<Out, WarpError> {
    macro_rules! scalar {
        ($($g:literal, $s:literal => $t:ty, $gb:ident, $sb:ident;)*) => {
            match kernel {
                $(
                    $g => cpu_global::<$t>(case, op, q, ops::$gb),
                    $s => cpu_shared::<$t>(case, op, q, ops::$sb),
                )*
                _ => vector(kernel, case, op, q),
            }
        };
    }
    scalar! {
        "conf_atom_global_u32", "conf_atom_shared_u32" => u32, global_u32, shared_u32;
        "conf_atom_global_s32", "conf_atom_shared_s32" => i32, global_s32, shared_s32;
        "conf_atom_global_u64", "conf_atom_shared_u64" => u64, global_u64, shared_u64;
        "conf_atom_global_s64", "conf_atom_shared_s64" => i64, global_s64, shared_s64;
        "conf_atom_global_f32", "conf_atom_shared_f32" => f32, global_f32, shared_f32;
        "conf_atom_global_f64", "conf_atom_shared_f64" => f64, global_f64, shared_f64;
        "conf_atom_global_f16", "conf_atom_shared_f16" => f16, global_f16, shared_f16;
        "conf_atom_global_bf16", "conf_atom_shared_bf16" => bf16, global_bf16, shared_bf16;
        "conf_atom_global_f16x2", "conf_atom_shared_f16x2" => F16x2, global_f16x2, shared_f16x2;
        "conf_atom_global_bf16x2", "conf_atom_shared_bf16x2" => Bf16x2, global_bf16x2, shared_bf16x2;
        "conf_atom_global_b128", "conf_atom_shared_b128" => u128, global_b128, shared_b128;
    }
}

fn vector(kernel: &str, case: &Case, op: u32, q: u32) -> Result<Out, WarpError> {
    match kernel {
        "conf_atom_vec2_f32" => cpu_vec::<f32, 2>(case, op, q, ops::vec2_f32),
        "conf_atom_vec4_f32" => cpu_vec::<f32, 4>(case, op, q, ops::vec4_f32),
        "conf_atom_vec2_f16" => cpu_vec::<f16, 2>(case, op, q, ops::vec2_f16),
        "conf_atom_vec4_f16" => cpu_vec::<f16, 4>(case, op, q, ops::vec4_f16),
        "conf_atom_vec8_f16" => cpu_vec::<f16, 8>(case, op, q, ops::vec8_f16),
        "conf_atom_vec2_bf16" => cpu_vec::<bf16, 2>(case, op, q, ops::vec2_bf16),
        "conf_atom_vec4_bf16" => cpu_vec::<bf16, 4>(case, op, q, ops::vec4_bf16),
        "conf_atom_vec8_bf16" => cpu_vec::<bf16, 8>(case, op, q, ops::vec8_bf16),
        "conf_atom_vec2_f16x2" => cpu_vec::<F16x2, 2>(case, op, q, ops::vec2_f16x2),
        "conf_atom_vec4_f16x2" => cpu_vec::<F16x2, 4>(case, op, q, ops::vec4_f16x2),
        "conf_atom_vec2_bf16x2" => cpu_vec::<Bf16x2, 2>(case, op, q, ops::vec2_bf16x2),
        "conf_atom_vec4_bf16x2" => cpu_vec::<Bf16x2, 4>(case, op, q, ops::vec4_bf16x2),
        _ => unreachable!("no kernel {kernel}"),
    }
}

/// Every row: GPU against CPU on both sides, or the CPU only (every case must run).
pub(crate) fn run(side: Side<'_>, seed: u64, scale: usize, show: usize, flip: bool) -> (Vec<Row>, bool) {
    let mut rng = Rng::seed_from_u64(seed ^ 0xa70a_0000_0000_0000);
    let mut rows = Vec::new();
    let mut failed = false;
    // (kernel, element type's edge, bytes, N, operations, shared)
    let mut kernels: Vec<(String, Edge, usize, usize, &[u32], bool)> = Vec::new();
    for s in &SCALARS {
        kernels.push((format!("conf_atom_global_{}", s.ty), s.edge, s.bytes, 1, s.ops, false));
        kernels.push((format!("conf_atom_shared_{}", s.ty), s.edge, s.bytes, 1, s.ops, true));
    }
    for (name, edge, bytes, n, ops) in VECTORS {
        kernels.push((format!("conf_atom_{name}"), edge, bytes, n, ops, false));
    }
    let per_q = 64 * scale.max(1);
    for (kernel, edge, bytes, vec, ops, shared) in kernels {
        let space = if shared { "shared" } else { "global" };
        let ty = kernel.rsplit('_').next().unwrap_or("");
        for &op in ops {
            let vname = if vec > 1 { format!(".v{vec}") } else { String::new() };
            let mut row = Row {
                name: format!("{}.{space}{vname}.{ty} (16 .sem/.scope)", op_name(op)),
                kernel: kernel.clone(),
                module: if matches!(side, Side::Both(_)) { "sm_90" } else { "-" },
                cases: 0,
                agree: 0,
                disagree: 0,
                shown: Vec::new(),
                note: None,
            };
            for q in 0..16 {
                let case = gen(&mut rng, edge, bytes, op, per_q * vec, per_q);
                let cpu_out = cpu(&kernel, &case, op, q);
                let gpu_out = match &side {
                    Side::Cpu => None,
                    Side::Both(m) => match gpu_run(m, &kernel, &case, bytes, vec, op, q, shared) {
                        Ok(o) => Some(o),
                        Err(e) => {
                            row.note = Some(format!("GPU error: {e}"));
                            failed = true;
                            break;
                        }
                    },
                };
                let elems = case.mem.len();
                for k in 0..elems {
                    row.cases += 1;
                    let ok = match (&cpu_out, &gpu_out) {
                        (Err(_), _) => false,
                        (Ok(_), None) => true,
                        (Ok((old, mem)), Some(g)) => {
                            // `--flip-check`: one bit of the GPU's memory corrupted per case.
                            let g_mem = if flip { g[elems + k] ^ 1 } else { g[elems + k] };
                            old[k].is_none_or(|o| o == g[k]) && mem[k] == g_mem
                        }
                    };
                    if ok {
                        row.agree += 1;
                    } else {
                        row.disagree += 1;
                        if row.shown.len() < show {
                            row.shown.push(match (&cpu_out, &gpu_out) {
                                (Err(e), _) => format!("    q = {q}: the CPU runtime reported: {e}\n"),
                                (Ok((old, mem)), g) => format!(
                                    "    q = {q} ({:?}, {:?}), element {k}: mem {:#x}, b {:#x}, c {:#x} | CPU old {:?} mem {:#x} | GPU old {:#x} mem {:#x}\n",
                                    ops::quals(q).0,
                                    ops::quals(q).2,
                                    case.mem[k],
                                    case.b[k],
                                    case.c[k],
                                    old[k].map(|o| format!("{o:#x}")),
                                    mem[k],
                                    g.as_ref().map_or(0, |g| g[k]),
                                    g.as_ref().map_or(0, |g| g[elems + k]),
                                ),
                            });
                        }
                    }
                }
            }
            rows.push(row);
        }
    }
    (rows, failed)
}
