//! Launch geometry: three-dimensional sizes and indices, as CUDA's `dim3` and PTX's `%tid`,
//! `%ntid`, `%ctaid` and `%nctaid`.
//!
//! The threads of a block are numbered x fastest, then y, then z: thread `(x, y, z)` of a block of
//! `(nx, ny, nz)` has rank `x + nx * (y + ny * z)`, and warp `w` of the block holds ranks
//! `32w .. 32w + 32` (the last warp is partial when the block size is not a multiple of 32). Blocks
//! are numbered the same way in the grid.

use core::fmt;

/// A size or an index in three dimensions.
///
/// ```
/// use warp_runtime::Dim3;
///
/// assert_eq!(Dim3::from(256), Dim3 { x: 256, y: 1, z: 1 });
/// assert_eq!(Dim3::from((16, 16)).count(), 256);
/// assert_eq!(Dim3::from((4, 2, 3)).rank_of(Dim3 { x: 1, y: 1, z: 2 }), 1 + 4 * (1 + 2 * 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x, the fastest-varying dimension.
    pub x: u32,
    /// y.
    pub y: u32,
    /// z.
    pub z: u32,
}

impl Dim3 {
    /// `(x, y, z)`.
    pub const fn new(x: u32, y: u32, z: u32) -> Dim3 {
        Dim3 { x, y, z }
    }

    /// The number of points of a size: `x * y * z`.
    pub const fn count(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// The rank of index `i` in a size `self`: `i.x + x * (i.y + y * i.z)`.
    pub const fn rank_of(self, i: Dim3) -> u64 {
        i.x as u64 + self.x as u64 * (i.y as u64 + self.y as u64 * i.z as u64)
    }

    /// The index of rank `r` in a size `self` (the inverse of [`rank_of`](Dim3::rank_of)).
    pub const fn index_of(self, r: u64) -> Dim3 {
        let x = self.x as u64;
        // A rank in the first row (every rank of a one-dimensional size) needs no division: a
        // lane's `tid` and a block's `ctaid` are read at every `global_id`, and three 64-bit
        // divisions cost more than the rest of a lane's stretch of a small kernel.
        if r < x {
            return Dim3 { x: r as u32, y: 0, z: 0 };
        }
        let xy = x * self.y as u64;
        Dim3 { x: (r % x) as u32, y: (r % xy / x) as u32, z: (r / xy) as u32 }
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Dim3 {
        Dim3 { x, y: 1, z: 1 }
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Dim3 {
        Dim3 { x, y, z: 1 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Dim3 {
        Dim3 { x, y, z }
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_index_are_inverse() {
        let size = Dim3::new(5, 3, 2);
        for r in 0..size.count() {
            assert_eq!(size.rank_of(size.index_of(r)), r);
        }
        assert_eq!(size.index_of(7), Dim3::new(2, 1, 0));
        // The first row's shortcut agrees with the divisions, on sizes of one, two and three
        // dimensions.
        for size in [Dim3::new(7, 1, 1), Dim3::new(1, 4, 3), Dim3::new(3, 4, 1), Dim3::new(32, 2, 2)] {
            let (x, xy) = (size.x as u64, size.x as u64 * size.y as u64);
            for r in 0..size.count() {
                assert_eq!(size.index_of(r), Dim3::new((r % x) as u32, (r % xy / x) as u32, (r / xy) as u32), "{size} rank {r}");
            }
        }
    }
}
