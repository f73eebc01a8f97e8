//! The shape of a launch, shared by the GPU and the CPU runtime.

use warp_runtime::{Executor, Grid};

/// A launch's shape, as CUDA (and cudarc's `LaunchConfig`) has it: grid dimensions in blocks,
/// block dimensions in threads, and the bytes of dynamic shared memory per block.
///
/// ```
/// use warpkit::LaunchConfig;
///
/// // 70 threads in blocks of 32: three blocks on the GPU.
/// let c = LaunchConfig::threads(70);
/// assert_eq!((c.grid_dim(), c.block_dim(), c.shared_bytes()), ((3, 1, 1), (32, 1, 1), 0));
/// let c = LaunchConfig::blocks((8, 1, 1), (256, 1, 1)).dynamic_shared_bytes(1024);
/// assert_eq!((c.grid_dim(), c.block_dim(), c.shared_bytes()), ((8, 1, 1), (256, 1, 1), 1024));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared_bytes: u32,
    /// For [`threads`](Self::threads): the threads asked for, which the CPU runtime launches
    /// exactly (a partial last warp) while the GPU rounds up to whole blocks of 32.
    threads: Option<u64>,
}

impl LaunchConfig {
    /// `n` threads, one-dimensional, in blocks of 32 (one warp each): `ceil(n / 32)` blocks on the
    /// GPU, whose threads past `n` must return at once (a kernel checks `w.global_id()` against
    /// its buffers' lengths); the CPU runtime launches exactly `n`, its last warp partial.
    pub fn threads(n: u32) -> LaunchConfig {
        LaunchConfig { grid: (n.div_ceil(32), 1, 1), block: (32, 1, 1), shared_bytes: 0, threads: Some(n as u64) }
    }

    /// `grid` blocks of `block` threads.
    pub fn blocks(grid: (u32, u32, u32), block: (u32, u32, u32)) -> LaunchConfig {
        LaunchConfig { grid, block, shared_bytes: 0, threads: None }
    }

    /// The bytes of dynamic shared memory each block gets.
    pub fn dynamic_shared_bytes(mut self, bytes: u32) -> LaunchConfig {
        self.shared_bytes = bytes;
        self
    }

    /// The grid's dimensions, in blocks.
    pub fn grid_dim(&self) -> (u32, u32, u32) {
        self.grid
    }

    /// A block's dimensions, in threads.
    pub fn block_dim(&self) -> (u32, u32, u32) {
        self.block
    }

    /// Dynamic shared memory per block, in bytes.
    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// Every thread the GPU launches.
    pub fn gpu_threads(&self) -> u64 {
        let (g, b) = (self.grid, self.block);
        [g.0, g.1, g.2, b.0, b.1, b.2].iter().map(|&d| d as u64).product()
    }

    /// The CPU runtime's grid for this launch, each warp run by `executor`.
    ///
    /// BLOCK LAUNCHES: this is the one place the launch shape reaches the CPU runtime. Until the
    /// runtime has `Grid::blocks(grid, block).dynamic_shared_bytes(bytes)`, it runs one-dimensional
    /// grids of warps: `threads(n)` as `Grid::new(n)`, and `blocks(..)` as `Grid::new` of all its
    /// threads, which numbers them as the GPU does (`ctaid.x * ntid.x + tid.x`) only for a
    /// one-dimensional shape whose blocks are whole warps.
    ///
    /// # Panics
    /// For a shape that `Grid::new` cannot model yet: two- or three-dimensional, blocks that are
    /// not whole warps, or dynamic shared memory.
    pub fn cpu_grid(&self, executor: Executor) -> Grid {
        let threads = match self.threads {
            Some(n) => n,
            None => {
                let one_d = self.grid.1 == 1 && self.grid.2 == 1 && self.block.1 == 1 && self.block.2 == 1;
                assert!(
                    one_d && self.block.0 % 32 == 0 && self.shared_bytes == 0,
                    "the CPU runtime runs one-dimensional grids of whole-warp blocks without shared memory until block launches land; got {self:?}"
                );
                self.gpu_threads()
            }
        };
        Grid::new(threads).executor(executor)
    }
}
