//! `#[derive(WarpValue)]`: structs move between lanes as their fields do, packed in declaration
//! order; `#[warp_value(words)]` structs move as one shuffle per 32-bit word.

use warpkit::prelude::*;
use warpkit::{shfl_words, WarpBits};

#[derive(Clone, Copy, Debug, PartialEq, WarpValue)]
struct Key {
    bucket: u16,
    flag: bool,
    weight: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, WarpValue)]
struct Half(u16, i16);

#[derive(Clone, Copy, Debug, PartialEq, WarpValue)]
struct Outer {
    inner: Half,
    tag: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, WarpValue)]
#[warp_value(words)]
struct Particle {
    pos: [f32; 3],
    id: u32,
    alive: bool,
    energy: f64,
}

/// Fields in declaration order from bit 0, each its width (`bool` 1, `u16` 16, `f32` 32): an
/// independent statement of the layout.
#[test]
fn fields_are_packed_in_declaration_order() {
    let k = Key { bucket: 0xbeef, flag: true, weight: -2.0 };
    let want = 0xbeef | 1 << 16 | ((-2.0f32).to_bits() as u64) << 17;
    assert_eq!(k.to_bits(), want);
    assert_eq!(Key::from_bits(want), k);
    assert_eq!(<Key as WarpValue>::WORDS, 2);
    assert_eq!(<Key as WarpBits>::BITS, 49);
    assert_eq!(<Half as WarpValue>::WORDS, 1);
    assert_eq!(Half(1, -1).to_bits(), 1 | 0xffff << 16);
    let o = Outer { inner: Half(7, -7), tag: 0x80 };
    assert_eq!(o.to_bits(), Half(7, -7).to_bits() | 0x80 << 32, "a nested value keeps its own packing");
    assert_eq!(Outer::from_bits(o.to_bits()), o);
}

/// The handle moves a derived value as it moves a `u64`: every lane gets lane `l ^ 1`'s.
#[test]
fn a_derived_value_shuffles_and_matches_like_its_bits() {
    #[warp_kernel]
    fn swap(w: &Warp, k: Key) -> (Key, u32) {
        (w.shfl_xor(k, 1), w.match_any(k))
    }
    let key = |l: u32| Key { bucket: (l / 4) as u16, flag: l % 2 == 0, weight: (l / 4) as f32 * 0.5 };
    let out = Executor::new().run(async |w: &Warp<'_>| swap(w, key(w.lane_id())).await).unwrap();
    for l in 0..32u32 {
        assert_eq!(out[l as usize].0, key(l ^ 1), "lane {l}");
        // Lanes with equal keys: the same group of 4, the same parity.
        let same: u32 = (0..32).filter(|&j| key(j) == key(l)).map(|j| 1 << j).sum();
        assert_eq!(out[l as usize].1, same, "lane {l}");
    }
}

/// A 32-byte struct moves as eight 32-bit shuffles; a tile's segment applies to each.
#[test]
fn a_words_struct_moves_as_several_shuffles() {
    #[warp_kernel]
    fn rotate(w: &Warp, p: Particle) -> (Particle, Particle) {
        let t = w.tile(8);
        (shfl_words::shfl_down(&t, p, 1), shfl_words::shfl_idx(w, p, 31))
    }
    let particle = |l: u32| Particle { pos: [l as f32, -(l as f32), f32::NAN], id: l, alive: l % 3 == 0, energy: l as f64 / 3.0 };
    assert_eq!(<Particle as WarpWords>::WORDS, 3 + 1 + 1 + 2);
    let out = Executor::new().run(async |w: &Warp<'_>| rotate(w, particle(w.lane_id())).await).unwrap();
    for l in 0..32u32 {
        // shfl_down within a tile of 8: the last lane of a tile keeps its own value.
        let src = if l % 8 == 7 { l } else { l + 1 };
        let (down, idx) = out[l as usize];
        let (want_down, want_idx) = (particle(src), particle(31));
        assert_eq!(down.pos.map(f32::to_bits), want_down.pos.map(f32::to_bits), "lane {l}");
        assert_eq!((down.id, down.alive, down.energy), (want_down.id, want_down.alive, want_down.energy), "lane {l}");
        assert_eq!((idx.id, idx.energy.to_bits()), (want_idx.id, want_idx.energy.to_bits()), "lane {l}");
    }
}

/// Pairs and small arrays of 4-byte values are warp values too.
#[test]
fn pairs_and_arrays_shuffle() {
    #[warp_kernel]
    fn pass(w: &Warp, p: (u32, f32), a: [i32; 2]) -> ((u32, f32), [i32; 2]) {
        (w.shfl_up(p, 2), w.shfl_idx(a, 0))
    }
    let out = Executor::new().run(async |w: &Warp<'_>| {
        let l = w.lane_id();
        pass(w, (l, l as f32 + 0.25), [l as i32, -(l as i32)]).await
    })
    .unwrap();
    assert_eq!(out[5], ((3, 3.25), [0, 0]));
    assert_eq!(out[1], ((1, 1.25), [0, 0]), "lanes below delta keep their own");
}
