//! The crate names warpkit `wk` and has no `warpkit` in scope: `#[warp_kernel]` (a helper call,
//! an entry kernel's type) and `#[derive(WarpValue)]` must generate paths through `wk`.

use wk::prelude::*;
use wk::{EntryKernel, LaunchConfig};

#[derive(Clone, Copy, Debug, PartialEq, WarpValue)]
struct Pair {
    a: u16,
    b: u16,
}

#[wk::warp_kernel]
fn add_neighbour(w: &Warp, p: Pair) -> u32 {
    let q = w.shfl_xor(p, 1);
    helper(w, (p.a + q.b) as u32)
}

#[wk::warp_kernel]
fn helper(w: &Warp, x: u32) -> u32 {
    w.redux_add(x)
}

#[wk::warp_kernel(entry)]
pub fn store_sums(w: &Warp, out: GlobalSlice<'_, u32>) {
    let i = w.global_id() as usize;
    let s = add_neighbour(w, Pair { a: i as u16, b: 1 });
    if i < out.len() {
        out.store(i, s);
    }
}

#[test]
fn the_macros_find_the_facade_under_its_new_name() {
    // Each lane adds its own `a` (0..32) and its neighbour's `b` (1): 496 + 32.
    let out = store_sums::run_host(&LaunchConfig::threads(32), Target::SM_90, (vec![0; 32],)).unwrap();
    assert_eq!(out[0].to_vec::<u32>(), vec![528; 32]);
}
