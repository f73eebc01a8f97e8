//! Builds the `#[warp_kernel(entry)]` kernels of a crate to PTX, from its `build.rs`.
//!
//! warpkit kernels are ordinary Rust: on the host they run in the lockstep CPU runtime, and for a
//! GPU the same crate is compiled for `nvptx64-nvidia-cuda`. That build needs a recipe that is easy
//! to get subtly wrong (a nightly toolchain, `-Zbuild-std=core`, a `staticlib` with fat LTO and
//! `panic = "abort"` so that one complete module comes out, flags that keep warp instructions in
//! the branch they are written in, a newer PTX ISA for `elect.sync` on sm_90); this crate is that
//! recipe, and warpkit's own `cargo xtask ptx` uses it too.
//!
//! ```no_run
//! // build.rs of a crate whose src/lib.rs holds #[warp_kernel(entry)] functions
//! fn main() {
//!     warpkit_build::PtxBuilder::new()
//!         .targets(["sm_80", "sm_90"])
//!         .build()
//!         .unwrap();
//! }
//! ```
//!
//! For each target this writes `$OUT_DIR/<sm>/<crate>.ptx`, and `$OUT_DIR/warpkit_ptx.rs`, a module
//! with one `&str` constant per target and `ALL: &[(&str, &str)]` (target, PTX), which
//! `warpkit::include_ptx!()` includes:
//!
//! ```ignore
//! // src/lib.rs
//! #[cfg(not(target_arch = "nvptx64"))]
//! pub mod ptx {
//!     warpkit::include_ptx!();
//! }
//! ```
//!
//! What the builder does, per target:
//!
//! 1. Checks the toolchain first, so that a missing piece is one sentence with its install command:
//!    `rustc +nightly` runs and is a nightly, and has `rust-src`; `ptxas` is found if it is
//!    required ([`Ptxas`]).
//! 2. Runs `cargo +nightly rustc --lib --release --target nvptx64-nvidia-cuda -Zbuild-std=core
//!    --crate-type staticlib --message-format=json-render-diagnostics` on the kernel crate, with
//!    `CARGO_PROFILE_RELEASE_{LTO=fat, PANIC=abort, CODEGEN_UNITS=1, OPT_LEVEL}` set (the crate's
//!    manifest needs no profile of its own), `-C target-cpu=<sm>` and [`COMMON_RUSTFLAGS`] for every
//!    crate, [`target_features`], and for the kernel crate `-Zcrate-attr=no_std` and
//!    `-Zcrate-attr=feature(abi_ptx, asm_experimental_arch)` (so the crate needs no `#![no_std]`/`#![feature]` lines of
//!    its own; warpkit provides the panic handler), with an `allow` of the lints those attributes
//!    may trip ([`KERNEL_CRATE_ARGS`]: a crate that denies `unused` builds). The PTX is emitted to a path the builder names
//!    (`--emit=asm=<path>`), and cargo's JSON messages say which artifact is the kernel crate's, so
//!    no output is guessed from a folder listing.
//! 3. Runs `ptxas -arch=<sm>` on the module, when there is one.
//!
//! In a build script, the builder prints `cargo:rerun-if-changed` for every local source file that
//! went into the PTX (from cargo's dep-info of the kernel crate, dependencies included), and skips
//! itself in the nested nvptx64 build of the same crate (writing an empty module), so a crate can
//! build itself. The nested build uses its own target folder (`<target>/warpkit-build/`), shared by
//! all sm targets, whose artifacts cargo keeps apart by their flags.
//!
//! Set `WARPKIT_SKIP_PTX=1` to build a crate without its PTX (no nightly needed; the module's
//! `ALL` is then empty), for instance on a machine that only runs the CPU tests.
//!
//! Host-only code in the kernel crate (anything using `std`) goes under
//! `#[cfg(not(target_arch = "nvptx64"))]`, and host-only dependencies under
//! `[target.'cfg(not(target_arch = "nvptx64"))'.dependencies]`: the nvptx64 build has only `core`.

// The examples are build scripts, whose `fn main` is the point.
#![allow(clippy::needless_doctest_main)]

mod error;
mod ptxas;
mod toolchain;

use std::collections::BTreeSet;
use std::env;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub use error::{Error, INSTALL_NIGHTLY, INSTALL_PTXAS, INSTALL_RUST_SRC};
pub use ptxas::{version as ptxas_version, Ptxas};

/// The rustc target of every PTX build.
pub const NVPTX_TARGET: &str = "nvptx64-nvidia-cuda";

/// rustc flags for every crate of every nvptx64 build, and why.
///
/// The kernels need each warp instruction to stay in the branch arm it is written in. Inline asm
/// reaches LLVM as `call asm sideeffect` *without* the `convergent` attribute (rustc marks GPU
/// *functions* convergent, not asm call sites), and MIR has no notion of convergence at all. With
/// rustc 1.97.0-nightly (2026-05-19) two passes merged identical warp instructions from both arms
/// of an `if`/`else` into one executed by the whole warp (warpkit's `ptx/src/divergence.rs` shows it):
///
/// * MIR `MatchBranchSimplification` merged `if c { activemask() } else { activemask() }` into one
///   `activemask` (both arms were the same block) -> `-Zmir-enable-passes=-MatchBranchSimplification`;
/// * LLVM SimplifyCFG hoisted the identical `activemask` + `shfl.sync` at the top of both arms
///   above the branch -> `-Cllvm-args=-simplifycfg-hoist-common=false`.
///
/// MIR `JumpThreading` (rust-lang/rust#137086, duplicates a warp instruction into both arms) is
/// already off for GPU targets in this nightly (rust-lang/rust#149637); it is named here too so that
/// an older nightly is safe. `cargo xtask ptx` checks the result on every build of warpkit.
pub const COMMON_RUSTFLAGS: &[&str] = &[
    "-Zmir-enable-passes=-JumpThreading,-MatchBranchSimplification",
    "-Cllvm-args=-simplifycfg-hoist-common=false",
];

/// Extra `-C target-feature`s per target: the PTX ISA version LLVM picks for a target is the lowest
/// that target allows (sm_70/sm_80: 7.0, sm_90: 7.8, sm_100a: 8.6), but `elect.sync` needs PTX 8.0
/// and `atom`/`red` on `.b128` PTX 8.3 (8.4 with `.sys` scope), all on sm_90, so sm_90 gets 8.4.
/// sm_100a's `+ptx86` changes nothing in the PTX (LLVM picks 8.6 already) but tells `cfg` about it,
/// so that the instructions of PTX 8.3 and 8.6 (`fence.proxy.tensormap`, `fence.acquire`) exist there.
pub fn target_features(sm: &str) -> Option<&'static str> {
    match sm {
        "sm_90" => Some("+ptx84"),
        "sm_100a" => Some("+ptx86"),
        _ => None,
    }
}

/// Arguments for the kernel crate only: the crate attributes a kernel crate needs on nvptx64,
/// so that its source does not carry them, and an `allow` of the lints they trip when the crate
/// has them anyway or does not use them (a crate without `asm!` of its own: warpkit's is in its
/// runtime). The `allow` is a crate attribute, not `-A`: a lint level in the source
/// (`#![deny(unused)]`) overrides a command line's, but not the attribute, which comes after it.
pub const KERNEL_CRATE_ARGS: &[&str] = &[
    "-Zcrate-attr=no_std",
    "-Zcrate-attr=feature(abi_ptx, asm_experimental_arch)",
    "-Zcrate-attr=allow(unused_features, unused_attributes, duplicate_features)",
];

/// Checks a target name: `sm_<NN>` with NN >= 70 (the lowest rustc's nvptx64 backend builds),
/// optionally followed by `a` or `f`.
pub fn check_target(sm: &str) -> Result<(), Error> {
    let digits = sm.strip_prefix("sm_").map(|r| r.trim_end_matches(['a', 'f']));
    match digits.and_then(|d| d.parse::<u32>().ok()) {
        Some(n) if n >= 70 && sm.len() - 3 - digits.unwrap().len() <= 1 => Ok(()),
        _ => Err(Error::InvalidTarget(sm.to_string())),
    }
}

/// Checks that `+toolchain` is an installed nightly with `rust-src`, as [`PtxBuilder::build`] does
/// first; returns its `rustc --version`. For tools that install what is missing and try again.
pub fn check_toolchain(toolchain: &str) -> Result<String, Error> {
    toolchain::check(toolchain).map(|n| n.version)
}

/// Builds a crate's kernels to PTX; see the [crate documentation](crate).
#[derive(Clone, Debug)]
pub struct PtxBuilder {
    crate_dir: Option<PathBuf>,
    targets: Vec<String>,
    opt_level: u8,
    out_dir: Option<PathBuf>,
    target_dir: Option<PathBuf>,
    toolchain: String,
    ptxas: Ptxas,
    emit_llvm_ir: bool,
    rustflags: Vec<String>,
    features: Vec<String>,
    no_default_features: bool,
    echo: bool,
    directives: Option<bool>,
}

impl Default for PtxBuilder {
    fn default() -> Self {
        PtxBuilder::new()
    }
}

/// One built module.
#[derive(Clone, Debug)]
pub struct PtxModule {
    /// The sm target, e.g. `sm_90`.
    pub sm: String,
    /// `<out_dir>/<sm>/<crate>.ptx`.
    pub ptx: PathBuf,
    /// `<out_dir>/<sm>/<crate>.ll`, when [`PtxBuilder::emit_llvm_ir`] was set.
    pub llvm_ir: Option<PathBuf>,
    /// What ptxas said when it accepted the module (usually empty); `None` when it did not run.
    pub ptxas: Option<String>,
}

/// What a build produced.
#[derive(Clone, Debug)]
pub struct Ptx {
    /// The kernel crate's library name (the file stem of every module).
    pub crate_name: String,
    /// One module per target, in the order the targets were given.
    pub modules: Vec<PtxModule>,
    /// `<out_dir>/warpkit_ptx.rs`, the module `warpkit::include_ptx!()` includes.
    pub module_rs: PathBuf,
    /// The ptxas that checked the modules, if any.
    pub ptxas: Option<PathBuf>,
    /// The nightly `rustc --version`.
    pub rustc: String,
}

impl PtxBuilder {
    /// A builder for the crate whose build script runs (`$CARGO_MANIFEST_DIR`), writing to
    /// `$OUT_DIR`, for `sm_80` (change with [`targets`](Self::targets)), at opt-level 3, with the
    /// `nightly` toolchain, checking with ptxas if one is found.
    pub fn new() -> PtxBuilder {
        PtxBuilder {
            crate_dir: None,
            targets: Vec::new(),
            opt_level: 3,
            out_dir: None,
            target_dir: None,
            toolchain: "nightly".to_string(),
            ptxas: Ptxas::IfFound,
            emit_llvm_ir: false,
            rustflags: Vec::new(),
            features: Vec::new(),
            no_default_features: false,
            echo: false,
            directives: None,
        }
    }

    /// The kernel crate: the folder holding its `Cargo.toml` (default: the crate whose build
    /// script runs).
    pub fn kernel_crate(mut self, dir: impl Into<PathBuf>) -> Self {
        self.crate_dir = Some(dir.into());
        self
    }

    /// Adds a target (`sm_70`, `sm_80`, `sm_90`, `sm_100a`, ...).
    pub fn target(mut self, sm: impl Into<String>) -> Self {
        self.targets.push(sm.into());
        self
    }

    /// Adds targets.
    pub fn targets<S: Into<String>>(mut self, sms: impl IntoIterator<Item = S>) -> Self {
        self.targets.extend(sms.into_iter().map(Into::into));
        self
    }

    /// The optimisation level, 0 to 3 (default 3).
    pub fn opt_level(mut self, level: u8) -> Self {
        self.opt_level = level.min(3);
        self
    }

    /// Where the modules go: `<dir>/<sm>/<crate>.ptx` and `<dir>/warpkit_ptx.rs` (default: `$OUT_DIR`).
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// The cargo target folder of the nvptx64 build (default: `$WARPKIT_BUILD_TARGET_DIR`, else
    /// `warpkit-build/` in the outer build's target folder, else `<out_dir>/warpkit-build`).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// The rustup toolchain of the nvptx64 build (default `nightly`).
    pub fn toolchain(mut self, toolchain: impl Into<String>) -> Self {
        self.toolchain = toolchain.into();
        self
    }

    /// Whether and which ptxas checks the modules (default [`Ptxas::IfFound`]).
    pub fn ptxas(mut self, ptxas: Ptxas) -> Self {
        self.ptxas = ptxas;
        self
    }

    /// Also writes each module's LLVM IR (`<crate>.ll`), to inspect or check the warp instructions.
    pub fn emit_llvm_ir(mut self, yes: bool) -> Self {
        self.emit_llvm_ir = yes;
        self
    }

    /// Adds rustc flags for every crate of the build (after the recipe's own).
    pub fn rustflags<S: Into<String>>(mut self, flags: impl IntoIterator<Item = S>) -> Self {
        self.rustflags.extend(flags.into_iter().map(Into::into));
        self
    }

    /// Cargo features of the kernel crate to enable in the nvptx64 build.
    pub fn features<S: Into<String>>(mut self, features: impl IntoIterator<Item = S>) -> Self {
        self.features.extend(features.into_iter().map(Into::into));
        self
    }

    /// Builds the kernel crate without its default features.
    pub fn no_default_features(mut self) -> Self {
        self.no_default_features = true;
        self
    }

    /// Prints each command before running it (for tools such as `cargo xtask`).
    pub fn echo_commands(mut self, yes: bool) -> Self {
        self.echo = yes;
        self
    }

    /// Whether to print `cargo:` directives (`rerun-if-changed`, `warning`); default: when running
    /// in a build script.
    pub fn cargo_directives(mut self, yes: bool) -> Self {
        self.directives = Some(yes);
        self
    }

    /// Builds every target; see the [crate documentation](crate).
    pub fn build(self) -> Result<Ptx, Error> {
        let in_build_script = env::var_os("OUT_DIR").is_some() && env::var_os("TARGET").is_some();
        let directives = self.directives.unwrap_or(in_build_script);
        let targets = if self.targets.is_empty() { vec!["sm_80".to_string()] } else { self.targets.clone() };
        for sm in &targets {
            check_target(sm)?;
        }
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(env::var_os("OUT_DIR").ok_or(Error::NotInBuildScript { var: "OUT_DIR", method: ".out_dir(..)" })?),
        };
        let crate_dir = match &self.crate_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(
                env::var_os("CARGO_MANIFEST_DIR").ok_or(Error::NotInBuildScript { var: "CARGO_MANIFEST_DIR", method: ".kernel_crate(..)" })?,
            ),
        };
        let module_rs = out_dir.join("warpkit_ptx.rs");
        fs::create_dir_all(&out_dir).map_err(error::io(&out_dir))?;

        // The nested nvptx64 build of this same crate runs its build script again: nothing to do
        // there, but `include_ptx!()` still finds a module.
        if env::var("TARGET").is_ok_and(|t| t == NVPTX_TARGET) && self.crate_dir.is_none() {
            fs::write(&module_rs, EMPTY_MODULE).map_err(error::io(&module_rs))?;
            return Ok(Ptx { crate_name: String::new(), modules: Vec::new(), module_rs, ptxas: None, rustc: String::new() });
        }
        if directives {
            for var in ["PTXAS", "CUDA_HOME", "CUDA_PATH", "PATH", "WARPKIT_BUILD_TARGET_DIR", "WARPKIT_SKIP_PTX"] {
                println!("cargo:rerun-if-env-changed={var}");
            }
        }
        // A machine without the nightly toolchain can still build and test the crate on the CPU.
        if env::var_os("WARPKIT_SKIP_PTX").is_some_and(|v| !v.is_empty() && v != "0") {
            fs::write(&module_rs, EMPTY_MODULE).map_err(error::io(&module_rs))?;
            if directives {
                println!("cargo:warning=warpkit-build: WARPKIT_SKIP_PTX is set: no PTX was built (ptx::ALL is empty)");
            }
            return Ok(Ptx { crate_name: String::new(), modules: Vec::new(), module_rs, ptxas: None, rustc: String::new() });
        }

        let nightly = toolchain::check(&self.toolchain)?;
        let os_env = |k: &str| env::var_os(k);
        let ptxas = ptxas::resolve(&self.ptxas, &os_env)?;
        if ptxas.is_none() && self.ptxas == Ptxas::IfFound && directives {
            println!(
                "cargo:warning=warpkit-build: ptxas not found, so the PTX was not checked ({}); {}",
                ptxas::searched(&os_env).join(", "),
                INSTALL_PTXAS
            );
        }

        let target_dir = match &self.target_dir {
            Some(d) => d.clone(),
            None => default_target_dir(&out_dir),
        };
        let manifest = crate_dir.join("Cargo.toml");
        let mut modules = Vec::new();
        let mut crate_name = String::new();
        let mut sources = BTreeSet::new();
        for sm in &targets {
            let built = self.build_one(sm, &manifest, &target_dir)?;
            crate_name = built.crate_name.clone();
            sources.extend(built.sources);
            let dir = out_dir.join(sm);
            fs::create_dir_all(&dir).map_err(error::io(&dir))?;
            let ptx_path = dir.join(format!("{crate_name}.ptx"));
            copy(&built.asm, &ptx_path)?;
            let llvm_ir = match &built.llvm_ir {
                Some(ll) => {
                    let to = dir.join(format!("{crate_name}.ll"));
                    copy(ll, &to)?;
                    Some(to)
                }
                None => None,
            };
            let checked = match &ptxas {
                Some(p) => Some(ptxas::check(p, sm, &ptx_path)?),
                None => None,
            };
            modules.push(PtxModule { sm: sm.clone(), ptx: ptx_path, llvm_ir, ptxas: checked });
        }

        let checker = ptxas.as_deref().and_then(ptxas::version).map(|v| format!(", checked by ptxas ({v})")).unwrap_or_default();
        fs::write(&module_rs, module_source(&crate_name, &modules, &checker)).map_err(error::io(&module_rs))?;
        if directives {
            // Not the standard library's sources (`-Zbuild-std` compiles them from rust-src).
            for s in sources.iter().filter(|s| !s.to_string_lossy().contains("/lib/rustlib/src/rust/")) {
                println!("cargo:rerun-if-changed={}", s.display());
            }
            println!("cargo:rerun-if-changed={}", manifest.display());
        }
        Ok(Ptx { crate_name, modules, module_rs, ptxas, rustc: nightly.version })
    }

    fn build_one(&self, sm: &str, manifest: &Path, target_dir: &Path) -> Result<Built, Error> {
        let emit_dir = target_dir.join("warpkit-build").join(sm);
        fs::create_dir_all(&emit_dir).map_err(error::io(&emit_dir))?;
        let asm = emit_dir.join("kernels.s");
        let ll = emit_dir.join("kernels.ll");
        let mut rustflags = vec![format!("-Ctarget-cpu={sm}")];
        if let Some(f) = target_features(sm) {
            rustflags.push(format!("-Ctarget-feature={f}"));
        }
        rustflags.extend(COMMON_RUSTFLAGS.iter().map(|s| s.to_string()));
        rustflags.extend(self.rustflags.iter().cloned());

        let shown = format!(
            "CARGO_TARGET_DIR={} CARGO_ENCODED_RUSTFLAGS='{}' cargo +{} rustc --manifest-path {} --lib --release --target {NVPTX_TARGET} -Zbuild-std=core --crate-type staticlib -- --emit=asm={}{} {}",
            target_dir.display(),
            rustflags.join(" "),
            self.toolchain,
            manifest.display(),
            asm.display(),
            if self.emit_llvm_ir { format!(" --emit=llvm-ir={}", ll.display()) } else { String::new() },
            KERNEL_CRATE_ARGS.join(" ")
        );
        let run = || -> Result<Artifact, Error> {
            let mut cmd = self.cargo(target_dir);
            cmd.arg("rustc").arg("--manifest-path").arg(manifest);
            cmd.args(["--lib", "--release", "--target", NVPTX_TARGET, "-Zbuild-std=core", "--crate-type", "staticlib"]);
            cmd.arg("--message-format=json-render-diagnostics");
            if !self.features.is_empty() {
                cmd.arg("--features").arg(self.features.join(","));
            }
            if self.no_default_features {
                cmd.arg("--no-default-features");
            }
            cmd.arg("--");
            let mut emit = OsString::from("--emit=asm=");
            emit.push(&asm);
            cmd.arg(emit);
            if self.emit_llvm_ir {
                let mut emit = OsString::from("--emit=llvm-ir=");
                emit.push(&ll);
                cmd.arg(emit);
            }
            cmd.args(KERNEL_CRATE_ARGS);
            cmd.env("CARGO_ENCODED_RUSTFLAGS", rustflags.join("\x1f"))
                .env("CARGO_PROFILE_RELEASE_LTO", "fat")
                .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
                .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
                .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", self.opt_level.to_string())
                .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
                .env("CARGO_PROFILE_RELEASE_INCREMENTAL", "false");
            if self.echo {
                println!("{shown}");
            }
            cmd.stdout(Stdio::piped());
            let mut child = cmd.spawn().map_err(|e| Error::MissingToolchain {
                toolchain: self.toolchain.clone(),
                detail: format!("cannot run `cargo`: {e}"),
            })?;
            let stdout = child.stdout.take().expect("piped stdout");
            let messages = parse_messages(BufReader::new(stdout), manifest);
            let status = child.wait().map_err(error::io("cargo"))?;
            if !status.success() || !messages.success {
                return Err(Error::CargoFailed { sm: sm.to_string(), command: shown.clone(), status: status.to_string() });
            }
            messages.kernel.ok_or_else(|| Error::MissingOutput {
                what: format!("cargo reported no library artifact of the kernel crate {}", manifest.display()),
            })
        };
        let emitted = || asm.is_file() && (!self.emit_llvm_ir || ll.is_file());
        let mut artifact = run()?;
        if !emitted() && artifact.fresh {
            // Cargo found the crate up to date, so rustc did not run, but the files the previous
            // run emitted are gone: make it run again.
            let mut clean = self.cargo(target_dir);
            clean.args(["clean", "--quiet", "--release", "--target", NVPTX_TARGET, "--manifest-path"]).arg(manifest);
            clean.arg("-p").arg(&artifact.package_id);
            let _ = clean.status();
            artifact = run()?;
        }
        if !emitted() {
            return Err(Error::MissingOutput { what: format!("rustc did not write {}", asm.display()) });
        }
        let sources = artifact.dep_info.as_deref().map(read_dep_info).unwrap_or_default();
        Ok(Built { crate_name: artifact.name, asm, llvm_ir: self.emit_llvm_ir.then_some(ll), sources })
    }

    /// `cargo +<toolchain>` with a clean environment and the nested build's target folder.
    fn cargo(&self, target_dir: &Path) -> Command {
        let mut cmd = Command::new("cargo");
        cmd.arg(format!("+{}", self.toolchain));
        scrub_env(&mut cmd);
        cmd.env("CARGO_TARGET_DIR", target_dir);
        cmd
    }
}

/// One target's build.
struct Built {
    crate_name: String,
    asm: PathBuf,
    llvm_ir: Option<PathBuf>,
    sources: Vec<PathBuf>,
}

/// The kernel crate's artifact, from cargo's messages.
struct Artifact {
    /// Cargo's package id, a spec `cargo clean -p` accepts.
    package_id: String,
    name: String,
    fresh: bool,
    /// The `.d` file next to the staticlib: every local source file of the crate and its
    /// dependencies.
    dep_info: Option<PathBuf>,
}

struct Messages {
    kernel: Option<Artifact>,
    success: bool,
}

/// Reads cargo's `--message-format=json` lines: the `compiler-artifact` whose manifest is the
/// kernel crate's, and `build-finished`. Other lines (text a build script printed) pass through.
fn parse_messages(out: impl BufRead, manifest: &Path) -> Messages {
    let want = fs::canonicalize(manifest).unwrap_or_else(|_| manifest.to_path_buf());
    let mut m = Messages { kernel: None, success: false };
    for line in out.lines().map_while(Result::ok) {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
            println!("{line}");
            continue;
        };
        match v["reason"].as_str() {
            Some("compiler-artifact") => {
                let path = v["manifest_path"].as_str().map(PathBuf::from);
                let same = path.is_some_and(|p| fs::canonicalize(&p).unwrap_or(p) == want);
                let is_lib = v["target"]["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "staticlib" || k == "lib"));
                if same && is_lib {
                    let file = v["filenames"].as_array().and_then(|f| f.first()).and_then(|f| f.as_str()).map(PathBuf::from);
                    m.kernel = Some(Artifact {
                        package_id: v["package_id"].as_str().unwrap_or_default().to_string(),
                        name: v["target"]["name"].as_str().unwrap_or("kernels").replace('-', "_"),
                        fresh: v["fresh"].as_bool().unwrap_or(false),
                        dep_info: file.map(|f| f.with_extension("d")),
                    });
                }
            }
            Some("build-finished") => m.success = v["success"].as_bool().unwrap_or(false),
            _ => {}
        }
    }
    m
}

/// The prerequisites of a Makefile-style dep-info file (`target: a.rs b\ c.rs`).
fn read_dep_info(path: &Path) -> Vec<PathBuf> {
    let Ok(text) = fs::read_to_string(path) else { return Vec::new() };
    let Some(first) = text.lines().next() else { return Vec::new() };
    let Some((_, deps)) = first.split_once(": ") else { return Vec::new() };
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = deps.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                cur.push(' ');
                chars.next();
            }
            ' ' => {
                if !cur.is_empty() {
                    out.push(PathBuf::from(std::mem::take(&mut cur)));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(PathBuf::from(cur));
    }
    out
}

fn copy(from: &Path, to: &Path) -> Result<(), Error> {
    fs::copy(from, to).map(|_| ()).map_err(error::io(to))
}

/// `warpkit-build/` in the outer build's target folder (the ancestor of `OUT_DIR` that cargo
/// marked with `CACHEDIR.TAG`), so that every build profile and build-script hash shares one
/// nvptx64 build; `$WARPKIT_BUILD_TARGET_DIR` overrides it.
fn default_target_dir(out_dir: &Path) -> PathBuf {
    if let Some(d) = env::var_os("WARPKIT_BUILD_TARGET_DIR") {
        return PathBuf::from(d);
    }
    out_dir
        .ancestors()
        .find(|d| d.join("CACHEDIR.TAG").is_file())
        .map(|d| d.join("warpkit-build"))
        .unwrap_or_else(|| out_dir.join("warpkit-build"))
}

/// Removes what a build script or the calling cargo leaves in the environment that would steer
/// the nested nightly cargo: its toolchain, its rustc and flags, the outer target and profile, the
/// build script's own variables. The jobserver (`CARGO_MAKEFLAGS`) stays, so the nested build
/// shares the outer build's job slots.
pub(crate) fn scrub_env(cmd: &mut Command) {
    const KEEP: &[&str] = &["CARGO_HOME", "CARGO_MAKEFLAGS", "CARGO_TERM_COLOR", "CARGO_TERM_PROGRESS_WHEN"];
    const KEEP_PREFIXES: &[&str] = &["CARGO_NET_", "CARGO_HTTP_", "CARGO_REGISTRIES_", "CARGO_REGISTRY_", "CARGO_SOURCE_"];
    const REMOVE: &[&str] = &[
        "RUSTUP_TOOLCHAIN",
        "RUSTC",
        "RUSTDOC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_LINKER",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "OUT_DIR",
        "TARGET",
        "HOST",
        "OPT_LEVEL",
        "DEBUG",
        "PROFILE",
        "NUM_JOBS",
        "RUSTC_BOOTSTRAP",
    ];
    for (k, _) in env::vars_os() {
        let Some(k) = k.to_str() else { continue };
        let cargo_var = k.starts_with("CARGO_") || k == "CARGO";
        let keep = KEEP.contains(&k) || KEEP_PREFIXES.iter().any(|p| k.starts_with(p));
        if (cargo_var && !keep) || REMOVE.contains(&k) || k.starts_with("DEP_") {
            cmd.env_remove(k);
        }
    }
}

const EMPTY_MODULE: &str = "// @generated by warpkit-build: empty in the nvptx64 build itself, or with WARPKIT_SKIP_PTX.\n\
    /// Every target built, lowest first: `(target, PTX)`. Empty in the nvptx64 build.\n\
    pub const ALL: &[(&str, &str)] = &[];\n";

/// The module `warpkit::include_ptx!()` includes: a constant per target and `ALL`.
fn module_source(crate_name: &str, modules: &[PtxModule], checker: &str) -> String {
    let mut s = format!("// @generated by warpkit-build: the PTX of crate `{crate_name}`.\n");
    let mut all = Vec::new();
    for m in modules {
        let name = m.sm.to_uppercase();
        let _ = writeln!(s, "/// The `{}` PTX of `{crate_name}`{checker}.", m.sm);
        let _ = writeln!(s, "pub const {name}: &str = include_str!({:?});", m.ptx.display().to_string());
        all.push(format!("({:?}, {name})", m.sm));
    }
    let _ = writeln!(s, "/// Every target built, in the order given: `(target, PTX)`.");
    let _ = writeln!(s, "pub const ALL: &[(&str, &str)] = &[{}];", all.join(", "));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_sm_70_and_newer_with_an_optional_suffix() {
        for ok in ["sm_70", "sm_80", "sm_90", "sm_90a", "sm_100a", "sm_100f", "sm_120"] {
            check_target(ok).unwrap();
        }
        for bad in ["sm_61", "sm_", "80", "sm_80x", "sm_90aa", "compute_90", "sm_9o"] {
            let msg = check_target(bad).unwrap_err().to_string();
            assert!(msg.contains(&format!("`{bad}` is not an sm target")) && msg.contains("sm_80"), "{msg}");
        }
    }

    #[test]
    fn dep_info_paths_with_spaces() {
        let dir = env::temp_dir().join(format!("warpkit-build-dep-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let d = dir.join("lib.d");
        fs::write(&d, "/t/libk.a: /a/src/lib.rs /b/my\\ dir/x.rs\n\n/a/src/lib.rs:\n").unwrap();
        assert_eq!(read_dep_info(&d), [PathBuf::from("/a/src/lib.rs"), PathBuf::from("/b/my dir/x.rs")]);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_generated_module_names_every_target() {
        let m = |sm: &str| PtxModule { sm: sm.into(), ptx: PathBuf::from(format!("/o/{sm}/k.ptx")), llvm_ir: None, ptxas: None };
        let src = module_source("k", &[m("sm_80"), m("sm_90")], "");
        assert!(src.contains("pub const SM_80: &str = include_str!(\"/o/sm_80/k.ptx\");"), "{src}");
        assert!(src.contains("pub const ALL: &[(&str, &str)] = &[(\"sm_80\", SM_80), (\"sm_90\", SM_90)];"), "{src}");
    }
}
