//! `%laneid` and the `%lanemask_*` special registers.
//!
//! "%lanemask_eq: a 32-bit mask with a bit set in the position equal to the thread's lane number";
//! `_le`, `_lt`, `_ge`, `_gt`: bits set in positions less than or equal to, less than, greater than
//! or equal to, greater than the lane number.

/// `%lanemask_eq`
#[inline]
pub const fn eq(lane: u32) -> u32 {
    1 << lane
}
/// `%lanemask_lt`
#[inline]
pub const fn lt(lane: u32) -> u32 {
    (1 << lane) - 1
}
/// `%lanemask_le`
#[inline]
pub const fn le(lane: u32) -> u32 {
    lt(lane) | eq(lane)
}
/// `%lanemask_gt`
#[inline]
pub const fn gt(lane: u32) -> u32 {
    !le(lane)
}
/// `%lanemask_ge`
#[inline]
pub const fn ge(lane: u32) -> u32 {
    !lt(lane)
}
