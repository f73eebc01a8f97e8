//! What can go wrong, each with a sentence saying what to do.

use std::fmt;
use std::path::PathBuf;

/// The install command for a nightly toolchain with everything the nvptx64 build needs.
pub const INSTALL_NIGHTLY: &str = "rustup toolchain install nightly --component rust-src";
/// The install command for the `rust-src` component of the nightly toolchain.
pub const INSTALL_RUST_SRC: &str = "rustup component add rust-src --toolchain nightly";
/// How to get `ptxas` without the CUDA toolkit (it is in PyPI's CUDA compiler wheel).
pub const INSTALL_PTXAS: &str = "install the CUDA toolkit (its `bin/` has ptxas), or run `python3 -m pip install --target ptxas-wheel nvidia-cuda-nvcc-cu12` and set PTXAS=ptxas-wheel/nvidia/cuda_nvcc/bin/ptxas";

/// A failed PTX build. `Display` (and `Debug`, so that `.unwrap()` in a build script prints the
/// same) is one paragraph that names what is missing or broken and how to fix it.
#[non_exhaustive]
pub enum Error {
    /// `rustc +<toolchain>` could not run: the toolchain is not installed (or rustup is missing).
    MissingToolchain {
        /// The toolchain asked for, e.g. `nightly`.
        toolchain: String,
        /// What rustup or the OS said.
        detail: String,
    },
    /// The toolchain is installed but is not a nightly (or dev) build, so `-Zbuild-std` is refused.
    NotNightly {
        /// The toolchain asked for.
        toolchain: String,
        /// Its `rustc --version`.
        version: String,
    },
    /// The toolchain lacks the `rust-src` component that `-Zbuild-std=core` compiles `core` from.
    MissingRustSrc {
        /// The toolchain asked for.
        toolchain: String,
        /// Where `library/core` was looked for.
        looked_in: PathBuf,
    },
    /// `ptxas` is required (`Ptxas::Required` or `Ptxas::Path`) and was not found.
    MissingPtxas {
        /// The places searched, in order.
        searched: Vec<String>,
    },
    /// `ptxas` rejected a module.
    PtxasFailed {
        /// The sm target.
        sm: String,
        /// The PTX file.
        ptx: PathBuf,
        /// ptxas's output.
        output: String,
    },
    /// A target name the builder cannot build.
    InvalidTarget(String),
    /// The nightly `cargo rustc` failed (its errors were printed above this message).
    CargoFailed {
        /// The sm target.
        sm: String,
        /// The command, for reproducing it.
        command: String,
        /// How it ended.
        status: String,
    },
    /// The build succeeded but the expected output is not there.
    MissingOutput {
        /// What was expected.
        what: String,
    },
    /// An environment variable a build script always has is missing: the builder runs outside
    /// one and the value must be given explicitly.
    NotInBuildScript {
        /// The variable.
        var: &'static str,
        /// The builder method that sets it instead.
        method: &'static str,
    },
    /// A file could not be read or written.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::MissingToolchain { toolchain, detail } => write!(
                f,
                "warpkit-build: building PTX needs a nightly Rust toolchain (`+{toolchain}`), which could not be run: \
                 install it with `{INSTALL_NIGHTLY}` (the crate itself still builds on stable; only the nvptx64 \
                 build uses nightly)\n  rustc +{toolchain}: {detail}"
            ),
            Error::NotNightly { toolchain, version } => write!(
                f,
                "warpkit-build: `+{toolchain}` is `{version}`, not a nightly toolchain, and the nvptx64 build needs \
                 nightly (`-Zbuild-std=core`, the `abi_ptx` feature): install one with `{INSTALL_NIGHTLY}` and use \
                 `.toolchain(\"nightly\")`"
            ),
            Error::MissingRustSrc { toolchain, looked_in } => write!(
                f,
                "warpkit-build: the `{toolchain}` toolchain has no `rust-src` component, which the nvptx64 build \
                 compiles `core` from (`-Zbuild-std=core`; rustup ships no nvptx64 standard library): install it \
                 with `{}`\n  looked for {}",
                INSTALL_RUST_SRC.replace("--toolchain nightly", &format!("--toolchain {toolchain}")),
                looked_in.display()
            ),
            Error::MissingPtxas { searched } => write!(
                f,
                "warpkit-build: ptxas not found, and the PTX must be checked: {INSTALL_PTXAS}; or build \
                 without the check with `.ptxas(Ptxas::Skip)`\n  searched: {}",
                searched.join(", ")
            ),
            Error::PtxasFailed { sm, ptx, output } => write!(
                f,
                "warpkit-build: ptxas -arch={sm} rejected {}:\n{}",
                ptx.display(),
                output.trim_end()
            ),
            Error::InvalidTarget(t) => write!(
                f,
                "warpkit-build: `{t}` is not an sm target the nvptx64 backend builds: give `sm_<NN>` with NN >= 70 \
                 and an optional `a`/`f` suffix, such as `sm_80`, `sm_90` or `sm_100a`"
            ),
            Error::CargoFailed { sm, command, status } => write!(
                f,
                "warpkit-build: the nvptx64 build for {sm} failed ({status}); the compiler's errors are above.\n  command: {command}"
            ),
            Error::MissingOutput { what } => write!(f, "warpkit-build: the build finished but {what}"),
            Error::NotInBuildScript { var, method } => write!(
                f,
                "warpkit-build: `{var}` is not set, so this is not a build script: set the value with `{method}`"
            ),
            Error::Io { path, source } => write!(f, "warpkit-build: {}: {source}", path.display()),
        }
    }
}

/// The same text as `Display`: a build script's `.unwrap()` or `main() -> Result<(), Error>` shows
/// the sentence, not the variant's fields.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
