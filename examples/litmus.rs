//! The message-passing litmus test of the PTX memory model, in its correct form and its two
//! classic broken forms, each run with the race detector.
//!
//! Block 0 writes `data`, then sets `flag`; block 1 waits for `flag` and then reads `data`. The
//! read sees 42 only if the flag's store and load *synchronize*:
//!
//! - **release/acquire at `.gpu` scope** (`st.release.gpu` / `ld.acquire.gpu`): the store of
//!   `data` happens before the read. Clean.
//! - **a relaxed flag** (`st.relaxed.gpu` / `ld.relaxed.gpu`): the flag's accesses are strong,
//!   so they do not race, but nothing orders `data`: its store and load race, and a GPU may return
//!   the old value.
//! - **`.cta` scope across blocks** (`st.release.cta` / `ld.acquire.cta`): the scope does not
//!   include the other block, so the pair does not synchronize (and the flag's own accesses race).
//!   The report names the scope.
//!
//! Run it: `cargo run --example litmus`.

use warpkit::prelude::*;

/// How block 0 publishes the flag and block 1 reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `st.release.gpu` / `ld.acquire.gpu`.
    ReleaseAcquire,
    /// `st.relaxed.gpu` / `ld.relaxed.gpu`.
    Relaxed,
    /// `st.release.cta` / `ld.acquire.cta`.
    CtaScope,
}

/// Thread 0 of block 0 publishes, thread 0 of block 1 consumes into `out[0]`.
#[warp_kernel]
pub fn message_passing(w: &Warp, data: GlobalSlice<'_, u32>, flag: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>, form: Form) {
    if w.thread_rank() != 0 {
        return;
    }
    if w.ctaid().x == 0 {
        data.store(0, 42);
        match form {
            Form::ReleaseAcquire => flag.store_release(0, 1, Scope::Gpu),
            Form::Relaxed => flag.store_relaxed(0, 1, Scope::Gpu),
            Form::CtaScope => flag.store_release(0, 1, Scope::Cta),
        }
    } else {
        loop {
            let seen = match form {
                Form::ReleaseAcquire => flag.load_acquire(0, Scope::Gpu),
                Form::Relaxed => flag.load_relaxed(0, Scope::Gpu),
                Form::CtaScope => flag.load_acquire(0, Scope::Cta),
            };
            if seen != 0 {
                break;
            }
        }
        out.store(0, data.load(0));
    }
}

/// Two blocks of 32 threads run [`message_passing`] in `form`: what block 1 read, or the report.
#[cfg(not(target_arch = "nvptx64"))]
pub fn run(form: Form) -> Result<u32, WarpError> {
    let (data, flag, out) = (GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(1), GlobalBuffer::<u32>::zeroed(1));
    let (d, f, o) = (data.slice(), flag.slice(), out.slice());
    Grid::blocks(2, 32).races(true).run(async |w: &Warp<'_>| message_passing(w, d, f, o, form).await)?;
    Ok(out.to_vec()[0])
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    for form in [Form::ReleaseAcquire, Form::Relaxed, Form::CtaScope] {
        println!("== {form:?} ==");
        match run(form) {
            Ok(v) => println!("clean: block 1 read {v}\n"),
            Err(e) => println!("{e}\n"),
        }
    }
}
