//! Warp-function call paths: a helper's warp instruction is one instruction per call of the
//! helper (on the GPU, one inlined copy per call), so the lanes reaching it through different
//! calls do not execute it together. Written with `#[warp_kernel(entry)]` so that the GPU program
//! (which includes this file) runs the same source on the GPU and in the CPU runtime, which tells
//! such lanes apart by their call path.
//!
//! | kernel | parameters | what it executes |
//! |---|---|---|
//! | `conf_activemask_paths` | `(arm, shape, d)` | thread `t < arm.len()` takes arm `arm[t] & 1`; `shape % 4` (uniform) picks: 0, `am` from both arms of an `if`; 1, a helper calling `am` from both arms of its own `if` on `arm[t] & 2`, called from both arms; 2, `am` twice in arm 0 and once in arm 1; 3, `am` from both arms inside a loop of `(arm[t] >> 2) % 4` iterations. `d[4t..4t + 4]` gets the masks, 0 where no call was made |

use warpkit::prelude::*;

/// The helper of the issue: `__activemask()` in a function of its own.
#[warp_kernel]
fn am(w: &Warp) -> u32 {
    w.activemask()
}

/// `am` from both arms of an `if` on `c`.
#[warp_kernel]
fn am_by(w: &Warp, c: bool) -> u32 {
    if c { am(w) } else { am(w) }
}

/// `activemask` through helpers called from several places (see the module docs).
#[warp_kernel(entry)]
pub fn conf_activemask_paths(w: &Warp, arm: GlobalSlice<'_, u32>, shape: u32, d: GlobalSlice<'_, u32>) {
    let t = w.global_id() as usize;
    if t >= arm.len() {
        return;
    }
    let a = arm.load(t);
    let first = a & 1 == 0;
    let mut out = [0u32; 4];
    match shape % 4 {
        0 => {
            out[0] = if first { am(w) } else { am(w) };
        }
        1 => {
            let inner = a & 2 != 0;
            out[0] = if first { am_by(w, inner) } else { am_by(w, inner) };
        }
        2 => {
            if first {
                out[0] = am(w);
                out[1] = am(w);
            } else {
                out[0] = am(w);
            }
        }
        _ => {
            let n = (a >> 2) % 4;
            let mut i = 0;
            while i < n {
                out[i as usize] = if first { am(w) } else { am(w) };
                i += 1;
            }
        }
    }
    let mut k = 0;
    while k < 4 {
        d.store(4 * t + k, out[k]);
        k += 1;
    }
}
