//! The shape of a launch, shared by the GPU and the CPU runtime.

use warp_runtime::{Dim3, Executor, Grid};

/// A launch's shape, as CUDA (and cudarc's `LaunchConfig`) has it: grid dimensions in blocks,
/// block dimensions in threads, and the bytes of dynamic shared memory per block. The GPU side
/// launches exactly this; the CPU side runs the same shape ([`cpu_grid`](Self::cpu_grid)).
///
/// ```
/// use warpkit::{Dim3, LaunchConfig};
///
/// // 70 threads in blocks of 32: three blocks on the GPU.
/// let c = LaunchConfig::threads(70);
/// assert_eq!((c.grid_dim(), c.block_dim(), c.shared_bytes()), (Dim3::new(3, 1, 1), Dim3::new(32, 1, 1), 0));
/// let c = LaunchConfig::blocks((8, 8), 256).dynamic_shared_bytes(1024);
/// assert_eq!((c.grid_dim(), c.block_dim(), c.shared_bytes()), (Dim3::new(8, 8, 1), Dim3::new(256, 1, 1), 1024));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    grid: Dim3,
    block: Dim3,
    shared_bytes: u32,
    /// For [`threads`](Self::threads): the threads asked for. The GPU launches whole blocks of 32;
    /// the CPU runtime's `Grid::new(n)` has the same blocks, its last one partial.
    threads: Option<u32>,
    /// The cluster shape, if the launch has one ([`cluster_dims`](Self::cluster_dims)).
    cluster: Option<Dim3>,
    /// Whether the launch may start before the previous one in its stream has completed
    /// ([`programmatic_dependent`](Self::programmatic_dependent)).
    programmatic: bool,
}

impl LaunchConfig {
    /// `n` threads, one-dimensional, in blocks of 32 (one warp each): `ceil(n / 32)` blocks. On the
    /// GPU the last block is whole, and its threads past `n` must return at once (a kernel checks
    /// `w.global_id()` against its buffers' lengths); the CPU runtime launches exactly `n`
    /// (`Grid::new(n)`, whose last block is partial).
    pub fn threads(n: u32) -> LaunchConfig {
        LaunchConfig { grid: Dim3::new(n.div_ceil(32), 1, 1), block: Dim3::new(32, 1, 1), shared_bytes: 0, threads: Some(n), cluster: None, programmatic: false }
    }

    /// `grid` blocks of `block` threads, in one to three dimensions: `blocks(64, 256)`,
    /// `blocks((8, 8), (16, 16))`.
    pub fn blocks(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> LaunchConfig {
        LaunchConfig { grid: grid.into(), block: block.into(), shared_bytes: 0, threads: None, cluster: None, programmatic: false }
    }

    /// The bytes of dynamic shared memory each block gets.
    pub fn dynamic_shared_bytes(mut self, bytes: u32) -> LaunchConfig {
        self.shared_bytes = bytes;
        self
    }

    /// Groups the blocks into clusters of `dims` blocks (sm_90): on the GPU the launch attribute
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`, on the CPU [`Grid::cluster`]. The grid must be a
    /// whole number of clusters.
    ///
    /// ```
    /// use warpkit::{Dim3, LaunchConfig};
    /// let c = LaunchConfig::blocks(8, 128).cluster_dims(4);
    /// assert_eq!(c.cluster_dim(), Some(Dim3::new(4, 1, 1)));
    /// ```
    pub fn cluster_dims(mut self, dims: impl Into<Dim3>) -> LaunchConfig {
        self.cluster = Some(dims.into());
        self
    }

    /// The cluster shape, if the launch has one.
    pub fn cluster_dim(&self) -> Option<Dim3> {
        self.cluster
    }

    /// Makes the launch the dependent of a programmatic dependent launch (sm_90): on the GPU the
    /// launch attribute `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`, so that it may
    /// start once every block of the previous launch in the stream has executed
    /// `griddepcontrol.launch_dependents` or completed. The CPU side of such a pair is
    /// [`launch_dependent`](warp_runtime::grid::launch_dependent).
    pub fn programmatic_dependent(mut self) -> LaunchConfig {
        self.programmatic = true;
        self
    }

    /// Whether the launch is a programmatic dependent launch's dependent.
    pub fn is_programmatic_dependent(&self) -> bool {
        self.programmatic
    }

    /// The grid's dimensions, in blocks.
    pub fn grid_dim(&self) -> Dim3 {
        self.grid
    }

    /// A block's dimensions, in threads.
    pub fn block_dim(&self) -> Dim3 {
        self.block
    }

    /// Dynamic shared memory per block, in bytes.
    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// Every thread the GPU launches.
    pub fn gpu_threads(&self) -> u64 {
        self.grid.count() * self.block.count()
    }

    /// The CPU runtime's grid for this launch, each warp run by `executor`.
    ///
    /// This is the one place the launch shape reaches the CPU runtime: [`threads`](Self::threads)
    /// as `Grid::new(n)`, [`blocks`](Self::blocks) as `Grid::blocks(grid, block)` with the dynamic
    /// shared memory.
    pub fn cpu_grid(&self, executor: Executor) -> Grid {
        let grid = match self.threads {
            Some(n) => Grid::new(n as u64),
            None => Grid::blocks(self.grid, self.block),
        };
        let grid = grid.dynamic_shared_bytes(self.shared_bytes).executor(executor);
        match self.cluster {
            Some(c) => grid.cluster(c),
            None => grid,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{GlobalBuffer, Warp};

    /// Both shapes number threads as the GPU does (`%ctaid * %ntid + %tid` in one dimension, x
    /// fastest in three), and launch what they say.
    #[test]
    fn the_cpu_grid_has_the_launch_shape() {
        let ids = |c: LaunchConfig| {
            let grid = c.cpu_grid(Executor::new());
            let seen = GlobalBuffer::<u32>::zeroed(grid.threads() as usize);
            let s = seen.slice();
            grid.run(async |w: &Warp<'_>| {
                s.atomic_add(w.global_id() as usize, 1).await;
            })
            .unwrap();
            seen.to_vec()
        };
        assert_eq!(ids(LaunchConfig::threads(70)), vec![1; 70]);
        assert_eq!(ids(LaunchConfig::blocks(3, 64)), vec![1; 192]);
        assert_eq!(LaunchConfig::blocks((2, 3), (64, 2)).cpu_grid(Executor::new()).threads(), 2 * 3 * 64 * 2);
        let shared = LaunchConfig::blocks(1, 32).dynamic_shared_bytes(256).cpu_grid(Executor::new());
        assert_eq!(shared.shared_bytes(), 256);
        assert_eq!(shared.block_dim(), Dim3::new(32, 1, 1));
    }
}
