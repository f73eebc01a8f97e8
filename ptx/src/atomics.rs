//! `atom`/`red` conformance kernels: one kernel per (space, element type) and per vector form,
//! holding every operation of its type and every `.sem`/`.scope` pair (chosen by uniform
//! parameters; see [`crate::atomics_ops`], whose functions are the kernels' bodies).
//!
//! Launch convention: a 1-D grid; thread `t < n` works on element `t` (vectors: elements
//! `N t .. N t + N`) of its own, so no two threads touch one element and the result does not
//! depend on their order. Every array is the elements' bytes (`u32` words on the host side, two
//! `f16` to a word):
//!
//! | kernel | parameters | what it executes |
//! |---|---|---|
//! | `conf_atom_global_<ty>` | `(mem, b, c, old, n, op, q)` | `old[t] = op(mem[t], b[t], c[t])` with `.sem`/`.scope` from `q` (`red`: `old` untouched) |
//! | `conf_atom_shared_<ty>` | the same, and `ntid.x * size` bytes of dynamic shared memory | `s[tid] = mem[t]`, the operation on `s[tid]`, then `mem[t] = s[tid]` |
//! | `conf_atom_vec<N>_<ty>` | `(mem, b, old, n, op, q)` (global, sm_90) | the `.v<N>` form on elements `N t ..` |
//!
//! `<ty>` is `u32`, `s32`, `u64`, `s64`, `f32`, `f64`, `f16`, `bf16`, `f16x2`, `bf16x2` or `b128`;
//! `bf16`, `bf16x2`, `b128` and the vector kernels exist on sm_90 and later only, as their
//! instructions do.

use crate::atomics_ops as ops;
use crate::global_thread_index as gid;
#[allow(unused_imports)]
use warp_runtime::{bf16, f16, Bf16x2, F16x2, GlobalSlice, SharedSlice};

/// The address of the module's dynamic shared memory.
#[inline(always)]
fn dynamic_smem() -> u64 {
    let a: u64;
    // SAFETY: reads the address of the `extern .shared` array warp-runtime declares.
    unsafe { core::arch::asm!("mov.u64 {a}, __warpkit_dynamic_smem;", a = out(reg64) a, options(pure, nomem, nostack)) };
    a
}

macro_rules! scalar_kernels {
    ($($(#[$cfg:meta])* $global:ident, $shared:ident, $t:ty, $gbody:ident, $sbody:ident;)*) => {$(
        $(#[$cfg])*
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $global(mem: *mut u8, b: *const u8, c: *const u8, old: *mut u8, n: u32, op: u32, q: u32) {
            let t = gid();
            if t >= n as usize {
                return;
            }
            let s = GlobalSlice::<$t>::from_raw_parts(mem as *mut $t, n as usize);
            let (bv, cv) = (*(b as *const $t).add(t), *(c as *const $t).add(t));
            if let Some(o) = ops::$gbody(s, t, op, bv, cv, q) {
                *(old as *mut $t).add(t) = o;
            }
        }

        $(#[$cfg])*
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $shared(mem: *mut u8, b: *const u8, c: *const u8, old: *mut u8, n: u32, op: u32, q: u32) {
            let t = gid();
            if t >= n as usize {
                return;
            }
            let r = warp_runtime::nvptx::tid_x() as usize;
            let s = SharedSlice::<$t>::from_shared_addr(dynamic_smem(), warp_runtime::nvptx::ntid_x() as usize);
            s.store(r, *(mem as *const $t).add(t));
            let (bv, cv) = (*(b as *const $t).add(t), *(c as *const $t).add(t));
            if let Some(o) = ops::$sbody(s, r, op, bv, cv, q) {
                *(old as *mut $t).add(t) = o;
            }
            *(mem as *mut $t).add(t) = s.load(r);
        }
    )*};
}

scalar_kernels! {
    conf_atom_global_u32, conf_atom_shared_u32, u32, global_u32, shared_u32;
    conf_atom_global_s32, conf_atom_shared_s32, i32, global_s32, shared_s32;
    conf_atom_global_u64, conf_atom_shared_u64, u64, global_u64, shared_u64;
    conf_atom_global_s64, conf_atom_shared_s64, i64, global_s64, shared_s64;
    conf_atom_global_f32, conf_atom_shared_f32, f32, global_f32, shared_f32;
    conf_atom_global_f64, conf_atom_shared_f64, f64, global_f64, shared_f64;
    conf_atom_global_f16, conf_atom_shared_f16, f16, global_f16, shared_f16;
    #[cfg(target_feature = "sm_90")]
    conf_atom_global_bf16, conf_atom_shared_bf16, bf16, global_bf16, shared_bf16;
    conf_atom_global_f16x2, conf_atom_shared_f16x2, F16x2, global_f16x2, shared_f16x2;
    #[cfg(target_feature = "sm_90")]
    conf_atom_global_bf16x2, conf_atom_shared_bf16x2, Bf16x2, global_bf16x2, shared_bf16x2;
    #[cfg(target_feature = "sm_90")]
    conf_atom_global_b128, conf_atom_shared_b128, u128, global_b128, shared_b128;
}

macro_rules! vec_kernels {
    ($($name:ident, $t:ty, $n:literal, $body:ident;)*) => {$(
        #[cfg(target_feature = "sm_90")]
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(mem: *mut u8, b: *const u8, old: *mut u8, n: u32, op: u32, q: u32) {
            let t = gid();
            if t >= n as usize {
                return;
            }
            let s = GlobalSlice::<$t>::from_raw_parts(mem as *mut $t, $n * n as usize);
            let bv = *(b as *const [$t; $n]).add(t);
            if let Some(o) = ops::$body(s, $n * t, op, bv, q) {
                *(old as *mut [$t; $n]).add(t) = o;
            }
        }
    )*};
}

vec_kernels! {
    conf_atom_vec2_f32, f32, 2, vec2_f32;
    conf_atom_vec4_f32, f32, 4, vec4_f32;
    conf_atom_vec2_f16, f16, 2, vec2_f16;
    conf_atom_vec4_f16, f16, 4, vec4_f16;
    conf_atom_vec8_f16, f16, 8, vec8_f16;
    conf_atom_vec2_bf16, bf16, 2, vec2_bf16;
    conf_atom_vec4_bf16, bf16, 4, vec4_bf16;
    conf_atom_vec8_bf16, bf16, 8, vec8_bf16;
    conf_atom_vec2_f16x2, F16x2, 2, vec2_f16x2;
    conf_atom_vec4_f16x2, F16x2, 4, vec4_f16x2;
    conf_atom_vec2_bf16x2, Bf16x2, 2, vec2_bf16x2;
    conf_atom_vec4_bf16x2, Bf16x2, 4, vec4_bf16x2;
}
