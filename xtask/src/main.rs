//! Developer commands: `cargo xtask <command>`.
//!
//! `cargo xtask ptx [--sm SM]...`
//!
//! Builds the kernel crate `ptx/` to PTX for sm_70, sm_80, sm_90 and sm_100a (or the `--sm` ones),
//! checks every module with `ptxas`, and checks in the LLVM IR and the PTX that each kernel holds
//! exactly the warp instructions it is written with (none duplicated, merged or lost); for the
//! example kernels (`examples/*.rs`, whose loops the optimizer may unroll), that each is present
//! and holds the same warp instructions in the PTX as in the IR. On a fresh
//! machine it first installs what it needs:
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
//! `cargo xtask gpu-bench`
//!
//! Runs `ptx --sm sm_90`, builds the benchmark host program (`cargo build --release -p gpu --bin
//! gpu-bench`) and assembles `target/gpu-bench/`: `gpu-bench`, `warpkit_ptx.ptx` (sm_90), the CUDA
//! C++ of the same algorithms (`benches/gpu/kernels.cu`), `sass_loop.awk` and `run.sh`
//! (`benches/gpu/run.sh`). On a machine with an sm_90 GPU and the CUDA toolkit, `sh run.sh` builds
//! both sides with nvcc/ptxas, dumps their SASS and times them (see `gpu/src/bench.rs`).
//!
//! Outputs of `ptx`: `target/ptx/<sm>/warpkit_ptx.ptx` and `target/ptx/<sm>/warpkit_ptx.ll`; the cargo build
//! of each sm lives in `target/ptx-build/<sm>`. Set `WARPKIT_PTX_RUSTFLAGS` (space-separated) to add
//! rustc flags to every crate of the build, e.g. for experiments with `-Zmir-enable-passes=...`.

use std::collections::BTreeMap;
use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

const TARGET: &str = "nvptx64-nvidia-cuda";
const CRATE: &str = "warpkit_ptx";
const DEFAULT_SMS: &[&str] = &["sm_70", "sm_80", "sm_90", "sm_100a"];
/// The ptxas wheel. 12.9 knows sm_100a and PTX ISA 8.8.
const PTXAS_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";

/// rustc flags for every crate of every nvptx build, and why.
///
/// The kernels need each warp instruction to stay in the branch arm it is written in. Inline asm
/// reaches LLVM as `call asm sideeffect` *without* the `convergent` attribute (rustc marks GPU
/// *functions* convergent, not asm call sites), and MIR has no notion of convergence at all. With
/// rustc 1.97.0-nightly (2026-05-19) two passes merged identical warp instructions from both arms
/// of an `if`/`else` into one executed by the whole warp (the `div_*` kernels in ptx/ show it):
///
/// * MIR `MatchBranchSimplification` merged `if c { activemask() } else { activemask() }` into one
///   `activemask` (both arms were the same block) -> `-Zmir-enable-passes=-MatchBranchSimplification`;
/// * LLVM SimplifyCFG hoisted the identical `activemask` + `shfl.sync` at the top of both arms
///   above the branch -> `-Cllvm-args=-simplifycfg-hoist-common=false`.
///
/// MIR `JumpThreading` (rust-lang/rust#137086, duplicates a warp instruction into both arms) is
/// already off for GPU targets in this nightly (rust-lang/rust#149637); it is named here too so that
/// an older nightly is safe. `check_instruction_counts` verifies the result on every build.
const COMMON_RUSTFLAGS: &[&str] = &[
    "-Zmir-enable-passes=-JumpThreading,-MatchBranchSimplification",
    "-Cllvm-args=-simplifycfg-hoist-common=false",
];

/// Extra `-C target-feature`s per target: the PTX ISA version LLVM picks for a target is the lowest
/// that target allows (sm_70/sm_80: 7.0, sm_90: 7.8, sm_100a: 8.6), but `elect.sync` needs PTX 8.0.
fn target_features(sm: &str) -> Option<&'static str> {
    match sm {
        "sm_90" => Some("+ptx80"),
        _ => None,
    }
}

fn main() {
    let args: Vec<String> = env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("ptx") => {
            let mut sms = Vec::new();
            let mut it = args[1..].iter();
            while let Some(a) = it.next() {
                match a.as_str() {
                    "--sm" => match it.next() {
                        Some(sm) => sms.push(sm.clone()),
                        None => usage_error("--sm needs a value, e.g. --sm sm_90"),
                    },
                    other => usage_error(&format!("unknown argument to `ptx`: {other}")),
                }
            }
            if sms.is_empty() {
                sms = DEFAULT_SMS.iter().map(|s| s.to_string()).collect();
            }
            if let Err(e) = ptx(&sms) {
                eprintln!("error: {e}");
                exit(1);
            }
        }
        Some("gpu-conformance") => {
            if let Some(a) = args.get(1) {
                usage_error(&format!("unknown argument to `gpu-conformance`: {a}"));
            }
            if let Err(e) = gpu_conformance() {
                eprintln!("error: {e}");
                exit(1);
            }
        }
        Some("gpu-bench") => {
            if let Some(a) = args.get(1) {
                usage_error(&format!("unknown argument to `gpu-bench`: {a}"));
            }
            if let Err(e) = gpu_bench() {
                eprintln!("error: {e}");
                exit(1);
            }
        }
        Some("help") | Some("--help") | Some("-h") | None => print_usage(),
        Some(other) => usage_error(&format!("unknown command: {other}")),
    }
}

fn print_usage() {
    println!("usage: cargo xtask <command>");
    println!();
    println!("commands:");
    println!(
        "  ptx [--sm SM]...   build ptx/ to PTX for {} (or the given sms),",
        DEFAULT_SMS.join(", ")
    );
    println!(
        "                     check each with ptxas and check the warp instructions per kernel"
    );
    println!(
        "  gpu-conformance    build the PTX and the host program gpu/ into target/gpu-bundle/,"
    );
    println!("                     to be run on a GPU machine with ./run.sh");
    println!(
        "  gpu-bench          build the sm_90 PTX and the benchmark program into target/gpu-bench/,"
    );
    println!(
        "                     with the CUDA C++ of the same kernels and a run.sh for a GPU machine"
    );
}

/// The folder the benchmark bundle is assembled in, relative to the repository root.
const BENCH_BUNDLE: &str = "target/gpu-bench";

/// `cargo xtask gpu-bench`: the sm_90 PTX, the `gpu-bench` host program, the CUDA C++ side and
/// `run.sh`, in `target/gpu-bench/`.
fn gpu_bench() -> Result<(), String> {
    let root = repo_root();
    ptx(&["sm_90".to_string()])?;

    println!();
    println!("== host program");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(&root)
        .args(["build", "--release", "-p", "gpu", "--bin", "gpu-bench"]);
    println!("cargo build --release -p gpu --bin gpu-bench");
    run(&mut cmd, "cargo build --release -p gpu --bin gpu-bench")?;
    let target_dir = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));

    let bundle = root.join(BENCH_BUNDLE);
    if bundle.exists() {
        fs::remove_dir_all(&bundle).map_err(|e| format!("{}: {e}", bundle.display()))?;
    }
    fs::create_dir_all(&bundle).map_err(|e| format!("{}: {e}", bundle.display()))?;
    let gpu_dir = root.join("benches/gpu");
    for (from, name) in [
        (target_dir.join("release/gpu-bench"), "gpu-bench"),
        (
            root.join("target/ptx/sm_90").join(format!("{CRATE}.ptx")),
            "warpkit_ptx.ptx",
        ),
        (gpu_dir.join("kernels.cu"), "kernels.cu"),
        (gpu_dir.join("sass_loop.awk"), "sass_loop.awk"),
        (gpu_dir.join("run.sh"), "run.sh"),
    ] {
        let to = bundle.join(name);
        fs::copy(&from, &to)
            .map_err(|e| format!("copy {} -> {}: {e}", from.display(), to.display()))?;
        #[cfg(unix)]
        if name == "gpu-bench" || name == "run.sh" {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&to, fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("chmod {}: {e}", to.display()))?;
        }
    }
    println!();
    println!("bundle: {}", bundle.display());
    println!(
        "on a machine with an sm_90 GPU and the CUDA toolkit (nvcc, ptxas, cuobjdump), from the"
    );
    println!("repository root (through the device tool: carry [\"{BENCH_BUNDLE}\"]; results go to $OUT):");
    println!();
    println!("    sh {BENCH_BUNDLE}/run.sh");
    Ok(())
}

/// `cargo xtask gpu-conformance`: PTX for every default target, the host program, and a bundle.
fn gpu_conformance() -> Result<(), String> {
    let root = repo_root();
    let sms: Vec<String> = DEFAULT_SMS.iter().map(|s| s.to_string()).collect();
    ptx(&sms)?;

    println!();
    println!("== host program");
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(&root).args([
        "build",
        "--release",
        "-p",
        "gpu",
        "--bin",
        "gpu-conformance",
    ]);
    println!("cargo build --release -p gpu --bin gpu-conformance");
    run(&mut cmd, "cargo build --release -p gpu")?;
    let target_dir = env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let exe = target_dir.join("release/gpu-conformance");

    let bundle = root.join("target/gpu-bundle");
    if bundle.exists() {
        fs::remove_dir_all(&bundle).map_err(|e| format!("{}: {e}", bundle.display()))?;
    }
    let copy = |from: &Path, to: &Path| -> Result<(), String> {
        fs::create_dir_all(to.parent().unwrap()).map_err(|e| format!("{}: {e}", to.display()))?;
        fs::copy(from, to)
            .map(|_| ())
            .map_err(|e| format!("copy {} -> {}: {e}", from.display(), to.display()))
    };
    copy(&exe, &bundle.join("gpu-conformance"))?;
    for sm in &sms {
        let f = format!("{CRATE}.ptx");
        copy(
            &root.join("target/ptx").join(sm).join(&f),
            &bundle.join("ptx").join(sm).join(&f),
        )?;
    }
    let run_sh = bundle.join("run.sh");
    fs::write(
        &run_sh,
        "#!/bin/sh\n\
         # Runs the warpkit GPU conformance cases on GPU 0 and in the CPU runtime; exit status 0 when all agree.\n\
         # Needs the NVIDIA driver (libcuda.so) only. Extra arguments: --seed N, --scale K, --show N.\n\
         cd \"$(dirname \"$0\")\" && exec ./gpu-conformance --ptx ./ptx \"$@\"\n",
    )
    .map_err(|e| format!("{}: {e}", run_sh.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for f in [&run_sh, &bundle.join("gpu-conformance")] {
            fs::set_permissions(f, fs::Permissions::from_mode(0o755))
                .map_err(|e| format!("chmod {}: {e}", f.display()))?;
        }
    }
    println!();
    println!("bundle: {}", bundle.display());
    println!("copy that folder to the GPU machine and run there, from the folder's parent:");
    println!();
    println!("    sh gpu-bundle/run.sh");
    Ok(())
}

fn usage_error(msg: &str) -> ! {
    eprintln!("error: {msg}");
    eprintln!();
    print_usage();
    exit(2);
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the repository root")
        .to_path_buf()
}

/// A command for the nightly toolchain's `cargo`/`rustc`, without what `cargo xtask` (run by the
/// pinned stable toolchain) leaves in the environment.
fn nightly(program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.arg("+nightly");
    for var in [
        "RUSTUP_TOOLCHAIN",
        "RUSTC",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTFLAGS",
        "RUSTDOCFLAGS",
        "CARGO",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_MANIFEST_DIR",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("{what}: cannot run {:?}: {e}", cmd.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

fn ptx(sms: &[String]) -> Result<(), String> {
    let root = repo_root();
    ensure_rust_src()?;
    let ptxas = ensure_ptxas(&root)?;
    let version = Command::new(&ptxas)
        .arg("--version")
        .output()
        .map_err(|e| format!("{}: {e}", ptxas.display()))?;
    let version = String::from_utf8_lossy(&version.stdout);
    println!(
        "ptxas: {} ({})",
        ptxas.display(),
        version.lines().last().unwrap_or("?").trim()
    );

    let expectations = div_expectations(&root.join("ptx/src/divergence.rs"))?;
    let mut failures = Vec::new();
    for sm in sms {
        println!();
        println!("== {sm}");
        match build_and_check(&root, &ptxas, sm, &expectations) {
            Ok(()) => {}
            Err(e) => {
                eprintln!("{sm}: FAILED: {e}");
                failures.push(sm.clone());
            }
        }
    }
    println!();
    if failures.is_empty() {
        println!(
            "ptx: all {} targets built, passed ptxas and the instruction checks",
            sms.len()
        );
        Ok(())
    } else {
        Err(format!("ptx: failed for {}", failures.join(", ")))
    }
}

/// `rust-src` for the nightly toolchain, needed by `-Zbuild-std=core`.
fn ensure_rust_src() -> Result<(), String> {
    let out = nightly("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run `rustc +nightly`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`rustc +nightly --print sysroot` failed; is a nightly toolchain installed?\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if sysroot
        .join("lib/rustlib/src/rust/library/core/Cargo.toml")
        .is_file()
    {
        return Ok(());
    }
    println!("installing rust-src for nightly");
    let mut cmd = Command::new("rustup");
    cmd.args(["component", "add", "rust-src", "--toolchain", "nightly"]);
    cmd.env_remove("RUSTUP_TOOLCHAIN");
    run(
        &mut cmd,
        "rustup component add rust-src --toolchain nightly",
    )
}

/// `ptxas`: `$PTXAS`, or the one in `target/ptxas-wheel/`, installed from PyPI if missing.
fn ensure_ptxas(root: &Path) -> Result<PathBuf, String> {
    if let Some(p) = env::var_os("PTXAS") {
        return Ok(PathBuf::from(p));
    }
    let wheel_dir = root.join("target/ptxas-wheel");
    let ptxas = wheel_dir.join("nvidia/cuda_nvcc/bin/ptxas");
    if !ptxas.is_file() {
        println!(
            "installing ptxas: pip install --target {} {PTXAS_WHEEL}",
            wheel_dir.display()
        );
        let python = if Command::new("python3").arg("--version").output().is_ok() {
            "python3"
        } else {
            "python"
        };
        let mut cmd = Command::new(python);
        cmd.args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--upgrade",
            "--target",
        ])
        .arg(&wheel_dir)
        .arg(PTXAS_WHEEL);
        run(&mut cmd, &format!("pip install {PTXAS_WHEEL}"))?;
        if !ptxas.is_file() {
            return Err(format!(
                "{PTXAS_WHEEL} installed, but {} is not there",
                ptxas.display()
            ));
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mut perm = fs::metadata(&ptxas)
            .map_err(|e| e.to_string())?
            .permissions();
        if perm.mode() & 0o111 != 0o111 {
            perm.set_mode(perm.mode() | 0o755);
            fs::set_permissions(&ptxas, perm)
                .map_err(|e| format!("chmod {}: {e}", ptxas.display()))?;
        }
    }
    Ok(ptxas)
}

fn build_and_check(
    root: &Path,
    ptxas: &Path,
    sm: &str,
    div: &BTreeMap<String, BTreeMap<String, usize>>,
) -> Result<(), String> {
    let target_dir = root.join("target/ptx-build").join(sm);
    let deps = target_dir.join(TARGET).join("release/deps");
    // -C target-cpu goes to every crate (RUSTFLAGS), not only to the kernel crate (`cargo rustc --`
    // args): warp-runtime's instruction functions are cfg-gated on `target_feature = "sm_*"`, which
    // follows target-cpu, and core should be built for the same target.
    let mut rustflags = vec![format!("-Ctarget-cpu={sm}")];
    if let Some(f) = target_features(sm) {
        rustflags.push(format!("-Ctarget-feature={f}"));
    }
    rustflags.extend(COMMON_RUSTFLAGS.iter().map(|s| s.to_string()));
    if let Ok(extra) = env::var("WARPKIT_PTX_RUSTFLAGS") {
        rustflags.extend(extra.split_whitespace().map(str::to_string));
    }
    let mut cmd = nightly("cargo");
    cmd.current_dir(root.join("ptx"))
        .args([
            "rustc",
            "--release",
            "--target",
            TARGET,
            "-Zbuild-std=core",
            "--",
        ])
        .arg("--emit=asm,llvm-ir")
        .env("CARGO_TARGET_DIR", &target_dir)
        .env("CARGO_ENCODED_RUSTFLAGS", rustflags.join("\x1f"));
    println!(
        "(cd ptx && CARGO_TARGET_DIR={} CARGO_ENCODED_RUSTFLAGS='{}' cargo +nightly rustc --release --target {TARGET} -Zbuild-std=core -- --emit=asm,llvm-ir)",
        target_dir.display(),
        rustflags.join(" ")
    );
    run(&mut cmd, "cargo +nightly rustc")?;

    let s = find_newest(&deps, ".s")?;
    let ll = find_newest(&deps, ".ll")?;
    let out_dir = root.join("target/ptx").join(sm);
    fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    let ptx_path = out_dir.join(format!("{CRATE}.ptx"));
    let ll_path = out_dir.join(format!("{CRATE}.ll"));
    fs::copy(&s, &ptx_path).map_err(|e| format!("copy {}: {e}", s.display()))?;
    fs::copy(&ll, &ll_path).map_err(|e| format!("copy {}: {e}", ll.display()))?;
    println!("wrote {} and {}", ptx_path.display(), ll_path.display());

    let out = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .args(["-o", "/dev/null"])
        .arg(&ptx_path)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let msg = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if !out.status.success() {
        return Err(format!(
            "ptxas -arch={sm} {} failed ({}):\n{}",
            ptx_path.display(),
            out.status,
            msg.trim_end()
        ));
    }
    println!(
        "ptxas -arch={sm}: ok{}",
        if msg.trim().is_empty() {
            String::new()
        } else {
            format!("\n{}", msg.trim_end())
        }
    );

    let ptx_text = fs::read_to_string(&ptx_path).map_err(|e| e.to_string())?;
    let ll_text = fs::read_to_string(&ll_path).map_err(|e| e.to_string())?;
    let ptx_counts = ptx_kernel_instructions(&ptx_text);
    let ll_counts = ll_kernel_instructions(&ll_text);
    let mut expected = div.clone();
    expected.extend(dev_expectations(sm));
    check_instruction_counts(sm, &ptx_counts, &ll_counts, &expected)
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

/// The newest `<crate>-<hash><ext>` file in `deps` (older ones are outputs of other flags or
/// sources; they are left alone, since another `cargo xtask ptx` may be using the same directory).
fn find_newest(deps: &Path, ext: &str) -> Result<PathBuf, String> {
    fs::read_dir(deps)
        .map_err(|e| format!("{}: {e}", deps.display()))?
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with(&format!("{CRATE}-")) && n.ends_with(ext)
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .max()
        .map(|(_, p)| p)
        .ok_or_else(|| format!("no {CRATE}-*{ext} in {}", deps.display()))
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
fn div_expectations(path: &Path) -> Result<BTreeMap<String, BTreeMap<String, usize>>, String> {
    let src = fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = BTreeMap::new();
    let mut pending: Option<BTreeMap<String, usize>> = None;
    for line in src.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("/// expect:") {
            let mut m = BTreeMap::new();
            for item in rest.split_whitespace() {
                let (k, v) = item
                    .split_once('=')
                    .ok_or_else(|| format!("{}: bad expect item {item:?}", path.display()))?;
                m.insert(
                    k.to_string(),
                    v.parse::<usize>()
                        .map_err(|e| format!("{}: {item:?}: {e}", path.display()))?,
                );
            }
            pending = Some(m);
        } else if let Some((_, rest)) = t.split_once("extern \"ptx-kernel\" fn ") {
            let name = rest.split('(').next().unwrap_or("").trim().to_string();
            out.insert(
                name,
                pending.take().ok_or_else(|| {
                    format!("{}: kernel without an `expect:` line", path.display())
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
) -> Result<(), String> {
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
        Err(format!(
            "instruction check failed:\n  {}",
            errors.join("\n  ")
        ))
    }
}
