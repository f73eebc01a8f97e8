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
//! | method | types | PTX instruction |
//! |---|---|---|
//! | [`atomic_add`](GlobalSlice::atomic_add) | `u32`, `i32`, `u64`, `i64`, `f32`, `f64` | `atom.global.add.{u32,s32,u64,u64,f32,f64}` (wrapping for integers) |
//! | [`atomic_min`](GlobalSlice::atomic_min), [`atomic_max`](GlobalSlice::atomic_max) | `u32`, `i32`, `u64`, `i64` | `atom.global.{min,max}.{u32,s32,u64,s64}` |
//! | [`atomic_and`](GlobalSlice::atomic_and), [`atomic_or`](GlobalSlice::atomic_or), [`atomic_xor`](GlobalSlice::atomic_xor) | `u32`, `i32`, `u64`, `i64` | `atom.global.{and,or,xor}.{b32,b64}` |
//! | [`atomic_inc`](GlobalSlice::atomic_inc), [`atomic_dec`](GlobalSlice::atomic_dec) | `u32` | `atom.global.{inc,dec}.u32` |
//! | [`atomic_exch`](GlobalSlice::atomic_exch) | all six | `atom.global.exch.{b32,b64}` |
//! | [`atomic_cas`](GlobalSlice::atomic_cas) | all six | `atom.global.cas.{b32,b64}`: compares **bit patterns** (so for floats `-0.0 != 0.0` and a NaN equals itself) |
//!
//! `atomic_add` on `f32` rounds to nearest even and, as the PTX ISA says of the global-memory
//! instruction, "flushes subnormal inputs and results to sign-preserving zero"; the host does the
//! same, and, as measured on an H100, gives the canonical NaN `0x7fffffff` for every NaN result
//! (the `f64` NaN payload is not yet checked against hardware). `i64` addition uses `atom.add.u64`: two's-complement addition is the same operation.
//!
//! Using one type for bits that another type wrote (a `u32` buffer read as `f32`) is not offered:
//! a buffer has one element type, like a typed device pointer.
//!
//! # Ordering and concurrency
//!
//! None of the atomics specifies `.sem` or `.scope`, so each is `.relaxed` at `.gpu` scope: atomic
//! with respect to every other atomic on the element, with no ordering of other memory accesses. On
//! the host each element is a `std::sync::atomic` integer and every access, plain `load`/`store`
//! included, uses [`Ordering::Relaxed`](core::sync::atomic::Ordering::Relaxed), the C++/Rust
//! counterpart of PTX `.relaxed`. That makes a buffer safe to share between warps that run on
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

/// An element type of global memory: `u32`, `i32`, `u64`, `i64`, `f32` or `f64`.
///
/// These are the scalar types of PTX `atom` with 32 and 64 bits. Every one supports
/// [`load`](GlobalSlice::load), [`store`](GlobalSlice::store), [`atomic_exch`](GlobalSlice::atomic_exch) and
/// [`atomic_cas`](GlobalSlice::atomic_cas); the other atomics depend on the type ([`AtomicAdd`],
/// [`AtomicMinMax`], [`AtomicBits`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an element of global memory",
    label = "not a global-memory element type",
    note = "global buffers hold `u32`, `i32`, `u64`, `i64`, `f32` or `f64`, the scalar types of PTX `atom`"
)]
pub trait GlobalValue: Copy + Send + Sync + 'static + sealed::Sealed + ElemBits {
    /// The host's storage for one element: the `std::sync::atomic` integer of its width.
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    type Cell: Send + Sync;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn cell(value: Self) -> Self::Cell;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn load(cell: &Self::Cell) -> Self;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn store(cell: &Self::Cell, value: Self);
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn exch(cell: &Self::Cell, value: Self) -> Self;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn cas(cell: &Self::Cell, compare: Self, new: Self) -> Self;

    /// `atom.global.exch`. Safety: `ptr` is a valid, aligned pointer to global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn exch(ptr: *mut Self, value: Self) -> Self;
    /// `atom.global.cas`. Safety: as for `exch`.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn cas(ptr: *mut Self, compare: Self, new: Self) -> Self;
}

/// An element's size and bit pattern (for shared memory, which is bytes, and for reports).
#[doc(hidden)]
pub trait ElemBits: Copy {
    /// The element's size in bytes: 4 or 8.
    const BYTES: usize;
    /// The bits, zero-extended to 64.
    fn to_bits64(self) -> u64;
    /// The value of the low `8 * BYTES` bits.
    fn from_bits64(bits: u64) -> Self;
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
}

/// An element type with `atom.add`: `u32`, `i32`, `u64`, `i64` (wrapping), `f32`, `f64`.
#[diagnostic::on_unimplemented(
    message = "PTX `atom.add` has no `{Self}` form",
    note = "`atomic_add` takes `u32`, `i32`, `u64`, `i64`, `f32` or `f64`"
)]
pub trait AtomicAdd: GlobalValue {
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn add(cell: &Self::Cell, value: Self) -> Self;
    /// Safety: `ptr` is a valid, aligned pointer to global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn add(ptr: *mut Self, value: Self) -> Self;
}

/// An element type with `atom.min` and `atom.max`: `u32`, `i32`, `u64`, `i64` (signed types
/// compare as signed).
#[diagnostic::on_unimplemented(
    message = "PTX `atom.min`/`atom.max` have no `{Self}` form",
    note = "`atomic_min` and `atomic_max` take `u32`, `i32`, `u64` or `i64`"
)]
pub trait AtomicMinMax: GlobalValue {
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn min(cell: &Self::Cell, value: Self) -> Self;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn max(cell: &Self::Cell, value: Self) -> Self;
    /// Safety: `ptr` is a valid, aligned pointer to global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn min(ptr: *mut Self, value: Self) -> Self;
    /// Safety: `ptr` is a valid, aligned pointer to global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn max(ptr: *mut Self, value: Self) -> Self;
}

/// An element type with the bitwise `atom.and`, `atom.or`, `atom.xor`: `u32`, `i32`, `u64`, `i64`.
#[diagnostic::on_unimplemented(
    message = "PTX `atom.and`/`atom.or`/`atom.xor` have no `{Self}` form",
    note = "the bitwise atomics take `u32`, `i32`, `u64` or `i64`"
)]
pub trait AtomicBits: GlobalValue {
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn and(cell: &Self::Cell, value: Self) -> Self;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn or(cell: &Self::Cell, value: Self) -> Self;
    #[cfg(not(target_arch = "nvptx64"))]
    #[doc(hidden)]
    fn xor(cell: &Self::Cell, value: Self) -> Self;
    /// Safety: `ptr` is a valid, aligned pointer to global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn and(ptr: *mut Self, value: Self) -> Self;
    /// Safety: `ptr` is a valid, aligned pointer to global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn or(ptr: *mut Self, value: Self) -> Self;
    /// Safety: `ptr` is a valid, aligned pointer to global memory.
    #[cfg(target_arch = "nvptx64")]
    #[doc(hidden)]
    unsafe fn xor(ptr: *mut Self, value: Self) -> Self;
}

/// PTX `inc(r, s) = (r >= s) ? 0 : r+1`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
const fn ptx_inc(r: u32, s: u32) -> u32 {
    if r >= s {
        0
    } else {
        r + 1
    }
}

/// PTX `dec(r, s) = (r==0 || r > s) ? s : r-1`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
const fn ptx_dec(r: u32, s: u32) -> u32 {
    if r == 0 || r > s {
        s
    } else {
        r - 1
    }
}

/// `atom.global.add.f32`: round-to-nearest-even addition that "flushes subnormal inputs and
/// results to sign-preserving zero". A NaN result is the canonical NaN `0x7fffffff`, whatever the
/// operands' NaN payloads (measured on an H100: all 119 NaN-producing cases of 441 edge-value
/// pairs; every other case matched this function bit for bit).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn ptx_add_f32_ftz(r: f32, s: f32) -> f32 {
    fn ftz(x: f32) -> f32 {
        if x.is_subnormal() {
            f32::from_bits(x.to_bits() & 0x8000_0000)
        } else {
            x
        }
    }
    let sum = ftz(ftz(r) + ftz(s));
    if sum.is_nan() {
        f32::from_bits(0x7fff_ffff)
    } else {
        sum
    }
}

// ---------------------------------------------------------------------------------------------
// Host: every element is a std atomic; every access is Relaxed (PTX `.relaxed`, the default of
// `atom` without `.sem`).
// ---------------------------------------------------------------------------------------------

#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use core::sync::atomic::Ordering::Relaxed;
    use core::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64};

    /// Integers: the std atomic of the same signedness, whose `fetch_*` operations are the PTX
    /// operations (wrapping add, signed or unsigned min/max).
    macro_rules! int_value {
        ($($t:ty => $cell:ty;)*) => {$(
            impl sealed::Sealed for $t {}
            impl GlobalValue for $t {
                type Cell = $cell;
                #[inline(always)]
                fn cell(value: Self) -> $cell { <$cell>::new(value) }
                #[inline(always)]
                fn load(cell: &$cell) -> Self { cell.load(Relaxed) }
                #[inline(always)]
                fn store(cell: &$cell, value: Self) { cell.store(value, Relaxed) }
                #[inline(always)]
                fn exch(cell: &$cell, value: Self) -> Self { cell.swap(value, Relaxed) }
                #[inline(always)]
                fn cas(cell: &$cell, compare: Self, new: Self) -> Self {
                    match cell.compare_exchange(compare, new, Relaxed, Relaxed) {
                        Ok(old) | Err(old) => old,
                    }
                }
            }
            impl AtomicAdd for $t {
                #[inline(always)]
                fn add(cell: &$cell, value: Self) -> Self { cell.fetch_add(value, Relaxed) }
            }
            impl AtomicMinMax for $t {
                #[inline(always)]
                fn min(cell: &$cell, value: Self) -> Self { cell.fetch_min(value, Relaxed) }
                #[inline(always)]
                fn max(cell: &$cell, value: Self) -> Self { cell.fetch_max(value, Relaxed) }
            }
            impl AtomicBits for $t {
                #[inline(always)]
                fn and(cell: &$cell, value: Self) -> Self { cell.fetch_and(value, Relaxed) }
                #[inline(always)]
                fn or(cell: &$cell, value: Self) -> Self { cell.fetch_or(value, Relaxed) }
                #[inline(always)]
                fn xor(cell: &$cell, value: Self) -> Self { cell.fetch_xor(value, Relaxed) }
            }
        )*};
    }

    int_value! {
        u32 => AtomicU32;
        i32 => AtomicI32;
        u64 => AtomicU64;
        i64 => AtomicI64;
    }

    /// Floats: the unsigned atomic of the same width holds the bit pattern; `cas` compares bits,
    /// like `atom.cas.b32`/`.b64`.
    macro_rules! float_value {
        ($($t:ty => $cell:ty, $add:expr;)*) => {$(
            impl sealed::Sealed for $t {}
            impl GlobalValue for $t {
                type Cell = $cell;
                #[inline(always)]
                fn cell(value: Self) -> $cell { <$cell>::new(value.to_bits()) }
                #[inline(always)]
                fn load(cell: &$cell) -> Self { <$t>::from_bits(cell.load(Relaxed)) }
                #[inline(always)]
                fn store(cell: &$cell, value: Self) { cell.store(value.to_bits(), Relaxed) }
                #[inline(always)]
                fn exch(cell: &$cell, value: Self) -> Self { <$t>::from_bits(cell.swap(value.to_bits(), Relaxed)) }
                #[inline(always)]
                fn cas(cell: &$cell, compare: Self, new: Self) -> Self {
                    match cell.compare_exchange(compare.to_bits(), new.to_bits(), Relaxed, Relaxed) {
                        Ok(old) | Err(old) => <$t>::from_bits(old),
                    }
                }
            }
            impl AtomicAdd for $t {
                #[inline(always)]
                fn add(cell: &$cell, value: Self) -> Self {
                    let add: fn($t, $t) -> $t = $add;
                    let old = cell.fetch_update(Relaxed, Relaxed, |r| Some(add(<$t>::from_bits(r), value).to_bits()));
                    match old {
                        Ok(old) | Err(old) => <$t>::from_bits(old),
                    }
                }
            }
        )*};
    }

    float_value! {
        f32 => AtomicU32, ptx_add_f32_ftz;
        f64 => AtomicU64, |r, s| r + s;
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
        #[inline(always)]
        #[track_caller]
        pub(crate) fn at(&self, i: usize) -> &T::Cell {
            match self.cells.get(i) {
                Some(cell) => cell,
                None => out_of_bounds(i, self.cells.len()),
            }
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

    /// One `atom.global` instruction with operand `b` (and `c`), preceded by the
    /// generic-to-global conversion of the address.
    macro_rules! atom {
        ($ptr:expr, $op:literal, $ty:literal, $reg:ident, $t:ty, $b:expr) => {{
            let d: $t;
            asm!(
                "{{",
                ".reg .b64 %ga;",
                "cvta.to.global.u64 %ga, {a};",
                concat!("atom.global.", $op, ".", $ty, " {d}, [%ga], {b};"),
                "}}",
                a = in(reg64) $ptr as u64,
                b = in($reg) $b,
                d = out($reg) d,
                options(nostack),
            );
            d
        }};
        ($ptr:expr, $op:literal, $ty:literal, $reg:ident, $t:ty, $b:expr, $c:expr) => {{
            let d: $t;
            asm!(
                "{{",
                ".reg .b64 %ga;",
                "cvta.to.global.u64 %ga, {a};",
                concat!("atom.global.", $op, ".", $ty, " {d}, [%ga], {b}, {c};"),
                "}}",
                a = in(reg64) $ptr as u64,
                b = in($reg) $b,
                c = in($reg) $c,
                d = out($reg) d,
                options(nostack),
            );
            d
        }};
    }

    macro_rules! value {
        ($($t:ty, $reg:ident, $bits:literal;)*) => {$(
            impl sealed::Sealed for $t {}
            impl GlobalValue for $t {
                #[inline(always)]
                unsafe fn exch(ptr: *mut $t, value: $t) -> $t {
                    atom!(ptr, "exch", $bits, $reg, $t, value)
                }
                #[inline(always)]
                unsafe fn cas(ptr: *mut $t, compare: $t, new: $t) -> $t {
                    atom!(ptr, "cas", $bits, $reg, $t, compare, new)
                }
            }
        )*};
    }

    value! {
        u32, reg32, "b32";
        i32, reg32, "b32";
        f32, reg32, "b32";
        u64, reg64, "b64";
        i64, reg64, "b64";
        f64, reg64, "b64";
    }

    macro_rules! add {
        ($($t:ty, $reg:ident, $ty:literal;)*) => {$(
            impl AtomicAdd for $t {
                #[inline(always)]
                unsafe fn add(ptr: *mut $t, value: $t) -> $t {
                    atom!(ptr, "add", $ty, $reg, $t, value)
                }
            }
        )*};
    }

    add! {
        u32, reg32, "u32";
        i32, reg32, "s32";
        u64, reg64, "u64";
        i64, reg64, "u64";
        f32, reg32, "f32";
        f64, reg64, "f64";
    }

    macro_rules! int_ops {
        ($($t:ty, $reg:ident, $ty:literal, $bits:literal;)*) => {$(
            impl AtomicMinMax for $t {
                #[inline(always)]
                unsafe fn min(ptr: *mut $t, value: $t) -> $t {
                    atom!(ptr, "min", $ty, $reg, $t, value)
                }
                #[inline(always)]
                unsafe fn max(ptr: *mut $t, value: $t) -> $t {
                    atom!(ptr, "max", $ty, $reg, $t, value)
                }
            }
            impl AtomicBits for $t {
                #[inline(always)]
                unsafe fn and(ptr: *mut $t, value: $t) -> $t {
                    atom!(ptr, "and", $bits, $reg, $t, value)
                }
                #[inline(always)]
                unsafe fn or(ptr: *mut $t, value: $t) -> $t {
                    atom!(ptr, "or", $bits, $reg, $t, value)
                }
                #[inline(always)]
                unsafe fn xor(ptr: *mut $t, value: $t) -> $t {
                    atom!(ptr, "xor", $bits, $reg, $t, value)
                }
            }
        )*};
    }

    int_ops! {
        u32, reg32, "u32", "b32";
        i32, reg32, "s32", "b32";
        u64, reg64, "u64", "b64";
        i64, reg64, "s64", "b64";
    }

    /// `ld.volatile.global` of `*ptr`. Safety: `ptr` is a valid, aligned pointer to global memory.
    pub(super) unsafe fn ld_volatile<T: GlobalValue>(ptr: *mut T) -> T {
        ptr.read_volatile()
    }

    pub(super) unsafe fn inc(ptr: *mut u32, bound: u32) -> u32 {
        atom!(ptr, "inc", "u32", reg32, u32, bound)
    }

    pub(super) unsafe fn dec(ptr: *mut u32, bound: u32) -> u32 {
        atom!(ptr, "dec", "u32", reg32, u32, bound)
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

/// An atomic read-modify-write: on the host, performed at once and returned as a scheduling
/// point ([`MemOp`](crate::MemOp)), with a write counted when the element changed; on the device,
/// one `atom` instruction.
macro_rules! atomic {
    ($self:ident, $i:expr, $op:literal, |$slot:ident| host: $host:expr, device: $device:expr) => {{
        let i = $i;
        access!($self, i, |$slot| host: {
            let site = std::panic::Location::caller();
            let access = crate::race::Access { op: $op, kind: crate::race::Kind::Rmw, order: crate::race::Order::ATOMIC };
            let old: T = crate::race::access($self.race_loc(i, 1), access, site, || {
                let old: T = $host;
                (old, old.to_bits64())
            });
            if T::load($slot).to_bits64() != old.to_bits64() {
                crate::mem::wrote();
            }
            crate::mem::MemOp::new(old, $op, crate::mem::Space::Global, i, old.to_bits64(), site)
        }, device: $device)
    }};
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
        if !start.checked_add(len).is_some_and(|end| end <= total) {
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
            crate::race::access(self.race_loc(i, 1), access, std::panic::Location::caller(), || {
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
            crate::race::access(self.race_loc(i, 1), access, std::panic::Location::caller(), || (T::store(slot, value), value.to_bits64()))
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
            let v = crate::race::access(self.race_loc(i, 1), access, site, || {
                let v = T::load(slot);
                (v, v.to_bits64())
            });
            crate::mem::MemOp::new(v, "ld.volatile", crate::mem::Space::Global, i, v.to_bits64(), site)
        }, device: device::ld_volatile(slot))
    }

    /// `atom.global.exch`: stores `value` and returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_exch(&self, i: usize, value: T) -> Mem<T> {
        atomic!(self, i, "atom.exch", |slot| host: T::exch(slot, value), device: T::exch(slot, value))
    }

    /// `atom.global.cas`: `*a = (*a == compare) ? new : *a`, comparing bit patterns; returns
    /// the old value (equal to `compare`, bitwise, exactly when the swap happened).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_cas(&self, i: usize, compare: T, new: T) -> Mem<T> {
        atomic!(self, i, "atom.cas", |slot| host: T::cas(slot, compare, new), device: T::cas(slot, compare, new))
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

impl<'g, T: AtomicAdd> GlobalSlice<'g, T> {
    /// `atom.global.add`: `*a += value` (wrapping for integers; for `f32`, round to nearest even
    /// with subnormal inputs and result flushed to sign-preserving zero); returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_add(&self, i: usize, value: T) -> Mem<T> {
        atomic!(self, i, "atom.add", |slot| host: T::add(slot, value), device: T::add(slot, value))
    }
}

impl<'g, T: AtomicMinMax> GlobalSlice<'g, T> {
    /// `atom.global.min`: `*a = min(*a, value)`; returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_min(&self, i: usize, value: T) -> Mem<T> {
        atomic!(self, i, "atom.min", |slot| host: T::min(slot, value), device: T::min(slot, value))
    }

    /// `atom.global.max`: `*a = max(*a, value)`; returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_max(&self, i: usize, value: T) -> Mem<T> {
        atomic!(self, i, "atom.max", |slot| host: T::max(slot, value), device: T::max(slot, value))
    }
}

impl<'g, T: AtomicBits> GlobalSlice<'g, T> {
    /// `atom.global.and`: `*a &= value`; returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_and(&self, i: usize, value: T) -> Mem<T> {
        atomic!(self, i, "atom.and", |slot| host: T::and(slot, value), device: T::and(slot, value))
    }

    /// `atom.global.or`: `*a |= value`; returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_or(&self, i: usize, value: T) -> Mem<T> {
        atomic!(self, i, "atom.or", |slot| host: T::or(slot, value), device: T::or(slot, value))
    }

    /// `atom.global.xor`: `*a ^= value`; returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_xor(&self, i: usize, value: T) -> Mem<T> {
        atomic!(self, i, "atom.xor", |slot| host: T::xor(slot, value), device: T::xor(slot, value))
    }
}

/// [`atomic!`] for `u32`.
macro_rules! atomic_u32 {
    ($self:ident, $i:expr, $op:literal, |$slot:ident| host: $host:expr, device: $device:expr) => {{
        type T = u32;
        atomic!($self, $i, $op, |$slot| host: $host, device: $device)
    }};
}

impl<'g> GlobalSlice<'g, u32> {
    /// `atom.global.inc.u32`: `*a = (*a >= bound) ? 0 : *a + 1` (a counter that wraps to 0 after
    /// `bound`); returns the old value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_inc(&self, i: usize, bound: u32) -> Mem<u32> {
        atomic_u32!(self, i, "atom.inc", |slot| host: {
            use core::sync::atomic::Ordering::Relaxed;
            match slot.fetch_update(Relaxed, Relaxed, |r| Some(ptx_inc(r, bound))) {
                Ok(old) | Err(old) => old,
            }
        }, device: device::inc(slot, bound))
    }

    /// `atom.global.dec.u32`: `*a = (*a == 0 || *a > bound) ? bound : *a - 1`; returns the old
    /// value.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_dec(&self, i: usize, bound: u32) -> Mem<u32> {
        atomic_u32!(self, i, "atom.dec", |slot| host: {
            use core::sync::atomic::Ordering::Relaxed;
            match slot.fetch_update(Relaxed, Relaxed, |r| Some(ptx_dec(r, bound))) {
                Ok(old) | Err(old) => old,
            }
        }, device: device::dec(slot, bound))
    }
}

#[cfg(target_arch = "nvptx64")]
const _: () = assert!(core::mem::size_of::<GlobalSlice<'static, u32>>() == 16);
