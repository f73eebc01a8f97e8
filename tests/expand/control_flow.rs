use warpkit::prelude::*;

/// Tiles, conditions, match scrutinees and ordinary calls that stay ordinary.
#[warp_kernel]
pub fn kernel<T: Copy + Into<u32>>(w: &Warp, data: &[T]) -> Option<u32> {
    let t = w.tile(8);
    let x: u32 = data[w.lane_id() as usize].into();
    if data.iter().any(|v| (*v).into() > 100) && w.any(x > 100) {
        return None;
    }
    let found = match t.ballot(x % 2 == 0) {
        0 => loop {
            if w.all(true) {
                break x.min(3);
            }
        },
        mask => t.shfl_idx(x, mask.trailing_zeros()),
    };
    Some(found)
}

pub struct Reducer;

impl Reducer {
    #[warp_kernel]
    pub fn reduce(&self, w: &Warp, x: u32) -> u32 {
        Self::leader(w, w.redux_add(x))
    }

    #[warp_kernel]
    fn leader(w: &Warp, x: u32) -> u32 {
        let (_, is_leader) = w.elect();
        if is_leader { x } else { 0 }
    }
}
