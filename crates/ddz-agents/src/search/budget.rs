//! What one decision of a search may spend.

use std::time::{Duration, Instant};

/// How much a search may spend on one decision: a number of its units (simulations for ISMCTS,
/// worlds for PIMC and alpha-beta) and, when set, a time; it stops at whichever ends first,
/// and always finishes at least one unit, so that it has an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Units at most (at least one runs).
    pub count: usize,
    /// Time at most, checked where the search can stop cleanly; `None`: no time limit.
    pub time: Option<Duration>,
}

impl Budget {
    /// `count` units and no time limit.
    pub const fn count(count: usize) -> Budget {
        Budget { count, time: None }
    }

    /// The same count with a time limit of `ms` milliseconds (0: none), as the `ms` knob of a
    /// search agent gives it.
    pub fn with_ms(self, ms: u64) -> Budget {
        Budget { time: Some(Duration::from_millis(ms)).filter(|_| ms > 0), ..self }
    }

    /// The time limit in milliseconds (0: none).
    pub fn ms(&self) -> u64 {
        self.time.map_or(0, |t| t.as_millis() as u64)
    }

    /// When a search started at `started` must stop, if it has a time limit.
    pub fn deadline(&self, started: Instant) -> Option<Instant> {
        self.time.map(|t| started + t)
    }

    /// The units to run: the count, at least one.
    pub fn units(&self) -> usize {
        self.count.max(1)
    }

    /// When the drawing and weighing of worlds for a search started at `started` must stop:
    /// half the time, so that scoring them has the other half.
    pub fn drawing_deadline(&self, started: Instant) -> Deadline {
        Deadline(self.time.map(|t| started + t / 2))
    }

    /// The same budget with `time` instead (`None`: no limit).
    pub fn with_time(self, time: Option<Duration>) -> Budget {
        Budget { time, ..self }
    }
}

/// The moment a phase of a search must stop by, if any: every phase that can take long (drawing
/// worlds, weighing them, moving them toward a model, the tree, the solver) checks one, so that
/// a time budget bounds the whole answer. Each phase still finishes one unit of its work (one
/// world, one step), so that it has something to hand on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Deadline(pub Option<Instant>);

impl Deadline {
    /// No deadline: the phase runs its whole count.
    pub const NONE: Deadline = Deadline(None);

    /// Whether the moment has passed.
    pub fn passed(self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }

    /// The time left from now (zero once passed), if there is a deadline.
    pub fn left(self) -> Option<Duration> {
        self.0.map(|d| d.saturating_duration_since(Instant::now()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_has_a_count_and_maybe_a_time() {
        let b = Budget::count(16).with_ms(250);
        assert_eq!((b.count, b.ms(), b.time), (16, 250, Some(Duration::from_millis(250))));
        assert_eq!(Budget::count(16).with_ms(0).time, None, "ms=0 is no limit");
        assert_eq!(Budget::count(0).units(), 1, "at least one unit runs");
        let now = Instant::now();
        assert_eq!(b.deadline(now), Some(now + Duration::from_millis(250)));
        assert_eq!(Budget::count(3).deadline(now), None);
        assert_eq!(b.drawing_deadline(now), Deadline(Some(now + Duration::from_millis(125))), "half for drawing");
        assert_eq!(Budget::count(3).drawing_deadline(now), Deadline::NONE);
        assert!(!Deadline::NONE.passed() && Deadline::NONE.left().is_none());
        let past = Deadline(Some(now));
        assert!(past.passed() && past.left() == Some(Duration::ZERO));
    }
}
