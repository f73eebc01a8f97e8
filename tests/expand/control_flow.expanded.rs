use warpkit::prelude::*;
#[cfg(not(target_arch = "nvptx64"))]
/// Tiles, conditions, match scrutinees and ordinary calls that stay ordinary.
pub async fn kernel<T: Copy + Into<u32>>(w: &Warp<'_>, data: &[T]) -> Option<u32> {
    let t = w.tile(8);
    let x: u32 = data[w.lane_id() as usize].into();
    if data.iter().any(|v| (*v).into() > 100) && w.any(x > 100).await {
        return None;
    }
    let found = match t.ballot(x % 2 == 0).await {
        0 => {
            loop {
                if w.all(true).await {
                    break x.min(3);
                }
            }
        }
        mask => t.shfl_idx(x, mask.trailing_zeros()).await,
    };
    Some(found)
}
#[cfg(target_arch = "nvptx64")]
/// Tiles, conditions, match scrutinees and ordinary calls that stay ordinary.
pub fn kernel<T: Copy + Into<u32>>(w: &Warp, data: &[T]) -> Option<u32> {
    let t = w.tile(8);
    let x: u32 = data[w.lane_id() as usize].into();
    if data.iter().any(|v| (*v).into() > 100) && w.any(x > 100) {
        return None;
    }
    let found = match t.ballot(x % 2 == 0) {
        0 => {
            loop {
                if w.all(true) {
                    break x.min(3);
                }
            }
        }
        mask => t.shfl_idx(x, mask.trailing_zeros()),
    };
    Some(found)
}
pub struct Reducer;
impl Reducer {
    #[cfg(not(target_arch = "nvptx64"))]
    pub async fn reduce(&self, w: &Warp<'_>, x: u32) -> u32 {
        match Self::leader(w, w.redux_add(x).await) {
            __warpkit_call => ::warpkit::__private::WarpCall::into_future(__warpkit_call),
        }
            .await
    }
    #[cfg(target_arch = "nvptx64")]
    pub fn reduce(&self, w: &Warp, x: u32) -> u32 {
        Self::leader(w, w.redux_add(x))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    async fn leader(w: &Warp<'_>, x: u32) -> u32 {
        let (_, is_leader) = w.elect().await;
        if is_leader { x } else { 0 }
    }
    #[cfg(target_arch = "nvptx64")]
    fn leader(w: &Warp, x: u32) -> u32 {
        let (_, is_leader) = w.elect();
        if is_leader { x } else { 0 }
    }
}
