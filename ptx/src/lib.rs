//! nvptx64 kernels for warpkit.
//!
//! Built only for `nvptx64-nvidia-cuda` (`cargo xtask ptx`); on any other target the crate is empty.
//! The PTX module lands in `target/ptx/<sm>/warpkit_ptx.ptx`, its LLVM IR next to it.
//!
//! * [`conformance`]: one `conf_*` kernel per PTX warp instruction, for checking the lockstep
//!   runtime's semantics against real hardware.
//! * [`divergence`]: `div_*` kernels with warp instructions under divergent branches, used to check
//!   that the compiler keeps each instruction exactly where it is written.
//! * [`handle`]: `dev_*` kernels written against the device handle `warp_runtime::Warp` (8-byte
//!   shuffles, widths, tiles, vote helpers, the `redux`/`elect` fallbacks), for the GPU program.
//! * [`blocks`]: block-level `conf_*` kernels (CTA barriers, geometry, shared memory), written with
//!   `#[warp_kernel(entry)]` so that the GPU program runs the same source in the CPU runtime.
//! * [`paths`]: `conf_activemask_paths`, `activemask` in a helper called from several places
//!   (one instruction per call), also a `#[warp_kernel(entry)]` the GPU program compares.
//! * [`atomics`]: `conf_atom_*`, every `atom`/`red` form on global and shared memory with every
//!   `.sem`/`.scope`, bodies in [`atomics_ops`] (which the GPU program runs in the CPU runtime).
//! * every example of `examples/` (the same source files), for its `#[warp_kernel(entry)]` kernels
//!   (`*_entry`, `histogram_ffs`, `sort_pairs_grid`), which the GPU program runs and compares with
//!   the CPU runtime. The bug gallery's entry kernels (`gallery_*`) are undefined behaviour by
//!   design: they are built and checked by ptxas, never launched.
//! * [`bench`]: `benches/gpu/kernels.rs`, the `bench_*` kernels that `cargo xtask gpu-bench` times
//!   against the same algorithms compiled by nvcc.
//!
//! `no_std` and `feature(abi_ptx, asm_experimental_arch)` come from the builder (`warpkit_build::PtxBuilder`, which
//! `cargo xtask ptx` runs), the panic handler from `warpkit`.

// What `#[warp_kernel]` writes for nvptx64 (the kernels here and the examples') must not trip
// lints a crate may deny (a shared array's `{ 32 * N }` length once gave `unused_braces`).
#![deny(unused_braces, unused_parens, unused_imports, unused_variables)]

#[cfg(target_arch = "nvptx64")]
pub mod conformance;
#[cfg(target_arch = "nvptx64")]
pub mod divergence;
#[cfg(target_arch = "nvptx64")]
pub mod handle;
#[cfg(target_arch = "nvptx64")]
pub mod blocks;
#[cfg(target_arch = "nvptx64")]
pub mod paths;
#[cfg(target_arch = "nvptx64")]
pub mod atomics;
#[cfg(target_arch = "nvptx64")]
pub mod atomics_ops;
#[cfg(target_arch = "nvptx64")]
pub mod ordered;
#[cfg(target_arch = "nvptx64")]
pub mod mbarrier;
#[cfg(target_arch = "nvptx64")]
pub mod cluster;

// The examples, compiled for the GPU as they are written (their `main`s are host-only).
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/reduce.rs"]
pub mod reduce;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/scan.rs"]
pub mod scan;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/segmented_reduce.rs"]
pub mod segmented_reduce;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/compact.rs"]
pub mod compact;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/histogram.rs"]
pub mod histogram;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/radix_rank.rs"]
pub mod radix_rank;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/bitonic_sort.rs"]
pub mod bitonic_sort;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/search.rs"]
pub mod search;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/bug_gallery.rs"]
pub mod bug_gallery;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/block_reduce.rs"]
pub mod block_reduce;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/block_scan.rs"]
pub mod block_scan;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/block_radix_sort.rs"]
pub mod block_radix_sort;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/lookback_scan.rs"]
pub mod lookback_scan;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/pipeline.rs"]
pub mod pipeline;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/block_compact.rs"]
pub mod block_compact;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/mbarrier_pipeline.rs"]
pub mod mbarrier_pipeline;
#[cfg(target_arch = "nvptx64")]
#[path = "../../examples/cluster_reduce.rs"]
pub mod cluster_reduce;

// The warpkit side of the GPU benchmark (`cargo xtask gpu-bench`; CUDA side: benches/gpu/kernels.cu).
#[cfg(target_arch = "nvptx64")]
#[path = "../../benches/gpu/kernels.rs"]
pub mod bench;

/// Global index of the calling thread in a 1-D launch: `ctaid.x * ntid.x + tid.x`.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) fn global_thread_index() -> usize {
    use warp_runtime::nvptx::{ctaid_x, ntid_x, tid_x};
    (ctaid_x() as usize) * (ntid_x() as usize) + (tid_x() as usize)
}
