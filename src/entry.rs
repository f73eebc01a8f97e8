//! Entry kernels as types: see [`EntryKernel`].

use crate::launch::LaunchConfig;
use warp_runtime::{Executor, GlobalBuffer, GlobalSlice, Grid, Target, WarpError};

/// The element types of global buffers, with their bit patterns for bitwise comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    /// `u32`
    U32,
    /// `i32`
    I32,
    /// `u64`
    U64,
    /// `i64`
    I64,
    /// `f32`
    F32,
    /// `f64`
    F64,
}

impl Elem {
    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }

    /// Whether `bits` (zero-extended) is a NaN of this type; always false for integers.
    pub fn is_nan(self, bits: u64) -> bool {
        match self {
            Elem::F32 => f32::from_bits(bits as u32).is_nan(),
            Elem::F64 => f64::from_bits(bits).is_nan(),
            _ => false,
        }
    }

    /// The Rust name of the type.
    pub const fn name(self) -> &'static str {
        match self {
            Elem::U32 => "u32",
            Elem::I32 => "i32",
            Elem::U64 => "u64",
            Elem::I64 => "i64",
            Elem::F32 => "f32",
            Elem::F64 => "f64",
        }
    }
}

/// A global-memory element type as bits: `u32`, `i32`, `u64`, `i64`, `f32`, `f64`.
pub trait Element: warp_runtime::GlobalValue {
    /// Which one.
    const ELEM: Elem;
    /// The bit pattern, zero-extended to 64 bits.
    fn elem_bits(self) -> u64;
    /// The value of a bit pattern (the low bits for 4-byte types).
    fn from_elem_bits(bits: u64) -> Self;
}

macro_rules! element {
    ($($t:ty => $e:ident, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl Element for $t {
            const ELEM: Elem = Elem::$e;
            #[inline]
            fn elem_bits(self) -> u64 { let $v = self; $to }
            #[inline]
            fn from_elem_bits($b: u64) -> Self { $from }
        }
    )*};
}

element! {
    u32 => U32, |v| v as u64, |b| b as u32;
    i32 => I32, |v| v as u32 as u64, |b| b as u32 as i32;
    u64 => U64, |v| v, |b| b;
    i64 => I64, |v| v as u64, |b| b as i64;
    f32 => F32, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    f64 => F64, |v| v.to_bits(), |b| f64::from_bits(b);
}

/// One buffer parameter's contents after a run, as bit patterns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The parameter's name.
    pub name: &'static str,
    /// Its position among the kernel's parameters after the handle.
    pub param: usize,
    /// The element type.
    pub elem: Elem,
    /// Each element's bits, zero-extended to 64.
    pub bits: Vec<u64>,
}

impl Buffer {
    /// The elements as `T` (which must be the buffer's element type).
    ///
    /// # Panics
    /// If `T` is not the buffer's element type.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        assert_eq!(T::ELEM, self.elem, "buffer `{}` holds {}, not {}", self.name, self.elem.name(), T::ELEM.name());
        self.bits.iter().map(|&b| T::from_elem_bits(b)).collect()
    }
}

/// A parameter of an entry kernel after the handle: a global buffer (`GlobalSlice<'_, T>`) or a
/// scalar passed by value (`bool`, the integers up to 64 bits, `usize`, `isize`, `f32`, `f64`).
///
/// The generated [`EntryKernel::Params`] name buffers as `GlobalSlice<'static, T>`; the lifetime
/// is only a placeholder, the CPU run borrows its own buffers.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a parameter of an entry kernel",
    note = "a launchable entry kernel takes global buffers (`GlobalSlice<'_, T>`) and scalars (`bool`, integers of up to 64 bits, `usize`, `isize`, `f32`, `f64`) after the handle"
)]
pub trait KernelParam: 'static {
    /// What the host gives for this parameter: `Vec<T>` (the buffer's initial contents) or the
    /// scalar.
    type Host: Clone;
    /// The CPU runtime's storage: a [`GlobalBuffer`], or the scalar.
    type Cpu;
    /// The kernel's argument, borrowed from the storage.
    type Arg<'b>: Copy + Sync
    where
        Self: 'b;
    /// The element type of a buffer; `None` for a scalar.
    const ELEM: Option<Elem>;
    /// The CPU storage holding `host`.
    fn to_cpu(host: &Self::Host) -> Self::Cpu;
    /// The argument for the kernel.
    fn arg(cpu: &Self::Cpu) -> Self::Arg<'_>;
    /// A buffer's contents as bits; `None` for a scalar.
    fn cpu_bits(cpu: &Self::Cpu) -> Option<Vec<u64>>;
}

impl<T: Element> KernelParam for GlobalSlice<'static, T> {
    type Host = Vec<T>;
    type Cpu = GlobalBuffer<T>;
    type Arg<'b> = GlobalSlice<'b, T>;
    const ELEM: Option<Elem> = Some(T::ELEM);
    fn to_cpu(host: &Vec<T>) -> GlobalBuffer<T> {
        GlobalBuffer::from_slice(host)
    }
    fn arg(cpu: &GlobalBuffer<T>) -> GlobalSlice<'_, T> {
        cpu.slice()
    }
    fn cpu_bits(cpu: &GlobalBuffer<T>) -> Option<Vec<u64>> {
        Some(cpu.to_vec().into_iter().map(T::elem_bits).collect())
    }
}

macro_rules! scalar_param {
    ($($t:ty),*) => {$(
        impl KernelParam for $t {
            type Host = $t;
            type Cpu = $t;
            type Arg<'b> = $t;
            const ELEM: Option<Elem> = None;
            fn to_cpu(host: &$t) -> $t {
                *host
            }
            fn arg(cpu: &$t) -> $t {
                *cpu
            }
            fn cpu_bits(_: &$t) -> Option<Vec<u64>> {
                None
            }
        }
    )*};
}

scalar_param!(bool, u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

/// The parameters of an entry kernel after the handle, as a tuple of [`KernelParam`]s (up to 12).
pub trait Params: 'static {
    /// `(P0::Host, P1::Host, ..)`.
    type Host: Clone;
    /// `(P0::Cpu, P1::Cpu, ..)`.
    type Cpu;
    /// `(P0::Arg, P1::Arg, ..)`.
    type Args<'b>: Copy + Sync
    where
        Self: 'b;
    /// Each parameter's buffer element type (`None` for a scalar).
    const ELEMS: &'static [Option<Elem>];
    /// The CPU storage of every parameter.
    fn to_cpu(host: &Self::Host) -> Self::Cpu;
    /// The kernel's arguments.
    fn args(cpu: &Self::Cpu) -> Self::Args<'_>;
    /// Each parameter's buffer contents as bits (`None` for a scalar).
    fn cpu_bits(cpu: &Self::Cpu) -> Vec<Option<Vec<u64>>>;
}

macro_rules! params_tuple {
    ($(($($p:ident $i:tt),*))*) => {$(
        impl<$($p: KernelParam),*> Params for ($($p,)*) {
            type Host = ($($p::Host,)*);
            type Cpu = ($($p::Cpu,)*);
            type Args<'b> = ($($p::Arg<'b>,)*) where Self: 'b;
            const ELEMS: &'static [Option<Elem>] = &[$($p::ELEM),*];
            #[allow(clippy::unused_unit)]
            fn to_cpu(_host: &Self::Host) -> Self::Cpu {
                ($($p::to_cpu(&_host.$i),)*)
            }
            #[allow(clippy::unused_unit)]
            fn args(_cpu: &Self::Cpu) -> Self::Args<'_> {
                ($($p::arg(&_cpu.$i),)*)
            }
            fn cpu_bits(_cpu: &Self::Cpu) -> Vec<Option<Vec<u64>>> {
                vec![$($p::cpu_bits(&_cpu.$i)),*]
            }
        }
    )*};
}

params_tuple! {
    ()
    (A 0)
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
    (A 0, B 1, C 2, D 3, E 4)
    (A 0, B 1, C 2, D 3, E 4, F 5)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10)
    (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11)
}

/// Entry kernels as types, so that one generic runner can launch any of them on the CPU runtime
/// or (feature `cuda`) on a GPU, and compare the two.
///
/// `#[warp_kernel(entry)] pub fn warp_sums(w: &Warp, input: GlobalSlice<'_, u32>, out:
/// GlobalSlice<'_, u32>)` also defines, on the host, an uninhabited `enum warp_sums {}` (a type
/// does not collide with the function of the same name) implementing [`EntryKernel`]:
/// [`EntryKernel::Params`] is the tuple of its parameter types after the handle, and
/// [`EntryKernel::run_cpu`] runs it over a [`Grid`]. With the `cuda` feature the type also gets
/// `warp_sums::launch(&module, &config, &input, &out)`, a launcher typed by those parameters.
///
/// ```
/// use warpkit::prelude::*;
/// use warpkit::{EntryKernel, LaunchConfig};
///
/// #[warp_kernel(entry)]
/// pub fn warp_sums(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, scale: u32) {
///     let i = w.global_id() as usize;
///     let s = w.redux_add(if i < input.len() { input.load(i) } else { 0 });
///     if i < out.len() {
///         out.store(i, s * scale);
///     }
/// }
///
/// assert_eq!(warp_sums::NAME, "warp_sums");
/// assert_eq!(warp_sums::PARAMS, ["input", "out", "scale"]);
/// // The CPU runtime, from host values: every buffer's contents afterwards, by parameter.
/// let out = warp_sums::run_host(&LaunchConfig::threads(40), Target::SM_90, (vec![1; 40], vec![0; 40], 2)).unwrap();
/// assert_eq!(out[1].name, "out");
/// assert_eq!(out[1].to_vec::<u32>()[0], 64);
/// assert_eq!(out[1].to_vec::<u32>()[39], 16);
/// ```
pub trait EntryKernel {
    /// The kernel's name in the PTX (`#[unsafe(no_mangle)]`: the function's name).
    const NAME: &'static str;
    /// The names of its parameters after the handle.
    const PARAMS: &'static [&'static str];
    /// The types of its parameters after the handle.
    type Params: Params;

    /// Runs the kernel on every thread of `grid`, with arguments borrowed from `cpu`.
    fn run_cpu(grid: &Grid, cpu: &<Self::Params as Params>::Cpu) -> Result<(), WarpError>;

    /// Runs the kernel in the CPU runtime for the launch `config` on `target`, from host values
    /// (`Vec<T>` per buffer, the value per scalar), and returns every buffer's contents afterwards.
    fn run_host(config: &LaunchConfig, target: Target, host: <Self::Params as Params>::Host) -> Result<Vec<Buffer>, WarpError> {
        let grid = config.cpu_grid(Executor::new().target(target));
        let cpu = <Self::Params as Params>::to_cpu(&host);
        Self::run_cpu(&grid, &cpu)?;
        Ok(buffers::<Self>(<Self::Params as Params>::cpu_bits(&cpu)))
    }
}

/// Names each buffer parameter's bits.
pub(crate) fn buffers<K: EntryKernel + ?Sized>(bits: Vec<Option<Vec<u64>>>) -> Vec<Buffer> {
    bits.into_iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let elem = <K::Params as Params>::ELEMS[i]?;
            Some(Buffer { name: K::PARAMS[i], param: i, elem, bits: b? })
        })
        .collect()
}
