//! Finding and running `ptxas`, NVIDIA's PTX assembler, to check each module.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::Error;

/// Whether and which `ptxas` checks the PTX.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Ptxas {
    /// Use `ptxas` if one is found (`$PTXAS`, then `PATH`, then `$CUDA_HOME/bin`,
    /// `$CUDA_PATH/bin`, `/usr/local/cuda/bin`); otherwise build without the check and say so
    /// (a `cargo:warning` in a build script).
    #[default]
    IfFound,
    /// As `IfFound`, but a missing `ptxas` is an error.
    Required,
    /// This `ptxas` (an error if it does not exist).
    Path(PathBuf),
    /// Do not check.
    Skip,
}

/// Where `ptxas` is looked for, in order, given the environment.
pub(crate) fn candidates(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = env("PTXAS") {
        out.push(PathBuf::from(p));
    }
    if let Some(path) = env("PATH") {
        out.extend(std::env::split_paths(&path).map(|d| d.join("ptxas")));
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(d) = env(var) {
            out.push(PathBuf::from(d).join("bin/ptxas"));
        }
    }
    out.push(PathBuf::from("/usr/local/cuda/bin/ptxas"));
    out
}

/// The `ptxas` to use: `Ok(None)` when there is none and none is required.
pub(crate) fn resolve(mode: &Ptxas, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Option<PathBuf>, Error> {
    match mode {
        Ptxas::Skip => Ok(None),
        Ptxas::Path(p) if p.is_file() => Ok(Some(p.clone())),
        Ptxas::Path(p) => Err(Error::MissingPtxas { searched: vec![p.display().to_string()] }),
        Ptxas::IfFound | Ptxas::Required => {
            let found = candidates(env).into_iter().find(|p| p.is_file());
            match (found, mode) {
                (Some(p), _) => Ok(Some(p)),
                (None, Ptxas::Required) => Err(Error::MissingPtxas { searched: searched(env) }),
                (None, _) => Ok(None),
            }
        }
    }
}

/// The search order in words, for the error message.
pub(crate) fn searched(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<String> {
    let mut s = vec![match env("PTXAS") {
        Some(p) => format!("$PTXAS ({})", PathBuf::from(p).display()),
        None => "$PTXAS (not set)".to_string(),
    }];
    s.push("PATH".to_string());
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if env(var).is_some() {
            s.push(format!("${var}/bin"));
        }
    }
    s.push("/usr/local/cuda/bin".to_string());
    s
}

/// `ptxas --version`'s last line, e.g. `Cuda compilation tools, release 12.9, V12.9.86`.
pub fn version(ptxas: &Path) -> Option<String> {
    let out = Command::new(ptxas).arg("--version").output().ok()?;
    String::from_utf8_lossy(&out.stdout).lines().last().map(|l| l.trim().to_string())
}

/// Assembles `ptx` for `sm`, discarding the cubin; returns ptxas's messages (warnings) if any.
pub(crate) fn check(ptxas: &Path, sm: &str, ptx: &Path) -> Result<String, Error> {
    let null = if cfg!(windows) { "NUL" } else { "/dev/null" };
    let out = Command::new(ptxas)
        .arg(format!("-arch={sm}"))
        .args(["-o", null])
        .arg(ptx)
        .output()
        .map_err(crate::error::io(ptxas))?;
    let msg = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() {
        Ok(msg.trim().to_string())
    } else {
        Err(Error::PtxasFailed { sm: sm.to_string(), ptx: ptx.to_path_buf(), output: msg })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v))
    }

    /// With nothing installed, `Required` fails with the install sentence and the places searched;
    /// `IfFound` builds without the check.
    #[test]
    fn missing_ptxas_says_how_to_install_it() {
        let env = env_of(&[("PATH", "/nonexistent/warpkit-a:/nonexistent/warpkit-b"), ("CUDA_HOME", "/nonexistent/cuda")]);
        let msg = resolve(&Ptxas::Required, &env).unwrap_err().to_string();
        assert!(msg.contains("ptxas not found"), "{msg}");
        assert!(msg.contains("install the CUDA toolkit"), "{msg}");
        assert!(msg.contains("pip install --target ptxas-wheel nvidia-cuda-nvcc-cu12"), "{msg}");
        assert!(msg.contains("$PTXAS (not set), PATH, $CUDA_HOME/bin, /usr/local/cuda/bin"), "{msg}");
        assert!(msg.contains("Ptxas::Skip"), "{msg}");
        if !Path::new("/usr/local/cuda/bin/ptxas").is_file() {
            assert_eq!(resolve(&Ptxas::IfFound, &env).unwrap(), None);
        }
    }

    #[test]
    fn an_explicit_ptxas_must_exist() {
        let env = env_of(&[]);
        let msg = resolve(&Ptxas::Path("/nonexistent/ptxas".into()), &env).unwrap_err().to_string();
        assert!(msg.contains("ptxas not found") && msg.contains("/nonexistent/ptxas"), "{msg}");
        assert_eq!(resolve(&Ptxas::Skip, &env).unwrap(), None);
    }

    /// `$PTXAS` first, then `PATH` in order, then the CUDA folders.
    #[test]
    fn search_order() {
        let env = env_of(&[("PTXAS", "/x/ptxas"), ("PATH", "/a:/b"), ("CUDA_PATH", "/cuda")]);
        let c: Vec<String> = candidates(&env).iter().map(|p| p.display().to_string()).collect();
        assert_eq!(c, ["/x/ptxas", "/a/ptxas", "/b/ptxas", "/cuda/bin/ptxas", "/usr/local/cuda/bin/ptxas"]);
    }
}
