//! Attributes in a kernel body pass through (issue 13: an inner `#![allow(..)]` at the top of the
//! body, and `#[allow]`/`#[cfg]` on an intrinsic statement, gave "attributes on expressions are
//! experimental").
#![deny(unused_variables)]

use warpkit::prelude::*;

#[warp_kernel]
fn inner_allow(w: &Warp, x: u32) -> u32 {
    #![allow(unused_variables)]
    let unused = 3;
    w.shfl_xor(x, 1)
}

#[warp_kernel]
fn attributes_on_statements(w: &Warp, x: u32) -> u32 {
    #[allow(unused_must_use)]
    w.shfl_xor(x, 1);
    #[cfg(any())]
    w.syncwarp();
    #[cfg(all())]
    let y = w.shfl_xor(x, 2);
    y
}

#[test]
fn body_attributes_pass_through() {
    let out = Executor::new().run(async |w: &Warp<'_>| inner_allow(w, w.lane_id()).await).unwrap();
    assert_eq!(out[6], 7);
    let out = Executor::new().run(async |w: &Warp<'_>| attributes_on_statements(w, w.lane_id()).await).unwrap();
    assert_eq!(out[1], 3);
}

#[warp_kernel]
fn attributes_on_memory_operations(w: &Warp, counter: GlobalSlice<'_, u32>) -> u32 {
    #[allow(unused_must_use)]
    counter.atomic_add(0, 1);
    #[cfg(any())]
    counter.atomic_add(0, 100);
    w.lane_id()
}

#[test]
fn attributes_on_memory_operations_pass_through() {
    let counter = GlobalBuffer::<u32>::zeroed(1);
    let c = counter.slice();
    Executor::new().run(async |w: &Warp<'_>| attributes_on_memory_operations(w, c).await).unwrap();
    assert_eq!(counter.to_vec(), vec![32]);
}
