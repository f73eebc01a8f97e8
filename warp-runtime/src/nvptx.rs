//! PTX instructions, one function each, for `nvptx64-nvidia-cuda`, generated from the
//! instruction table ([`crate::isa`]).
//!
//! Every function is `#[inline(always)]` and its body is one inline-`asm!` PTX instruction. Where PTX
//! wants a predicate, the asm opens a `{ .reg .pred p; ... }` scope and moves the predicate in with
//! `setp.ne.u32` or out with `selp.u32`, because Rust's nvptx asm has no predicate register class
//! (operands are `reg32` / `reg64`). Results are returned as plain values: `(d, p)` pairs where the
//! instruction has both a destination and a predicate.
//!
//! # Ordering
//!
//! None of the warp-synchronous instructions uses the `pure` or `nomem` asm options: each asm block is
//! a side effect that may touch memory, so the compiler neither deletes, merges, hoists nor sinks it
//! past memory accesses. `activemask` is not pure either (its value depends on the control flow that
//! reaches it). Only `laneid` and the `lanemask_*` reads, which are constant for a thread, are
//! `pure, nomem`. (Whether the compiler may *duplicate* an asm block into several branches is a
//! separate question: see the PTX crate's docs and `cargo xtask ptx`, which checks the emitted IR.)
//!
//! # Safety contract
//!
//! The functions are safe to call in Rust's sense (they touch no memory), but PTX calls the result
//! undefined if the executing thread is not in `membermask`, if a `shfl` source lane is inactive or
//! not in `membermask`, and so on; the lockstep host runtime reports those cases, the GPU does not.
//!
//! # Target gating
//!
//! Checked with rustc 1.97.0-nightly (2026-05-19):
//! `rustc +nightly --print cfg --target nvptx64-nvidia-cuda -C target-cpu=sm_90` prints
//! `target_feature="sm_70"`, `"sm_72"`, `"sm_75"`, `"sm_80"`, `"sm_86"`, `"sm_87"`, `"sm_89"`,
//! `"sm_90"`: rustc **does** expose the nvptx `sm_*` features to `cfg`, and each `target-cpu` implies
//! every lower sm (sm_100a gives `sm_100`, `sm_100a` and sm_70..sm_90; sm_90a gives `sm_90a` too; the
//! `a` features do not imply each other, e.g. sm_120a does not give `sm_100a`). The lowest
//! target-cpu rustc lists is `sm_70` (the default, with `ptx70`); `-C target-cpu=sm_60` is still
//! accepted by LLVM but sets no `sm_*` cfg at all, which is what the deprecated `vote` gate uses.
//! So each instruction below is compiled only where its row's gate holds (`gate sm80` is
//! `#[cfg(target_feature = "sm_80")]`, `gate below_sm70` is `#[cfg(not(target_feature = "sm_70"))]`);
//! `crate::isa` lists every row with its gate.
//!
//! The `.f32` redux is also legal on the sm_100f family from PTX 8.8, but `sm_100f` is an LLVM
//! code-generation feature that rustc does not expose to `cfg`, so only `sm_100a` enables it here.

crate::isa_rows!(crate::__isa_nvptx_fns);

/// Reads a 32-bit special register that is constant for a thread (`pure, nomem`).
macro_rules! sreg32 {
    ($($(#[$m:meta])* $name:ident => $reg:literal;)*) => {$(
        $(#[$m])*
        #[cfg(target_feature = "sm_90")]
        #[inline(always)]
        pub fn $name() -> u32 {
            let r: u32;
            // SAFETY: reads a special register.
            unsafe { core::arch::asm!(concat!("mov.u32 {r}, ", $reg, ";"), r = out(reg32) r, options(pure, nomem, nostack)) };
            r
        }
    )*};
}

sreg32! {
    /// `%cluster_ctarank` (sm_90).
    cluster_ctarank => "%cluster_ctarank";
    /// `%cluster_nctarank` (sm_90).
    cluster_nctarank => "%cluster_nctarank";
    /// `%clusterid.x` (sm_90).
    clusterid_x => "%clusterid.x";
    /// `%clusterid.y` (sm_90).
    clusterid_y => "%clusterid.y";
    /// `%clusterid.z` (sm_90).
    clusterid_z => "%clusterid.z";
    /// `%nclusterid.x` (sm_90).
    nclusterid_x => "%nclusterid.x";
    /// `%nclusterid.y` (sm_90).
    nclusterid_y => "%nclusterid.y";
    /// `%nclusterid.z` (sm_90).
    nclusterid_z => "%nclusterid.z";
    /// `%cluster_ctaid.x` (sm_90).
    cluster_ctaid_x => "%cluster_ctaid.x";
    /// `%cluster_ctaid.y` (sm_90).
    cluster_ctaid_y => "%cluster_ctaid.y";
    /// `%cluster_ctaid.z` (sm_90).
    cluster_ctaid_z => "%cluster_ctaid.z";
    /// `%cluster_nctaid.x` (sm_90).
    cluster_nctaid_x => "%cluster_nctaid.x";
    /// `%cluster_nctaid.y` (sm_90).
    cluster_nctaid_y => "%cluster_nctaid.y";
    /// `%cluster_nctaid.z` (sm_90).
    cluster_nctaid_z => "%cluster_nctaid.z";
}

/// `%is_explicit_cluster` (sm_90): whether the launch gave a cluster shape.
#[cfg(target_feature = "sm_90")]
#[inline(always)]
pub fn is_explicit_cluster() -> bool {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe {
        core::arch::asm!("{{ .reg .pred p; mov.pred p, %is_explicit_cluster; selp.u32 {r}, 1, 0, p; }}", r = out(reg32) r, options(pure, nomem, nostack))
    };
    r != 0
}
