//! The host type of an entry kernel: `#[warp_kernel(entry)]` also hands the kernel's name,
//! visibility, `cfg`s and parameters to the facade's `entry!`, which defines a type of the same
//! name implementing `EntryKernel` (and, with the `cuda` feature, a typed `launch`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{FnArg, ItemFn, Lifetime, Pat, Type};

// Input:  #[cfg(feature = "x")] pub fn hist(w: &Warp, input: GlobalSlice<'_, u32>, n: u32) { .. }
// Output: ::warpkit::__private::entry! { [#[cfg(feature = "x")]] pub hist(input: GlobalSlice<'static, u32>, n: u32) }
//         The facade's macro writes the type, with `$crate` paths, so what it generates reads as
//         ordinary Rust in one place (src/entry.rs) and follows the facade's features.
pub fn host_type(item: &ItemFn) -> TokenStream {
    let krate = crate::krate::facade();
    let ItemFn { attrs, vis, sig, .. } = item;
    let cfgs = attrs.iter().filter(|a| a.path().is_ident("cfg") || a.path().is_ident("cfg_attr")).map(|a| &a.meta);
    let name = &sig.ident;
    let params = sig.inputs.iter().skip(1).filter_map(|arg| match arg {
        FnArg::Typed(pt) => match &*pt.pat {
            Pat::Ident(p) => {
                let ident = &p.ident;
                let ty = with_static_lifetimes(&pt.ty);
                Some(quote!(#ident: #ty))
            }
            // `check` requires plain names.
            _ => None,
        },
        FnArg::Receiver(_) => None,
    });
    quote! {
        #krate::__private::entry! { [#(#[#cfgs])*] #vis #name(#(#params),*) }
    }
}

// Input:  GlobalSlice<'_, u32>     GlobalSlice<u32>          &u32
// Output: GlobalSlice<'static, u32> GlobalSlice<'static, u32> &'static u32
//         The kernel's parameter types name the type's `Params` (an associated type, where no
//         lifetime may be elided); the CPU run borrows its own buffers whatever the lifetime says.
fn with_static_lifetimes(ty: &Type) -> Type {
    struct Static;
    impl VisitMut for Static {
        fn visit_lifetime_mut(&mut self, l: &mut Lifetime) {
            if l.ident == "_" {
                *l = Lifetime::new("'static", l.span());
            }
        }
        fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
            if r.lifetime.is_none() {
                r.lifetime = Some(Lifetime::new("'static", r.and_token.span));
            }
            visit_mut::visit_type_reference_mut(self, r);
        }
        fn visit_path_segment_mut(&mut self, seg: &mut syn::PathSegment) {
            // `GlobalSlice<T>` with its lifetime elided.
            if seg.ident == "GlobalSlice" {
                if let syn::PathArguments::AngleBracketed(args) = &mut seg.arguments {
                    if !args.args.iter().any(|a| matches!(a, syn::GenericArgument::Lifetime(_))) {
                        args.args.insert(0, syn::GenericArgument::Lifetime(Lifetime::new("'static", seg.ident.span())));
                    }
                }
            }
            visit_mut::visit_path_segment_mut(self, seg);
        }
    }
    let mut ty = ty.clone();
    Static.visit_type_mut(&mut ty);
    ty
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn rewrite(src: &str) -> String {
        with_static_lifetimes(&syn::parse_str(src).unwrap()).to_token_stream().to_string()
    }

    #[test]
    fn every_elided_lifetime_becomes_static() {
        assert_eq!(rewrite("GlobalSlice<'_, u32>"), "GlobalSlice < 'static , u32 >");
        assert_eq!(rewrite("warpkit::GlobalSlice<f64>"), "warpkit :: GlobalSlice < 'static , f64 >");
        assert_eq!(rewrite("GlobalSlice<'static, i32>"), "GlobalSlice < 'static , i32 >");
        assert_eq!(rewrite("u32"), "u32");
    }
}
