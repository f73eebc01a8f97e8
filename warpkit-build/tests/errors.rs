//! A missing toolchain piece is one sentence that says how to install it, before anything is built.

use std::path::PathBuf;

use warpkit_build::{Error, PtxBuilder};

fn scratch(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn builder(name: &str) -> PtxBuilder {
    let dir = scratch(name);
    PtxBuilder::new().kernel_crate(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixture-kernel")).out_dir(dir.join("out")).target_dir(dir.join("target"))
}

#[test]
fn a_missing_nightly_says_how_to_install_it() {
    let err = builder("no-nightly").toolchain("warpkit-test-no-such-toolchain").build().unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::MissingToolchain { .. }), "{msg}");
    assert!(msg.contains("needs a nightly Rust toolchain (`+warpkit-test-no-such-toolchain`)"), "{msg}");
    assert!(msg.contains("install it with `rustup toolchain install nightly --component rust-src`"), "{msg}");
    // `.unwrap()` in a build script prints the same sentence.
    assert_eq!(format!("{err:?}"), msg);
}

/// The pinned stable toolchain of this repository is installed (it runs this test) and refuses `-Z`.
#[test]
fn a_stable_toolchain_is_not_enough() {
    let err = builder("stable").toolchain("1.95.0").build().unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::NotNightly { .. }), "{msg}");
    assert!(msg.contains("`+1.95.0` is `rustc 1.95.0"), "{msg}");
    assert!(msg.contains("not a nightly toolchain"), "{msg}");
    assert!(msg.contains("rustup toolchain install nightly --component rust-src"), "{msg}");
}

#[test]
fn a_bad_target_is_refused_before_anything_runs() {
    let msg = builder("bad-target").toolchain("warpkit-test-no-such-toolchain").target("sm_61").build().unwrap_err().to_string();
    assert!(msg.contains("`sm_61` is not an sm target"), "{msg}");
}

#[test]
fn outside_a_build_script_the_output_folder_must_be_given() {
    let msg = PtxBuilder::new().kernel_crate("x").build().unwrap_err().to_string();
    assert!(msg.contains("`OUT_DIR` is not set") && msg.contains(".out_dir(..)"), "{msg}");
}

#[test]
fn a_required_ptxas_that_is_not_there() {
    let msg = builder("no-ptxas")
        .ptxas(warpkit_build::Ptxas::Path("/nonexistent/bin/ptxas".into()))
        .build()
        .unwrap_err()
        .to_string();
    assert!(msg.contains("ptxas not found") && msg.contains("/nonexistent/bin/ptxas"), "{msg}");
    assert!(msg.contains("install the CUDA toolkit"), "{msg}");
}
