//! Operators on an [`Intrinsic`] that was not awaited: each one is a compile error that says so.
//!
//! An instruction method returns the instruction in flight; its result exists once the future is
//! awaited (`#[warp_kernel]` inserts the `.await`). Outside a warp function, in a plain `fn` or in
//! code written against the runtime that forgets the `.await`, `w.shfl_down(v, 1) + 1` was
//! "cannot add `{integer}` to `Intrinsic<'_, AsValue<u32>>`". The impls below make the arithmetic
//! and comparison operators exist for an `Intrinsic` operand (on either side of a primitive) under
//! a bound that never holds, whose `#[diagnostic::on_unimplemented]` message is the explanation.
//! None of them can be called.
//!
//! How the bound is placed matters to rustc (1.95):
//! - `intrinsic OP rhs`: the bound is on the right operand's type (`Rhs: AwaitedOperand<Self>`),
//!   which is still an inference variable when rustc looks the operator up, so the lookup succeeds
//!   and the unmet bound is reported with this message (a bound on `Self` fails the lookup, and
//!   rustc reports its own "cannot add" instead).
//! - `lhs OP intrinsic` and `lhs OP= intrinsic` for a primitive `lhs` of known type: the bound is
//!   on the `Intrinsic` (`Intrinsic: Awaited`). An integer literal on the left (`2 * intrinsic`)
//!   stays rustc's message: no impl is chosen for `{integer}` among the integer types.
//! - Each `Output` is a projection through the unmet bound, which rustc cannot normalize, so the
//!   result's type does not cause a second error ("expected `u32`, found ...").
//!
//! Comparisons with a primitive on the left (`x < intrinsic`) are type mismatches in rustc
//! whatever the impls (E0308), as is `let v: u32 = intrinsic;`; neither can carry a message.

use crate::handle::Intrinsic;

mod sealed {
    pub trait Sealed {}
}

/// The type that implements the traits below (so that rustc does not suggest implementing them);
/// hidden from suggestions by `do_not_recommend`.
pub struct Never;
impl sealed::Sealed for Never {}

/// Holds for no warp instruction in flight: the bound of an operator with an [`Intrinsic`] on the
/// right of a primitive.
#[diagnostic::on_unimplemented(
    message = "a warp instruction's result is used without awaiting it: `{Self}` is the instruction in flight, not its value",
    label = "not awaited",
    note = "call warp instructions in a `#[warp_kernel]` function, which awaits each one; code written against the runtime directly writes `.await` after the call"
)]
pub trait Awaited: sealed::Sealed {
    /// Never normalized.
    type Output;
}

#[diagnostic::do_not_recommend]
impl Awaited for Never {
    type Output = Never;
}

/// Holds for no operand of a warp instruction in flight `I`: the bound of an operator with an
/// [`Intrinsic`] on the left.
#[diagnostic::on_unimplemented(
    message = "a warp instruction's result is used without awaiting it: `{I}` is the instruction in flight, not its value",
    label = "not awaited",
    note = "call warp instructions in a `#[warp_kernel]` function, which awaits each one; code written against the runtime directly writes `.await` after the call"
)]
pub trait AwaitedOperand<I>: sealed::Sealed {
    /// Never normalized.
    type Output;
}

#[diagnostic::do_not_recommend]
impl AwaitedOperand<Never> for Never {
    type Output = Never;
}

macro_rules! binary {
    ($($op:ident $method:ident $assign:ident $assign_method:ident: $($prim:ty)*;)*) => {$(
        impl<'w, D, R> core::ops::$op<R> for Intrinsic<'w, D>
        where
            R: AwaitedOperand<Self>,
        {
            type Output = <R as AwaitedOperand<Self>>::Output;
            fn $method(self, _: R) -> Self::Output {
                unreachable!("the bound never holds")
            }
        }
        $(
            impl<'w, D> core::ops::$op<Intrinsic<'w, D>> for $prim
            where
                Intrinsic<'w, D>: Awaited,
            {
                type Output = <Intrinsic<'w, D> as Awaited>::Output;
                fn $method(self, _: Intrinsic<'w, D>) -> Self::Output {
                    unreachable!("the bound never holds")
                }
            }
            impl<'w, D> core::ops::$assign<Intrinsic<'w, D>> for $prim
            where
                Intrinsic<'w, D>: Awaited,
            {
                fn $assign_method(&mut self, _: Intrinsic<'w, D>) {
                    unreachable!("the bound never holds")
                }
            }
        )*
    )*};
}

binary! {
    Add add AddAssign add_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64;
    Sub sub SubAssign sub_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64;
    Mul mul MulAssign mul_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64;
    Div div DivAssign div_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64;
    Rem rem RemAssign rem_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize f32 f64;
    BitAnd bitand BitAndAssign bitand_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize bool;
    BitOr bitor BitOrAssign bitor_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize bool;
    BitXor bitxor BitXorAssign bitxor_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize bool;
    Shl shl ShlAssign shl_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize;
    Shr shr ShrAssign shr_assign: u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize;
}

impl<'w, D, R> PartialEq<R> for Intrinsic<'w, D>
where
    R: AwaitedOperand<Self>,
{
    fn eq(&self, _: &R) -> bool {
        unreachable!("the bound never holds")
    }
}

impl<'w, D, R> PartialOrd<R> for Intrinsic<'w, D>
where
    R: AwaitedOperand<Self>,
{
    fn partial_cmp(&self, _: &R) -> Option<core::cmp::Ordering> {
        unreachable!("the bound never holds")
    }
}
