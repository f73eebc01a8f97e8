//! warpkit: write warp algorithms once, run them in a lockstep 32-lane CPU runtime or on a GPU.
pub use warp_runtime::*;
