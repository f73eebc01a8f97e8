//! Developer commands: `cargo xtask <command>` (`cargo xtask help` lists them).
//!
//! `cargo xtask ptx [--sm SM]...`
//!
//! Builds the kernel crate `ptx/` to PTX for sm_70, sm_80, sm_90 and sm_100a (or the `--sm` ones)
//! with `warpkit_build::PtxBuilder`, the same recipe users' build scripts run, checks every module
//! with `ptxas`, and checks in the LLVM IR and the PTX that each kernel holds exactly the warp
//! instructions it is written with (none duplicated, merged or lost); for the example kernels
//! (`examples/*.rs`, whose loops the optimizer may unroll), that each is present and holds the same
//! warp instructions in the PTX as in the IR. On a fresh machine it first installs what it needs:
//!
//! * the nightly `rust-src` component (`rustup component add rust-src --toolchain nightly`), for
//!   `-Zbuild-std=core` (the `nvptx64-nvidia-cuda` std component cannot be installed here);
//! * `ptxas`, from PyPI's `nvidia-cuda-nvcc-cu12` wheel, `pip install --target target/ptxas-wheel`
//!   (set `PTXAS=/path/to/ptxas` to use another one).
//!
//! `cargo xtask gpu-conformance`
//!
//! Runs `ptx` for every default target, builds the host program `gpu/` (`cargo build --release -p
//! gpu`, x86_64; cudarc loads libcuda at run time, so this needs no CUDA) and assembles
//! `target/gpu-bundle/`: the `gpu-conformance` binary, `ptx/<sm>/warpkit_ptx.ptx` and `run.sh`.
//! Copy the folder to a machine with an NVIDIA GPU (sm_90 or newer) and run `./run.sh` there: it
//! needs only the driver (libcuda), no Rust and no CUDA toolkit.
//!
//! `cargo xtask aarch64`
//!
//! Runs the SIMD tests and the warp-wide differential tests built for aarch64 Linux under qemu
//! (the NEON code of `warp-runtime/src/simd.rs`; see DEVELOPMENT.md for the packages).
//!
//! `cargo xtask gpu-bench`
//!
//! Runs `ptx --sm sm_90`, builds the benchmark host program (`cargo build --release -p gpu --bin
//! gpu-bench`) and assembles `target/gpu-bench/`: `gpu-bench`, `warpkit_ptx.ptx` (sm_90), the CUDA
//! C++ of the same algorithms (`benches/gpu/kernels.cu`), `sass_loop.awk` and `run.sh`
//! (`benches/gpu/run.sh`). On a machine with an sm_90 GPU and the CUDA toolkit, `sh run.sh` builds
//! both sides with nvcc/ptxas, dumps their SASS and times them (see `gpu/src/bench.rs`).
//!
//! Outputs of `ptx`: `target/ptx/<sm>/warpkit_ptx.ptx` and `target/ptx/<sm>/warpkit_ptx.ll`; the
//! nested cargo build of every sm lives in `target/ptx-build`. Set `WARPKIT_PTX_RUSTFLAGS`
//! (space-separated) to add rustc flags to every crate of the build, e.g. for experiments with
//! `-Zmir-enable-passes=...`.

use std::collections::{BTreeMap, BTreeSet};
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use warpkit_build::{PtxBuilder, Ptxas};

const CRATE: &str = "warpkit_ptx";
const DEFAULT_SMS: &[&str] = &["sm_70", "sm_80", "sm_90", "sm_100a"];
/// The ptxas wheel. 12.9 knows sm_100a and PTX ISA 8.8.
const PTXAS_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";
/// The nightly toolchain of the nvptx64 builds.
const NIGHTLY: &str = "nightly";

#[derive(Parser)]
#[command(name = "cargo xtask", about = "warpkit's developer commands", arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Build ptx/ to PTX for sm_70, sm_80, sm_90 and sm_100a (or the given targets), check each
    /// module with ptxas and the warp instructions of every kernel
    Ptx {
        /// A target to build instead of the defaults (repeatable), e.g. `--sm sm_90`
        #[arg(long = "sm", value_name = "SM")]
        sms: Vec<String>,
    },
    /// Build the PTX and the host program gpu/ into target/gpu-bundle/, to be run on a GPU
    /// machine with `sh gpu-bundle/run.sh`
    GpuConformance,
    /// Build the sm_90 PTX and the benchmark program into target/gpu-bench/, with the CUDA C++ of
    /// the same kernels and a run.sh for a GPU machine
    GpuBench,
    /// Run the SIMD tests and the warp-wide differential tests for aarch64 (NEON) under qemu:
    /// needs `rustup target add aarch64-unknown-linux-gnu` and Debian's qemu-user,
    /// gcc-aarch64-linux-gnu and libc6-dev-arm64-cross
    Aarch64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Ptx { sms } => {
            let sms = if sms.is_empty() { DEFAULT_SMS.iter().map(|s| s.to_string()).collect() } else { sms };
            ptx(&sms)
        }
        Cmd::GpuConformance => gpu_conformance(),
        Cmd::GpuBench => gpu_bench(),
        Cmd::Aarch64 => aarch64(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `cargo xtask aarch64`: the vector-unit code of the other architecture (`warp-runtime/src/simd.rs`,
/// NEON) against the portable code and the semantics, and every warp-wide differential test,
/// built for aarch64 Linux and run under qemu's user-mode emulation.
fn aarch64() -> Result<()> {
    const TARGET: &str = "aarch64-unknown-linux-gnu";
    for tool in ["aarch64-linux-gnu-gcc", "qemu-aarch64"] {
        if Command::new(tool).arg("--version").output().is_err() {
            bail!("`{tool}` is not installed (Debian: apt-get install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross)");
        }
    }
    let runs: [&[&str]; 2] = [
        &["-p", "warp-runtime", "--lib", "simd"],
        &["-p", "warpkit", "--test", "kernels", "--test", "diagnostics", "-p", "warpkit-testsuite", "--test", "wide"],
    ];
    for args in runs {
        let status = Command::new(env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["test", "--target", TARGET])
            .args(args)
            .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER", "aarch64-linux-gnu-gcc")
            .env("CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER", "qemu-aarch64 -L /usr/aarch64-linux-gnu")
            .status()
            .context("running cargo")?;
        if !status.success() {
            bail!("cargo test --target {TARGET} {} failed (is the target installed? rustup target add {TARGET})", args.join(" "));
        }
    }
    Ok(())
}

/// The folder the benchmark bundle is assembled in, relative to the repository root.
const BENCH_BUNDLE: &str = "target/gpu-bench";

/// `cargo xtask gpu-bench`: the sm_90 PTX, the `gpu-bench` host program, the CUDA C++ side and
/// `run.sh`, in `target/gpu-bench/`.
fn gpu_bench() -> Result<()> {
    let root = repo_root();
    ptx(&["sm_90".to_string()])?;

    println!();
    println!("== host program");
    cargo_build_release(&root, "gpu-bench")?;
    let bundle = root.join(BENCH_BUNDLE);
    fresh_dir(&bundle)?;
    let gpu_dir = root.join("benches/gpu");
    for (from, name) in [
        (target_dir(&root).join("release/gpu-bench"), "gpu-bench"),
        (root.join("target/ptx/sm_90").join(format!("{CRATE}.ptx")), "warpkit_ptx.ptx"),
        (gpu_dir.join("kernels.cu"), "kernels.cu"),
        (gpu_dir.join("cub_scan.cu"), "cub_scan.cu"),
        (gpu_dir.join("sass_loop.awk"), "sass_loop.awk"),
        (gpu_dir.join("run.sh"), "run.sh"),
    ] {
        let to = bundle.join(name);
        copy(&from, &to)?;
        if name == "gpu-bench" || name == "run.sh" {
            make_executable(&to)?;
        }
    }
    println!();
    println!("bundle: {}", bundle.display());
    println!("on a machine with an sm_90 GPU and the CUDA toolkit (nvcc, ptxas, cuobjdump), from the");
    println!("repository root (through the device tool: carry [\"{BENCH_BUNDLE}\"]; results go to $OUT):");
    println!();
    println!("    sh {BENCH_BUNDLE}/run.sh");
    Ok(())
}

/// `cargo xtask gpu-conformance`: PTX for every default target, the host program, and a bundle.
fn gpu_conformance() -> Result<()> {
    let root = repo_root();
    let sms: Vec<String> = DEFAULT_SMS.iter().map(|s| s.to_string()).collect();
    ptx(&sms)?;

    println!();
    println!("== host program");
    cargo_build_release(&root, "gpu-conformance")?;
    let bundle = root.join("target/gpu-bundle");
    fresh_dir(&bundle)?;
    copy(&target_dir(&root).join("release/gpu-conformance"), &bundle.join("gpu-conformance"))?;
    for sm in &sms {
        let f = format!("{CRATE}.ptx");
        copy(&root.join("target/ptx").join(sm).join(&f), &bundle.join("ptx").join(sm).join(&f))?;
    }
    println!();
    println!("== the user crate's tests (examples/user-crate, as README's GPU section makes it)");
    let tests = build_user_crate_tests(&root, &ptxas_path(&root)?)?;
    copy(&tests, &bundle.join("user-crate-tests"))?;
    let run_sh = bundle.join("run.sh");
    fs::write(
        &run_sh,
        "#!/bin/sh\n\
         # Runs the warpkit GPU conformance cases on GPU 0 and in the CPU runtime, then the tests of\n\
         # examples/user-crate (whose GPU-against-CPU comparisons print one line each); exit status 0\n\
         # when everything agrees. Needs the NVIDIA driver (libcuda.so) only.\n\
         # Extra arguments go to gpu-conformance: --seed N, --scale K, --show N.\n\
         cd \"$(dirname \"$0\")\" || exit 2\n\
         ./gpu-conformance --ptx ./ptx \"$@\"; conformance=$?\n\
         echo; echo '== examples/user-crate tests'\n\
         ./user-crate-tests --test-threads=1; user=$?\n\
         [ $conformance -eq 0 ] && [ $user -eq 0 ] && echo 'run.sh: all agree' && exit 0\n\
         echo \"run.sh: gpu-conformance exit $conformance, user-crate-tests exit $user\"\n\
         [ $conformance -ne 0 ] && exit $conformance; exit $user\n",
    )
    .with_context(|| run_sh.display().to_string())?;
    for f in [&run_sh, &bundle.join("gpu-conformance"), &bundle.join("user-crate-tests")] {
        make_executable(f)?;
    }
    println!();
    println!("bundle: {}", bundle.display());
    println!("copy that folder to the GPU machine and run there, from the folder's parent (through the");
    println!("device tool: carry [\"target/gpu-bundle\"], run `sh target/gpu-bundle/run.sh`):");
    println!();
    println!("    sh gpu-bundle/run.sh");
    Ok(())
}

/// `ptxas` for nested builds: `$PTXAS`, or the one `cargo xtask ptx` installed.
fn ptxas_path(root: &Path) -> Result<PathBuf> {
    ensure_ptxas(root)
}

/// Builds the tests of `examples/user-crate` (its build.rs builds the PTX with warpkit-build) and
/// returns the test binary of `tests/gpu.rs`, found in cargo's JSON messages.
fn build_user_crate_tests(root: &Path, ptxas: &Path) -> Result<PathBuf> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = root.join("examples/user-crate/Cargo.toml");
    println!("PTXAS={} cargo test --release --no-run --manifest-path {}", ptxas.display(), manifest.display());
    let out = Command::new(cargo)
        .args(["test", "--release", "--no-run", "--message-format=json-render-diagnostics", "--manifest-path"])
        .arg(&manifest)
        .env("PTXAS", ptxas)
        .env_remove("CARGO_TARGET_DIR")
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("cannot run cargo test --no-run for examples/user-crate")?;
    if !out.status.success() {
        bail!("building the tests of examples/user-crate failed ({})", out.status);
    }
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let is_gpu_test = v["reason"] == "compiler-artifact" && v["target"]["name"] == "gpu" && v["profile"]["test"] == true;
        if let (true, Some(exe)) = (is_gpu_test, v["executable"].as_str()) {
            return Ok(PathBuf::from(exe));
        }
    }
    bail!("cargo built no test binary `gpu` for examples/user-crate")
}

/// `cargo build --release -p gpu --bin <bin>` with the stable toolchain that runs xtask.
fn cargo_build_release(root: &Path, bin: &str) -> Result<()> {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    println!("cargo build --release -p gpu --bin {bin}");
    run(Command::new(cargo).current_dir(root).args(["build", "--release", "-p", "gpu", "--bin", bin]), "cargo build --release -p gpu")
}

fn target_dir(root: &Path) -> PathBuf {
    env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| root.join("target"))
}

fn fresh_dir(dir: &Path) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    }
    fs::create_dir_all(dir).with_context(|| dir.display().to_string())
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    fs::create_dir_all(to.parent().expect("a file in a folder")).with_context(|| to.display().to_string())?;
    fs::copy(from, to).with_context(|| format!("copy {} -> {}", from.display(), to.display()))?;
    Ok(())
}

fn make_executable(path: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o755)).with_context(|| format!("chmod {}", path.display()))?;
    }
    let _ = path;
    Ok(())
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the repository root").to_path_buf()
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd.status().with_context(|| format!("{what}: cannot run {:?}", cmd.get_program()))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

fn ptx(sms: &[String]) -> Result<()> {
    let root = repo_root();
    ensure_rust_src()?;
    let ptxas = ensure_ptxas(&root)?;
    println!(
        "ptxas: {} ({})",
        ptxas.display(),
        warpkit_build::ptxas_version(&ptxas).unwrap_or_else(|| "?".into())
    );

    let expectations = div_expectations(&root.join("ptx/src/divergence.rs"))?;
    let mut failures = Vec::new();
    for sm in sms {
        println!();
        println!("== {sm}");
        if let Err(e) = build_and_check(&root, &ptxas, sm, &expectations) {
            eprintln!("{sm}: FAILED: {e:#}");
            failures.push(sm.clone());
        }
    }
    println!();
    if !failures.is_empty() {
        bail!("ptx: failed for {}", failures.join(", "));
    }
    println!("ptx: all {} targets built, passed ptxas and the instruction checks", sms.len());
    Ok(())
}

/// `rust-src` for the nightly toolchain, needed by `-Zbuild-std=core`: installed when the
/// builder's own check finds it missing (a missing nightly is left to the builder's message).
fn ensure_rust_src() -> Result<()> {
    match warpkit_build::check_toolchain(NIGHTLY) {
        Err(warpkit_build::Error::MissingRustSrc { .. }) => {
            println!("installing rust-src for nightly");
            let mut cmd = Command::new("rustup");
            cmd.args(["component", "add", "rust-src", "--toolchain", NIGHTLY]).env_remove("RUSTUP_TOOLCHAIN");
            run(&mut cmd, "rustup component add rust-src --toolchain nightly")?;
            warpkit_build::check_toolchain(NIGHTLY)?;
            Ok(())
        }
        other => other.map(|_| ()).map_err(Into::into),
    }
}

/// `ptxas`: `$PTXAS`, or the one in `target/ptxas-wheel/`, installed from PyPI if missing.
fn ensure_ptxas(root: &Path) -> Result<PathBuf> {
    if let Some(p) = env::var_os("PTXAS") {
        return Ok(PathBuf::from(p));
    }
    let wheel_dir = root.join("target/ptxas-wheel");
    let ptxas = wheel_dir.join("nvidia/cuda_nvcc/bin/ptxas");
    if !ptxas.is_file() {
        println!("installing ptxas: pip install --target {} {PTXAS_WHEEL}", wheel_dir.display());
        let python = if Command::new("python3").arg("--version").output().is_ok() { "python3" } else { "python" };
        let mut cmd = Command::new(python);
        cmd.args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--upgrade", "--target"])
            .arg(&wheel_dir)
            .arg(PTXAS_WHEEL);
        run(&mut cmd, &format!("pip install {PTXAS_WHEEL}"))?;
        if !ptxas.is_file() {
            bail!("{PTXAS_WHEEL} installed, but {} is not there", ptxas.display());
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut perm = fs::metadata(&ptxas)?.permissions();
        if perm.mode() & 0o111 != 0o111 {
            perm.set_mode(perm.mode() | 0o755);
            fs::set_permissions(&ptxas, perm).with_context(|| format!("chmod {}", ptxas.display()))?;
        }
    }
    Ok(ptxas)
}

/// One target: the builder (nightly nvptx64 build, PTX and LLVM IR into `target/ptx/<sm>/`,
/// ptxas), then the instruction checks.
fn build_and_check(root: &Path, ptxas: &Path, sm: &str, div: &BTreeMap<String, BTreeMap<String, usize>>) -> Result<()> {
    let extra: Vec<String> = env::var("WARPKIT_PTX_RUSTFLAGS").map(|f| f.split_whitespace().map(str::to_string).collect()).unwrap_or_default();
    let built = PtxBuilder::new()
        .kernel_crate(root.join("ptx"))
        .toolchain(NIGHTLY)
        .target(sm)
        .out_dir(root.join("target/ptx"))
        .target_dir(root.join("target/ptx-build"))
        .emit_llvm_ir(true)
        .ptxas(Ptxas::Path(ptxas.to_path_buf()))
        .rustflags(extra)
        .echo_commands(true)
        .cargo_directives(false)
        .build()?;
    let module = built.modules.first().ok_or_else(|| anyhow!("the builder returned no module for {sm}"))?;
    let ll_path = module.llvm_ir.as_ref().ok_or_else(|| anyhow!("no LLVM IR for {sm}"))?;
    println!("wrote {} and {}", module.ptx.display(), ll_path.display());
    let msg = module.ptxas.as_deref().unwrap_or_default();
    println!("ptxas -arch={sm}: ok{}", if msg.is_empty() { String::new() } else { format!("\n{msg}") });

    let ptx_text = fs::read_to_string(&module.ptx)?;
    let ll_text = fs::read_to_string(ll_path)?;
    let ptx_counts = ptx_kernel_instructions(&ptx_text);
    let ll_counts = ll_kernel_instructions(&ll_text);
    let mut expected = div.clone();
    expected.extend(dev_expectations(sm));
    check_instruction_counts(sm, &ptx_counts, &ll_counts, &expected)?;
    check_atom_kernels(sm, &ptx_text)?;
    check_memory_forms(sm, &ptx_text)?;
    check_mbarrier_forms(sm, &ptx_text)?;
    check_cluster_forms(sm, &ptx_text)
}

// ---------------------------------------------------------------------------------------------
// `atom`/`red` conformance kernels (ptx/src/atomics.rs): each must hold exactly the instructions
// of its type's operations with every `.sem`/`.scope` pair the target has, as written.
// ---------------------------------------------------------------------------------------------

/// Every `conf_atom_*` kernel with its gate: (kernel, space or vector, PTX type, families).
fn atom_kernels() -> Vec<(String, Gate, &'static str, &'static str, &'static [&'static str])> {
    const SCALAR: &[(&str, &str, Gate, &[&str])] = &[
        ("u32", "u32", Gate::All, &["add", "minmax", "incdec", "bits", "exch", "cas"]),
        ("s32", "s32", Gate::All, &["add", "minmax", "bits", "exch", "cas"]),
        ("u64", "u64", Gate::All, &["add", "minmax", "bits", "exch", "cas"]),
        ("s64", "s64", Gate::All, &["add", "minmax", "bits", "exch", "cas"]),
        ("f32", "f32", Gate::All, &["add", "exch", "cas"]),
        ("f64", "f64", Gate::All, &["add", "exch", "cas"]),
        ("f16", "f16", Gate::All, &["add", "cas"]),
        ("bf16", "bf16", Gate::Sm90, &["add", "cas"]),
        ("f16x2", "f16x2", Gate::All, &["add", "exch", "cas"]),
        ("bf16x2", "bf16x2", Gate::Sm90, &["add", "exch", "cas"]),
        ("b128", "b128", Gate::Sm90, &["exch", "cas"]),
    ];
    const VECTOR: &[(&str, &str, &[&str])] = &[
        ("vec2_f32", "v2.f32", &["add"]),
        ("vec4_f32", "v4.f32", &["add"]),
        ("vec2_f16", "v2.f16", &["add", "minmax"]),
        ("vec4_f16", "v4.f16", &["add", "minmax"]),
        ("vec8_f16", "v8.f16", &["add", "minmax"]),
        ("vec2_bf16", "v2.bf16", &["add", "minmax"]),
        ("vec4_bf16", "v4.bf16", &["add", "minmax"]),
        ("vec8_bf16", "v8.bf16", &["add", "minmax"]),
        ("vec2_f16x2", "v2.f16x2", &["add", "minmax"]),
        ("vec4_f16x2", "v4.f16x2", &["add", "minmax"]),
        ("vec2_bf16x2", "v2.bf16x2", &["add", "minmax"]),
        ("vec4_bf16x2", "v4.bf16x2", &["add", "minmax"]),
    ];
    let mut v = Vec::new();
    for &(name, ty, gate, fams) in SCALAR {
        v.push((format!("conf_atom_global_{name}"), gate, "global", ty, fams));
        v.push((format!("conf_atom_shared_{name}"), gate, "shared", ty, fams));
    }
    for &(name, ty, fams) in VECTOR {
        v.push((format!("conf_atom_{name}"), Gate::Sm90, "vector", ty, fams));
    }
    v
}

/// The instructions a `conf_atom_*` kernel must contain on `sm`, as warp-runtime writes them:
/// `atom{.sem.scope}.<space>.<op>.<type>` (`.noftz` after the op for the half types; vectors
/// `atom{..}.global.v<N>.<type>.<op>{.noftz}`), `red` likewise with `.relaxed`/`.release`. The
/// default pair `.relaxed.gpu` is written without qualifiers.
fn atom_expected(sm: &str, space: &str, ty: &str, fams: &[&str]) -> BTreeSet<String> {
    let cluster = gate_holds(Gate::Sm90, sm);
    let scopes: &[&str] = if cluster { &["cta", "cluster", "gpu", "sys"] } else { &["cta", "gpu", "sys"] };
    let quals = |sems: &[&str]| -> Vec<String> {
        let mut q = Vec::new();
        for sem in sems {
            for scope in scopes {
                q.push(if (*sem, *scope) == ("relaxed", "gpu") { String::new() } else { format!(".{sem}.{scope}") });
            }
        }
        q
    };
    let (atom_q, red_q) = (quals(&["relaxed", "acquire", "release", "acq_rel"]), quals(&["relaxed", "release"]));
    let half = ["f16", "bf16", "f16x2", "bf16x2"].iter().any(|h| ty.ends_with(h));
    let mut out = BTreeSet::new();
    let mut add = |instr: &str, op: &str, t: &str, qs: &[String]| {
        for q in qs {
            let m = if space == "vector" {
                let noftz = if half { ".noftz" } else { "" };
                format!("{instr}{q}.global.{ty}.{op}{noftz}")
            } else {
                let noftz = if half && op == "add" { "noftz." } else { "" };
                format!("{instr}{q}.{space}.{op}.{noftz}{t}")
            };
            out.insert(m);
        }
    };
    let bits = match ty {
        "u64" | "s64" | "f64" => "b64",
        "f16" | "bf16" => "b16",
        "b128" => "b128",
        _ => "b32",
    };
    let add_ty = if ty == "s64" { "u64" } else { ty };
    for fam in fams {
        match *fam {
            "add" => {
                add("atom", "add", add_ty, &atom_q);
                add("red", "add", add_ty, &red_q);
            }
            "minmax" => {
                for op in ["min", "max"] {
                    add("atom", op, ty, &atom_q);
                    add("red", op, ty, &red_q);
                }
            }
            "incdec" => {
                for op in ["inc", "dec"] {
                    add("atom", op, ty, &atom_q);
                    add("red", op, ty, &red_q);
                }
            }
            "bits" => {
                for op in ["and", "or", "xor"] {
                    add("atom", op, bits, &atom_q);
                    add("red", op, bits, &red_q);
                }
            }
            "exch" => add("atom", "exch", bits, &atom_q),
            "cas" => add("atom", "cas", bits, &atom_q),
            _ => unreachable!("family {fam}"),
        }
    }
    out
}

/// Every `conf_atom_*` kernel is present exactly where its gate holds and holds exactly the
/// `atom`/`red` instructions [`atom_expected`] lists (each at least once: LLVM may duplicate an
/// instruction into several paths, which is harmless for these one-element kernels).
fn check_atom_kernels(sm: &str, ptx: &str) -> Result<()> {
    let mut found: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in ptx.lines() {
        let t = line.trim_start();
        if t.starts_with(".visible .entry ") || t.starts_with(".entry ") || t.contains(".func ") && !t.starts_with("//") {
            current = t.split_once(".entry ").map(|(_, r)| r.split('(').next().unwrap_or("").trim().to_string()).filter(|n| n.starts_with("conf_atom_"));
            if let Some(k) = &current {
                found.entry(k.clone()).or_default();
            }
            continue;
        }
        let Some(k) = &current else { continue };
        let m = t.split(|c: char| c.is_whitespace() || c == ';').next().unwrap_or("");
        if m.starts_with("atom.") || m.starts_with("red.") {
            found.get_mut(k).unwrap().insert(m.to_string());
        }
    }
    let mut errors = Vec::new();
    let (mut kernels, mut instructions) = (0, 0);
    for (kernel, gate, space, ty, fams) in atom_kernels() {
        let wanted = gate_holds(gate, sm);
        match (found.get(&kernel), wanted) {
            (None, false) => {}
            (Some(_), false) => errors.push(format!("{kernel}: present, but its instructions need a later target than {sm}")),
            (None, true) => errors.push(format!("{kernel}: missing from the PTX")),
            (Some(have), true) => {
                let want = atom_expected(sm, space, ty, fams);
                let missing: Vec<_> = want.difference(have).collect();
                let extra: Vec<_> = have.difference(&want).collect();
                if !missing.is_empty() || !extra.is_empty() {
                    errors.push(format!("{kernel}: missing {missing:?}, unexpected {extra:?}"));
                }
                kernels += 1;
                instructions += want.len();
            }
        }
    }
    if errors.is_empty() {
        println!("atom/red check: {kernels} kernels ok, {instructions} distinct atom/red instructions");
        Ok(())
    } else {
        Err(anyhow!("atom/red check failed:\n  {}", errors.join("\n  ")))
    }
}

/// The PTX of entry `kernel`: from its `.entry` line to the next function.
fn entry_body<'a>(ptx: &'a str, kernel: &str) -> Option<&'a str> {
    let start = ptx.find(&format!(".visible .entry {kernel}("))?;
    let rest = &ptx[start + 1..];
    let end = [".visible .entry ", ".visible .func ", "\n.func ", "\n.weak "].iter().filter_map(|m| rest.find(m)).min().unwrap_or(rest.len());
    Some(&rest[..end])
}

/// `conf_ordered` (ptx/src/ordered.rs) holds every ordered load/store and fence form its target
/// has: each mnemonic at least once (a form the compiler dropped, or a scope emitted wrongly,
/// fails here before the GPU sees it).
fn check_memory_forms(sm: &str, ptx: &str) -> Result<()> {
    let body = entry_body(ptx, "conf_ordered").ok_or_else(|| anyhow!("conf_ordered is missing from the {sm} PTX"))?;
    let mut want: Vec<String> = Vec::new();
    let sm90 = matches!(sm, "sm_90" | "sm_100a");
    let scopes: &[&str] = if sm90 { &["cta", "cluster", "gpu", "sys"] } else { &["cta", "gpu", "sys"] };
    for (op, sem) in [("ld", "relaxed"), ("ld", "acquire"), ("st", "relaxed"), ("st", "release")] {
        for scope in ["cta", "gpu", "sys"] {
            want.push(format!("{op}.{sem}.{scope}.global.b32"));
        }
    }
    for f in ["sc", "acq_rel"] {
        for scope in scopes {
            want.push(format!("fence.{f}.{scope};"));
        }
    }
    want.extend(["st.volatile.global.b32", "st.volatile.global.b64", "st.volatile.shared.b32", "st.volatile.shared.b64"].map(String::from));
    want.extend(["ld.acquire.cta.shared.b32", "ld.acquire.sys.shared.b32", "ld.relaxed.cta.shared.b64", "st.release.cta.shared.b64", "st.relaxed.sys.shared.b64"].map(String::from));
    want.extend(["membar.cta;", "membar.gl;", "membar.sys;"].map(String::from));
    if sm90 {
        want.extend(["ld.relaxed.cluster.global.b32", "ld.acquire.cluster.global.b32", "st.relaxed.cluster.global.b32", "st.release.cluster.global.b32", "ld.acquire.cluster.shared.b32", "st.release.cluster.shared.b32"].map(String::from));
        want.extend(["fence.proxy.alias;", "membar.proxy.alias;", "fence.proxy.async;", "fence.proxy.async.global;", "fence.proxy.async.shared::cta;", "fence.proxy.async.shared::cluster;", "fence.mbarrier_init.release.cluster;"].map(String::from));
    }
    if sm == "sm_100a" {
        want.extend(["fence.proxy.tensormap::generic.release.gpu;", "fence.acquire.gpu;", "fence.release.cta;"].map(String::from));
    }
    let missing: Vec<&String> = want.iter().filter(|m| !body.contains(m.as_str())).collect();
    if missing.is_empty() {
        println!("memory forms: conf_ordered has all {} ordered load/store and fence forms of {sm}", want.len());
        Ok(())
    } else {
        Err(anyhow!("conf_ordered on {sm} lacks {missing:?}"))
    }
}

/// `conf_mbarrier` (ptx/src/mbarrier.rs) holds every mbarrier form its target has (sm_80: the
/// base forms; sm_90: the tx-count, `try_wait`, counted and scoped forms; PTX 8.6: `.relaxed`).
fn check_mbarrier_forms(sm: &str, ptx: &str) -> Result<()> {
    let body = entry_body(ptx, "conf_mbarrier").ok_or_else(|| anyhow!("conf_mbarrier is missing from the {sm} PTX"))?;
    let mut want: Vec<&str> = Vec::new();
    if sm != "sm_70" {
        want.extend([
            "mbarrier.init.shared.b64",
            "mbarrier.inval.shared.b64",
            "mbarrier.arrive.shared.b64",
            "mbarrier.arrive.noComplete.shared.b64",
            "mbarrier.arrive_drop.shared.b64",
            "mbarrier.arrive_drop.noComplete.shared.b64",
            "mbarrier.test_wait.shared.b64",
            "mbarrier.pending_count.b64",
        ]);
    }
    if matches!(sm, "sm_90" | "sm_100a") {
        want.extend([
            "mbarrier.arrive.expect_tx.shared.b64",
            "mbarrier.expect_tx.relaxed.cta.shared.b64",
            "mbarrier.complete_tx.relaxed.cta.shared.b64",
            "mbarrier.test_wait.parity.shared.b64",
            "mbarrier.try_wait.parity.acquire.cta.shared.b64",
            "mbarrier.try_wait.shared.b64",
            "mbarrier.arrive.release.cta.shared.b64",
        ]);
        // The suspendTimeHint forms: a fourth operand after the state or parity.
        if !body.lines().any(|l| l.contains("mbarrier.try_wait.parity.shared.b64") && l.matches(',').count() == 3)
            || !body.lines().any(|l| l.contains("mbarrier.try_wait.shared.b64") && l.matches(',').count() == 3)
        {
            return Err(anyhow!("conf_mbarrier on {sm} lacks the suspendTimeHint forms of mbarrier.try_wait"));
        }
    }
    if sm == "sm_90" {
        // PTX 8.4: `.relaxed` falls back to the stronger `.release`/`.acquire`.
        want.extend(["mbarrier.arrive.release.cluster.shared.b64", "mbarrier.try_wait.parity.acquire.cluster.shared.b64"]);
    }
    if sm == "sm_100a" {
        want.extend(["mbarrier.arrive.relaxed.cluster.shared.b64", "mbarrier.try_wait.parity.relaxed.cluster.shared.b64"]);
    }
    let mut missing: Vec<&&str> = want.iter().filter(|m| !body.contains(**m)).collect();
    // cp.async and its completion mechanisms (sm_80).
    let cp = entry_body(ptx, "conf_cp_async").ok_or_else(|| anyhow!("conf_cp_async is missing from the {sm} PTX"))?;
    let cp_forms = [
        "cp.async.ca.shared.global",
        "cp.async.mbarrier.arrive.shared.b64",
        "cp.async.mbarrier.arrive.noinc.shared.b64",
        "cp.async.commit_group;",
        "cp.async.wait_group 0;",
        "cp.async.wait_all;",
    ];
    if sm == "sm_70" {
        if cp.contains("cp.async") {
            return Err(anyhow!("conf_cp_async on sm_70 uses cp.async, which needs sm_80"));
        }
    } else {
        missing.extend(cp_forms.iter().filter(|f| !cp.contains(**f)));
        // The three copy sizes.
        let sizes = cp.lines().filter(|l| l.contains("cp.async.ca.shared.global")).map(|l| l.trim().trim_end_matches(';').rsplit(',').next().unwrap_or("").trim().to_string()).collect::<std::collections::BTreeSet<_>>();
        if sizes.len() != 3 {
            missing.push(&"cp.async.ca.shared.global of 4, 8 and 16 bytes");
        }
    }
    // The bug gallery's pipelines (sm_90: their waits are `try_wait.parity`).
    let gallery = ["gallery_mbarrier_parity_entry", "gallery_mbarrier_expect_tx_entry", "gallery_mbarrier_early_read_entry"];
    if matches!(sm, "sm_90" | "sm_100a") {
        // The pipeline example: the bulk copy completing on a stage's barrier.
        let body = entry_body(ptx, "mbarrier_reduce_entry").ok_or_else(|| anyhow!("mbarrier_reduce_entry is missing from the {sm} PTX"))?;
        for form in ["cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", "mbarrier.arrive.expect_tx.shared.b64", "elect.sync"] {
            if !body.contains(form) {
                missing.push(if form.starts_with("cp") { &"cp.async.bulk (in mbarrier_reduce_entry)" } else { &"arrive.expect_tx/elect.sync (in mbarrier_reduce_entry)" });
            }
        }
        for kernel in gallery {
            let body = entry_body(ptx, kernel).ok_or_else(|| anyhow!("{kernel} is missing from the {sm} PTX"))?;
            if !body.contains("mbarrier.try_wait.parity.acquire.cta.shared.b64") {
                missing.push(&"mbarrier.try_wait.parity (in the gallery's pipelines)");
            }
        }
    }
    if missing.is_empty() {
        println!("mbarrier forms: conf_mbarrier has all {} mbarrier forms of {sm}; the gallery's pipelines are built", want.len());
        Ok(())
    } else {
        Err(anyhow!("conf_mbarrier on {sm} lacks {missing:?}"))
    }
}

/// `conf_cluster` and `conf_red_async` hold every cluster form of sm_90 and later (ptx/src/cluster.rs):
/// the cluster registers, `barrier.cluster`, `mapa`, `ld`/`atom` on `.shared::cluster`, every
/// `red.async` operation and type, `st.async` and the remote mbarrier arrive. Below sm_90 the
/// kernels are empty.
fn check_cluster_forms(sm: &str, ptx: &str) -> Result<()> {
    let cluster = entry_body(ptx, "conf_cluster").ok_or_else(|| anyhow!("conf_cluster is missing from the {sm} PTX"))?;
    let red = entry_body(ptx, "conf_red_async").ok_or_else(|| anyhow!("conf_red_async is missing from the {sm} PTX"))?;
    if !matches!(sm, "sm_90" | "sm_100a") {
        let pdl = entry_body(ptx, "conf_pdl").unwrap_or_default();
        if cluster.contains("barrier.cluster") || cluster.contains("shared::cluster") || red.contains("red.async") || pdl.contains("griddepcontrol") {
            return Err(anyhow!("conf_cluster/conf_red_async on {sm} use cluster instructions, which need sm_90"));
        }
        return Ok(());
    }
    let in_cluster = [
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%clusterid.x",
        "%nclusterid.y",
        "%cluster_ctaid.z",
        "%cluster_nctaid.x",
        "%is_explicit_cluster",
        "barrier.cluster.arrive;",
        "barrier.cluster.wait;",
        "mapa.shared::cluster.u64",
        "ld.shared::cluster.u32",
        "ld.shared::cluster.u64",
        ".shared::cluster.exch.b32",
        ".shared::cluster.add.u32",
    ];
    let in_red = [
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.u32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.u32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.and.b32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.or.b32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.xor.b32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.s32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.max.s32",
        "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64",
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32",
        "mbarrier.try_wait.parity.acquire.cluster.shared.b64",
        "mbarrier.arrive_drop.release.cluster.shared::cluster.b64",
        "mbarrier.arrive.release.cluster.shared::cluster.b64",
        "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64",
        "mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64",
        "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64",
    ];
    let pdl = entry_body(ptx, "conf_pdl").ok_or_else(|| anyhow!("conf_pdl is missing from the {sm} PTX"))?;
    let in_pdl = ["griddepcontrol.launch_dependents;", "griddepcontrol.wait;"];
    let tm = entry_body(ptx, "conf_tensormap").ok_or_else(|| anyhow!("conf_tensormap is missing from the {sm} PTX"))?;
    let in_tm = [
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cluster.sync.aligned",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned",
        "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sys.sync.aligned",
    ];
    // clusterlaunchcontrol: sm_100 (the multicast form sm_100a).
    let cancel = entry_body(ptx, "conf_cluster_cancel").ok_or_else(|| anyhow!("conf_cluster_cancel is missing from the {sm} PTX"))?;
    let in_cancel: &[&str] = if sm == "sm_100a" {
        &[
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128",
            "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128",
            "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128",
        ]
    } else {
        if cancel.contains("clusterlaunchcontrol") {
            return Err(anyhow!("conf_cluster_cancel on {sm} uses clusterlaunchcontrol, which needs sm_100"));
        }
        &[]
    };
    let missing: Vec<&str> = in_cluster
        .iter()
        .chain(in_cancel.iter().filter(|f| !cancel.contains(**f)))
        .filter(|f| !cluster.contains(**f))
        .chain(in_red.iter().filter(|f| !red.contains(**f)))
        .chain(in_pdl.iter().filter(|f| !pdl.contains(**f)))
        .chain(in_tm.iter().filter(|f| !tm.contains(**f)))
        .copied()
        .collect();
    if missing.is_empty() {
        println!(
            "cluster forms: conf_cluster, conf_red_async, conf_pdl, conf_tensormap and conf_cluster_cancel have all {} cluster, griddepcontrol, tensormap and clusterlaunchcontrol forms of {sm}",
            in_cluster.len() + in_red.len() + in_pdl.len() + in_tm.len() + in_cancel.len()
        );
        Ok(())
    } else {
        Err(anyhow!("the cluster conformance kernels on {sm} lack {missing:?}"))
    }
}

/// The warp instructions of each `dev_*` kernel (ptx/src/handle.rs, written against the device
/// handle) on `sm`: an 8-byte shuffle is two `shfl.sync`; below its target, `redux` is the handle's
/// fallback (one `vote.sync.ballot` and six `shfl.sync.idx`, none duplicated into branches) and
/// `elect` one `vote.sync.ballot`. `dev_vote` is not listed: LLVM may merge its switch arms that
/// hold the same instruction (harmless there: the selector is uniform per membermask).
fn dev_expectations(sm: &str) -> BTreeMap<String, BTreeMap<String, usize>> {
    let mut out = BTreeMap::new();
    let mut add = |kernel: String, want: &[(&str, usize)]| {
        out.insert(
            kernel,
            want.iter()
                .map(|(m, n)| (m.to_string(), *n))
                .collect::<BTreeMap<_, _>>(),
        );
    };
    for (mode, method) in [
        ("up", "up"),
        ("down", "down"),
        ("bfly", "xor"),
        ("idx", "idx"),
    ] {
        let m = format!("shfl.sync.{mode}");
        add(format!("dev_shfl_{mode}_b64"), &[(&m, 2)]);
        add(format!("dev_shfl_sync_{method}_f64"), &[(&m, 2)]);
        add(format!("dev_tile_pred_{method}_i32"), &[(&m, 1)]);
    }
    let tree: &[(&str, usize)] = &[("vote.sync.ballot", 1), ("shfl.sync.idx", 6)];
    for (kernel, instr) in [
        ("add_u32", "add.u32"),
        ("min_u32", "min.u32"),
        ("max_u32", "max.u32"),
        ("add_i32", "add.s32"),
        ("min_i32", "min.s32"),
        ("max_i32", "max.s32"),
        ("and_u32", "and.b32"),
        ("or_u32", "or.b32"),
        ("xor_u32", "xor.b32"),
    ] {
        let native = format!("redux.sync.{instr}");
        let want: &[(&str, usize)] = if gate_holds(Gate::Sm80, sm) {
            &[(&native, 1)]
        } else {
            tree
        };
        add(format!("dev_redux_{kernel}"), want);
    }
    add(
        "dev_redux_f32".into(),
        if gate_holds(Gate::Sm100a, sm) {
            &[("redux.sync.", 8)]
        } else {
            tree
        },
    );
    add(
        "dev_elect".into(),
        if gate_holds(Gate::Sm90, sm) {
            &[("elect.sync", 1)]
        } else {
            &[("vote.sync.ballot", 1)]
        },
    );
    add("dev_lane_info".into(), &[]);
    out
}

// ----------------------------------------------------------------------------------------------
// Instruction checks
// ----------------------------------------------------------------------------------------------

/// Warp instruction mnemonic prefixes; `laneid`/`lanemask` reads are not warp instructions.
const WARP_PREFIXES: &[&str] = &[
    "shfl.sync.",
    "vote.",
    "match.",
    "redux.sync.",
    "activemask.",
    "bar.warp.sync",
    "elect.sync",
    "bar.sync",
    "bar.arrive",
    "bar.red.",
    "barrier.",
];

/// The warp instruction on one line of PTX, if any (its full mnemonic, e.g. `shfl.sync.down.b32`).
fn warp_instruction(line: &str) -> Option<&str> {
    let mut l = line.trim();
    if l.starts_with('@') {
        l = l
            .split_once(char::is_whitespace)
            .map(|(_, r)| r.trim_start())
            .unwrap_or("");
    }
    let mnemonic = l.split(|c: char| c.is_whitespace() || c == ';').next()?;
    WARP_PREFIXES
        .iter()
        .any(|p| mnemonic.starts_with(p))
        .then_some(mnemonic)
}

type Counts = BTreeMap<String, BTreeMap<String, usize>>;

/// kernel -> mnemonic -> count, from PTX: each `.entry` runs to the next `.entry`/`.func`.
fn ptx_kernel_instructions(ptx: &str) -> Counts {
    let mut counts = Counts::new();
    let mut current: Option<String> = None;
    for line in ptx.lines() {
        let t = line.trim_start();
        if t.starts_with(".visible .entry ")
            || t.starts_with(".entry ")
            || t.contains(".func ") && !t.starts_with("//")
        {
            current = t
                .split_once(".entry ")
                .map(|(_, r)| r.split('(').next().unwrap_or("").trim().to_string())
                .filter(|n| !n.is_empty());
            if let Some(k) = &current {
                counts.entry(k.clone()).or_default();
            }
            continue;
        }
        if let (Some(k), Some(m)) = (&current, warp_instruction(line)) {
            *counts.get_mut(k).unwrap().entry(m.to_string()).or_default() += 1;
        }
    }
    counts
}

/// kernel -> mnemonic -> count, from LLVM IR: the asm strings of the `ptx_kernel` definitions.
fn ll_kernel_instructions(ll: &str) -> Counts {
    let mut counts = Counts::new();
    let mut current: Option<String> = None;
    for line in ll.lines() {
        if line.starts_with("define ") {
            current = if line.contains("ptx_kernel") {
                line.split_once('@')
                    .and_then(|(_, r)| r.split('(').next())
                    .map(|n| n.trim_matches('"').to_string())
            } else {
                None
            };
            if let Some(k) = &current {
                counts.entry(k.clone()).or_default();
            }
            continue;
        }
        if line.starts_with('}') {
            current = None;
            continue;
        }
        let Some(k) = &current else { continue };
        // `call ... asm [sideeffect] [alignstack] "template", "constraints"(...)`
        let Some((_, after)) = line.split_once(" asm ") else {
            continue;
        };
        let Some((_, template)) = after.split_once('"') else {
            continue;
        };
        let template = template.split('"').next().unwrap_or("");
        for part in template.split("\\0A") {
            if let Some(m) = warp_instruction(part) {
                *counts.get_mut(k).unwrap().entry(m.to_string()).or_default() += 1;
            }
        }
    }
    counts
}

#[derive(Clone, Copy, PartialEq, PartialOrd, Debug)]
enum Gate {
    /// Deprecated non-`.sync` vote: only below sm_70 (never among the default targets).
    Below70,
    All,
    Sm70,
    Sm80,
    Sm90,
    Sm100a,
}

/// Whether the kernels behind `gate` exist for `sm`.
fn gate_holds(gate: Gate, sm: &str) -> bool {
    let num: u32 = sm
        .trim_start_matches("sm_")
        .trim_end_matches(|c: char| c.is_ascii_alphabetic())
        .parse()
        .unwrap_or(0);
    match gate {
        Gate::Below70 => num < 70,
        Gate::All => true,
        Gate::Sm70 => num >= 70,
        Gate::Sm80 => num >= 80,
        Gate::Sm90 => num >= 90,
        Gate::Sm100a => sm == "sm_100a",
    }
}

/// The entry kernels of `examples/*.rs` (`#[warp_kernel(entry)]`), built on every target; the
/// bug gallery's (`gallery_*`) are undefined behaviour and only built, never launched.
const EXAMPLE_KERNELS: &[&str] = &[
    "reduce_u32_entry",
    "reduce_i32_entry",
    "reduce_f32_entry",
    "reduce_f64_entry",
    "scan_u32_entry",
    "scan_i32_entry",
    "scan_f64_entry",
    "segmented_sum_u32_entry",
    "segmented_max_i32_entry",
    "compact_warp_entry",
    "compact_grid_entry",
    "histogram_ffs",
    "histogram_elect_entry",
    "radix_rank_entry",
    "radix_sort_entry",
    "sort_u32_entry",
    "sort_pairs_f32_entry",
    "sort_pairs_grid",
    "find_first_entry",
    "gallery_reduce7_entry",
    "gallery_block_reduce_tail_entry",
    "gallery_data_as_mask_entry",
    "gallery_search_triplets_entry",
    "gallery_orientation_entry",
    "gallery_block_total_entry",
    "gallery_warp_reduce_entry",
    "gallery_lost_update_entry",
    "histogram_done_entry",
    "block_reduce_entry",
    "block_scan_entry",
    "block_radix_sort_entry",
    "lookback_scan_entry",
    "pipeline_entry",
    "block_compact_entry",
    "conf_bar_red",
    "conf_bar_divergent",
    "conf_named_barriers",
    "conf_shared_atomics",
    "conf_dynamic_shared",
    "conf_activemask_paths",
];

/// The benchmark's warpkit kernels (`benches/gpu/kernels.rs`), checked like the example kernels.
const BENCH_KERNELS: &[&str] = &[
    "bench_reduce_redux",
    "bench_reduce_shfl",
    "bench_scan_sums",
    "bench_scan_chunks",
    "bench_block_reduce",
    "bench_lookback_scan",
];

/// Every conformance kernel, with its target gate (mirrors the cfgs in ptx/src/conformance.rs).
fn conformance_kernels() -> Vec<(String, Gate)> {
    let mut v = Vec::new();
    let mut add =
        |gate: Gate, names: &[&str]| v.extend(names.iter().map(|n| (format!("conf_{n}"), gate)));
    add(
        Gate::All,
        &[
            "shfl_sync_up",
            "shfl_sync_down",
            "shfl_sync_bfly",
            "shfl_sync_idx",
        ],
    );
    add(
        Gate::All,
        &[
            "vote_sync_all",
            "vote_sync_any",
            "vote_sync_uni",
            "vote_sync_ballot",
        ],
    );
    add(
        Gate::Below70,
        &["vote_all", "vote_any", "vote_uni", "vote_ballot"],
    );
    add(
        Gate::Sm70,
        &[
            "match_any_sync_b32",
            "match_any_sync_b64",
            "match_all_sync_b32",
            "match_all_sync_b64",
        ],
    );
    add(
        Gate::Sm80,
        &[
            "redux_sync_add_u32",
            "redux_sync_min_u32",
            "redux_sync_max_u32",
        ],
    );
    add(
        Gate::Sm80,
        &[
            "redux_sync_add_s32",
            "redux_sync_min_s32",
            "redux_sync_max_s32",
        ],
    );
    add(
        Gate::Sm80,
        &[
            "redux_sync_and_b32",
            "redux_sync_or_b32",
            "redux_sync_xor_b32",
        ],
    );
    add(
        Gate::Sm100a,
        &[
            "redux_sync_min_f32",
            "redux_sync_max_f32",
            "redux_sync_min_abs_f32",
            "redux_sync_max_abs_f32",
        ],
    );
    add(
        Gate::Sm100a,
        &[
            "redux_sync_min_nan_f32",
            "redux_sync_max_nan_f32",
            "redux_sync_min_abs_nan_f32",
            "redux_sync_max_abs_nan_f32",
        ],
    );
    add(Gate::All, &["activemask", "bar_warp_sync", "lane_info"]);
    add(Gate::Sm90, &["elect_sync"]);
    v
}

/// The PTX mnemonic prefix a `conf_*` kernel must execute: `conf_redux_sync_min_abs_nan_f32` ->
/// `redux.sync.min.abs.NaN.f32`, `conf_vote_sync_all` -> `vote.sync.all`; `None` for `conf_lane_info`.
fn expected_mnemonic(kernel: &str) -> Option<String> {
    let op = kernel.strip_prefix("conf_")?;
    if op == "lane_info" {
        return None;
    }
    Some(op.replace('_', ".").replace(".nan.", ".NaN."))
}

/// `expect: mnemonic=count ...` lines in the doc comments of ptx/src/divergence.rs, per kernel.
fn div_expectations(path: &Path) -> Result<BTreeMap<String, BTreeMap<String, usize>>> {
    let src = fs::read_to_string(path).with_context(|| path.display().to_string())?;
    let mut out = BTreeMap::new();
    let mut pending: Option<BTreeMap<String, usize>> = None;
    for line in src.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("/// expect:") {
            let mut m = BTreeMap::new();
            for item in rest.split_whitespace() {
                let (k, v) = item
                    .split_once('=')
                    .ok_or_else(|| anyhow!("{}: bad expect item {item:?}", path.display()))?;
                m.insert(
                    k.to_string(),
                    v.parse::<usize>()
                        .with_context(|| format!("{}: {item:?}", path.display()))?,
                );
            }
            pending = Some(m);
        } else if let Some((_, rest)) = t.split_once("extern \"ptx-kernel\" fn ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            out.insert(
                name,
                pending.take().ok_or_else(|| {
                    anyhow!("{}: kernel without an `expect:` line", path.display())
                })?,
            );
        }
    }
    Ok(out)
}

/// Sum of the counts of the mnemonics that start with `prefix`.
fn count_prefix(counts: &BTreeMap<String, usize>, prefix: &str) -> usize {
    counts
        .iter()
        .filter(|(m, _)| m.starts_with(prefix))
        .map(|(_, n)| n)
        .sum()
}

fn check_instruction_counts(
    sm: &str,
    ptx: &Counts,
    ll: &Counts,
    div: &BTreeMap<String, BTreeMap<String, usize>>,
) -> Result<()> {
    let mut errors = Vec::new();
    let mut seen = 0;
    for (kernel, gate) in conformance_kernels() {
        let present_ptx = ptx.contains_key(&kernel);
        let present_ll = ll.contains_key(&kernel);
        let wanted = gate_holds(gate, sm);
        if present_ptx != wanted || present_ll != wanted {
            errors.push(format!(
                "{kernel}: expected {}, PTX has it: {present_ptx}, IR has it: {present_ll}",
                if wanted { "present" } else { "absent" }
            ));
            continue;
        }
        if !wanted {
            continue;
        }
        seen += 1;
        for (what, counts) in [("PTX", &ptx[&kernel]), ("IR", &ll[&kernel])] {
            let total: usize = counts.values().sum();
            match expected_mnemonic(&kernel) {
                None if total != 0 => errors.push(format!(
                    "{kernel}: {what} has warp instructions {counts:?}, expected none"
                )),
                Some(m) if total != 1 || count_prefix(counts, &m) != 1 => errors.push(format!(
                    "{kernel}: {what} has {counts:?}, expected exactly one {m}*"
                )),
                _ => {}
            }
        }
    }
    for (kernel, want) in div {
        for (what, counts) in [("PTX", ptx.get(kernel)), ("IR", ll.get(kernel))] {
            let Some(counts) = counts else {
                errors.push(format!("{kernel}: missing from the {what}"));
                continue;
            };
            let total: usize = counts.values().sum();
            let want_total: usize = want.values().sum();
            let wrong =
                want.iter().any(|(m, n)| count_prefix(counts, m) != *n) || total != want_total;
            if wrong {
                errors.push(format!(
                    "{kernel}: {what} has {counts:?}, expected {want:?}"
                ));
            }
        }
        seen += 1;
    }
    // The example kernels: present on every target, each with warp instructions, and the same
    // ones in the PTX as in the LLVM IR (the backend neither duplicated nor merged any). Their
    // exact counts are not fixed here: they loop (`while offset > 0`, `for offset in ..`), and
    // how far LLVM unrolls them is the optimizer's choice; the GPU program checks what they
    // compute against the CPU runtime instead. The benchmark kernels (benches/gpu/) likewise.
    for kernel in EXAMPLE_KERNELS.iter().chain(BENCH_KERNELS) {
        let (Some(p), Some(l)) = (ptx.get(*kernel), ll.get(*kernel)) else {
            errors.push(format!(
                "{kernel} (example): expected in the PTX and the IR, PTX has it: {}, IR has it: {}",
                ptx.contains_key(*kernel),
                ll.contains_key(*kernel)
            ));
            continue;
        };
        if p.values().sum::<usize>() == 0 {
            errors.push(format!("{kernel} (example): no warp instructions in the PTX"));
        } else if p != l {
            errors.push(format!("{kernel} (example): PTX has {p:?}, IR has {l:?}"));
        }
        seen += 1;
    }
    let unknown: Vec<&String> = ptx
        .keys()
        .filter(|k| {
            !div.contains_key(*k)
                && !conformance_kernels().iter().any(|(c, _)| c == *k)
                && !EXAMPLE_KERNELS.contains(&k.as_str())
                && !BENCH_KERNELS.contains(&k.as_str())
                && !k.starts_with("conf_atom_")
                && k.as_str() != "conf_ordered"
                && k.as_str() != "conf_mbarrier"
                && !k.starts_with("gallery_mbarrier_")
                && k.as_str() != "mbarrier_reduce_entry"
        })
        .collect();
    if !unknown.is_empty() {
        println!("note: kernels without an instruction check: {unknown:?}");
    }
    if errors.is_empty() {
        let mut totals: BTreeMap<&str, usize> = BTreeMap::new();
        for counts in ptx.values() {
            for (m, n) in counts {
                *totals.entry(m.as_str()).or_default() += n;
            }
        }
        println!("instruction check: {seen} kernels ok; warp instructions in the PTX: {totals:?}");
        Ok(())
    } else {
        Err(anyhow!("instruction check failed:\n  {}", errors.join("\n  ")))
    }
}
