//! Running an entry kernel on the GPU and in the CPU runtime with the same inputs and launch
//! shape, and comparing every buffer bit for bit.

use std::fmt;
use std::io::Write as _;

use warp_runtime::{Target, WarpError};

use super::{CudaError, DeviceParams, Gpu, LaunchConfig, Module};
use crate::entry::{buffers, Buffer, EntryKernel, Params};

/// Which elements of a buffer may hold NaNs with different payloads on the two sides.
///
/// Bitwise is the rule; this is the exception the hardware forces for arithmetic NaNs: x86 keeps
/// an operand's payload (or makes `0xffc00000` for `inf - inf`), PTX `add` makes the canonical NaN.
/// Opt in per buffer for values that are results of float arithmetic (sums), not for values
/// that are only moved or compared (a sort's keys, a `min`), whose payload must survive.
#[derive(Clone, Copy, Debug)]
pub enum NanRule {
    /// Every element.
    All,
    /// The elements whose index the function accepts (e.g. every fifth, for interleaved results).
    Where(fn(usize) -> bool),
}

impl NanRule {
    fn covers(&self, i: usize) -> bool {
        match self {
            NanRule::All => true,
            NanRule::Where(f) => f(i),
        }
    }
}

/// Both sides' buffers after a run: the GPU's, and the CPU runtime's (or its report).
pub type Outputs = (Vec<Buffer>, Result<Vec<Buffer>, WarpError>);

/// Options of a comparison.
#[derive(Clone, Debug, Default)]
pub(super) struct Options {
    pub(super) target: Option<Target>,
    pub(super) nan: Vec<(String, NanRule)>,
}

/// The NaN rules of `options`, by parameter position.
///
/// # Panics
/// If a rule names no buffer parameter of `K`.
pub(super) fn rules_for<K: EntryKernel>(options: &Options) -> Vec<(usize, NanRule)> {
    options
        .nan
        .iter()
        .map(|(name, rule)| {
            let i = K::PARAMS.iter().position(|p| p == name).filter(|&i| <K::Params as Params>::ELEMS[i].is_some());
            let i = i.unwrap_or_else(|| panic!("`{}` has no buffer parameter `{name}`; its parameters are {:?}", K::NAME, K::PARAMS));
            (i, *rule)
        })
        .collect()
}

/// A comparison of entry kernels on one module's GPU against the CPU runtime; made by
/// [`Module::differential`].
///
/// ```no_run
/// # use warpkit::prelude::*;
/// # #[warp_kernel(entry)]
/// # pub fn sums(w: &Warp, x: GlobalSlice<'_, f32>, out: GlobalSlice<'_, f32>) {}
/// # fn main() -> Result<(), warpkit::cuda::CudaError> {
/// # let module = warpkit::cuda::Gpu::new()?.load("sm_90", "")?;
/// use warpkit::cuda::LaunchConfig;
/// let report = module
///     .differential(LaunchConfig::threads(1000))
///     .nan_payloads_may_differ("out")          // `out` holds float sums
///     .run::<sums>((vec![1.5; 1000], vec![0.0; 1000]))?;
/// assert!(report.agrees(), "{report}");
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Differential<'m> {
    module: &'m Module,
    config: LaunchConfig,
    options: Options,
}

impl<'m> Differential<'m> {
    pub(super) fn new(module: &'m Module, config: LaunchConfig) -> Differential<'m> {
        Differential { module, config, options: Options::default() }
    }

    /// The CPU runtime's target (default: the module's, [`Module::target`]).
    pub fn cpu_target(mut self, target: Target) -> Self {
        self.options.target = Some(target);
        self
    }

    /// NaNs in every element of buffer parameter `buffer` agree whatever their payloads.
    pub fn nan_payloads_may_differ(mut self, buffer: &str) -> Self {
        self.options.nan.push((buffer.to_string(), NanRule::All));
        self
    }

    /// NaNs in the elements of `buffer` whose index `elements` accepts agree whatever their
    /// payloads.
    pub fn nan_payloads_may_differ_where(mut self, buffer: &str, elements: fn(usize) -> bool) -> Self {
        self.options.nan.push((buffer.to_string(), NanRule::Where(elements)));
        self
    }

    /// Runs `K` on both sides from the same host values (`Vec<T>` per buffer, the value per
    /// scalar) and compares every buffer afterwards, inputs included.
    pub fn run<K: EntryKernel>(&self, host: <K::Params as Params>::Host) -> Result<Comparison, CudaError>
    where
        K::Params: DeviceParams,
    {
        let (gpu, cpu) = self.outputs::<K>(host)?;
        let device = format!("{} ({})", self.module.gpu.name(), self.module.gpu.sm());
        Ok(compare(K::NAME, &device, &self.config, self.target(), &gpu, cpu, &self.rules::<K>()))
    }

    /// Both sides' buffers, uncompared: for a comparison of your own (say, of results whose
    /// order depends on the order in which warps reach an atomic), then [`compare`].
    pub fn outputs<K: EntryKernel>(&self, host: <K::Params as Params>::Host) -> Result<Outputs, CudaError>
    where
        K::Params: DeviceParams,
    {
        let gpu = &self.module.gpu;
        let device = <K::Params as DeviceParams>::upload(gpu, &host)?;
        self.module.launch::<K>(&self.config, <K::Params as DeviceParams>::borrow(&device))?;
        gpu.synchronize().map_err(|e| match e {
            CudaError::Driver { source, .. } => CudaError::Driver { what: format!("running `{}`", K::NAME), source },
            e => e,
        })?;
        let gpu_out = buffers::<K>(<K::Params as DeviceParams>::download(&device)?);
        let cpu_out = K::run_host(&self.config, self.target(), host);
        Ok((gpu_out, cpu_out))
    }

    /// The NaN rules, by parameter position.
    ///
    /// # Panics
    /// If a rule names no buffer parameter of `K`.
    pub fn rules<K: EntryKernel>(&self) -> Vec<(usize, NanRule)> {
        rules_for::<K>(&self.options)
    }

    fn target(&self) -> Target {
        self.options.target.unwrap_or(self.module.target)
    }
}

/// One element that differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The element's index.
    pub index: usize,
    /// The GPU's bits.
    pub gpu: u64,
    /// The CPU runtime's bits.
    pub cpu: u64,
}

/// One buffer's comparison.
#[derive(Clone, Debug)]
pub struct BufferComparison {
    /// The GPU's contents.
    pub gpu: Buffer,
    /// The CPU runtime's contents.
    pub cpu: Buffer,
    /// Every differing element (the report shows the first few).
    pub differences: Vec<Difference>,
    /// Elements where both sides hold a NaN with different payloads and a [`NanRule`] allowed it.
    pub nan_payloads: usize,
}

/// The outcome of one comparison: every buffer of both sides, and what differs.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// The kernel.
    pub kernel: &'static str,
    /// The device, e.g. `NVIDIA H100 80GB HBM3 (sm_90)`.
    pub device: String,
    /// The launch.
    pub config: LaunchConfig,
    /// The CPU runtime's target.
    pub target: Target,
    /// Per buffer parameter, in order (empty when the CPU runtime reported an error).
    pub buffers: Vec<BufferComparison>,
    /// The CPU runtime's report of undefined behaviour or a panic, if it made one.
    pub cpu_error: Option<WarpError>,
}

impl Comparison {
    /// Whether every buffer agrees and the CPU runtime ran without a report.
    pub fn agrees(&self) -> bool {
        self.cpu_error.is_none() && self.buffers.iter().all(|b| b.differences.is_empty())
    }

    /// The number of elements that agree only through a [`NanRule`].
    pub fn nan_payloads(&self) -> usize {
        self.buffers.iter().map(|b| b.nan_payloads).sum()
    }

    /// Panics with the report unless [`agrees`](Self::agrees).
    #[track_caller]
    pub fn assert_agrees(&self) {
        assert!(self.agrees(), "{self}");
    }

    /// The comparison of buffer parameter `name`.
    pub fn buffer(&self, name: &str) -> Option<&BufferComparison> {
        self.buffers.iter().find(|b| b.gpu.name == name)
    }
}

/// How many differing elements a report lists per buffer.
const SHOWN: usize = 8;

impl fmt::Display for Comparison {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (g, b) = (self.config.grid_dim(), self.config.block_dim());
        write!(
            f,
            "`{}` on {}, grid {} x block {}, against the CPU runtime on {}: ",
            self.kernel, self.device, g, b, self.target
        )?;
        if let Some(e) = &self.cpu_error {
            return write!(f, "the CPU runtime reported\n{e}");
        }
        let differing = self.buffers.iter().filter(|b| !b.differences.is_empty()).count();
        if differing == 0 {
            write!(f, "all {} buffers agree", self.buffers.len())?;
        } else {
            write!(f, "{differing} of {} buffers differ", self.buffers.len())?;
        }
        if self.nan_payloads() > 0 {
            write!(f, " ({} NaNs with different payloads allowed)", self.nan_payloads())?;
        }
        for c in self.buffers.iter().filter(|b| !b.differences.is_empty()) {
            let width = 2 * c.gpu.elem.size();
            write!(
                f,
                "\n  buffer `{}` (parameter {}, {}, {} elements): {} elements differ",
                c.gpu.name,
                c.gpu.param,
                c.gpu.elem.name(),
                c.gpu.bits.len(),
                c.differences.len()
            )?;
            for d in c.differences.iter().take(SHOWN) {
                write!(f, "\n    [{}] GPU {:#0w$x}  CPU {:#0w$x}", d.index, d.gpu, d.cpu, w = width + 2)?;
            }
            if c.differences.len() > SHOWN {
                write!(f, "\n    ...")?;
            }
        }
        Ok(())
    }
}

/// Compares both sides' buffers element by element, bitwise, except where a [`NanRule`] (by
/// parameter position) lets two NaNs agree. Buffers of different lengths differ at every index
/// past the shorter one.
pub fn compare(
    kernel: &'static str,
    device: &str,
    config: &LaunchConfig,
    target: Target,
    gpu_out: &[Buffer],
    cpu_out: Result<Vec<Buffer>, WarpError>,
    rules: &[(usize, NanRule)],
) -> Comparison {
    let mut c = Comparison {
        kernel,
        device: device.to_string(),
        config: *config,
        target,
        buffers: Vec::new(),
        cpu_error: None,
    };
    let cpu_out = match cpu_out {
        Ok(b) => b,
        Err(e) => {
            c.cpu_error = Some(e);
            return c;
        }
    };
    for (g, cb) in gpu_out.iter().zip(&cpu_out) {
        let mut bc = BufferComparison { gpu: g.clone(), cpu: cb.clone(), differences: Vec::new(), nan_payloads: 0 };
        for i in 0..g.bits.len().max(cb.bits.len()) {
            let (x, y) = (g.bits.get(i).copied(), cb.bits.get(i).copied());
            if x == y {
                continue;
            }
            if let (Some(x), Some(y)) = (x, y) {
                let nan_ok = g.elem.is_nan(x) && g.elem.is_nan(y) && rules.iter().any(|(p, r)| *p == g.param && r.covers(i));
                if nan_ok {
                    bc.nan_payloads += 1;
                    continue;
                }
            }
            bc.differences.push(Difference { index: i, gpu: x.unwrap_or(u64::MAX), cpu: y.unwrap_or(u64::MAX) });
        }
        c.buffers.push(bc);
    }
    c
}

/// What [`DifferentialTest::run`] found.
#[derive(Debug)]
pub enum Outcome {
    /// No GPU here (no driver, or no device): nothing was compared.
    Skipped(CudaError),
    /// Both sides ran.
    Compared(Comparison),
    /// The GPU side failed (loading, launching, a kernel fault).
    Failed(CudaError),
}

impl Outcome {
    /// Passes when skipped or when both sides agree, saying which on stderr (past the test
    /// harness's capture, so a plain `cargo test` shows it); panics with the report otherwise.
    #[track_caller]
    pub fn assert_agrees(self) {
        match self {
            Outcome::Skipped(why) => {
                // libtest captures `print!`/`eprint!`, not writes to the stream itself: this line
                // shows in a plain `cargo test`.
                let _ = writeln!(std::io::stderr(), "warpkit: GPU comparison skipped: {why}");
            }
            Outcome::Compared(c) => {
                c.assert_agrees();
                let _ = writeln!(std::io::stderr(), "warpkit: {c}");
            }
            Outcome::Failed(e) => panic!("warpkit: the GPU side failed: {e}"),
        }
    }
}

/// The comparison as one call, for tests: finds the GPU, loads the best of `ptx` (the `ALL` of
/// `warpkit::include_ptx!()`), runs the kernel on both sides, and compares; with no GPU it
/// skips. See [`DifferentialTest`].
///
/// ```no_run
/// # use warpkit::prelude::*;
/// # #[warp_kernel(entry)]
/// # pub fn warp_sums(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {}
/// # mod ptx { pub const ALL: &[(&str, &str)] = &[]; }
/// use warpkit::cuda::{differential, LaunchConfig};
///
/// let input: Vec<u32> = (0..1000).collect();
/// differential(ptx::ALL, LaunchConfig::threads(1000))
///     .run::<warp_sums>((input, vec![0; 1000]))
///     .assert_agrees();
/// ```
pub fn differential(ptx: &'static [(&'static str, &'static str)], config: LaunchConfig) -> DifferentialTest {
    DifferentialTest { ptx, config, options: Options::default() }
}

/// A GPU-against-CPU comparison that finds its own GPU; made by [`differential`].
#[derive(Clone, Debug)]
pub struct DifferentialTest {
    ptx: &'static [(&'static str, &'static str)],
    config: LaunchConfig,
    options: Options,
}

impl DifferentialTest {
    /// As [`Differential::cpu_target`].
    pub fn cpu_target(mut self, target: Target) -> Self {
        self.options.target = Some(target);
        self
    }

    /// As [`Differential::nan_payloads_may_differ`].
    pub fn nan_payloads_may_differ(mut self, buffer: &str) -> Self {
        self.options.nan.push((buffer.to_string(), NanRule::All));
        self
    }

    /// As [`Differential::nan_payloads_may_differ_where`].
    pub fn nan_payloads_may_differ_where(mut self, buffer: &str, elements: fn(usize) -> bool) -> Self {
        self.options.nan.push((buffer.to_string(), NanRule::Where(elements)));
        self
    }

    /// Runs and compares; see [`Outcome`].
    pub fn run<K: EntryKernel>(&self, host: <K::Params as Params>::Host) -> Outcome
    where
        K::Params: DeviceParams,
    {
        let gpu = match Gpu::new() {
            Ok(g) => g,
            Err(e) if e.is_no_gpu() => return Outcome::Skipped(e),
            Err(e) => return Outcome::Failed(e),
        };
        let module = match gpu.load_best(self.ptx) {
            Ok(m) => m,
            Err(e) => return Outcome::Failed(e),
        };
        let d = Differential { module: &module, config: self.config, options: self.options.clone() };
        match d.run::<K>(host) {
            Ok(c) => Outcome::Compared(c),
            Err(e) => Outcome::Failed(e),
        }
    }
}
