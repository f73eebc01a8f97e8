//! Launching a grid of many warps.
