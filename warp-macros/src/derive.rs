//! `#[derive(WarpValue)]`: a `Copy` struct as a value that moves between lanes.
//!
//! By default the fields are packed, in declaration order, into the bits of one or two 32-bit
//! words (`WarpValue`, so `w.shfl_*` and `match_*` take the struct); a `const` assertion at the
//! definition rejects a struct over 64 bits, naming the attribute that moves it instead. With
//! `#[warp_value(words)]` each field takes whole words (`WarpWords`, up to 16), which
//! `warpkit::shfl_words` moves as one 32-bit shuffle per word.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Member};

use crate::ctxt::Ctxt;

/// The whole derive: parse, check, expand (the errors alone when there are any).
pub fn derive_warp_value(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => return e.to_compile_error(),
    };
    let cx = Ctxt::new();
    let words = words_mode(&cx, &input);
    let fields = fields(&cx, &input);
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "`#[derive(WarpValue)]` takes a struct without generic parameters: the fields' bit layout must be known where the struct is defined");
    }
    match cx.check() {
        Err(e) => e.to_compile_error(),
        Ok(()) if words => expand_words(&input, &fields.unwrap_or_default()),
        Ok(()) => expand_bits(&input, &fields.unwrap_or_default()),
    }
}

/// `#[warp_value(words)]`.
fn words_mode(cx: &Ctxt, input: &DeriveInput) -> bool {
    let mut words = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("warp_value")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("words") {
                words = true;
                Ok(())
            } else {
                Err(meta.error("unknown `warp_value` argument; it takes only `words`, as in `#[warp_value(words)]`"))
            }
        });
        if let Err(e) = parsed {
            cx.syn_error(e);
        }
    }
    words
}

/// The struct's fields, as (how to name it, its type); an error for enums, unions and structs
/// without fields.
fn fields(cx: &Ctxt, input: &DeriveInput) -> Option<Vec<(Member, syn::Type)>> {
    let data = match &input.data {
        Data::Struct(s) => s,
        Data::Enum(e) => {
            cx.error_spanned_by(
                e.enum_token,
                "`#[derive(WarpValue)]` takes a struct; move an enum as its discriminant (`value as u32`) and convert it back, or wrap its data in a struct",
            );
            return None;
        }
        Data::Union(u) => {
            cx.error_spanned_by(u.union_token, "`#[derive(WarpValue)]` takes a struct, not a union: which field holds the bits is not known");
            return None;
        }
    };
    let fields: Vec<(Member, syn::Type)> = match &data.fields {
        Fields::Named(f) => f.named.iter().map(|f| (Member::Named(f.ident.clone().expect("named")), f.ty.clone())).collect(),
        Fields::Unnamed(f) => f.unnamed.iter().enumerate().map(|(i, f)| (Member::Unnamed(syn::Index { index: i as u32, span: f.span() }), f.ty.clone())).collect(),
        Fields::Unit => Vec::new(),
    };
    if fields.is_empty() {
        cx.error_spanned_by(&input.ident, "`#[derive(WarpValue)]` needs a struct with fields: there is nothing to move between lanes");
        return None;
    }
    Some(fields)
}

/// `Self { a, b }` or `Self(a, b)` from one expression per field.
fn construct(input: &DeriveInput, fields: &[(Member, syn::Type)], values: &[TokenStream]) -> TokenStream {
    let members = fields.iter().map(|(m, _)| m);
    match &input.data {
        Data::Struct(s) if matches!(s.fields, Fields::Unnamed(_)) => quote!(Self(#(#values),*)),
        _ => quote!(Self { #(#members: #values),* }),
    }
}

/// The offset of each field: the sum of the widths (`width(type)`) of the fields before it,
/// `zero` for the first. Sums are written without a leading `0 +`, which clippy would flag in the
/// user's crate.
fn offsets(tys: &[&syn::Type], zero: TokenStream, width: impl Fn(&syn::Type) -> TokenStream) -> Vec<TokenStream> {
    (0..tys.len())
        .map(|i| {
            let before = tys[..i].iter().map(|t| width(t));
            if i == 0 { zero.clone() } else { quote!(#(#before)+*) }
        })
        .collect()
}

// Input:  #[derive(WarpValue)] struct Key { bucket: u16, flag: bool }
// Output: const _: () = assert!(<u16 as WarpBits>::BITS + <bool as WarpBits>::BITS <= 64, "..");
//         impl WarpValue for Key { const WORDS: u8 = ..; fn to_bits(self) -> u64 { 0 | raw(bucket) << 0 | raw(flag) << 16 } .. }
//         impl WarpBits for Key { .. }    (so it can be a field of another)
//         impl WarpWords for Key { .. }   (so warpkit::shfl_words takes it too)
fn expand_bits(input: &DeriveInput, fields: &[(Member, syn::Type)]) -> TokenStream {
    let krate = crate::krate::facade();
    let v = quote!(#krate::value);
    let name = &input.ident;
    let span = name.span();
    let tys: Vec<&syn::Type> = fields.iter().map(|(_, t)| t).collect();
    let offsets = offsets(&tys, quote!(0u32), |t| quote!(<#t as #v::WarpBits>::BITS));
    let bits = quote!(#(<#tys as #v::WarpBits>::BITS)+*);
    let message = format!(
        "`{name}` is over 64 bits, the most one warp value moves (two 32-bit shuffles): add `#[warp_value(words)]` to move it as several 32-bit shuffles with `warpkit::shfl_words`, or make its fields smaller"
    );
    // `wrapping_sh*`: a struct over 64 bits is the assertion's error alone, not also an overflow.
    let to = fields.iter().zip(&offsets).map(|((m, t), off)| {
        quote_spanned!(t.span()=> (<#t as #v::WarpBits>::to_raw(self.#m) & #v::low_bits(<#t as #v::WarpBits>::BITS)).wrapping_shl(#off))
    });
    let from: Vec<TokenStream> = tys
        .iter()
        .zip(&offsets)
        .map(|(t, off)| quote_spanned!(t.span()=> <#t as #v::WarpBits>::from_raw(bits.wrapping_shr(#off))))
        .collect();
    let build = construct(input, fields, &from);
    quote_spanned! {span=>
        const _: () = ::core::assert!(#bits <= 64, #message);

        #[automatically_derived]
        #[allow(clippy::inline_always)]
        impl #v::WarpValue for #name {
            const WORDS: u8 = if #bits <= 32 { 1 } else { 2 };
            #[inline(always)]
            fn to_bits(self) -> u64 {
                #(#to)|*
            }
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                #build
            }
        }

        #[automatically_derived]
        #[allow(clippy::inline_always)]
        impl #v::WarpBits for #name {
            const BITS: u32 = #bits;
            #[inline(always)]
            fn to_raw(self) -> u64 {
                <Self as #v::WarpValue>::to_bits(self)
            }
            #[inline(always)]
            fn from_raw(raw: u64) -> Self {
                <Self as #v::WarpValue>::from_bits(raw)
            }
        }

        #[automatically_derived]
        #[allow(clippy::inline_always)]
        impl #v::WarpWords for #name {
            const WORDS: usize = <Self as #v::WarpValue>::WORDS as usize;
            #[inline(always)]
            fn to_words(self, words: &mut [u32]) {
                // The halves without `as` casts (clippy's pedantic lints would be the user's).
                let [b0, b1, b2, b3, b4, b5, b6, b7] = <Self as #v::WarpValue>::to_bits(self).to_le_bytes();
                words[0] = u32::from_le_bytes([b0, b1, b2, b3]);
                if <Self as #v::WarpWords>::WORDS == 2 {
                    words[1] = u32::from_le_bytes([b4, b5, b6, b7]);
                }
            }
            #[inline(always)]
            fn from_words(words: &[u32]) -> Self {
                let hi = if <Self as #v::WarpWords>::WORDS == 2 { u64::from(words[1]) << 32 } else { 0 };
                <Self as #v::WarpValue>::from_bits(u64::from(words[0]) | hi)
            }
        }
    }
}

// Input:  #[derive(WarpValue)] #[warp_value(words)] struct Particle { pos: [f32; 3], id: u32 }
// Output: const _: () = assert!(<[f32; 3] as WarpWords>::WORDS + <u32 as WarpWords>::WORDS <= MAX_WORDS, "..");
//         impl WarpWords for Particle { const WORDS: usize = ..; fn to_words(..) { each field into its words } .. }
fn expand_words(input: &DeriveInput, fields: &[(Member, syn::Type)]) -> TokenStream {
    let krate = crate::krate::facade();
    let v = quote!(#krate::value);
    let name = &input.ident;
    let span = name.span();
    let tys: Vec<&syn::Type> = fields.iter().map(|(_, t)| t).collect();
    let offsets = offsets(&tys, quote!(0usize), |t| quote!(<#t as #v::WarpWords>::WORDS));
    let words = quote!(#(<#tys as #v::WarpWords>::WORDS)+*);
    let message = format!("`{name}` is over 64 bytes (16 words), the most `warpkit::shfl_words` moves: move its parts separately");
    let to = fields.iter().zip(&offsets).map(|((m, t), off)| {
        quote_spanned!(t.span()=> <#t as #v::WarpWords>::to_words(self.#m, &mut words[(#off)..][..<#t as #v::WarpWords>::WORDS]);)
    });
    let from: Vec<TokenStream> = tys
        .iter()
        .zip(&offsets)
        .map(|(t, off)| quote_spanned!(t.span()=> <#t as #v::WarpWords>::from_words(&words[(#off)..][..<#t as #v::WarpWords>::WORDS])))
        .collect();
    let build = construct(input, fields, &from);
    quote_spanned! {span=>
        const _: () = ::core::assert!(#words <= #v::MAX_WORDS, #message);

        #[automatically_derived]
        #[allow(clippy::inline_always)]
        impl #v::WarpWords for #name {
            const WORDS: usize = #words;
            #[inline(always)]
            fn to_words(self, words: &mut [u32]) {
                #(#to)*
            }
            #[inline(always)]
            fn from_words(words: &[u32]) -> Self {
                #build
            }
        }
    }
}
