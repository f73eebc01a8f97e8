fn main() {
    // Builds this crate's kernels to PTX for two GPU generations (needs the nightly toolchain with
    // rust-src; checks the PTX with ptxas when there is one).
    warpkit_build::PtxBuilder::new().targets(["sm_80", "sm_90"]).build().unwrap();
}
