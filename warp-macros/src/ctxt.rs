//! Error collection, after serde_derive's `Ctxt`: every check reports into one context, and all
//! errors are emitted together on the tokens at fault.

use core::cell::RefCell;
use core::fmt::Display;

use quote::ToTokens;

/// Collects errors while the input is checked. Dropping it without calling [`Ctxt::check`]
/// panics, so no error can be forgotten.
#[derive(Default)]
pub struct Ctxt {
    /// `None` once `check` has been called.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Ctxt {
    pub fn new() -> Ctxt {
        Ctxt { errors: RefCell::new(Some(Vec::new())) }
    }

    /// Reports `msg` on the span of `tokens` (first to last token).
    pub fn error_spanned_by<T: ToTokens, M: Display>(&self, tokens: T, msg: M) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), msg));
    }

    /// Reports an error that already carries its span.
    pub fn syn_error(&self, err: syn::Error) {
        self.errors.borrow_mut().as_mut().expect("Ctxt used after check").push(err);
    }

    /// Consumes the context: `Err` with all errors combined if any was reported.
    pub fn check(self) -> Result<(), syn::Error> {
        let mut errors = self.errors.take().expect("Ctxt checked twice").into_iter();
        let Some(mut combined) = errors.next() else { return Ok(()) };
        for rest in errors {
            combined.combine(rest);
        }
        Err(combined)
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        if !std::thread::panicking() && self.errors.borrow().is_some() {
            panic!("forgot to call `Ctxt::check`");
        }
    }
}
