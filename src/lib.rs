//! warpkit: write GPU warp algorithms once; run them in a lockstep 32-lane CPU runtime that
//! reports undefined behaviour, or compile them to PTX.
//!
//! A warp function is per-lane code marked `#[warp_kernel]` whose first parameter is the warp
//! handle `w: &Warp`. It calls warp instructions as methods on the handle and other warp
//! functions by passing the handle on:
//!
//! ```
//! use warpkit::prelude::*;
//!
//! /// The sum over the warp, in every lane.
//! #[warp_kernel]
//! fn warp_sum(w: &Warp, x: u32) -> u32 {
//!     let mut v = x;
//!     for offset in [16, 8, 4, 2, 1] {
//!         v += w.shfl_xor(v, offset);
//!     }
//!     v
//! }
//!
//! /// The inclusive prefix sum, with the total.
//! #[warp_kernel]
//! fn scan(w: &Warp, x: u32) -> (u32, u32) {
//!     let mut v = x;
//!     for offset in [1, 2, 4, 8, 16] {
//!         let (up, valid) = w.shfl_up_pred(v, offset);
//!         if valid {
//!             v += up;
//!         }
//!     }
//!     (v, warp_sum(w, x))
//! }
//!
//! let data: Vec<u32> = (0..32).collect();
//! let out = Executor::new().run(async |w: &Warp<'_>| scan(w, data[w.lane_id() as usize]).await).unwrap();
//! assert_eq!(out[31], (496, 496));
//! assert_eq!(out[3], (6, 496));
//! ```
//!
//! On the host the macro turns the function into an `async fn` with an `.await` after every
//! warp instruction and every call that passes a handle; the runtime steps the 32 lane futures in
//! lockstep. On nvptx64 the body is kept as written and each instruction is one PTX instruction.
//!
//! What the macro accepts:
//! - The handle is the first parameter (after `self` in a method), typed `&Warp` (any path
//!   ending in `Warp`). `let t = w.tile(8);`, `let g = w.group(mask);` and `let h = w;` bind
//!   handle variables too.
//! - Suspension points are a method call on a handle variable whose name is a warp instruction
//!   (`shfl_down`, `ballot`, `match_any`, `redux_add`, `elect`, ...) and a call that passes a
//!   handle variable (`helper(w, x)`, `self.helper(&t, x)`). Every other call stays ordinary, so
//!   `iter.any(..)` or `a.min(b)` are untouched.
//! - A handle may be used only as a method receiver, as a direct argument of a call, or as the
//!   initialiser of a `let`. Storing it in a struct, tuple or array, returning it, assigning it
//!   after its `let` (`let t; t = w.tile(8);`), choosing it with `if`/`match`, copying it
//!   (`w.clone()`), handing it to a macro, or using it in any other way the macro cannot see is a
//!   compile error, as are warp instructions inside closures, `async` blocks, nested fns and macro
//!   calls (on the handle or on a tile derived in the call, `assert!(w.tile(8).all(p))`): the
//!   rewrite cannot put an `.await` there.
//! - One handle parameter, and no direct recursion (the host state machine cannot contain
//!   itself): a second `&Warp` parameter and a call of the function itself are compile errors.
//! - Constant shuffle offsets of `shfl_up/down/xor/idx` (and `_pred`, `_sync`) must be in
//!   0..32, and constant widths (`tile(..)`, the `_sync` forms) powers of two in 1..=32.
//! - Every function that receives a handle must itself be a `#[warp_kernel]` function.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]

// `#[warp_kernel]` code names the facade `::warpkit` (or the name a crate gave the dependency);
// this makes that path work inside this package too.
extern crate self as warpkit;

pub use warp_macros::{warp_kernel, WarpValue};
pub use warp_runtime::value::{WarpBits, WarpWords};
pub use warp_runtime::*;

pub mod shfl_words;

#[cfg(not(target_arch = "nvptx64"))]
mod entry;
#[cfg(not(target_arch = "nvptx64"))]
mod launch;
#[cfg(not(target_arch = "nvptx64"))]
pub use entry::{Buffer, Elem, Element, EntryKernel, KernelParam, Params};
#[cfg(not(target_arch = "nvptx64"))]
pub use launch::LaunchConfig;

#[cfg(all(feature = "cuda", not(target_arch = "nvptx64")))]
pub mod cuda;

/// What `#[warp_kernel(entry)]` expands to besides the function: on the host, the kernel's type
/// (see [`EntryKernel`]); nothing on nvptx64. The macro passes the parameter types with
/// `'static` for their lifetimes.
#[doc(hidden)]
#[macro_export]
macro_rules! __entry {
    ([$(#[$cfg:meta])*] $vis:vis $name:ident ($($param:ident: $ty:ty),* $(,)?)) => {
        $(#[$cfg])*
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(non_camel_case_types)]
        #[doc = ::core::concat!(
            "The entry kernel [`", ::core::stringify!($name), "`](fn@", ::core::stringify!($name),
            ") as a type: warpkit's `EntryKernel` (runs it in the CPU runtime) and, with warpkit's ",
            "`cuda` feature, a typed `launch` and the GPU-against-CPU comparison."
        )]
        $vis enum $name {}

        $(#[$cfg])*
        #[cfg(not(target_arch = "nvptx64"))]
        impl $crate::EntryKernel for $name {
            const NAME: &'static str = ::core::stringify!($name);
            const PARAMS: &'static [&'static str] = &[$(::core::stringify!($param)),*];
            type Params = ($($ty,)*);
            fn run_cpu(
                grid: &$crate::Grid,
                cpu: &<Self::Params as $crate::Params>::Cpu,
            ) -> ::core::result::Result<(), $crate::WarpError> {
                let ($($param,)*) = <Self::Params as $crate::Params>::args(cpu);
                // Each warp starts in the kernel's warp-wide form where it offers one.
                grid.run_entry($name, $crate::__form_args!($($param),*), async |w: &$crate::__private::Warp<'_>| $name(w, $($param),*).await)
            }
        }

        $crate::__cuda_launch! { [$(#[$cfg])*] $vis $name ($($param: $ty),*) }
    };
}

/// An entry kernel's parameters as its warp-wide form takes them: none as `()`, one as itself,
/// several as a tuple.
#[doc(hidden)]
#[macro_export]
macro_rules! __form_args {
    () => {
        ()
    };
    ($p:ident) => {
        $p
    };
    ($($p:ident),+) => {
        ($($p,)+)
    };
}

/// Without the `cuda` feature, entry kernels get no GPU launcher.
#[cfg(not(all(feature = "cuda", not(target_arch = "nvptx64"))))]
#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_launch {
    ($($tokens:tt)*) => {};
}

/// The names a warp function needs.
pub mod prelude {
    pub use warp_macros::{warp_kernel, WarpValue};
    pub use warp_runtime::value::{WarpValue, WarpWords};
    pub use warp_runtime::{BarRed, Dim3, FloatRedux, GlobalSlice, Scope, Sem, SharedSlice, ShflMode, VoteMode, Warp, FULL_MASK};
    pub use warp_runtime::{bf16, f16, Bf16x2, F16x2, RedSem};
    pub use warp_runtime::{ArriveSem, DsmemSlice, MbarScope, MbarrierToken, WaitSem};
    #[cfg(not(target_arch = "nvptx64"))]
    pub use warp_runtime::{Executor, GlobalBuffer, Grid, LaneOrder, Schedule, Target, WarpError};
}

/// What `#[warp_kernel]`'s generated code names. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use core;
    #[cfg(not(target_arch = "nvptx64"))]
    pub use warp_runtime::{Intrinsic, Warp};
    /// The warp-wide forms' runtime (`#[warp_kernel]`'s second code generator).
    #[cfg(not(target_arch = "nvptx64"))]
    pub use warp_runtime::wide;
    #[cfg(target_arch = "nvptx64")]
    pub use warp_runtime::Warp;
    /// `#[warp_kernel(entry)]`'s host type of the kernel.
    pub use crate::__entry as entry;

    /// Its argument, unchanged. The macro's per-lane expansion of an awaited call, load or
    /// atomic (a `match` that binds its value, in the macro's context) is wrapped in a call of
    /// this spanned as the user's expression, so that the operation it is an operand of keeps
    /// the user's span: a panic there (`x.load(i) / d`) is reported at the expression, not at
    /// the `#[warp_kernel]` attribute (rustc reports a panic in code that spans a macro's context
    /// at the macro's call site).
    #[inline(always)]
    pub fn at<T>(value: T) -> T {
        value
    }

    /// The result of a call that receives a warp handle: on the host, a `#[warp_kernel]`
    /// function's future. The macro wraps each such call in [`WarpCall::into_future`] so that
    /// passing the handle to a plain function is reported as such, and so that the callee's
    /// instructions are told apart by the call (`warp_runtime::call`: on a GPU, a helper
    /// called from two places is inlined as two copies of its instructions).
    #[diagnostic::on_unimplemented(
        message = "a function that receives the warp handle must be a `#[warp_kernel]` function, but this call returns `{Self}`",
        label = "this call receives the warp handle",
        note = "mark the called function `#[warp_kernel]`, or pass it the values it needs (such as `w.lane_id()`) instead of the handle"
    )]
    pub trait WarpCall {
        /// The call's future.
        type Future: core::future::Future;
        /// The call's future: on the host, the callee's future as a call at the caller's
        /// location; on nvptx64 (where nothing is awaited) unchanged.
        #[track_caller]
        fn into_future(self) -> Self::Future;
    }

    #[cfg(not(target_arch = "nvptx64"))]
    impl<F: core::future::Future> WarpCall for F {
        type Future = warp_runtime::Call<F>;
        #[inline(always)]
        #[track_caller]
        fn into_future(self) -> Self::Future {
            warp_runtime::call(self)
        }
    }

    #[cfg(target_arch = "nvptx64")]
    impl<F: core::future::Future> WarpCall for F {
        type Future = F;
        #[inline(always)]
        fn into_future(self) -> F {
            self
        }
    }

    /// The result of an atomic or a volatile load, which the macro awaits on the host as a
    /// scheduling point.
    #[cfg(not(target_arch = "nvptx64"))]
    #[diagnostic::on_unimplemented(
        message = "`#[warp_kernel]` awaits `atomic_*`, `red_*`, `mbarrier_*`, `cp_async*`, `load_volatile`, `load_relaxed` and `load_acquire` calls (and the cluster and `griddepcontrol` scheduling points) as warpkit memory operations, but this call returns `{Self}`",
        label = "not a warpkit memory operation (of `GlobalSlice`, `SharedSlice`, `DsmemSlice` or the handle)",
        note = "rename your own method, or call it outside the `#[warp_kernel]` function"
    )]
    pub trait MemCall {
        /// The operation's future.
        type Future: core::future::Future;
        /// The operation's future, unchanged.
        fn into_future(self) -> Self::Future;
    }

    #[cfg(not(target_arch = "nvptx64"))]
    pub use warp_runtime::{form_atomic, lockstep_atomic, pause, pause_store, pauses_load, pauses_lockstep};

    #[cfg(not(target_arch = "nvptx64"))]
    impl<T: Copy> MemCall for warp_runtime::MemOp<T> {
        type Future = warp_runtime::MemOp<T>;
        #[inline(always)]
        fn into_future(self) -> Self::Future {
            self
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    impl MemCall for warp_runtime::cluster::ClusterArrive {
        type Future = warp_runtime::cluster::ClusterArrive;
        #[inline(always)]
        fn into_future(self) -> Self::Future {
            self
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    impl MemCall for warp_runtime::cluster::GridDepWait {
        type Future = warp_runtime::cluster::GridDepWait;
        #[inline(always)]
        fn into_future(self) -> Self::Future {
            self
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    impl MemCall for warp_runtime::cluster::ClusterWait {
        type Future = warp_runtime::cluster::ClusterWait;
        #[inline(always)]
        fn into_future(self) -> Self::Future {
            self
        }
    }

    #[cfg(target_arch = "nvptx64")]
    pub use warp_runtime::__shared_static;
}

/// Includes the module `warpkit_build::PtxBuilder` wrote to `OUT_DIR` (`warpkit_ptx.rs`): one
/// `&str` constant per sm target (`SM_80`, `SM_90`, ...) holding that target's PTX, and
/// `ALL: &[(&str, &str)]`, every `(target, PTX)` built.
///
/// ```ignore
/// #[cfg(not(target_arch = "nvptx64"))]
/// pub mod ptx {
///     warpkit::include_ptx!();
/// }
/// ```
#[macro_export]
macro_rules! include_ptx {
    () => {
        ::core::include!(::core::concat!(::core::env!("OUT_DIR"), "/warpkit_ptx.rs"));
    };
}

// The host side of a launch (`cuda::RawArg::slice`) passes a `GlobalSlice` as a pointer and a
// length, 16 bytes: every PTX build checks the device side has that size.
#[cfg(target_arch = "nvptx64")]
const _: () = assert!(core::mem::size_of::<GlobalSlice<'static, u32>>() == 16 && core::mem::size_of::<GlobalSlice<'static, f64>>() == 16);

/// The panic handler of every nvptx64 build that uses warpkit (feature `panic-handler`, on by
/// default): `trap`, which aborts the kernel; the host sees a launch failure. Turn the feature off
/// to provide your own.
#[cfg(all(target_arch = "nvptx64", feature = "panic-handler"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: `trap` only ends the thread's kernel.
    unsafe { core::arch::asm!("trap;", options(noreturn, nostack)) }
}

/// The README's Rust code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
