use warpkit::prelude::*;

struct Ctx<'a, 'w> {
    w: &'a Warp<'w>,
    x: u32,
}

#[warp_kernel]
fn kernel(w: &Warp, x: u32) -> u32 {
    let ctx = Ctx { w, x };
    ctx.x
}

fn main() {}
