//! `WARPKIT_SKIP_PTX=1`: no toolchain is even looked for, and the module is empty (its own test
//! binary, since it sets a variable of the process).

use std::path::PathBuf;

#[test]
fn skipping_builds_nothing_and_writes_an_empty_module() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("skip-out");
    // SAFETY: the only test of this binary; nothing else reads the environment concurrently.
    unsafe { std::env::set_var("WARPKIT_SKIP_PTX", "1") };
    let ptx = warpkit_build::PtxBuilder::new()
        .kernel_crate(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixture-kernel"))
        .toolchain("warpkit-test-no-such-toolchain")
        .out_dir(&out)
        .build()
        .unwrap();
    assert!(ptx.modules.is_empty());
    let module = std::fs::read_to_string(ptx.module_rs).unwrap();
    assert!(module.contains("pub const ALL: &[(&str, &str)] = &[];"), "{module}");
}
