//! The body of the `atom`/`red` conformance kernels, one function per (space, element type), the
//! same source on both targets: `ptx/src/atomics.rs` calls them from its kernels on the GPU, and
//! the GPU program (`gpu/src/atomics.rs`, which includes this file) from a CPU-runtime grid.
//!
//! Each applies one operation to element `i` of a slice and returns the old value (`None` for a
//! `red`, or an operation the type does not have). The operation is a number, uniform over a
//! launch, so that one kernel holds every operation of its type:
//!
//! | `op` | 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 |
//! |---|---|---|---|---|---|---|---|---|---|---|
//! | `atom` | add | min | max | inc | dec | and | or | xor | exch | cas |
//! | `red` (`op` + 10) | add | min | max | inc | dec | and | or | xor | | |
//!
//! and the qualifiers another number `q` in `0..16`: `.sem` = `SEMS[q % 4]` (`red`: `.relaxed` when
//! `q` is even, `.release` when odd), `.scope` = `SCOPES[q / 4]`. The vector forms
//! (global memory only) take `op` 0 (add), 1 (min), 2 (max) and 10..12 for `red`.

#![allow(clippy::too_many_arguments)]

#[allow(unused_imports)]
use warp_runtime::{bf16, f16, Bf16x2, F16x2, GlobalSlice, Mem, RedSem, Scope, Sem, SharedSlice};

/// `.sem` by `q % 4`.
pub const SEMS: [Sem; 4] = [Sem::Relaxed, Sem::Acquire, Sem::Release, Sem::AcqRel];
/// `.scope` by `q / 4`.
pub const SCOPES: [Scope; 4] = [Scope::Cta, Scope::Cluster, Scope::Gpu, Scope::Sys];

/// The qualifiers of `q`: `atom`'s `.sem`, `red`'s, and the `.scope`.
#[inline(always)]
pub fn quals(q: u32) -> (Sem, RedSem, Scope) {
    let red = if q % 2 == 0 { RedSem::Relaxed } else { RedSem::Release };
    (SEMS[(q % 4) as usize], red, SCOPES[(q / 4 % 4) as usize])
}

/// An atomic's value without a scheduling point (each thread works on its own element).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn now<T>(m: Mem<T>) -> T {
    m
}
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
fn now<T: Copy>(m: Mem<T>) -> T {
    m.value()
}

/// One operation family's arms: `if op == n { return ... }`.
macro_rules! arms {
    (add, $s:ident, $i:ident, $op:ident, $b:ident, $c:ident, $sem:ident, $red:ident, $scope:ident) => {
        if $op == 0 {
            return Some(now($s.atomic_add_with($i, $b, $sem, $scope)));
        }
        if $op == 10 {
            now($s.red_add_with($i, $b, $red, $scope));
            return None;
        }
    };
    (minmax, $s:ident, $i:ident, $op:ident, $b:ident, $c:ident, $sem:ident, $red:ident, $scope:ident) => {
        if $op == 1 {
            return Some(now($s.atomic_min_with($i, $b, $sem, $scope)));
        }
        if $op == 2 {
            return Some(now($s.atomic_max_with($i, $b, $sem, $scope)));
        }
        if $op == 11 {
            now($s.red_min_with($i, $b, $red, $scope));
            return None;
        }
        if $op == 12 {
            now($s.red_max_with($i, $b, $red, $scope));
            return None;
        }
    };
    (incdec, $s:ident, $i:ident, $op:ident, $b:ident, $c:ident, $sem:ident, $red:ident, $scope:ident) => {
        if $op == 3 {
            return Some(now($s.atomic_inc_with($i, $b, $sem, $scope)));
        }
        if $op == 4 {
            return Some(now($s.atomic_dec_with($i, $b, $sem, $scope)));
        }
        if $op == 13 {
            now($s.red_inc_with($i, $b, $red, $scope));
            return None;
        }
        if $op == 14 {
            now($s.red_dec_with($i, $b, $red, $scope));
            return None;
        }
    };
    (bits, $s:ident, $i:ident, $op:ident, $b:ident, $c:ident, $sem:ident, $red:ident, $scope:ident) => {
        if $op == 5 {
            return Some(now($s.atomic_and_with($i, $b, $sem, $scope)));
        }
        if $op == 6 {
            return Some(now($s.atomic_or_with($i, $b, $sem, $scope)));
        }
        if $op == 7 {
            return Some(now($s.atomic_xor_with($i, $b, $sem, $scope)));
        }
        if $op == 15 {
            now($s.red_and_with($i, $b, $red, $scope));
            return None;
        }
        if $op == 16 {
            now($s.red_or_with($i, $b, $red, $scope));
            return None;
        }
        if $op == 17 {
            now($s.red_xor_with($i, $b, $red, $scope));
            return None;
        }
    };
    (exch, $s:ident, $i:ident, $op:ident, $b:ident, $c:ident, $sem:ident, $red:ident, $scope:ident) => {
        if $op == 8 {
            return Some(now($s.atomic_exch_with($i, $b, $sem, $scope)));
        }
    };
    (cas, $s:ident, $i:ident, $op:ident, $b:ident, $c:ident, $sem:ident, $red:ident, $scope:ident) => {
        if $op == 9 {
            return Some(now($s.atomic_cas_with($i, $b, $c, $sem, $scope)));
        }
    };
}

/// `pub fn $name(s, i, op, b, c, q) -> Option<T>` over `$slice<T>` with the given families.
macro_rules! body {
    ($($(#[$cfg:meta])* $name:ident: $slice:ident<$t:ty> [$($fam:ident)*];)*) => {$(
        $(#[$cfg])*
        #[inline(always)]
        #[allow(unused_variables)]
        pub fn $name(s: $slice<'_, $t>, i: usize, op: u32, b: $t, c: $t, q: u32) -> Option<$t> {
            let (sem, red, scope) = quals(q);
            $( arms!($fam, s, i, op, b, c, sem, red, scope); )*
            None
        }
    )*};
}

body! {
    global_u32: GlobalSlice<u32> [add minmax incdec bits exch cas];
    global_s32: GlobalSlice<i32> [add minmax bits exch cas];
    global_u64: GlobalSlice<u64> [add minmax bits exch cas];
    global_s64: GlobalSlice<i64> [add minmax bits exch cas];
    global_f32: GlobalSlice<f32> [add exch cas];
    global_f64: GlobalSlice<f64> [add exch cas];
    global_f16: GlobalSlice<f16> [add cas];
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    global_bf16: GlobalSlice<bf16> [add cas];
    global_f16x2: GlobalSlice<F16x2> [add exch cas];
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    global_bf16x2: GlobalSlice<Bf16x2> [add exch cas];
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    global_b128: GlobalSlice<u128> [exch cas];
    shared_u32: SharedSlice<u32> [add minmax incdec bits exch cas];
    shared_s32: SharedSlice<i32> [add minmax bits exch cas];
    shared_u64: SharedSlice<u64> [add minmax bits exch cas];
    shared_s64: SharedSlice<i64> [add minmax bits exch cas];
    shared_f32: SharedSlice<f32> [add exch cas];
    shared_f64: SharedSlice<f64> [add exch cas];
    shared_f16: SharedSlice<f16> [add cas];
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    shared_bf16: SharedSlice<bf16> [add cas];
    shared_f16x2: SharedSlice<F16x2> [add exch cas];
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    shared_bf16x2: SharedSlice<Bf16x2> [add exch cas];
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    shared_b128: SharedSlice<u128> [exch cas];
}

/// The vector forms: `pub fn $name(s, i, op, b: [T; N], q) -> Option<[T; N]>` at elements
/// `i..i + N` (`i` a multiple of `N`).
macro_rules! vec_body {
    ($($name:ident: $t:ty, $n:literal, [$($minmax:ident)?];)*) => {$(
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
        #[inline(always)]
        pub fn $name(s: GlobalSlice<'_, $t>, i: usize, op: u32, b: [$t; $n], q: u32) -> Option<[$t; $n]> {
            let (sem, red, scope) = quals(q);
            if op == 0 {
                return Some(now(s.atomic_add_vec_with(i, b, sem, scope)));
            }
            if op == 10 {
                now(s.red_add_vec_with(i, b, red, scope));
                return None;
            }
            $(
                let _ = stringify!($minmax);
                if op == 1 {
                    return Some(now(s.atomic_min_vec_with(i, b, sem, scope)));
                }
                if op == 2 {
                    return Some(now(s.atomic_max_vec_with(i, b, sem, scope)));
                }
                if op == 11 {
                    now(s.red_min_vec_with(i, b, red, scope));
                    return None;
                }
                if op == 12 {
                    now(s.red_max_vec_with(i, b, red, scope));
                    return None;
                }
            )?
            None
        }
    )*};
}

vec_body! {
    vec2_f32: f32, 2, [];
    vec4_f32: f32, 4, [];
    vec2_f16: f16, 2, [minmax];
    vec4_f16: f16, 4, [minmax];
    vec8_f16: f16, 8, [minmax];
    vec2_bf16: bf16, 2, [minmax];
    vec4_bf16: bf16, 4, [minmax];
    vec8_bf16: bf16, 8, [minmax];
    vec2_f16x2: F16x2, 2, [minmax];
    vec4_f16x2: F16x2, 4, [minmax];
    vec2_bf16x2: Bf16x2, 2, [minmax];
    vec4_bf16x2: Bf16x2, 4, [minmax];
}
