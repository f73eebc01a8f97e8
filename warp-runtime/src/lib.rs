//! Lockstep warp runtime.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(asm_experimental_arch))]

/// One function per PTX warp instruction, each a single inline-asm instruction (nvptx64 only).
#[cfg(target_arch = "nvptx64")]
pub mod nvptx;
