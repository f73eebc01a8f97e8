//! Lockstep warp runtime: runs the 32 lanes of a warp on the CPU, performs every PTX warp
//! instruction exactly as the PTX ISA defines it, and reports what the ISA leaves undefined.
//!
//! A kernel is an async closure (or `async fn`) over a lane handle, [`Warp`]. Each warp
//! instruction is a method on the handle returning a future; awaiting it suspends the lane until
//! every lane of the instruction's membermask has arrived, then the [`Executor`] computes all
//! results at once from the pure functions in [`semantics`].
//!
//! ```
//! use warp_runtime::{Executor, Warp};
//!
//! // Lanes with an even id vote; every lane of the warp sees the same ballot.
//! let ballots = Executor::new()
//!     .run(async |w: &Warp<'_>| w.ballot(w.lane_id() % 2 == 0).await)
//!     .unwrap();
//! assert!(ballots.iter().all(|&b| b == 0x5555_5555));
//! ```
//!
//! Undefined behaviour ends the run with a [`WarpError`] that quotes the PTX rule and lists every
//! lane's state:
//!
//! ```
//! use warp_runtime::{Executor, Warp, WarpError};
//!
//! // Only lanes 0-15 take the branch, but the shuffle names the full warp and reads lane + 16.
//! let err = Executor::new()
//!     .run(async |w: &Warp<'_>| {
//!         if w.lane_id() < 16 {
//!             return w.shfl_down(1u32, 16).await;
//!         }
//!         0
//!     })
//!     .unwrap_err();
//! assert!(matches!(err, WarpError::InvalidShflSource { .. }));
//! ```
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]
#![warn(missing_docs)]

/// One function per PTX warp instruction, each a single inline-asm instruction (nvptx64 only).
#[cfg(target_arch = "nvptx64")]
pub mod nvptx;

/// The device lane handle: the host handle's API, each intrinsic one PTX instruction (nvptx64 only).
#[cfg(target_arch = "nvptx64")]
pub mod device;
#[cfg(target_arch = "nvptx64")]
pub use device::Warp;

pub mod api;
pub use api::{AsBool, AsU32, AsU32Pred, AsUnit, AsValue, AsValuePred, AsWord, Decode, FULL_MASK};
pub mod geom;
pub use geom::Dim3;
pub mod isa;
pub mod op;
pub use op::{BarOp, Op};
pub mod semantics;
pub mod value;
pub use semantics::barrier::{BarKind, BarRed};
pub use semantics::redux::{FloatRedux, ReduxOp, ReduxType};
pub use semantics::shfl::ShflMode;
pub use semantics::vote::VoteMode;
pub use value::{MinMaxType, ReduxBits, ReduxInt, ReduxMinMax, WarpValue, Word};

pub mod global;
pub use global::{AtomicAdd, AtomicBits, AtomicMinMax, GlobalSlice, GlobalValue};
pub mod shared;
pub use shared::{Mem, SharedInt, SharedSlice};
pub mod sem;
pub use sem::{Scope, Sem};
pub mod atomic;
pub use atomic::{bf16, f16, AtomicCas, AtomicExch, AtomicIncDec, AtomicVecAdd, AtomicVecMinMax, Bf16x2, F16x2, RedSem};
pub mod ordered;
pub use ordered::FenceSem;
pub mod mbarrier;
pub use mbarrier::{ArriveSem, MbarScope, MbarrierRule, MbarrierToken, MbarrierView, WaitSem, WaitsFor};
pub mod cluster;
pub use cluster::{ClusterRule, DsmemSlice, RedAsyncAdd, RedAsyncMinMax, StAsync};
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_100"))]
pub use cluster::{query_cancel_first_ctaid, query_cancel_is_canceled};

macro_rules! host {
    ($($item:item)*) => {$( #[cfg(not(target_arch = "nvptx64"))] $item )*};
}

host! {
    mod block;
    pub mod call;
    pub mod error;
    pub mod exec;
    pub mod footprint;
    pub mod grid;
    pub mod handle;
    mod isolate;
    pub mod mem;
    pub mod schedule;
    pub mod stack;
    pub mod target;
    #[doc(hidden)]
    pub mod unawaited;
    mod warp;

    pub use error::{BarrierRule, BlockReport, Conflict, LaneSet, LaneState, MemWait, Race, RaceAccess, RaceKind, Report, ShflFault, Site, Unawaited, WaitEdge, WarpError};
    pub use call::{call, Call, Learning};
    pub use exec::{Executor, LaneOrder, DEFAULT_TIME_LIMIT, DEFAULT_WARP_SPIN_LIMIT};
    pub use footprint::{warp_footprint, Footprint};
    pub use global::GlobalBuffer;
    pub use grid::{launch, launch_dependent, Explored, Grid};
    pub use handle::{Intrinsic, Warp};
    pub use mem::{form_atomic, lockstep_atomic, pause, pause_store, pauses_load, pauses_lockstep, AccessPoint, LaneFault, LockstepAtomic, MemOp, Space};
    pub mod race;
    pub mod simd;
    pub mod trace;
    pub mod wide;
    pub use wide::wide_runs;
    #[doc(hidden)]
    pub use wide::{direct_starts, forms_learned};
    pub use simd::Simd;
    pub use schedule::Schedule;
    pub use target::{ArchSuffix, ParseTargetError, Target};
}
