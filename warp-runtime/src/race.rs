//! The race detector: shadow state for shared and global memory, at lane granularity.
//!
//! Every host memory access of a kernel (plain, volatile, relaxed/acquire/release, atomic)
//! calls [`access`] with its location ([`Loc`]) and what it is ([`Access`]).

use crate::error::Site;
use crate::mem::Space;
use crate::sem::{Scope, Sem};

/// Whether an access reads, writes, or both (an atomic read-modify-write, `red` included).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A load.
    Load,
    /// A store.
    Store,
    /// A read-modify-write: an atomic (`atom`, `red`).
    Rmw,
}

/// The strength of an access in the PTX memory model (8.4): weak (a plain `ld`/`st`), or strong
/// with its semantics and scope (`.volatile` is `.relaxed` at `.sys` scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// A plain (weak) access.
    Weak,
    /// A strong access.
    Strong {
        /// Its semantics.
        sem: Sem,
        /// Its scope.
        scope: Scope,
    },
}

impl Order {
    /// A `.volatile` access: `.relaxed` at `.sys` scope for the memory model.
    pub(crate) const VOLATILE: Order = Order::Strong { sem: Sem::Relaxed, scope: Scope::Sys };
    /// An atomic without qualifiers: `.relaxed` at `.gpu` scope.
    pub(crate) const ATOMIC: Order = Order::Strong { sem: Sem::Relaxed, scope: Scope::Gpu };
}

/// What an access is: its mnemonic (for reports), whether it reads or writes, and its order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Access {
    /// The PTX mnemonic, as reports show it (`st.global.u32`, `atom.add`, `ld.acquire.gpu`).
    pub op: &'static str,
    /// Load, store or read-modify-write.
    pub kind: Kind,
    /// Weak, or strong with `.sem` and `.scope`.
    pub order: Order,
}

/// The shadow state of one buffer (global) or one block's shared memory.
pub(crate) struct Shadow {
    _units: usize,
}

impl Shadow {
    /// The shadow of `units` units (global: elements; shared: 4-byte words). Allocates nothing
    /// until the detector first records an access.
    pub(crate) fn new(units: usize) -> Shadow {
        Shadow { _units: units }
    }
}

/// Where an access is: units `first..first + units` of `shadow` (global memory: elements of the
/// whole buffer; shared memory: 4-byte words of the arena), and the element index the kernel
/// used (for reports).
#[derive(Clone, Copy)]
pub(crate) struct Loc<'s> {
    /// The shadow of the buffer or arena.
    pub shadow: &'s Shadow,
    /// The state space.
    pub space: Space,
    /// The first unit.
    pub first: usize,
    /// How many units.
    pub units: usize,
    /// The index the kernel used.
    pub index: usize,
}

/// Performs `op`, a kernel's access `access` at `loc` made at `site`, and records it. `op` does
/// the memory operation and returns its result with the value it read or wrote (the bits,
/// zero-extended; for a read-modify-write, the old value). The detector runs `op` while it holds
/// the location's shadow, so that on several CPU threads the order the detector sees is the order
/// memory saw (a release store and the acquire load that reads it).
///
/// Every host memory access of a kernel goes through here: plain loads and stores, volatile and
/// ordered loads and stores, every atomic and `red`. Outside a run (a host-side access), or with
/// the detector off, it only runs `op`.
#[inline(always)]
pub(crate) fn access<R>(loc: Loc<'_>, access: Access, site: Site, op: impl FnOnce() -> (R, u64)) -> R {
    let _ = (loc, access, site);
    op().0
}
