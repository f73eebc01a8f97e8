//! Loads and stores with memory semantics, and fences (PTX ISA 9.7.9.8 `ld`, 9.7.9.10 `st`,
//! 9.7.13.4 `membar`/`fence`).
//!
//! A plain [`load`](crate::GlobalSlice::load)/[`store`](crate::GlobalSlice::store) is *weak*: two of
//! them on one location from different threads, one a write, race unless something orders them.
//! The *strong* forms here take part in the memory model:
//!
//! | method | PTX | |
//! |---|---|---|
//! | `load_relaxed(i, scope)` | `ld.relaxed.scope` | strong, orders nothing else |
//! | `load_acquire(i, scope)` | `ld.acquire.scope` | later accesses of the thread stay after it; reading a release synchronizes with it |
//! | `load_volatile(i)` | `ld.volatile` | `.relaxed` at `.sys` scope for the memory model |
//! | `store_relaxed(i, v, scope)` | `st.relaxed.scope` | strong |
//! | `store_release(i, v, scope)` | `st.release.scope` | earlier accesses of the thread happen before an acquire that reads it |
//! | `store_volatile(i, v)` | `st.volatile` | `.relaxed` at `.sys` scope |
//!
//! The loads are scheduling points on the host (`#[warp_kernel]` awaits them), as spin-waits
//! are built on them. `.relaxed`, `.acquire` and `.release` need sm_70; `.cluster` scope needs
//! sm_90. A run whose target lacks one reports it ([`LaneFault::Unsupported`](crate::LaneFault)).
//!
//! Fences are methods of the handle: `fence_sc(scope)`, `fence_acq_rel(scope)` (sm_70),
//! `fence_acquire(scope)`/`fence_release(scope)` (sm_90), `membar_cta/gl/sys` (all targets; on
//! sm_70+ `membar` is `fence.sc` at `.cta`/`.gpu`/`.sys`), CUDA's `threadfence_block`,
//! `threadfence` and `threadfence_system`, and the proxy fences (`fence_proxy_alias`,
//! `fence_proxy_async*`, `fence_proxy_tensormap_*`, `fence_mbarrier_init_release_cluster`).
//!
//! On the host a fence changes what the race detector orders: a release fence followed by a
//! strong store (or atomic) is a release; a strong load (or atomic) followed by an acquire fence
//! is an acquire (the fence patterns of the memory model). The proxy fences order accesses made
//! through different proxies (the async proxy of `cp.async.bulk` and TMA, the tensormap proxy,
//! virtually aliased addresses); the host has one proxy, so they have **no effect on the CPU**
//! beyond their target check.

use crate::sem::Scope;

/// The semantics of a thread fence: `fence{.sem}.scope`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FenceSem {
    /// `.sc`: sequentially consistent (`membar` on sm_70+).
    Sc,
    /// `.acq_rel` (the default of `fence`).
    AcqRel,
    /// `.acquire` (sm_90).
    Acquire,
    /// `.release` (sm_90).
    Release,
}

impl FenceSem {
    /// The PTX qualifier without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            FenceSem::Sc => "sc",
            FenceSem::AcqRel => "acq_rel",
            FenceSem::Acquire => "acquire",
            FenceSem::Release => "release",
        }
    }
}

/// The lowest target of a fence or ordered access (for reports and gating).
#[cfg(not(target_arch = "nvptx64"))]
const fn min_sm(sem_needs: u32, scope: Scope) -> u32 {
    let scope_needs = if matches!(scope, Scope::Cluster) { 90 } else { 0 };
    if sem_needs > scope_needs {
        sem_needs
    } else {
        scope_needs
    }
}

// ---------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::{gate, gate_at};

#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::error::Site;
    use crate::mem::{LaneFault, MemOp, Space};
    use crate::race::{self, Access, Kind, Order};
    use crate::sem::Sem;
    use crate::{GlobalSlice, GlobalValue, SharedSlice};

    /// Reports `op` if the running lane's target is below sm_`min`.
    #[track_caller]
    #[inline(always)]
    pub(crate) fn gate(op: &'static str, min: u32) {
        gate_at(op, min, std::panic::Location::caller())
    }

    /// [`gate`] for an operation made at `site`.
    pub(crate) fn gate_at(op: &'static str, min: u32, site: crate::error::Site) {
        if min == 0 {
            return;
        }
        if let Some((regs, _)) = crate::mem::current() {
            let target = regs.target();
            if target.sm < min {
                crate::mem::fault(LaneFault::Unsupported { op, min: sm_name(min), target, site });
            }
        }
    }

    fn sm_name(sm: u32) -> &'static str {
        match sm {
            60 => "sm_60",
            70 => "sm_70",
            80 => "sm_80",
            90 => "sm_90",
            _ => "sm_100a",
        }
    }

    /// The mnemonic of an ordered load or store, for reports.
    pub(super) fn mnemonic(space: Space, load: bool, sem: Option<Sem>, scope: Scope) -> &'static str {
        macro_rules! table {
            ($($sp:ident $ld:literal $sem:ident $sc:ident => $s:literal,)*) => {
                match (space, load, sem, scope) {
                    $((Space::$sp, $ld, table!(@sem $sem), Scope::$sc) => $s,)*
                    _ => if load { "ld" } else { "st" },
                }
            };
            (@sem none) => { None };
            (@sem $s:ident) => { Some(Sem::$s) };
        }
        table! {
            Global true Relaxed Cta => "ld.relaxed.cta.global", Global true Relaxed Cluster => "ld.relaxed.cluster.global",
            Global true Relaxed Gpu => "ld.relaxed.gpu.global", Global true Relaxed Sys => "ld.relaxed.sys.global",
            Global true Acquire Cta => "ld.acquire.cta.global", Global true Acquire Cluster => "ld.acquire.cluster.global",
            Global true Acquire Gpu => "ld.acquire.gpu.global", Global true Acquire Sys => "ld.acquire.sys.global",
            Global false Relaxed Cta => "st.relaxed.cta.global", Global false Relaxed Cluster => "st.relaxed.cluster.global",
            Global false Relaxed Gpu => "st.relaxed.gpu.global", Global false Relaxed Sys => "st.relaxed.sys.global",
            Global false Release Cta => "st.release.cta.global", Global false Release Cluster => "st.release.cluster.global",
            Global false Release Gpu => "st.release.gpu.global", Global false Release Sys => "st.release.sys.global",
            Global false none Sys => "st.volatile.global",
            Shared true Relaxed Cta => "ld.relaxed.cta.shared", Shared true Relaxed Cluster => "ld.relaxed.cluster.shared",
            Shared true Relaxed Gpu => "ld.relaxed.gpu.shared", Shared true Relaxed Sys => "ld.relaxed.sys.shared",
            Shared true Acquire Cta => "ld.acquire.cta.shared", Shared true Acquire Cluster => "ld.acquire.cluster.shared",
            Shared true Acquire Gpu => "ld.acquire.gpu.shared", Shared true Acquire Sys => "ld.acquire.sys.shared",
            Shared false Relaxed Cta => "st.relaxed.cta.shared", Shared false Relaxed Cluster => "st.relaxed.cluster.shared",
            Shared false Relaxed Gpu => "st.relaxed.gpu.shared", Shared false Relaxed Sys => "st.relaxed.sys.shared",
            Shared false Release Cta => "st.release.cta.shared", Shared false Release Cluster => "st.release.cluster.shared",
            Shared false Release Gpu => "st.release.gpu.shared", Shared false Release Sys => "st.release.sys.shared",
            Shared false none Sys => "st.volatile.shared",
        }
    }

    /// An ordered load's mnemonic, checked against the running lane's target.
    #[track_caller]
    #[inline(always)]
    fn load_op(space: Space, sem: Sem, scope: Scope) -> &'static str {
        let op = mnemonic(space, true, Some(sem), scope);
        gate(op, min_sm(70, scope));
        op
    }

    /// An ordered store's mnemonic and order (`sem == None`: `st.volatile`), checked against the
    /// running lane's target.
    #[track_caller]
    #[inline(always)]
    fn store_op(space: Space, sem: Option<Sem>, scope: Scope) -> (&'static str, Order) {
        let op = mnemonic(space, false, sem, scope);
        match sem {
            Some(sem) => {
                gate(op, min_sm(70, scope));
                (op, Order::Strong { sem, scope })
            }
            None => (op, Order::VOLATILE),
        }
    }

    impl<'g, T: GlobalValue> GlobalSlice<'g, T> {
        #[inline(always)]
        #[track_caller]
        pub(super) fn load_with(&self, i: usize, sem: Sem, scope: Scope) -> MemOp<T> {
            let op = load_op(Space::Global, sem, scope);
            let cell = self.at(i);
            let site: Site = std::panic::Location::caller();
            let access = Access { op, kind: Kind::Load, order: Order::Strong { sem, scope } };
            let v = race::access(|| self.race_loc(i, 1), move || access, site, || {
                let v = T::load(cell);
                (v, v.to_bits64())
            });
            MemOp::new(v, op, Space::Global, i, v.to_bits64(), site)
        }

        #[inline(always)]
        #[track_caller]
        pub(super) fn store_with(&self, i: usize, value: T, sem: Option<Sem>, scope: Scope) {
            let (op, order) = store_op(Space::Global, sem, scope);
            let cell = self.at(i);
            if T::load(cell).to_bits64() != value.to_bits64() {
                crate::mem::wrote();
            }
            let access = Access { op, kind: Kind::Store, order };
            race::access(|| self.race_loc(i, 1), move || access, std::panic::Location::caller(), || (T::store(cell, value), value.to_bits64()));
        }
    }

    impl<'w, T: GlobalValue + crate::shared::dev::SharedAsm> SharedSlice<'w, T> {
        #[inline(always)]
        #[track_caller]
        pub(super) fn load_with(&self, i: usize, sem: Sem, scope: Scope) -> MemOp<T> {
            let op = load_op(Space::Shared, sem, scope);
            let v = self.read(op, i, Order::Strong { sem, scope });
            MemOp::new(v, op, Space::Shared, i, v.to_bits64(), std::panic::Location::caller())
        }

        #[inline(always)]
        #[track_caller]
        pub(super) fn store_with(&self, i: usize, value: T, sem: Option<Sem>, scope: Scope) {
            let (op, order) = store_op(Space::Shared, sem, scope);
            self.write(op, i, value, order);
        }
    }

    /// A fence by the running lane (nothing outside a run).
    #[track_caller]
    pub(super) fn fence(w: &crate::handle::Warp<'_>, op: &'static str, min: u32, sem: Option<FenceSem>, scope: Scope) {
        gate(op, min);
        let Some(sem) = sem else { return };
        let sem = match sem {
            FenceSem::Sc | FenceSem::AcqRel => Sem::AcqRel,
            FenceSem::Acquire => Sem::Acquire,
            FenceSem::Release => Sem::Release,
        };
        let regs = w.regs;
        regs.races.fence(&regs.block().races, regs.pos().warp_in_block, w.lane, sem, scope, std::panic::Location::caller());
    }
}

// ---------------------------------------------------------------------------------------------
// Device
// ---------------------------------------------------------------------------------------------

#[cfg(target_arch = "nvptx64")]
mod device {
    use core::arch::asm;

    use crate::global::ElemBits;
    use crate::sem::{Scope, Sem};

    /// One `ld`/`st` with qualifiers `$q` on `.global` (through `cvta.to.global`) or `.shared`.
    macro_rules! ld {
        (global $q:literal, $a:expr, $w:literal, $reg:ident, $t:ty) => {{
            let d: $t;
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};", concat!("ld.", $q, ".global.b", $w, " {d}, [%ga];"), "}}", a = in(reg64) $a, d = out($reg) d, options(nostack));
            d
        }};
        (shared $q:literal, $a:expr, $w:literal, $reg:ident, $t:ty) => {{
            let d: $t;
            asm!(concat!("ld.", $q, ".shared.b", $w, " {d}, [{a}];"), a = in(reg64) $a, d = out($reg) d, options(nostack));
            d
        }};
    }
    macro_rules! st {
        (global $q:literal, $a:expr, $w:literal, $reg:ident, $v:expr) => {
            asm!("{{", ".reg .b64 %ga;", "cvta.to.global.u64 %ga, {a};", concat!("st.", $q, ".global.b", $w, " [%ga], {v};"), "}}", a = in(reg64) $a, v = in($reg) $v, options(nostack))
        };
        (shared $q:literal, $a:expr, $w:literal, $reg:ident, $v:expr) => {
            asm!(concat!("st.", $q, ".shared.b", $w, " [{a}], {v};"), a = in(reg64) $a, v = in($reg) $v, options(nostack))
        };
    }
    /// Every sem/scope combination of one space and width, selected by `match` (constants fold).
    macro_rules! by_order {
        (ld $space:ident, $sem:expr, $scope:expr, $a:expr, $w:literal, $reg:ident, $t:ty) => {
            match ($sem, $scope) {
                (Sem::Acquire, Scope::Cta) => ld!($space "acquire.cta", $a, $w, $reg, $t),
                #[cfg(target_feature = "sm_90")]
                (Sem::Acquire, Scope::Cluster) => ld!($space "acquire.cluster", $a, $w, $reg, $t),
                (Sem::Acquire, Scope::Gpu) => ld!($space "acquire.gpu", $a, $w, $reg, $t),
                (Sem::Acquire, Scope::Sys) => ld!($space "acquire.sys", $a, $w, $reg, $t),
                (_, Scope::Cta) => ld!($space "relaxed.cta", $a, $w, $reg, $t),
                #[cfg(target_feature = "sm_90")]
                (_, Scope::Cluster) => ld!($space "relaxed.cluster", $a, $w, $reg, $t),
                #[cfg(not(target_feature = "sm_90"))]
                (_, Scope::Cluster) => cluster_needs_sm90(),
                (_, Scope::Gpu) => ld!($space "relaxed.gpu", $a, $w, $reg, $t),
                (_, Scope::Sys) => ld!($space "relaxed.sys", $a, $w, $reg, $t),
            }
        };
        (st $space:ident, $sem:expr, $scope:expr, $a:expr, $w:literal, $reg:ident, $v:expr) => {
            match ($sem, $scope) {
                (Some(Sem::Release), Scope::Cta) => st!($space "release.cta", $a, $w, $reg, $v),
                #[cfg(target_feature = "sm_90")]
                (Some(Sem::Release), Scope::Cluster) => st!($space "release.cluster", $a, $w, $reg, $v),
                (Some(Sem::Release), Scope::Gpu) => st!($space "release.gpu", $a, $w, $reg, $v),
                (Some(Sem::Release), Scope::Sys) => st!($space "release.sys", $a, $w, $reg, $v),
                (Some(_), Scope::Cta) => st!($space "relaxed.cta", $a, $w, $reg, $v),
                #[cfg(target_feature = "sm_90")]
                (Some(_), Scope::Cluster) => st!($space "relaxed.cluster", $a, $w, $reg, $v),
                #[cfg(not(target_feature = "sm_90"))]
                (Some(_), Scope::Cluster) => cluster_needs_sm90(),
                (Some(_), Scope::Gpu) => st!($space "relaxed.gpu", $a, $w, $reg, $v),
                (Some(_), Scope::Sys) => st!($space "relaxed.sys", $a, $w, $reg, $v),
                (None, _) => st!($space "volatile", $a, $w, $reg, $v),
            }
        };
    }

    /// `.cluster` scope below sm_90, where ptxas rejects it: the kernel traps (the host reports
    /// the same call as `Unsupported` on such a target).
    #[cold]
    #[inline(never)]
    #[allow(dead_code)] // (Not called when building for sm_90 or later.)
    pub(super) fn cluster_needs_sm90() -> ! {
        // SAFETY: `trap` aborts the kernel.
        unsafe { asm!("trap;", options(noreturn, nostack)) }
    }

    /// `ld.{relaxed,acquire}.scope.global` of the element at generic address `a`.
    #[inline(always)]
    pub(super) unsafe fn ld_global<T: ElemBits>(a: u64, sem: Sem, scope: Scope) -> T {
        if T::BYTES == 4 {
            let d: u32 = by_order!(ld global, sem, scope, a, "32", reg32, u32);
            T::from_bits64(d as u64)
        } else {
            let d: u64 = by_order!(ld global, sem, scope, a, "64", reg64, u64);
            T::from_bits64(d)
        }
    }

    /// `ld.{relaxed,acquire}.scope.shared` at `.shared` address `a`.
    #[inline(always)]
    pub(super) unsafe fn ld_shared<T: ElemBits>(a: u64, sem: Sem, scope: Scope) -> T {
        if T::BYTES == 4 {
            let d: u32 = by_order!(ld shared, sem, scope, a, "32", reg32, u32);
            T::from_bits64(d as u64)
        } else {
            let d: u64 = by_order!(ld shared, sem, scope, a, "64", reg64, u64);
            T::from_bits64(d)
        }
    }

    /// `st.{relaxed,release}.scope.global`, or `st.volatile.global` for `sem == None`.
    #[inline(always)]
    pub(super) unsafe fn st_global<T: ElemBits>(a: u64, v: T, sem: Option<Sem>, scope: Scope) {
        let bits = v.to_bits64();
        if T::BYTES == 4 {
            by_order!(st global, sem, scope, a, "32", reg32, bits as u32)
        } else {
            by_order!(st global, sem, scope, a, "64", reg64, bits)
        }
    }

    /// `st.{relaxed,release}.scope.shared`, or `st.volatile.shared` for `sem == None`.
    #[inline(always)]
    pub(super) unsafe fn st_shared<T: ElemBits>(a: u64, v: T, sem: Option<Sem>, scope: Scope) {
        let bits = v.to_bits64();
        if T::BYTES == 4 {
            by_order!(st shared, sem, scope, a, "32", reg32, bits as u32)
        } else {
            by_order!(st shared, sem, scope, a, "64", reg64, bits)
        }
    }

    /// One fence instruction.
    macro_rules! fence_asm {
        ($s:expr) => { core::arch::asm!($s, options(nostack)) };
    }
    pub(super) use fence_asm;
}

#[cfg(target_arch = "nvptx64")]
#[allow(unused_imports)]
use device::cluster_needs_sm90;

// ---------------------------------------------------------------------------------------------
// The API: one definition for both targets.
// ---------------------------------------------------------------------------------------------

/// Defines the ordered loads and stores of a slice type, with `$load`/`$store` the target's
/// implementation.
macro_rules! ordered_api {
    ($slice:ident, $space:literal, $($bound:tt)+) => {
        impl<'a, T: $($bound)+> crate::$slice<'a, T> {
            #[doc = concat!("`ld.relaxed.scope.", $space, "`: a strong load (sm_70; `.cluster` scope sm_90). A scheduling point on the host.")]
            #[inline(always)]
            #[track_caller]
            pub fn load_relaxed(&self, i: usize, scope: Scope) -> crate::Mem<T> {
                self.load_with(i, crate::Sem::Relaxed, scope)
            }

            #[doc = concat!("`ld.acquire.scope.", $space, "`: a strong load whose thread's later accesses stay after it; reading a release at a scope covering both threads synchronizes with it (sm_70; `.cluster` scope sm_90). A scheduling point on the host.")]
            #[inline(always)]
            #[track_caller]
            pub fn load_acquire(&self, i: usize, scope: Scope) -> crate::Mem<T> {
                self.load_with(i, crate::Sem::Acquire, scope)
            }

            #[doc = concat!("`st.relaxed.scope.", $space, "`: a strong store (sm_70; `.cluster` scope sm_90).")]
            #[inline(always)]
            #[track_caller]
            pub fn store_relaxed(&self, i: usize, value: T, scope: Scope) {
                self.store_with(i, value, Some(crate::Sem::Relaxed), scope)
            }

            #[doc = concat!("`st.release.scope.", $space, "`: a strong store after which the thread's earlier accesses happen before any acquire that reads it at a scope covering both threads (sm_70; `.cluster` scope sm_90).")]
            #[inline(always)]
            #[track_caller]
            pub fn store_release(&self, i: usize, value: T, scope: Scope) {
                self.store_with(i, value, Some(crate::Sem::Release), scope)
            }

            #[doc = concat!("`st.volatile.", $space, "`: a store the compiler keeps as written; `.relaxed` at `.sys` scope for the memory model.")]
            #[inline(always)]
            #[track_caller]
            pub fn store_volatile(&self, i: usize, value: T) {
                self.store_with(i, value, None, Scope::Sys)
            }
        }
    };
}

ordered_api!(GlobalSlice, "global", crate::GlobalValue);
ordered_api!(SharedSlice, "shared", crate::GlobalValue + crate::shared::dev::SharedAsm);

#[cfg(target_arch = "nvptx64")]
impl<'g, T: crate::GlobalValue> crate::GlobalSlice<'g, T> {
    #[inline(always)]
    fn load_with(&self, i: usize, sem: crate::Sem, scope: Scope) -> T {
        // SAFETY: `at` checked the index; the pointer is valid, aligned global memory.
        unsafe { device::ld_global(self.at(i) as u64, sem, scope) }
    }

    #[inline(always)]
    fn store_with(&self, i: usize, value: T, sem: Option<crate::Sem>, scope: Scope) {
        // SAFETY: as for `load_with`.
        unsafe { device::st_global(self.at(i) as u64, value, sem, scope) }
    }
}

#[cfg(target_arch = "nvptx64")]
impl<'w, T: crate::GlobalValue + crate::shared::dev::SharedAsm> crate::SharedSlice<'w, T> {
    #[inline(always)]
    fn load_with(&self, i: usize, sem: crate::Sem, scope: Scope) -> T {
        // SAFETY: `addr_of` checked the index.
        unsafe { device::ld_shared(self.addr_of(i), sem, scope) }
    }

    #[inline(always)]
    fn store_with(&self, i: usize, value: T, sem: Option<crate::Sem>, scope: Scope) {
        // SAFETY: as for `load_with`.
        unsafe { device::st_shared(self.addr_of(i), value, sem, scope) }
    }
}

/// Defines the fences on the handle of both targets: `host` runs on the host with the lane's
/// handle `w`; `asm` is the instruction.
macro_rules! fences {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),*) host($min:expr, $sem:expr, $scope:expr, $op:literal) device $([$dcfg:meta])? { $($dev:tt)* }
    )*) => {
        #[cfg(not(target_arch = "nvptx64"))]
        impl crate::handle::Warp<'_> {
            $(
                $(#[$attr])*
                #[inline(always)]
                #[track_caller]
                pub fn $name(&self $(, $arg: $ty)*) {
                    host::fence(self, $op, $min, $sem, $scope)
                }
            )*
        }

        #[cfg(target_arch = "nvptx64")]
        impl crate::device::Warp<'_> {
            $(
                $(#[$attr])*
                $(#[cfg($dcfg)])?
                #[inline(always)]
                pub fn $name(&self $(, $arg: $ty)*) {
                    // SAFETY: a fence reads and writes no memory the program names.
                    unsafe { $($dev)* }
                }
            )*
        }
    };
}

/// `fence.{sem}.{scope}` selected by `match` on the scope (constants fold).
#[cfg(target_arch = "nvptx64")]
macro_rules! fence_scoped {
    ($sem:literal, $scope:expr) => {
        match $scope {
            Scope::Cta => device::fence_asm!(concat!("fence.", $sem, ".cta;")),
            #[cfg(target_feature = "sm_90")]
            Scope::Cluster => device::fence_asm!(concat!("fence.", $sem, ".cluster;")),
            #[cfg(not(target_feature = "sm_90"))]
            Scope::Cluster => cluster_needs_sm90(),
            Scope::Gpu => device::fence_asm!(concat!("fence.", $sem, ".gpu;")),
            Scope::Sys => device::fence_asm!(concat!("fence.", $sem, ".sys;")),
        }
    };
}

/// The mnemonic of a scoped fence, for reports.
#[cfg(not(target_arch = "nvptx64"))]
const fn fence_name(sem: FenceSem, scope: Scope) -> &'static str {
    macro_rules! names {
        ($($sem:ident $s:literal),*) => {
            match (sem, scope) {
                $(
                    (FenceSem::$sem, Scope::Cta) => concat!("fence.", $s, ".cta"),
                    (FenceSem::$sem, Scope::Cluster) => concat!("fence.", $s, ".cluster"),
                    (FenceSem::$sem, Scope::Gpu) => concat!("fence.", $s, ".gpu"),
                    (FenceSem::$sem, Scope::Sys) => concat!("fence.", $s, ".sys"),
                )*
            }
        };
    }
    names!(Sc "sc", AcqRel "acq_rel", Acquire "acquire", Release "release")
}

#[cfg(not(target_arch = "nvptx64"))]
impl crate::handle::Warp<'_> {
    /// `fence.{sem}.{scope}` (sm_70; `.cluster` sm_90; `.acquire`/`.release` sm_90 and PTX ISA
    /// 8.6, so on nvptx64 only in a build for PTX 8.6, such as sm_100a's; below it the kernel
    /// traps): orders this
    /// thread's memory accesses as the memory model's fence patterns say. See
    /// [the module docs](crate::ordered).
    #[inline(always)]
    #[track_caller]
    pub fn fence(&self, sem: FenceSem, scope: Scope) {
        let min = match sem {
            FenceSem::Acquire | FenceSem::Release => 90,
            _ => min_sm(70, scope),
        };
        host::fence(self, fence_name(sem, scope), min, Some(sem), scope)
    }
}

#[cfg(target_arch = "nvptx64")]
impl crate::device::Warp<'_> {
    /// `fence.{sem}.{scope}` (sm_70; `.acquire`/`.release` and `.cluster` sm_90).
    #[inline(always)]
    pub fn fence(&self, sem: FenceSem, scope: Scope) {
        // SAFETY: a fence reads and writes no memory the program names.
        unsafe {
            match sem {
                FenceSem::Sc => fence_scoped!("sc", scope),
                FenceSem::AcqRel => fence_scoped!("acq_rel", scope),
                #[cfg(all(target_feature = "sm_90", target_feature = "ptx86"))]
                FenceSem::Acquire => fence_scoped!("acquire", scope),
                #[cfg(all(target_feature = "sm_90", target_feature = "ptx86"))]
                FenceSem::Release => fence_scoped!("release", scope),
                #[cfg(not(all(target_feature = "sm_90", target_feature = "ptx86")))]
                FenceSem::Acquire | FenceSem::Release => cluster_needs_sm90(),
            }
        }
    }
}

fences! {
    /// `fence.sc.{scope}` (sm_70; `.cluster` sm_90).
    fn fence_sc(scope: Scope) host(min_sm(70, scope), Some(FenceSem::Sc), scope, "fence.sc") device { fence_scoped!("sc", scope) }
    /// `fence.acq_rel.{scope}` (sm_70; `.cluster` sm_90): the light-weight fence of the release and
    /// acquire patterns.
    fn fence_acq_rel(scope: Scope) host(min_sm(70, scope), Some(FenceSem::AcqRel), scope, "fence.acq_rel") device { fence_scoped!("acq_rel", scope) }
    /// `membar.cta` (all targets; `fence.sc.cta` on sm_70+).
    fn membar_cta() host(0, Some(FenceSem::Sc), Scope::Cta, "membar.cta") device { device::fence_asm!("membar.cta;") }
    /// `membar.gl` (all targets; `fence.sc.gpu` on sm_70+).
    fn membar_gl() host(0, Some(FenceSem::Sc), Scope::Gpu, "membar.gl") device { device::fence_asm!("membar.gl;") }
    /// `membar.sys` (all targets; `fence.sc.sys` on sm_70+).
    fn membar_sys() host(0, Some(FenceSem::Sc), Scope::Sys, "membar.sys") device { device::fence_asm!("membar.sys;") }
    /// CUDA's `__threadfence_block()`: `membar.cta`.
    fn threadfence_block() host(0, Some(FenceSem::Sc), Scope::Cta, "membar.cta") device { device::fence_asm!("membar.cta;") }
    /// CUDA's `__threadfence()`: `membar.gl`.
    fn threadfence() host(0, Some(FenceSem::Sc), Scope::Gpu, "membar.gl") device { device::fence_asm!("membar.gl;") }
    /// CUDA's `__threadfence_system()`: `membar.sys`.
    fn threadfence_system() host(0, Some(FenceSem::Sc), Scope::Sys, "membar.sys") device { device::fence_asm!("membar.sys;") }
    /// `fence.proxy.alias` (sm_70, PTX ISA 7.5: on nvptx64 in a build for PTX 7.5 or later):
    /// orders accesses through virtually aliased addresses. No effect on the CPU (one address per
    /// location).
    fn fence_proxy_alias() host(70, None, Scope::Sys, "fence.proxy.alias") device [target_feature = "ptx75"] { device::fence_asm!("fence.proxy.alias;") }
    /// `membar.proxy.alias` (sm_60, PTX ISA 7.5): `fence.proxy.alias` on sm_70+. No effect on the
    /// CPU.
    fn membar_proxy_alias() host(60, None, Scope::Sys, "membar.proxy.alias") device [target_feature = "ptx75"] { device::fence_asm!("membar.proxy.alias;") }
    /// `fence.proxy.async` (sm_90): orders the generic proxy with the async proxy (`cp.async.bulk`,
    /// TMA) in every state space. No effect on the CPU (no async proxy).
    fn fence_proxy_async() host(90, None, Scope::Sys, "fence.proxy.async") device [target_feature = "sm_90"] { device::fence_asm!("fence.proxy.async;") }
    /// `fence.proxy.async.global` (sm_90). No effect on the CPU.
    fn fence_proxy_async_global() host(90, None, Scope::Sys, "fence.proxy.async.global") device [target_feature = "sm_90"] { device::fence_asm!("fence.proxy.async.global;") }
    /// `fence.proxy.async.shared::cta` (sm_90). No effect on the CPU.
    fn fence_proxy_async_shared_cta() host(90, None, Scope::Sys, "fence.proxy.async.shared::cta") device [target_feature = "sm_90"] { device::fence_asm!("fence.proxy.async.shared::cta;") }
    /// `fence.proxy.async.shared::cluster` (sm_90). No effect on the CPU.
    fn fence_proxy_async_shared_cluster() host(90, None, Scope::Sys, "fence.proxy.async.shared::cluster") device [target_feature = "sm_90"] { device::fence_asm!("fence.proxy.async.shared::cluster;") }
    /// `fence.proxy.tensormap::generic.release.gpu` (sm_90, PTX ISA 8.3: on nvptx64 only in a
    /// build for PTX 8.3 or later, such as sm_100a's): releases a tensormap written through the
    /// generic proxy to the tensormap proxy. No effect on the CPU.
    fn fence_proxy_tensormap_release_gpu() host(90, None, Scope::Gpu, "fence.proxy.tensormap::generic.release.gpu") device [all(target_feature = "sm_90", target_feature = "ptx83")] { device::fence_asm!("fence.proxy.tensormap::generic.release.gpu;") }
    /// `fence.mbarrier_init.release.cluster` (sm_90): releases prior `mbarrier.init`s to the
    /// cluster's other CTAs. No effect on the CPU: without clusters no other CTA reaches the
    /// block's mbarriers, and the block's own threads need a barrier (`sync_threads`) after
    /// `mbarrier_init`, which the race detector checks.
    fn fence_mbarrier_init_release_cluster() host(90, None, Scope::Cluster, "fence.mbarrier_init.release.cluster") device [target_feature = "sm_90"] { device::fence_asm!("fence.mbarrier_init.release.cluster;") }
}
