//! The lane handle's methods, defined once for both targets.
//!
//! Every method of [`Warp`](crate::Warp) is written here a single time, with its documentation,
//! and [`warp_api!`] expands it into the host handle (`crate::handle`) and the device handle
//! (`crate::device`):
//!
//! - **Instructions** (`instr { .. }`): the body names the instruction family and its operands
//!   through `fam::<family>(self, ..)`. On the host, `fam` is `crate::handle::fam`, which posts the
//!   lane's request for the lockstep executor, and the method returns an [`Intrinsic`] future whose
//!   result the decoder (the declared return type, e.g. [`AsValue<T>`]) makes from the completed
//!   instruction's `d` and `p`. On nvptx64, `fam` is `crate::device::fam`, which executes the
//!   instruction at once (the rows of [`crate::isa`], or a fallback on targets below the row's
//!   gate), and the method returns the decoded value itself.
//! - **Registers and groups** (`plain { .. }`): methods that are not suspension points and return
//!   a value on both targets (`lane_id`, `tile`, `tid`, ...).
//!
//! `#[warp_kernel]` awaits every instruction method on the host and leaves the call as written on
//! nvptx64, so one kernel source compiles to both.
//!
//! [`Intrinsic`]: crate::handle::Intrinsic

use core::marker::PhantomData;

use crate::geom::Dim3;
use crate::semantics::barrier::{BarKind, BarRed};
use crate::semantics::redux::{FloatRedux, ReduxOp};
use crate::semantics::shfl::{width_c, ShflMode};
use crate::semantics::vote::VoteMode;
use crate::value::{ReduxBits, ReduxInt, ReduxMinMax, WarpValue, Word};

#[cfg(target_arch = "nvptx64")]
use crate::device::{HasLegacyVote, HasMatchSync};

/// The membermask naming all 32 lanes.
pub const FULL_MASK: u32 = u32::MAX;

/// Turns a completed instruction's destination registers into the method's result.
pub trait Decode {
    /// The method's result type.
    type Output;
    /// `d` (zero-extended to 64 bits) and `p`.
    fn decode(d: u64, p: bool) -> Self::Output;
}

/// Decodes `d` as a value.
pub struct AsValue<T>(PhantomData<T>);
/// Decodes `(d, p)`.
pub struct AsValuePred<T>(PhantomData<T>);
/// Decodes a predicate destination stored in `d`.
pub struct AsBool;
/// Decodes nothing (`bar.warp.sync`, `bar.sync`).
pub struct AsUnit;
/// Decodes a 32-bit mask, count or lane id in `d`.
pub struct AsU32;
/// Decodes `(d, p)` with a 32-bit `d`.
pub struct AsU32Pred;
/// Decodes a 32-bit register as a `redux.sync` value.
pub struct AsWord<T>(PhantomData<T>);

impl<T: WarpValue> Decode for AsValue<T> {
    type Output = T;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> T {
        T::from_bits(d)
    }
}
impl<T: WarpValue> Decode for AsValuePred<T> {
    type Output = (T, bool);
    #[inline(always)]
    fn decode(d: u64, p: bool) -> (T, bool) {
        (T::from_bits(d), p)
    }
}
impl Decode for AsBool {
    type Output = bool;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> bool {
        d != 0
    }
}
impl Decode for AsUnit {
    type Output = ();
    #[inline(always)]
    fn decode(_: u64, _: bool) {}
}
impl Decode for AsU32 {
    type Output = u32;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> u32 {
        d as u32
    }
}
impl Decode for AsU32Pred {
    type Output = (u32, bool);
    #[inline(always)]
    fn decode(d: u64, p: bool) -> (u32, bool) {
        (d as u32, p)
    }
}
impl<T: Word> Decode for AsWord<T> {
    type Output = T;
    #[inline(always)]
    fn decode(d: u64, _: bool) -> T {
        T::from_word(d as u32)
    }
}

/// Expands the method list into the host and the device `impl Warp` blocks (see the module docs).
///
/// Syntax: `plain { fn name[generics](&self, args) -> Ret { body } .. }` and
/// `instr { fn name[generics](&self, args) -> Decoder [where bounds] { body } .. }`; generics in
/// brackets, a device-only `where` clause in brackets.
macro_rules! warp_api {
    (
        plain {$(
            $(#[$pattr:meta])*
            fn $pname:ident $([$($pgen:tt)*])? (&$pself:ident $(, $parg:ident : $paty:ty)* $(,)?) -> $pret:ty $pbody:block
        )*}
        instr {$(
            $(#[$attr:meta])*
            fn $name:ident $([$($gen:tt)*])? (&$self_:ident $(, $arg:ident : $aty:ty)* $(,)?) -> $dec:ty
                $([where $($wc:tt)*])? $body:block
        )*}
    ) => {
        #[cfg(not(target_arch = "nvptx64"))]
        impl<'w> crate::handle::Warp<'w> {
            $(
                $(#[$pattr])*
                #[track_caller]
                #[inline(always)]
                pub fn $pname $(<$($pgen)*>)? (&$pself $(, $parg: $paty)*) -> $pret {
                    #[allow(unused_imports)]
                    use crate::handle::fam;
                    $pbody
                }
            )*
            $(
                $(#[$attr])*
                #[track_caller]
                #[inline(always)]
                pub fn $name $(<$($gen)*>)? (&$self_ $(, $arg: $aty)*) -> crate::handle::Intrinsic<'w, $dec> {
                    use crate::handle::fam;
                    fam::finish($self_, $body)
                }
            )*
        }

        #[cfg(target_arch = "nvptx64")]
        impl<'w> crate::device::Warp<'w> {
            $(
                $(#[$pattr])*
                #[inline(always)]
                pub fn $pname $(<$($pgen)*>)? (&$pself $(, $parg: $paty)*) -> $pret {
                    #[allow(unused_imports)]
                    use crate::device::fam;
                    $pbody
                }
            )*
            $(
                $(#[$attr])*
                #[inline(always)]
                pub fn $name $(<$($gen)*>)? (&$self_ $(, $arg: $aty)*) -> <$dec as Decode>::Output
                $(where $($wc)*)?
                {
                    use crate::device::fam;
                    let (d, p) = $body;
                    <$dec as Decode>::decode(d, p)
                }
            )*
        }
    };
}

warp_api! {
plain {
    // ---- lane registers ----

    /// `%laneid`: this lane's index in the warp, 0..32.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.lane_id()).unwrap();
    /// assert_eq!(out, core::array::from_fn(|l| l as u32));
    /// ```
    fn lane_id(&self) -> u32 {
        fam::lane_id(self)
    }
    /// `%lanemask_eq`: the bit of this lane.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.lanemask_eq()).unwrap();
    /// for l in 0..32 {
    ///     assert_eq!(out[l], 1u32 << l);
    /// }
    /// ```
    fn lanemask_eq(&self) -> u32 {
        fam::lanemask_eq(self)
    }
    /// `%lanemask_lt`: the bits of lower lanes.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.lanemask_lt()).unwrap();
    /// for l in 0..32u32 {
    ///     let want: u32 = (0..l).map(|i| 1u32 << i).sum();
    ///     assert_eq!(out[l as usize], want);
    /// }
    /// ```
    fn lanemask_lt(&self) -> u32 {
        fam::lanemask_lt(self)
    }
    /// `%lanemask_le`: the bits of this and lower lanes.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.lanemask_le()).unwrap();
    /// for l in 0..32u32 {
    ///     let want: u32 = (0..=l).map(|i| 1u32 << i).sum();
    ///     assert_eq!(out[l as usize], want);
    /// }
    /// ```
    fn lanemask_le(&self) -> u32 {
        fam::lanemask_le(self)
    }
    /// `%lanemask_gt`: the bits of higher lanes.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.lanemask_gt()).unwrap();
    /// for l in 0..32u32 {
    ///     let want: u32 = (l + 1..32).map(|i| 1u32 << i).sum();
    ///     assert_eq!(out[l as usize], want);
    /// }
    /// ```
    fn lanemask_gt(&self) -> u32 {
        fam::lanemask_gt(self)
    }
    /// `%lanemask_ge`: the bits of this and higher lanes.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.lanemask_ge()).unwrap();
    /// for l in 0..32u32 {
    ///     let want: u32 = (l..32).map(|i| 1u32 << i).sum();
    ///     assert_eq!(out[l as usize], want);
    /// }
    /// ```
    fn lanemask_ge(&self) -> u32 {
        fam::lanemask_ge(self)
    }

    // ---- launch position ----

    /// `%tid`: this thread's index in its block (CUDA's `threadIdx`).
    ///
    /// ```
    /// use warp_runtime::{Dim3, Grid, Warp};
    /// // 2 blocks of 4 x 8 threads; thread rank 13 of block 1 is x = 13 % 4, y = 13 / 4.
    /// let out = Grid::blocks(2, (4, 8)).map(async |w: &Warp<'_>| w.tid()).unwrap();
    /// assert_eq!(out[32 + 13], Dim3::new(13 % 4, 13 / 4, 0));
    /// ```
    fn tid(&self) -> Dim3 {
        fam::tid(self)
    }
    /// `%ntid`: the block's size (CUDA's `blockDim`).
    ///
    /// ```
    /// use warp_runtime::{Dim3, Grid, Warp};
    /// let out = Grid::blocks(3, (8, 4, 2)).map(async |w: &Warp<'_>| w.ntid()).unwrap();
    /// assert_eq!(out.len(), 3 * 8 * 4 * 2);
    /// assert!(out.iter().all(|&d| d == Dim3::new(8, 4, 2)));
    /// ```
    fn ntid(&self) -> Dim3 {
        fam::ntid(self)
    }
    /// `%ctaid`: the block's index in the grid (CUDA's `blockIdx`).
    ///
    /// ```
    /// use warp_runtime::{Dim3, Grid, Warp};
    /// // A 2 x 3 grid of 32-thread blocks: block rank 5 is x = 5 % 2, y = 5 / 2.
    /// let out = Grid::blocks((2, 3), 32).map(async |w: &Warp<'_>| w.ctaid()).unwrap();
    /// assert_eq!(out[32 * 5], Dim3::new(5 % 2, 5 / 2, 0));
    /// ```
    fn ctaid(&self) -> Dim3 {
        fam::ctaid(self)
    }
    /// `%nctaid`: the grid's size in blocks (CUDA's `gridDim`).
    ///
    /// ```
    /// use warp_runtime::{Dim3, Grid, Warp};
    /// let out = Grid::blocks((2, 3), 32).map(async |w: &Warp<'_>| w.nctaid()).unwrap();
    /// assert!(out.iter().all(|&d| d == Dim3::new(2, 3, 1)));
    /// ```
    fn nctaid(&self) -> Dim3 {
        fam::nctaid(self)
    }
    /// This thread's rank in its block: `tid.x + ntid.x * (tid.y + ntid.y * tid.z)`. Warp `k` of
    /// the block holds ranks `32k .. 32k + 32`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, (8, 8)).map(async |w: &Warp<'_>| (w.tid(), w.thread_rank())).unwrap();
    /// for (i, (tid, rank)) in out.into_iter().enumerate() {
    ///     assert_eq!(rank, tid.x + 8 * tid.y);
    ///     assert_eq!(rank as usize, i);
    /// }
    /// ```
    fn thread_rank(&self) -> u32 {
        let rank = self.ntid().rank_of(self.tid()) as u32;
        // SAFETY: a block has at most 1024 threads (the launch limit), so its ranks are below
        // 1024 and `warp_in_block` below 32; telling the compiler removes bounds checks on
        // per-warp regions of shared memory.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            core::hint::assert_unchecked(rank < 1024)
        };
        rank
    }
    /// The number of threads in the block: `ntid.x * ntid.y * ntid.z`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(2, (8, 4, 2)).map(async |w: &Warp<'_>| w.block_size()).unwrap();
    /// assert!(out.iter().all(|&n| n == 8 * 4 * 2));
    /// ```
    fn block_size(&self) -> u32 {
        self.ntid().count() as u32
    }
    /// This warp's index in its block: `thread_rank() / 32`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(2, 96).map(async |w: &Warp<'_>| w.warp_in_block()).unwrap();
    /// for (i, warp) in out.into_iter().enumerate() {
    ///     assert_eq!(warp as usize, i % 96 / 32);
    /// }
    /// ```
    fn warp_in_block(&self) -> u32 {
        self.thread_rank() / 32
    }
    /// The block's rank in the grid: `ctaid.x + nctaid.x * (ctaid.y + nctaid.y * ctaid.z)`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks((3, 2), 32).map(async |w: &Warp<'_>| (w.ctaid(), w.block_rank())).unwrap();
    /// for (i, (ctaid, rank)) in out.into_iter().enumerate() {
    ///     assert_eq!(rank, (ctaid.x + 3 * ctaid.y) as u64);
    ///     assert_eq!(rank as usize, i / 32);
    /// }
    /// ```
    fn block_rank(&self) -> u64 {
        self.nctaid().rank_of(self.ctaid())
    }
    /// The warp's index in its launch: `block_rank() * ceil(block_size() / 32) + warp_in_block()`
    /// (for a one-dimensional launch with blocks of a multiple of 32 threads, `global_id() / 32`).
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Blocks of 48 threads: two warps each, the second with 16 lanes.
    /// let out = Grid::blocks(3, 48).map(async |w: &Warp<'_>| w.warp_index()).unwrap();
    /// for (i, warp) in out.into_iter().enumerate() {
    ///     assert_eq!(warp as usize, 2 * (i / 48) + i % 48 / 32);
    /// }
    /// ```
    fn warp_index(&self) -> u64 {
        self.block_rank() * self.block_size().div_ceil(32) as u64 + self.warp_in_block() as u64
    }
    /// This thread's index in a one-dimensional launch: `%ctaid.x * %ntid.x + %tid.x`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(3, 64).map(async |w: &Warp<'_>| w.global_id()).unwrap();
    /// assert_eq!(out, (0..3 * 64).collect::<Vec<u64>>());
    /// ```
    fn global_id(&self) -> u64 {
        fam::global_id(self)
    }

    // ---- clusters (sm_90; see `crate::cluster`) ----

    /// `%cluster_ctarank`: this block's rank in its cluster, `cluster_nctaid.rank_of(cluster_ctaid)`
    /// (0 without a cluster shape). sm_90.
    ///
    /// ```
    /// use warp_runtime::{Dim3, Executor, Grid, Warp};
    /// let sm90 = Executor::new().target("sm_90".parse().unwrap());
    /// let out = Grid::blocks((4, 2), 32).cluster((2, 2)).executor(sm90)
    ///     .map(async |w: &Warp<'_>| (w.cluster_ctarank(), w.cluster_nctarank(), w.clusterid(), w.cluster_ctaid()))
    ///     .unwrap();
    /// // Block (3, 1) is block (1, 1) of cluster (1, 0): rank 3 of 4.
    /// assert_eq!(out[32 * 7], (3, 4, Dim3::new(1, 0, 0), Dim3::new(1, 1, 0)));
    /// ```
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn cluster_ctarank(&self) -> u32 {
        fam::cluster_ctarank(self)
    }
    /// `%cluster_nctarank`: the number of blocks in the cluster (1 without a cluster shape). sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn cluster_nctarank(&self) -> u32 {
        fam::cluster_nctarank(self)
    }
    /// `%clusterid`: the cluster's position in the grid of clusters. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn clusterid(&self) -> Dim3 {
        fam::clusterid(self)
    }
    /// `%nclusterid`: the grid's size in clusters. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn nclusterid(&self) -> Dim3 {
        fam::nclusterid(self)
    }
    /// `%cluster_ctaid`: this block's position in its cluster. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn cluster_ctaid(&self) -> Dim3 {
        fam::cluster_ctaid(self)
    }
    /// `%cluster_nctaid`: the cluster's size in blocks. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn cluster_nctaid(&self) -> Dim3 {
        fam::cluster_nctaid(self)
    }
    /// `%is_explicit_cluster`: whether the launch gave a cluster shape. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn is_explicit_cluster(&self) -> bool {
        fam::is_explicit_cluster(self)
    }
    /// `barrier.cluster.arrive` (`.release`): this thread arrives at the cluster barrier without
    /// waiting for the cluster (it waits for the other non-exited lanes of its warp to arrive).
    /// Each thread arrives once per phase. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn barrier_cluster_arrive(&self) -> crate::cluster::Arrive {
        fam::barrier_cluster_arrive(self, true, false)
    }
    /// `barrier.cluster.arrive.relaxed`: an arrival that orders no memory. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn barrier_cluster_arrive_relaxed(&self) -> crate::cluster::Arrive {
        fam::barrier_cluster_arrive(self, false, false)
    }
    /// `barrier.cluster.arrive.aligned`: every thread of the warp executes this same
    /// instruction. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn barrier_cluster_arrive_aligned(&self) -> crate::cluster::Arrive {
        fam::barrier_cluster_arrive(self, true, true)
    }
    /// `barrier.cluster.arrive.relaxed.aligned`. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn barrier_cluster_arrive_relaxed_aligned(&self) -> crate::cluster::Arrive {
        fam::barrier_cluster_arrive(self, false, true)
    }
    /// `barrier.cluster.wait` (`.acquire`): waits until every non-exited thread of the cluster
    /// has arrived in the phase this thread arrived in. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn barrier_cluster_wait(&self) -> crate::cluster::Wait {
        fam::barrier_cluster_wait(self, false, false)
    }
    /// `barrier.cluster.wait.aligned`. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn barrier_cluster_wait_aligned(&self) -> crate::cluster::Wait {
        fam::barrier_cluster_wait(self, false, true)
    }
    /// `cp.async.commit_group`: the thread's `cp_async`s since its last commit form a group
    /// (`cp_async_wait_group`). sm_80. On the CPU a copy's write happens when its thread waits
    /// for it (here, `cp_async_wait_all`, or a tracking mbarrier arrival), as the thread's write.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    fn cp_async_commit_group(&self) -> () {
        fam::cp_async_group(self, 0, 0)
    }
    /// `cp.async.wait_group N`: waits until at most `N` of the thread's most recent committed
    /// groups are pending (`N` a constant; on the GPU, `N` above 7 waits as 7 does, which never
    /// waits less). sm_80.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    fn cp_async_wait_group[const N: u32](&self) -> () {
        fam::cp_async_group(self, 1, N)
    }
    /// `cp.async.wait_all`: waits until every `cp_async` of the thread has completed. sm_80.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    fn cp_async_wait_all(&self) -> () {
        fam::cp_async_group(self, 2, 0)
    }
    /// `griddepcontrol.launch_dependents`: the grid that depends on this one (a programmatic
    /// dependent launch, [`launch_dependent`](crate::grid::launch_dependent)) may start once
    /// every block of this grid has executed it or completed; a block's further executions
    /// change nothing. It orders no memory. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn griddepcontrol_launch_dependents(&self) -> crate::shared::Mem<()> {
        fam::griddepcontrol_launch_dependents(self)
    }
    /// `griddepcontrol.wait`: waits until every grid this one depends on has completed and its
    /// memory operations are visible to this thread. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn griddepcontrol_wait(&self) -> crate::cluster::GridWait {
        fam::griddepcontrol_wait(self)
    }
    /// `barrier.cluster.arrive` then `barrier.cluster.wait`: CUDA's `cluster.sync()`. sm_90.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn cluster_sync(&self) -> crate::cluster::Wait {
        fam::barrier_cluster_wait(self, true, false)
    }

    // ---- groups ----

    /// The membermask this handle's instructions use.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp, FULL_MASK};
    /// let out = Executor::new()
    ///     .run(async |w: &Warp<'_>| (w.membermask(), w.tile(8).membermask(), w.group(0xf0f0).membermask()))
    ///     .unwrap();
    /// assert_eq!(out[9], (FULL_MASK, 0xff << 8, 0xf0f0));
    /// ```
    fn membermask(&self) -> u32 {
        self.mask
    }
    /// The shuffle segment width: 32 for the warp and for membermask groups, the tile width for
    /// tiles.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.width(), w.tile(4).width(), w.group(0xff).width())).unwrap();
    /// assert_eq!(out[0], (32, 4, 32));
    /// ```
    fn width(&self) -> u32 {
        self.width
    }
    /// This lane's index within its group: `lane % width` for a tile, the number of lower lanes
    /// of the membermask for a group.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.rank(), w.tile(8).rank(), w.group(0xaaaa_aaaa).rank())).unwrap();
    /// // In the group of odd lanes, lanes 1, 3, 5, 7, 9 and 11 are below lane 13.
    /// assert_eq!(out[13], (13, 13 % 8, [1, 3, 5, 7, 9, 11].len() as u32));
    /// ```
    fn rank(&self) -> u32 {
        (self.mask & self.lanemask_lt()).count_ones()
    }
    /// The number of lanes in the group.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.size(), w.tile(4).size(), w.group(0xaaaa_aaaa).size())).unwrap();
    /// assert_eq!(out[0], (32, 4, 16));
    /// ```
    fn size(&self) -> u32 {
        self.mask.count_ones()
    }
    /// The tile of `width` consecutive lanes (a power of two in 1..=32) that holds this lane, like
    /// CUDA's `tiled_partition`: shuffles use the segment of `c` that CUDA's `width` argument sets,
    /// and every instruction uses the tile's lanes as membermask.
    ///
    /// # Panics
    /// If `width` is not a power of two in 1..=32 (`#[warp_kernel]` rejects such constants at
    /// compile time; on the host a panic in a lane is reported by the run, on the GPU it traps).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// // Each tile of 8 lanes sums its lane ids.
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.tile(8).redux_add(w.lane_id()).await).unwrap();
    /// assert_eq!(out[10], (8..16).sum::<u32>());
    /// assert_eq!(out[31], (24..32).sum::<u32>());
    /// ```
    fn tile(&self, width: u32) -> Self {
        assert!(width.is_power_of_two() && width <= 32, "tile width {width} is not a power of two in 1..=32");
        // A tile splits its parent (CUDA's `tiled_partition(parent, n)` requires `n` to be at
        // most the parent's size): `tile(8).tile(16)` silently widened the membermask to lanes
        // the parent does not hold.
        assert!(
            width <= self.width,
            "tile width {width} is wider than its parent tile of {}: a tile splits its parent, it cannot widen it",
            self.width
        );
        let base = self.lane_id() & !(width - 1);
        let lanes = if width == 32 { FULL_MASK } else { ((1u32 << width) - 1) << base };
        // A tile of a group holds only the group's lanes (`group(0xff).tile(32)` is lanes 0-7).
        fam::derive(self, lanes & self.mask, width)
    }
    /// The group of lanes named by `membermask`: its instructions use that membermask, with
    /// whole-warp shuffle segments and lane ids.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// // The even lanes ballot among themselves.
    /// let out = Executor::new()
    ///     .run(async |w: &Warp<'_>| if w.lane_id() % 2 == 0 { Some(w.group(0x5555_5555).ballot(w.lane_id() < 8).await) } else { None })
    ///     .unwrap();
    /// assert_eq!(out[0], Some((1 << 0) | (1 << 2) | (1 << 4) | (1 << 6)));
    /// assert_eq!(out[1], None);
    /// ```
    fn group(&self, membermask: u32) -> Self {
        // A group names lanes of its parent: a tile's group cannot reach past the tile.
        assert!(
            membermask & !self.mask == 0,
            "group({membermask:#010x}) names lanes outside its parent's lanes {:#010x}: a group narrows its parent, it cannot widen it",
            self.mask
        );
        fam::derive(self, membermask, self.width)
    }
}
instr {
    // ---- shfl.sync ----

    /// `shfl.sync.<mode>.b32` with explicit `b` and `c` operands and this handle's membermask:
    /// returns `(d, p)`. An 8-byte value moves as two 32-bit shuffles with the same operands.
    ///
    /// ```
    /// use warp_runtime::{Executor, ShflMode, Warp};
    /// // shfl.sync.down with b = 1, c = 0x1f (the whole warp): lane 31 has no source.
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl(ShflMode::Down, 10 * w.lane_id(), 1, 0x1f).await).unwrap();
    /// assert_eq!(out[4], (10 * 5, true));
    /// assert_eq!(out[31], (10 * 31, false));
    /// ```
    fn shfl[T: WarpValue](&self, mode: ShflMode, value: T, b: u32, c: u32) -> AsValuePred<T> {
        fam::shfl(self, mode, value, b, c, self.mask)
    }
    /// `__shfl_up_sync`: the value of the lane `delta` below, within this handle's segment; a lane
    /// with no such lane keeps its own value.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_up(10 * w.lane_id(), 2).await).unwrap();
    /// for l in 0..32u32 {
    ///     assert_eq!(out[l as usize], if l >= 2 { 10 * (l - 2) } else { 10 * l });
    /// }
    /// ```
    fn shfl_up[T: WarpValue](&self, value: T, delta: u32) -> AsValue<T> {
        fam::shfl_own(self, ShflMode::Up, value, delta)
    }
    /// `__shfl_down_sync`: the value of the lane `delta` above, within this handle's segment.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_down(10 * w.lane_id(), 2).await).unwrap();
    /// for l in 0..32u32 {
    ///     assert_eq!(out[l as usize], if l + 2 < 32 { 10 * (l + 2) } else { 10 * l });
    /// }
    /// ```
    fn shfl_down[T: WarpValue](&self, value: T, delta: u32) -> AsValue<T> {
        fam::shfl_own(self, ShflMode::Down, value, delta)
    }
    /// `__shfl_xor_sync`: the value of lane `lane ^ lane_mask`, within this handle's segment.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_xor(w.lane_id(), 3).await).unwrap();
    /// assert_eq!(out, core::array::from_fn(|l| l as u32 ^ 3));
    /// ```
    fn shfl_xor[T: WarpValue](&self, value: T, lane_mask: u32) -> AsValue<T> {
        fam::shfl_own(self, ShflMode::Bfly, value, lane_mask)
    }
    /// `__shfl_sync`: the value of lane `src_lane` of this handle's segment.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// // An 8-byte value moves whole.
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_idx((w.lane_id() as u64) << 40, 7).await).unwrap();
    /// assert!(out.iter().all(|&v| v == 7 << 40));
    /// ```
    fn shfl_idx[T: WarpValue](&self, value: T, src_lane: u32) -> AsValue<T> {
        fam::shfl_own(self, ShflMode::Idx, value, src_lane)
    }
    /// [`shfl_up`](Self::shfl_up) that also returns the predicate: whether the source lane was in
    /// range (CUB's scans add only when it is).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_up_pred(w.lane_id(), 4).await).unwrap();
    /// assert_eq!(out[9], (9 - 4, true));
    /// assert_eq!(out[3], (3, false));
    /// ```
    fn shfl_up_pred[T: WarpValue](&self, value: T, delta: u32) -> AsValuePred<T> {
        fam::shfl_own(self, ShflMode::Up, value, delta)
    }
    /// [`shfl_down`](Self::shfl_down) with the predicate.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_down_pred(w.lane_id(), 4).await).unwrap();
    /// assert_eq!(out[9], (9 + 4, true));
    /// assert_eq!(out[28], (28, false));
    /// ```
    fn shfl_down_pred[T: WarpValue](&self, value: T, delta: u32) -> AsValuePred<T> {
        fam::shfl_own(self, ShflMode::Down, value, delta)
    }
    /// [`shfl_xor`](Self::shfl_xor) with the predicate.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_xor_pred(w.lane_id(), 5).await).unwrap();
    /// assert_eq!(out[10], (10 ^ 5, true));
    /// // Lanes 0-7 launched, as a tile of 8: `lane ^ 8` lies past the segment, so each keeps its value.
    /// let out = Executor::new().run_partial(0xff, async |w: &Warp<'_>| w.tile(8).shfl_xor_pred(w.lane_id(), 8).await).unwrap();
    /// assert_eq!(out[3], Some((3, false)));
    /// ```
    fn shfl_xor_pred[T: WarpValue](&self, value: T, lane_mask: u32) -> AsValuePred<T> {
        fam::shfl_own(self, ShflMode::Bfly, value, lane_mask)
    }
    /// [`shfl_idx`](Self::shfl_idx) with the predicate.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.tile(8).shfl_idx_pred(10 * w.lane_id(), 3).await).unwrap();
    /// assert_eq!(out[13], (10 * (8 + 3), true));
    /// ```
    fn shfl_idx_pred[T: WarpValue](&self, value: T, src_lane: u32) -> AsValuePred<T> {
        fam::shfl_own(self, ShflMode::Idx, value, src_lane)
    }
    /// CUDA's `__shfl_up_sync(mask, var, delta, width)`, exactly: explicit membermask and width.
    /// A `width` that is not a power of two in 1..=32 is undefined in CUDA; on the host it is a
    /// panic in the lane, which the run reports.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp, FULL_MASK};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_up_sync(FULL_MASK, w.lane_id(), 1, 8).await).unwrap();
    /// for l in 0..32u32 {
    ///     assert_eq!(out[l as usize], if l % 8 == 0 { l } else { l - 1 });
    /// }
    /// ```
    fn shfl_up_sync[T: WarpValue](&self, mask: u32, value: T, delta: u32, width: u32) -> AsValue<T> {
        fam::check_width(width);
        fam::shfl(self, ShflMode::Up, value, delta, width_c(ShflMode::Up, width), mask)
    }
    /// CUDA's `__shfl_down_sync(mask, var, delta, width)`.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp, FULL_MASK};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_down_sync(FULL_MASK, w.lane_id(), 1, 8).await).unwrap();
    /// for l in 0..32u32 {
    ///     assert_eq!(out[l as usize], if l % 8 == 7 { l } else { l + 1 });
    /// }
    /// ```
    fn shfl_down_sync[T: WarpValue](&self, mask: u32, value: T, delta: u32, width: u32) -> AsValue<T> {
        fam::check_width(width);
        fam::shfl(self, ShflMode::Down, value, delta, width_c(ShflMode::Down, width), mask)
    }
    /// CUDA's `__shfl_xor_sync(mask, var, lane_mask, width)`.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp, FULL_MASK};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.shfl_xor_sync(FULL_MASK, w.lane_id(), 2, 4).await).unwrap();
    /// assert_eq!(out, core::array::from_fn(|l| l as u32 ^ 2));
    /// ```
    fn shfl_xor_sync[T: WarpValue](&self, mask: u32, value: T, lane_mask: u32, width: u32) -> AsValue<T> {
        fam::check_width(width);
        fam::shfl(self, ShflMode::Bfly, value, lane_mask, width_c(ShflMode::Bfly, width), mask)
    }
    /// CUDA's `__shfl_sync(mask, var, src_lane, width)`.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// // Lanes 0-15 only, in segments of 8: each reads lane 5 of its segment.
    /// let out = Executor::new()
    ///     .run(async |w: &Warp<'_>| if w.lane_id() < 16 { w.shfl_idx_sync(0xffff, 10 * w.lane_id(), 5, 8).await } else { 0 })
    ///     .unwrap();
    /// assert_eq!((out[3], out[12]), (10 * 5, 10 * (8 + 5)));
    /// ```
    fn shfl_idx_sync[T: WarpValue](&self, mask: u32, value: T, src_lane: u32, width: u32) -> AsValue<T> {
        fam::check_width(width);
        fam::shfl(self, ShflMode::Idx, value, src_lane, width_c(ShflMode::Idx, width), mask)
    }

    // ---- vote.sync ----

    /// `vote.sync.<mode>` with the source predicate `pred`, negated first when `negate` (`{!}a`).
    /// Returns the ballot mask for [`VoteMode::Ballot`], 0 or 1 for the others.
    ///
    /// ```
    /// use warp_runtime::{Executor, VoteMode, Warp};
    /// let out = Executor::new()
    ///     .run(async |w: &Warp<'_>| (w.vote(VoteMode::Ballot, w.lane_id() < 4, true).await, w.vote(VoteMode::All, w.lane_id() < 4, false).await))
    ///     .unwrap();
    /// assert_eq!(out[0], (!0b1111, 0));
    /// ```
    fn vote(&self, mode: VoteMode, pred: bool, negate: bool) -> AsU32 {
        fam::vote(self, mode, pred ^ negate, self.mask)
    }
    /// `vote.sync.ballot.b32` (`__ballot_sync`): bit `i` is lane `i`'s predicate; lanes outside
    /// the membermask contribute 0.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.ballot(w.lane_id() % 3 == 0).await).unwrap();
    /// let want: u32 = (0..32).filter(|l| l % 3 == 0).map(|l| 1u32 << l).sum();
    /// assert!(out.iter().all(|&b| b == want));
    /// ```
    fn ballot(&self, pred: bool) -> AsU32 {
        fam::vote(self, VoteMode::Ballot, pred, self.mask)
    }
    /// `vote.sync.all.pred` (`__all_sync`).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.all(w.lane_id() < 32).await, w.all(w.lane_id() < 31).await)).unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn all(&self, pred: bool) -> AsBool {
        fam::vote(self, VoteMode::All, pred, self.mask)
    }
    /// `vote.sync.any.pred` (`__any_sync`).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.any(w.lane_id() == 17).await, w.any(w.lane_id() > 31).await)).unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn any(&self, pred: bool) -> AsBool {
        fam::vote(self, VoteMode::Any, pred, self.mask)
    }
    /// `vote.sync.uni.pred` (`__uni_sync`).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.uni(w.lane_id() > 99).await, w.uni(w.lane_id() < 16).await)).unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn uni(&self, pred: bool) -> AsBool {
        fam::vote(self, VoteMode::Uni, pred, self.mask)
    }
    /// `vote.sync.all.pred d, !a`: true when no lane's predicate is true.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.none(w.lane_id() > 31).await, w.none(w.lane_id() == 0).await)).unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn none(&self, pred: bool) -> AsBool {
        fam::vote(self, VoteMode::All, !pred, self.mask)
    }
    /// `vote.sync.any.pred d, !a`: true when some lane's predicate is false.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.not_all(w.lane_id() < 31).await, w.not_all(w.lane_id() < 32).await)).unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn not_all(&self, pred: bool) -> AsBool {
        fam::vote(self, VoteMode::Any, !pred, self.mask)
    }
    /// The deprecated `vote.<mode>` without `.sync`: over the lanes that execute this call
    /// together. Only targets below sm_70 have it (on nvptx64 for sm_70 and above, a compile
    /// error naming the replacement).
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, VoteMode, Warp};
    /// // sm_60: the vote covers the lanes executing it together, here lanes 0-7.
    /// let out = Executor::new()
    ///     .target(Target::SM_60)
    ///     .run(async |w: &Warp<'_>| if w.lane_id() < 8 { w.vote_legacy(VoteMode::Ballot, true).await } else { 0 })
    ///     .unwrap();
    /// assert_eq!(out[0], 0xff);
    /// ```
    fn vote_legacy(&self, mode: VoteMode, pred: bool) -> AsU32 [where Self: HasLegacyVote] {
        fam::vote_legacy(self, mode, pred)
    }

    // ---- match.sync ----

    /// `match.any.sync` (`__match_any_sync`): the lanes of the membermask holding the same value
    /// (`.b32` for 4-byte types, `.b64` for 8-byte types, compared on all bits). sm_70.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.match_any(w.lane_id() / 8).await).unwrap();
    /// for l in 0..32u32 {
    ///     let want: u32 = (0..32).filter(|i| i / 8 == l / 8).map(|i| 1u32 << i).sum();
    ///     assert_eq!(out[l as usize], want);
    /// }
    /// ```
    fn match_any[T: WarpValue](&self, value: T) -> AsU32 [where Self: HasMatchSync] {
        fam::match_any(self, value, self.mask)
    }
    /// `match.all.sync` (`__match_all_sync`): `(d, p)`: the non-exited lanes of the membermask
    /// and true if they all hold the same value, else `(0, false)`. sm_70.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp, FULL_MASK};
    /// let out = Executor::new().run(async |w: &Warp<'_>| (w.match_all(7u64).await, w.match_all(w.lane_id()).await)).unwrap();
    /// assert_eq!(out[0], ((FULL_MASK, true), (0, false)));
    /// ```
    fn match_all[T: WarpValue](&self, value: T) -> AsU32Pred [where Self: HasMatchSync] {
        fam::match_all(self, value, self.mask)
    }

    // ---- redux.sync ----

    /// `redux.sync.add.{u32,s32}` (`__reduce_add_sync`): the wrapping sum over the membermask
    /// (sm_80; below it, a `vote.sync.ballot` and a `shfl.sync.idx` tree that computes the same).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.redux_add(w.lane_id() as i32 - 20).await).unwrap();
    /// assert!(out.iter().all(|&s| s == (0..32).map(|l| l - 20).sum::<i32>()));
    /// ```
    fn redux_add[T: ReduxInt](&self, value: T) -> AsWord<T> {
        fam::redux_int(self, ReduxOp::Add, T::TYPE, value.to_word(), self.mask)
    }
    /// `redux.sync.min` on `u32`, `i32` (sm_80) or `f32` (sm_100a; NaN inputs skipped).
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let ints = Executor::new().run(async |w: &Warp<'_>| w.redux_min(w.lane_id() as i32 - 10).await).unwrap();
    /// assert_eq!(ints[0], -10);
    /// // f32 needs sm_100a; a NaN input is skipped.
    /// let floats = Executor::new()
    ///     .target(Target::SM_100A)
    ///     .run(async |w: &Warp<'_>| w.redux_min(if w.lane_id() == 0 { f32::NAN } else { w.lane_id() as f32 }).await)
    ///     .unwrap();
    /// assert_eq!(floats[0], 1.0);
    /// ```
    fn redux_min[T: ReduxMinMax](&self, value: T) -> AsWord<T> {
        fam::redux_min_max(self, T::TYPE, false, value.to_word(), self.mask)
    }
    /// `redux.sync.max` on `u32`, `i32` (sm_80) or `f32` (sm_100a; NaN inputs skipped).
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let ints = Executor::new().run(async |w: &Warp<'_>| w.redux_max(w.lane_id() * 7 % 32).await).unwrap();
    /// assert_eq!(ints[0], (0..32).map(|l| l * 7 % 32).max().unwrap());
    /// // f32 needs sm_100a.
    /// let floats = Executor::new().target(Target::SM_100A).run(async |w: &Warp<'_>| w.redux_max(-(w.lane_id() as f32)).await).unwrap();
    /// assert_eq!(floats[0], 0.0);
    /// ```
    fn redux_max[T: ReduxMinMax](&self, value: T) -> AsWord<T> {
        fam::redux_min_max(self, T::TYPE, true, value.to_word(), self.mask)
    }
    /// `redux.sync.and.b32` (`__reduce_and_sync`).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.redux_and(0xff00 | w.lane_id()).await).unwrap();
    /// assert_eq!(out[0], (0..32).fold(!0, |a, l| a & (0xff00 | l)));
    /// ```
    fn redux_and[T: ReduxBits](&self, value: T) -> AsWord<T> {
        fam::redux_int(self, ReduxOp::And, crate::semantics::redux::ReduxType::B32, value.to_word(), self.mask)
    }
    /// `redux.sync.or.b32` (`__reduce_or_sync`).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.redux_or(1u32 << (w.lane_id() % 4)).await).unwrap();
    /// assert_eq!(out[0], 0b1111);
    /// ```
    fn redux_or[T: ReduxBits](&self, value: T) -> AsWord<T> {
        fam::redux_int(self, ReduxOp::Or, crate::semantics::redux::ReduxType::B32, value.to_word(), self.mask)
    }
    /// `redux.sync.xor.b32` (`__reduce_xor_sync`).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| w.redux_xor(3 * w.lane_id() + 1).await).unwrap();
    /// assert_eq!(out[0], (0..32).fold(0, |a, l| a ^ (3 * l + 1)));
    /// ```
    fn redux_xor[T: ReduxBits](&self, value: T) -> AsWord<T> {
        fam::redux_int(self, ReduxOp::Xor, crate::semantics::redux::ReduxType::B32, value.to_word(), self.mask)
    }
    /// `redux.sync.{min,max}{.abs}{.NaN}.f32` with explicit qualifiers (sm_100a; below it, a
    /// shuffle tree with the same rules).
    ///
    /// ```
    /// use warp_runtime::{Executor, FloatRedux, Target, Warp};
    /// let max_abs = FloatRedux { max: true, abs: true, nan: false };
    /// let out = Executor::new()
    ///     .target(Target::SM_100A)
    ///     .run(async |w: &Warp<'_>| w.redux_f32(w.lane_id() as f32 - 20.0, max_abs).await)
    ///     .unwrap();
    /// assert_eq!(out[0], (0..32).map(|l| (l as f32 - 20.0).abs()).fold(0.0, f32::max));
    /// ```
    fn redux_f32(&self, value: f32, qualifiers: FloatRedux) -> AsWord<f32> {
        fam::redux_f32(self, qualifiers, value.to_bits(), self.mask)
    }
    /// `redux.sync.min.abs.f32`: the least absolute value.
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let out = Executor::new().target(Target::SM_100A).run(async |w: &Warp<'_>| w.redux_min_abs(w.lane_id() as f32 - 20.5).await).unwrap();
    /// assert_eq!(out[0], 0.5);
    /// ```
    fn redux_min_abs(&self, value: f32) -> AsWord<f32> {
        fam::redux_f32(self, FloatRedux { max: false, abs: true, nan: false }, value.to_bits(), self.mask)
    }
    /// `redux.sync.max.abs.f32`: the greatest absolute value.
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let out = Executor::new().target(Target::SM_100A).run(async |w: &Warp<'_>| w.redux_max_abs(w.lane_id() as f32 - 40.0).await).unwrap();
    /// assert_eq!(out[0], 40.0);
    /// ```
    fn redux_max_abs(&self, value: f32) -> AsWord<f32> {
        fam::redux_f32(self, FloatRedux { max: true, abs: true, nan: false }, value.to_bits(), self.mask)
    }
    /// `redux.sync.min.NaN.f32`: the minimum, or the canonical NaN if any input is NaN.
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let out = Executor::new()
    ///     .target(Target::SM_100A)
    ///     .run(async |w: &Warp<'_>| {
    ///         let x = w.lane_id() as f32 + 3.0;
    ///         (w.redux_min_nan(x).await, w.redux_min_nan(if w.lane_id() == 5 { f32::NAN } else { x }).await)
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0].0, 3.0);
    /// assert!(out[0].1.is_nan());
    /// ```
    fn redux_min_nan(&self, value: f32) -> AsWord<f32> {
        fam::redux_f32(self, FloatRedux { max: false, abs: false, nan: true }, value.to_bits(), self.mask)
    }
    /// `redux.sync.max.NaN.f32`: the maximum, or the canonical NaN if any input is NaN.
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let out = Executor::new()
    ///     .target(Target::SM_100A)
    ///     .run(async |w: &Warp<'_>| {
    ///         let x = w.lane_id() as f32 + 3.0;
    ///         (w.redux_max_nan(x).await, w.redux_max_nan(if w.lane_id() == 5 { f32::NAN } else { x }).await)
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0].0, 34.0);
    /// assert!(out[0].1.is_nan());
    /// ```
    fn redux_max_nan(&self, value: f32) -> AsWord<f32> {
        fam::redux_f32(self, FloatRedux { max: true, abs: false, nan: true }, value.to_bits(), self.mask)
    }
    /// `redux.sync.min.abs.NaN.f32`.
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let out = Executor::new()
    ///     .target(Target::SM_100A)
    ///     .run(async |w: &Warp<'_>| {
    ///         let x = -(w.lane_id() as f32) - 1.0;
    ///         (w.redux_min_abs_nan(x).await, w.redux_min_abs_nan(if w.lane_id() == 5 { f32::NAN } else { x }).await)
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0].0, 1.0);
    /// assert!(out[0].1.is_nan());
    /// ```
    fn redux_min_abs_nan(&self, value: f32) -> AsWord<f32> {
        fam::redux_f32(self, FloatRedux { max: false, abs: true, nan: true }, value.to_bits(), self.mask)
    }
    /// `redux.sync.max.abs.NaN.f32`.
    ///
    /// ```
    /// use warp_runtime::{Executor, Target, Warp};
    /// let out = Executor::new()
    ///     .target(Target::SM_100A)
    ///     .run(async |w: &Warp<'_>| {
    ///         let x = -(w.lane_id() as f32) - 1.0;
    ///         (w.redux_max_abs_nan(x).await, w.redux_max_abs_nan(if w.lane_id() == 5 { f32::NAN } else { x }).await)
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0].0, 32.0);
    /// assert!(out[0].1.is_nan());
    /// ```
    fn redux_max_abs_nan(&self, value: f32) -> AsWord<f32> {
        fam::redux_f32(self, FloatRedux { max: true, abs: true, nan: true }, value.to_bits(), self.mask)
    }

    // ---- activemask, bar.warp.sync, elect.sync ----

    /// `activemask.b32` (`__activemask`): the lanes executing this call together with this lane.
    /// Not a synchronization point.
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// let out = Executor::new().run(async |w: &Warp<'_>| if w.lane_id() < 10 { w.activemask().await } else { 0 }).unwrap();
    /// assert_eq!(out[3], (1 << 10) - 1);
    /// ```
    fn activemask(&self) -> AsU32 {
        fam::activemask(self)
    }
    /// `bar.warp.sync` (`__syncwarp`) over this handle's membermask.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 32)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, l) = (w.shared_array::<u32, 32>(), w.lane_id() as usize);
    ///         s.store(l, (l * l) as u32);
    ///         w.syncwarp().await;
    ///         s.load(31 - l)
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[2], 29 * 29);
    /// ```
    fn syncwarp(&self) -> AsUnit {
        fam::syncwarp(self, self.mask)
    }
    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.<scope>.sync.aligned
    /// [dst], [src], 128` (sm_90): copies the 128 bytes of `src` from element `src_i` to `dst`
    /// from element `dst_i` (a tensor map being updated in shared memory, to global memory),
    /// then fences them toward the tensor-map proxy at `scope`, so that a later
    /// `fence.proxy.tensormap::generic.acquire` and TMA use see them. Every lane of the warp
    /// executes it together (`.sync.aligned`: call it on the whole warp's handle, in converged
    /// code), each with the same operands.
    ///
    /// On the CPU the lanes' copies are one `.relaxed` store per element at `scope` (the
    /// lanes of one instruction writing the same bytes do not race), then the lanes meet as at
    /// `bar.warp.sync`. The proxy fence has no CPU effect: there is no tensor-map proxy (no TMA)
    /// on the CPU.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    fn tensormap_cp_fenceproxy[T: crate::GlobalValue + crate::shared::dev::SharedAsm](&self, dst: crate::GlobalSlice<'_, T>, dst_i: usize, src: crate::SharedSlice<'_, T>, src_i: usize, scope: crate::sem::Scope) -> AsUnit {
        fam::tensormap_cp_fenceproxy(self, dst, dst_i, src, src_i, scope)
    }
    /// `elect.sync d|p` over this handle's membermask: `(leader lane id, whether this lane is the
    /// leader)`. The leader is the lowest non-exited lane of the membermask (sm_90; below it, one
    /// `vote.sync.ballot`, electing the same lane).
    ///
    /// ```
    /// use warp_runtime::{Executor, Warp};
    /// // Lanes 0-2 have exited: lane 3 is the leader.
    /// let out = Executor::new().run(async |w: &Warp<'_>| if w.lane_id() < 3 { None } else { Some(w.elect().await) }).unwrap();
    /// assert_eq!((out[3], out[9], out[0]), (Some((3, true)), Some((3, false)), None));
    /// ```
    fn elect(&self) -> AsU32Pred {
        fam::elect(self, self.mask)
    }

    // ---- bar / barrier: CTA barriers (9.7.13.1) ----

    /// `bar.sync a` (`barrier.sync.aligned`): wait until every non-exited thread of the block has
    /// arrived at barrier `a` (0..=15). Aligned: every thread of the block executes this same
    /// call, and each warp executes it converged.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, t) = (w.shared_array::<u32, 64>(), w.thread_rank() as usize);
    ///         s.store(t, 2 * t as u32);
    ///         w.bar_sync(0).await;
    ///         s.load(63 - t)
    ///     })
    ///     .unwrap();
    /// assert!((0..64).all(|t| out[t] == 2 * (63 - t) as u32));
    /// ```
    fn bar_sync(&self, a: u32) -> AsUnit {
        fam::bar(self, BarKind::Sync, true, a, None, false, false)
    }
    /// `bar.sync a, b`: wait until `b` threads (a multiple of 32, counted a whole warp at a time)
    /// have arrived at barrier `a`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Warps 0-1 and warps 2-3 each synchronize on a barrier of their own.
    /// let out = Grid::blocks(1, 128)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, t) = (w.shared_array::<u32, 128>(), w.thread_rank() as usize);
    ///         s.store(t, t as u32);
    ///         w.bar_sync_count(1 + w.warp_in_block() / 2, 64).await;
    ///         s.load(t ^ 32)
    ///     })
    ///     .unwrap();
    /// assert!((0..128).all(|t| out[t] == (t ^ 32) as u32));
    /// ```
    fn bar_sync_count(&self, a: u32, b: u32) -> AsUnit {
        fam::bar(self, BarKind::Sync, true, a, Some(b), false, false)
    }
    /// `barrier.sync a`: [`bar_sync`](Self::bar_sync) without `.aligned`: the threads of a warp may
    /// reach barrier `a` from different calls (sm_70 and later; below sm_70 it is aligned).
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Not aligned: the even and the odd threads of each warp reach the barrier from different calls.
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, t) = (w.shared_array::<u32, 64>(), w.thread_rank() as usize);
    ///         s.store(t, 2 * t as u32);
    ///         if t % 2 == 0 { w.barrier_sync(1).await } else { w.barrier_sync(1).await };
    ///         s.load(63 - t)
    ///     })
    ///     .unwrap();
    /// assert!((0..64).all(|t| out[t] == 2 * (63 - t) as u32));
    /// ```
    fn barrier_sync(&self, a: u32) -> AsUnit {
        fam::bar(self, BarKind::Sync, false, a, None, false, false)
    }
    /// `barrier.sync a, b`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Warps 0-1 and warps 2-3 each synchronize on a barrier of their own.
    /// let out = Grid::blocks(1, 128)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, t) = (w.shared_array::<u32, 128>(), w.thread_rank() as usize);
    ///         s.store(t, t as u32);
    ///         w.barrier_sync_count(1 + w.warp_in_block() / 2, 64).await;
    ///         s.load(t ^ 32)
    ///     })
    ///     .unwrap();
    /// assert!((0..128).all(|t| out[t] == (t ^ 32) as u32));
    /// ```
    fn barrier_sync_count(&self, a: u32, b: u32) -> AsUnit {
        fam::bar(self, BarKind::Sync, false, a, Some(b), false, false)
    }
    /// `bar.arrive a, b`: announce this warp's arrival at barrier `a` of `b` threads and go on
    /// without waiting (the producer's half of a producer/consumer pair).
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Warp 0 produces and goes on; warp 1 waits for it at barrier 1 (64 threads).
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, l) = (w.shared_array::<u32, 32>(), w.lane_id() as usize);
    ///         if w.warp_in_block() == 0 {
    ///             s.store(l, 100 + l as u32);
    ///             w.bar_arrive(1, 64).await;
    ///             0
    ///         } else {
    ///             w.bar_sync_count(1, 64).await;
    ///             s.load(l)
    ///         }
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[32 + 5], 100 + 5);
    /// ```
    fn bar_arrive(&self, a: u32, b: u32) -> AsUnit {
        fam::bar(self, BarKind::Arrive, true, a, Some(b), false, false)
    }
    /// `barrier.arrive a, b`: [`bar_arrive`](Self::bar_arrive) without `.aligned`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Warp 0 produces and goes on; warp 1 waits for it at barrier 1 (64 threads).
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, l) = (w.shared_array::<u32, 32>(), w.lane_id() as usize);
    ///         if w.warp_in_block() == 0 {
    ///             s.store(l, 100 + l as u32);
    ///             w.barrier_arrive(1, 64).await;
    ///             0
    ///         } else {
    ///             w.barrier_sync_count(1, 64).await;
    ///             s.load(l)
    ///         }
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[32 + 5], 100 + 5);
    /// ```
    fn barrier_arrive(&self, a: u32, b: u32) -> AsUnit {
        fam::bar(self, BarKind::Arrive, false, a, Some(b), false, false)
    }
    /// `bar.red.<op> d, a, {!}c`: `bar.sync a`, and the reduction of the participating threads'
    /// predicates `c` (negated first when `negate`): a count for [`BarRed::Popc`], 0 or 1 for
    /// [`BarRed::And`] and [`BarRed::Or`].
    ///
    /// ```
    /// use warp_runtime::{BarRed, Grid, Warp};
    /// let out = Grid::blocks(1, 96)
    ///     .map(async |w: &Warp<'_>| {
    ///         let t = w.thread_rank();
    ///         (w.bar_red(BarRed::Popc, 0, t % 3 == 0, false).await, w.bar_red(BarRed::And, 0, t >= 96, true).await)
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0], ((0..96).filter(|t| t % 3 == 0).count() as u32, 1));
    /// ```
    fn bar_red(&self, op: BarRed, a: u32, c: bool, negate: bool) -> AsU32 {
        fam::bar(self, BarKind::Red(op), true, a, None, c, negate)
    }
    /// `bar.red.<op> d, a, b, {!}c`: [`bar_red`](Self::bar_red) over `b` threads.
    ///
    /// ```
    /// use warp_runtime::{BarRed, Grid, Warp};
    /// // Warps 0-1 and warps 2-3 count on barriers of their own.
    /// let out = Grid::blocks(1, 128)
    ///     .map(async |w: &Warp<'_>| w.bar_red_count(BarRed::Popc, 1 + w.warp_in_block() / 2, 64, w.thread_rank() < 40, false).await)
    ///     .unwrap();
    /// assert_eq!((out[0], out[127]), (40, 0));
    /// ```
    fn bar_red_count(&self, op: BarRed, a: u32, b: u32, c: bool, negate: bool) -> AsU32 {
        fam::bar(self, BarKind::Red(op), true, a, Some(b), c, negate)
    }
    /// `barrier.red.<op> d, a, {!}c`: [`bar_red`](Self::bar_red) without `.aligned`.
    ///
    /// ```
    /// use warp_runtime::{BarRed, Grid, Warp};
    /// let out = Grid::blocks(1, 96)
    ///     .map(async |w: &Warp<'_>| {
    ///         let t = w.thread_rank();
    ///         (w.barrier_red(BarRed::Or, 2, t == 77, false).await, w.barrier_red(BarRed::Popc, 2, t < 10, true).await)
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0], (1, 96 - 10));
    /// ```
    fn barrier_red(&self, op: BarRed, a: u32, c: bool, negate: bool) -> AsU32 {
        fam::bar(self, BarKind::Red(op), false, a, None, c, negate)
    }
    /// `barrier.red.<op> d, a, b, {!}c`.
    ///
    /// ```
    /// use warp_runtime::{BarRed, Grid, Warp};
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| w.barrier_red_count(BarRed::Popc, 3, 64, w.thread_rank() % 4 == 0, true).await)
    ///     .unwrap();
    /// assert_eq!(out[0], (0..64).filter(|t| t % 4 != 0).count() as u32);
    /// ```
    fn barrier_red_count(&self, op: BarRed, a: u32, b: u32, c: bool, negate: bool) -> AsU32 {
        fam::bar(self, BarKind::Red(op), false, a, Some(b), c, negate)
    }
    /// `bar.red.popc.u32 d, a, c`: how many threads of the block have `c` true.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Each block counts its own threads: block 1 has one more below the bound.
    /// let out = Grid::blocks(2, 64).map(async |w: &Warp<'_>| w.bar_red_popc(0, w.thread_rank() < 10 + w.ctaid().x).await).unwrap();
    /// assert_eq!((out[0], out[64]), (10, 11));
    /// ```
    fn bar_red_popc(&self, a: u32, c: bool) -> AsU32 {
        fam::bar(self, BarKind::Red(BarRed::Popc), true, a, None, c, false)
    }
    /// `bar.red.and.pred d, a, c`: whether `c` holds in every thread of the block.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| (w.bar_red_and(0, w.thread_rank() < 64).await, w.bar_red_and(0, w.thread_rank() < 63).await))
    ///     .unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn bar_red_and(&self, a: u32, c: bool) -> AsBool {
        fam::bar(self, BarKind::Red(BarRed::And), true, a, None, c, false)
    }
    /// `bar.red.or.pred d, a, c`: whether `c` holds in some thread of the block.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| (w.bar_red_or(0, w.thread_rank() == 63).await, w.bar_red_or(0, w.thread_rank() > 63).await))
    ///     .unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn bar_red_or(&self, a: u32, c: bool) -> AsBool {
        fam::bar(self, BarKind::Red(BarRed::Or), true, a, None, c, false)
    }
    /// CUDA's `__syncthreads()`: `bar.sync 0`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 96)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (s, t) = (w.shared_array::<u32, 96>(), w.thread_rank() as usize);
    ///         s.store(t, 2 * t as u32);
    ///         w.sync_threads().await;
    ///         s.load(95 - t)
    ///     })
    ///     .unwrap();
    /// assert!((0..96).all(|t| out[t] == 2 * (95 - t) as u32));
    /// ```
    fn sync_threads(&self) -> AsUnit {
        fam::bar(self, BarKind::Sync, true, 0, None, false, false)
    }
    /// CUDA's `__syncthreads_count(c)`: `bar.red.popc.u32 d, 0, c`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(2, 64).map(async |w: &Warp<'_>| w.sync_threads_count(w.thread_rank() % 5 == 0).await).unwrap();
    /// assert!(out.iter().all(|&n| n == (0..64).filter(|t| t % 5 == 0).count() as u32));
    /// ```
    fn sync_threads_count(&self, c: bool) -> AsU32 {
        fam::bar(self, BarKind::Red(BarRed::Popc), true, 0, None, c, false)
    }
    /// CUDA's `__syncthreads_and(c)`: `bar.red.and.pred d, 0, c`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| (w.sync_threads_and(w.thread_rank() < 64).await, w.sync_threads_and(w.thread_rank() != 7).await))
    ///     .unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn sync_threads_and(&self, c: bool) -> AsBool {
        fam::bar(self, BarKind::Red(BarRed::And), true, 0, None, c, false)
    }
    /// CUDA's `__syncthreads_or(c)`: `bar.red.or.pred d, 0, c`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 64)
    ///     .map(async |w: &Warp<'_>| (w.sync_threads_or(w.thread_rank() == 7).await, w.sync_threads_or(w.thread_rank() > 63).await))
    ///     .unwrap();
    /// assert_eq!(out[0], (true, false));
    /// ```
    fn sync_threads_or(&self, c: bool) -> AsBool {
        fam::bar(self, BarKind::Red(BarRed::Or), true, 0, None, c, false)
    }
}
}
