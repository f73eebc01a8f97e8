//! No `#![no_std]` or `#![feature]` lines: the builder adds them to the nvptx64 build.

/// Stores `value` at `out`.
///
/// # Safety
/// `out` is a valid device pointer.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fixture_store(out: *mut u32, value: u32) {
    unsafe { *out = value + 1 };
}

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
