//! The builder end to end, on an edition-2024 crate with no `no_std`/`feature` lines of its own:
//! one module per target with the PTX ISA the recipe asks for, ptxas (when present) accepts them,
//! and a second build after the emitted file vanished rebuilds it instead of failing or guessing.

use std::path::PathBuf;

use warpkit_build::PtxBuilder;

#[test]
fn builds_an_edition_2024_kernel_crate_for_sm_80_and_sm_90() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fixture-build");
    let out = scratch.join("out");
    let builder = PtxBuilder::new()
        .kernel_crate(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixture-kernel"))
        .targets(["sm_80", "sm_90"])
        .out_dir(&out)
        .target_dir(scratch.join("target"))
        .emit_llvm_ir(true);
    let ptx = builder.clone().build().unwrap();
    assert_eq!(ptx.crate_name, "fixture_kernel");
    assert_eq!(ptx.modules.len(), 2);
    for (m, sm, isa) in [(&ptx.modules[0], "sm_80", ".version 7.0"), (&ptx.modules[1], "sm_90", ".version 8.4")] {
        assert_eq!(m.sm, sm);
        assert_eq!(m.ptx, out.join(sm).join("fixture_kernel.ptx"));
        let text = std::fs::read_to_string(&m.ptx).unwrap();
        assert!(text.contains(&format!(".target {sm}")), "{text}");
        // sm_90 gets `+ptx84` (elect.sync needs PTX ISA 8.0, `atom.b128` with `.sys` 8.4; LLVM's default for sm_90 is 7.8).
        assert!(text.contains(isa), "{sm}: {text}");
        assert!(text.contains(".visible .entry fixture_store("), "{text}");
        assert!(m.llvm_ir.as_ref().is_some_and(|ll| std::fs::read_to_string(ll).unwrap().contains("ptx_kernel")));
        assert_eq!(m.ptxas.is_some(), ptx.ptxas.is_some());
    }
    let module = std::fs::read_to_string(&ptx.module_rs).unwrap();
    assert!(module.contains("pub const ALL: &[(&str, &str)] = &[(\"sm_80\", SM_80), (\"sm_90\", SM_90)];"), "{module}");

    // The emitted asm of an up-to-date build is gone: cargo calls the crate fresh, and the builder
    // makes it compile again rather than copy a stale or missing file.
    std::fs::remove_file(scratch.join("target/warpkit-build/sm_80/kernels.s")).unwrap();
    std::fs::remove_file(&ptx.modules[0].ptx).unwrap();
    let again = builder.build().unwrap();
    assert!(std::fs::read_to_string(&again.modules[0].ptx).unwrap().contains(".visible .entry fixture_store("));
}
