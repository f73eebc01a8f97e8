//! 10,000 converged 5-step shfl_down sums: a fixed workload for counting instructions with
//! `valgrind --tool=callgrind` (repeatable, unlike wall time on a shared machine).
use warp_runtime::{Executor, Warp};
fn main() {
    let data: [u32; 32] = core::array::from_fn(|l| l as u32 * 7);
    let exec = Executor::new();
    let mut acc = 0u32;
    for _ in 0..10_000 {
        let out = exec
            .run(async |w: &Warp<'_>| {
                let mut v = data[w.lane_id() as usize];
                for offset in [16, 8, 4, 2, 1] {
                    v = v.wrapping_add(w.shfl_down(v, offset).await);
                }
                v
            })
            .unwrap();
        acc = acc.wrapping_add(std::hint::black_box(out)[0]);
    }
    println!("{acc}");
}
