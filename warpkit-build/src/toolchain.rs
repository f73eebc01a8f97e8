//! The nightly toolchain and its `rust-src` component.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::Error;
use crate::scrub_env;

/// A nightly toolchain that can build for nvptx64: its sysroot.
#[derive(Debug, Clone)]
pub(crate) struct Nightly {
    /// `rustc --version`.
    pub version: String,
}

/// Checks that `+toolchain` runs, is a nightly (or dev) build and has `rust-src`.
pub(crate) fn check(toolchain: &str) -> Result<Nightly, Error> {
    let version = rustc(toolchain, "--version")?;
    if !is_nightly(&version) {
        return Err(Error::NotNightly { toolchain: toolchain.to_string(), version });
    }
    let sysroot = PathBuf::from(rustc(toolchain, "--print=sysroot")?);
    check_rust_src(toolchain, &sysroot)?;
    Ok(Nightly { version })
}

/// The first line `rustc +toolchain <arg>` prints.
fn rustc(toolchain: &str, arg: &str) -> Result<String, Error> {
    let mut cmd = Command::new("rustc");
    cmd.arg(format!("+{toolchain}")).arg(arg);
    scrub_env(&mut cmd);
    let out = cmd.output().map_err(|e| Error::MissingToolchain {
        toolchain: toolchain.to_string(),
        detail: format!("cannot run `rustc` (is rustup installed?): {e}"),
    })?;
    if !out.status.success() {
        return Err(Error::MissingToolchain {
            toolchain: toolchain.to_string(),
            detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").trim().to_string())
}

/// Whether `rustc --version` names a build that accepts `-Z` flags.
pub(crate) fn is_nightly(version: &str) -> bool {
    version.contains("-nightly") || version.contains("-dev")
}

/// `rust-src` puts the standard library's sources under the sysroot; `-Zbuild-std=core` needs
/// `library/core`.
pub(crate) fn check_rust_src(toolchain: &str, sysroot: &Path) -> Result<(), Error> {
    let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if core.is_file() {
        Ok(())
    } else {
        Err(Error::MissingRustSrc { toolchain: toolchain.to_string(), looked_in: core })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nightly_and_dev_builds_accept_z_flags() {
        assert!(is_nightly("rustc 1.97.0-nightly (4d1f98451 2026-05-15)"));
        assert!(is_nightly("rustc 1.97.0-dev"));
        assert!(!is_nightly("rustc 1.95.0 (59807616e 2026-04-14)"));
        assert!(!is_nightly("rustc 1.96.0-beta.3 (1234 2026-05-01)"));
    }

    /// A sysroot without `lib/rustlib/src`: the message says how to install the component for
    /// the toolchain that was asked for.
    #[test]
    fn missing_rust_src_says_how_to_install_it() {
        let empty = std::env::temp_dir().join(format!("warpkit-build-empty-sysroot-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let err = check_rust_src("nightly-2026-05-19", &empty).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("has no `rust-src` component"), "{msg}");
        assert!(msg.contains("`rustup component add rust-src --toolchain nightly-2026-05-19`"), "{msg}");
        assert!(msg.contains("library/core/Cargo.toml"), "{msg}");
        std::fs::remove_dir_all(&empty).unwrap();
    }
}
