//! What PTX `atom` and `red` (9.7.13.5, 9.7.13.6) allow, as types: which element types each
//! operation takes, the packed half-precision element types, `red`'s `.sem`, the target each form
//! needs, and each form's instruction on nvptx64.
//!
//! The methods themselves are on [`GlobalSlice`](crate::GlobalSlice) and
//! [`SharedSlice`](crate::SharedSlice); their host semantics are [`crate::semantics::atom`].
//!
//! | trait | element types | PTX |
//! |---|---|---|
//! | [`AtomicAdd`] | `u32`, `i32`, `u64`, `i64`, `f32`, `f64`, [`f16`], [`bf16`], [`F16x2`], [`Bf16x2`] | `.add.{u32,s32,u64,u64,f32,f64}`, `.add.noftz.{f16,bf16,f16x2,bf16x2}` |
//! | [`AtomicMinMax`] | `u32`, `i32`, `u64`, `i64` | `.{min,max}.{u32,s32,u64,s64}` |
//! | [`AtomicBits`] | `u32`, `i32`, `u64`, `i64` | `.{and,or,xor}.{b32,b64}` |
//! | [`AtomicIncDec`] | `u32` | `.{inc,dec}.u32` |
//! | [`AtomicExch`] | the 32-, 64- and 128-bit types | `atom.exch.{b32,b64,b128}` |
//! | [`AtomicCas`] | every element type | `atom.cas.{b16,b32,b64,b128}` |
//! | [`AtomicVecAdd<N>`] | `f32` (`N` = 2, 4), `f16`/`bf16` (2, 4, 8), `F16x2`/`Bf16x2` (2, 4) | `.global.v{N}.{f32.add, f16.add.noftz, ...}` |
//! | [`AtomicVecMinMax<N>`] | `f16`/`bf16` (2, 4, 8), `F16x2`/`Bf16x2` (2, 4) | `.global.v{N}.{f16,bf16,f16x2,bf16x2}.{min,max}.noftz` |
//!
//! A form the spec does not have (`atomic_min` on `f32`, `atomic_add` on `u128`, `exch` on
//! `f16`) is a compile error naming the trait's note. The vector forms exist only on global
//! memory ("`atom` with vector type may be used only with `.global` space").
//!
//! # Targets
//!
//! The run's target ([`Executor::target`](crate::Executor::target)) decides what exists, as the
//! spec's Target ISA Notes say: `.bf16`/`.bf16x2`, the vector forms, `.b128` and the `.cluster`
//! scope need sm_90; `.f16` and `cas.b16` sm_70; a `.sem` other than `.relaxed` sm_70; a `.scope`
//! other than `.gpu` sm_60; `.f16x2` and `.f64` add sm_60; 64-bit `and/or/xor/min/max` sm_32. A
//! lane executing a form its target lacks ends the run with
//! [`LaneFault::AtomUnsupported`](crate::LaneFault::AtomUnsupported). On nvptx64 the forms that
//! need sm_90 are not implemented below it (the build's `target_feature = "sm_90"`): a kernel
//! using them does not compile for sm_70/sm_80, and a `.cluster` scope chosen at run time traps.
//!
//! # `.sem` and `.scope`
//!
//! Every operation has a `*_with` form taking a [`Sem`] and a [`Scope`]; the plain form is PTX
//! without qualifiers, `.relaxed` at `.gpu` scope. On the GPU the pair becomes the instruction's
//! qualifiers (`atom.acquire.gpu.global.add.u32`; the default pair is written without them). On
//! the host, the element's update uses the Rust ordering of the same name (so that release and
//! acquire order the host threads of [`Grid::cpu_threads`](crate::Grid::cpu_threads)), and the
//! race detector sees the pair. `red` takes a [`RedSem`]: the spec allows it only `.relaxed` and
//! `.release`.

#[cfg(not(target_arch = "nvptx64"))]
use crate::mem::Space;
use crate::global::GlobalValue;
#[cfg(not(target_arch = "nvptx64"))]
use crate::semantics::atom::{AtomOp, AtomType};
pub use crate::sem::{Scope, Sem};
pub use half::{bf16, f16};

/// Two `f16` in one 32-bit word: the element of `atom.add.noftz.f16x2` and of the `.f16x2`
/// vector forms. Element 0 is the lower half of the word (the lower address in memory).
///
/// `#[repr(C, align(4))]`, so that a `.shared` array of them is aligned as the 32-bit atomics
/// need (a plain `[f16; 2]` would be 2-aligned).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(4))]
pub struct F16x2(pub [f16; 2]);

/// Two `bf16` in one 32-bit word (`.bf16x2`), element 0 in the lower half.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(4))]
pub struct Bf16x2(pub [bf16; 2]);

impl F16x2 {
    /// The word's bits: element 0 in bits 0..16.
    pub fn to_bits(self) -> u32 {
        (self.0[1].to_bits() as u32) << 16 | self.0[0].to_bits() as u32
    }
    /// The pair of a word's bits.
    pub fn from_bits(bits: u32) -> F16x2 {
        F16x2([f16::from_bits(bits as u16), f16::from_bits((bits >> 16) as u16)])
    }
}

impl Bf16x2 {
    /// The word's bits: element 0 in bits 0..16.
    pub fn to_bits(self) -> u32 {
        (self.0[1].to_bits() as u32) << 16 | self.0[0].to_bits() as u32
    }
    /// The pair of a word's bits.
    pub fn from_bits(bits: u32) -> Bf16x2 {
        Bf16x2([bf16::from_bits(bits as u16), bf16::from_bits((bits >> 16) as u16)])
    }
}

/// The `.sem` of a `red`: "`.sem = {.relaxed, .release}`" (9.7.13.6). `red` has no acquire
/// side, so [`Sem::Acquire`] and [`Sem::AcqRel`] cannot be passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RedSem {
    /// `.relaxed` (the default).
    Relaxed,
    /// `.release`.
    Release,
}

impl From<RedSem> for Sem {
    fn from(s: RedSem) -> Sem {
        match s {
            RedSem::Relaxed => Sem::Relaxed,
            RedSem::Release => Sem::Release,
        }
    }
}

/// A state space of the device instructions.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sp {
    /// `.global`: the address is generic and converted with `cvta.to.global`.
    Global,
    /// `.shared`: the address is a `.shared` address.
    Shared,
    /// `.shared::cluster`: the address is a `.shared::cluster` address (`mapa`'s).
    Cluster,
}

macro_rules! op_trait {
    (
        $(#[$meta:meta])*
        pub trait $name:ident $(<const $n:ident: usize>)? { $($(#[$fmeta:meta])* fn $f:ident($($arg:ident: $aty:ty),*) -> $ret:ty;)* }
    ) => {
        $(#[$meta])*
        pub trait $name $(<const $n: usize>)?: GlobalValue {
            $(
                $(#[$fmeta])*
                #[cfg(target_arch = "nvptx64")]
                #[doc(hidden)]
                unsafe fn $f($($arg: $aty),*) -> $ret;
            )*
        }
    };
}

op_trait! {
    /// An element type with `atom.add`/`red.add`: `u32`, `i32`, `u64`, `i64` (wrapping), `f32`,
    /// `f64`, and with `.noftz` [`f16`], [`bf16`], [`F16x2`], [`Bf16x2`].
    #[diagnostic::on_unimplemented(
        message = "PTX `atom.add`/`red.add` have no `{Self}` form",
        note = "`atomic_add`/`red_add` take `u32`, `i32`, `u64`, `i64`, `f32`, `f64`, `f16`, `bf16`, `F16x2` or `Bf16x2` (`.bf16`/`.bf16x2` need sm_90)"
    )]
    pub trait AtomicAdd {
        /// Safety of every device function here: `a` is an aligned element of `sp`.
        fn atom_add(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn red_add(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
    }
}

op_trait! {
    /// An element type with `atom.min`/`atom.max` (and `red`'s): `u32`, `i32`, `u64`, `i64`
    /// (signed types compare as signed).
    #[diagnostic::on_unimplemented(
        message = "PTX `atom.min`/`atom.max` have no `{Self}` form",
        note = "`atomic_min`/`atomic_max` take `u32`, `i32`, `u64` or `i64`; the half-precision ones exist only as vectors (`atomic_min_vec`)"
    )]
    pub trait AtomicMinMax {
        fn atom_min(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn atom_max(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn red_min(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
        fn red_max(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
    }
}

op_trait! {
    /// An element type with the bitwise `atom.and`/`.or`/`.xor` (`.b32`/`.b64`): `u32`, `i32`,
    /// `u64`, `i64`.
    #[diagnostic::on_unimplemented(
        message = "PTX `atom.and`/`atom.or`/`atom.xor` have no `{Self}` form",
        note = "the bitwise atomics take `u32`, `i32`, `u64` or `i64`"
    )]
    pub trait AtomicBits {
        fn atom_and(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn atom_or(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn atom_xor(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn red_and(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
        fn red_or(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
        fn red_xor(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
    }
}

op_trait! {
    /// An element type with `atom.inc`/`atom.dec`: only `u32` ("Operation .inc requires .u32").
    #[diagnostic::on_unimplemented(
        message = "PTX `atom.inc`/`atom.dec` have no `{Self}` form",
        note = "`atomic_inc`/`atomic_dec` take `u32` only"
    )]
    pub trait AtomicIncDec {
        fn atom_inc(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn atom_dec(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
        fn red_inc(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
        fn red_dec(sp: Sp, a: u64, v: Self, sem: RedSem, scope: Scope) -> ();
    }
}

op_trait! {
    /// An element type with `atom.exch` (`.b32`, `.b64`, `.b128`): every element type but `f16`
    /// and `bf16` (PTX has no `exch.b16`).
    #[diagnostic::on_unimplemented(
        message = "PTX `atom.exch` has no `{Self}` form",
        note = "`atomic_exch` takes 32-, 64- or 128-bit elements (`.b32`, `.b64`, `.b128`); there is no `exch.b16`"
    )]
    pub trait AtomicExch {
        fn atom_exch(sp: Sp, a: u64, v: Self, sem: Sem, scope: Scope) -> Self;
    }
}

op_trait! {
    /// An element type with `atom.cas` (`.b16`, `.b32`, `.b64`, `.b128`): every element type.
    #[diagnostic::on_unimplemented(
        message = "PTX `atom.cas` has no `{Self}` form",
        note = "`atomic_cas` takes 16-, 32-, 64- or 128-bit elements"
    )]
    pub trait AtomicCas {
        fn atom_cas(sp: Sp, a: u64, compare: Self, new: Self, sem: Sem, scope: Scope) -> Self;
    }
}

op_trait! {
    /// An element type and length with the vector `atom.global.v{N}...add` (sm_90): `f32` with
    /// `N` = 2 or 4; `f16`/`bf16` with 2, 4 or 8; `F16x2`/`Bf16x2` with 2 or 4.
    #[diagnostic::on_unimplemented(
        message = "PTX has no vector `atom.add` of {N} `{Self}`",
        note = "the vector adds are `.v2`/`.v4` of `f32`, `F16x2`, `Bf16x2` and `.v2`/`.v4`/`.v8` of `f16`, `bf16`, on global memory only"
    )]
    pub trait AtomicVecAdd<const N: usize> {
        fn atom_add_v(a: u64, v: [Self; N], sem: Sem, scope: Scope) -> [Self; N];
        fn red_add_v(a: u64, v: [Self; N], sem: RedSem, scope: Scope) -> ();
    }
}

op_trait! {
    /// An element type and length with the vector `atom.global.v{N}...{min,max}.noftz` (sm_90):
    /// `f16`/`bf16` with `N` = 2, 4 or 8; `F16x2`/`Bf16x2` with 2 or 4.
    #[diagnostic::on_unimplemented(
        message = "PTX has no vector `atom.min`/`atom.max` of {N} `{Self}`",
        note = "the vector min/max are `.v2`/`.v4`/`.v8` of `f16`, `bf16` and `.v2`/`.v4` of `F16x2`, `Bf16x2`, on global memory only"
    )]
    pub trait AtomicVecMinMax<const N: usize> {
        fn atom_min_v(a: u64, v: [Self; N], sem: Sem, scope: Scope) -> [Self; N];
        fn atom_max_v(a: u64, v: [Self; N], sem: Sem, scope: Scope) -> [Self; N];
        fn red_min_v(a: u64, v: [Self; N], sem: RedSem, scope: Scope) -> ();
        fn red_max_v(a: u64, v: [Self; N], sem: RedSem, scope: Scope) -> ();
    }
}

// ---------------------------------------------------------------------------------------------
// Host: the forms as data (mnemonics, target requirements), the run's target, the 128-bit cell.
// ---------------------------------------------------------------------------------------------

/// One form of `atom`/`red`: the instruction, the operation and the vector length (1: scalar).
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Form {
    pub(crate) red: bool,
    pub(crate) op: AtomOp,
    pub(crate) vec: usize,
}

#[cfg(not(target_arch = "nvptx64"))]
impl Form {
    pub(crate) const fn atom(op: AtomOp) -> Form {
        Form { red: false, op, vec: 1 }
    }
    pub(crate) const fn red(op: AtomOp) -> Form {
        Form { red: true, op, vec: 1 }
    }

    /// The mnemonic reports and the race detector show: `atom.add`, `red.min`, `atom.add.v4`.
    #[inline]
    pub(crate) const fn mnemonic(self) -> &'static str {
        macro_rules! names {
            ($($op:ident => $s:literal),*) => {
                match (self.red, self.op, self.vec) {
                    $(
                        (false, AtomOp::$op, 1) => concat!("atom.", $s),
                        (true, AtomOp::$op, 1) => concat!("red.", $s),
                        (false, AtomOp::$op, 2) => concat!("atom.", $s, ".v2"),
                        (true, AtomOp::$op, 2) => concat!("red.", $s, ".v2"),
                        (false, AtomOp::$op, 4) => concat!("atom.", $s, ".v4"),
                        (true, AtomOp::$op, 4) => concat!("red.", $s, ".v4"),
                        (false, AtomOp::$op, _) => concat!("atom.", $s, ".v8"),
                        (true, AtomOp::$op, _) => concat!("red.", $s, ".v8"),
                    )*
                }
            };
        }
        names!(Add => "add", Min => "min", Max => "max", Inc => "inc", Dec => "dec", And => "and", Or => "or", Xor => "xor", Exch => "exch", Cas => "cas")
    }

    /// The full PTX instruction, for reports: `atom.acquire.cluster.global.add.noftz.bf16`.
    pub(crate) fn instruction(self, ty: AtomType, space: Space, sem: Sem, scope: Scope) -> String {
        let instr = if self.red { "red" } else { "atom" };
        let q = if (sem, scope) == (Sem::Relaxed, Scope::Gpu) { String::new() } else { format!(".{}.{}", sem.name(), scope.name()) };
        let (t, noftz) = type_name(self.op, ty);
        let noftz = if noftz { ".noftz" } else { "" };
        if self.vec > 1 {
            format!("{instr}{q}.{}.v{}.{t}.{}{noftz}", space.name(), self.vec, self.op.name())
        } else {
            format!("{instr}{q}.{}.{}{noftz}.{t}", space.name(), self.op.name())
        }
    }

    /// The lowest target with this form, and why, if any part of it needs more than sm_30: the
    /// spec's Target ISA Notes of 9.7.13.5 and 9.7.13.6. Inlined: an atomic's form, type, space,
    /// `.sem` and `.scope` are constants where it is called, so this folds away there.
    #[inline]
    pub(crate) fn requirement(self, ty: AtomType, space: Space, sem: Sem, scope: Scope) -> Option<(u32, &'static str)> {
        let wide = matches!(ty, AtomType::U64 | AtomType::S64);
        let mut need: Option<(u32, &'static str)> = None;
        let mut at_least = |sm: u32, why: &'static str| {
            if need.is_none_or(|(n, _)| sm > n) {
                need = Some((sm, why));
            }
        };
        if wide && matches!(self.op, AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Min | AtomOp::Max) {
            at_least(32, "64-bit `atom`/`red` `.{and,or,xor,min,max}` require `sm_32` or higher");
        }
        if wide && space == Space::Shared && matches!(self.op, AtomOp::Add | AtomOp::Cas | AtomOp::Exch) {
            at_least(20, "64-bit `atom.shared.{add,cas,exch}` require `sm_20` or higher");
        }
        if scope != Scope::Gpu {
            at_least(60, "`.scope` qualifier requires `sm_60` or higher");
        }
        if sem != Sem::Relaxed {
            at_least(70, "`.sem` qualifier requires `sm_70` or higher");
        }
        if scope == Scope::Cluster {
            at_least(90, "Support for `.cluster` scope qualifier requires `sm_90` or higher");
        }
        match (self.op, ty) {
            (AtomOp::Add, AtomType::F64) => at_least(60, "`atom.add.f64` requires `sm_60` or higher"),
            (AtomOp::Add, AtomType::F16x2) if self.vec == 1 => at_least(60, "`atom.add.noftz.f16x2` requires `sm_60` or higher"),
            (AtomOp::Add, AtomType::F16) if self.vec == 1 => at_least(70, "`atom.add.noftz.f16` and `atom.cas.b16` requires `sm_70` or higher"),
            (AtomOp::Cas, AtomType::F16 | AtomType::Bf16) => at_least(70, "`atom.add.noftz.f16` and `atom.cas.b16` requires `sm_70` or higher"),
            (AtomOp::Add, AtomType::Bf16 | AtomType::Bf16x2) => at_least(90, "`atom.add.noftz.bf16` and `atom.add.noftz.bf16x2` require `sm_90` or higher"),
            (_, AtomType::B128) => at_least(90, "Support for `.b128` type requires `sm_90` or higher"),
            _ => {}
        }
        if self.vec > 1 {
            at_least(90, "Support for vector types requires `sm_90` or higher");
        }
        need
    }
}

/// The PTX type of an operation on `ty` (`b32` for the bitwise operations and `exch`/`cas`) and
/// whether it takes `.noftz`.
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) const fn type_name(op: AtomOp, ty: AtomType) -> (&'static str, bool) {
    let bitwise = matches!(op, AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Exch | AtomOp::Cas);
    match ty {
        AtomType::U32 | AtomType::S32 | AtomType::F32 | AtomType::F16x2 | AtomType::Bf16x2 if bitwise => ("b32", false),
        AtomType::U64 | AtomType::S64 | AtomType::F64 if bitwise => ("b64", false),
        AtomType::F16 | AtomType::Bf16 if bitwise => ("b16", false),
        AtomType::B128 => ("b128", false),
        AtomType::U32 => ("u32", false),
        AtomType::S32 => ("s32", false),
        AtomType::U64 => ("u64", false),
        AtomType::S64 if matches!(op, AtomOp::Add) => ("u64", false),
        AtomType::S64 => ("s64", false),
        AtomType::F32 => ("f32", false),
        AtomType::F64 => ("f64", false),
        AtomType::F16 => ("f16", true),
        AtomType::Bf16 => ("bf16", true),
        AtomType::F16x2 => ("f16x2", true),
        AtomType::Bf16x2 => ("bf16x2", true),
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::*;

#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use core::sync::atomic::{fence, AtomicU64, Ordering};

    use crate::target::Target;

    /// The target atomics are checked against: the running lane's warp's (outside a run, on a
    /// buffer the host updates directly, none).
    #[inline(always)]
    pub(crate) fn run_target() -> Option<Target> {
        crate::mem::current().map(|(regs, _)| regs.target())
    }

    /// The Rust orderings of a read-modify-write with PTX `.sem` `sem`: (the update, the load of
    /// a failed attempt).
    #[inline(always)]
    pub(crate) const fn orderings(sem: crate::sem::Sem) -> (Ordering, Ordering) {
        use crate::sem::Sem;
        match sem {
            Sem::Relaxed => (Ordering::Relaxed, Ordering::Relaxed),
            Sem::Acquire => (Ordering::Acquire, Ordering::Acquire),
            Sem::Release => (Ordering::Release, Ordering::Relaxed),
            Sem::AcqRel => (Ordering::AcqRel, Ordering::Acquire),
        }
    }

    /// The host's cell for a `u128` element. No std atomic has 128 bits, so it is a sequence
    /// lock: a writer makes `seq` odd (which excludes other writers), writes both halves and makes
    /// `seq` even again; a reader reads `seq`, both halves, and `seq` again, and retries unless
    /// `seq` was even and unchanged. Every field is an atomic, so a torn read is retried, never
    /// undefined behaviour, and every operation on the element is atomic with respect to every
    /// other across CPU threads (the `.b128` rule: "the entire `atom` is ... atomic" for
    /// `.b128`, unlike the vector forms). The fences are those of the classic seqlock (Boehm,
    /// "Can seqlocks get along with programming language memory models?", 2012).
    #[derive(Debug, Default)]
    pub struct Cell128 {
        seq: AtomicU64,
        lo: AtomicU64,
        hi: AtomicU64,
    }

    impl Cell128 {
        /// A cell holding `v`.
        pub fn new(v: u128) -> Cell128 {
            Cell128 { seq: AtomicU64::new(0), lo: AtomicU64::new(v as u64), hi: AtomicU64::new((v >> 64) as u64) }
        }

        /// The value, read consistently.
        pub fn load(&self) -> u128 {
            loop {
                let s1 = self.seq.load(Ordering::Acquire);
                let (lo, hi) = (self.lo.load(Ordering::Relaxed), self.hi.load(Ordering::Relaxed));
                fence(Ordering::Acquire);
                if s1 & 1 == 0 && self.seq.load(Ordering::Relaxed) == s1 {
                    return (hi as u128) << 64 | lo as u128;
                }
                core::hint::spin_loop();
            }
        }

        /// `old = *self; *self = f(old)`, as one atomic step; returns `old`.
        pub fn update(&self, f: impl FnOnce(u128) -> u128) -> u128 {
            let s = loop {
                let s = self.seq.load(Ordering::Relaxed);
                if s & 1 == 0 && self.seq.compare_exchange_weak(s, s + 1, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    break s;
                }
                core::hint::spin_loop();
            };
            fence(Ordering::Release);
            let old = (self.hi.load(Ordering::Relaxed) as u128) << 64 | self.lo.load(Ordering::Relaxed) as u128;
            let new = f(old);
            self.lo.store(new as u64, Ordering::Relaxed);
            self.hi.store((new >> 64) as u64, Ordering::Relaxed);
            self.seq.store(s + 2, Ordering::Release);
            old
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Device: one `atom`/`red` instruction per (form, `.sem`, `.scope`), selected by a `match` that
// folds when the qualifiers are constants.
// ---------------------------------------------------------------------------------------------

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::*;
    use core::arch::asm;

    /// A `.cluster` scope on a target without clusters (below sm_90): `trap`.
    #[cfg(not(target_feature = "sm_90"))]
    #[cold]
    #[inline(never)]
    pub(crate) fn no_cluster() -> ! {
        // SAFETY: `trap` aborts the kernel.
        unsafe { asm!("trap;", options(noreturn, nostack)) }
    }

    /// `$emit!(qualifiers, ...)` for the `(sem, scope)` pair: `""` for `.relaxed` `.gpu` (the
    /// spec's defaults, so the plain methods emit what they always did), else `.sem.scope`.
    macro_rules! sem_scope {
        ($sem:expr, $scope:expr, $emit:ident!($($a:tt)*)) => {
            match ($sem, $scope) {
                (Sem::Relaxed, Scope::Gpu) => $emit!("", $($a)*),
                (Sem::Relaxed, Scope::Cta) => $emit!(".relaxed.cta", $($a)*),
                (Sem::Relaxed, Scope::Sys) => $emit!(".relaxed.sys", $($a)*),
                (Sem::Acquire, Scope::Cta) => $emit!(".acquire.cta", $($a)*),
                (Sem::Acquire, Scope::Gpu) => $emit!(".acquire.gpu", $($a)*),
                (Sem::Acquire, Scope::Sys) => $emit!(".acquire.sys", $($a)*),
                (Sem::Release, Scope::Cta) => $emit!(".release.cta", $($a)*),
                (Sem::Release, Scope::Gpu) => $emit!(".release.gpu", $($a)*),
                (Sem::Release, Scope::Sys) => $emit!(".release.sys", $($a)*),
                (Sem::AcqRel, Scope::Cta) => $emit!(".acq_rel.cta", $($a)*),
                (Sem::AcqRel, Scope::Gpu) => $emit!(".acq_rel.gpu", $($a)*),
                (Sem::AcqRel, Scope::Sys) => $emit!(".acq_rel.sys", $($a)*),
                #[cfg(target_feature = "sm_90")]
                (Sem::Relaxed, Scope::Cluster) => $emit!(".relaxed.cluster", $($a)*),
                #[cfg(target_feature = "sm_90")]
                (Sem::Acquire, Scope::Cluster) => $emit!(".acquire.cluster", $($a)*),
                #[cfg(target_feature = "sm_90")]
                (Sem::Release, Scope::Cluster) => $emit!(".release.cluster", $($a)*),
                #[cfg(target_feature = "sm_90")]
                (Sem::AcqRel, Scope::Cluster) => $emit!(".acq_rel.cluster", $($a)*),
                #[cfg(not(target_feature = "sm_90"))]
                (_, Scope::Cluster) => no_cluster(),
            }
        };
    }

    /// [`sem_scope!`] for `red`'s two semantics.
    macro_rules! red_scope {
        ($sem:expr, $scope:expr, $emit:ident!($($a:tt)*)) => {
            match ($sem, $scope) {
                (RedSem::Relaxed, Scope::Gpu) => $emit!("", $($a)*),
                (RedSem::Relaxed, Scope::Cta) => $emit!(".relaxed.cta", $($a)*),
                (RedSem::Relaxed, Scope::Sys) => $emit!(".relaxed.sys", $($a)*),
                (RedSem::Release, Scope::Cta) => $emit!(".release.cta", $($a)*),
                (RedSem::Release, Scope::Gpu) => $emit!(".release.gpu", $($a)*),
                (RedSem::Release, Scope::Sys) => $emit!(".release.sys", $($a)*),
                #[cfg(target_feature = "sm_90")]
                (RedSem::Relaxed, Scope::Cluster) => $emit!(".relaxed.cluster", $($a)*),
                #[cfg(target_feature = "sm_90")]
                (RedSem::Release, Scope::Cluster) => $emit!(".release.cluster", $($a)*),
                #[cfg(not(target_feature = "sm_90"))]
                (_, Scope::Cluster) => no_cluster(),
            }
        };
    }

    /// `atom{q}.<space>.<op>.<ty> d, [a], b`.
    macro_rules! a1 {
        ($q:literal, $sp:expr, $op:literal, $ty:literal, $reg:ident, $t:ty, $a:expr, $b:expr) => {{
            let d: $t;
            match $sp {
                Sp::Global => asm!(
                    "{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                    concat!("atom", $q, ".global.", $op, ".", $ty, " {d}, [%ga], {b};"), "}}",
                    a = in(reg64) $a, b = in($reg) $b, d = out($reg) d, options(nostack)),
                Sp::Shared => asm!(
                    concat!("atom", $q, ".shared.", $op, ".", $ty, " {d}, [{a}], {b};"),
                    a = in(reg64) $a, b = in($reg) $b, d = out($reg) d, options(nostack)),
                Sp::Cluster => asm!(
                    concat!("atom", $q, ".shared::cluster.", $op, ".", $ty, " {d}, [{a}], {b};"),
                    a = in(reg64) $a, b = in($reg) $b, d = out($reg) d, options(nostack)),
            }
            d
        }};
    }

    /// `atom{q}.<space>.<op>.<ty> d, [a], b, c`.
    macro_rules! a2 {
        ($q:literal, $sp:expr, $op:literal, $ty:literal, $reg:ident, $t:ty, $a:expr, $b:expr, $c:expr) => {{
            let d: $t;
            match $sp {
                Sp::Global => asm!(
                    "{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                    concat!("atom", $q, ".global.", $op, ".", $ty, " {d}, [%ga], {b}, {c};"), "}}",
                    a = in(reg64) $a, b = in($reg) $b, c = in($reg) $c, d = out($reg) d, options(nostack)),
                Sp::Shared => asm!(
                    concat!("atom", $q, ".shared.", $op, ".", $ty, " {d}, [{a}], {b}, {c};"),
                    a = in(reg64) $a, b = in($reg) $b, c = in($reg) $c, d = out($reg) d, options(nostack)),
                Sp::Cluster => asm!(
                    concat!("atom", $q, ".shared::cluster.", $op, ".", $ty, " {d}, [{a}], {b}, {c};"),
                    a = in(reg64) $a, b = in($reg) $b, c = in($reg) $c, d = out($reg) d, options(nostack)),
            }
            d
        }};
    }

    /// `red{q}.<space>.<op>.<ty> [a], b`.
    macro_rules! r1 {
        ($q:literal, $sp:expr, $op:literal, $ty:literal, $reg:ident, $a:expr, $b:expr) => {
            match $sp {
                Sp::Global => asm!(
                    "{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                    concat!("red", $q, ".global.", $op, ".", $ty, " [%ga], {b};"), "}}",
                    a = in(reg64) $a, b = in($reg) $b, options(nostack)),
                Sp::Shared => asm!(
                    concat!("red", $q, ".shared.", $op, ".", $ty, " [{a}], {b};"),
                    a = in(reg64) $a, b = in($reg) $b, options(nostack)),
                Sp::Cluster => asm!(
                    concat!("red", $q, ".shared::cluster.", $op, ".", $ty, " [{a}], {b};"),
                    a = in(reg64) $a, b = in($reg) $b, options(nostack)),
            }
        };
    }

    /// `atom{q}.<space>.exch.b128 d, [a], b`, the 128-bit operands as 64-bit halves.
    #[cfg_attr(not(target_feature = "sm_90"), allow(unused_macros))] // `.b128`/vectors: sm_90
    macro_rules! q1 {
        ($q:literal, $sp:expr, $a:expr, $b:expr) => {{
            let (lo, hi): (u64, u64);
            let (bl, bh) = ($b as u64, ($b >> 64) as u64);
            match $sp {
                Sp::Global => asm!(
                    "{{", ".reg .b64 %ga;", ".reg .b128 %qb, %qd;", "cvta.to.global.u64 %ga, {a};",
                    "mov.b128 %qb, {{{bl}, {bh}}};",
                    concat!("atom", $q, ".global.exch.b128 %qd, [%ga], %qb;"),
                    "mov.b128 {{{lo}, {hi}}}, %qd;", "}}",
                    a = in(reg64) $a, bl = in(reg64) bl, bh = in(reg64) bh, lo = out(reg64) lo, hi = out(reg64) hi, options(nostack)),
                Sp::Shared => asm!(
                    "{{", ".reg .b128 %qb, %qd;",
                    "mov.b128 %qb, {{{bl}, {bh}}};",
                    concat!("atom", $q, ".shared.exch.b128 %qd, [{a}], %qb;"),
                    "mov.b128 {{{lo}, {hi}}}, %qd;", "}}",
                    a = in(reg64) $a, bl = in(reg64) bl, bh = in(reg64) bh, lo = out(reg64) lo, hi = out(reg64) hi, options(nostack)),
                Sp::Cluster => asm!(
                    "{{", ".reg .b128 %qb, %qd;",
                    "mov.b128 %qb, {{{bl}, {bh}}};",
                    concat!("atom", $q, ".shared::cluster.exch.b128 %qd, [{a}], %qb;"),
                    "mov.b128 {{{lo}, {hi}}}, %qd;", "}}",
                    a = in(reg64) $a, bl = in(reg64) bl, bh = in(reg64) bh, lo = out(reg64) lo, hi = out(reg64) hi, options(nostack)),
            }
            (hi as u128) << 64 | lo as u128
        }};
    }

    /// `atom{q}.<space>.cas.b128 d, [a], b, c`.
    #[cfg_attr(not(target_feature = "sm_90"), allow(unused_macros))] // `.b128`/vectors: sm_90
    macro_rules! q2 {
        ($q:literal, $sp:expr, $a:expr, $b:expr, $c:expr) => {{
            let (lo, hi): (u64, u64);
            let (bl, bh, cl, ch) = ($b as u64, ($b >> 64) as u64, $c as u64, ($c >> 64) as u64);
            match $sp {
                Sp::Global => asm!(
                    "{{", ".reg .b64 %ga;", ".reg .b128 %qb, %qc, %qd;", "cvta.to.global.u64 %ga, {a};",
                    "mov.b128 %qb, {{{bl}, {bh}}};", "mov.b128 %qc, {{{cl}, {ch}}};",
                    concat!("atom", $q, ".global.cas.b128 %qd, [%ga], %qb, %qc;"),
                    "mov.b128 {{{lo}, {hi}}}, %qd;", "}}",
                    a = in(reg64) $a, bl = in(reg64) bl, bh = in(reg64) bh, cl = in(reg64) cl, ch = in(reg64) ch,
                    lo = out(reg64) lo, hi = out(reg64) hi, options(nostack)),
                Sp::Shared => asm!(
                    "{{", ".reg .b128 %qb, %qc, %qd;",
                    "mov.b128 %qb, {{{bl}, {bh}}};", "mov.b128 %qc, {{{cl}, {ch}}};",
                    concat!("atom", $q, ".shared.cas.b128 %qd, [{a}], %qb, %qc;"),
                    "mov.b128 {{{lo}, {hi}}}, %qd;", "}}",
                    a = in(reg64) $a, bl = in(reg64) bl, bh = in(reg64) bh, cl = in(reg64) cl, ch = in(reg64) ch,
                    lo = out(reg64) lo, hi = out(reg64) hi, options(nostack)),
                Sp::Cluster => asm!(
                    "{{", ".reg .b128 %qb, %qc, %qd;",
                    "mov.b128 %qb, {{{bl}, {bh}}};", "mov.b128 %qc, {{{cl}, {ch}}};",
                    concat!("atom", $q, ".shared::cluster.cas.b128 %qd, [{a}], %qb, %qc;"),
                    "mov.b128 {{{lo}, {hi}}}, %qd;", "}}",
                    a = in(reg64) $a, bl = in(reg64) bl, bh = in(reg64) bh, cl = in(reg64) cl, ch = in(reg64) ch,
                    lo = out(reg64) lo, hi = out(reg64) hi, options(nostack)),
            }
            (hi as u128) << 64 | lo as u128
        }};
    }

    /// `atom{q}.global.v{N}.<tyop> {d..}, [a], {b..}` (vectors exist on global memory only).
    #[cfg_attr(not(target_feature = "sm_90"), allow(unused_macros))] // `.b128`/vectors: sm_90
    macro_rules! av {
        ($q:literal, 2, $tyop:literal, $reg:ident, $t:ty, $a:expr, $b:expr) => {{
            let mut d: [$t; 2] = [0; 2];
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                concat!("atom", $q, ".global.v2.", $tyop, " {{{d0}, {d1}}}, [%ga], {{{b0}, {b1}}};"), "}}",
                a = in(reg64) $a, b0 = in($reg) $b[0], b1 = in($reg) $b[1], d0 = out($reg) d[0], d1 = out($reg) d[1], options(nostack));
            d
        }};
        ($q:literal, 4, $tyop:literal, $reg:ident, $t:ty, $a:expr, $b:expr) => {{
            let mut d: [$t; 4] = [0; 4];
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                concat!("atom", $q, ".global.v4.", $tyop, " {{{d0}, {d1}, {d2}, {d3}}}, [%ga], {{{b0}, {b1}, {b2}, {b3}}};"), "}}",
                a = in(reg64) $a, b0 = in($reg) $b[0], b1 = in($reg) $b[1], b2 = in($reg) $b[2], b3 = in($reg) $b[3],
                d0 = out($reg) d[0], d1 = out($reg) d[1], d2 = out($reg) d[2], d3 = out($reg) d[3], options(nostack));
            d
        }};
        ($q:literal, 8, $tyop:literal, $reg:ident, $t:ty, $a:expr, $b:expr) => {{
            let mut d: [$t; 8] = [0; 8];
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                concat!("atom", $q, ".global.v8.", $tyop, " {{{d0}, {d1}, {d2}, {d3}, {d4}, {d5}, {d6}, {d7}}}, [%ga], {{{b0}, {b1}, {b2}, {b3}, {b4}, {b5}, {b6}, {b7}}};"), "}}",
                a = in(reg64) $a, b0 = in($reg) $b[0], b1 = in($reg) $b[1], b2 = in($reg) $b[2], b3 = in($reg) $b[3],
                b4 = in($reg) $b[4], b5 = in($reg) $b[5], b6 = in($reg) $b[6], b7 = in($reg) $b[7],
                d0 = out($reg) d[0], d1 = out($reg) d[1], d2 = out($reg) d[2], d3 = out($reg) d[3],
                d4 = out($reg) d[4], d5 = out($reg) d[5], d6 = out($reg) d[6], d7 = out($reg) d[7], options(nostack));
            d
        }};
    }

    /// `red{q}.global.v{N}.<tyop> [a], {b..}`.
    #[cfg_attr(not(target_feature = "sm_90"), allow(unused_macros))] // `.b128`/vectors: sm_90
    macro_rules! rv {
        ($q:literal, 2, $tyop:literal, $reg:ident, $a:expr, $b:expr) => {
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                concat!("red", $q, ".global.v2.", $tyop, " [%ga], {{{b0}, {b1}}};"), "}}",
                a = in(reg64) $a, b0 = in($reg) $b[0], b1 = in($reg) $b[1], options(nostack))
        };
        ($q:literal, 4, $tyop:literal, $reg:ident, $a:expr, $b:expr) => {
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                concat!("red", $q, ".global.v4.", $tyop, " [%ga], {{{b0}, {b1}, {b2}, {b3}}};"), "}}",
                a = in(reg64) $a, b0 = in($reg) $b[0], b1 = in($reg) $b[1], b2 = in($reg) $b[2], b3 = in($reg) $b[3], options(nostack))
        };
        ($q:literal, 8, $tyop:literal, $reg:ident, $a:expr, $b:expr) => {
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};",
                concat!("red", $q, ".global.v8.", $tyop, " [%ga], {{{b0}, {b1}, {b2}, {b3}, {b4}, {b5}, {b6}, {b7}}};"), "}}",
                a = in(reg64) $a, b0 = in($reg) $b[0], b1 = in($reg) $b[1], b2 = in($reg) $b[2], b3 = in($reg) $b[3],
                b4 = in($reg) $b[4], b5 = in($reg) $b[5], b6 = in($reg) $b[6], b7 = in($reg) $b[7], options(nostack))
        };
    }

    /// An element's bits in the register the instructions take.
    pub trait RegBits: Copy {
        type B: Copy;
        fn to_reg(self) -> Self::B;
        fn from_reg(b: Self::B) -> Self;
    }

    macro_rules! reg_bits {
        ($($t:ty => $b:ty, |$v:ident| $to:expr, |$r:ident| $from:expr;)*) => {$(
            impl RegBits for $t {
                type B = $b;
                #[inline(always)]
                fn to_reg(self) -> $b { let $v = self; $to }
                #[inline(always)]
                fn from_reg($r: $b) -> $t { $from }
            }
        )*};
    }

    reg_bits! {
        u32 => u32, |v| v, |r| r;
        i32 => u32, |v| v as u32, |r| r as i32;
        f32 => u32, |v| v.to_bits(), |r| f32::from_bits(r);
        u64 => u64, |v| v, |r| r;
        i64 => u64, |v| v as u64, |r| r as i64;
        f64 => u64, |v| v.to_bits(), |r| f64::from_bits(r);
        f16 => u16, |v| v.to_bits(), |r| f16::from_bits(r);
        bf16 => u16, |v| v.to_bits(), |r| bf16::from_bits(r);
        F16x2 => u32, |v| v.to_bits(), |r| F16x2::from_bits(r);
        Bf16x2 => u32, |v| v.to_bits(), |r| Bf16x2::from_bits(r);
    }

    macro_rules! add_impl {
        ($($(#[$cfg:meta])* $t:ty, $reg:ident, $ty:literal;)*) => {$(
            $(#[$cfg])*
            impl AtomicAdd for $t {
                #[inline(always)]
                unsafe fn atom_add(sp: Sp, a: u64, v: $t, sem: Sem, scope: Scope) -> $t {
                    let b = v.to_reg();
                    <$t>::from_reg(sem_scope!(sem, scope, a1!(sp, "add", $ty, $reg, <$t as RegBits>::B, a, b)))
                }
                #[inline(always)]
                unsafe fn red_add(sp: Sp, a: u64, v: $t, sem: RedSem, scope: Scope) {
                    let b = v.to_reg();
                    red_scope!(sem, scope, r1!(sp, "add", $ty, $reg, a, b))
                }
            }
        )*};
    }

    add_impl! {
        u32, reg32, "u32";
        i32, reg32, "s32";
        u64, reg64, "u64";
        i64, reg64, "u64";
        f32, reg32, "f32";
        f64, reg64, "f64";
        f16, reg16, "noftz.f16";
        #[cfg(target_feature = "sm_90")] bf16, reg16, "noftz.bf16";
        F16x2, reg32, "noftz.f16x2";
        #[cfg(target_feature = "sm_90")] Bf16x2, reg32, "noftz.bf16x2";
    }

    macro_rules! int_impl {
        ($($t:ty, $reg:ident, $ty:literal, $bits:literal;)*) => {$(
            impl AtomicMinMax for $t {
                #[inline(always)]
                unsafe fn atom_min(sp: Sp, a: u64, v: $t, sem: Sem, scope: Scope) -> $t {
                    let b = v.to_reg();
                    <$t>::from_reg(sem_scope!(sem, scope, a1!(sp, "min", $ty, $reg, <$t as RegBits>::B, a, b)))
                }
                #[inline(always)]
                unsafe fn atom_max(sp: Sp, a: u64, v: $t, sem: Sem, scope: Scope) -> $t {
                    let b = v.to_reg();
                    <$t>::from_reg(sem_scope!(sem, scope, a1!(sp, "max", $ty, $reg, <$t as RegBits>::B, a, b)))
                }
                #[inline(always)]
                unsafe fn red_min(sp: Sp, a: u64, v: $t, sem: RedSem, scope: Scope) {
                    let b = v.to_reg();
                    red_scope!(sem, scope, r1!(sp, "min", $ty, $reg, a, b))
                }
                #[inline(always)]
                unsafe fn red_max(sp: Sp, a: u64, v: $t, sem: RedSem, scope: Scope) {
                    let b = v.to_reg();
                    red_scope!(sem, scope, r1!(sp, "max", $ty, $reg, a, b))
                }
            }
            impl AtomicBits for $t {
                #[inline(always)]
                unsafe fn atom_and(sp: Sp, a: u64, v: $t, sem: Sem, scope: Scope) -> $t {
                    let b = v.to_reg();
                    <$t>::from_reg(sem_scope!(sem, scope, a1!(sp, "and", $bits, $reg, <$t as RegBits>::B, a, b)))
                }
                #[inline(always)]
                unsafe fn atom_or(sp: Sp, a: u64, v: $t, sem: Sem, scope: Scope) -> $t {
                    let b = v.to_reg();
                    <$t>::from_reg(sem_scope!(sem, scope, a1!(sp, "or", $bits, $reg, <$t as RegBits>::B, a, b)))
                }
                #[inline(always)]
                unsafe fn atom_xor(sp: Sp, a: u64, v: $t, sem: Sem, scope: Scope) -> $t {
                    let b = v.to_reg();
                    <$t>::from_reg(sem_scope!(sem, scope, a1!(sp, "xor", $bits, $reg, <$t as RegBits>::B, a, b)))
                }
                #[inline(always)]
                unsafe fn red_and(sp: Sp, a: u64, v: $t, sem: RedSem, scope: Scope) {
                    let b = v.to_reg();
                    red_scope!(sem, scope, r1!(sp, "and", $bits, $reg, a, b))
                }
                #[inline(always)]
                unsafe fn red_or(sp: Sp, a: u64, v: $t, sem: RedSem, scope: Scope) {
                    let b = v.to_reg();
                    red_scope!(sem, scope, r1!(sp, "or", $bits, $reg, a, b))
                }
                #[inline(always)]
                unsafe fn red_xor(sp: Sp, a: u64, v: $t, sem: RedSem, scope: Scope) {
                    let b = v.to_reg();
                    red_scope!(sem, scope, r1!(sp, "xor", $bits, $reg, a, b))
                }
            }
        )*};
    }

    int_impl! {
        u32, reg32, "u32", "b32";
        i32, reg32, "s32", "b32";
        u64, reg64, "u64", "b64";
        i64, reg64, "s64", "b64";
    }

    impl AtomicIncDec for u32 {
        #[inline(always)]
        unsafe fn atom_inc(sp: Sp, a: u64, v: u32, sem: Sem, scope: Scope) -> u32 {
            sem_scope!(sem, scope, a1!(sp, "inc", "u32", reg32, u32, a, v))
        }
        #[inline(always)]
        unsafe fn atom_dec(sp: Sp, a: u64, v: u32, sem: Sem, scope: Scope) -> u32 {
            sem_scope!(sem, scope, a1!(sp, "dec", "u32", reg32, u32, a, v))
        }
        #[inline(always)]
        unsafe fn red_inc(sp: Sp, a: u64, v: u32, sem: RedSem, scope: Scope) {
            red_scope!(sem, scope, r1!(sp, "inc", "u32", reg32, a, v))
        }
        #[inline(always)]
        unsafe fn red_dec(sp: Sp, a: u64, v: u32, sem: RedSem, scope: Scope) {
            red_scope!(sem, scope, r1!(sp, "dec", "u32", reg32, a, v))
        }
    }

    macro_rules! exch_cas_impl {
        ($($t:ty, $reg:ident, $bits:literal, $exch:tt;)*) => {$(
            exch_cas_impl!(@exch $exch $t, $reg, $bits);
            impl AtomicCas for $t {
                #[inline(always)]
                unsafe fn atom_cas(sp: Sp, a: u64, compare: $t, new: $t, sem: Sem, scope: Scope) -> $t {
                    let (b, c) = (compare.to_reg(), new.to_reg());
                    <$t>::from_reg(sem_scope!(sem, scope, a2!(sp, "cas", $bits, $reg, <$t as RegBits>::B, a, b, c)))
                }
            }
        )*};
        (@exch yes $t:ty, $reg:ident, $bits:literal) => {
            impl AtomicExch for $t {
                #[inline(always)]
                unsafe fn atom_exch(sp: Sp, a: u64, v: $t, sem: Sem, scope: Scope) -> $t {
                    let b = v.to_reg();
                    <$t>::from_reg(sem_scope!(sem, scope, a1!(sp, "exch", $bits, $reg, <$t as RegBits>::B, a, b)))
                }
            }
        };
        (@exch no $t:ty, $reg:ident, $bits:literal) => {};
    }

    exch_cas_impl! {
        u32, reg32, "b32", yes;
        i32, reg32, "b32", yes;
        f32, reg32, "b32", yes;
        F16x2, reg32, "b32", yes;
        Bf16x2, reg32, "b32", yes;
        u64, reg64, "b64", yes;
        i64, reg64, "b64", yes;
        f64, reg64, "b64", yes;
        f16, reg16, "b16", no;
        bf16, reg16, "b16", no;
    }

    #[cfg(target_feature = "sm_90")]
    impl AtomicExch for u128 {
        #[inline(always)]
        unsafe fn atom_exch(sp: Sp, a: u64, v: u128, sem: Sem, scope: Scope) -> u128 {
            sem_scope!(sem, scope, q1!(sp, a, v))
        }
    }

    #[cfg(target_feature = "sm_90")]
    impl AtomicCas for u128 {
        #[inline(always)]
        unsafe fn atom_cas(sp: Sp, a: u64, compare: u128, new: u128, sem: Sem, scope: Scope) -> u128 {
            sem_scope!(sem, scope, q2!(sp, a, compare, new))
        }
    }

    macro_rules! vec_add_impl {
        ($($t:ty, $n:tt, $reg:ident, $tyop:literal;)*) => {$(
            #[cfg(target_feature = "sm_90")]
            impl AtomicVecAdd<$n> for $t {
                #[inline(always)]
                unsafe fn atom_add_v(a: u64, v: [$t; $n], sem: Sem, scope: Scope) -> [$t; $n] {
                    let b = v.map(<$t>::to_reg);
                    sem_scope!(sem, scope, av!($n, $tyop, $reg, <$t as RegBits>::B, a, b)).map(<$t>::from_reg)
                }
                #[inline(always)]
                unsafe fn red_add_v(a: u64, v: [$t; $n], sem: RedSem, scope: Scope) {
                    let b = v.map(<$t>::to_reg);
                    red_scope!(sem, scope, rv!($n, $tyop, $reg, a, b))
                }
            }
        )*};
    }

    vec_add_impl! {
        f32, 2, reg32, "f32.add";
        f32, 4, reg32, "f32.add";
        f16, 2, reg16, "f16.add.noftz";
        f16, 4, reg16, "f16.add.noftz";
        f16, 8, reg16, "f16.add.noftz";
        bf16, 2, reg16, "bf16.add.noftz";
        bf16, 4, reg16, "bf16.add.noftz";
        bf16, 8, reg16, "bf16.add.noftz";
        F16x2, 2, reg32, "f16x2.add.noftz";
        F16x2, 4, reg32, "f16x2.add.noftz";
        Bf16x2, 2, reg32, "bf16x2.add.noftz";
        Bf16x2, 4, reg32, "bf16x2.add.noftz";
    }

    macro_rules! vec_minmax_impl {
        ($($t:ty, $n:tt, $reg:ident, $min:literal, $max:literal;)*) => {$(
            #[cfg(target_feature = "sm_90")]
            impl AtomicVecMinMax<$n> for $t {
                #[inline(always)]
                unsafe fn atom_min_v(a: u64, v: [$t; $n], sem: Sem, scope: Scope) -> [$t; $n] {
                    let b = v.map(<$t>::to_reg);
                    sem_scope!(sem, scope, av!($n, $min, $reg, <$t as RegBits>::B, a, b)).map(<$t>::from_reg)
                }
                #[inline(always)]
                unsafe fn atom_max_v(a: u64, v: [$t; $n], sem: Sem, scope: Scope) -> [$t; $n] {
                    let b = v.map(<$t>::to_reg);
                    sem_scope!(sem, scope, av!($n, $max, $reg, <$t as RegBits>::B, a, b)).map(<$t>::from_reg)
                }
                #[inline(always)]
                unsafe fn red_min_v(a: u64, v: [$t; $n], sem: RedSem, scope: Scope) {
                    let b = v.map(<$t>::to_reg);
                    red_scope!(sem, scope, rv!($n, $min, $reg, a, b))
                }
                #[inline(always)]
                unsafe fn red_max_v(a: u64, v: [$t; $n], sem: RedSem, scope: Scope) {
                    let b = v.map(<$t>::to_reg);
                    red_scope!(sem, scope, rv!($n, $max, $reg, a, b))
                }
            }
        )*};
    }

    vec_minmax_impl! {
        f16, 2, reg16, "f16.min.noftz", "f16.max.noftz";
        f16, 4, reg16, "f16.min.noftz", "f16.max.noftz";
        f16, 8, reg16, "f16.min.noftz", "f16.max.noftz";
        bf16, 2, reg16, "bf16.min.noftz", "bf16.max.noftz";
        bf16, 4, reg16, "bf16.min.noftz", "bf16.max.noftz";
        bf16, 8, reg16, "bf16.min.noftz", "bf16.max.noftz";
        F16x2, 2, reg32, "f16x2.min.noftz", "f16x2.max.noftz";
        F16x2, 4, reg32, "f16x2.min.noftz", "f16x2.max.noftz";
        Bf16x2, 2, reg32, "bf16x2.min.noftz", "bf16x2.max.noftz";
        Bf16x2, 4, reg32, "bf16x2.min.noftz", "bf16x2.max.noftz";
    }
}

// ---------------------------------------------------------------------------------------------
// Host: the traits are markers (the semantics is `semantics::atom`, through `GlobalValue::TY`).
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
mod host_impls {
    use super::*;

    macro_rules! impls {
        ($tr:ident: $($t:ty),*) => {$( impl $tr for $t {} )*};
        ($tr:ident<$n:literal>: $($t:ty),*) => {$( impl $tr<$n> for $t {} )*};
    }

    impls!(AtomicAdd: u32, i32, u64, i64, f32, f64, f16, bf16, F16x2, Bf16x2);
    impls!(AtomicMinMax: u32, i32, u64, i64);
    impls!(AtomicBits: u32, i32, u64, i64);
    impls!(AtomicIncDec: u32);
    impls!(AtomicExch: u32, i32, f32, F16x2, Bf16x2, u64, i64, f64, u128);
    impls!(AtomicCas: u32, i32, f32, F16x2, Bf16x2, u64, i64, f64, u128, f16, bf16);
    impls!(AtomicVecAdd<2>: f32, f16, bf16, F16x2, Bf16x2);
    impls!(AtomicVecAdd<4>: f32, f16, bf16, F16x2, Bf16x2);
    impls!(AtomicVecAdd<8>: f16, bf16);
    impls!(AtomicVecMinMax<2>: f16, bf16, F16x2, Bf16x2);
    impls!(AtomicVecMinMax<4>: f16, bf16, F16x2, Bf16x2);
    impls!(AtomicVecMinMax<8>: f16, bf16);
}

// ---------------------------------------------------------------------------------------------
// The methods, written once for `GlobalSlice` and `SharedSlice`.
// ---------------------------------------------------------------------------------------------

/// Ends the calling lane if the run's target lacks this form (host).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub(crate) fn check_target(form: Form, ty: AtomType, space: Space, sem: Sem, scope: Scope, site: crate::error::Site) {
    if let Some(target) = run_target() {
        if let Some((sm, needs)) = form.requirement(ty, space, sem, scope) {
            if target.sm < sm {
                unsupported(form, ty, space, sem, scope, needs, target, site);
            }
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn unsupported(form: Form, ty: AtomType, space: Space, sem: Sem, scope: Scope, needs: &'static str, target: crate::target::Target, site: crate::error::Site) -> ! {
    crate::mem::fault(crate::mem::LaneFault::AtomUnsupported { instruction: form.instruction(ty, space, sem, scope), needs, target, site })
}

/// Ends the calling lane: a vector access whose first element is not aligned to the vector's size.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
pub(crate) fn misaligned(form: Form, ty: AtomType, space: Space, sem: Sem, scope: Scope, index: usize, align: usize, site: crate::error::Site) -> ! {
    crate::mem::fault(crate::mem::LaneFault::AtomMisaligned { instruction: form.instruction(ty, space, sem, scope), index, align, site })
}

/// The new value of an element after `op` with operands `b` (and `c`), by the spec's formulas.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub(crate) fn apply<T: GlobalValue>(op: AtomOp, space: Space, old: T, b: T, c: T) -> T {
    T::from_bits128(crate::semantics::atom::apply(op, T::TY, space, old.to_bits128(), b.to_bits128(), c.to_bits128()))
}

/// The `atomic_*`, `atomic_*_with`, `red_*` and `red_*_with` methods of `$slice` for the
/// operations with one operand. `$slice` provides, on the host, `atom_host::<N>(i, form, sem,
/// scope, f) -> [T; N]` (the one place a host atomic of its space happens) and, on nvptx64,
/// `dev_addr(i, n)` (the address of elements `i..i + n`, checked) and `SP`.
macro_rules! one_operand_methods {
    ($slice:ident, $space:literal, $Space:ident: $(
        $tr:ident, $op:ident, $atomic:ident, $atomic_with:ident, $red:ident, $red_with:ident, $dev_atom:ident, $dev_red:ident, $formula:literal;
    )*) => {$(
        impl<'s, T: $crate::global::GlobalValue> $slice<'s, T> {
            #[doc = concat!("`atom.", $space, ".", stringify!($op), "` (no `.sem`/`.scope`: `.relaxed`, `.gpu`): ", $formula, "; returns the old value.")]
            #[inline(always)]
            #[track_caller]
            pub fn $atomic(&self, i: usize, value: T) -> $crate::shared::Mem<T>
            where
                T: $crate::atomic::$tr,
            {
                self.$atomic_with(i, value, $crate::sem::Sem::Relaxed, $crate::sem::Scope::Gpu)
            }

            #[doc = concat!("`atom{.sem}{.scope}.", $space, ".", stringify!($op), "`: ", $formula, "; returns the old value.")]
            #[doc = ""]
            #[doc = "`sem` and `scope` become the instruction's qualifiers (see [`crate::atomic`])."]
            #[inline(always)]
            #[track_caller]
            pub fn $atomic_with(&self, i: usize, value: T, sem: $crate::sem::Sem, scope: $crate::sem::Scope) -> $crate::shared::Mem<T>
            where
                T: $crate::atomic::$tr,
            {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let op = $crate::semantics::atom::AtomOp::$op;
                    let form = $crate::atomic::Form::atom(op);
                    let [old] = self.atom_host::<1>(i, form, sem, scope, |_, old: T| $crate::atomic::apply(op, $crate::mem::Space::$Space, old, value, value));
                    $crate::mem::MemOp::new(old, form.mnemonic(), $crate::mem::Space::$Space, i, old.to_bits64(), std::panic::Location::caller())
                }
                // SAFETY: `dev_addr` checked the index; the element is aligned.
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    T::$dev_atom(Self::SP, self.dev_addr(i, 1), value, sem, scope)
                }
            }

            #[doc = concat!("`red.", $space, ".", stringify!($op), "` (`.relaxed`, `.gpu`): ", $formula, ", returning nothing (a scheduling point on the host).")]
            #[inline(always)]
            #[track_caller]
            pub fn $red(&self, i: usize, value: T) -> $crate::shared::Mem<()>
            where
                T: $crate::atomic::$tr,
            {
                self.$red_with(i, value, $crate::atomic::RedSem::Relaxed, $crate::sem::Scope::Gpu)
            }

            #[doc = concat!("`red{.sem}{.scope}.", $space, ".", stringify!($op), "`: ", $formula, ". `red` takes only `.relaxed` or `.release` ([`RedSem`](crate::atomic::RedSem)).")]
            #[inline(always)]
            #[track_caller]
            pub fn $red_with(&self, i: usize, value: T, sem: $crate::atomic::RedSem, scope: $crate::sem::Scope) -> $crate::shared::Mem<()>
            where
                T: $crate::atomic::$tr,
            {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let op = $crate::semantics::atom::AtomOp::$op;
                    let form = $crate::atomic::Form::red(op);
                    let [old] = self.atom_host::<1>(i, form, sem.into(), scope, |_, old: T| $crate::atomic::apply(op, $crate::mem::Space::$Space, old, value, value));
                    $crate::mem::MemOp::new((), form.mnemonic(), $crate::mem::Space::$Space, i, old.to_bits64(), std::panic::Location::caller())
                }
                // SAFETY: `dev_addr` checked the index; the element is aligned.
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    T::$dev_red(Self::SP, self.dev_addr(i, 1), value, sem, scope)
                }
            }
        }
    )*};
}
pub(crate) use one_operand_methods;

/// `atomic_exch`/`atomic_cas` and their `_with` forms for `$slice` (see [`one_operand_methods`]).
macro_rules! exch_cas_methods {
    ($slice:ident, $space:literal, $Space:ident) => {
        impl<'s, T: $crate::global::GlobalValue> $slice<'s, T> {
            #[doc = concat!("`atom.", $space, ".exch`: stores `value` and returns the old value.")]
            #[inline(always)]
            #[track_caller]
            pub fn atomic_exch(&self, i: usize, value: T) -> $crate::shared::Mem<T>
            where
                T: $crate::atomic::AtomicExch,
            {
                self.atomic_exch_with(i, value, $crate::sem::Sem::Relaxed, $crate::sem::Scope::Gpu)
            }

            #[doc = concat!("`atom{.sem}{.scope}.", $space, ".exch` (`.b32`, `.b64`, `.b128`): stores `value` and returns the old value.")]
            #[inline(always)]
            #[track_caller]
            pub fn atomic_exch_with(&self, i: usize, value: T, sem: $crate::sem::Sem, scope: $crate::sem::Scope) -> $crate::shared::Mem<T>
            where
                T: $crate::atomic::AtomicExch,
            {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let form = $crate::atomic::Form::atom($crate::semantics::atom::AtomOp::Exch);
                    let [old] = self.atom_host::<1>(i, form, sem, scope, |_, _| value);
                    $crate::mem::MemOp::new(old, form.mnemonic(), $crate::mem::Space::$Space, i, old.to_bits64(), std::panic::Location::caller())
                }
                // SAFETY: `dev_addr` checked the index; the element is aligned.
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    T::atom_exch(Self::SP, self.dev_addr(i, 1), value, sem, scope)
                }
            }
        }

        impl<'s, T: $crate::global::GlobalValue> $slice<'s, T> {
            #[doc = concat!("`atom.", $space, ".cas`: `a[i] = (a[i] == compare) ? new : a[i]`, comparing bit patterns (so for floats `-0.0 != 0.0` and a NaN equals itself); returns the old value (equal to `compare`, bitwise, exactly when the swap happened).")]
            #[inline(always)]
            #[track_caller]
            pub fn atomic_cas(&self, i: usize, compare: T, new: T) -> $crate::shared::Mem<T>
            where
                T: $crate::atomic::AtomicCas,
            {
                self.atomic_cas_with(i, compare, new, $crate::sem::Sem::Relaxed, $crate::sem::Scope::Gpu)
            }

            #[doc = concat!("`atom{.sem}{.scope}.", $space, ".cas` (`.b16`, `.b32`, `.b64`, `.b128`): `cas(r,s,t) = (r == s) ? t : r` on bit patterns; returns the old value.")]
            #[inline(always)]
            #[track_caller]
            pub fn atomic_cas_with(&self, i: usize, compare: T, new: T, sem: $crate::sem::Sem, scope: $crate::sem::Scope) -> $crate::shared::Mem<T>
            where
                T: $crate::atomic::AtomicCas,
            {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let op = $crate::semantics::atom::AtomOp::Cas;
                    let form = $crate::atomic::Form::atom(op);
                    let [old] = self.atom_host::<1>(i, form, sem, scope, |_, old: T| $crate::atomic::apply(op, $crate::mem::Space::$Space, old, compare, new));
                    $crate::mem::MemOp::new(old, form.mnemonic(), $crate::mem::Space::$Space, i, old.to_bits64(), std::panic::Location::caller())
                }
                // SAFETY: `dev_addr` checked the index; the element is aligned.
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    T::atom_cas(Self::SP, self.dev_addr(i, 1), compare, new, sem, scope)
                }
            }
        }
    };
}
pub(crate) use exch_cas_methods;

/// The scalar operations of both spaces.
macro_rules! scalar_methods {
    ($slice:ident, $space:literal, $Space:ident) => {
        $crate::atomic::one_operand_methods! { $slice, $space, $Space:
            AtomicAdd, Add, atomic_add, atomic_add_with, red_add, red_add_with, atom_add, red_add,
                "`a[i] += value` (wrapping for integers; floats round to nearest even, see the module docs for subnormals and NaNs)";
            AtomicMinMax, Min, atomic_min, atomic_min_with, red_min, red_min_with, atom_min, red_min,
                "`a[i] = min(a[i], value)` (signed for `i32`/`i64`)";
            AtomicMinMax, Max, atomic_max, atomic_max_with, red_max, red_max_with, atom_max, red_max,
                "`a[i] = max(a[i], value)` (signed for `i32`/`i64`)";
            AtomicBits, And, atomic_and, atomic_and_with, red_and, red_and_with, atom_and, red_and, "`a[i] &= value`";
            AtomicBits, Or, atomic_or, atomic_or_with, red_or, red_or_with, atom_or, red_or, "`a[i] |= value`";
            AtomicBits, Xor, atomic_xor, atomic_xor_with, red_xor, red_xor_with, atom_xor, red_xor, "`a[i] ^= value`";
            AtomicIncDec, Inc, atomic_inc, atomic_inc_with, red_inc, red_inc_with, atom_inc, red_inc,
                "`inc(r, s) = (r >= s) ? 0 : r+1` with `s` = `value` (a counter that wraps to 0 after `value`)";
            AtomicIncDec, Dec, atomic_dec, atomic_dec_with, red_dec, red_dec_with, atom_dec, red_dec,
                "`dec(r, s) = (r==0 || r > s) ? s : r-1` with `s` = `value`";
        }
        $crate::atomic::exch_cas_methods!($slice, $space, $Space);
    };
}
pub(crate) use scalar_methods;
