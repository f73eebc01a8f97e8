//! The path generated code uses to name the facade: `::warpkit`, or the name the calling crate
//! gave it (`wk = { package = "warpkit", .. }` in its Cargo.toml), found with `proc-macro-crate`.

use proc_macro2::{Span, TokenStream};
use proc_macro_crate::{crate_name, FoundCrate};

/// `::warpkit`, or `::<name>` for a renamed dependency.
///
/// Inside the facade package itself (its library, examples and doctests) `proc-macro-crate`
/// answers "this crate"; the facade declares `extern crate self as warpkit;`, so `::warpkit` names
/// it there too. When the calling crate's manifest does not list the facade (a crate that reaches
/// `#[warp_kernel]` some other way), the default name is used.
pub fn facade() -> TokenStream {
    facade_at(Span::call_site())
}

/// [`facade`] with the tokens spanned at `span`, so that a diagnostic about the generated code
/// points at the user's tokens it stands for (`quote_spanned!` does not re-span interpolations).
pub fn facade_at(span: Span) -> TokenStream {
    let name = match crate_name("warpkit") {
        Ok(FoundCrate::Name(name)) => name,
        Ok(FoundCrate::Itself) | Err(_) => "warpkit".to_string(),
    };
    let ident = syn::Ident::new(&name, span);
    quote::quote_spanned!(span=> ::#ident)
}
