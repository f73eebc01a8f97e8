//! Global-memory buffers and PTX `atom` operations, shared by all warps of a launch.
//!
//! A kernel reads its input from, and writes its output to, *global memory*: arrays that every
//! thread of a launch can index. warpkit models them with two types:
//!
//! - [`GlobalBuffer<T>`] (host only) owns the memory. Make one from a slice ([`GlobalBuffer::from_slice`],
//!   a copy in, like `cudaMemcpy` host-to-device) or zeroed ([`GlobalBuffer::zeroed`]), and read it
//!   back with [`GlobalBuffer::to_vec`] (a copy out) after the launch.
//! - [`GlobalSlice<'g, T>`] is what a kernel receives: a cheap [`Copy`] view of a buffer with
//!   [`load`](GlobalSlice::load), [`store`](GlobalSlice::store) and the atomics of PTX `atom`, each of which
//!   returns the value the element held before. The same type exists when the kernel is compiled for
//!   `nvptx64-nvidia-cuda`, as a `#[repr(C)]` device pointer and length passed by value as a kernel
//!   parameter; there `load`/`store` are plain pointer reads and writes and each atomic is one
//!   `atom.global.<op>.<type>` instruction.
//!
//! # A histogram
//!
//! ```
//! use warp_runtime::grid::launch;
//! use warp_runtime::{GlobalBuffer, Warp};
//!
//! let values: Vec<u32> = (0..1000).map(|i| i * 7 % 10).collect();
//! let input = GlobalBuffer::from_slice(&values);
//! let hist = GlobalBuffer::<u32>::zeroed(10);
//! let (input, counts) = (input.slice(), hist.slice());
//!
//! // One thread per value; 1000 threads are 32 warps, the last one with 8 lanes launched.
//! launch(values.len() as u64, async |w: &Warp<'_>| {
//!     let i = w.global_id() as usize;
//!     if i < input.len() {
//!         counts.atomic_add(input.load(i) as usize, 1);
//!     }
//! })
//! .unwrap();
//! assert_eq!(hist.to_vec(), vec![100; 10]);
//! ```
//!
//! # Semantics of each atomic
//!
//! Each atomic is PTX `atom.global.<op>.<type> d, [a], b{, c}` at element `i`: atomically,
//! `d = *a; *a = op(*a, b{, c})`, and `d` is returned. Quoting the PTX ISA (9.7.13.5):
//!
//! ```text
//! inc(r, s)  = (r >= s) ? 0 : r+1;
//! dec(r, s)  = (r==0 || r > s)  ? s : r-1;
//! exch(r, s) =  s;
//! cas(r,s,t) = (r == s) ? t : r;
//! ```
//!
//! Every operation of `atom` and `red` is here, for every element type the spec allows, with
//! `.sem`/`.scope` forms (`atomic_add_with`), `red` forms (`red_add`, `red_add_with`) and, on
//! global memory only, the vector forms (`atomic_add_vec`): see [`crate::atomic`] for the table of
//! operations and types, the targets each needs, and the qualifiers; the results are
//! [`crate::semantics::atom`]'s. `atomic_add` on `f32` rounds to nearest even and, as the PTX ISA
//! says of the global-memory instruction, "flushes subnormal inputs and results to sign-preserving
//! zero"; the host does the same, and, as measured on an H100, gives the canonical NaN
//! `0x7fffffff` for every NaN result. An `f64` add with a NaN returns operand `b`'s NaN unchanged
//! (H100). `i64` addition uses `atom.add.u64`: two's-complement addition is the same operation.
//!
//! Using one type for bits that another type wrote (a `u32` buffer read as `f32`) is not offered:
//! a buffer has one element type, like a typed device pointer.
//!
//! # Ordering and concurrency
//!
//! The plain atomics specify no `.sem` or `.scope`, so each is `.relaxed` at `.gpu` scope: atomic
//! with respect to every other atomic on the element, with no ordering of other memory accesses;
//! the `_with` forms take both. On the host each element is a `std::sync::atomic` integer (a
//! sequence lock for `u128`); plain `load`/`store` use
//! [`Ordering::Relaxed`](core::sync::atomic::Ordering::Relaxed), the C++/Rust counterpart of PTX
//! `.relaxed`, and an atomic the Rust ordering of its `.sem`. That makes a buffer safe to share between warps that run on
//! different OS threads (see [`Grid::cpu_threads`](crate::grid::Grid::cpu_threads)): two warps
//! storing to one element is not a Rust data race, although on a GPU two plain accesses to one
//! location from different threads, one of them a write, are a data race under the PTX memory
//! model, and the value read is then unspecified.
//!
//! Atomics on one element from different warps are applied in an order that depends on
//! scheduling, as on a GPU: with one CPU thread, warps run in increasing warp index; with several,
//! in whatever order the threads reach them. Within a warp, the lanes between two warp
//! instructions run one after another in the executor's [`LaneOrder`](crate::LaneOrder), which
//! therefore decides the order of their atomics. A kernel whose result does not depend on that
//! order (a histogram, a sum of integers, a minimum) gives the same result on any number of CPU
//! threads, in any lane order, and on the GPU.
//!
//! # Out-of-range indices
//!
//! Every access checks its index. On the host, an index past the end panics with
//! `index 40 out of bounds for a global buffer of 32 elements`; inside a kernel the executor
//! catches the panic and returns [`WarpError::LanePanicked`](crate::WarpError::LanePanicked) naming the
//! lane and its warp, so a test reports it instead of aborting. On the GPU the thread executes
//! `trap`, which aborts the kernel launch with an error.
//!
//! # On the GPU
//!
//! Under `target_arch = "nvptx64"`, `GlobalSlice<'g, T>` is `#[repr(C)] { ptr: *mut T, len: usize }`
//! (16 bytes, 8-byte aligned): a kernel parameter of this type is filled by the host with the
//! device pointer of the allocation and its number of elements. `GlobalSlice::from_raw_parts` (nvptx64 only)
//! makes one from a pointer and a length. Each atomic converts the generic pointer to a global
//! address with `cvta.to.global.u64` (as nvcc does for kernel pointer parameters; `ptxas` folds
//! it) and performs one `atom.global` instruction.

#[cfg(not(target_arch = "nvptx64"))]
use core::fmt;

use crate::shared::Mem;
#[cfg(target_arch = "nvptx64")]
use core::marker::PhantomData;

mod sealed {
    pub trait Sealed {}
}

pub use crate::atomic::{AtomicAdd, AtomicBits, AtomicCas, AtomicExch, AtomicIncDec, AtomicMinMax, AtomicVecAdd, AtomicVecMinMax, Bf16x2, F16x2, RedSem};
pub use crate::sem::{Scope, Sem};
pub use half::{bf16, f16};
#[cfg(not(target_arch = "nvptx64"))]
use crate::semantics::atom::AtomType;

/// An element type of global and shared memory: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`,
/// [`f16`], [`bf16`], [`F16x2`], [`Bf16x2`] or `u128`.
///
/// These are the types of PTX `atom`: the scalar integers and floats, the half-precision types of
/// `.add.noftz` and their packed pairs, and `.b128`. Every one supports
/// [`load`](GlobalSlice::load), [`store`](GlobalSlice::store) and [`atomic_cas`](GlobalSlice::atomic_cas);
/// the other atomics depend on the type ([`AtomicAdd`], [`AtomicMinMax`], [`AtomicBits`],
/// [`AtomicIncDec`], [`AtomicExch`], and the vector forms [`AtomicVecAdd`], [`AtomicVecMinMax`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of global memory",
    label = "not a global-memory element type",
    note = "global buffers hold `u32`, `i32`, `u64`, `i64`, `f32`, `f64`, `f16`, `bf16`, `F16x2`, `Bf16x2` or `u128`, the types of PTX `atom`"
)]
pub trait GlobalValue: Copy + Send + Sync + 'static + sealed::Sealed + ElemBits {
    /// The host's storage for one element: the `std::sync::atomic` integer of its width (for
    /// `u128`, a sequence lock, [`Cell128`](crate::atomic::Cell128)).
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    type Cell: Send + Sync;
    /// The element's type for `atom`'s semantics.
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    const TY: AtomType;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn cell(value: Self) -> Self::Cell;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn load(cell: &Self::Cell) -> Self;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn store(cell: &Self::Cell, value: Self);
    /// `old = *cell; *cell = f(old)` as one atomic step, with the Rust ordering of PTX `sem`;
    /// returns `old`. `f` may be called more than once (a compare-exchange loop).
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn rmw(cell: &Self::Cell, sem: Sem, f: impl FnMut(Self) -> Self) -> Self;
}

/// An element's size and bit pattern (for shared memory, which is bytes, and for reports).
#[doc(hidden)]
pub trait ElemBits: Copy {
    /// The element's size in bytes: 2, 4, 8 or 16.
    const BYTES: usize;
    /// The bits, zero-extended to 64 (for `u128`, the low 64: what a report shows).
    fn to_bits64(self) -> u64;
    /// The value of the low `8 * BYTES` bits (for `u128`, zero-extended).
    fn from_bits64(bits: u64) -> Self;
    /// All the bits, zero-extended to 128.
    #[inline(always)]
    fn to_bits128(self) -> u128 {
        self.to_bits64() as u128
    }
    /// The value of the low `8 * BYTES` bits.
    #[inline(always)]
    fn from_bits128(bits: u128) -> Self {
        Self::from_bits64(bits as u64)
    }
}

macro_rules! elem_bits {
    ($($t:ty => $n:literal, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl ElemBits for $t {
            const BYTES: usize = $n;
            #[inline(always)]
            fn to_bits64(self) -> u64 { let $v = self; $to }
            #[inline(always)]
            fn from_bits64($b: u64) -> Self { $from }
        }
    )*};
}

elem_bits! {
    u32 => 4, |v| v as u64, |b| b as u32;
    i32 => 4, |v| v as u32 as u64, |b| b as u32 as i32;
    f32 => 4, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    u64 => 8, |v| v, |b| b;
    i64 => 8, |v| v as u64, |b| b as i64;
    f64 => 8, |v| v.to_bits(), |b| f64::from_bits(b);
    f16 => 2, |v| v.to_bits() as u64, |b| f16::from_bits(b as u16);
    bf16 => 2, |v| v.to_bits() as u64, |b| bf16::from_bits(b as u16);
    F16x2 => 4, |v| v.to_bits() as u64, |b| F16x2::from_bits(b as u32);
    Bf16x2 => 4, |v| v.to_bits() as u64, |b| Bf16x2::from_bits(b as u32);
}

impl ElemBits for u128 {
    const BYTES: usize = 16;
    #[inline(always)]
    fn to_bits64(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_bits64(bits: u64) -> Self {
        bits as u128
    }
    #[inline(always)]
    fn to_bits128(self) -> u128 {
        self
    }
    #[inline(always)]
    fn from_bits128(bits: u128) -> Self {
        bits
    }
}

impl sealed::Sealed for u32 {}
impl sealed::Sealed for i32 {}
impl sealed::Sealed for f32 {}
impl sealed::Sealed for u64 {}
impl sealed::Sealed for i64 {}
impl sealed::Sealed for f64 {}
impl sealed::Sealed for f16 {}
impl sealed::Sealed for bf16 {}
impl sealed::Sealed for F16x2 {}
impl sealed::Sealed for Bf16x2 {}
impl sealed::Sealed for u128 {}

// ---------------------------------------------------------------------------------------------
// Host: every element is a std atomic of its width holding its bits (a sequence lock for
// `u128`). Plain loads and stores are Relaxed; an atomic uses the Rust ordering of its `.sem`.
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::atomic::{orderings, Cell128};
    use core::sync::atomic::Ordering::Relaxed;
    use core::sync::atomic::{AtomicU16, AtomicU32, AtomicU64};

    /// Each type's cell is the unsigned std atomic of its width holding its bits; `rmw` is a
    /// compare-exchange loop (`fetch_update`), so every operation of `atom` is one atomic step.
    macro_rules! value {
        ($($t:ty => $cell:ty, $ty:ident, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
            impl GlobalValue for $t {
                type Cell = $cell;
                const TY: AtomType = AtomType::$ty;
                #[inline(always)]
                fn cell($v: Self) -> $cell { <$cell>::new($to) }
                #[inline(always)]
                fn load(cell: &$cell) -> Self { let $b = cell.load(Relaxed); $from }
                #[inline(always)]
                fn store(cell: &$cell, $v: Self) { cell.store($to, Relaxed) }
                #[inline(always)]
                fn rmw(cell: &$cell, sem: Sem, mut f: impl FnMut(Self) -> Self) -> Self {
                    let (set, fetch) = orderings(sem);
                    let old = cell.fetch_update(set, fetch, |$b| { let $v: $t = f($from); Some($to) });
                    let (Ok($b) | Err($b)) = old;
                    $from
                }
            }
        )*};
    }

    value! {
        u32 => AtomicU32, U32, |v| v, |b| b;
        i32 => AtomicU32, S32, |v| v as u32, |b| b as i32;
        f32 => AtomicU32, F32, |v| v.to_bits(), |b| f32::from_bits(b);
        u64 => AtomicU64, U64, |v| v, |b| b;
        i64 => AtomicU64, S64, |v| v as u64, |b| b as i64;
        f64 => AtomicU64, F64, |v| v.to_bits(), |b| f64::from_bits(b);
        f16 => AtomicU16, F16, |v| v.to_bits(), |b| f16::from_bits(b);
        bf16 => AtomicU16, Bf16, |v| v.to_bits(), |b| bf16::from_bits(b);
        F16x2 => AtomicU32, F16x2, |v| v.to_bits(), |b| F16x2::from_bits(b);
        Bf16x2 => AtomicU32, Bf16x2, |v| v.to_bits(), |b| Bf16x2::from_bits(b);
    }

    /// `u128`: a sequence lock ([`Cell128`]); its updates exclude each other, so they are atomic
    /// whatever `.sem` says (the lock orders them as acquire/release).
    impl GlobalValue for u128 {
        type Cell = Cell128;
        const TY: AtomType = AtomType::B128;
        #[inline(always)]
        fn cell(value: Self) -> Cell128 {
            Cell128::new(value)
        }
        #[inline(always)]
        fn load(cell: &Cell128) -> Self {
            cell.load()
        }
        #[inline(always)]
        fn store(cell: &Cell128, value: Self) {
            cell.update(|_| value);
        }
        #[inline(always)]
        fn rmw(cell: &Cell128, _: Sem, f: impl FnMut(Self) -> Self) -> Self {
            cell.update(f)
        }
    }

    /// Device-like memory owned by the host: the global memory a launch reads and writes.
    ///
    /// Kernels get a [`GlobalSlice`] of it ([`GlobalBuffer::slice`]); the buffer itself stays
    /// with the code that launches them, which reads the results back with
    /// [`to_vec`](GlobalBuffer::to_vec) afterwards.
    pub struct GlobalBuffer<T: GlobalValue> {
        cells: Box<[T::Cell]>,
        /// The race detector's state of each element.
        shadow: crate::race::Shadow,
    }

    impl<T: GlobalValue> GlobalBuffer<T> {
        /// A buffer holding a copy of `values` (a host-to-device copy).
        pub fn from_slice(values: &[T]) -> GlobalBuffer<T> {
            GlobalBuffer::of(values.iter().map(|&v| T::cell(v)).collect())
        }

        /// A buffer of `len` copies of `value`.
        pub fn filled(value: T, len: usize) -> GlobalBuffer<T> {
            GlobalBuffer::of((0..len).map(|_| T::cell(value)).collect())
        }

        fn of(cells: Box<[T::Cell]>) -> GlobalBuffer<T> {
            let shadow = crate::race::Shadow::new(cells.len());
            GlobalBuffer { cells, shadow }
        }

        /// A buffer of `len` zeros (like `cudaMemset(0)`).
        pub fn zeroed(len: usize) -> GlobalBuffer<T>
        where
            T: Default,
        {
            GlobalBuffer::filled(T::default(), len)
        }

        /// The number of elements.
        pub fn len(&self) -> usize {
            self.cells.len()
        }

        /// Whether the buffer has no elements.
        pub fn is_empty(&self) -> bool {
            self.cells.is_empty()
        }

        /// The bytes of race-detector shadow state this buffer holds now: allocated a page of
        /// elements at a time where a run with the detector on accessed it, and kept for later
        /// launches (the lists of concurrent reads and writes of a location are extra).
        pub fn shadow_bytes(&self) -> usize {
            self.shadow.allocated_bytes()
        }

        /// A copy of the contents (a device-to-host copy).
        pub fn to_vec(&self) -> Vec<T> {
            self.cells.iter().map(T::load).collect()
        }

        /// Overwrites the contents with `values`, which must have the buffer's length.
        ///
        /// # Panics
        ///
        /// If `values.len() != self.len()`.
        pub fn copy_from_slice(&mut self, values: &[T]) {
            assert_eq!(values.len(), self.len(), "copy_from_slice: {} values into a global buffer of {} elements", values.len(), self.len());
            for (cell, &v) in self.cells.iter().zip(values) {
                T::store(cell, v);
            }
        }

        /// The view that kernels index: `Copy`, and shareable between warps and CPU threads.
        pub fn slice(&self) -> GlobalSlice<'_, T> {
            GlobalSlice { cells: &self.cells, shadow: &self.shadow, base: 0 }
        }
    }

    impl<T: GlobalValue> Clone for GlobalBuffer<T> {
        fn clone(&self) -> Self {
            GlobalBuffer::of(self.cells.iter().map(|c| T::cell(T::load(c))).collect())
        }
    }

    impl<T: GlobalValue> From<&[T]> for GlobalBuffer<T> {
        fn from(values: &[T]) -> Self {
            GlobalBuffer::from_slice(values)
        }
    }

    impl<T: GlobalValue + fmt::Debug> fmt::Debug for GlobalBuffer<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_list().entries(self.cells.iter().map(T::load)).finish()
        }
    }

    /// A kernel's view of global memory: `len` elements of `T` that every thread of a launch can
    /// load, store and update atomically. See the [module docs](crate::global) for the semantics.
    pub struct GlobalSlice<'g, T: GlobalValue> {
        /// One std atomic per element.
        pub(super) cells: &'g [T::Cell],
        /// The buffer's race-detector state.
        pub(super) shadow: &'g crate::race::Shadow,
        /// The index in the buffer of `cells[0]` (a subslice starts inside it).
        pub(super) base: usize,
    }

    impl<'g, T: GlobalValue> GlobalSlice<'g, T> {
        /// Element `i`'s index in its buffer (whose start a GPU allocation aligns to 256 bytes).
        #[inline(always)]
        pub(crate) fn buffer_index(&self, i: usize) -> usize {
            self.base + i
        }

        #[inline(always)]
        #[track_caller]
        pub(crate) fn at(&self, i: usize) -> &T::Cell {
            match self.cells.get(i) {
                Some(cell) => cell,
                None => out_of_bounds(i, self.cells.len()),
            }
        }

        /// Whether `other` views the same elements of the same buffer: what two lanes passing
        /// the same slice pass (a warp-wide form that takes the parameter for uniform checks it,
        /// `wide::SameProbe`).
        #[inline(always)]
        pub(crate) fn same_view(&self, other: &Self) -> bool {
            core::ptr::eq(self.cells, other.cells) && core::ptr::eq(self.shadow, other.shadow) && self.base == other.base
        }

        /// The race detector's location of elements `i..i + n` (checked by the caller).
        #[inline(always)]
        pub(crate) fn race_loc(&self, i: usize, n: usize) -> crate::race::Loc<'g> {
            crate::race::Loc { shadow: self.shadow, space: crate::mem::Space::Global, first: self.base + i, units: n, index: i }
        }
    }

    impl<T: GlobalValue + fmt::Debug> fmt::Debug for GlobalSlice<'_, T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_list().entries(self.cells.iter().map(T::load)).finish()
        }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn out_of_bounds(index: usize, len: usize) -> ! {
        panic!("index {index} out of bounds for a global buffer of {len} elements")
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::{GlobalBuffer, GlobalSlice};

// ---------------------------------------------------------------------------------------------
// nvptx64: a device pointer and a length; each atomic is one `atom.global` instruction.
// ---------------------------------------------------------------------------------------------

/// A kernel's view of global memory: `len` elements of `T` at device pointer `ptr`, passed by
/// value as a kernel parameter (16 bytes: the pointer, then the length).
#[cfg(target_arch = "nvptx64")]
#[repr(C)]
pub struct GlobalSlice<'g, T: GlobalValue> {
    ptr: *mut T,
    len: usize,
    _memory: PhantomData<&'g [T]>,
}

#[cfg(target_arch = "nvptx64")]
mod device {
    use super::*;
    use core::arch::asm;

    impl<'g, T: GlobalValue> GlobalSlice<'g, T> {
        /// A view of `len` elements at `ptr`.
        ///
        /// # Safety
        ///
        /// `ptr` points to `len` initialized, aligned elements of global memory that stay
        /// allocated for `'g`.
        #[inline(always)]
        pub const unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> GlobalSlice<'g, T> {
            GlobalSlice { ptr, len, _memory: PhantomData }
        }

        /// The device pointer to the first element.
        #[inline(always)]
        pub const fn as_ptr(&self) -> *mut T {
            self.ptr
        }

        #[inline(always)]
        pub(crate) fn at(&self, i: usize) -> *mut T {
            if i >= self.len {
                out_of_bounds();
            }
            // SAFETY: `i < len`, and `from_raw_parts`'s contract makes `ptr..ptr + len` one allocation.
            unsafe { self.ptr.add(i) }
        }
    }

    #[cold]
    #[inline(never)]
    fn out_of_bounds() -> ! {
        // SAFETY: `trap` aborts the kernel; it touches no memory the program can observe.
        unsafe { asm!("trap;", options(noreturn, nostack)) }
    }

    impl GlobalValue for u32 {}
    impl GlobalValue for i32 {}
    impl GlobalValue for f32 {}
    impl GlobalValue for u64 {}
    impl GlobalValue for i64 {}
    impl GlobalValue for f64 {}
    impl GlobalValue for f16 {}
    impl GlobalValue for bf16 {}
    impl GlobalValue for F16x2 {}
    impl GlobalValue for Bf16x2 {}
    impl GlobalValue for u128 {}

    /// `ld.volatile.global` of `*ptr`. Safety: `ptr` is a valid, aligned pointer to global memory.
    pub(super) unsafe fn ld_volatile<T: GlobalValue>(ptr: *mut T) -> T {
        ptr.read_volatile()
    }
}

// ---------------------------------------------------------------------------------------------
// The kernel-facing API: one definition for both targets.
// ---------------------------------------------------------------------------------------------

impl<T: GlobalValue> Clone for GlobalSlice<'_, T> {
    #[inline(always)]
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: GlobalValue> Copy for GlobalSlice<'_, T> {}

/// Runs the host form or the device form of an access, with `$slot` the element `i`
/// (a `&Cell` on the host, a `*mut T` on the device).
macro_rules! access {
    ($self:ident, $i:expr, |$slot:ident| host: $host:expr, device: $device:expr) => {{
        let $slot = $self.at($i);
        #[cfg(not(target_arch = "nvptx64"))]
        {
            $host
        }
        // SAFETY: `at` checked the index, and `from_raw_parts`'s contract makes the pointer
        // valid and aligned global memory.
        #[cfg(target_arch = "nvptx64")]
        unsafe {
            $device
        }
    }};
}

/// The one place every host `atom`/`red` on global memory happens: checks the form against the
/// run's target and the alignment of a vector, then, inside the race detector's hook (which sees
/// the mnemonic, `.sem`, `.scope` and the old value of the first element), applies `f(k, old)` to
/// elements `i..i + N` (each atomically on its own, as PTX guarantees for vectors), counts a write
/// when one changed, and returns the old values. `f` must be pure: a contended element may call
/// it again.
#[cfg(not(target_arch = "nvptx64"))]
impl<'g, T: GlobalValue> GlobalSlice<'g, T> {
    #[inline(always)]
    #[track_caller]
    pub(crate) fn atom_host<const N: usize>(&self, i: usize, form: crate::atomic::Form, sem: Sem, scope: Scope, f: impl Fn(usize, T) -> T) -> [T; N] {
        let site = std::panic::Location::caller();
        crate::atomic::check_target(form, T::TY, crate::mem::Space::Global, sem, scope, site);
        // Bounds first (the last element), then alignment: the device address of element `i` is
        // the buffer's (256-byte aligned by `cudaMalloc`) plus `base + i` elements.
        let _ = self.at(i.saturating_add(N - 1));
        if N > 1 && (self.base + i) % N != 0 {
            crate::atomic::misaligned(form, T::TY, crate::mem::Space::Global, sem, scope, i, N * T::BYTES, site);
        }
        let access = crate::race::Access { op: form.mnemonic(), kind: crate::race::Kind::Rmw, order: crate::race::Order::Strong { sem, scope } };
        let old: [T; N] = crate::race::access(|| self.race_loc(i, N), move || access, site, || {
            let old: [T; N] = core::array::from_fn(|k| T::rmw(self.at(i + k), sem, |o| f(k, o)));
            (old, old[0].to_bits64())
        });
        if (0..N).any(|k| f(k, old[k]).to_bits128() != old[k].to_bits128()) {
            crate::mem::wrote();
        }
        old
    }
}

#[cfg(target_arch = "nvptx64")]
impl<'g, T: GlobalValue> GlobalSlice<'g, T> {
    const SP: crate::atomic::Sp = crate::atomic::Sp::Global;

    /// The generic address of elements `i..i + n`, checked against the length (`trap`).
    #[cfg_attr(not(target_feature = "sm_80"), allow(dead_code))] // the async copies: sm_80
    #[inline(always)]
    pub(crate) fn dev_addr_of(&self, i: usize, n: usize) -> u64 {
        self.dev_addr(i, n)
    }

    /// The generic address of elements `i..i + n`, checked against the length (`trap`).
    #[inline(always)]
    fn dev_addr(&self, i: usize, n: usize) -> u64 {
        if n > 1 {
            let _ = self.at(i + (n - 1));
        }
        self.at(i) as u64
    }
}

impl<'g, T: GlobalValue> GlobalSlice<'g, T> {
    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        #[cfg(not(target_arch = "nvptx64"))]
        return self.cells.len();
        #[cfg(target_arch = "nvptx64")]
        return self.len;
    }

    /// Whether there are no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `len` elements from element `start`, checked once here: indices into the result are
    /// checked against `len`, which the compiler can often prove (a constant window indexed by
    /// `32 * k + lane`), so a tile's loads and stores carry no per-element check on the GPU.
    ///
    /// # Panics
    ///
    /// If the range reaches past the end (on the GPU: `trap`).
    #[inline(always)]
    #[track_caller]
    pub fn subslice(&self, start: usize, len: usize) -> GlobalSlice<'g, T> {
        let total = self.len();
        if start.checked_add(len).is_none_or(|end| end > total) {
            subslice_out_of_bounds(start, len, total);
        }
        #[cfg(not(target_arch = "nvptx64"))]
        return GlobalSlice { cells: &self.cells[start..start + len], shadow: self.shadow, base: self.base + start };
        // SAFETY: `start + len <= self.len`, inside the allocation `from_raw_parts` promised.
        #[cfg(target_arch = "nvptx64")]
        return unsafe { GlobalSlice::from_raw_parts(self.ptr.add(start), len) };
    }

    /// Reads element `i` (`ld.global`; a relaxed atomic load on the host).
    ///
    /// # Panics
    ///
    /// If `i >= self.len()` (on the GPU: `trap`).
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, i: usize) -> T {
        access!(self, i, |slot| host: {
            let access = crate::race::Access { op: "ld.global", kind: crate::race::Kind::Load, order: crate::race::Order::Weak };
            crate::race::access(|| self.race_loc(i, 1), move || access, std::panic::Location::caller(), || {
                let v = T::load(slot);
                (v, v.to_bits64())
            })
        }, device: slot.read())
    }

    /// Writes element `i` (`st.global`; a relaxed atomic store on the host).
    ///
    /// # Panics
    ///
    /// If `i >= self.len()` (on the GPU: `trap`).
    #[inline(always)]
    #[track_caller]
    pub fn store(&self, i: usize, value: T) {
        access!(self, i, |slot| host: {
            if T::load(slot).to_bits64() != value.to_bits64() {
                crate::mem::wrote();
            }
            let access = crate::race::Access { op: "st.global", kind: crate::race::Kind::Store, order: crate::race::Order::Weak };
            crate::race::access(|| self.race_loc(i, 1), move || access, std::panic::Location::caller(), || (T::store(slot, value), value.to_bits64()))
        }, device: slot.write(value))
    }

    /// Reads element `i` with `ld.volatile.global`: never merged or hoisted by the compiler, the
    /// load to spin on. On the host it is a scheduling point (`#[warp_kernel]` awaits it), so a
    /// spin-wait on a flag another thread sets completes.
    #[inline(always)]
    #[track_caller]
    pub fn load_volatile(&self, i: usize) -> Mem<T> {
        access!(self, i, |slot| host: {
            let site = std::panic::Location::caller();
            let access = crate::race::Access { op: "ld.volatile.global", kind: crate::race::Kind::Load, order: crate::race::Order::VOLATILE };
            let v = crate::race::access(|| self.race_loc(i, 1), move || access, site, || {
                let v = T::load(slot);
                (v, v.to_bits64())
            });
            crate::mem::MemOp::new(v, "ld.volatile", crate::mem::Space::Global, i, v.to_bits64(), site)
        }, device: device::ld_volatile(slot))
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn subslice_out_of_bounds(start: usize, len: usize, total: usize) -> ! {
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("subslice {start}..{start}+{len} of a global buffer of {total} elements");
    // SAFETY: `trap` aborts the kernel; it touches no memory the program can observe.
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (start, len, total);
        unsafe { core::arch::asm!("trap;", options(noreturn, nostack)) }
    }
}

crate::atomic::scalar_methods!(GlobalSlice, "global", Global);

/// The vector forms (`.v2`, `.v4`, `.v8`; global memory only, sm_90).
macro_rules! vec_methods {
    ($($tr:ident, $op:ident, $atomic:ident, $atomic_with:ident, $red:ident, $red_with:ident, $dev_atom:ident, $dev_red:ident, $what:literal;)*) => {$(
        impl<'g, T: GlobalValue> GlobalSlice<'g, T> {
            #[doc = concat!("`atom.global.v{N}...", stringify!($op), "`: ", $what, " of elements `i..i + N`, each atomically on its own; returns their old values. `i` must be a multiple of `N` (the vector is aligned to its size).")]
            #[inline(always)]
            #[track_caller]
            pub fn $atomic<const N: usize>(&self, i: usize, values: [T; N]) -> Mem<[T; N]>
            where
                T: $tr<N>,
            {
                self.$atomic_with(i, values, Sem::Relaxed, Scope::Gpu)
            }

            #[doc = concat!("`atom{.sem}{.scope}.global.v{N}...", stringify!($op), "`: ", $what, " of elements `i..i + N`; returns their old values.")]
            #[inline(always)]
            #[track_caller]
            pub fn $atomic_with<const N: usize>(&self, i: usize, values: [T; N], sem: Sem, scope: Scope) -> Mem<[T; N]>
            where
                T: $tr<N>,
            {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let op = crate::semantics::atom::AtomOp::$op;
                    let form = crate::atomic::Form { red: false, op, vec: N };
                    let old = self.atom_host::<N>(i, form, sem, scope, |k, old: T| crate::atomic::apply(op, crate::mem::Space::Global, old, values[k], values[k]));
                    crate::mem::MemOp::new(old, form.mnemonic(), crate::mem::Space::Global, i, old[0].to_bits64(), std::panic::Location::caller())
                }
                // SAFETY: `dev_addr` checked the range; alignment is the caller's (a misaligned
                // vector faults on the GPU).
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    T::$dev_atom(self.dev_addr(i, N), values, sem, scope)
                }
            }

            #[doc = concat!("`red.global.v{N}...", stringify!($op), "`: ", $what, " of elements `i..i + N`, returning nothing.")]
            #[inline(always)]
            #[track_caller]
            pub fn $red<const N: usize>(&self, i: usize, values: [T; N]) -> Mem<()>
            where
                T: $tr<N>,
            {
                self.$red_with(i, values, RedSem::Relaxed, Scope::Gpu)
            }

            #[doc = concat!("`red{.sem}{.scope}.global.v{N}...", stringify!($op), "`: ", $what, " of elements `i..i + N` (`.relaxed` or `.release`).")]
            #[inline(always)]
            #[track_caller]
            pub fn $red_with<const N: usize>(&self, i: usize, values: [T; N], sem: RedSem, scope: Scope) -> Mem<()>
            where
                T: $tr<N>,
            {
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let op = crate::semantics::atom::AtomOp::$op;
                    let form = crate::atomic::Form { red: true, op, vec: N };
                    let old = self.atom_host::<N>(i, form, sem.into(), scope, |k, old: T| crate::atomic::apply(op, crate::mem::Space::Global, old, values[k], values[k]));
                    crate::mem::MemOp::new((), form.mnemonic(), crate::mem::Space::Global, i, old[0].to_bits64(), std::panic::Location::caller())
                }
                // SAFETY: as for the `atom` form.
                #[cfg(target_arch = "nvptx64")]
                unsafe {
                    T::$dev_red(self.dev_addr(i, N), values, sem, scope)
                }
            }
        }
    )*};
}

vec_methods! {
    AtomicVecAdd, Add, atomic_add_vec, atomic_add_vec_with, red_add_vec, red_add_vec_with, atom_add_v, red_add_v, "`a[i + k] += values[k]`";
    AtomicVecMinMax, Min, atomic_min_vec, atomic_min_vec_with, red_min_vec, red_min_vec_with, atom_min_v, red_min_v, "`a[i + k] = min(a[i + k], values[k])`";
    AtomicVecMinMax, Max, atomic_max_vec, atomic_max_vec_with, red_max_vec, red_max_vec_with, atom_max_v, red_max_v, "`a[i + k] = max(a[i + k], values[k])`";
}

#[cfg(target_arch = "nvptx64")]
const _: () = assert!(core::mem::size_of::<GlobalSlice<'static, u32>>() == 16);
