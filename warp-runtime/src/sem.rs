//! Memory-ordering qualifiers of PTX memory operations: `.sem` and `.scope` (both targets).
//!
//! Strong operations (atomics, `.relaxed`/`.acquire`/`.release` loads and stores, `.volatile`
//! ones) carry a [`Sem`] and a [`Scope`]; on nvptx64 they become the instruction's qualifiers, on
//! the host the race detector ([`crate::race`]) uses them to decide what two accesses race and what
//! synchronizes.

/// The memory-ordering semantics of a strong memory operation (PTX `.sem`, 8.4 and 9.7.13.5).
///
/// An atomic without `.sem` is `.relaxed`; a load may be `.relaxed` or `.acquire`, a store
/// `.relaxed` or `.release`; a read-modify-write any of the four.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sem {
    /// `.relaxed`: atomic on its location, orders nothing else.
    Relaxed,
    /// `.acquire`: later operations of the thread are ordered after it, and a release it reads
    /// from is ordered before them.
    Acquire,
    /// `.release`: earlier operations of the thread are ordered before it (and before any
    /// acquire that reads from it).
    Release,
    /// `.acq_rel`: both.
    AcqRel,
}

impl Sem {
    /// The PTX qualifier without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            Sem::Relaxed => "relaxed",
            Sem::Acquire => "acquire",
            Sem::Release => "release",
            Sem::AcqRel => "acq_rel",
        }
    }

    /// Whether it releases (`.release`, `.acq_rel`).
    pub const fn releases(self) -> bool {
        matches!(self, Sem::Release | Sem::AcqRel)
    }

    /// Whether it acquires (`.acquire`, `.acq_rel`).
    pub const fn acquires(self) -> bool {
        matches!(self, Sem::Acquire | Sem::AcqRel)
    }
}

/// The set of threads a strong operation is atomic and ordered with (PTX `.scope`, 8.5).
///
/// Without clusters a CTA is its own cluster, so `.cluster` covers the same threads as `.cta`;
/// a launch is one GPU, so `.gpu` and `.sys` cover every thread of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Scope {
    /// `.cta`: the threads of the executing thread's block.
    Cta,
    /// `.cluster`: the threads of the executing thread's cluster.
    Cluster,
    /// `.gpu`: every thread of the program on the same GPU (the default of `atom`).
    Gpu,
    /// `.sys`: every thread of the program, host included.
    Sys,
}

impl Scope {
    /// The PTX qualifier without the dot.
    pub const fn name(self) -> &'static str {
        match self {
            Scope::Cta => "cta",
            Scope::Cluster => "cluster",
            Scope::Gpu => "gpu",
            Scope::Sys => "sys",
        }
    }

    /// Whether a thread of block `other` is in this scope of a thread of block `own` (blocks as
    /// linear indices), in a launch without clusters, where `.cluster` is the block. (The race
    /// detector knows a launch's clusters.)
    #[inline(always)]
    pub const fn includes(self, own: u64, other: u64) -> bool {
        match self {
            Scope::Cta | Scope::Cluster => own == other,
            Scope::Gpu | Scope::Sys => true,
        }
    }
}
