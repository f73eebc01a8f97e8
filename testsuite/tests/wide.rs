//! The warp-wide forms against the per-lane executor (issue 15): every kernel here and the
//! examples' warp functions run both ways on proptest-generated inputs, partial warps, lane
//! orders and targets, and must give the same values and the same reports
//! (`tests/common/both.rs` compares them). Kernels the macro gives a warp-wide form are checked
//! to take it.

// The code `#[warp_kernel]` adds (the warp-wide forms) must not trip lints a crate may deny:
// the forms' `allow(warnings)` does not override a lint denied by name.
#![deny(unused_parens, unused_imports, unused_variables)]

use proptest::prelude::*;
use warpkit::prelude::*;

#[path = "../../tests/common/both.rs"]
mod both;
use both::{both, Both};

#[allow(dead_code)]
#[path = "../../examples/reduce.rs"]
mod reduce;
#[allow(dead_code)]
#[path = "../../examples/scan.rs"]
mod scan;
#[allow(dead_code)]
#[path = "../../examples/segmented_reduce.rs"]
mod segmented_reduce;
#[allow(dead_code)]
#[path = "../../examples/bitonic_sort.rs"]
mod bitonic_sort;
#[allow(dead_code)]
#[path = "../../examples/radix_rank.rs"]
mod radix_rank;
#[allow(dead_code)]
#[path = "../../examples/search.rs"]
mod search;

// ---- kernels the form supports, each with something per lane between its instructions.

/// Uniform loops, per-lane branches between instructions, a tuple of two instructions.
#[warp_kernel]
fn mixed(w: &Warp, x: u32) -> (u32, u32) {
    let mut v = x;
    let mut steps = 0u32;
    for offset in [1, 2, 4] {
        let other = w.shfl_xor(v, offset);
        if other > v {
            v = other - v;
        } else {
            v ^= other.rotate_left(offset);
        }
        steps += 1;
    }
    let mut k = 16;
    while k > 0 {
        v = v.wrapping_add(w.shfl_down(v, k));
        k /= 2;
    }
    (w.redux_add(v & 0xff), w.ballot(v % 3 == 0) ^ steps)
}

/// Some lanes return early: later instructions run without them, and reading one of them is
/// the engine's report.
#[warp_kernel]
fn early_return(w: &Warp, x: u32) -> u32 {
    if x % 5 == 0 {
        return x;
    }
    let v = w.shfl_idx(x, x % 32);
    v ^ w.activemask()
}

/// A lane panics between two instructions.
#[warp_kernel]
fn panics(w: &Warp, x: u32) -> u32 {
    let v = w.shfl_up(x, 1);
    if v == 77 {
        panic!("lane got 77");
    }
    w.redux_max(v)
}

/// Per-lane membermasks: groups of lanes vote among themselves.
#[warp_kernel]
fn per_lane_masks(w: &Warp, x: u32) -> (u32, u32) {
    let mask = if x % 2 == 0 { 0x5555_5555 } else { 0xaaaa_aaaa };
    let g = w.group(mask);
    let t = w.tile(8);
    (g.ballot(x > 1000), t.shfl_down(x, 1))
}

/// Values moved as two words, `match`, `elect`, and a uniform `if`.
#[warp_kernel]
fn wide_values(w: &Warp, x: u64) -> (u64, u32, (u32, bool)) {
    let limit = 3;
    let mut s = x;
    if limit > 2 {
        s = w.shfl_xor(s, 16);
    }
    (s, w.match_any(s & 0xf), w.elect())
}

/// `i32` and `f32` operands, which the vector units read in place (their bits are their memory):
/// shuffles of each mode, signed and unsigned reductions, a vote on a float.
#[warp_kernel]
fn signed_and_float(w: &Warp, x: u32) -> (i32, f32, f32, i32, i32, u32, bool) {
    let s = x as i32 - 1000;
    let f = x as f32 * 0.5 - 300.0;
    let up = w.shfl_up(s, 3);
    let bf = w.shfl_xor(f, 5);
    let idx = w.shfl_idx(f, 7);
    (up, bf, idx, w.redux_min(s), w.redux_add(up), w.redux_max(x), w.any(bf > 100.0))
}

/// Uniform code that queries the handle: a scan whose loop is bounded by the group's width, a
/// loop over its size, and a branch on the warp's position (the first two uniform when every
/// lane's handle has one shape, which the offer checks; the last in any case).
#[warp_kernel]
fn shaped(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let mut offset = 1;
    while offset < w.width() {
        let (up, in_range) = w.shfl_up_pred(v, offset);
        if in_range {
            v = v.wrapping_add(up);
        }
        offset *= 2;
    }
    if w.warp_index() % 2 == 1 && w.ctaid().x < 100 {
        v = v.wrapping_add(w.shfl_xor(v, 1));
    }
    for _ in 0..w.size() / 8 {
        v ^= w.shfl_idx(v, 0);
    }
    v
}

/// [`shaped`] on tiles of 8 lanes, or (when `mixed`) of 8 lanes in the lower half and 16 in the
/// upper: the same call, with handles of two shapes.
#[warp_kernel]
fn shaped_tiles(w: &Warp, x: u32, mixed: bool) -> u32 {
    let t = w.tile(if mixed && w.lane_id() >= 16 { 16 } else { 8 });
    shaped(&t, x)
}

/// Shuffles with explicit `b` and `c` (uniform, the same in every lane, and different per lane,
/// whose requests then differ), each mode's `_pred` form, and matches of one and two words: each
/// issued by the form itself.
#[warp_kernel]
fn explicit_operands(w: &Warp, x: u32, b: u32, c: u32) -> ((u32, bool), (u32, bool), (u64, bool), [(u32, bool); 4], (u32, u32, (u32, bool), (u32, bool))) {
    let uniform = w.shfl(ShflMode::Down, x, 3, 0x1f);
    let same = w.shfl(ShflMode::Bfly, x ^ 5, b, c);
    let own = w.shfl(ShflMode::Idx, (x as u64) << 33 | 7, x % 32, if x % 3 == 0 { 0x1f } else { 0x181f });
    let pred = [w.shfl_up_pred(x, b % 8), w.shfl_down_pred(x, 2), w.shfl_xor_pred(x, 9), w.shfl_idx_pred(x, x % 7)];
    let (low, wide) = (x % 4, (x as u64 % 3) << 40);
    (uniform, same, own, pred, (w.match_any(low), w.match_any(wide), w.match_all(low), w.match_all(wide)))
}

/// Each shuffle of the handle's own (on a tile: in its segment), one of 8 bytes, and a
/// butterfly by `b` (across the tile when `b` is its width or more: undefined).
#[warp_kernel]
fn tile_shuffles(w: &Warp, x: u32, b: u32) -> (u32, (u32, bool), u32, u64, (u32, bool)) {
    let up = w.shfl_up(x, 1);
    let down = w.shfl_down_pred(up ^ x, 2);
    let idx = w.shfl_idx(down.0, x % 4);
    let wide = w.shfl_xor((idx as u64) << 32 | x as u64, 1);
    (up, down, idx, wide, w.shfl_xor_pred(x, b))
}

/// Per-lane values that are not `Copy`, moved by name: a `let` of another, a `return`, the
/// result (the form moves each out of its lanes' values, as Rust moves the variable).
#[warp_kernel]
fn moves_strings(w: &Warp, x: u32) -> String {
    let v = w.shfl_xor(x, 1);
    let s = v.to_string();
    let t = s;
    if v % 3 == 0 {
        return t;
    }
    let u = w.shfl_down(v, 1);
    let mut r = t;
    r.push('/');
    r.push_str(&u.to_string());
    r
}

/// Instruction results that the form keeps as locals of one stretch's loop (read there only,
/// a macro's among them), and ones it keeps per lane: read past the next instruction or call,
/// lent (a method's receiver, a reference, a macro that may keep a borrow), shadowed, read in a
/// uniform loop, and in lanes that return early.
#[warp_kernel]
fn stretch_locals(w: &Warp, x: u32) -> (u32, u32, u32, u32, u32) {
    let (up, ok) = w.shfl_up_pred(x, 1);
    assert!(up < 1 << 20, "never");
    let a = if ok { up } else { x };
    let (down, in_range) = w.shfl_down_pred(a, 2);
    let b = w.shfl_xor(a, 1);
    let c = if in_range { down ^ b } else { b };
    let m = w.ballot(c % 2 == 0);
    let ones = m.count_ones();
    let r = core::convert::identity(&m).wrapping_add(ones);
    let v = w.shfl_idx(c, 0);
    let s = ones.wrapping_add(vec![v][0]);
    let e = w.shfl_down(x, 1);
    let e = e.wrapping_mul(3);
    let g = w.shfl_down(s, 3);
    let mut acc = 0u32;
    for k in [1u32, 2, 4] {
        let (p, okp) = w.shfl_xor_pred(acc ^ g, k);
        if okp {
            acc = acc.wrapping_add(p);
        }
    }
    if x % 5 == 0 {
        return (a, c, r, s, e);
    }
    let f = inner_sum(w, e);
    let h = w.shfl_xor(f, 2);
    (acc, h ^ f, r, s, e ^ f)
}

/// A stretch-local result lent by a raw pointer read after the next instruction: per lane (a
/// local of the stretch's loop would be gone by then).
#[warp_kernel]
fn raw_pointer_to_a_result(w: &Warp, x: u32) -> u32 {
    let (v, _) = w.shfl_up_pred(x, 1);
    let p = &raw const v;
    let y = w.shfl_xor(x, 1);
    // SAFETY: `v` lives to the end of the kernel, and `p` points to it.
    unsafe { *p }.wrapping_add(y)
}

#[warp_kernel]
fn by_ref(w: &Warp, x: &u32) -> u32 {
    w.shfl_xor(*x, 1) ^ *x
}

/// Results named by a plain `let`, returned by some lanes and lent to a call (or moved) by the
/// others in the same stretch: they compile, as they do per lane.
#[warp_kernel]
fn lent_results(w: &Warp, x: u32) -> (u32, u32, u32) {
    let v = w.shfl_xor(x, 1);
    if x % 2 == 0 {
        return (v, 0, 0);
    }
    let a = by_ref(w, &v);
    let t = inner_sum(w, x);
    if x % 3 == 0 {
        return (a, t, 0);
    }
    let b = by_ref(w, &t);
    let u = w.shfl_down(x, 2);
    let s = u;
    (a, b, by_ref(w, &u) ^ s)
}

/// Assertions without a message on per-lane variables: the panic's message names the condition
/// as written, warp-wide too (not the form's names for the variables).
#[warp_kernel]
fn asserts(w: &Warp, x: u32) -> u32 {
    let y = w.shfl_xor(x, 1);
    debug_assert!(x < 1900 && y < 1 << 31);
    let z = w.shfl_down(y, 1);
    assert!(x + y < 3500);
    z ^ x
}

/// A per-lane `String` moved out and then assigned again, in one stretch and across an
/// instruction (Rust allows it; the form sets the variable rather than writing through an index
/// that its move left empty).
#[warp_kernel]
fn reassigned_strings(w: &Warp, x: u32) -> String {
    let v = w.shfl_xor(x, 1);
    let mut s = v.to_string();
    let t = s;
    s = t.clone();
    s.push('/');
    let u = w.shfl_down(v, 1);
    let moved = s;
    s = u.to_string();
    s.push_str(&moved);
    s
}

fn targets() -> impl Strategy<Value = Target> {
    prop_oneof![Just(Target::SM_70), Just(Target::SM_80), Just(Target::SM_90), Just(Target::default())]
}

fn orders() -> impl Strategy<Value = LaneOrder> {
    prop_oneof![Just(LaneOrder::Ascending), Just(LaneOrder::Descending), any::<u64>().prop_map(LaneOrder::Seeded)]
}

fn lanes<T: core::fmt::Debug + Copy>(v: Vec<T>) -> [T; 32] {
    v.try_into().unwrap()
}

/// A partial warp: lanes `0..n` launched (`n` in 1..=32), as past the end of a grid.
fn partial(n: u32) -> u32 {
    if n >= 32 { u32::MAX } else { (1 << n) - 1 }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn local_kernels_agree(xs in proptest::collection::vec(0u32..2000, 32), n in 1u32..=32, target in targets(), order in orders()) {
        let ex: Both = both().target(target).order(order).races(false);
        let x = lanes(xs);
        let _ = ex.run_with(&x, mixed);
        let _ = ex.run_with(&x, early_return);
        let _ = ex.run_with(&x, panics);
        let _ = ex.run_with(&x, per_lane_masks);
        let _ = ex.run_with(&x.map(|v| (v as u64) << 20 | v as u64), wide_values);
        let _ = ex.run_with(&x, signed_and_float);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| signed_and_float(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| mixed(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| early_return(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| panics(w, 70 + x[w.lane_id() as usize] % 10).await);
        let _ = ex.run_with(&x, shaped);
        let _ = ex.warp_index(n as u64).run_with(&x, shaped);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| shaped(w, x[w.lane_id() as usize]).await);
        let _ = ex.run(async |w: &Warp<'_>| shaped_tiles(w, x[w.lane_id() as usize], false).await);
        let _ = ex.run(async |w: &Warp<'_>| shaped_tiles(w, x[w.lane_id() as usize], true).await);
        let _ = ex.run(async |w: &Warp<'_>| explicit_operands(w, x[w.lane_id() as usize], x[0], x[1] | x[2] << 8).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| explicit_operands(w, x[w.lane_id() as usize] % 4, n, x[3]).await);
        let _ = ex.run_with(&x, moves_strings);
        let _ = ex.run_with(&x, stretch_locals);
        let _ = ex.run_with(&x, reassigned_strings);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| reassigned_strings(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_with(&x, asserts);
        let _ = ex.run_with(&x, raw_pointer_to_a_result);
        let _ = ex.run_with(&x, lent_results);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| lent_results(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| stretch_locals(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| moves_strings(w, x[w.lane_id() as usize]).await);
        // `b` and `c` that differ between lanes.
        let _ = ex.run(async |w: &Warp<'_>| explicit_operands(w, x[w.lane_id() as usize], x[w.lane_id() as usize] % 2, 0x1f).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| explicit_operands(w, x[w.lane_id() as usize], x[w.lane_id() as usize] % 3, 0x1f).await);
        // Forms on tiles (offered with each lane's tile): shuffles in segments of the tile's
        // width, which the form completes for the whole warp at once when every lane reads in
        // its own tile, and ones whose lanes read outside it (whole-warp `c`, a butterfly across
        // tiles: undefined, reported).
        let _ = ex.run(async |w: &Warp<'_>| shaped(&w.tile(4), x[w.lane_id() as usize]).await);
        let _ = ex.run(async |w: &Warp<'_>| shaped(&w.tile(16), x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| shaped(&w.tile(8), x[w.lane_id() as usize]).await);
        let _ = ex.run(async |w: &Warp<'_>| explicit_operands(&w.tile(8), x[w.lane_id() as usize], x[0] % 16, 0x181f).await);
        let _ = ex.run(async |w: &Warp<'_>| tile_shuffles(&w.tile(8), x[w.lane_id() as usize], x[1] % 16).await);
        let _ = ex.run(async |w: &Warp<'_>| tile_shuffles(&w.tile(2), x[w.lane_id() as usize], x[2] % 4).await);
    }

    #[test]
    fn examples_agree(xs in proptest::collection::vec(any::<u32>(), 32), heads in any::<u32>(), last in 0u32..32, n in 1u32..=32, order in orders()) {
        let ex = both().order(order).races(false);
        let x = lanes(xs);
        let _ = ex.run(async |w: &Warp<'_>| reduce::reduce_u32(w, x[w.lane_id() as usize], last).await);
        let _ = ex.run(async |w: &Warp<'_>| reduce::tree_reduce(w, x[w.lane_id() as usize] as i32, last, i32::wrapping_add).await);
        let _ = ex.run(async |w: &Warp<'_>| reduce::reduce_f32(w, f32::from_bits(x[w.lane_id() as usize]), last).await);
        let _ = ex.run(async |w: &Warp<'_>| scan::prefix_sum_u32(w, x[w.lane_id() as usize]).await);
        let _ = ex.run(async |w: &Warp<'_>| scan::tile_prefix_sums(w, x[w.lane_id() as usize]).await);
        let _ = ex.run(async |w: &Warp<'_>| scan::prefix_sum_f64(w, x[w.lane_id() as usize] as f64 * 0.5).await);
        let _ = ex.run(async |w: &Warp<'_>| segmented_reduce::segmented_sum_u32(w, x[w.lane_id() as usize], heads >> w.lane_id() & 1 == 1).await);
        let _ = ex.run(async |w: &Warp<'_>| bitonic_sort::sort_u32(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| scan::prefix_sum_u32(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| bitonic_sort::sort_u32(w, x[w.lane_id() as usize]).await);
        // The search over values that repeat (a match in some steps, none in others), whole and
        // partial warps, lanes that return before the call (the entry's shape), a step of 3.
        let hay = GlobalBuffer::<u32>::from_slice(&x.iter().chain(x.iter()).map(|v| v % 97).collect::<Vec<u32>>());
        let h = hay.slice();
        let _ = ex.run(async |w: &Warp<'_>| search::find_first(w, h, x[0] % 97).await);
        let _ = ex.run(async |w: &Warp<'_>| search::find_first(w, h, 97).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| search::find_first(w, h, x[last as usize] % 97).await);
        let _ = ex.run(async |w: &Warp<'_>| if heads >> w.lane_id() & 1 == 1 { None } else { Some(search::find_first(w, h, x[1] % 97).await) });
        let _ = ex.run(async |w: &Warp<'_>| counts_to_len(w, h, 3).await);
        let _ = ex.run(async |w: &Warp<'_>| counts_to_len(w, h, 1 + x[2] as usize % 40).await);
        let scratch = GlobalBuffer::<u32>::from_slice(&x.iter().map(|v| v % 97).collect::<Vec<u32>>());
        let s = scratch.slice();
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| counts_from(w, s, x[3] as usize % 8, 1 + x[4] as usize % 9).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| counts_from(w, s, 1, usize::MAX).await);
        let stored = GlobalBuffer::<u32>::zeroed(32);
        let o = stored.slice();
        let _ = ex.run(async |w: &Warp<'_>| stores_a_sum_of_a_load(w, s, o).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| stores_a_sum_of_a_load(w, s, o).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| stores_a_sum_of_a_mut_load(w, s, o).await);
        let _ = ex.run_with(&x, reads_then_loads);
        let _ = ex.run(async |w: &Warp<'_>| shadows_a_slice_in_a_macro(w, s, x[w.lane_id() as usize]).await);
    }
}

/// The kernels above, and the examples' warp functions that the macro gives a warp-wide form,
/// take it when every lane calls them (each run counts once).
#[test]
fn supported_kernels_run_warp_wide() {
    let ex = Executor::new().wide(true).races(false);
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 7 + 1);
    let wide = |f: &dyn Fn()| {
        let before = warpkit::wide_runs();
        f();
        warpkit::wide_runs() - before
    };
    // A kernel that calls warp functions runs per lane until each of its call sites has seen
    // its callee's form run (the callees' own calls first): the count of a run after that.
    let settled = |f: &dyn Fn()| {
        for _ in 0..4 {
            f();
        }
        wide(f)
    };
    assert_eq!(wide(&|| drop(ex.run_with(&x, mixed))), 1, "mixed");
    assert_eq!(wide(&|| drop(ex.run_with(&x, early_return))), 1, "early_return");
    assert_eq!(wide(&|| drop(ex.run_with(&x, per_lane_masks))), 1, "per_lane_masks");
    assert_eq!(wide(&|| drop(ex.run_with(&x, signed_and_float))), 1, "signed_and_float");
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| explicit_operands(w, x[w.lane_id() as usize], 3, 0x81f).await))), 1, "explicit_operands");
    assert_eq!(wide(&|| drop(ex.run_with(&x, moves_strings))), 1, "moves_strings");
    assert_eq!(settled(&|| drop(ex.run_with(&x, stretch_locals))), 2, "stretch_locals and inner_sum");
    assert_eq!(wide(&|| drop(ex.run_with(&x, asserts))), 1, "asserts");
    assert_eq!(wide(&|| drop(ex.run_with(&x, reassigned_strings))), 1, "reassigned_strings");
    // `reduce_u32` and, inside it, `tree_reduce` three times. The first run of a kernel that
    // calls warp functions may be per lane (its call sites learn that the callees offer
    // forms); from then on the caller's form runs, and runs the callees' forms.
    let reduce = || drop(ex.run(async |w: &Warp<'_>| reduce::reduce_u32(w, x[w.lane_id() as usize], 31).await));
    assert!(matches!(wide(&reduce), 3 | 4), "tree_reduce: the first run");
    assert_eq!(wide(&reduce), 4, "reduce_u32 and tree_reduce");
    // `sort_u32` only calls `bitonic_sort`: its form (which an entry that calls it needs, to
    // start in its own) runs `bitonic_sort`'s.
    assert_eq!(settled(&|| drop(ex.run(async |w: &Warp<'_>| bitonic_sort::sort_u32(w, x[w.lane_id() as usize]).await))), 2, "sort_u32 and bitonic_sort");
    let cell = core::cell::Cell::new(0);
    assert_eq!(wide(&|| drop(ex.run_with(&[&cell; 32], counted_deferred))), 1, "counted_deferred");
    assert_eq!(wide(&|| drop(ex.run_with(&[&cell; 32], counted))), 1, "counted: a uniform let that cannot panic runs before its stretch");
    assert_eq!(wide(&|| drop(ex.run_with(&[&cell; 32], counted_dividing))), 0, "counted_dividing: a deferred name read in its stretch");
    // Handle queries in uniform code: the whole warp's handle, a warp with an odd index, tiles
    // of one width; with tiles of two widths, the offer is declined (`same_shape`).
    assert_eq!(wide(&|| drop(ex.run_with(&x, shaped))), 1, "shaped");
    assert_eq!(wide(&|| drop(ex.warp_index(3).run_with(&x, shaped))), 1, "shaped, warp 3");
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| shaped_tiles(w, x[w.lane_id() as usize], false).await))), 1, "shaped on tiles");
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| shaped_tiles(w, x[w.lane_id() as usize], true).await))), 0, "shaped on two tile widths");
    // The examples' scans loop to their tile's width: warp-wide on the warp and on tiles.
    // `prefix_sum_u32` only calls `scans`, which calls `inclusive_scan` and shuffles: three
    // forms. `tile_prefix_sums` hands `scans` tiles of 8 and of 16: its form runs `scans` on
    // each, which runs `inclusive_scan` on it: five.
    assert_eq!(settled(&|| drop(ex.run(async |w: &Warp<'_>| scan::prefix_sum_u32(w, x[w.lane_id() as usize]).await))), 3, "prefix_sum_u32");
    assert_eq!(settled(&|| drop(ex.run(async |w: &Warp<'_>| scan::tile_prefix_sums(w, x[w.lane_id() as usize]).await))), 5, "tile_prefix_sums");
    // Loads in a `while` loop: warp-wide when the loop counts its turns, per lane when its
    // count waits on a load (the flag is set here, so these end). The example's radix sort loops
    // over the digits with `while shift < 32 { .. shift += RADIX_BITS; }`.
    let data = GlobalBuffer::<u32>::from_slice(&[1; 128]);
    let d = data.slice();
    assert_eq!(wide(&|| drop(ex.run_with(&x, async |w: &Warp<'_>, v| counted_loads(w, v, d).await))), 1, "counted_loads");
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| waits_for_a_flag(w, d).await))), 0, "waits_for_a_flag");
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| skips_on_a_flag(w, d).await))), 0, "skips_on_a_flag");
    let (bins, exchange) = (GlobalBuffer::<u32>::zeroed(32), GlobalBuffer::<u32>::zeroed(32));
    let (b, e) = (bins.slice(), exchange.slice());
    // `radix_sort`, its 7 `radix_rank` calls and their `exclusive_sum` calls.
    assert_eq!(settled(&|| drop(ex.run_with(&x, async |w: &Warp<'_>, k| radix_rank::radix_sort(w, k, b, e).await))), 15, "radix_sort");
    // The example's search loops to its slice's length by the warp's lane count (a uniform
    // `let` of a ballot's `count_ones`) and returns at its first match: warp-wide, the slice
    // taken for uniform (every lane passed the same).
    let hay = GlobalBuffer::<u32>::from_slice(&(0..200).collect::<Vec<u32>>());
    let h = hay.slice();
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| search::find_first(w, h, 77).await))), 1, "find_first");
    assert_eq!(wide(&|| drop(ex.run_partial(0xfff, async |w: &Warp<'_>| search::find_first(w, h, 500).await))), 1, "find_first, 12 lanes");
    // Each lane its own slice (two halves): declined, per lane.
    let (lo, hi) = (h.subslice(0, 100), h.subslice(100, 100));
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| search::find_first(w, if w.lane_id() < 16 { lo } else { hi }, 150).await))), 0, "find_first on two slices");
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| counts_to_len(w, h, 3).await))), 1, "counts_to_len");
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| claims_to_len(w, h, 3).await))), 0, "claims_to_len: an atomic and an early exit");
    assert_eq!(wide(&|| drop(ex.run_partial(0xf0f0, async |w: &Warp<'_>| counts_from(w, h, 2, 5).await))), 1, "counts_from");
    // Lanes that pass different starts: declined, per lane.
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| counts_from(w, h, w.lane_id() as usize % 2, 5).await))), 0, "counts_from, two starts");
    let out = ex.run(async |w: &Warp<'_>| counts_from(w, h, 1, usize::MAX).await);
    assert!(matches!(&out, Err(WarpError::LanePanicked { .. })), "{out:?}");
    // A load as a call's argument in a store's: the kernel's form and its callee's.
    let out = GlobalBuffer::<u32>::zeroed(32);
    let o = out.slice();
    assert_eq!(settled(&|| drop(ex.run(async |w: &Warp<'_>| stores_a_sum_of_a_load(w, d, o).await))), 2, "stores_a_sum_of_a_load");
    assert_eq!(out.to_vec(), vec![32; 32], "stores_a_sum_of_a_load's sums");
    assert_eq!(settled(&|| drop(ex.run(async |w: &Warp<'_>| stores_a_sum_of_a_mut_load(w, d, o).await))), 1, "stores_a_sum_of_a_mut_load: the callee's form only");
    assert_eq!(settled(&|| drop(ex.run_with(&x, reads_then_loads))), 1, "reads_then_loads: the callee's form only");
    assert_eq!(settled(&|| drop(ex.run(async |w: &Warp<'_>| shadows_a_slice_in_a_macro(w, d, 1).await))), 1, "shadows_a_slice_in_a_macro: the callee's form only");
    // Off: never.
    assert_eq!(wide(&|| drop(Executor::new().wide(false).run_with(&x, mixed))), 0);
    // Only some of the live lanes call it (the others vote among themselves): declined, per lane.
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| if w.lane_id() < 16 { mixed(w, 1).await } else { (w.group(0xffff_0000).ballot(true).await, 0) }))), 0);
    // The lanes that did not call it have returned: the callers are every live lane.
    assert_eq!(wide(&|| drop(ex.run(async |w: &Warp<'_>| if w.lane_id() < 16 { mixed(w, 1).await } else { (0, 0) }))), 1);
}

/// A call whose argument is a load, inside a store's arguments (an entry's "load, call, store"
/// in one statement): the form issues the call ahead of reading the store's slice and index,
/// which a load of a `GlobalSlice` parameter cannot change. Returns what it stored.
#[warp_kernel]
fn stores_a_sum_of_a_load(w: &Warp, input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) -> u32 {
    let i = w.lane_id() as usize;
    out.store(i, inner_sum(w, input.load(i)));
    out.load(i)
}

/// The same with a `mut` parameter, which the body could rebind: the load is then not known to
/// leave the earlier reads alone, and the kernel keeps the per-lane form (its callee's form runs).
#[warp_kernel]
fn stores_a_sum_of_a_mut_load(w: &Warp, mut input: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) -> u32 {
    let i = w.lane_id() as usize;
    out.store(i, inner_sum(w, input.load(i)));
    input = out;
    input.load(i)
}

/// Arithmetic that panics (a division by `d`) on the value of a load, of an atomic, and of a
/// shuffle whose operand is an expression, each of which the per-lane form binds before it
/// awaits: the panic's report names the same line and column in both forms (the division's).
#[warp_kernel]
fn divides_a_load(w: &Warp, input: GlobalSlice<'_, u32>, d: u32) -> u32 {
    let i = w.lane_id() as usize;
    let q = input.load(i) / d;
    inner_sum(w, q)
}

#[warp_kernel]
fn divides_a_load_in_a_call(w: &Warp, input: GlobalSlice<'_, u32>, d: u32) -> u32 {
    let i = w.lane_id() as usize;
    1 + inner_sum(w, input.load(i) / d)
}

#[warp_kernel]
fn divides_an_atomic(w: &Warp, count: GlobalSlice<'_, u32>, d: u32) -> u32 {
    let q = count.atomic_add(0, 0) / d;
    inner_sum(w, q)
}

#[warp_kernel]
fn divides_a_shuffle(w: &Warp, x: u32, d: u32) -> u32 {
    let q = w.shfl_xor(x + 1, 1) / d;
    inner_sum(w, q)
}

/// A compound assignment whose right side holds a shuffle: the form writes that side without
/// parentheses (the crate denies `unused_parens`), and the addition's overflow is its own.
#[warp_kernel]
fn adds_a_shuffle(w: &Warp, x: u32, d: u32) -> u32 {
    let mut v = x + 1;
    v += w.shfl_xor(v, 1) | (u32::MAX >> d);
    inner_sum(w, v)
}

/// An index computed from a shuffle, out of bounds when `d` is 0 (from lane 0 on, as the
/// addition's overflow: a later lane's panic would leave the lanes before it at the call).
#[warp_kernel]
fn indexes_by_a_shuffle(w: &Warp, x: u32, d: u32) -> u32 {
    let table = [1u32, 2, 3, 4];
    let t = table[(w.shfl_xor(x, 1) as usize + 4) >> (d * 4)];
    inner_sum(w, t)
}

#[warp_kernel]
fn asserts_on_a_division(w: &Warp, input: GlobalSlice<'_, u32>, d: u32) -> u32 {
    let i = w.lane_id() as usize;
    let q = input.load(i);
    assert!(q / d > 0);
    inner_sum(w, q)
}

/// Macros whose tokens the form must not rewrite as it rewrites an expression's: an assertion's
/// message written with a trailing comma, and `stringify!` of a per-lane variable.
#[warp_kernel]
fn asserts_in_macros(w: &Warp, x: u32, d: u32) -> u32 {
    let q = x + 1;
    assert!(stringify!(q).len() == 1);
    assert!(q < d,);
    inner_sum(w, q)
}

/// A `matches!` pattern that binds a per-lane variable's name (the form is declined).
#[warp_kernel]
fn matches_a_per_lane_name(w: &Warp, x: u32) -> u32 {
    let q = x + 1;
    let o = if x % 2 == 0 { Some(x) } else { None };
    assert!(!matches!(o, Some(q) if q > 1000));
    inner_sum(w, q)
}

#[test]
fn macros_read_per_lane_variables_as_written() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let ex = both().races(false);
    let sum = (1..=32).sum::<u32>();
    for _ in 0..5 {
        assert_eq!(ex.run(async |w: &Warp<'_>| asserts_in_macros(w, x[w.lane_id() as usize], 100).await).unwrap(), [sum; 32]);
    }
    // The assertion fails in every lane, first in lane 0, with the condition as written, in
    // the kernel's form (started twice: with and without SIMD).
    let before = warpkit::wide_runs();
    let r = ex.run(async |w: &Warp<'_>| asserts_in_macros(w, x[w.lane_id() as usize], 1).await);
    assert_eq!(warpkit::wide_runs() - before, 2);
    let Err(WarpError::LanePanicked { lane: 0, message, .. }) = &r else { panic!("{r:?}") };
    assert_eq!(message, "assertion failed: q < d");
    assert_eq!(ex.run_with(&x, matches_a_per_lane_name).unwrap(), [sum; 32]);
}

/// The location of a lane's panic in the report: `file:line:column`.
fn panic_site(r: &Result<[u32; 32], WarpError>) -> String {
    let text = format!("{r:?}");
    let at = text.find("wide.rs:").unwrap_or_else(|| panic!("no location in the report: {text}"));
    text[at..].split(|c: char| !(c.is_ascii_alphanumeric() || c == ':' || c == '.' || c == '_')).next().unwrap().to_string()
}

#[test]
fn a_panic_in_arithmetic_on_an_awaited_value_is_reported_where_it_happens() {
    let data = GlobalBuffer::<u32>::from_slice(&[7; 32]);
    // Added to with 0: every run reads the same value.
    let count = GlobalBuffer::<u32>::from_slice(&[7]);
    let (input, c) = (data.slice(), count.slice());
    let ex = both().races(false);
    // Each kernel's call site learns its callee's form in the first runs (which agree); from
    // then on the kernels run in their forms, and the runs that panic start them too.
    for d in [1u32, 3, 5, 7, 9] {
        let _ = ex.run(async |w: &Warp<'_>| divides_a_load(w, input, d).await);
        let _ = ex.run(async |w: &Warp<'_>| divides_a_load_in_a_call(w, input, d).await);
        let _ = ex.run(async |w: &Warp<'_>| divides_an_atomic(w, c, d).await);
        let _ = ex.run(async |w: &Warp<'_>| divides_a_shuffle(w, w.lane_id(), d).await);
        let _ = ex.run(async |w: &Warp<'_>| asserts_on_a_division(w, input, d).await);
        let _ = ex.run(async |w: &Warp<'_>| adds_a_shuffle(w, w.lane_id(), d).await);
        let _ = ex.run(async |w: &Warp<'_>| indexes_by_a_shuffle(w, w.lane_id(), d).await);
    }
    // Both forms' reports are compared by `both`; the site is the division's own. Each case
    // but the atomic's (whose kernel has no form: an atomic's value feeds its call) panics in
    // its form, which starts twice (with and without SIMD).
    let cases: [(&dyn Fn() -> Result<[u32; 32], WarpError>, &str, u64); 7] = [
        (&|| ex.run(async |w: &Warp<'_>| divides_a_load(w, input, 0).await), "input.load(i) / d;", 2),
        (&|| ex.run(async |w: &Warp<'_>| divides_a_load_in_a_call(w, input, 0).await), "input.load(i) / d)", 2),
        (&|| ex.run(async |w: &Warp<'_>| divides_an_atomic(w, c, 0).await), "count.atomic_add(0, 0) / d;", 0),
        (&|| ex.run(async |w: &Warp<'_>| divides_a_shuffle(w, w.lane_id(), 0).await), "w.shfl_xor(x + 1, 1) / d;", 2),
        // In a macro's arguments, which the form rewrites as tokens.
        (&|| ex.run(async |w: &Warp<'_>| asserts_on_a_division(w, input, 0).await), "q / d > 0);", 2),
        // The overflow of `+=` and the index out of bounds (from the assignment's and the
        // indexed array's first character).
        (&|| ex.run(async |w: &Warp<'_>| adds_a_shuffle(w, w.lane_id(), 0).await), "v += w.shfl_xor(v, 1) | (u32::MAX >> d);", 2),
        (&|| ex.run(async |w: &Warp<'_>| indexes_by_a_shuffle(w, w.lane_id(), 0).await), "table[(w.shfl_xor(x, 1) as usize + 4) >> (d * 4)];", 2),
    ];
    // The division's line, and its column (its left operand's first character).
    let source = include_str!("wide.rs");
    for (run, division, forms) in cases {
        let before = warpkit::wide_runs();
        let r = run();
        assert_eq!(warpkit::wide_runs() - before, forms, "forms started for `{division}`");
        let (line, text) = source.lines().enumerate().find(|(_, l)| l.ends_with(division) && !l.contains('"')).expect("the division is in this file");
        let column = text.find(division).unwrap() + 1;
        assert_eq!(panic_site(&r), format!("wide.rs:{}:{column}:", line + 1), "{r:?}");
    }
}

/// A caller that runs per lane (a method call in a load's index), so that its lanes reach
/// their callee's offer one by one: `divisor` divides in the caller, `inner` in the callee
/// (`halves`) before its first instruction.
#[warp_kernel]
fn calls_after_a_division(w: &Warp, input: GlobalSlice<'_, u32>, divisor: u32, inner: u32) -> u32 {
    let i = w.lane_id() as usize;
    let q = input.load(i % input.len()) / divisor;
    halves(w, q, inner)
}

#[warp_kernel]
fn halves(w: &Warp, x: u32, d: u32) -> u32 {
    let y = x / d;
    w.shfl_xor(y, 1)
}

/// A lane panics after lanes before it in the lane order reached a callee's offer: per lane,
/// those lanes would have run on to the callee's first instruction before the panic, and the
/// report shows them waiting there.
#[test]
fn lanes_at_an_offer_when_a_later_lane_panics_are_reported_as_per_lane() {
    let data = GlobalBuffer::<u32>::from_slice(&[7; 32]);
    let input = data.slice();
    for order in [LaneOrder::Descending, LaneOrder::Seeded(3), LaneOrder::Ascending] {
        let ex = both().races(false).order(order);
        // The call site learns its callee's form.
        for _ in 0..5 {
            assert_eq!(ex.run(async |w: &Warp<'_>| calls_after_a_division(w, input, 1, 1).await).unwrap(), [7; 32]);
        }
        // Odd lanes go on to the callee's shuffle, even lanes divide by zero.
        let r = ex.run(async |w: &Warp<'_>| calls_after_a_division(w, input, w.lane_id() % 2, 1).await);
        let report = format!("{r:?}");
        if order == LaneOrder::Descending {
            assert!(report.contains("lane 30 panicked") && report.contains("lane 31      waiting at `shfl.sync.bfly.b32`"), "{report}");
        }
    }
}

/// Reads a flag, and divides by zero once it is set.
#[warp_kernel]
fn divides_once_flagged(w: &Warp, flag: GlobalSlice<'_, u32>, q: u32) -> u32 {
    let v = flag.load(0);
    let y = q / (1 - v);
    w.shfl_xor(y, 1)
}

/// Lane `last` sets the flag and panics; the others call `divides_once_flagged`.
#[warp_kernel]
fn flags_then_panics(w: &Warp, input: GlobalSlice<'_, u32>, flag: GlobalSlice<'_, u32>, last: bool) -> u32 {
    let i = w.lane_id() as usize;
    let q = input.load(i % input.len());
    if last {
        flag.store(0, 1);
        panic!("the flagging lane");
    }
    divides_once_flagged(w, flag, q)
}

/// The lanes at offers would run after a later lane's panic, and could see what it did: here,
/// lanes that per lane passed the division before the flag was set would divide by zero after
/// it. The step wrote memory, so they are not polled again, and the step's own panic is the
/// report. When a lane polled again (in a step without writes) panics in its callee before its
/// instruction, the reports differ: per lane that panic came first; warp-wide the step's does
/// (both are the program's panics).
#[test]
fn the_panic_that_ended_the_step_stays_the_report() {
    let data = GlobalBuffer::<u32>::from_slice(&[7; 32]);
    let input = data.slice();
    for wide in [false, true] {
        let ex = Executor::new().races(false).wide(wide);
        for _ in 0..5 {
            let flag = GlobalBuffer::<u32>::zeroed(1);
            let f = flag.slice();
            assert_eq!(ex.run(async |w: &Warp<'_>| flags_then_panics(w, input, f, false).await).unwrap(), [7; 32]);
        }
        let flag = GlobalBuffer::<u32>::zeroed(1);
        let f = flag.slice();
        let before = warpkit::wide_runs();
        let r = ex.run(async |w: &Warp<'_>| flags_then_panics(w, input, f, w.lane_id() == 31).await);
        let Err(WarpError::LanePanicked { lane: 31, message, .. }) = &r else { panic!("wide {wide}: {r:?}") };
        assert_eq!(message, "the flagging lane", "wide {wide}");
        assert_eq!(warpkit::wide_runs(), before, "no form ran (lane 31 did not offer)");
        // Where a lane polled again panics first per lane: in the callee, before its shuffle.
        let r = ex.order(LaneOrder::Descending).run(async |w: &Warp<'_>| calls_after_a_division(w, input, w.lane_id() % 2, 0).await);
        let Err(WarpError::LanePanicked { lane, .. }) = &r else { panic!("wide {wide}: {r:?}") };
        assert_eq!(*lane, if wide { 30 } else { 31 }, "wide {wide}: {r:?}");
    }
}

/// Stores `x` to `o[0]`, then shuffles.
#[warp_kernel]
fn stores_then_shuffles(w: &Warp, o: GlobalSlice<'_, u32>, x: u32) -> u32 {
    o.store(0, x);
    w.shfl_xor(x, 1)
}

/// Returns before its shuffle once `flag[0]` is 1.
#[warp_kernel]
fn returns_if_flagged(w: &Warp, flag: GlobalSlice<'_, u32>, x: u32) -> u32 {
    if flag.load(0) == 1 {
        return 100;
    }
    w.shfl_xor(x, 1)
}

/// The lanes at offers are not polled again after a panic in a step in which a kernel wrote
/// memory: per lane they ran before the lane that panicked, and polled after it they would see
/// its stores (here: store over its value; return at its flag and go on past the call, where a
/// loop on the flag would never end).
#[test]
fn lanes_at_offers_do_not_run_after_a_panic_that_follows_a_store() {
    for wide in [false, true] {
        let ex = Executor::new().races(false).wide(wide);
        let out = GlobalBuffer::<u32>::zeroed(1);
        let o = out.slice();
        let r = ex.run(async |w: &Warp<'_>| {
            if w.lane_id() == 31 {
                o.store(0, 999);
                panic!("the last lane");
            }
            stores_then_shuffles(w, o, w.lane_id()).await
        });
        assert!(matches!(r, Err(WarpError::LanePanicked { lane: 31, .. })), "wide {wide}: {r:?}");
        assert_eq!(out.to_vec(), vec![999], "wide {wide}: the last lane's store is the last");

        let flag = GlobalBuffer::<u32>::zeroed(1);
        let f = flag.slice();
        let past = core::sync::atomic::AtomicU32::new(0);
        let r = ex.run(async |w: &Warp<'_>| {
            if w.lane_id() == 31 {
                f.store(0, 1);
                panic!("the last lane");
            }
            let v = returns_if_flagged(w, f, 1).await;
            past.fetch_add(1, core::sync::atomic::Ordering::Relaxed);
            v
        });
        assert!(matches!(r, Err(WarpError::LanePanicked { lane: 31, .. })), "wide {wide}: {r:?}");
        assert_eq!(past.into_inner(), 0, "wide {wide}: no lane went on past the call");
    }
}

/// Returns before its instruction when `x > 0`.
#[warp_kernel]
fn returns_unless_zero(w: &Warp, x: u32) -> u32 {
    if x > 0 {
        return x;
    }
    w.shfl_xor(x, 1)
}

/// Calls `returns_unless_zero` without end (each call offers its form).
#[warp_kernel]
fn calls_without_end(w: &Warp, input: GlobalSlice<'_, u32>, divisor: u32) -> u32 {
    let i = w.lane_id() as usize;
    let q = input.load(i % input.len()) / divisor;
    let mut s = 0u32;
    loop {
        s = s.wrapping_add(returns_unless_zero(w, q));
    }
}

/// A lane that offers again at every poll after a later lane panicked is polled until the time
/// limit, and the panic is the report. (Per lane the same kernel never suspends, and the run
/// cannot end: it runs with forms only.)
#[test]
fn a_lane_that_offers_without_end_after_a_panic_stops_at_the_time_limit() {
    let data = GlobalBuffer::<u32>::from_slice(&[7; 32]);
    let input = data.slice();
    let ex = Executor::new().races(false).order(LaneOrder::Descending).time_limit(Some(std::time::Duration::from_millis(300)));
    let r = ex.run(async |w: &Warp<'_>| calls_without_end(w, input, w.lane_id() % 2).await);
    let Err(WarpError::LanePanicked { lane: 30, .. }) = r else { panic!("{r:?}") };
}

/// Items of the body that a parameter's name resolves to inside it (Rust lets them: the body's
/// items are in scope there, and shadow the parameter). The per-lane body binds the parameters
/// again at its top, where such an item would make the binding a pattern against it: these
/// kernels keep the per-lane form, and compile.
pub const FIVE: u32 = 5;

#[allow(non_upper_case_globals)]
mod consts {
    pub const input: u32 = 7;
}

#[warp_kernel]
#[allow(unused_variables)]
fn shadowed_by_a_use(w: &Warp, input: u32) -> u32 {
    let s = w.shfl_xor(input + 1, 1);
    use crate::FIVE as input;
    s + input
}

#[warp_kernel]
#[allow(unused_variables)]
fn shadowed_by_a_const(w: &Warp, input: u32) -> u32 {
    let s = w.shfl_xor(input + 1, 1);
    #[allow(non_upper_case_globals)]
    const input: u32 = 9;
    s + input
}

#[warp_kernel]
#[allow(unused_variables)]
fn shadowed_by_a_glob(w: &Warp, input: u32) -> u32 {
    let s = w.shfl_xor(input + 1, 1);
    use consts::*;
    s + input
}

/// A function item named like a parameter: inside the body, `input()` calls it.
#[warp_kernel]
#[allow(unused_variables)]
fn shadowed_by_a_fn(w: &Warp, input: u32) -> u32 {
    fn input() -> u32 {
        FIVE
    }
    w.shfl_xor(input() + 1, 1)
}

/// A value type of the signature.
#[derive(Clone, Copy)]
pub struct Val(pub u32);

/// A type of the same name as the signature's, inside the body.
#[warp_kernel]
fn shadows_a_signature_type(w: &Warp, x: Val) -> u32 {
    #[allow(dead_code)]
    struct Val(u64);
    w.shfl_xor(x.0, 1)
}

/// An item of a block inside lane code, named like a per-lane variable: the block reads the
/// item.
#[warp_kernel]
fn nested_items(w: &Warp, input: u32) -> u32 {
    let v = w.lane_id();
    let t = {
        #[allow(non_upper_case_globals)]
        const v: u32 = 9;
        v + 1
    };
    w.shfl_xor(t + v - v + input - input, 1)
}

/// A `use` in such a block, named like a parameter (a `use` may bring a value or not: the form
/// is declined).
#[warp_kernel]
fn nested_use(w: &Warp, input: u32) -> u32 {
    let u = {
        use consts::input;
        input + 1
    };
    w.shfl_xor(u + input - input, 1)
}

/// A module beside a per-lane variable of its name (the module is not a value: `v` is the
/// variable), and a macro statement that makes a constant of that name in a block (which the
/// macro cannot see: the form is declined).
macro_rules! makes_v {
    () => {
        #[allow(non_upper_case_globals)]
        const v: u32 = 9;
    };
}

#[warp_kernel]
fn items_of_other_namespaces(w: &Warp, x: u32) -> u32 {
    let v = x + 1;
    let t = {
        mod v {
            pub const K: u32 = 1;
        }
        v + v::K
    };
    w.shfl_xor(t, 1)
}

#[warp_kernel]
#[allow(unused_variables)]
fn macro_made_item(w: &Warp, x: u32) -> u32 {
    let v = x + 1;
    let t = {
        makes_v!();
        v + 1
    };
    w.shfl_xor(t, 1)
}

/// `!=` on per-lane variables in a macro's arguments (not a macro call `q!(..)`).
#[warp_kernel]
fn not_equal_in_an_assertion(w: &Warp, x: u32, d: u32) -> u32 {
    let q = x + 1;
    assert!(q != d);
    assert!(d != q);
    w.shfl_xor(q, 1)
}

#[test]
fn items_that_shadow_a_parameter_keep_the_per_lane_form() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let ex = both().races(false);
    let before = warpkit::wide_runs();
    // Inside the body `input` is the item: each lane shuffles `item + 1` and adds the item.
    assert_eq!(ex.run_with(&x, shadowed_by_a_use).unwrap(), [2 * FIVE + 1; 32]);
    assert_eq!(ex.run_with(&x, shadowed_by_a_const).unwrap(), [2 * 9 + 1; 32]);
    assert_eq!(ex.run_with(&x, shadowed_by_a_glob).unwrap(), [2 * consts::input + 1; 32]);
    assert_eq!(ex.run_with(&x, shadowed_by_a_fn).unwrap(), [FIVE + 1; 32]);
    assert_eq!(ex.run_with(&x.map(Val), shadows_a_signature_type).unwrap(), core::array::from_fn(|l| l as u32 ^ 1));
    assert_eq!(warpkit::wide_runs(), before, "no form");
    assert_eq!(ex.run_with(&x, nested_use).unwrap(), [consts::input + 1; 32]);
    assert_eq!(warpkit::wide_runs(), before, "no form");
    // An item of a nested block does not keep the form away: it reads it as the block does.
    assert_eq!(ex.run_with(&x, nested_items).unwrap(), [10; 32]);
    assert_eq!(warpkit::wide_runs(), before + 2, "nested_items ran in its form (with and without SIMD)");
    let before = warpkit::wide_runs();
    assert_eq!(ex.run_with(&x, items_of_other_namespaces).unwrap(), core::array::from_fn(|l| (l as u32 ^ 1) + 2));
    assert_eq!(warpkit::wide_runs(), before + 2, "items_of_other_namespaces ran in its form");
    let before = warpkit::wide_runs();
    assert_eq!(ex.run_with(&x, macro_made_item).unwrap(), [10; 32]);
    assert_eq!(warpkit::wide_runs(), before, "macro_made_item has no form");
    let before = warpkit::wide_runs();
    assert_eq!(ex.run_with(&x.map(|l| (l, 100)), async |w: &Warp<'_>, (x, d)| not_equal_in_an_assertion(w, x, d).await).unwrap(), core::array::from_fn(|l| (l as u32 ^ 1) + 1));
    let r = ex.run_with(&x.map(|l| (l, 5)), async |w: &Warp<'_>, (x, d)| not_equal_in_an_assertion(w, x, d).await);
    let Err(WarpError::LanePanicked { lane: 4, message, .. }) = &r else { panic!("{r:?}") };
    assert_eq!(message, "assertion failed: q != d");
    assert!(warpkit::wide_runs() >= before + 2, "not_equal_in_an_assertion ran in its form");
}

/// A `load` method of another type, which changes the value read before the call: per lane.
struct Counter(u32);

impl Counter {
    fn load(&mut self, by: u32) -> u32 {
        self.0 += by;
        self.0
    }
}

#[warp_kernel]
fn reads_then_loads(w: &Warp, x: u32) -> u32 {
    let mut c = Counter(x);
    c.0 + inner_sum(w, c.load(1))
}

/// Binds `$name` to a `Counter` (in the caller's scope: the name comes from the call site).
macro_rules! counter_named {
    ($name:ident, $v:expr) => {
        let mut $name = Counter($v);
    };
}

/// A macro binds the `GlobalSlice` parameter's name again, to a `Counter` whose `load` changes
/// the value read before it: the macro sees no `let` of it, but must not take it for the slice.
#[warp_kernel]
fn shadows_a_slice_in_a_macro(w: &Warp, input: GlobalSlice<'_, u32>, x: u32) -> u32 {
    let _ = input.len();
    counter_named!(input, x);
    input.0 + inner_sum(w, input.load(1))
}

// ---- cases from the review of 5568158 (each took a form and differed from the per-lane executor).

thread_local! {
    static TICKS: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
}

/// A field read that runs code: `Deref` to the ticks so far.
struct Ticks;

struct TickCount {
    now: u32,
}

impl core::ops::Deref for Ticks {
    type Target = TickCount;
    fn deref(&self) -> &TickCount {
        Box::leak(Box::new(TickCount { now: TICKS.with(|t| t.get()) }))
    }
}

const TICKS_NOW: Ticks = Ticks;

/// In a module of its own: a trait's `load` by value on `GlobalSlice`, in scope, is what every
/// `input.load(i)` of the file would call (method resolution picks it before the inherent one).
mod ticking {
    use super::*;

    /// A trait's `load` by value, which method resolution picks before `GlobalSlice`'s own.
    trait TickingLoad {
        fn load(self, i: usize) -> u32;
    }

    impl TickingLoad for GlobalSlice<'_, u32> {
        fn load(self, i: usize) -> u32 {
            TICKS.with(|t| t.set(t.get() + 1));
            i as u32
        }
    }

    /// Reads the ticks through a field, then calls with a load that ticks: per lane each lane reads
    /// the ticks of the lanes before it.
    #[warp_kernel]
    pub fn ticks_then_loads(w: &Warp, input: GlobalSlice<'_, u32>) -> u32 {
        let i = w.lane_id() as usize;
        TICKS_NOW.now + inner_sum(w, input.load(i))
    }
}

/// A type alias named `GlobalSlice` that is not warpkit's: its `load` changes the field read
/// before it.
mod aliased {
    pub type GlobalSlice<'a> = &'a mut super::Counter;
}

#[warp_kernel]
fn aliased_load(w: &Warp, c: aliased::GlobalSlice<'_>) -> u32 {
    c.0 + inner_sum(w, c.load(1))
}

/// `run` per lane and warp-wide, the ticks reset before each: equal results, and the count of
/// warp-wide runs (after the call sites settled).
fn ticks_agree(run: &dyn Fn(Executor) -> Result<[u32; 32], WarpError>) -> u64 {
    let ex = Executor::new().races(false);
    for _ in 0..4 {
        let _ = run(ex.wide(true));
    }
    TICKS.with(|t| t.set(0));
    let per_lane = run(ex.wide(false)).unwrap();
    TICKS.with(|t| t.set(0));
    let before = warpkit::wide_runs();
    let wide = run(ex.wide(true)).unwrap();
    let runs = warpkit::wide_runs() - before;
    assert_eq!(per_lane, wide, "the warp-wide values differ from the per-lane executor's");
    runs
}

#[test]
fn a_load_ahead_of_reads_that_run_code_keeps_the_per_lane_form() {
    let buf = GlobalBuffer::<u32>::zeroed(32);
    let s = buf.slice();
    assert_eq!(ticks_agree(&|ex| ex.run(async |w: &Warp<'_>| ticking::ticks_then_loads(w, s).await)), 1, "ticks_then_loads: the callee's form only");
    let aliased = |ex: Executor| {
        ex.run(async |w: &Warp<'_>| {
            let mut c = Counter(w.lane_id() * 10);
            aliased_load(w, &mut c).await
        })
    };
    assert_eq!(ticks_agree(&aliased), 1, "aliased_load: the callee's form only");
}

/// Loads in a `while` loop that counts its turns (`j += 1` at its top level): how many it takes
/// does not depend on memory, so the kernel has a form.
#[warp_kernel]
fn counted_loads(w: &Warp, x: u32, data: GlobalSlice<'_, u32>) -> u32 {
    let lane = w.lane_id() as usize;
    let mut j = 0;
    let mut acc = x;
    while j < 4 {
        acc = acc.wrapping_add(data.load(j * 32 + lane));
        acc = w.shfl_xor(acc, 1);
        j += 1;
    }
    acc
}

/// A `while` loop to a slice's length by a step fixed before it (a parameter), leaving early on
/// a vote of loaded values: its plain loads cannot wait for another warp (that would be a data
/// race), so the kernel has a form.
#[warp_kernel]
fn counts_to_len(w: &Warp, data: GlobalSlice<'_, u32>, step: usize) -> (u32, usize) {
    let lane = w.lane_id() as usize;
    let mut i = 0;
    let mut acc = 0u32;
    while i < data.len() {
        let v = if i + lane < data.len() { data.load(i + lane) } else { 0 };
        acc = acc.wrapping_add(w.shfl_xor(v, 1));
        let found = w.any(v > 150);
        if found {
            return (acc, i);
        }
        i += step;
    }
    (acc, i)
}

/// A count from a parameter by a parameter (both taken for uniform), whose turns the warp's
/// lane count bounds (a uniform `let` of a ballot's `count_ones`): an overflowing step panics
/// in the first lane to reach it, after the lanes before it ran their code, as per lane.
#[warp_kernel]
fn counts_from(w: &Warp, data: GlobalSlice<'_, u32>, start: usize, step: usize) -> (u32, usize, u32) {
    let lanes = w.ballot(true).count_ones();
    let turns = lanes.min(5).max(1);
    let lane = w.lane_id() as usize;
    let mut i = start;
    let mut acc = 0u32;
    let mut k = 0;
    while i < data.len() {
        let v = if i + lane < data.len() { data.load(i + lane) } else { 0 };
        acc = acc.wrapping_add(w.shfl_xor(v, 1));
        if k == turns || v == 96 {
            acc ^= 0x55;
        }
        // Each lane reads the count before the step (which the first lane computes).
        acc = acc.wrapping_add(i as u32);
        k += 1;
        i += step;
    }
    (acc, i, lanes)
}

/// The same loop with an atomic in it: an exit taken on an atomic's value may wait for another
/// warp, so the kernel keeps the per-lane form.
#[warp_kernel]
fn claims_to_len(w: &Warp, data: GlobalSlice<'_, u32>, step: usize) -> (u32, usize) {
    let lane = w.lane_id() as usize;
    let mut i = 0;
    let mut acc = 0u32;
    while i < data.len() {
        let v = if i + lane < data.len() { data.atomic_add(i + lane, 0) } else { 0 };
        acc = acc.wrapping_add(w.shfl_xor(v, 1));
        let found = w.any(v > 150);
        if found {
            return (acc, i);
        }
        i += step;
    }
    (acc, i)
}

/// A `while` loop whose count changes only when a load says so: it may wait for another warp's
/// write, so the kernel keeps the per-lane form.
#[warp_kernel]
fn waits_for_a_flag(w: &Warp, data: GlobalSlice<'_, u32>) -> u32 {
    let mut seen = 0;
    while seen < 1 {
        if data.load(0) == 1 {
            seen += 1;
        }
    }
    w.ballot(seen == 1)
}

/// A `while` loop that `continue`s past its count on a loaded value: per lane too.
#[warp_kernel]
fn skips_on_a_flag(w: &Warp, data: GlobalSlice<'_, u32>) -> u32 {
    let mut j = 0;
    while j < 2 {
        if data.load(0) == 0 {
            continue;
        }
        j += 1;
    }
    w.ballot(j == 2)
}

/// Calls a kernel with a form, then shuffles: a caller with a form of its own.
#[warp_kernel]
fn sum_then_swap(w: &Warp, x: u32) -> u32 {
    let s = inner_sum(w, x);
    w.shfl_xor(s ^ x, 1)
}

/// A call site stops looking for its callee's offer after 65,536 first polls of the callee
/// without one, but counts only runs with forms on (where a callee offers): more per-lane runs
/// than that leave it learning, and the caller's form runs once it has learnt.
#[test]
fn per_lane_runs_do_not_make_a_call_site_give_up() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 5 + 2);
    let per_lane = Executor::new().wide(false).races(false);
    let want = per_lane.run_with(&x, sum_then_swap).unwrap();
    for _ in 0..2100 {
        assert_eq!(per_lane.run_with(&x, sum_then_swap).unwrap(), want);
    }
    let ex = Executor::new().wide(true).races(false);
    assert_eq!(ex.run_with(&x, sum_then_swap).unwrap(), want);
    let before = warpkit::wide_runs();
    assert_eq!(ex.run_with(&x, sum_then_swap).unwrap(), want);
    assert_eq!(warpkit::wide_runs() - before, 2, "sum_then_swap and inner_sum");
}

// ---- cases from the review of the first version (each differed, hung or ran the wrong kernel).

#[warp_kernel]
fn inner_sum(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_xor(v, offset));
    }
    v
}

/// Calls a kernel that has a warp-wide form; itself has none. Started directly, the run must
/// not take the callee's form for the caller's.
#[warp_kernel]
fn mean_of(w: &Warp, x: u32) -> u32 {
    inner_sum(w, x) / 32
}

/// A uniform-looking variable assigned from an instruction is per lane.
#[warp_kernel]
fn accumulate(w: &Warp, x: u32) -> (u32, (u32, u32)) {
    let mut t = 0u32;
    t += w.redux_add(x);
    let mut p = (0u32, 0u32);
    p.0 = w.shfl_xor(x, 1);
    (t, p)
}

/// An assignment between two instructions of one expression.
#[warp_kernel]
fn assign_between(w: &Warp, x: u32) -> ((), u32, u32) {
    let mut v = x;
    let pair = (v = w.shfl_xor(v, 1), w.shfl_xor(v, 2), v);
    pair
}

/// A closure in a macro whose parameter is named like a per-lane variable.
#[warp_kernel]
fn closure_in_macro(w: &Warp, x: u32) -> u32 {
    assert!((0..4u32).map(|x: u32| x).sum::<u32>() == 6);
    w.shfl_xor(x, 1)
}

/// Lane code with a shared side effect on both sides of a uniform `let`: one loop over the
/// lanes, as the per-lane form runs it (each lane's `b - a` is 1); the `let` runs before it.
#[warp_kernel]
fn counted(w: &Warp, c: &core::cell::Cell<u32>) -> u32 {
    let a = c.get();
    c.set(a + 1);
    let one = 1;
    let b = c.get();
    c.set(b + one);
    w.redux_max(b - a)
}

/// The same with a uniform `let` that may panic (a division): it runs in the stretch's loop, in
/// the first lane that gets to it, and the stretch cannot read it after it, so the kernel has no
/// form.
#[warp_kernel]
fn counted_dividing(w: &Warp, c: &core::cell::Cell<u32>) -> u32 {
    let a = c.get();
    c.set(a + 1);
    let one = 3 / 2;
    let b = c.get();
    c.set(b + one);
    w.redux_max(b - a)
}

/// The same with the uniform `let` read only after the instruction.
#[warp_kernel]
fn counted_deferred(w: &Warp, c: &core::cell::Cell<u32>) -> u32 {
    let a = c.get();
    c.set(a + 1);
    let two = 2;
    let b = c.get();
    c.set(b + 1);
    w.redux_max(b - a) * two
}

// (Endless on purpose: the loop's condition never changes.)
#[allow(clippy::while_immutable_condition)]
#[warp_kernel]
fn endless(w: &Warp, x: u32) -> u32 {
    let n = 0u32;
    let mut v = x;
    while n < 1 {
        v = w.shfl_xor(v, 1);
    }
    v
}

#[test]
fn review_cases_agree() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 3 + 1);
    let ex = both().races(false);
    let sums = ex.run_with(&x, mean_of).unwrap();
    assert_eq!(sums[0], x.iter().sum::<u32>() / 32);
    let _ = ex.run_with(&x, accumulate);
    let _ = ex.run_with(&x, assign_between);
    let _ = ex.run_with(&x, closure_in_macro);
    let cell = core::cell::Cell::new(0);
    assert_eq!(ex.run_with(&[&cell; 32], counted).unwrap(), [1; 32]);
    assert_eq!(ex.run_with(&[&cell; 32], counted_dividing).unwrap(), [1; 32]);
    assert_eq!(ex.run_with(&[&cell; 32], counted_deferred).unwrap(), [2; 32]);
    // A per-lane kernel calling a warp-wide one many times in a row makes progress.
    let _ = ex.run_with(&x, async |w: &Warp<'_>, x: u32| {
        let mut s = 0u32;
        for _ in 0..1100 {
            s = s.wrapping_add(inner_sum(w, x).await);
        }
        s
    });
}

/// A uniform loop that never ends is ended by the time limit, warp-wide too.
#[test]
fn an_endless_uniform_loop_ends_at_the_time_limit() {
    let x = [1u32; 32];
    for wide in [false, true] {
        let err = Executor::new().wide(wide).time_limit(Some(std::time::Duration::from_millis(300))).run_with(&x, endless).unwrap_err();
        assert!(matches!(err, WarpError::TimeLimit { .. }), "wide {wide}: {err:?}");
    }
}

/// Each lane holds a `RefCell` borrow after the last instruction: the per-lane form drops it
/// when the lane returns, before the next lane runs; so must the warp-wide form.
#[warp_kernel]
fn guarded(w: &Warp, log: &core::cell::RefCell<Vec<u32>>) -> u32 {
    let s = w.redux_add(1u32);
    let mut g = log.borrow_mut();
    g.push(s);
    s
}

#[test]
fn a_lane_drops_its_values_when_it_returns() {
    for wide in [false, true] {
        let log = core::cell::RefCell::new(Vec::new());
        let before = warpkit::wide_runs();
        let out = Executor::new().wide(wide).races(false).run_with(&[&log; 32], guarded).unwrap();
        assert_eq!(warpkit::wide_runs() - before, wide as u64);
        assert_eq!(out, [32; 32]);
        assert_eq!(log.into_inner(), vec![32; 32]);
    }
}

// ---- cases from the review of this session's speed-ups (each differed, or failed to compile).

// The direct run takes the form the kernel's first lane offers, every time: kernels whose types
// print the same (two local `struct S`, two closures) or whose instantiations compile to the same
// code must each run their own (a per-thread cache keyed by the type's name did not).

pub trait Offset {
    const OFF: u32;
}

/// A generic kernel: its form (and the body behind it) depends on `T`.
#[warp_kernel]
fn shifted<T: Offset>(w: &Warp, x: u32) -> u32 {
    w.shfl_xor(x, T::OFF)
}

/// Two `struct S` in two blocks of one function: two types, one `type_name`, so `shifted::<S>`
/// prints the same for both.
#[test]
fn direct_runs_of_instantiations_named_alike() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let first = {
        struct S;
        impl Offset for S {
            const OFF: u32 = 1;
        }
        both().races(false).run_with(&x, shifted::<S>).unwrap()
    };
    assert_eq!(first[0], 1);
    let second = {
        struct S;
        impl Offset for S {
            const OFF: u32 = 16;
        }
        // Lane 0 reads lane 16.
        both().races(false).run_with(&x, shifted::<S>).unwrap()
    };
    assert_eq!(second[0], 16);
}

/// A generic kernel over the closure it is given (each closure its own instantiation).
#[warp_kernel]
fn apply<F: Fn(u32) -> u32 + Copy>(w: &Warp, f: F) -> u32 {
    let v = f(w.lane_id());
    w.redux_add(v)
}

/// Two closures of one function have one `type_name`, so `apply::<C1>` and `apply::<C2>` do too
/// (and in an optimized build their `entry_direct` instances are one function).
#[test]
fn direct_runs_of_two_closures() {
    let id = |l: u32| l;
    let twice = |l: u32| 2 * l;
    let ex = Executor::new().races(false);
    assert_eq!(ex.run_with(&[id; 32], apply).unwrap()[0], 496);
    let per_lane = ex.wide(false).run_with(&[twice; 32], apply).unwrap();
    let wide = ex.wide(true).run_with(&[twice; 32], apply).unwrap();
    assert_eq!(per_lane[0], 992);
    assert_eq!(wide, per_lane);
}

pub trait Arg {
    type In: Copy;
    fn get(x: Self::In) -> u32;
}

#[warp_kernel]
fn via<T: Arg>(w: &Warp, x: T::In) -> u32 {
    let v = T::get(x);
    w.redux_max(v)
}

/// The same with different argument types (`entry_direct::<u32, u32>` and `::<i32, u32>` are one
/// function in an optimized build).
#[test]
fn direct_runs_with_other_argument_types() {
    let ex = Executor::new().races(false);
    {
        struct S;
        impl Arg for S {
            type In = u32;
            fn get(x: u32) -> u32 {
                x / 2
            }
        }
        assert_eq!(ex.run_with(&[10u32; 32], via::<S>).unwrap()[0], 5);
    }
    struct S;
    impl Arg for S {
        type In = i32;
        fn get(x: i32) -> u32 {
            x.unsigned_abs()
        }
    }
    // The same `type_name` as the block's `S`.
    let per_lane = ex.wide(false).run_with(&[-4i32; 32], via::<S>).unwrap();
    let wide = ex.wide(true).run_with(&[-4i32; 32], via::<S>).unwrap();
    assert_eq!(wide, per_lane);
}

// A thread remembers the forms its direct runs took (by the kernel's future's `poll`), and its
// later direct runs of the kernel start the form without polling a lane: the same values, the
// same reports, and nothing skipped that a run of something else than the kernel would do.

/// A sum whose lanes past `x == 0` read an exited lane: a report, every run.
#[warp_kernel]
fn known_sum(w: &Warp, x: u32) -> u32 {
    if x == 0 {
        return 0;
    }
    let mut v = x;
    for k in [1, 2, 4, 8, 16] {
        v = v.wrapping_add(w.shfl_xor(v, k));
    }
    v
}

std::thread_local! {
    static WRAPPED: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
}

/// Not the kernel, though its future is the kernel's (an opaque type over it, with the same
/// `poll`): it counts its calls before it starts the kernel.
fn wrapped_sum<'a>(w: &'a Warp<'_>, x: u32) -> impl core::future::Future<Output = u32> + 'a {
    WRAPPED.with(|c| c.set(c.get() + 1));
    known_sum(w, x)
}

#[test]
fn direct_runs_start_a_known_form() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 3 + 1);
    let mut holed = x;
    holed[5] = 0;
    let ex = Executor::new().races(false);
    let per_lane = ex.wide(false).run_with(&x, known_sum);
    let per_lane_err = format!("{:?}", ex.wide(false).run_with(&holed, known_sum).unwrap_err());
    let ordered = Executor::new().races(false).order(LaneOrder::Seeded(7));
    let ordered_err = format!("{:?}", ordered.wide(false).run_with(&holed, known_sum).unwrap_err());
    let (learned, starts) = (warpkit::forms_learned(), warpkit::direct_starts());
    for round in 0..3 {
        assert_eq!(ex.run_with(&x, known_sum), per_lane, "round {round}");
        assert_eq!(format!("{:?}", ex.run_with(&holed, known_sum).unwrap_err()), per_lane_err, "round {round}");
        assert_eq!(format!("{:?}", ordered.run_with(&holed, known_sum).unwrap_err()), ordered_err, "round {round}: a seeded lane order");
        // Partial warps: the form's lanes are the launched ones.
        let partial = ex.run_partial(0x0000_ffff, async |w: &Warp<'_>| known_sum(w, w.lane_id() + 1).await);
        let partial_per_lane = ex.wide(false).run_partial(0x0000_ffff, async |w: &Warp<'_>| known_sum(w, w.lane_id() + 1).await);
        assert_eq!(format!("{partial:?}"), format!("{partial_per_lane:?}"), "round {round}: a partial warp");
    }
    // Every direct run started in the form; only the first learned it.
    assert_eq!(warpkit::direct_starts() - starts, 9);
    assert_eq!(warpkit::forms_learned() - learned, 1);
    // A function that is not the kernel runs its own code in each lane, though the kernel's form
    // is known and its future's is the kernel's.
    WRAPPED.with(|c| c.set(0));
    let starts = warpkit::direct_starts();
    assert_eq!(ex.run_with(&x, wrapped_sum), per_lane);
    assert_eq!(WRAPPED.with(|c| c.get()), 32);
    assert_eq!(warpkit::direct_starts(), starts);
    // A run that takes no forms does not start one it knows.
    let wide_before = warpkit::wide_runs();
    assert_eq!(ex.wide(false).run_with(&x, known_sum), per_lane);
    assert_eq!(warpkit::wide_runs(), wide_before);
    // Nor does a run with no lane launched (there is none to poll).
    let starts = warpkit::direct_starts();
    assert_eq!(ex.run_partial(0x0f0f_0f0f, known_count), ex.wide(false).run_partial(0x0f0f_0f0f, known_count));
    assert_eq!(ex.run_partial(0, known_count), ex.wide(false).run_partial(0, known_count));
    assert_eq!(warpkit::direct_starts() - starts, 1);
}

/// The launched lanes, counted.
#[warp_kernel]
fn known_count(w: &Warp) -> u32 {
    w.redux_add(1u32)
}

// A thread keeps the block and registers of its runs of one warp for the next (`Executor::run`,
// `run_with`, `run_partial`): each run on a warm thread gives what it gives on a fresh one, whatever ran
// before it there (reports, shared memory, races, traces, partial warps, other targets).

/// One run of each kind, its outcome printed.
/// Each lane stores its square into a shared array, when told to, and reads its mirror lane's.
async fn shared_squares(w: &Warp<'_>, store: bool) -> u32 {
    let (s, l) = (w.shared_array::<u32, 32>(), w.lane_id() as usize);
    if store {
        s.store(l, (l * l) as u32);
    }
    w.syncwarp().await;
    s.load(31 - l)
}

fn one_warp_runs() -> Vec<(&'static str, fn() -> String)> {
    fn x() -> [u32; 32] {
        core::array::from_fn(|l| l as u32 * 3 + 1)
    }
    vec![
        ("known_sum", || format!("{:?}", Executor::new().races(false).run_with(&x(), known_sum))),
        ("known_sum, an exited lane read", || {
            let mut holed = x();
            holed[5] = 0;
            format!("{:?}", Executor::new().races(false).run_with(&holed, known_sum))
        }),
        ("per lane, an exited lane read", || {
            let mut holed = x();
            holed[9] = 0;
            format!("{:?}", Executor::new().races(false).wide(false).run_with(&holed, known_sum))
        }),
        ("shared memory", || format!("{:?}", Executor::new().races(false).run_with(&[true; 32], shared_squares))),
        ("shared memory read before it is written", || format!("{:?}", Executor::new().races(false).run_with(&[false; 32], shared_squares))),
        ("a race", || {
            let buf = GlobalBuffer::<u32>::zeroed(1);
            format!("{:?}", Executor::new().races(true).run_with(&[buf.slice(); 32], racy))
        }),
        ("traced", || {
            let tracer = warpkit::trace::Tracer::new();
            let run = Executor::new().races(false).trace(&tracer).run_with(&x(), known_sum);
            format!("{run:?} {}", tracer.trace().to_html())
        }),
        ("warp 5", || format!("{:?}", Executor::new().races(false).warp_index(5).run(async |w: &Warp<'_>| w.warp_index() as u32 + w.shfl_idx(w.lane_id(), 3).await))),
        ("partial", || format!("{:?}", Executor::new().races(false).run_partial(0x00ff_00ff, async |w: &Warp<'_>| known_sum(w, w.lane_id() + 1).await))),
        ("sm_60", || format!("{:?}", Executor::new().races(false).target(Target::SM_60).run_with(&x(), known_sum))),
        ("a panic", || format!("{:?}", Executor::new().races(false).run(async |w: &Warp<'_>| if w.lane_id() == 7 { panic!("lane 7") } else { w.redux_add(1u32).await }))),
        ("a run inside a lane", || {
            format!(
                "{:?}",
                Executor::new().races(false).run(async |w: &Warp<'_>| {
                    let inner = Executor::new().races(false).run_with(&[w.lane_id() + 1; 32], known_sum).map_or(0, |r| r[0]);
                    inner + w.redux_add(1u32).await
                })
            )
        }),
    ]
}

#[test]
fn a_warm_thread_runs_as_a_fresh_one() {
    let runs = one_warp_runs();
    let fresh: Vec<String> = runs.iter().map(|&(_, run)| std::thread::spawn(run).join().unwrap()).collect();
    for (&(name, _), want) in runs.iter().zip(&fresh) {
        assert_ne!(want.len(), 0, "{name}");
    }
    // Twice through on one thread (each run after every kind of run), then backwards.
    let warm = std::thread::spawn(move || {
        let mut out = Vec::new();
        for pass in 0..3 {
            let order: Vec<usize> = if pass < 2 { (0..runs.len()).collect() } else { (0..runs.len()).rev().collect() };
            for i in order {
                out.push((pass, i, (runs[i].1)()));
            }
        }
        out
    })
    .join()
    .unwrap();
    for (pass, i, got) in warm {
        assert_eq!(got, fresh[i], "pass {pass}: {}", one_warp_runs()[i].0);
    }
}

// A lane's code runs as that lane for memory accesses (the race detector names it), also in a
// function the macro cannot see into.

/// A plain helper the macro cannot see into: a store to global memory.
fn put(s: GlobalSlice<'_, u32>, v: u32) {
    s.store(0, v);
}

/// Every lane stores to element 0 between two instructions: a race between the warp's threads.
#[warp_kernel]
fn racy(w: &Warp, s: GlobalSlice<'_, u32>) -> u32 {
    put(s, w.lane_id());
    w.redux_add(1u32)
}

#[test]
fn lane_code_memory_accesses_keep_their_lane() {
    let buf = GlobalBuffer::<u32>::zeroed(1);
    let s = buf.slice();
    let per_lane = Executor::new().races(true).wide(false).run_with(&[s; 32], racy);
    let before = warpkit::wide_runs();
    let wide = Executor::new().races(true).wide(true).run_with(&[s; 32], racy);
    assert_eq!(warpkit::wide_runs() - before, 1, "racy runs warp-wide");
    assert!(per_lane.is_err(), "per lane: {per_lane:?}");
    assert_eq!(format!("{per_lane:?}"), format!("{wide:?}"));
}

// The run's clock starts with the run (not at its 1024th step).

#[test]
fn time_limit_counts_the_first_steps() {
    let limit = std::time::Duration::from_millis(50);
    let started = std::time::Instant::now();
    let r = Executor::new().wide(false).races(false).time_limit(Some(limit)).run(async |w: &Warp<'_>| {
        let mut v = w.lane_id();
        // About 1100 steps, each spending ~0.3 ms in lane 0.
        for _ in 0..1100 {
            if w.lane_id() == 0 {
                let t = std::time::Instant::now();
                while t.elapsed() < std::time::Duration::from_micros(300) {}
            }
            v = w.shfl_xor(v, 1).await;
        }
        v
    });
    let took = started.elapsed();
    assert!(took > 4 * limit);
    assert!(matches!(r, Err(WarpError::TimeLimit { .. })), "a run of {took:?} under a limit of {limit:?} ended {:?}", r.map(|_| ()));
}

/// A handle method of the user's own that returns a borrow of the handle, kept in a per-lane
/// `let` across an instruction: the form's handles live as long as the form.
pub trait Me {
    fn me(&self) -> &Self;
}

impl Me for Warp<'_> {
    fn me(&self) -> &Self {
        self
    }
}

#[warp_kernel]
fn keeps_handle_borrow(w: &Warp, x: u32) -> u32 {
    let me = w.me();
    let v = w.shfl_xor(x, 1);
    v + me.lane_id()
}

#[test]
fn a_handle_borrow_kept_across_an_instruction() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let before = warpkit::wide_runs();
    let out = both().races(false).run_with(&x, keeps_handle_borrow).unwrap();
    assert_eq!(warpkit::wide_runs() - before, 2, "warp-wide, with the portable code and the vector units");
    assert_eq!(out[3], 2 + 3);
}

// ---- cases from the second review (each differed, or was unsound).

// An isolated run's flight recorder names the lane a form was running when it died.

/// Lane 5 dies between two instructions (an abort: what an isolated run is for).
#[warp_kernel]
fn aborts_in_lane_five(w: &Warp, x: u32) -> u32 {
    let v = w.shfl_xor(x, 1);
    if w.lane_id() == 5 {
        std::process::abort();
    }
    w.redux_add(v)
}

/// The child's `Aborted` report names the lane it was running: lane 5, both ways (the form keeps
/// its lane apart from the registers; the recorder asks for the running lane).
#[test]
fn isolated_abort_names_the_lane_that_died() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let lane_of = |wide: bool| {
        let err = Executor::new().races(false).wide(wide).isolated(true).run_with(&x, aborts_in_lane_five).unwrap_err();
        match &err {
            WarpError::Aborted { lane, .. } => *lane,
            other => panic!("wide {wide}: {other:?}"),
        }
    };
    let per_lane = lane_of(false);
    let wide = lane_of(true);
    assert_eq!(per_lane, Some(5));
    assert_eq!(wide, per_lane, "the warp-wide child's report names another lane");
}

// The instructions of short forms count toward the run's clock.

#[warp_kernel]
fn five_shuffles(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for offset in [16, 8, 4, 2, 1] {
        v = v.wrapping_add(w.shfl_xor(v, offset));
    }
    v
}

/// A per-lane kernel that calls a warp-wide kernel 600 times, lane 0 spending 0.5 ms per call:
/// about 300 ms under a limit of 50 ms. Per lane, each call is five steps, and the run's clock,
/// read every 1024 steps, ends the run; warp-wide, each call's five instructions count on the
/// run's one counter too.
#[test]
fn short_forms_count_toward_the_time_limit() {
    let limit = std::time::Duration::from_millis(50);
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    for wide in [false, true] {
        let started = std::time::Instant::now();
        let before = warpkit::wide_runs();
        let r = Executor::new().wide(wide).races(false).time_limit(Some(limit)).run_with(&x, async |w: &Warp<'_>, x: u32| {
            let mut s = x;
            for _ in 0..600 {
                if w.lane_id() == 0 {
                    let t = std::time::Instant::now();
                    while t.elapsed() < std::time::Duration::from_micros(500) {}
                }
                s = five_shuffles(w, s).await;
            }
            s
        });
        let took = started.elapsed();
        let forms = warpkit::wide_runs() - before;
        assert!(matches!(r, Err(WarpError::TimeLimit { .. })), "wide {wide} ({forms} forms): a run of {took:?} under a limit of {limit:?} ended {:?}", r.map(|_| ()));
    }
}

// A form in a grid reads the grid's clock.

// (Endless on purpose: the loop's condition never changes.)
#[allow(clippy::while_immutable_condition)]
#[warp_kernel]
fn endless_in_a_grid(w: &Warp, x: u32) -> u32 {
    let n = 0u32;
    let mut v = x;
    while n < 1 {
        v = w.shfl_xor(v, 1);
    }
    v
}

/// A one-warp grid under a limit of 200 ms: lane 0 first computes for 150 ms, then the warp
/// enters an endless uniform loop. Both ways the grid's clock (started with the launch) ends it
/// at about 200 ms (a form with a clock of its own ran about 350).
#[test]
fn a_form_in_a_grid_keeps_the_grids_time_limit() {
    let limit = std::time::Duration::from_millis(200);
    for wide in [false, true] {
        let started = std::time::Instant::now();
        let r = Grid::new(32).executor(Executor::new().wide(wide).races(false).time_limit(Some(limit))).run(async |w: &Warp<'_>| {
            if w.lane_id() == 0 {
                let t = std::time::Instant::now();
                while t.elapsed() < std::time::Duration::from_millis(150) {}
            }
            let _ = endless_in_a_grid(w, 1).await;
        });
        let took = started.elapsed();
        let Err(WarpError::TimeLimit { elapsed, .. }) = r else { panic!("wide {wide}: {r:?}") };
        assert!(took < limit + std::time::Duration::from_millis(120), "wide {wide}: the launch ran {took:?} under a limit of {limit:?} (the report says {elapsed:?})");
    }
}

// A user's own `WideInstr` (a public trait) cannot make `issue` call a result slot set that no
// value was written to: results go in place only for `u32`, `i32` and `f32` by their types' names.

mod unsound {
    use warpkit::wide::{self, Lanes, ShflOwn, WideCtx, WideInstr, B};
    use warpkit::{Decode, Op, ShflMode, Warp, WarpError};

    pub struct AsString;
    impl Decode for AsString {
        type Output = String;
        fn decode(_: u64, _: bool) -> String {
            String::new()
        }
    }

    /// `shfl.idx` with the results "in place" in a buffer of its own.
    pub struct Evil;
    impl WideInstr<u32> for Evil {
        type Out = AsString;
        fn op(&self) -> Op {
            Op::Shfl { mode: ShflMode::Idx, words: 1 }
        }
        fn key(&self, w: &Warp<'_>, b: u32) -> u64 {
            <ShflOwn as WideInstr<u32>>::key(&ShflOwn(ShflMode::Idx), w, b)
        }
        fn bits(v: &u32) -> u64 {
            *v as u64
        }
    }

    std::thread_local! {
        pub static SET: core::cell::Cell<Option<u32>> = const { core::cell::Cell::new(None) };
    }

    fn body(ctx: &mut WideCtx<'_, '_>, _: &mut Lanes<()>, outs: &mut Lanes<u32>) -> Result<(), WarpError> {
        let mut a = Lanes::new();
        a.fill(|l| l);
        let mut out: Lanes<String> = Lanes::new();
        ctx.issue(&Evil, wide::site(), &a, B::None, &mut out)?;
        // Every lane's `String` decoded and written (no slot marked set without a value).
        SET.with(|s| s.set(Some(out.lanes())));
        assert!((0..32).all(|l| out.take(l).is_empty()));
        outs.fill(|_| 0);
        for l in 0..32 {
            ctx.ret(outs, l, 0);
        }
        Ok(())
    }

    pub async fn kernel(w: &Warp<'_>) -> u32 {
        match wide::offer(w, body, (), "review_two::unsound::kernel", wide::Needs::default(), None).await {
            Ok(r) => r,
            Err(()) => 0,
        }
    }
}

#[test]
fn safe_code_cannot_mark_uninitialized_lanes_set() {
    let _ = Executor::new().wide(true).races(false).run(async |w: &Warp<'_>| unsound::kernel(w).await);
    let set = unsound::SET.with(|s| s.get());
    assert_eq!(set, Some(u32::MAX), "every lane's result written by its decoding");
}

// A uniform statement between lane code that can panic runs in the first lane that gets to it.


/// At `k == 0`, lane 0 would return after the uniform `let d = 100 / k;`, which panics first:
/// lane 0 panics, the other lanes have not run the stretch (run after the stretch's loop, the
/// statement was lane 1's, lane 0 having returned).
#[warp_kernel]
fn deferred_division(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    for k in [1u32, 0] {
        v = v.wrapping_add(1);
        let d = 100 / k;
        if k == 0 && w.lane_id() == 0 {
            return v;
        }
        v = w.shfl_xor(v, 1);
        v = v.wrapping_add(d);
    }
    v
}

#[test]
fn a_uniform_panic_between_lane_code_is_the_first_lanes() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let before = warpkit::wide_runs();
    let _ = both::both().races(false).run_with(&x, deferred_division);
    assert!(warpkit::wide_runs() > before, "runs warp-wide");
}

/// A uniform statement that cannot panic runs after the loop; one that can, and reads what the
/// first changes, would read it too early: the kernel gets no form, and runs per lane.
#[warp_kernel]
fn halves_then_divides(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let mut s = 8u32;
    while s > 0 {
        v = v.wrapping_add(w.shfl_xor(v, s));
        v ^= 1;
        s /= 2;
        let q = 64 / (s + 1);
        v = v.wrapping_add(q);
    }
    v
}

#[test]
fn uniform_statements_in_order() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 3);
    let _ = both().races(false).run_with(&x, halves_then_divides).unwrap();
}


// A vote's result kept a scalar (a branch on it is uniform) holds for the whole warp's handle
// only: a kernel given a tile's handle runs per lane, each tile with its own vote.

#[warp_kernel]
fn vote_branch(w: &Warp, x: u32) -> u32 {
    let big = w.any(x > 50);
    let mut v = x;
    if big {
        v = w.shfl_xor(v, 1);
    }
    v
}

#[test]
fn a_uniform_vote_needs_the_whole_warp() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 3);
    let before = warpkit::wide_runs();
    let whole = both().run_with(&x, vote_branch).unwrap();
    assert!(warpkit::wide_runs() - before >= 1, "the whole warp's call runs warp-wide");
    assert_eq!(whole, core::array::from_fn(|l| x[l ^ 1]));
    let before = warpkit::wide_runs();
    let tiles = both().run_with(&x, async |w: &Warp<'_>, x| vote_branch(&w.tile(16), x).await).unwrap();
    assert_eq!(warpkit::wide_runs(), before, "a tile's call runs per lane");
    // Lanes 0-15 hold 0..=45, none above 50; lanes 16-31 hold 48..=93.
    assert_eq!(tiles, core::array::from_fn(|l| if l < 16 { x[l] } else { x[l ^ 1] }));
}

// ---- cases from the review of handle queries and uniform statements before their stretch
// (each differed, or failed to compile: a uniform `let` run before its stretch's loop changed
// what the stretch's other uniform statements saw; an assignment that runs user code was run
// before the lanes it belongs among; a field read through a user's `Deref` ran once; a `b`
// operand that changes the shuffled variable after its value was taken).

#[warp_kernel]
#[allow(unused_assignments, unused_variables, unused_mut)]
fn hoist_over_panicking_assign(w: &Warp, x: u32) -> u32 {
    let mut n = 1u32;
    let v = x + 1;
    n += 2;
    let mut n = 7u32;
    let s = w.shfl_xor(v, 1);
    s + n
}

#[warp_kernel]
fn hoist_under_deferred_let(w: &Warp, x: u32) -> u32 {
    let d = 5u32;
    let v = x + 1;
    let _n = 10 / d;
    let n = 7u32;
    let s = w.shfl_xor(v, 1);
    s + n
}

#[warp_kernel]
fn hoist_past_panicking_read(w: &Warp, x: u32) -> u32 {
    let mut n = 1u32;
    let v = x + 1;
    let k = n * 3;
    n = 5;
    w.shfl_xor(v, 1) + k + n
}

#[warp_kernel]
fn hoist_shadows_panicking_read(w: &Warp, x: u32) -> u32 {
    let n = 1u32;
    let v = x + 1;
    let k = n * 3;
    let n = 5u32;
    w.shfl_xor(v, 1) + k + n
}

#[warp_kernel]
fn hoist_before_deferred_read(w: &Warp, x: u32) -> u32 {
    let a = 1u32;
    let mut q = 2u32;
    let v = x + a;
    let a = q;
    q = 9;
    w.shfl_xor(v, 1) + a + q
}

fn three() -> u32 {
    3
}

/// A uniform `let` that shadows a function the stretch calls before it (this stopped compiling
/// when such `let`s ran before the loop: the call named the `u32`).
#[warp_kernel]
fn hoist_shadows_fn(w: &Warp, x: u32) -> u32 {
    let v = x + three();
    let three = 7u32;
    w.shfl_xor(v, 1) + three
}

#[warp_kernel]
fn operand_changed_by_b(w: &Warp, x: u32) -> u32 {
    let mut v = x;
    let s = w.shfl_xor(v, {
        v += 1;
        1
    });
    s ^ v
}

static DEREFS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

pub struct Limits {
    pub n: u32,
}

/// A constant whose fields are read through a counting `Deref`.
pub struct Counted(Limits);

impl core::ops::Deref for Counted {
    type Target = Limits;
    fn deref(&self) -> &Limits {
        DEREFS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        &self.0
    }
}

const LIMIT: Counted = Counted(Limits { n: 2 });

#[warp_kernel]
fn deref_in_uniform_loop(w: &Warp, x: u32) -> u32 {
    let before = DEREFS.load(std::sync::atomic::Ordering::Relaxed);
    let mut v = x;
    for _ in 0..LIMIT.n {
        v = w.shfl_xor(v, 1).wrapping_add(1);
    }
    v.wrapping_add(DEREFS.load(std::sync::atomic::Ordering::Relaxed) - before)
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Flags(pub u32);

/// User code behind `&=`, which panics when no flag is left.
impl core::ops::BitAndAssign for Flags {
    fn bitand_assign(&mut self, other: Flags) {
        assert!(other.0 != 0, "no flags left");
        self.0 &= other.0;
    }
}

const NO_FLAGS: Flags = Flags(0);
const ALL_FLAGS: Flags = Flags(!0);

#[warp_kernel]
fn user_bitand(w: &Warp, x: u32) -> u32 {
    let mut f = ALL_FLAGS;
    let a = x + 1;
    let v = w.shfl_xor(a, 1);
    let b = v + 1;
    f &= NO_FLAGS;
    w.shfl_xor(b, 2) + f.0
}

#[test]
fn uniform_statements_before_their_stretch_agree() {
    let x: [u32; 32] = core::array::from_fn(|i| (i as u32).wrapping_mul(2_654_435_761) >> 7);
    let ex = both().races(false);
    assert_eq!(ex.run_with(&x, hoist_under_deferred_let).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 1 + 7));
    assert_eq!(ex.run_with(&x, hoist_shadows_panicking_read).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 1 + 3 + 5));
    assert_eq!(ex.run_with(&x, hoist_over_panicking_assign).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 1 + 7));
    assert_eq!(ex.run_with(&x, hoist_past_panicking_read).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 1 + 3 + 5));
    assert_eq!(ex.run_with(&x, hoist_before_deferred_read).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 1 + 2 + 9));
    assert_eq!(ex.run_with(&x, hoist_shadows_fn).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 3 + 7));
    assert_eq!(ex.run_with(&x, operand_changed_by_b).unwrap(), core::array::from_fn(|l| x[l ^ 1] ^ (x[l] + 1)));
    let _ = ex.run_with(&x, deref_in_uniform_loop).unwrap();
    let err = ex.run_with(&x, user_bitand).unwrap_err();
    assert!(matches!(err, WarpError::LanePanicked { lane: 0, .. }), "{err}");
}

// ---- cases from the second review of uniform `let`s before their stretch (each differed, or
// stopped compiling): a `let` of a name's value was run before the loop (a move before the
// stretch's borrow; a constant with a `Drop` made uniform, so that its reassignment dropped
// once), and a uniform `let` named as the handle sat under each stretch's handle.

static DROPS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Counts its drops.
pub struct Noisy(pub u32);

impl Drop for Noisy {
    fn drop(&mut self) {
        DROPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

const NOISY: Noisy = Noisy(3);

#[warp_kernel]
#[allow(unused_assignments)]
fn assign_const_with_drop(w: &Warp, x: u32) -> u32 {
    let before = DROPS.load(std::sync::atomic::Ordering::Relaxed);
    let mut g = NOISY;
    let v = x + 1;
    g = NOISY;
    let s = w.shfl_xor(v, 1);
    s.wrapping_add(DROPS.load(std::sync::atomic::Ordering::Relaxed).wrapping_sub(before)) + g.0
}

pub struct Name(pub u32);

pub const NAME: Name = Name(4);

fn len_of(n: &Name) -> u32 {
    n.0
}

#[warp_kernel]
fn hoist_moves_borrowed(w: &Warp, x: u32) -> u32 {
    let s = NAME;
    let v = x + len_of(&s);
    let t = s;
    w.shfl_xor(v, 1) + len_of(&t)
}

#[warp_kernel]
fn shadow_handle_query(w: &Warp, x: u32) -> u64 {
    let v = x + 1;
    let w = w.warp_index();
    v as u64 + w
}

#[warp_kernel]
fn shadow_handle_literal(w: &Warp, x: u32) -> u32 {
    let s = w.shfl_xor(x, 1);
    let v = s + 1;
    let w = 2u32;
    v * w
}

#[warp_kernel]
fn loop_variable_shadows_handle(w: &Warp, x: u32) -> u32 {
    let mut v = w.shfl_xor(x, 1);
    for w in 0..3u32 {
        v += w;
    }
    v
}

#[test]
fn uniform_lets_of_values_and_handle_names_agree() {
    let x: [u32; 32] = core::array::from_fn(|i| (i as u32).wrapping_mul(2_654_435_761) >> 7);
    let ex = both().races(false);
    // Per lane, each lane's `g = NOISY` drops the `NOISY` it held: lane `l` saw `l` drops before.
    let out = ex.run_with(&x, assign_const_with_drop).unwrap();
    assert!(out.iter().enumerate().all(|(l, &o)| o >= x[l ^ 1] + 1 + 3), "{out:?}");
    assert_eq!(ex.run_with(&x, hoist_moves_borrowed).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 4 + 4));
    assert_eq!(ex.warp_index(6).run_with(&x, shadow_handle_query).unwrap(), core::array::from_fn(|l| x[l] as u64 + 1 + 6));
    assert_eq!(ex.run_with(&x, shadow_handle_literal).unwrap(), core::array::from_fn(|l| (x[l ^ 1] + 1) * 2));
    assert_eq!(ex.run_with(&x, loop_variable_shadows_handle).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 3));
}

// Older gaps the second review found: a constant of a type with a `Drop`, bound by a uniform
// `let`, was one value for the warp (dropped once; a panicking `Drop` blamed on the last lane,
// or hiding a report). Such a form is offered only when the constant's type is `Copy`.

#[warp_kernel]
fn const_with_drop(w: &Warp, x: u32) -> u32 {
    let before = DROPS.load(std::sync::atomic::Ordering::Relaxed);
    let v = x + 1;
    let g = NOISY;
    let s = w.shfl_xor(v, 1);
    s.wrapping_add(DROPS.load(std::sync::atomic::Ordering::Relaxed).wrapping_sub(before)) + g.0
}

/// Panics when dropped (not while unwinding).
pub struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            panic!("bomb dropped");
        }
    }
}

const BOMB: Bomb = Bomb;

#[warp_kernel]
fn const_with_panicking_drop(w: &Warp, x: u32) -> u32 {
    if x % 3 == 0 {
        return x;
    }
    let v = x + 1;
    let _b = BOMB;
    w.shfl_xor(v, 1)
}

#[warp_kernel]
fn const_with_panicking_drop_plain(w: &Warp, x: u32) -> u32 {
    let v = x + 1;
    let _b = BOMB;
    w.shfl_xor(v, 1)
}

const SHIFT: (u32, u32) = (1, 2);

/// A `Copy` constant bound by a uniform `let` keeps the form.
#[warp_kernel]
fn copy_const(w: &Warp, x: u32) -> u32 {
    let s = SHIFT;
    let v = x + 1;
    w.shfl_xor(v, s.0) + s.1
}

#[test]
fn lets_of_constants_with_a_drop_run_per_lane() {
    let x: [u32; 32] = core::array::from_fn(|i| (i as u32).wrapping_mul(2_654_435_761) >> 7);
    let ex = both().races(false);
    let wide = |f: &dyn Fn()| {
        let before = warpkit::wide_runs();
        f();
        warpkit::wide_runs() - before
    };
    // Lane `l` saw the drops of the lanes before it, which returned first.
    let out = ex.run_with(&x, const_with_drop).unwrap();
    assert_eq!(out, core::array::from_fn(|l| x[l ^ 1] + 1 + l as u32 + 3));
    let err = ex.run_with(&x, const_with_panicking_drop_plain).unwrap_err();
    assert!(matches!(err, WarpError::LanePanicked { lane: 0, .. }), "{err}");
    let small: [u32; 32] = core::array::from_fn(|i| i as u32);
    let _ = ex.run_with(&small, const_with_panicking_drop).unwrap_err();
    assert_eq!(ex.run_with(&x, copy_const).unwrap(), core::array::from_fn(|l| x[l ^ 1] + 1 + 2));
    let on = Executor::new().races(false);
    assert_eq!(wide(&|| drop(on.run_with(&x, const_with_drop))), 0, "a constant with a Drop: per lane");
    assert_eq!(wide(&|| drop(on.run_with(&x, copy_const))), 1, "a Copy constant: warp-wide");
}

// ---- calls of warp functions in forms: a caller's form runs its callees' forms.

/// A callee with a uniform parameter (`rounds`, a loop bound).
#[warp_kernel]
fn callee_rounds(w: &Warp, x: u32, rounds: u32) -> u32 {
    let mut v = x;
    for r in 0..rounds {
        v = v.wrapping_add(w.shfl_xor(v, 1 << (r % 5)));
    }
    if v % 11 == 3 {
        v += 1;
    }
    v ^ w.ballot(v % 2 == 0)
}

/// A callee whose lanes may return before its last instruction: per lane, such a lane goes on
/// in its caller, and the callee's ballot waits for it. Its form is taken only at a run's entry
/// (where returning is exiting); its callers keep the per-lane form.
#[warp_kernel]
fn callee_returns_early(w: &Warp, x: u32) -> u32 {
    let v = w.shfl_xor(x, 1);
    if v % 11 == 3 {
        return v;
    }
    v ^ w.ballot(v % 2 == 0)
}

#[warp_kernel]
fn caller_of_early(w: &Warp, x: u32) -> u32 {
    let a = callee_returns_early(w, x);
    w.shfl_idx(a, 0)
}

/// Tail calls of `callee_returns_early` (each the caller's last act): a lane that returns from
/// it returns from every caller at once, so behind them returning is exiting, as at the entry.
#[warp_kernel]
fn tail_of_early(w: &Warp, x: u32) -> u32 {
    callee_returns_early(w, x ^ 1)
}

#[warp_kernel]
fn tail_of_tail(w: &Warp, x: u32) -> u32 {
    tail_of_early(w, x.wrapping_mul(3))
}

/// Atomics as lane code: lanes with `x % 5 == 0` return first; the others add to a counter
/// between two instructions, take its old value, and vote; a `red` after the last instruction.
/// The old values show the order of the lanes' atomics. (An atomic before the first
/// instruction would keep the kernel per lane: there it would run next to its caller's code.)
#[warp_kernel]
fn tally(w: &Warp, x: u32, counts: GlobalSlice<'_, u32>) -> u32 {
    if x % 5 == 0 {
        return 0;
    }
    let active = w.activemask();
    let old = counts.atomic_add((x % 4) as usize, x);
    let peers = w.group(active).match_any(x % 4);
    counts.red_max(4, old);
    old ^ peers
}

/// `tally` behind a tail call, with an argument computed first.
#[warp_kernel]
fn tally_tail(w: &Warp, x: u32, counts: GlobalSlice<'_, u32>) -> u32 {
    let y = x.wrapping_add(w.lane_id());
    tally(w, y, counts)
}

/// `tally`, then an atomic: not a last call (per lane, a lane that returned from `tally` early
/// takes its ticket before the others have left `tally`), so `tally`'s form is declined here.
#[warp_kernel]
fn tally_then(w: &Warp, x: u32, counts: GlobalSlice<'_, u32>) -> u32 {
    let t = tally(w, x, counts);
    t.wrapping_add(counts.atomic_add(5, 1))
}

/// `tally`, then only plain lane code (a store of the lane's own element): a last call, though
/// not a tail call.
#[warp_kernel]
fn tally_store(w: &Warp, x: u32, counts: GlobalSlice<'_, u32>, out: GlobalSlice<'_, u32>) {
    let t = tally(w, x, counts);
    let lane = w.lane_id() as usize;
    out.store(lane, t ^ 5);
}

/// `tally`, then a warp instruction: not a last call, so `tally`'s form is declined here (per
/// lane, a lane that returned from `tally` early reaches the shuffle while the others are still
/// in `tally`).
#[warp_kernel]
fn tally_then_shuffle(w: &Warp, x: u32, counts: GlobalSlice<'_, u32>) -> u32 {
    let t = tally(w, x, counts);
    w.shfl_xor(t, 1)
}

/// An atomic in a loop that could spin (a `while` on a value another lane may write): the kernel
/// keeps the per-lane form, whose atomics are scheduling points.
#[warp_kernel]
fn spins_on_an_atomic(w: &Warp, counts: GlobalSlice<'_, u32>) -> u32 {
    let mut turns = 0;
    while counts.atomic_add(6, 1) < 64 {
        turns += 1;
    }
    w.redux_add(turns)
}

/// A callee that panics for some values, and one whose vote keeps its result a scalar (its
/// form needs every lane's handle to be the whole warp's).
#[warp_kernel]
fn callee_panics(w: &Warp, x: u32) -> u32 {
    let v = w.shfl_down(x, 1);
    if v == 77 {
        panic!("callee lane got 77");
    }
    v
}

#[warp_kernel]
fn callee_vote(w: &Warp, x: u32) -> u32 {
    let any = w.any(x > 1000);
    let mut r = x;
    if any {
        r = w.redux_add(x);
    }
    r
}

/// Calls with per-lane and uniform arguments, a call in a uniform loop, calls before and after
/// instructions, lanes returning before a call, and calls in an expression.
#[warp_kernel]
fn caller(w: &Warp, x: u32, stop: u32) -> (u32, u32, u32) {
    if x % 13 == stop {
        return (x, 0, 0);
    }
    let a = callee_rounds(w, x + 1, 3);
    let mut b = w.shfl_up(a, 2);
    for k in 0..2 {
        b = callee_rounds(w, b ^ k, k + 1);
    }
    let c = callee_vote(w, a) + callee_panics(w, b % 70);
    (a, b, c)
}

/// Calls that hand the callee a tile of the handle: a tile bound by a `let` and one written in
/// the call; a callee that takes its group's width for uniform (`shaped`: the caller's form then
/// needs the whole warp's handles, whose tiles all have one shape); lanes returning before the
/// calls; the tile's own instruction after them.
#[warp_kernel]
fn tile_caller(w: &Warp, x: u32, stop: u32) -> (u32, u32, u32) {
    if x % 13 == stop {
        return (x, 0, 0);
    }
    let t = w.tile(8);
    let a = callee_rounds(&t, x + 1, 2);
    let b = shaped(&w.tile(16), a);
    let c = w.shfl_xor(b, 8).wrapping_add(t.shfl_idx(a, 3));
    (a, b, c)
}

/// A tile handed to a callee whose form keeps a vote's result a scalar (it needs the whole
/// warp's handles): the caller has no form to offer, and runs per lane.
#[warp_kernel]
fn tile_vote_caller(w: &Warp, x: u32) -> u32 {
    let t = w.tile(8);
    callee_vote(&t, x) + w.shfl_xor(x, 1)
}

/// A caller of the scan example's `tile_prefix_sums`, whose tile calls need the whole warp's
/// handles: that passes on to its callers.
#[warp_kernel]
fn tile_caller_caller(w: &Warp, x: u32) -> u32 {
    let r = scan::tile_prefix_sums(w, x);
    w.redux_xor(r[0].0 ^ r[1].1)
}

/// The same callee, a uniform parameter passed per lane: the callee's offer then needs the
/// lanes' values to agree, which the caller cannot promise: the caller stays per lane.
#[warp_kernel]
fn caller_per_lane_rounds(w: &Warp, x: u32) -> u32 {
    let a = callee_rounds(w, x, x % 2 + 1);
    w.shfl_idx(a, 0)
}

/// Two instantiations of a generic caller, each learning its callee's.
#[warp_kernel]
fn generic_callee<T: WarpValue + core::ops::BitXor<Output = T>>(w: &Warp, x: T) -> T {
    x ^ w.shfl_xor(x, 3)
}

#[warp_kernel]
fn generic_caller<T: WarpValue + core::ops::BitXor<Output = T>>(w: &Warp, x: T) -> (T, T) {
    let y = generic_callee(w, x);
    (y, generic_callee(w, y))
}

/// A callee returning a value that is not `Copy`, taken by the caller once per lane.
#[warp_kernel]
fn callee_string(w: &Warp, x: u32) -> String {
    let v = w.shfl_xor(x, 16);
    v.to_string()
}

#[warp_kernel]
fn caller_string(w: &Warp, x: u32) -> usize {
    let s = callee_string(w, x);
    let longest = w.redux_max(s.len() as u32);
    s.len() + longest as usize
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn calls_agree(xs in proptest::collection::vec(0u32..200, 32), stop in 0u32..16, n in 1u32..=32, target in targets(), order in orders(), races in any::<bool>()) {
        let ex: Both = both().target(target).order(order).races(races);
        let x = lanes(xs);
        let _ = ex.run(async |w: &Warp<'_>| caller(w, x[w.lane_id() as usize], stop).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| caller(w, x[w.lane_id() as usize], stop).await);
        let _ = ex.run_with(&x, caller_per_lane_rounds);
        let _ = ex.run_with(&x, generic_caller::<u32>);
        let _ = ex.run_with(&x.map(|v| v as i64 - 100), generic_caller::<i64>);
        let _ = ex.run_with(&x, caller_string);
        let _ = ex.run_with(&x, caller_of_early);
        let data = GlobalBuffer::<u32>::from_slice(&(0..128).map(|i| x[i % 32].wrapping_mul(i as u32)).collect::<Vec<_>>());
        let d = data.slice();
        let _ = ex.run_with(&x, async |w: &Warp<'_>, v| counted_loads(w, v, d).await);
        let _ = ex.run_with(&x, tail_of_early);
        let _ = ex.run_with(&x, tail_of_tail);
        let _ = ex.run(async |w: &Warp<'_>| tail_of_tail(w, x[w.lane_id() as usize]).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| tail_of_tail(w, x[w.lane_id() as usize]).await);
        // Atomics: the counters and every lane's old value agree (per lane the atomics do not
        // pause on sm_70+ in a kernel with a form, so the lanes' atomics interleave alike).
        let ex1 = Executor::new().target(target).order(order).races(races);
        for k in 0..5 {
            let _ = both::compare(
                |ex| {
                    let (buf, out) = (GlobalBuffer::<u32>::zeroed(8), GlobalBuffer::<u32>::zeroed(32));
                    let (c, o) = (buf.slice(), out.slice());
                    let r = match k {
                        0 => ex.run(async |w: &Warp<'_>| tally(w, x[w.lane_id() as usize], c).await),
                        1 => ex.run(async |w: &Warp<'_>| tally_tail(w, x[w.lane_id() as usize], c).await),
                        2 => ex.run(async |w: &Warp<'_>| tally_then(w, x[w.lane_id() as usize], c).await),
                        3 => ex.run(async |w: &Warp<'_>| {
                            tally_store(w, x[w.lane_id() as usize], c, o).await;
                            0
                        }),
                        _ => ex.run(async |w: &Warp<'_>| tally_then_shuffle(w, x[w.lane_id() as usize], c).await),
                    };
                    r.map(|r| (r, buf.to_vec(), out.to_vec()))
                },
                ex1,
            );
        }
        let _ = ex.run_with(&x, callee_returns_early);
        let _ = ex.run(async |w: &Warp<'_>| callee_returns_early(w, x[w.lane_id() as usize]).await);
        // A tile's lanes: `callee_vote` needs whole-warp handles, so the caller's form (which
        // hands its handle on) is declined, and everything runs per lane.
        let _ = ex.run(async |w: &Warp<'_>| caller(&w.tile(8), x[w.lane_id() as usize], stop).await);
        // A lane panics right after a callee's form ran through the lanes' offers: the others
        // were resumed from it, and are running from its last instruction, as per lane.
        let _ = ex.run(async |w: &Warp<'_>| {
            let a = callee_rounds(w, x[w.lane_id() as usize], 2).await;
            assert!(a % 5 != stop % 5, "a lane after the callee");
            a
        });
        // Calls that hand the callee a tile: on the whole warp, a partial warp, a tile (whose
        // tiles of 16 are wider than it: a panic in each lane), and a caller of one.
        let _ = ex.run(async |w: &Warp<'_>| tile_caller(w, x[w.lane_id() as usize], stop).await);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| tile_caller(w, x[w.lane_id() as usize], stop).await);
        let _ = ex.run(async |w: &Warp<'_>| tile_caller(&w.tile(16), x[w.lane_id() as usize], stop).await);
        let _ = ex.run(async |w: &Warp<'_>| tile_caller(&w.tile(8), x[w.lane_id() as usize], stop).await);
        let _ = ex.run_with(&x, tile_vote_caller);
        let _ = ex.run_with(&x, tile_caller_caller);
        let _ = ex.run_partial(partial(n), async |w: &Warp<'_>| tile_caller_caller(w, x[w.lane_id() as usize]).await);
    }
}

/// A run's results, not looked at (the run counts).
fn ran<T>(_: T) {}

/// Which runs take forms once the call sites have learned: the caller's form runs its callees'
/// forms (each counted once per run).
#[test]
fn calls_run_warp_wide() {
    let ex = Executor::new().wide(true).races(false);
    let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 7 + 1);
    let settled = |f: &dyn Fn()| {
        for _ in 0..4 {
            f();
        }
        let before = warpkit::wide_runs();
        f();
        warpkit::wide_runs() - before
    };
    // `caller`: itself, `callee_rounds` three times, `callee_vote`, `callee_panics`.
    assert_eq!(settled(&|| ran(ex.run(async |w: &Warp<'_>| caller(w, x[w.lane_id() as usize], 99).await).unwrap())), 6, "caller");
    // A uniform parameter passed per lane: the caller per lane; the callee's offers are
    // declined when the lanes' values differ (x % 2 differs here), and taken when they agree.
    // (Lanes that loop a different number of times wait at different instructions: the run
    // ends with a deadlock report, per lane in both forms.)
    assert_eq!(settled(&|| ran(ex.run_with(&x, caller_per_lane_rounds).unwrap_err())), 0, "caller_per_lane_rounds");
    assert_eq!(settled(&|| ran(ex.run_with(&[4; 32], caller_per_lane_rounds).unwrap())), 1, "caller_per_lane_rounds, one value");
    assert_eq!(settled(&|| ran(ex.run_with(&x, generic_caller::<u32>).unwrap())), 3, "generic_caller::<u32>");
    assert_eq!(settled(&|| ran(ex.run_with(&x.map(i64::from), generic_caller::<i64>).unwrap())), 3, "generic_caller::<i64>");
    assert_eq!(settled(&|| ran(ex.run_with(&x, caller_string).unwrap())), 2, "caller_string");
    // A callee whose lanes may return early: warp-wide at the run's entry, per lane called from
    // another warp function (none of these lanes returns early, but the form cannot know).
    let y = [5u32; 32];
    assert_eq!(settled(&|| ran(ex.run_with(&y, callee_returns_early).unwrap())), 1, "callee_returns_early at the entry");
    assert_eq!(settled(&|| ran(ex.run_with(&y, caller_of_early).unwrap())), 0, "caller_of_early");
    // Behind tail calls (each a last call: after it, the caller reaches no warp instruction,
    // barrier or call), it runs warp-wide, and so do its callers.
    assert_eq!(settled(&|| ran(ex.run_with(&y, tail_of_early).unwrap())), 2, "tail_of_early");
    assert_eq!(settled(&|| ran(ex.run_with(&y, tail_of_tail).unwrap())), 3, "tail_of_tail");
    // Atomics are lane code; behind a call followed by a warp instruction or an atomic, a
    // callee whose lanes return early runs per lane, and behind one followed by plain lane code
    // warp-wide; an atomic in a loop that could spin keeps the kernel per lane.
    let buf = GlobalBuffer::<u32>::zeroed(8);
    let c = buf.slice();
    assert_eq!(settled(&|| ran(ex.run(async |w: &Warp<'_>| tally(w, x[w.lane_id() as usize], c).await).unwrap())), 1, "tally");
    assert_eq!(settled(&|| ran(ex.run_with(&x, async |w: &Warp<'_>, v| tally_tail(w, v, c).await).unwrap())), 2, "tally_tail");
    assert_eq!(settled(&|| ran(ex.run(async |w: &Warp<'_>| tally_then(w, x[w.lane_id() as usize], c).await).unwrap())), 0, "tally_then");
    let out = GlobalBuffer::<u32>::zeroed(32);
    let o = out.slice();
    assert_eq!(settled(&|| ran(ex.run(async |w: &Warp<'_>| tally_store(w, x[w.lane_id() as usize], c, o).await).unwrap())), 2, "tally_store");
    assert_eq!(settled(&|| ran(ex.run(async |w: &Warp<'_>| tally_then_shuffle(w, x[w.lane_id() as usize], c).await).unwrap())), 0, "tally_then_shuffle");
    let spins = || {
        c.store(6, 0);
        ran(ex.run(async |w: &Warp<'_>| spins_on_an_atomic(w, c).await).unwrap())
    };
    assert_eq!(settled(&spins), 0, "spins_on_an_atomic");
    assert!(buf.to_vec()[6] >= 64);
    // On tiles: `callee_vote` needs the whole warp's handles, so the caller's form (which hands
    // its handle on) is declined and the caller runs per lane. The three calls of
    // `callee_rounds` take its form on the tiles; `callee_vote` runs per lane, its tiles voting
    // apart, so the lanes reach `callee_panics` in different steps, and it runs per lane too.
    let tiles = || ran(ex.run(async |w: &Warp<'_>| caller(&w.tile(8), x[w.lane_id() as usize], 99).await).unwrap());
    assert_eq!(settled(&tiles), 3, "caller on tiles");
    // Calls that hand their callee a tile: the caller's form runs the callees' on the tiles
    // (`tile_caller`: itself, `callee_rounds`, `shaped`), and so does its caller's
    // (`tile_caller_caller`: itself, `tile_prefix_sums`, `scans` twice, `inclusive_scan` twice).
    let tile_caller_run = || ran(ex.run(async |w: &Warp<'_>| tile_caller(w, x[w.lane_id() as usize], 99).await).unwrap());
    assert_eq!(settled(&tile_caller_run), 3, "tile_caller");
    assert_eq!(settled(&|| ran(ex.run_with(&x, tile_caller_caller).unwrap())), 6, "tile_caller_caller");
    // `shaped` takes its tile's width for uniform: the whole warp's tiles of 16 all have 16
    // lanes, so `tile_caller`'s form needs the whole warp's handles. A partial warp's are (its
    // lanes past the end are exited ones): warp-wide. A tile's are not: it runs per lane, and
    // each callee's form runs where its lanes' offers agree (`callee_rounds` on the tiles of 8
    // of each tile of 16, `shaped` on each tile of 16 itself).
    let partial_run = || ran(ex.run_partial(partial(16), async |w: &Warp<'_>| tile_caller(w, x[w.lane_id() as usize], 99).await).unwrap());
    assert_eq!(settled(&partial_run), 3, "tile_caller on 16 lanes");
    let on_tiles = || ran(ex.run(async |w: &Warp<'_>| tile_caller(&w.tile(16), x[w.lane_id() as usize], 99).await).unwrap());
    assert_eq!(settled(&on_tiles), 2, "tile_caller on tiles of 16");
    // A tile of 8 handed on: `tile_caller`'s tiles of 16 are wider than it (each lane panics).
    assert!(ex.run(async |w: &Warp<'_>| tile_caller(&w.tile(8), x[w.lane_id() as usize], 99).await).is_err());
    // `callee_vote` needs the whole warp's handles: not run on tiles, so its caller is per lane
    // and the callee too (its tiles vote apart).
    assert_eq!(settled(&|| ran(ex.run_with(&x, tile_vote_caller).unwrap())), 0, "tile_vote_caller");
}

#[warp_kernel]
fn caller_of_panics(w: &Warp, x: u32) -> u32 {
    let a = w.shfl_xor(x, 1);
    callee_panics(w, a) + 1
}

/// A panic in a callee's form, run by the caller's: the same lane panics with the same message
/// as per lane. (The lanes before it are not where they are per lane: per lane, each runs the
/// rest of its call, and the caller's code after it, before the next lane runs; in the forms,
/// every lane runs the callee's last stretch before any runs the caller's. README, "Where the
/// forms differ".)
#[test]
fn a_callee_panics_in_the_callers_form() {
    let x: [u32; 32] = core::array::from_fn(|l| if l == 5 { 77 } else { l as u32 });
    let first_line = |e: WarpError| format!("{e}").lines().next().unwrap_or_default().to_string();
    let per_lane = first_line(Executor::new().wide(false).run_with(&x, caller_of_panics).unwrap_err());
    assert!(per_lane.starts_with("lane 3 panicked") && per_lane.ends_with("callee lane got 77"), "{per_lane}");
    for _ in 0..4 {
        let before = warpkit::wide_runs();
        let wide = first_line(Executor::new().wide(true).run_with(&x, caller_of_panics).unwrap_err());
        assert_eq!(wide, per_lane);
        assert!(warpkit::wide_runs() - before >= 1);
    }
    let before = warpkit::wide_runs();
    let _ = Executor::new().wide(true).run_with(&x, caller_of_panics);
    assert_eq!(warpkit::wide_runs() - before, 2, "the caller's form and the callee's");
}


/// Calls in forms over a grid on two CPU threads: the call sites learn on whichever thread gets
/// there first, and both threads' warps use what they learnt (a static shared by the process).
#[test]
fn calls_in_a_grid_on_two_threads() {
    let grid = Grid::new(32 * 64).cpu_threads(2);
    let kernel = async |w: &Warp<'_>| {
        let x = (w.global_id() as u32).wrapping_mul(2_654_435_761) >> 20;
        (caller(w, x, 99).await, generic_caller(w, x as u64).await)
    };
    let per_lane = grid.executor(Executor::new().wide(false)).map(kernel).unwrap();
    for _ in 0..3 {
        let wide = grid.executor(Executor::new().wide(true)).map(kernel).unwrap();
        assert_eq!(per_lane, wide);
    }
}


/// Every lane returns before the call (or some do): the callee runs for the lanes left, or not
/// at all.
#[warp_kernel]
fn caller_after_returns(w: &Warp, x: u32) -> u32 {
    let a = w.shfl_xor(x, 1);
    if a < 1000 {
        return a;
    }
    callee_rounds(w, a, 1)
}

#[test]
fn calls_after_every_lane_returned() {
    for _ in 0..4 {
        let _ = both().run_with(&[5u32; 32], caller_after_returns);
        let _ = both().run_with(&core::array::from_fn(|l| l as u32 * 100), caller_after_returns);
    }
}

// ---- cases from the review of calls in forms (each differed, panicked or did not compile).

/// A `return` in an instruction's operand: the callee's lanes may return before its last
/// instruction (`returns_early`), so it runs warp-wide only at a run's entry.
#[warp_kernel]
fn ret_in_ballot(w: &Warp, x: u32) -> u32 {
    w.ballot(if x == 3 { return 100 } else { x % 3 == 0 })
}

#[warp_kernel]
fn outer_of_ret_in_ballot(w: &Warp, x: u32) -> u32 {
    let a = ret_in_ballot(w, x);
    let b = w.ballot(a > 50);
    a ^ b
}

#[warp_kernel]
fn ret_in_shfl(w: &Warp, x: u32) -> u32 {
    w.shfl_xor(if x == 3 { return 100 } else { x }, 1)
}

#[warp_kernel]
fn outer_of_ret_in_shfl(w: &Warp, x: u32) -> u32 {
    let a = ret_in_shfl(w, x);
    w.shfl_xor(a, 1) ^ a
}

/// A callee whose uniform code would fail, called when no lane is left.
#[warp_kernel]
fn callee_uniform_div(w: &Warp, x: u32) -> u32 {
    let k = 100 / w.warp_index();
    w.shfl_xor(x + k as u32, 1)
}

#[warp_kernel]
fn caller_all_return(w: &Warp, x: u32) -> u32 {
    let y = w.shfl_xor(x, 2);
    if y < 1000 {
        return y;
    }
    callee_uniform_div(w, y)
}

/// A hand-written `async fn` that awaits a kernel without `call`: the kernel's offer is at the
/// wrapper's call path, but it is not the wrapper's (whose `+ 100` a form would skip).
#[warp_kernel]
fn inner_shfl(w: &Warp, x: u32) -> u32 {
    w.shfl_xor(x, 1)
}

async fn hand_wrapper(w: &Warp<'_>, x: u32) -> u32 {
    inner_shfl(w, x).await + 100
}

async fn hand_wrapper2(w: &Warp<'_>, x: u32, y: u32) -> u32 {
    inner_shfl(w, x ^ y).await
}

#[warp_kernel]
fn calls_hand_wrappers(w: &Warp, x: u32) -> u32 {
    let a = hand_wrapper(w, x);
    let b = hand_wrapper2(w, x, 3);
    w.shfl_xor(a ^ b, 2)
}

/// Arguments that borrow or move per-lane values: each compiles (a call that borrows one the
/// kernel changes keeps the per-lane form).
#[warp_kernel]
fn bump(w: &Warp, acc: &mut u32, x: u32) -> u32 {
    let v = w.shfl_xor(x, 1);
    *acc += v;
    v
}

#[warp_kernel]
fn sum2(w: &Warp, xs: &[u32; 2]) -> u32 {
    w.redux_add(xs[0] ^ xs[1])
}

#[warp_kernel]
fn pick<'a>(w: &Warp, xs: &'a [u32; 2], x: u32) -> &'a u32 {
    let k = w.shfl_xor(x, 1);
    &xs[(k % 2) as usize]
}

#[warp_kernel]
fn str_len(w: &Warp, s: String) -> u32 {
    w.redux_max(s.len() as u32)
}

#[warp_kernel]
fn apply_op<F: Fn(u32) -> u32>(w: &Warp, x: u32, op: F) -> u32 {
    op(w.shfl_xor(x, 4))
}

#[warp_kernel]
fn borrowing_callers(w: &Warp, x: u32) -> (u32, u32, u32, u32, u32, u32) {
    let mut acc = x;
    let y = bump(w, &mut acc, x);
    let arr = [x, x + 1];
    let s2 = sum2(w, &arr);
    let mut xs = [x, y];
    let v = *pick(w, &xs, x);
    xs[0] = v;
    let s = x.to_string();
    let n = str_len(w, s);
    let op = { |v: u32| v + 7 };
    let o = apply_op(w, x, op);
    let z = w.shfl_xor(n, 1);
    (acc + y, s2, xs[0] + xs[1], n, o, z)
}

/// A per-lane `String` moved into a call, the kernel reading other values afterwards.
#[warp_kernel]
fn moves_a_string(w: &Warp, x: u32) -> u32 {
    let s = x.to_string() + "-";
    let n = str_len(w, s);
    w.shfl_xor(n + x, 1)
}

#[test]
fn review_of_calls_agree() {
    let x: [u32; 32] = core::array::from_fn(|l| l as u32);
    let big = x.map(|v| v + 5000);
    for _ in 0..4 {
        let _ = both().run_with(&x, outer_of_ret_in_ballot);
        let _ = both().run_with(&x, outer_of_ret_in_shfl);
        // Learnt with lanes left (warp 1: the callee divides by its index), then run with none.
        let _ = both().warp_index(1).run_with(&big, caller_all_return);
        let _ = both().run_with(&x, caller_all_return);
        let _ = both().run_with(&x, calls_hand_wrappers);
        let _ = both().run_with(&x, borrowing_callers);
        let _ = both().run_with(&x, moves_a_string);
    }
    // `moves_a_string` runs warp-wide with its callee once learnt.
    let before = warpkit::wide_runs();
    let _ = Executor::new().wide(true).run_with(&x, moves_a_string);
    assert_eq!(warpkit::wide_runs() - before, 2, "moves_a_string and str_len");
}

/// Methods named as the ones the forms call through traits (`value`, `put`, `is_copy`, `same`,
/// `call_in`), on every type, in scope where kernels are: the forms' own calls must not be
/// ambiguous with them (E0034 before their names were the forms' own).
mod blanket_methods {
    use super::both;
    use warpkit::prelude::*;

    pub trait Everything {
        fn value(self) -> u32;
        fn put(self, _: u32);
        fn is_copy(&self) -> bool;
        fn same(&self) -> bool;
        fn call_in(&self) -> u32;
    }

    impl<T> Everything for T {
        fn value(self) -> u32 {
            0
        }
        fn put(self, _: u32) {}
        fn is_copy(&self) -> bool {
            false
        }
        fn same(&self) -> bool {
            false
        }
        fn call_in(&self) -> u32 {
            0
        }
    }

    const SCALE: u32 = 3;

    #[warp_kernel]
    fn callee(w: &Warp, x: u32) -> u32 {
        w.shfl_xor(x, 1)
    }

    /// A uniform constant `let` (`is_copy`), a `GlobalSlice` taken for uniform (`same`), a call
    /// (`call_in`) whose result is read (`value`), and a whole per-lane variable assigned
    /// (`put`).
    #[warp_kernel]
    fn uses_every_method(w: &Warp, input: GlobalSlice<'_, u32>, x: u32) -> u32 {
        let k = SCALE;
        let mut v = x * k;
        if input.len() > 2 {
            v += w.shfl_xor(v, 4);
        }
        let c = callee(w, v);
        let i = x as usize % 4;
        v = c + input.load(i);
        w.shfl_xor(v, 2)
    }

    #[test]
    fn forms_do_not_call_a_users_blanket_methods() {
        2u8.put(3);
        assert_eq!(0u8.value() + u32::from(1u8.is_copy() || 2u8.same()) + 3u8.call_in(), 0, "the blanket trait is in scope here");
        let data = GlobalBuffer::<u32>::from_slice(&[5, 6, 7, 8]);
        let input = data.slice();
        let run = |lane: fn(u32) -> u32| both().races(false).run(async move |w: &Warp<'_>| uses_every_method(w, input, lane(w.lane_id())).await);
        // v = 3x, plus lane x ^ 4's; then lane x ^ 1's, plus input[x % 4]; lane x ^ 2's.
        let sequential: [u32; 32] = core::array::from_fn(|l| {
            let first = |l: u32| 3 * l + 3 * (l ^ 4);
            let v = |l: u32| first(l ^ 1) + [5, 6, 7, 8][l as usize % 4];
            v(l as u32 ^ 2)
        });
        for _ in 0..3 {
            assert_eq!(run(|l| l).unwrap(), sequential);
        }
        let before = warpkit::wide_runs();
        let _ = Executor::new().wide(true).run(async |w: &Warp<'_>| uses_every_method(w, input, w.lane_id()).await).unwrap();
        assert_eq!(warpkit::wide_runs() - before, 2, "uses_every_method and its callee run warp-wide");
    }
}

/// Kernels written inside a `macro_rules!` macro, every name in them (parameters, variables,
/// loop counters, callees) from the macro's arguments. The form declares its own identifiers
/// where those names are declared, so that its uses of them resolve as the user's tokens do;
/// before, each kernel here failed to compile with E0425 (`cannot find value __wk_..`).
mod macro_rules_kernels {
    use super::*;

    macro_rules! family {
        ($sum:ident, $scan:ident, $mixed:ident, $w:ident, $x:ident, $v:ident, $k:ident, $up:ident, $ok:ident, $t:ty, $op:ident) => {
            #[warp_kernel]
            pub fn $sum($w: &Warp, $x: $t) -> $t {
                let mut $v = $x;
                for $k in [16, 8, 4, 2, 1] {
                    $v = $v.$op($w.shfl_xor($v, $k));
                }
                $v
            }

            #[warp_kernel]
            pub fn $scan($w: &Warp, $x: $t) -> $t {
                let mut $v = $x;
                let mut $k = 1;
                while $k < $w.width() {
                    let ($up, $ok) = $w.shfl_up_pred($v, $k);
                    if $ok {
                        $v = $up.$op($v);
                    }
                    $k *= 2;
                }
                $v
            }

            /// A call (to a kernel the macro names), a tile, a vote, a per-lane array, a uniform
            /// that changes after lane code read it, and a lane's panic in arithmetic on a
            /// shuffled value (the divisor is 0 where a lane's input is).
            #[warp_kernel]
            pub fn $mixed($w: &Warp, $x: $t) -> ($t, $t, u32) {
                let mut $k: u32 = 3;
                let $v = [$x, $x + $x];
                let $up = $v[1] + $k as $t;
                $k *= 5;
                let $ok = $w.ballot($up > 15);
                let total = $sum($w, $v[0]);
                let tile = $scan(&$w.tile(8), $up);
                let d = $w.shfl_idx($x, $w.lane_id() ^ 1);
                (total / d + $k as $t, tile, $ok)
            }
        };
    }

    family!(sum_u32, scan_u32, mixed_u32, w, x, v, k, up, ok, u32, wrapping_add);
    family!(max_i32, running_i32, mixed_i32, warp, value, acc, step, above, in_range, i32, max);

    /// The same name from the macro's arguments and in its body: two variables (hygiene), which
    /// the generator, resolving names as strings, would take for one. Each kernel here keeps the
    /// per-lane form (before the check in `Gen::ident_at`, each took a form that read the other
    /// variable).
    macro_rules! collide {
        ($a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $x:ident, $t:ident, $v:ident) => {
            #[warp_kernel]
            pub fn $a(w: &Warp, $x: u32) -> u32 {
                let x = $x * 2;
                let v = w.shfl_xor(x, 1);
                v + x + $x
            }

            #[warp_kernel]
            pub fn $b(w: &Warp, x: u32) -> u32 {
                let $x = w.shfl_xor(x, 1);
                let y = w.shfl_xor(x, 2);
                y * 1000 + $x + x
            }

            #[warp_kernel]
            pub fn $c(w: &Warp, x: u32) -> u32 {
                let $t = w.tile(4);
                let t = w.tile(16);
                $t.redux_add(x) * 1000 + t.redux_add(x)
            }

            /// A uniform `x` of the body beside the parameter `$x`: before `mixed_names`, E0308
            /// (the form took `$x` for the uniform and captured the outer parameter).
            #[warp_kernel]
            pub fn $e(w: &Warp, $x: u32) -> u32 {
                let x = 5u32;
                let y = w.shfl_xor($x, 1);
                y * 100 + x + $x
            }

            #[warp_kernel]
            pub fn $d(w: &Warp, x: u32) -> u32 {
                let mut $v = x;
                let mut v = x + 1000;
                $v += w.shfl_xor($v, 1);
                v += 1;
                $v * 10000 + v
            }
        };
    }

    collide!(param_and_let, let_and_param, two_tiles, two_sums, uniform_and_param, x, t, v);

    #[test]
    fn a_name_from_the_arguments_is_not_the_bodys() {
        let x: [u32; 32] = core::array::from_fn(|l| l as u32 + 1);
        let ex = both().races(false);
        fn per_lane(what: &str, run: impl FnOnce() -> Result<[u32; 32], WarpError>) -> [u32; 32] {
            let before = warpkit::wide_runs();
            let out = run();
            assert_eq!(warpkit::wide_runs(), before, "{what} has no form");
            out.unwrap()
        }
        let group = |l: usize, n: usize| x[l / n * n..][..n].iter().sum::<u32>();
        assert_eq!(per_lane("param_and_let", || ex.run_with(&x, param_and_let)), core::array::from_fn(|l| 2 * x[l ^ 1] + 2 * x[l] + x[l]));
        assert_eq!(per_lane("let_and_param", || ex.run_with(&x, let_and_param)), core::array::from_fn(|l| x[l ^ 2] * 1000 + x[l ^ 1] + x[l]));
        assert_eq!(per_lane("two_tiles", || ex.run_with(&x, two_tiles)), core::array::from_fn(|l| group(l, 4) * 1000 + group(l, 16)));
        assert_eq!(per_lane("two_sums", || ex.run_with(&x, two_sums)), core::array::from_fn(|l| (x[l] + x[l ^ 1]) * 10000 + x[l] + 1001));
        assert_eq!(per_lane("uniform_and_param", || ex.run_with(&x, uniform_and_param)), core::array::from_fn(|l| x[l ^ 1] * 100 + 5 + x[l]));
    }

    /// An instruction's and a barrier's method named by the macro's arguments: a report names
    /// the place the per-lane form's `#[track_caller]` records (the macro's call, where the
    /// method's name and its parentheses come from two contexts), in both forms (before
    /// `site_call`, the form named the method's token).
    macro_rules! named_methods {
        ($shfl:ident, $sync:ident, $m:ident, $s:ident) => {
            #[warp_kernel]
            pub fn $shfl(w: &Warp, x: u32) -> u32 {
                if x == 5 {
                    return 0;
                }
                w.$m(x, 1)
            }

            #[warp_kernel]
            pub fn $sync(w: &Warp, x: u32) -> u32 {
                let y = x + 1;
                if x == 5 {
                    panic!("lane 5");
                }
                w.$s();
                y
            }
        };
    }

    named_methods!(named_shuffle, named_barrier, shfl_xor, sync_threads);

    #[test]
    fn reports_name_an_instruction_named_by_the_arguments_alike() {
        let x: [u32; 32] = core::array::from_fn(|l| l as u32);
        // Lane 5 exits; the others' shuffle names it: the same report both ways (`both`).
        let r = in_form("named_shuffle", || both().races(false).run_with(&x, named_shuffle));
        assert!(format!("{r:?}").contains("lanes 0-4    waiting at `shfl.sync.bfly.b32`"), "{r:?}");
        // Lane 5 panics; lanes 0-4 wait at the barrier, named where `both` compares it.
        let r = in_form("named_barrier", || both().races(false).run_with(&x, named_barrier));
        assert!(format!("{r:?}").contains("lanes 0-4    waiting at `bar.sync`"), "{r:?}");
    }

    /// A loop's label from the arguments (`$l:lifetime`, which the macro passes in an invisible
    /// group): before, the attribute did not parse the kernel ("applies to a `fn` with a body").
    /// Its loop leaves early, so it runs per lane both ways (README: `break`).
    macro_rules! labeled {
        ($name:ident, $l:lifetime) => {
            #[warp_kernel]
            pub fn $name(w: &Warp, x: u32) -> u32 {
                let mut v = x;
                let mut k = 1;
                $l: loop {
                    v = v.wrapping_add(w.shfl_xor(v, k));
                    k *= 2;
                    if k == 32 {
                        break $l;
                    }
                }
                v
            }
        };
    }

    labeled!(labeled_sum, 'turns);

    fn plus_one(x: u32) -> u32 {
        x + 1
    }

    /// The handle named by the arguments, and a `let` of the same name in the body: two
    /// variables (hygiene). Before, the per-lane rewrite took the `let` for the handle after it,
    /// so the shuffle was not awaited (E0277), and a call passing the `let`'s value first would
    /// have been awaited.
    macro_rules! handle_beside_a_let {
        ($name:ident, $w:ident) => {
            #[warp_kernel]
            pub fn $name($w: &Warp, x: u32) -> u32 {
                let w = x * 3;
                plus_one(w) + $w.shfl_xor(x, 1)
            }
        };
    }

    handle_beside_a_let!(two_ws, w);

    #[test]
    fn a_label_from_the_arguments() {
        let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 5 + 2);
        let sum: u32 = x.iter().sum();
        assert_eq!(both().races(false).run_with(&x, labeled_sum).unwrap(), [sum; 32]);
    }

    #[test]
    fn a_handle_from_the_arguments_beside_a_let_of_its_name() {
        let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 5 + 2);
        let expected: [u32; 32] = core::array::from_fn(|l| x[l] * 3 + 1 + x[l ^ 1]);
        assert_eq!(both().races(false).run_with(&x, two_ws).unwrap(), expected);
    }

    /// `run()`, asserting that it ran a warp-wide form (both ways: `both()` runs each kernel per
    /// lane and warp-wide).
    fn in_form<T>(what: &str, run: impl FnOnce() -> T) -> T {
        let before = warpkit::wide_runs();
        let out = run();
        assert!(warpkit::wide_runs() > before, "{what} ran warp-wide");
        out
    }

    #[test]
    fn kernels_named_by_a_macros_arguments_run_warp_wide() {
        let x: [u32; 32] = core::array::from_fn(|l| l as u32 * 7 + 1);
        let xi: [i32; 32] = core::array::from_fn(|l| (l as i32 * 37) % 23 - 11);
        let ex = both().races(false);
        let sum: u32 = x.iter().sum();
        assert_eq!(in_form("sum_u32", || ex.run_with(&x, sum_u32)).unwrap(), [sum; 32]);
        assert_eq!(in_form("max_i32", || ex.run_with(&xi, max_i32)).unwrap(), [*xi.iter().max().unwrap(); 32]);
        let prefix: [u32; 32] = core::array::from_fn(|l| x[..=l].iter().sum());
        assert_eq!(in_form("scan_u32", || ex.run_with(&x, scan_u32)).unwrap(), prefix);
        let running: [i32; 32] = core::array::from_fn(|l| *xi[..=l].iter().max().unwrap());
        assert_eq!(in_form("running_i32", || ex.run_with(&xi, running_i32)).unwrap(), running);
        // `mixed_*`, sequentially: `up` = 2x + 3, voted on, scanned in tiles of 8; the total
        // divided by the neighbour's input, plus `k` (15 by then).
        let mixed = |x: &[i64; 32], op: fn(i64, i64) -> i64| -> [(i64, i64, u32); 32] {
            let up: [i64; 32] = core::array::from_fn(|l| 2 * x[l] + 3);
            let ballot = (0..32).filter(|&l| up[l] > 15).fold(0u32, |m, l| m | 1 << l);
            let total = x.iter().copied().reduce(op).unwrap();
            core::array::from_fn(|l| (total / x[l ^ 1] + 15, up[l & !7..=l].iter().copied().reduce(op).unwrap(), ballot))
        };
        let expected = mixed(&x.map(i64::from), |a, b| a + b).map(|(a, b, c)| (a as u32, b as u32, c));
        assert_eq!(in_form("mixed_u32", || ex.run_with(&x, mixed_u32)).unwrap(), expected);
        // A lane whose neighbour's input is 0 divides by it: that lane's panic, both ways.
        let zero = xi.iter().position(|&v| v == 0).expect("a lane of xi is 0");
        let r = in_form("mixed_i32", || ex.run_with(&xi, mixed_i32));
        let Err(WarpError::LanePanicked { lane, message, .. }) = &r else { panic!("{r:?}") };
        assert_eq!((*lane as usize, message.as_str()), (zero ^ 1, "attempt to divide by zero"));
        let xj = xi.map(|v| if v == 0 { 1 } else { v });
        let expected = mixed(&xj.map(i64::from), i64::max).map(|(a, b, c)| (a as i32, b as i32, c));
        assert_eq!(in_form("mixed_i32", || ex.run_with(&xj, mixed_i32)).unwrap(), expected);
    }
}
