//! `#[warp_kernel]`: turns a per-lane warp function into a lockstep state machine.
//!
//! Use it through the `warpkit` facade, which documents the language it accepts. The stages are:
//! [`ast`] parses the function into a small IR (the handle parameter and every use of a handle,
//! each with the context it appears in), [`check`] reports every misuse at once through a
//! [`ctxt::Ctxt`], and [`expand`] emits the host `async fn` (an `.await` after each suspension
//! point) and the unchanged nvptx64 body, or a stub when there were errors.

mod ast;
mod check;
mod ctxt;
mod derive;
mod entry;
mod expand;
mod intrinsics;
mod krate;
mod wide;
#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod snapshot;

use proc_macro::TokenStream;

/// Turns a warp function (first parameter `w: &Warp`) into a state machine that the lockstep
/// runtime steps on the host, and into straight-line code on nvptx64.
#[proc_macro_attribute]
pub fn warp_kernel(args: TokenStream, input: TokenStream) -> TokenStream {
    // syn's parser, the macro's visitors and its output recurse once per nesting level, and
    // with 400 nested `if`s that overflowed the compiler's thread (SIGSEGV), where plain rustc
    // handles 500: expand on a fresh 256 MiB segment (reserved, touched only as deep as used)
    // unless 64 MiB are left, which the compiler's thread never has. A 4 MiB red zone was not
    // enough.
    const RED_ZONE: usize = 64 << 20;
    const SEGMENT: usize = 256 << 20;
    stacker::maybe_grow(RED_ZONE, SEGMENT, || expand::warp_kernel(args.into(), input.into()).into())
}

/// Makes a `Copy` struct a value that moves between lanes: its fields (`bool`, integers, floats,
/// other warp values) packed in declaration order into one or two 32-bit words (`WarpValue`), or
/// with `#[warp_value(words)]` into up to 16 whole words (`WarpWords`, for `warpkit::shfl_words`).
#[proc_macro_derive(WarpValue, attributes(warp_value))]
pub fn derive_warp_value(input: TokenStream) -> TokenStream {
    derive::derive_warp_value(input.into()).into()
}
