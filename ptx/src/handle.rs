//! Kernels written against the device handle (`warp_runtime::Warp`, the API `#[warp_kernel]` code
//! calls), for the GPU conformance program: 8-byte shuffles, CUDA-style widths and tiles, the
//! `vote` helpers, and the handle's `redux`/`elect` fallbacks (which of them a build uses depends
//! on its target: on sm_90 `redux_f32` is the shuffle-tree fallback; on sm_70 the integer `redux`
//! and `elect` are too, and the sm_70 PTX runs on newer GPUs through the driver's JIT).
//!
//! Same launch convention as [`crate::conformance`]: thread `t` uses element `t` of each array;
//! `active[t] == 0` returns at once (an exited lane).
//!
//! | kernels | parameters |
//! |---|---|
//! | `dev_shfl_{up,down,bfly,idx}_b64` | `(active, a: *const u64, b, c, mask, d: *mut u64, p)`: `group(mask).shfl(mode, a, b, c)` |
//! | `dev_shfl_sync_{up,down,xor,idx}_f64` | `(active, a: *const f64, b, width, mask, d: *mut f64)`: `shfl_<mode>_sync(mask, a, b, width)` |
//! | `dev_tile_pred_{up,down,xor,idx}_i32` | `(active, a: *const i32, b, width, d: *mut i32, p)`: `tile(width).shfl_<mode>_pred(a, b)` |
//! | `dev_vote` | `(active, pred, mask, sel, d)`: `sel[t]` 0..=3 `vote(mode sel, pred, false)`, 4..=7 the same negated, 8 `ballot`, 9 `all`, 10 `any`, 11 `uni`, 12 `none`, 13 `not_all` (bools as 0/1) |
//! | `dev_redux_{add,min,max}_{u32,i32}`, `dev_redux_{and,or,xor}_u32` | `(active, src, mask, d)`: `group(mask).redux_<op>(src)` |
//! | `dev_redux_f32` | `(active, src: *const f32, sel, mask, d: *mut f32)`: `redux_f32(src, FloatRedux { max: sel & 1, abs: sel & 2, nan: sel & 4 })` |
//! | `dev_elect` | `(active, mask, d, p)`: `group(mask).elect()` |
//! | `dev_lane_info` | `(active, d)`: `d[8t..8t+8] = [lane_id, global_id, warp_index, lanemask_lt, lanemask_ge, tile(8).rank(), tile(8).size(), tile(8).membermask()]` |

use warp_runtime::{FloatRedux, ShflMode, VoteMode, Warp};

macro_rules! guard {
    ($active:ident) => {{
        let w = Warp::current();
        let t = w.global_id() as usize;
        if *$active.add(t) == 0 {
            return;
        }
        (w, t)
    }};
}

macro_rules! dev_shfl_b64 {
    ($kernel:ident, $mode:expr) => {
        /// `(active, a: *const u64, b, c, mask, d: *mut u64, p)`.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $kernel(
            active: *const u32,
            a: *const u64,
            b: *const u32,
            c: *const u32,
            mask: *const u32,
            d: *mut u64,
            p: *mut u32,
        ) {
            let (w, t) = guard!(active);
            let (dv, pv) = w
                .group(*mask.add(t))
                .shfl($mode, *a.add(t), *b.add(t), *c.add(t));
            *d.add(t) = dv;
            *p.add(t) = pv as u32;
        }
    };
}

dev_shfl_b64!(dev_shfl_up_b64, ShflMode::Up);
dev_shfl_b64!(dev_shfl_down_b64, ShflMode::Down);
dev_shfl_b64!(dev_shfl_bfly_b64, ShflMode::Bfly);
dev_shfl_b64!(dev_shfl_idx_b64, ShflMode::Idx);

macro_rules! dev_shfl_sync {
    ($kernel:ident, $method:ident) => {
        /// `(active, a: *const f64, b, width, mask, d: *mut f64)`.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $kernel(
            active: *const u32,
            a: *const f64,
            b: *const u32,
            width: *const u32,
            mask: *const u32,
            d: *mut f64,
        ) {
            let (w, t) = guard!(active);
            *d.add(t) = w.$method(*mask.add(t), *a.add(t), *b.add(t), *width.add(t));
        }
    };
}

dev_shfl_sync!(dev_shfl_sync_up_f64, shfl_up_sync);
dev_shfl_sync!(dev_shfl_sync_down_f64, shfl_down_sync);
dev_shfl_sync!(dev_shfl_sync_xor_f64, shfl_xor_sync);
dev_shfl_sync!(dev_shfl_sync_idx_f64, shfl_idx_sync);

macro_rules! dev_tile_pred {
    ($kernel:ident, $method:ident) => {
        /// `(active, a: *const i32, b, width, d: *mut i32, p)`.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $kernel(
            active: *const u32,
            a: *const i32,
            b: *const u32,
            width: *const u32,
            d: *mut i32,
            p: *mut u32,
        ) {
            let (w, t) = guard!(active);
            let (dv, pv) = w.tile(*width.add(t)).$method(*a.add(t), *b.add(t));
            *d.add(t) = dv;
            *p.add(t) = pv as u32;
        }
    };
}

dev_tile_pred!(dev_tile_pred_up_i32, shfl_up_pred);
dev_tile_pred!(dev_tile_pred_down_i32, shfl_down_pred);
dev_tile_pred!(dev_tile_pred_xor_i32, shfl_xor_pred);
dev_tile_pred!(dev_tile_pred_idx_i32, shfl_idx_pred);

/// `(active, pred, mask, sel, d)`: one of the handle's vote methods, chosen by `sel[t]` (the lanes
/// of one membermask group pass the same `sel`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn dev_vote(
    active: *const u32,
    pred: *const u32,
    mask: *const u32,
    sel: *const u32,
    d: *mut u32,
) {
    let (w, t) = guard!(active);
    let g = w.group(*mask.add(t));
    let x = *pred.add(t) != 0;
    let modes = [
        VoteMode::All,
        VoteMode::Any,
        VoteMode::Uni,
        VoteMode::Ballot,
    ];
    let s = *sel.add(t);
    *d.add(t) = match s {
        0..=7 => g.vote(modes[(s & 3) as usize], x, s >= 4),
        8 => g.ballot(x),
        9 => g.all(x) as u32,
        10 => g.any(x) as u32,
        11 => g.uni(x) as u32,
        12 => g.none(x) as u32,
        _ => g.not_all(x) as u32,
    };
}

macro_rules! dev_redux {
    ($($kernel:ident: $ty:ty => $method:ident;)*) => {$(
        /// `(active, src, mask, d)`.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $kernel(
            active: *const u32,
            src: *const $ty,
            mask: *const u32,
            d: *mut $ty,
        ) {
            let (w, t) = guard!(active);
            *d.add(t) = w.group(*mask.add(t)).$method(*src.add(t));
        }
    )*};
}

dev_redux! {
    dev_redux_add_u32: u32 => redux_add;
    dev_redux_min_u32: u32 => redux_min;
    dev_redux_max_u32: u32 => redux_max;
    dev_redux_add_i32: i32 => redux_add;
    dev_redux_min_i32: i32 => redux_min;
    dev_redux_max_i32: i32 => redux_max;
    dev_redux_and_u32: u32 => redux_and;
    dev_redux_or_u32: u32 => redux_or;
    dev_redux_xor_u32: u32 => redux_xor;
}

/// `(active, src: *const f32, sel, mask, d: *mut f32)`: `redux_f32` with `.max` = `sel & 1`,
/// `.abs` = `sel & 2`, `.NaN` = `sel & 4` (the lanes of one group pass the same `sel`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn dev_redux_f32(
    active: *const u32,
    src: *const f32,
    sel: *const u32,
    mask: *const u32,
    d: *mut f32,
) {
    let (w, t) = guard!(active);
    let s = *sel.add(t);
    let q = FloatRedux {
        max: s & 1 != 0,
        abs: s & 2 != 0,
        nan: s & 4 != 0,
    };
    *d.add(t) = w.group(*mask.add(t)).redux_f32(*src.add(t), q);
}

/// `(active, mask, d, p)`: `(d[t], p[t]) = group(mask[t]).elect()`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn dev_elect(
    active: *const u32,
    mask: *const u32,
    d: *mut u32,
    p: *mut u32,
) {
    let (w, t) = guard!(active);
    let (dv, pv) = w.group(*mask.add(t)).elect();
    *d.add(t) = dv;
    *p.add(t) = pv as u32;
}

/// `(active, d)`: lane registers, launch position and tile arithmetic through the handle.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn dev_lane_info(active: *const u32, d: *mut u32) {
    let (w, t) = guard!(active);
    let o = d.add(8 * t);
    let tile = w.tile(8);
    *o = w.lane_id();
    *o.add(1) = w.global_id() as u32;
    *o.add(2) = w.warp_index() as u32;
    *o.add(3) = w.lanemask_lt();
    *o.add(4) = w.lanemask_ge();
    *o.add(5) = tile.rank();
    *o.add(6) = tile.size();
    *o.add(7) = tile.membermask();
}
