//! Which warp runs next: the scheduling policies of block and grid launches.
//!
//! A launch runs the warps of its resident blocks interleaved on each CPU thread. A warp runs
//! until it reaches a *scheduling point*: it waits at a CTA barrier, it exits, or one of its lanes
//! suspends at a memory operation (an atomic or a volatile load). There the [`Schedule`] decides
//! which runnable warp runs next. The decisions are data: a schedule with its seed replays exactly
//! (on one CPU thread), and every report names the schedule that produced it.
//!
//! - [`Schedule::InOrder`]: the current warp keeps running as long as it makes progress; when it
//!   waits, exits or spins (re-reading memory that nothing has written), the next runnable warp
//!   in order (block by block, warp by warp, cyclically) runs. New blocks become resident only
//!   when every resident warp is waiting or spinning. Deterministic and the fastest.
//! - [`Schedule::Random`]: at every scheduling point a runnable warp chosen uniformly at random;
//!   every free resident slot is filled at once, so blocks interleave.
//! - [`Schedule::Pct`]: probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010, as in
//!   shuttle's `PctScheduler`): each warp gets a random priority and the highest-priority runnable
//!   warp runs; at `depth - 1` randomly chosen scheduling points the running warp drops below every
//!   other. A bug that needs `d` ordering constraints is found with probability at least
//!   `1 / (n * k^(d-1))` per run. A warp that spins also drops, so spin-waits complete.
//!
//! [`Grid::explore`](crate::Grid::explore) runs a kernel under many seeds and returns the first
//! failing schedule.

use core::fmt;

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A scheduling policy, with its seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Schedule {
    /// Run the current warp while it makes progress, then the next runnable one in order.
    #[default]
    InOrder,
    /// A runnable warp chosen uniformly at random at every scheduling point.
    Random {
        /// The seed.
        seed: u64,
    },
    /// PCT: random priorities, lowered at `depth - 1` random points.
    Pct {
        /// The seed.
        seed: u64,
        /// The bug depth searched for (at least 1).
        depth: u32,
        /// The scheduling points the change points are drawn from (`1..=horizon`): about the
        /// number a run takes. [`Grid::explore`](crate::Grid::explore) learns it from its runs.
        horizon: u64,
    },
}

impl Schedule {
    /// PCT with `seed` and `depth`, change points drawn from the first
    /// [`DEFAULT_PCT_HORIZON`] scheduling points.
    pub const fn pct(seed: u64, depth: u32) -> Schedule {
        Schedule::Pct { seed, depth, horizon: DEFAULT_PCT_HORIZON }
    }

    /// The same kind of schedule with another seed (`InOrder` has none).
    pub fn with_seed(self, seed: u64) -> Schedule {
        match self {
            Schedule::InOrder => Schedule::InOrder,
            Schedule::Random { .. } => Schedule::Random { seed },
            Schedule::Pct { depth, horizon, .. } => Schedule::Pct { seed, depth, horizon },
        }
    }

    /// Whether free resident slots are filled as soon as possible (so that blocks interleave),
    /// rather than only when every resident warp waits or spins.
    pub(crate) fn fills_eagerly(self) -> bool {
        !matches!(self, Schedule::InOrder)
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Schedule::InOrder => f.write_str("in order"),
            Schedule::Random { seed } => write!(f, "Schedule::Random {{ seed: {seed:#x} }}"),
            Schedule::Pct { seed, depth, horizon } => write!(f, "Schedule::Pct {{ seed: {seed:#x}, depth: {depth}, horizon: {horizon} }}"),
        }
    }
}

/// How many scheduling points PCT spreads its change points over when nothing better is known
/// ([`Grid::explore`](crate::Grid::explore) learns it from the runs it makes).
pub const DEFAULT_PCT_HORIZON: u64 = 256;

std::thread_local! {
    /// The most scheduling points a launch on this thread has taken since the last
    /// [`take_points`]: how `explore` learns PCT's horizon.
    static POINTS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

/// Returns and clears the most scheduling points a launch on this thread took.
pub(crate) fn take_points() -> u64 {
    POINTS.with(|p| p.replace(0))
}

/// The state of one run's policy: its random stream and, for PCT, the priorities.
pub(crate) struct Scheduler {
    schedule: Schedule,
    rng: ChaCha8Rng,
    /// PCT: each task's priority (higher runs first).
    priority: Vec<u64>,
    /// PCT: the scheduling points at which the running task is lowered.
    change_points: Vec<u64>,
    /// PCT: the next priority below every other.
    lowest: u64,
    /// Scheduling points so far.
    points: u64,
}

/// Why the scheduler is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reason {
    /// The current task suspended at a memory operation; `spinning` if its step made no
    /// progress.
    Yield {
        /// No progress.
        spinning: bool,
    },
    /// The current task cannot run (it waits at a barrier or has exited), or there is none.
    Blocked,
}

impl Scheduler {
    pub(crate) fn new(schedule: Schedule, tasks: usize) -> Scheduler {
        let horizon = match schedule {
            Schedule::Pct { horizon, .. } => horizon.max(1),
            _ => 1,
        };
        let seed = match schedule {
            Schedule::InOrder => 0,
            Schedule::Random { seed } | Schedule::Pct { seed, .. } => seed,
        };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut change_points = Vec::new();
        if let Schedule::Pct { depth, .. } = schedule {
            for _ in 1..depth.max(1) {
                change_points.push(1 + rng.next_u64() % horizon);
            }
        }
        let priority = (0..tasks).map(|_| if matches!(schedule, Schedule::Pct { .. }) { (rng.next_u64() >> 1) | 1 << 62 } else { 0 }).collect();
        Scheduler { schedule, rng, priority, change_points, lowest: 1 << 62, points: 0 }
    }

    /// A task slot was given new work (a block became resident): under PCT it gets a new random
    /// priority.
    pub(crate) fn renew(&mut self, task: usize) {
        if matches!(self.schedule, Schedule::Pct { .. }) {
            self.priority[task] = (self.rng.next_u64() >> 1) | 1 << 62;
        }
    }

    fn lower(&mut self, task: usize) {
        self.lowest -= 1;
        self.priority[task] = self.lowest;
    }

    /// The task to run next among `runnable` (a predicate over task indices `0..n`), given the
    /// current task and why the scheduler is asked. `None` when nothing is runnable.
    pub(crate) fn pick(&mut self, n: usize, current: Option<usize>, reason: Reason, runnable: impl Fn(usize) -> bool) -> Option<usize> {
        self.points += 1;
        match self.schedule {
            Schedule::InOrder => {
                if let (Some(c), Reason::Yield { spinning: false }) = (current, reason) {
                    if runnable(c) {
                        return Some(c);
                    }
                }
                let start = current.map_or(0, |c| c + 1);
                (0..n).map(|i| (start + i) % n).find(|&t| runnable(t))
            }
            Schedule::Random { .. } => {
                let count = (0..n).filter(|&t| runnable(t)).count();
                if count == 0 {
                    return None;
                }
                let k = (self.rng.next_u64() % count as u64) as usize;
                (0..n).filter(|&t| runnable(t)).nth(k)
            }
            Schedule::Pct { .. } => {
                if let Some(c) = current {
                    let change = self.change_points.contains(&self.points);
                    if change || reason == (Reason::Yield { spinning: true }) {
                        self.lower(c);
                    }
                }
                (0..n).filter(|&t| runnable(t)).max_by_key(|&t| self.priority[t])
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_order_keeps_a_progressing_task_and_moves_on_from_a_spinning_one() {
        let mut s = Scheduler::new(Schedule::InOrder, 4);
        assert_eq!(s.pick(4, Some(1), Reason::Yield { spinning: false }, |_| true), Some(1));
        assert_eq!(s.pick(4, Some(1), Reason::Yield { spinning: true }, |_| true), Some(2));
        assert_eq!(s.pick(4, Some(3), Reason::Blocked, |t| t != 3), Some(0));
        assert_eq!(s.pick(4, None, Reason::Blocked, |_| false), None);
    }

    #[test]
    fn random_and_pct_replay_from_their_seed() {
        for schedule in [Schedule::Random { seed: 9 }, Schedule::pct(9, 3)] {
            let run = || {
                let mut s = Scheduler::new(schedule, 8);
                (0..200).map(|i| s.pick(8, Some(i % 8), Reason::Yield { spinning: i % 3 == 0 }, |t| t % 3 != 1).unwrap()).collect::<Vec<_>>()
            };
            let a = run();
            assert_eq!(a, run());
            assert!(a.iter().all(|t| t % 3 != 1));
            let distinct = (0..8).filter(|t| a.contains(t)).count();
            assert!(distinct > 2, "{schedule}: {a:?}");
        }
    }

    /// PCT lowers a spinning task below every other, so the others run.
    #[test]
    fn pct_lowers_a_spinning_task() {
        let mut s = Scheduler::new(Schedule::pct(1, 1), 2);
        let first = s.pick(2, None, Reason::Blocked, |_| true).unwrap();
        let next = s.pick(2, Some(first), Reason::Yield { spinning: true }, |_| true).unwrap();
        assert_ne!(first, next);
    }
}

impl Drop for Scheduler {
    /// Records how many scheduling points the launch took, for [`take_points`].
    fn drop(&mut self) {
        POINTS.with(|p| p.set(p.get().max(self.points)));
    }
}
