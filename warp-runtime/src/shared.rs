//! Shared memory: per-block arrays that every thread of a block can read and write.
//!
//! A kernel declares a **static shared array** with [`Warp::shared_array`](crate::Warp::shared_array)
//! (CUDA's `__shared__ T a[N]`): every call at one place in the source, by any thread of a block,
//! names the same array, and each block has its own instance. **Dynamic shared memory** is sized
//! by the launch ([`Grid::dynamic_shared_bytes`](crate::Grid::dynamic_shared_bytes), CUDA's third
//! launch parameter) and viewed with [`Warp::dynamic_shared`](crate::Warp::dynamic_shared) or
//! [`Warp::dynamic_shared_at`](crate::Warp::dynamic_shared_at) (CUDA's `extern __shared__`).
//! Both give a [`SharedSlice`], the shared-memory counterpart of
//! [`GlobalSlice`](crate::GlobalSlice).
//!
//! ```
//! use warp_runtime::{Grid, GlobalBuffer, Warp};
//!
//! // Reverse each block's 64 values through shared memory.
//! let input = GlobalBuffer::from_slice(&(0..128u32).collect::<Vec<_>>());
//! let output = GlobalBuffer::<u32>::zeroed(128);
//! let (x, y) = (input.slice(), output.slice());
//! Grid::blocks(2, 64)
//!     .run(async |w: &Warp<'_>| {
//!         let tile = w.shared_array::<u32, 64>();
//!         let (t, base) = (w.thread_rank() as usize, 64 * w.ctaid().x as usize);
//!         tile.store(t, x.load(base + t));
//!         w.sync_threads().await;
//!         y.store(base + t, tile.load(63 - t));
//!     })
//!     .unwrap();
//! assert_eq!(output.to_vec()[0], 63);
//! assert_eq!(output.to_vec()[127], 64);
//! ```
//!
//! # What the host checks
//!
//! Every access checks its index; an index past the end ends the run with
//! [`WarpError::Memory`](crate::WarpError::Memory) naming the lane, the access and where the array
//! was declared. Shared memory is uninitialized when a block starts (the hardware leaves whatever
//! the previous block wrote): reading an element that no thread of the block has written is
//! reported the same way, as compute-sanitizer's initcheck does for global memory. A view of
//! dynamic shared memory that is not aligned for its type, or reaches past what the launch gave,
//! is reported when it is made. Static arrays may use 48 KiB per block and all shared memory
//! 227 KiB (an H100's limits).
//!
//! # On the GPU
//!
//! A `SharedSlice` is a `.shared` address and a length; `load`/`store` are one `ld.shared` /
//! `st.shared` each, atomics one `atom.shared`. Each `shared_array` call site becomes a `.shared`
//! variable of the PTX module (`#[warp_kernel]` declares it; the element type and length must
//! not depend on the function's generic parameters), and dynamic shared memory is the module's
//! `extern .shared` array placed after them. Indices are checked there too (`trap`).
//!
//! # Atomics
//!
//! Every scalar `atom`/`red` of [`GlobalSlice`](crate::GlobalSlice) exists here as
//! `atom.shared`/`red.shared`, with the same traits, `.sem`/`.scope` forms and formulas (see
//! [`crate::atomic`]), except the vector forms, which PTX has on global memory only. Two results
//! differ by space, as the spec and an H100 say: `atomic_add` on `f32` keeps subnormal inputs
//! and results here (global memory flushes them), and an `f64` add with a NaN returns the NaN in
//! memory with its quiet bit set (global memory returns operand `b`'s unchanged). Like the global
//! ones (and [`load_volatile`](SharedSlice::load_volatile)) they are scheduling points on the
//! host: `#[warp_kernel]` awaits them, and other warps of the block run before the lane goes on,
//! so that spin-waits between warps complete. An atomic on an element no thread of the block has
//! written reads uninitialized memory and is reported like a load.

use core::marker::PhantomData;

use crate::global::GlobalValue;
#[cfg(not(target_arch = "nvptx64"))]
use crate::error::Site;
#[cfg(not(target_arch = "nvptx64"))]
use crate::mem::MemOp;

/// Static shared memory a block may declare: 48 KiB.
pub const STATIC_SHARED_LIMIT: usize = 48 * 1024;
/// All shared memory a block may use: 227 KiB (an H100's maximum per block).
pub const SHARED_LIMIT: usize = 227 * 1024;

/// What an atomic or a volatile load returns: on the host a [`MemOp`](crate::mem::MemOp) future
/// (a scheduling point that `#[warp_kernel]` awaits), on the GPU the value itself.
#[cfg(not(target_arch = "nvptx64"))]
pub type Mem<T> = MemOp<T>;
/// What an atomic or a volatile load returns: on the host a `MemOp` future (a scheduling point
/// that `#[warp_kernel]` awaits), on the GPU the value itself.
#[cfg(target_arch = "nvptx64")]
pub type Mem<T> = T;

/// A view of `len` elements of `T` in the block's shared memory.
pub struct SharedSlice<'w, T: GlobalValue> {
    #[cfg(not(target_arch = "nvptx64"))]
    arena: &'w Arena,
    /// The first element's byte offset in the arena (host) or its `.shared` address (device).
    #[cfg(not(target_arch = "nvptx64"))]
    offset: usize,
    #[cfg(target_arch = "nvptx64")]
    addr: u64,
    len: usize,
    /// Where the array was declared or the view made.
    #[cfg(not(target_arch = "nvptx64"))]
    decl: Site,
    _memory: PhantomData<&'w [T]>,
}

impl<T: GlobalValue> Clone for SharedSlice<'_, T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: GlobalValue> Copy for SharedSlice<'_, T> {}

impl<T: GlobalValue> core::fmt::Debug for SharedSlice<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let mut d = f.debug_struct("SharedSlice");
        d.field("len", &self.len);
        #[cfg(not(target_arch = "nvptx64"))]
        d.field("offset", &self.offset).field("declared", &format_args!("{}", self.decl));
        d.finish()
    }
}

/// The integer element types: `u32`, `i32`, `u64`, `i64` (every operation of `atom` but the
/// float ones). The shared-memory atomics now take the same traits as the global ones
/// ([`AtomicAdd`](crate::AtomicAdd), ...); this trait stays for code that names it.
pub trait SharedInt: crate::atomic::AtomicMinMax + crate::atomic::AtomicBits + crate::atomic::AtomicAdd + dev::SharedAsm {
    #[doc(hidden)]
    const SIGNED: bool;
}
impl SharedInt for u32 {
    const SIGNED: bool = false;
}
impl SharedInt for i32 {
    const SIGNED: bool = true;
}
impl SharedInt for u64 {
    const SIGNED: bool = false;
}
impl SharedInt for i64 {
    const SIGNED: bool = true;
}

// ---------------------------------------------------------------------------------------------
// Host: a byte arena per block, with a bit per byte saying whether a thread of the block wrote it.
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use host::Arena;

#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use core::cell::{Cell, OnceCell, RefCell};

    use super::*;
    use crate::mem::{self, LaneFault, Space};
    use crate::race::{self, Access, Kind, Loc, Order};

    /// One block's shared memory: static arrays from offset 0, dynamic shared memory from
    /// [`STATIC_SHARED_LIMIT`]. Allocated at the first access (a kernel without shared memory
    /// costs nothing) and reused by the next block of the same slot.
    pub(crate) struct Arena {
        /// The bytes, as words (8-byte aligned).
        words: OnceCell<Box<[Cell<u64>]>>,
        /// Bit `i % 64` of word `i / 64`: byte `i` was written by a thread of the current block.
        written: OnceCell<Box<[Cell<u64>]>>,
        /// The static arrays declared so far: (call site, element size, length, byte offset).
        statics: RefCell<Vec<(Site, usize, usize, usize)>>,
        /// The bytes of static arrays declared so far.
        static_end: Cell<usize>,
        /// The bytes of dynamic shared memory the launch gives each block.
        dynamic: usize,
        /// The race detector's state of each 4-byte word.
        shadow: crate::race::Shadow,
        /// The mbarrier objects initialized in this block.
        pub(crate) mbarriers: crate::mbarrier::Table,
        /// `cp.async` copies issued and not yet complete, and each thread's last committed group.
        copies: RefCell<Copies>,
    }

    /// The block's pending `cp.async` copies.
    #[derive(Default)]
    struct Copies {
        pending: Vec<PendingCopy>,
        /// Per thread (warp, lane): the number of its last committed group.
        groups: Vec<((u32, u32), u32)>,
    }

    /// A copy whose write has not happened: it happens when its thread waits for it.
    struct PendingCopy {
        thread: (u32, u32),
        /// 0 while not committed; then the thread's group number (from 1).
        group: u32,
        at: usize,
        bytes: usize,
        bits: u128,
        index: usize,
        site: Site,
    }

    impl Arena {
        pub(crate) fn new(dynamic: usize) -> Arena {
            Arena {
                words: OnceCell::new(),
                written: OnceCell::new(),
                statics: RefCell::new(Vec::new()),
                static_end: Cell::new(0),
                dynamic,
                shadow: crate::race::Shadow::new((STATIC_SHARED_LIMIT + dynamic).div_ceil(4)),
                mbarriers: Default::default(),
                copies: RefCell::new(Copies::default()),
            }
        }

        fn words(&self) -> &[Cell<u64>] {
            self.words.get_or_init(|| (0..(STATIC_SHARED_LIMIT + self.dynamic).div_ceil(8)).map(|_| Cell::new(0)).collect())
        }

        fn written(&self) -> &[Cell<u64>] {
            self.written.get_or_init(|| (0..(STATIC_SHARED_LIMIT + self.dynamic).div_ceil(64)).map(|_| Cell::new(0)).collect())
        }

        /// Whether no thread used this shared memory (nothing allocated, declared, initialized
        /// or copied, no access recorded): as [`new`](Self::new) made it.
        pub(crate) fn untouched(&self) -> bool {
            let copies = self.copies.borrow();
            self.words.get().is_none()
                && self.written.get().is_none()
                && self.statics.borrow().is_empty()
                && self.static_end.get() == 0
                && self.shadow.untouched()
                && self.mbarriers.untouched()
                && copies.pending.is_empty()
                && copies.groups.is_empty()
        }

        /// Forgets what the previous block wrote: shared memory is uninitialized for the next.
        pub(crate) fn reset(&self) {
            if let Some(w) = self.written.get() {
                w.iter().for_each(|c| c.set(0));
            }
            self.mbarriers.reset();
            let mut c = self.copies.borrow_mut();
            c.pending.clear();
            c.groups.clear();
        }

        /// A `cp.async` of the running thread: `bytes` bytes `bits` to byte `at` (element `index`
        /// of its view), written when the thread waits for it.
        pub(crate) fn defer_copy(&self, at: usize, bytes: usize, bits: u128, index: usize, site: Site) {
            let Some(thread) = thread() else { return self.write_at("cp.async (write)", at, bytes, bits, index, Order::Weak, site) };
            self.copies.borrow_mut().pending.push(PendingCopy { thread, group: 0, at, bytes, bits, index, site });
        }

        /// `cp.async.commit_group` (`commit`), `cp.async.wait_group n` (`wait = Some(n)`) or the
        /// completion of every copy of the thread (`wait_all`, a tracking mbarrier arrival).
        pub(crate) fn copy_group(&self, commit: bool, wait: Option<u32>) {
            let Some(thread) = thread() else { return };
            let done: Vec<PendingCopy> = {
                let mut c = self.copies.borrow_mut();
                let last = c.groups.iter().find(|(t, _)| *t == thread).map_or(0, |&(_, g)| g);
                if commit {
                    let next = last + 1;
                    c.pending.iter_mut().filter(|p| p.thread == thread && p.group == 0).for_each(|p| p.group = next);
                    match c.groups.iter_mut().find(|(t, _)| *t == thread) {
                        Some(g) => g.1 = next,
                        None => c.groups.push((thread, next)),
                    }
                    return;
                }
                // wait_group n: every committed group but the newest n; wait_all: every copy.
                let keep = |p: &PendingCopy| match wait {
                    Some(n) => p.group == 0 || p.group + n > last,
                    None => false,
                };
                let (mine, rest): (Vec<_>, Vec<_>) = c.pending.drain(..).partition(|p| p.thread == thread && !keep(p));
                c.pending = rest;
                mine
            };
            for p in done {
                self.write_at("cp.async (write)", p.at, p.bytes, p.bits, p.index, Order::Weak, p.site);
            }
        }

        /// A store of order `order` of `bytes` bytes `bits` at byte `at` by the running thread,
        /// made at `site` (element `index` of the view, for reports): the one place a store to
        /// shared memory happens.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        fn write_at(&self, op: &'static str, at: usize, bytes: usize, bits: u128, index: usize, order: Order, site: Site) {
            if !self.is_written(at, bytes) || self.read_bits(at, bytes) != bits {
                mem::wrote();
            }
            let loc = || Loc { shadow: &self.shadow, space: Space::Shared, first: at / 4, units: (at + bytes).div_ceil(4) - at / 4, index };
            race::access(loc, move || Access { op, kind: Kind::Store, order }, site, || (self.write_bits(at, bytes, bits), bits as u64));
        }

        /// The bytes of dynamic shared memory.
        pub(crate) fn dynamic_bytes(&self) -> usize {
            self.dynamic
        }

        /// The static array declared at `site` (the same one for every call there).
        pub(crate) fn static_array<'a, T: GlobalValue>(&'a self, n: usize, site: Site) -> SharedSlice<'a, T> {
            let offset = self.declare(site, T::BYTES, n);
            SharedSlice { arena: self, offset, len: n, decl: site, _memory: PhantomData }
        }

        /// The byte offset of the static array of `n` elements of `size` bytes declared at
        /// `site`, declared now if this block has not reached the declaration yet.
        fn declare(&self, site: Site, size: usize, n: usize) -> usize {
            let mut statics = self.statics.borrow_mut();
            let found = statics.iter().find(|(s, sz, len, _)| crate::error::same_place(s, site) && *sz == size && *len == n);
            match found {
                Some(&(.., offset)) => offset,
                None => {
                    let offset = self.static_end.get().next_multiple_of(size.max(4));
                    let end = offset + n * size;
                    if end > STATIC_SHARED_LIMIT {
                        drop(statics);
                        mem::fault(LaneFault::SharedLayout {
                            what: format!(
                                "static shared arrays need {end} bytes per block with this one ({n} x {size} bytes), more than the {STATIC_SHARED_LIMIT} a block may declare"
                            ),
                            site,
                        });
                    }
                    self.static_end.set(end);
                    statics.push((site, size, n, offset));
                    offset
                }
            }
        }

        /// The race detector's generation of this block's shared memory (its accesses from other
        /// blocks of a cluster compare against it).
        pub(crate) fn set_race_generation(&self, generation: u32) {
            self.shadow.set_generation(generation);
        }

        /// `len` elements of dynamic shared memory from byte `byte_offset` (`None`: all of it).
        pub(crate) fn dynamic_view<'a, T: GlobalValue>(&'a self, byte_offset: usize, len: Option<usize>, site: Site) -> SharedSlice<'a, T> {
            let len = len.unwrap_or(self.dynamic.saturating_sub(byte_offset) / T::BYTES);
            if byte_offset % T::BYTES != 0 {
                mem::fault(LaneFault::SharedLayout {
                    what: format!("a view of dynamic shared memory at byte {byte_offset} is not aligned for {}-byte elements", T::BYTES),
                    site,
                });
            }
            if byte_offset.checked_add(len.saturating_mul(T::BYTES)).is_none_or(|end| end > self.dynamic) {
                mem::fault(LaneFault::SharedLayout {
                    what: format!(
                        "a view of {len} {}-byte elements of dynamic shared memory at byte {byte_offset} reaches past the {} bytes the launch gives each block",
                        T::BYTES,
                        self.dynamic
                    ),
                    site,
                });
            }
            SharedSlice { arena: self, offset: STATIC_SHARED_LIMIT + byte_offset, len, decl: site, _memory: PhantomData }
        }

        #[inline(always)]
        fn read_bits(&self, offset: usize, bytes: usize) -> u128 {
            let words = self.words();
            // SAFETY: `offset + bytes` lies in the arena (callers checked the index against a
            // view that lies in it); the pointer covers the whole slice, and cells allow reads
            // through a shared reference on this one thread.
            unsafe {
                let p = (words.as_ptr() as *const u8).add(offset);
                match bytes {
                    2 => (p as *const u16).read_unaligned() as u128,
                    4 => (p as *const u32).read_unaligned() as u128,
                    8 => (p as *const u64).read_unaligned() as u128,
                    _ => (p as *const u128).read_unaligned(),
                }
            }
        }

        #[inline(always)]
        fn write_bits(&self, offset: usize, bytes: usize, bits: u128) {
            let words = self.words();
            // SAFETY: as for `read_bits`; cells allow writes through a shared reference.
            unsafe {
                let p = (words.as_ptr() as *const u8).add(offset) as *mut u8;
                match bytes {
                    2 => (p as *mut u16).write_unaligned(bits as u16),
                    4 => (p as *mut u32).write_unaligned(bits as u32),
                    8 => (p as *mut u64).write_unaligned(bits as u64),
                    _ => (p as *mut u128).write_unaligned(bits),
                }
            }
            let written = self.written();
            for byte in offset..offset + bytes {
                let c = &written[byte / 64];
                c.set(c.get() | 1 << (byte % 64));
            }
        }

        #[inline(always)]
        fn is_written(&self, offset: usize, bytes: usize) -> bool {
            let written = self.written();
            (offset..offset + bytes).all(|byte| written[byte / 64].get() >> (byte % 64) & 1 == 1)
        }
    }

    /// The running thread: its warp in the block and its lane.
    fn thread() -> Option<(u32, u32)> {
        mem::current().map(|(regs, lane)| (regs.pos().warp_in_block, lane))
    }

    impl<'w, T: GlobalValue> SharedSlice<'w, T> {
        #[inline(always)]
        #[track_caller]
        fn offset_of(&self, op: &'static str, i: usize) -> usize {
            if i >= self.len {
                mem::fault(LaneFault::SharedOutOfBounds {
                    op,
                    index: i,
                    len: self.len,
                    declared: self.decl,
                    site: std::panic::Location::caller(),
                });
            }
            self.offset + i * T::BYTES
        }

        /// Element `i`'s byte offset in the block's shared memory, reporting an index out of
        /// bounds.
        #[inline(always)]
        #[track_caller]
        pub(crate) fn byte_offset(&self, op: &'static str, i: usize) -> usize {
            self.offset_of(op, i)
        }

        /// The number of elements.
        #[inline(always)]
        pub(crate) fn elements(&self) -> usize {
            self.len
        }

        /// The block's shared memory.
        #[inline(always)]
        pub(crate) fn arena(&self) -> &'w Arena {
            self.arena
        }

        /// The same elements in `peer`, another block's shared memory (`mapa`): a static array
        /// by its declaration (declared there if that block has not reached it yet), dynamic
        /// shared memory by its offset.
        pub(crate) fn in_arena(&self, peer: &'w Arena) -> SharedSlice<'w, T> {
            if core::ptr::eq(peer, self.arena) {
                return *self;
            }
            let offset = if self.offset >= STATIC_SHARED_LIMIT {
                self.offset
            } else {
                let statics = self.arena.statics.borrow();
                let found = statics.iter().find(|&&(_, size, len, base)| (base..base + size * len.max(1)).contains(&self.offset)).copied();
                drop(statics);
                match found {
                    Some((site, size, len, base)) => peer.declare(site, size, len) + (self.offset - base),
                    None => self.offset,
                }
            };
            SharedSlice { arena: peer, offset, len: self.len, decl: self.decl, _memory: PhantomData }
        }

        /// The race detector's location of element `i` (checked by the caller): the 4-byte words
        /// it covers.
        #[inline(always)]
        pub(crate) fn race_loc(&self, i: usize) -> Loc<'w> {
            let at = self.offset + i * T::BYTES;
            Loc { shadow: &self.arena.shadow, space: Space::Shared, first: at / 4, units: (at + T::BYTES).div_ceil(4) - at / 4, index: i }
        }

        /// Element `i`'s bits, reporting a read of bytes no thread of the block has written.
        #[inline(always)]
        #[track_caller]
        fn read_raw(&self, op: &'static str, i: usize) -> u128 {
            let at = self.offset_of(op, i);
            self.arena.mbarriers.check_plain(op, at, T::BYTES, i);
            if !self.arena.is_written(at, T::BYTES) {
                mem::fault(LaneFault::SharedUninitialized { op, index: i, declared: self.decl, site: std::panic::Location::caller() });
            }
            self.arena.read_bits(at, T::BYTES)
        }

        /// Reads element `i` with a load of order `order`.
        #[inline(always)]
        #[track_caller]
        pub(crate) fn read(&self, op: &'static str, i: usize, order: Order) -> T {
            let bits = self.read_raw(op, i);
            let access = Access { op, kind: Kind::Load, order };
            race::access(|| self.race_loc(i), move || access, std::panic::Location::caller(), || (T::from_bits128(bits), bits as u64))
        }

        /// Writes element `i` with a store of order `order`.
        #[inline(always)]
        #[track_caller]
        pub(crate) fn write(&self, op: &'static str, i: usize, value: T, order: Order) {
            let at = self.offset_of(op, i);
            self.arena.mbarriers.check_plain(op, at, T::BYTES, i);
            self.arena.write_at(op, at, T::BYTES, value.to_bits128(), i, order, std::panic::Location::caller());
        }

        /// The one place every host `atom`/`red` on shared memory happens: checks the form
        /// against the run's target, reads element `i` (reporting uninitialized memory), and,
        /// inside the race detector's hook (which sees the mnemonic, `.sem`, `.scope` and the old
        /// value), writes `f(0, old)`, counting the write when it changed. The block's memory
        /// lives on this thread, so the read and the write are one step. `N` is 1: PTX has no
        /// vector `atom` on shared memory.
        #[inline(always)]
        #[track_caller]
        pub(crate) fn atom_host<const N: usize>(
            &self,
            i: usize,
            form: crate::atomic::Form,
            sem: crate::sem::Sem,
            scope: crate::sem::Scope,
            f: impl Fn(usize, T) -> T,
        ) -> [T; N] {
            self.atom_host_as(i, form, form.mnemonic(), sem, scope, f)
        }

        /// [`atom_host`](Self::atom_host) under another mnemonic (`red.async.add`).
        #[inline(always)]
        #[track_caller]
        pub(crate) fn atom_host_as<const N: usize>(
            &self,
            i: usize,
            form: crate::atomic::Form,
            op: &'static str,
            sem: crate::sem::Sem,
            scope: crate::sem::Scope,
            f: impl Fn(usize, T) -> T,
        ) -> [T; N] {
            let site = std::panic::Location::caller();
            crate::atomic::check_target(form, T::TY, Space::Shared, sem, scope, site);
            core::array::from_fn(|k| {
                let bits = self.read_raw(op, i + k);
                let access = Access { op, kind: Kind::Rmw, order: Order::Strong { sem, scope } };
                race::access(|| self.race_loc(i + k), move || access, site, || {
                    let old = T::from_bits128(bits);
                    let new = f(k, old).to_bits128();
                    if new != bits {
                        mem::wrote();
                        self.arena.write_bits(self.offset + (i + k) * T::BYTES, T::BYTES, new);
                    }
                    (old, bits as u64)
                })
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Device: `.shared` addresses, one `ld.shared`/`st.shared`/`atom.shared` each.
// ---------------------------------------------------------------------------------------------

/// The `.shared` loads and stores of each element type (nvptx64); the atomics are
/// [`crate::atomic`]'s.
#[doc(hidden)]
pub mod dev {
    #[cfg(target_arch = "nvptx64")]
    use core::arch::asm;

    /// `ld.shared`, `ld.volatile.shared`, `st.shared` for one element type. Safety of each
    /// function: `a` is the `.shared` address of an aligned element of this block's shared memory.
    pub trait SharedAsm: Copy {
        #[cfg(target_arch = "nvptx64")]
        unsafe fn ld(a: u64) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn ld_volatile(a: u64) -> Self;
        #[cfg(target_arch = "nvptx64")]
        unsafe fn st(a: u64, v: Self);
        /// `ld.shared::cluster`: `a` is a `.shared::cluster` address.
        #[cfg(target_arch = "nvptx64")]
        unsafe fn ld_cluster(a: u64) -> Self;
        /// `st.shared::cluster`: `a` is a `.shared::cluster` address.
        #[cfg(target_arch = "nvptx64")]
        unsafe fn st_cluster(a: u64, v: Self);
    }

    #[cfg(not(target_arch = "nvptx64"))]
    macro_rules! shared_asm {
        ($($t:ty, $reg:ident, $ty:literal, |$v:ident| $to:expr, |$b:ident: $bt:ty| $from:expr;)*) => {$(
            impl SharedAsm for $t {}
        )*};
    }

    #[cfg(target_arch = "nvptx64")]
    macro_rules! shared_asm {
        ($($t:ty, $reg:ident, $ty:literal, |$v:ident| $to:expr, |$b:ident: $bt:ty| $from:expr;)*) => {$(
            impl SharedAsm for $t {
                #[inline(always)]
                unsafe fn ld(a: u64) -> $t {
                    let $b: $bt;
                    asm!(concat!("ld.shared.", $ty, " {d}, [{a}];"), a = in(reg64) a, d = out($reg) $b, options(pure, readonly, nostack));
                    $from
                }
                #[inline(always)]
                unsafe fn ld_volatile(a: u64) -> $t {
                    let $b: $bt;
                    asm!(concat!("ld.volatile.shared.", $ty, " {d}, [{a}];"), a = in(reg64) a, d = out($reg) $b, options(nostack));
                    $from
                }
                #[inline(always)]
                unsafe fn st(a: u64, $v: $t) {
                    asm!(concat!("st.shared.", $ty, " [{a}], {v};"), a = in(reg64) a, v = in($reg) $to, options(nostack));
                }
                #[inline(always)]
                unsafe fn ld_cluster(a: u64) -> $t {
                    let $b: $bt;
                    asm!(concat!("ld.shared::cluster.", $ty, " {d}, [{a}];"), a = in(reg64) a, d = out($reg) $b, options(nostack));
                    $from
                }
                #[inline(always)]
                unsafe fn st_cluster(a: u64, $v: $t) {
                    asm!(concat!("st.shared::cluster.", $ty, " [{a}], {v};"), a = in(reg64) a, v = in($reg) $to, options(nostack));
                }
            }
        )*};
    }

    use crate::atomic::{bf16, f16, Bf16x2, F16x2};

    shared_asm! {
        u32, reg32, "u32", |v| v, |b: u32| b;
        i32, reg32, "s32", |v| v, |b: i32| b;
        f32, reg32, "f32", |v| v, |b: f32| b;
        u64, reg64, "u64", |v| v, |b: u64| b;
        i64, reg64, "s64", |v| v, |b: i64| b;
        f64, reg64, "f64", |v| v, |b: f64| b;
        f16, reg16, "b16", |v| v.to_bits(), |b: u16| f16::from_bits(b);
        bf16, reg16, "b16", |v| v.to_bits(), |b: u16| bf16::from_bits(b);
        F16x2, reg32, "b32", |v| v.to_bits(), |b: u32| F16x2::from_bits(b);
        Bf16x2, reg32, "b32", |v| v.to_bits(), |b: u32| Bf16x2::from_bits(b);
    }

    /// `u128`: one `.v2.u64` access of both halves.
    #[cfg(not(target_arch = "nvptx64"))]
    impl SharedAsm for u128 {}

    #[cfg(target_arch = "nvptx64")]
    impl SharedAsm for u128 {
        #[inline(always)]
        unsafe fn ld(a: u64) -> u128 {
            let (lo, hi): (u64, u64);
            asm!("ld.shared.v2.u64 {{{lo}, {hi}}}, [{a}];", a = in(reg64) a, lo = out(reg64) lo, hi = out(reg64) hi, options(pure, readonly, nostack));
            (hi as u128) << 64 | lo as u128
        }
        #[inline(always)]
        unsafe fn ld_volatile(a: u64) -> u128 {
            let (lo, hi): (u64, u64);
            asm!("ld.volatile.shared.v2.u64 {{{lo}, {hi}}}, [{a}];", a = in(reg64) a, lo = out(reg64) lo, hi = out(reg64) hi, options(nostack));
            (hi as u128) << 64 | lo as u128
        }
        #[inline(always)]
        unsafe fn st(a: u64, v: u128) {
            asm!("st.shared.v2.u64 [{a}], {{{lo}, {hi}}};", a = in(reg64) a, lo = in(reg64) v as u64, hi = in(reg64) (v >> 64) as u64, options(nostack));
        }
        #[inline(always)]
        unsafe fn ld_cluster(a: u64) -> u128 {
            let (lo, hi): (u64, u64);
            asm!("ld.shared::cluster.v2.u64 {{{lo}, {hi}}}, [{a}];", a = in(reg64) a, lo = out(reg64) lo, hi = out(reg64) hi, options(nostack));
            (hi as u128) << 64 | lo as u128
        }
        #[inline(always)]
        unsafe fn st_cluster(a: u64, v: u128) {
            asm!("st.shared::cluster.v2.u64 [{a}], {{{lo}, {hi}}};", a = in(reg64) a, lo = in(reg64) v as u64, hi = in(reg64) (v >> 64) as u64, options(nostack));
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl<'w, T: GlobalValue> SharedSlice<'w, T> {
    /// A view of `len` elements at `.shared` address `addr`.
    ///
    /// # Safety
    /// `addr..addr + len * size_of::<T>()` is aligned shared memory of this block.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn from_shared_addr(addr: u64, len: usize) -> SharedSlice<'w, T> {
        SharedSlice { addr, len, _memory: PhantomData }
    }

    /// The number of elements (as `len`, without its bound on `T`; nvptx64).
    #[inline(always)]
    pub(crate) fn elements(&self) -> usize {
        self.len
    }

    /// The `.shared` address of the first element (unchecked: a view may be empty).
    #[cfg_attr(not(target_feature = "sm_90"), allow(dead_code))] // `mapa`: sm_90
    #[inline(always)]
    pub(crate) fn base_addr(&self) -> u64 {
        self.addr
    }

    #[inline(always)]
    pub(crate) fn addr_of(&self, i: usize) -> u64 {
        if i >= self.len {
            // SAFETY: `trap` aborts the kernel.
            unsafe { core::arch::asm!("trap;", options(noreturn, nostack)) }
        }
        self.addr + (i * T::BYTES) as u64
    }
}

impl<'w, T: GlobalValue + dev::SharedAsm> SharedSlice<'w, T> {
    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first `len` elements from element `start`.
    ///
    /// # Panics
    /// If the range reaches past the end (on the GPU: `trap`).
    #[inline(always)]
    #[track_caller]
    pub fn subslice(&self, start: usize, len: usize) -> SharedSlice<'w, T> {
        assert!(start.checked_add(len).is_some_and(|end| end <= self.len), "subslice {start}..{start}+{len} of a shared slice of {} elements", self.len);
        let mut s = *self;
        #[cfg(not(target_arch = "nvptx64"))]
        {
            s.offset += start * T::BYTES;
        }
        #[cfg(target_arch = "nvptx64")]
        {
            s.addr += (start * T::BYTES) as u64;
        }
        s.len = len;
        s
    }

    /// Reads element `i` (`ld.shared`).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, i: usize) -> T {
        #[cfg(not(target_arch = "nvptx64"))]
        return self.read("ld.shared", i, crate::race::Order::Weak);
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        return unsafe { T::ld(self.addr_of(i)) };
    }

    /// Writes element `i` (`st.shared`).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, i: usize, value: T) {
        #[cfg(not(target_arch = "nvptx64"))]
        self.write("st.shared", i, value, crate::race::Order::Weak);
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            T::st(self.addr_of(i), value)
        }
    }

    /// Reads element `i` with `ld.volatile.shared`: never merged or hoisted by the compiler, the
    /// load to spin on (a scheduling point on the host).
    #[inline(always)]
    #[track_caller]
    pub fn load_volatile(&self, i: usize) -> Mem<T> {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let v = self.read("ld.volatile.shared", i, crate::race::Order::VOLATILE);
            MemOp::new(v, "ld.volatile", crate::mem::Space::Shared, i, v.to_bits64(), std::panic::Location::caller())
        }
        // SAFETY: `addr_of` checked the index.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            T::ld_volatile(self.addr_of(i))
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl<'w, T: GlobalValue> SharedSlice<'w, T> {
    const SP: crate::atomic::Sp = crate::atomic::Sp::Shared;

    /// The `.shared` address of element `i` (`n` is 1: no vectors on shared memory).
    #[inline(always)]
    fn dev_addr(&self, i: usize, n: usize) -> u64 {
        let _ = n;
        self.addr_of(i)
    }
}

crate::atomic::scalar_methods!(SharedSlice, "shared", Shared);

// ---------------------------------------------------------------------------------------------
// The handle's shared-memory methods.
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
impl<'w> crate::handle::Warp<'w> {
    /// A static shared array of `N` elements of `T` (CUDA's `__shared__ T a[N]`): every call at
    /// this place in the source, by any thread of the block, is the same array, and each block
    /// has its own. Its contents are uninitialized when the block starts; a read of an element no
    /// thread of the block has written is reported.
    ///
    /// On the GPU, `#[warp_kernel]` declares the `.shared` variable, so call it in a
    /// `#[warp_kernel]` function with a concrete `T` and `N`.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // One array per block, shared by its 64 threads: they sum their ranks into it.
    /// let out = Grid::blocks(2, 64)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (sum, t) = (w.shared_array::<u32, 1>(), w.thread_rank());
    ///         if t == 0 { sum.store(0, 0) }
    ///         w.sync_threads().await;
    ///         sum.atomic_add(0, t).await;
    ///         w.sync_threads().await;
    ///         sum.load(0)
    ///     })
    ///     .unwrap();
    /// assert!(out.iter().all(|&s| s == (0..64).sum::<u32>()));
    /// ```
    #[track_caller]
    pub fn shared_array<T: GlobalValue, const N: usize>(&self) -> SharedSlice<'w, T> {
        self.regs.block().arena.static_array::<T>(N, std::panic::Location::caller())
    }

    /// The block's dynamic shared memory as `T`s (CUDA's `extern __shared__ T a[]`): as many as
    /// fit in the bytes the launch gives ([`Grid::dynamic_shared_bytes`](crate::Grid::dynamic_shared_bytes)).
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(1, 64)
    ///     .dynamic_shared_bytes(256)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (d, t) = (w.dynamic_shared::<u32>(), w.thread_rank() as usize);
    ///         d.store(t, 3 * t as u32);
    ///         w.sync_threads().await;
    ///         (d.len(), d.load(63 - t))
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0], (256 / 4, 3 * 63));
    /// ```
    #[track_caller]
    pub fn dynamic_shared<T: GlobalValue>(&self) -> SharedSlice<'w, T> {
        self.regs.block().arena.dynamic_view(0, None, std::panic::Location::caller())
    }

    /// `len` elements of `T` of the block's dynamic shared memory from byte `byte_offset` (which
    /// must be a multiple of `T`'s size; the view must lie within what the launch gives, or the
    /// run reports it).
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// // Bytes 256..512 of the launch's 512 as 32 u64s.
    /// let out = Grid::blocks(1, 32)
    ///     .dynamic_shared_bytes(512)
    ///     .map(async |w: &Warp<'_>| {
    ///         let (hi, l) = (w.dynamic_shared_at::<u64>(256, 32), w.lane_id() as usize);
    ///         hi.store(l, (l as u64) << 40);
    ///         w.syncwarp().await;
    ///         (hi.len(), hi.load(31 - l))
    ///     })
    ///     .unwrap();
    /// assert_eq!(out[0], (32, 31 << 40));
    /// ```
    #[track_caller]
    pub fn dynamic_shared_at<T: GlobalValue>(&self, byte_offset: usize, len: usize) -> SharedSlice<'w, T> {
        self.regs.block().arena.dynamic_view(byte_offset, Some(len), std::panic::Location::caller())
    }

    /// `%dynamic_smem_size`: the bytes of dynamic shared memory the launch gives the block.
    ///
    /// ```
    /// use warp_runtime::{Grid, Warp};
    /// let out = Grid::blocks(2, 32).dynamic_shared_bytes(1024).map(async |w: &Warp<'_>| w.dynamic_shared_bytes()).unwrap();
    /// assert!(out.iter().all(|&n| n == 1024));
    /// let none = Grid::blocks(1, 32).map(async |w: &Warp<'_>| w.dynamic_shared_bytes()).unwrap();
    /// assert_eq!(none[0], 0);
    /// ```
    pub fn dynamic_shared_bytes(&self) -> u32 {
        self.regs.block().arena.dynamic_bytes() as u32
    }
}

#[cfg(target_arch = "nvptx64")]
// 128-byte aligned, as CUTLASS declares its dynamic shared memory: bulk copies and TMA want
// aligned stages, and a stage at a 48-byte offset into a 128-byte line cost the mbarrier
// pipeline a third of its speed on an H100 (benches/gpu/h100/README.md).
core::arch::global_asm!(".extern .shared .align 128 .b8 __warpkit_dynamic_smem[];");

/// Implemented for nothing: `shared_array` on the device is declared by `#[warp_kernel]`.
#[cfg(target_arch = "nvptx64")]
#[diagnostic::on_unimplemented(
    message = "`shared_array` declares a `.shared` variable, which `#[warp_kernel]` does on nvptx64",
    label = "called outside a `#[warp_kernel]` function body",
    note = "call `shared_array::<T, N>()` on the handle directly in a `#[warp_kernel]` fn, with a concrete `T` and `N`"
)]
pub trait DeclaredByWarpKernel {}

#[cfg(target_arch = "nvptx64")]
impl<'w> crate::device::Warp<'w> {
    /// A static shared array of `N` elements of `T` (`__shared__ T a[N]`): `#[warp_kernel]`
    /// rewrites each call into a `.shared` variable of the module (see [`crate::shared`]).
    #[inline(always)]
    pub fn shared_array<T: GlobalValue, const N: usize>(&self) -> SharedSlice<'w, T>
    where
        Self: DeclaredByWarpKernel,
    {
        loop {}
    }

    /// The static shared array at `.shared` address `addr` (what `#[warp_kernel]` makes of
    /// `shared_array`).
    ///
    /// # Safety
    /// `addr` is the address of a `.shared` variable of at least `N` elements of `T`.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn __shared_static<T: GlobalValue, const N: usize>(&self, addr: u64) -> SharedSlice<'w, T> {
        SharedSlice::from_shared_addr(addr, N)
    }

    #[inline(always)]
    fn dynamic_base(&self) -> u64 {
        let addr: u64;
        // SAFETY: reads the address of the module's dynamic shared memory.
        unsafe { core::arch::asm!("mov.u64 {a}, __warpkit_dynamic_smem;", a = out(reg64) addr, options(pure, nomem, nostack)) };
        addr
    }

    /// The block's dynamic shared memory as `T`s (`extern __shared__ T a[]`).
    #[inline(always)]
    pub fn dynamic_shared<T: GlobalValue>(&self) -> SharedSlice<'w, T> {
        // SAFETY: the launch gives `%dynamic_smem_size` bytes at the 128-byte aligned symbol.
        unsafe { SharedSlice::from_shared_addr(self.dynamic_base(), crate::nvptx::dynamic_smem_size() as usize / T::BYTES) }
    }

    /// `len` elements of `T` of dynamic shared memory from byte `byte_offset` (`trap` when not
    /// aligned or out of range).
    #[inline(always)]
    pub fn dynamic_shared_at<T: GlobalValue>(&self, byte_offset: usize, len: usize) -> SharedSlice<'w, T> {
        let size = crate::nvptx::dynamic_smem_size() as usize;
        if byte_offset % T::BYTES != 0 || byte_offset + len * T::BYTES > size {
            // SAFETY: `trap` aborts the kernel.
            unsafe { core::arch::asm!("trap;", options(noreturn, nostack)) }
        }
        // SAFETY: checked above against what the launch gives.
        unsafe { SharedSlice::from_shared_addr(self.dynamic_base() + byte_offset as u64, len) }
    }

    /// `%dynamic_smem_size`: the bytes of dynamic shared memory the launch gives the block.
    #[inline(always)]
    pub fn dynamic_shared_bytes(&self) -> u32 {
        crate::nvptx::dynamic_smem_size()
    }
}

/// What `#[warp_kernel]` makes of `h.shared_array::<T, N>()` on nvptx64: a module `.shared`
/// variable named `$sym` and the slice over it.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __shared_static {
    ($w:expr, $sym:literal, $t:ty, $n:expr) => {{
        ::core::arch::global_asm!(
            concat!(".shared .align {al} .b8 ", $sym, "[{sz}];"),
            al = const ::core::mem::align_of::<$t>(),
            sz = const (::core::mem::size_of::<$t>() * ($n)),
        );
        let addr: u64;
        // SAFETY: reads the address of the variable declared above.
        unsafe { ::core::arch::asm!(concat!("mov.u64 {a}, ", $sym, ";"), a = out(reg64) addr, options(pure, nomem, nostack)) };
        // SAFETY: the variable has `$n` elements of `$t`.
        unsafe { $w.__shared_static::<$t, { $n }>(addr) }
    }};
}
