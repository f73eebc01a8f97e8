//! warpkit: write GPU warp algorithms once; run them in a lockstep 32-lane CPU runtime that
//! reports undefined behaviour, or compile them to PTX.
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub use warp_runtime::*;
