//! Misuse of `#[warp_kernel]` and of the intrinsics is a compile error on the offending tokens.
//! One error per file under `tests/ui/<topic>/`; regenerate the `.stderr` files
//! with `TRYBUILD=overwrite cargo test -p warpkit-testsuite --test ui` and read every diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
