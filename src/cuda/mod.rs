//! Launching entry kernels on a GPU, and checking that the GPU computes what the CPU runtime
//! does (feature `cuda`).
//!
//! Built on [cudarc](https://docs.rs/cudarc) with dynamic loading: a crate using this module
//! builds on any machine, with no CUDA toolkit, and opens the driver (`libcuda`) when a [`Gpu`] is
//! made. Without a driver or a device, [`Gpu::new`] says so ([`CudaError::NoDriver`],
//! [`CudaError::NoDevice`]) and [`differential`] skips with a message, so one test passes on a
//! machine without a GPU and compares on one with.
//!
//! ```no_run
//! use warpkit::prelude::*;
//! use warpkit::cuda::{Gpu, LaunchConfig};
//!
//! #[warp_kernel(entry)]
//! pub fn scale(w: &Warp, x: GlobalSlice<'_, f32>, factor: f32) {
//!     let i = w.global_id() as usize;
//!     if i < x.len() {
//!         x.store(i, x.load(i) * factor);
//!     }
//! }
//!
//! # const PTX: &str = "";
//! let gpu = Gpu::new()?;                          // device 0
//! let module = gpu.load("sm_90", PTX)?;           // a PTX module of this crate, e.g. from warpkit-build
//! let x = gpu.upload(&[1.0f32, 2.0, 3.0])?;       // DeviceBuffer<f32>
//! scale::launch(&module, &LaunchConfig::threads(3), &x, 2.0)?;
//! assert_eq!(x.to_vec()?, [2.0, 4.0, 6.0]);
//! # Ok::<(), warpkit::cuda::CudaError>(())
//! ```
//!
//! The typed `launch` takes a [`DeviceBuffer<T>`] for each `GlobalSlice<'_, T>` parameter and the
//! value for each scalar, in order; hand-written `extern "ptx-kernel"` functions (raw pointers)
//! launch through [`Module::launch_raw`].

mod differential;

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DevicePtr, DeviceRepr, DriverError,
    ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;
use warp_runtime::{GlobalBuffer, GlobalSlice, Target};

pub use crate::entry::{Buffer, Elem, Element, EntryKernel, KernelParam, Params};
pub use crate::launch::LaunchConfig;
pub use differential::{compare, differential, BufferComparison, Comparison, Difference, Differential, DifferentialTest, NanRule, Outcome, Outputs};

/// Re-exported so that programs needing more (events, streams, cubins) reach the same cudarc.
pub use cudarc;

/// What can go wrong on the GPU side.
#[non_exhaustive]
pub enum CudaError {
    /// `libcuda` could not be loaded: no NVIDIA driver on this machine.
    NoDriver,
    /// The driver is there but the device could not be opened (no GPU, or a broken driver).
    NoDevice {
        /// The device asked for.
        ordinal: usize,
        /// The driver's error.
        source: DriverError,
    },
    /// A driver call failed.
    Driver {
        /// What was being done.
        what: String,
        /// The driver's error.
        source: DriverError,
    },
    /// None of the PTX modules can run on this device.
    NoModule {
        /// The device's compute capability, as a target.
        device: String,
        /// The targets there was PTX for.
        built: Vec<String>,
    },
    /// A module's target is not of the form `sm_<NN>[a|f]`.
    BadTarget(String),
    /// A module file could not be read.
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

impl CudaError {
    /// Whether this machine cannot run GPU code at all (no driver, no device): the case in which
    /// [`differential`] skips.
    pub fn is_no_gpu(&self) -> bool {
        matches!(self, CudaError::NoDriver | CudaError::NoDevice { .. })
    }

    fn driver(what: impl Into<String>) -> impl FnOnce(DriverError) -> CudaError {
        let what = what.into();
        move |source| CudaError::Driver { what, source }
    }
}

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CudaError::NoDriver => write!(f, "no CUDA driver found (libcuda.so could not be loaded): run this on a machine with an NVIDIA GPU and its driver"),
            CudaError::NoDevice { ordinal, source } => write!(f, "CUDA device {ordinal} could not be opened: {source:?}"),
            CudaError::Driver { what, source } => write!(f, "{what}: {source:?}"),
            CudaError::NoModule { device, built } => write!(
                f,
                "no PTX module runs on this {device} device: there is PTX for {}; build for {device} or an older target",
                built.join(", ")
            ),
            CudaError::BadTarget(t) => write!(f, "`{t}` is not a PTX target: expected `sm_<NN>` with an optional `a` or `f`, such as `sm_90`"),
            CudaError::Io { what, source } => write!(f, "{what}: {source}"),
        }
    }
}

impl fmt::Debug for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for CudaError {}

/// A GPU: a CUDA context on one device and its default stream.
#[derive(Clone)]
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu").field("ordinal", &self.ctx.ordinal()).field("name", &self.name()).finish()
    }
}

impl Gpu {
    /// Device 0.
    pub fn new() -> Result<Gpu, CudaError> {
        Gpu::device(0)
    }

    /// Device `ordinal`.
    pub fn device(ordinal: usize) -> Result<Gpu, CudaError> {
        // SAFETY: only tries to open the library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(CudaError::NoDriver);
        }
        let ctx = CudaContext::new(ordinal).map_err(|source| CudaError::NoDevice { ordinal, source })?;
        let stream = ctx.default_stream();
        Ok(Gpu { ctx, stream })
    }

    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub fn name(&self) -> String {
        self.ctx.name().unwrap_or_else(|e| format!("? ({e:?})"))
    }

    /// The device's compute capability, e.g. `(9, 0)`.
    pub fn compute_capability(&self) -> (u32, u32) {
        let (major, minor) = self.ctx.compute_capability().unwrap_or((0, 0));
        (major as u32, minor as u32)
    }

    /// The device's architecture as a target, e.g. `sm_90`.
    pub fn sm(&self) -> String {
        let (major, minor) = self.compute_capability();
        format!("sm_{major}{minor}")
    }

    /// Loads a PTX module built for `sm` (the CPU side of a comparison models that target).
    pub fn load(&self, sm: &str, ptx: &str) -> Result<Module, CudaError> {
        let target: Target = sm.parse().map_err(|_| CudaError::BadTarget(sm.to_string()))?;
        let module = self.ctx.load_module(Ptx::from_src(ptx)).map_err(CudaError::driver(format!("loading the {sm} PTX")))?;
        Ok(Module { gpu: self.clone(), module, sm: sm.to_string(), target })
    }

    /// Loads a module from a file: PTX (`.ptx`) or a cubin that ptxas made for this device.
    pub fn load_file(&self, sm: &str, path: impl AsRef<std::path::Path>) -> Result<Module, CudaError> {
        let path = path.as_ref();
        let target: Target = sm.parse().map_err(|_| CudaError::BadTarget(sm.to_string()))?;
        let what = format!("loading {}", path.display());
        let ptx = if path.extension().is_some_and(|e| e == "ptx") {
            let src = std::fs::read_to_string(path).map_err(|e| CudaError::Io { what: what.clone(), source: e })?;
            Ptx::from_src(src)
        } else {
            if !path.is_file() {
                return Err(CudaError::Io { what, source: std::io::Error::from(std::io::ErrorKind::NotFound) });
            }
            Ptx::from_file(path)
        };
        let module = self.ctx.load_module(ptx).map_err(CudaError::driver(what))?;
        Ok(Module { gpu: self.clone(), module, sm: sm.to_string(), target })
    }

    /// Loads, from `(target, PTX)` pairs (`ALL` of the module `warpkit::include_ptx!()` includes),
    /// the newest target this device runs: the highest `sm_NN` not above the device's, an `a`
    /// target only on exactly its device, an `f` target only within its family.
    pub fn load_best(&self, modules: &[(&str, &str)]) -> Result<Module, CudaError> {
        let (major, minor) = self.compute_capability();
        match best_module(major * 10 + minor, modules.iter().map(|(sm, _)| *sm)) {
            Some(i) => self.load(modules[i].0, modules[i].1),
            None => Err(CudaError::NoModule { device: self.sm(), built: modules.iter().map(|(sm, _)| sm.to_string()).collect() }),
        }
    }

    /// A device buffer holding `data`.
    pub fn upload<T: DeviceElement>(&self, data: &[T]) -> Result<DeviceBuffer<T>, CudaError> {
        // At least one element, so that an empty buffer still has a valid pointer (its length,
        // which the kernel sees, is 0).
        let slice = if data.is_empty() {
            self.stream.alloc_zeros::<T>(1)
        } else {
            self.stream.clone_htod(data)
        }
        .map_err(CudaError::driver(format!("copying {} {} to the GPU", data.len(), T::ELEM.name())))?;
        Ok(DeviceBuffer { slice, len: data.len(), stream: self.stream.clone() })
    }

    /// A device buffer of `len` zeros.
    pub fn zeros<T: DeviceElement>(&self, len: usize) -> Result<DeviceBuffer<T>, CudaError> {
        let slice = self.stream.alloc_zeros::<T>(len.max(1)).map_err(CudaError::driver(format!("allocating {len} {}", T::ELEM.name())))?;
        Ok(DeviceBuffer { slice, len, stream: self.stream.clone() })
    }

    /// A device buffer holding a copy of a CPU runtime buffer.
    pub fn upload_global<T: DeviceElement>(&self, buffer: &GlobalBuffer<T>) -> Result<DeviceBuffer<T>, CudaError> {
        self.upload(&buffer.to_vec())
    }

    /// Waits for everything queued on the stream; reports a kernel that faulted.
    pub fn synchronize(&self) -> Result<(), CudaError> {
        self.stream.synchronize().map_err(CudaError::driver("synchronizing"))
    }

    /// The cudarc context, for what this module does not cover.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every launch and copy of this `Gpu` uses.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

/// Which of `targets` a device of compute capability `device` (times ten) should load: the highest
/// `sm_NN` not above it, an `a` target only on exactly its sm, an `f` target only within its
/// family; at equal sm, `a` (all of the sm's features) before `f` before none.
fn best_module<'a>(device: u32, targets: impl Iterator<Item = &'a str>) -> Option<usize> {
    use warp_runtime::ArchSuffix;
    targets
        .enumerate()
        .filter_map(|(i, sm)| {
            let t: Target = sm.parse().ok()?;
            let runs = match t.suffix {
                ArchSuffix::None => t.sm <= device,
                ArchSuffix::A => t.sm == device,
                ArchSuffix::F => t.sm <= device && t.sm / 10 == device / 10,
            };
            let rank = match t.suffix {
                ArchSuffix::None => 0,
                ArchSuffix::F => 1,
                ArchSuffix::A => 2,
            };
            runs.then_some(((t.sm, rank), i))
        })
        .max()
        .map(|(_, i)| i)
}

/// The element types of device buffers: those of global memory.
pub trait DeviceElement: Element + DeviceRepr + ValidAsZeroBits {}
impl<T: Element + DeviceRepr + ValidAsZeroBits> DeviceElement for T {}

/// `len` elements of `T` in GPU memory; a kernel's `GlobalSlice<'_, T>` parameter.
pub struct DeviceBuffer<T> {
    slice: CudaSlice<T>,
    len: usize,
    stream: Arc<CudaStream>,
}

impl<T> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DeviceBuffer<{}>({} elements)", std::any::type_name::<T>(), self.len)
    }
}

impl<T: DeviceElement> DeviceBuffer<T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The elements, copied to the host (after the work queued before).
    pub fn to_vec(&self) -> Result<Vec<T>, CudaError> {
        let mut v = self.stream.clone_dtoh(&self.slice).map_err(CudaError::driver(format!("copying {} {} from the GPU", self.len, T::ELEM.name())))?;
        v.truncate(self.len);
        Ok(v)
    }

    /// The elements as a CPU runtime buffer.
    pub fn to_global(&self) -> Result<GlobalBuffer<T>, CudaError> {
        Ok(GlobalBuffer::from_slice(&self.to_vec()?))
    }

    /// Overwrites the elements with `data`.
    ///
    /// # Panics
    /// If `data.len()` is not [`len`](Self::len).
    pub fn copy_from(&mut self, data: &[T]) -> Result<(), CudaError> {
        assert_eq!(data.len(), self.len, "copy_from: {} elements into a buffer of {}", data.len(), self.len);
        if data.is_empty() {
            return Ok(());
        }
        self.stream.memcpy_htod(data, &mut self.slice).map_err(CudaError::driver("copying to the GPU"))
    }

    /// The cudarc allocation (at least one element long, even when [`len`](Self::len) is 0).
    pub fn cuda_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// The device address of the first element (for driver calls such as `cuMemsetD8Async`).
    pub fn device_ptr(&self) -> u64 {
        self.slice.device_ptr(&self.stream).0
    }
}

/// One kernel argument of [`Module::launch_raw`]: a device pointer, a `GlobalSlice` (pointer and
/// length) or a scalar, borrowing the buffer it points into.
#[derive(Clone, Copy, Debug)]
pub struct RawArg<'a> {
    value: ArgValue,
    _borrow: PhantomData<&'a ()>,
}

/// The bytes of one argument, as the kernel's parameter has them.
#[derive(Clone, Copy, Debug)]
enum ArgValue {
    Bool(bool),
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    Usize(usize),
    Isize(isize),
    U32(u32),
    I32(i32),
    U64(u64),
    I64(i64),
    F32(f32),
    F64(f64),
    Slice(SliceArg),
}

/// `GlobalSlice<'_, T>` on nvptx64: `#[repr(C)] { ptr: *mut T, len: usize }`, passed by value
/// (warp-runtime's `global.rs`; `cargo xtask ptx` builds kernels taking it for every target).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct SliceArg {
    ptr: u64,
    len: u64,
}


impl<'a> RawArg<'a> {
    /// The device pointer to the buffer's first element (a `*const T`/`*mut T` parameter).
    pub fn ptr<T: DeviceElement>(buffer: &'a DeviceBuffer<T>) -> RawArg<'a> {
        RawArg { value: ArgValue::U64(buffer.device_ptr()), _borrow: PhantomData }
    }

    /// The buffer as a `GlobalSlice<'_, T>` parameter: its pointer and length.
    pub fn slice<T: DeviceElement>(buffer: &'a DeviceBuffer<T>) -> RawArg<'a> {
        RawArg { value: ArgValue::Slice(SliceArg { ptr: buffer.device_ptr(), len: buffer.len as u64 }), _borrow: PhantomData }
    }
}

macro_rules! raw_scalar {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for RawArg<'_> {
            fn from(x: $t) -> Self {
                RawArg { value: ArgValue::$v(x), _borrow: PhantomData }
            }
        }
    )*};
}
raw_scalar!(bool => Bool, u8 => U8, i8 => I8, u16 => U16, i16 => I16, usize => Usize, isize => Isize, u32 => U32, i32 => I32, u64 => U64, i64 => I64, f32 => F32, f64 => F64);

/// A loaded PTX module, and the target it was built for.
#[derive(Clone)]
pub struct Module {
    gpu: Gpu,
    module: Arc<CudaModule>,
    sm: String,
    target: Target,
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module").field("sm", &self.sm).field("gpu", &self.gpu).finish()
    }
}

impl Module {
    /// The target the PTX was built for, as given to [`Gpu::load`].
    pub fn sm(&self) -> &str {
        &self.sm
    }

    /// The same as a CPU runtime [`Target`]: what a comparison runs the CPU side on by default.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The GPU the module is loaded on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// A kernel of the module, looked up once for many launches.
    pub fn kernel(&self, name: &str) -> Result<Kernel, CudaError> {
        let function = self.module.load_function(name).map_err(CudaError::driver(format!("no kernel `{name}` in the {} module", self.sm)))?;
        Ok(Kernel { function, name: name.to_string(), stream: self.gpu.stream.clone() })
    }

    /// Queues entry kernel `K` with typed arguments: a `&DeviceBuffer<T>` for each
    /// `GlobalSlice<'_, T>` parameter, the value for each scalar. Errors of the kernel itself
    /// show at the next synchronization ([`Gpu::synchronize`], [`DeviceBuffer::to_vec`]).
    pub fn launch<K: EntryKernel>(&self, config: &LaunchConfig, args: <K::Params as DeviceParams>::Launch<'_>) -> Result<(), CudaError>
    where
        K::Params: DeviceParams,
    {
        self.launch_raw(K::NAME, config, &<K::Params as DeviceParams>::raw_args(args))
    }

    /// Queues a kernel with untyped arguments, for hand-written `extern "ptx-kernel"` functions.
    pub fn launch_raw(&self, name: &str, config: &LaunchConfig, args: &[RawArg<'_>]) -> Result<(), CudaError> {
        self.kernel(name)?.launch_raw(config, args)
    }

    /// A comparison of entry kernels on this module's GPU against the CPU runtime.
    pub fn differential(&self, config: LaunchConfig) -> Differential<'_> {
        Differential::new(self, config)
    }
}

/// One kernel of a [`Module`], looked up once ([`Module::kernel`]).
#[derive(Clone, Debug)]
pub struct Kernel {
    function: CudaFunction,
    name: String,
    stream: Arc<CudaStream>,
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The cudarc function (registers, occupancy, attributes).
    pub fn function(&self) -> &CudaFunction {
        &self.function
    }

    /// Queues the kernel with untyped arguments: each `RawArg` must be what the kernel's parameter
    /// at its position is (a pointer, a `GlobalSlice`, a scalar of that type).
    pub fn launch_raw(&self, config: &LaunchConfig, args: &[RawArg<'_>]) -> Result<(), CudaError> {
        self.launch_ex(config, args)
    }

    /// Every launch: `cuLaunchKernelEx`, with the cluster dimension and the programmatic stream
    /// serialization attributes when the launch has them (cudarc's launch builder has no launch
    /// attributes).
    fn launch_ex(&self, config: &LaunchConfig, args: &[RawArg<'_>]) -> Result<(), CudaError> {
        use cudarc::driver::sys;
        let (g, t) = (config.grid_dim(), config.block_dim());
        self.stream.context().bind_to_thread().map_err(CudaError::driver(format!("making the context of `{}` current", self.name)))?;
        // Each argument's bytes, kept alive for the call; the driver reads them through pointers.
        let mut values: Vec<ArgValue> = args.iter().map(|a| a.value).collect();
        let mut ptrs: Vec<*mut core::ffi::c_void> = values
            .iter_mut()
            .map(|v| match v {
                ArgValue::Bool(x) => x as *mut bool as *mut core::ffi::c_void,
                ArgValue::U8(x) => x as *mut u8 as *mut _,
                ArgValue::I8(x) => x as *mut i8 as *mut _,
                ArgValue::U16(x) => x as *mut u16 as *mut _,
                ArgValue::I16(x) => x as *mut i16 as *mut _,
                ArgValue::Usize(x) => x as *mut usize as *mut _,
                ArgValue::Isize(x) => x as *mut isize as *mut _,
                ArgValue::U32(x) => x as *mut u32 as *mut _,
                ArgValue::I32(x) => x as *mut i32 as *mut _,
                ArgValue::U64(x) => x as *mut u64 as *mut _,
                ArgValue::I64(x) => x as *mut i64 as *mut _,
                ArgValue::F32(x) => x as *mut f32 as *mut _,
                ArgValue::F64(x) => x as *mut f64 as *mut _,
                ArgValue::Slice(x) => x as *mut SliceArg as *mut _,
            })
            .collect();
        let mut attrs: Vec<sys::CUlaunchAttribute> = Vec::new();
        if let Some(c) = config.cluster_dim() {
            // SAFETY: a zeroed attribute is a valid C struct; its id and the cluster member are set.
            let mut attr: sys::CUlaunchAttribute = unsafe { core::mem::zeroed() };
            attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attr.value.clusterDim.x = c.x;
            attr.value.clusterDim.y = c.y;
            attr.value.clusterDim.z = c.z;
            attrs.push(attr);
        }
        if config.is_programmatic_dependent() {
            // SAFETY: as above; the member of this id is set.
            let mut attr: sys::CUlaunchAttribute = unsafe { core::mem::zeroed() };
            attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            attrs.push(attr);
        }
        let cfg = sys::CUlaunchConfig {
            gridDimX: g.x,
            gridDimY: g.y,
            gridDimZ: g.z,
            blockDimX: t.x,
            blockDimY: t.y,
            blockDimZ: t.z,
            sharedMemBytes: config.shared_bytes(),
            hStream: self.stream.cu_stream(),
            attrs: attrs.as_mut_ptr(),
            numAttrs: attrs.len() as u32,
        };
        // SAFETY: the function and stream are live; `ptrs` points at `values`, one per parameter
        // (the caller's claim, as for `launch_raw`); both outlive the call, which copies them.
        let r = unsafe { sys::cuLaunchKernelEx(&cfg, self.function.cu_function(), ptrs.as_mut_ptr(), core::ptr::null_mut()) };
        let how = match config.cluster_dim() {
            Some(c) => format!(", clusters of {c}"),
            None => String::new(),
        } + if config.is_programmatic_dependent() { ", programmatic dependent" } else { "" };
        r.result().map_err(CudaError::driver(format!("launching `{}` ({} x {}{how})", self.name, g, t)))
    }
}

/// A [`KernelParam`] on the GPU: a [`DeviceBuffer`] for a buffer, the value for a scalar.
pub trait DeviceParam: KernelParam {
    /// The GPU storage.
    type Device;
    /// What a typed launch takes: `&DeviceBuffer<T>`, or the scalar.
    type Launch<'b>: Copy;
    /// The storage holding `host`.
    fn upload(gpu: &Gpu, host: &Self::Host) -> Result<Self::Device, CudaError>;
    /// The launch argument of the storage.
    fn borrow(device: &Self::Device) -> Self::Launch<'_>;
    /// The bytes the kernel gets.
    fn raw<'b>(launch: Self::Launch<'b>) -> RawArg<'b>;
    /// A buffer's contents as bits; `None` for a scalar.
    fn download(device: &Self::Device) -> Result<Option<Vec<u64>>, CudaError>;
}

impl<T: DeviceElement> DeviceParam for GlobalSlice<'static, T> {
    type Device = DeviceBuffer<T>;
    type Launch<'b> = &'b DeviceBuffer<T>;
    fn upload(gpu: &Gpu, host: &Vec<T>) -> Result<DeviceBuffer<T>, CudaError> {
        gpu.upload(host)
    }
    fn borrow(device: &DeviceBuffer<T>) -> &DeviceBuffer<T> {
        device
    }
    fn raw<'b>(launch: Self::Launch<'b>) -> RawArg<'b> {
        RawArg::slice(launch)
    }
    fn download(device: &DeviceBuffer<T>) -> Result<Option<Vec<u64>>, CudaError> {
        Ok(Some(device.to_vec()?.into_iter().map(T::elem_bits).collect()))
    }
}

macro_rules! scalar_device_param {
    ($($t:ty),*) => {$(
        impl DeviceParam for $t {
            type Device = $t;
            type Launch<'b> = $t;
            fn upload(_: &Gpu, host: &$t) -> Result<$t, CudaError> {
                Ok(*host)
            }
            fn borrow(device: &$t) -> $t {
                *device
            }
            fn raw<'b>(launch: Self::Launch<'b>) -> RawArg<'b> {
                RawArg::from(launch)
            }
            fn download(_: &$t) -> Result<Option<Vec<u64>>, CudaError> {
                Ok(None)
            }
        }
    )*};
}
scalar_device_param!(bool, u8, i8, u16, i16, u32, i32, u64, i64, usize, isize, f32, f64);

/// [`Params`] on the GPU: a tuple of [`DeviceParam`]s.
pub trait DeviceParams: Params {
    /// `(P0::Device, ..)`.
    type Device;
    /// `(P0::Launch, ..)`.
    type Launch<'b>: Copy;
    /// Every parameter's storage.
    fn upload(gpu: &Gpu, host: &Self::Host) -> Result<Self::Device, CudaError>;
    /// The launch arguments of the storage.
    fn borrow(device: &Self::Device) -> Self::Launch<'_>;
    /// The kernel's argument bytes.
    fn raw_args<'b>(launch: Self::Launch<'b>) -> Vec<RawArg<'b>>;
    /// Each parameter's buffer contents as bits (`None` for a scalar).
    fn download(device: &Self::Device) -> Result<Vec<Option<Vec<u64>>>, CudaError>;
}

macro_rules! device_params_tuple {
    ($(($($p:ident $i:tt),*))*) => {$(
        impl<$($p: DeviceParam),*> DeviceParams for ($($p,)*) {
            type Device = ($($p::Device,)*);
            type Launch<'b> = ($($p::Launch<'b>,)*);
            #[allow(clippy::unused_unit)]
            fn upload(_gpu: &Gpu, _host: &Self::Host) -> Result<Self::Device, CudaError> {
                Ok(($($p::upload(_gpu, &_host.$i)?,)*))
            }
            #[allow(clippy::unused_unit)]
            fn borrow(_device: &Self::Device) -> Self::Launch<'_> {
                ($($p::borrow(&_device.$i),)*)
            }
            fn raw_args<'b>(_launch: Self::Launch<'b>) -> Vec<RawArg<'b>> {
                vec![$($p::raw(_launch.$i)),*]
            }
            fn download(_device: &Self::Device) -> Result<Vec<Option<Vec<u64>>>, CudaError> {
                Ok(vec![$($p::download(&_device.$i)?),*])
            }
        }
    )*};
}

device_params_tuple! {
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

/// The typed launcher of an entry kernel: with the `cuda` feature, `<kernel>::launch(&module,
/// &config, args..)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __cuda_launch {
    ([$(#[$cfg:meta])*] $vis:vis $name:ident ($($param:ident: $ty:ty),*)) => {
        $(#[$cfg])*
        #[cfg(not(target_arch = "nvptx64"))]
        impl $name {
            #[doc = ::core::concat!(
                "Queues `", ::core::stringify!($name), "` on the GPU of `module`: a `&DeviceBuffer<T>` for each ",
                "`GlobalSlice<'_, T>` parameter, the value for each scalar."
            )]
            #[allow(clippy::too_many_arguments, dead_code)]
            $vis fn launch(
                module: &$crate::cuda::Module,
                config: &$crate::cuda::LaunchConfig,
                $($param: <$ty as $crate::cuda::DeviceParam>::Launch<'_>),*
            ) -> ::core::result::Result<(), $crate::cuda::CudaError> {
                module.launch::<Self>(config, ($($param,)*))
            }
        }
    };
}

#[cfg(test)]
mod tests;
