//! One table of the ranges of the sizes, counts, threads and times a user gives ddz (config
//! keys, command-line settings, Python arguments), and the one check every such value goes
//! through before it is used.
//!
//! A value out of range is an error naming the setting, the value and the range, never a huge
//! allocation (an abort), thousands of millions of threads (a stack overflow) or a time that
//! overflows a `Duration` (a panic). The bounds are what a machine can hold and a run can use,
//! far above any setting that makes sense. Agent knobs have their own table
//! (`agents::knobs`), which bounds them the same way; protocol fields are checked where they
//! are read, against the game's own limits.

/// A setting's range: whole numbers (or any finite number) from `least` to `most`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limit {
    /// The setting as the user writes it: a config key (`learner.threads`), a pretraining
    /// setting (`pretrain.batch_size`) or a Python argument (`VecEnv(timeout)`).
    pub name: &'static str,
    /// The smallest value allowed.
    pub least: f64,
    /// The largest value allowed.
    pub most: f64,
    /// Whole numbers only.
    pub whole: bool,
}

const fn whole(name: &'static str, least: u64, most: u64) -> Limit {
    Limit { name, least: least as f64, most: most as f64, whole: true }
}

const fn number(name: &'static str, least: f64, most: f64) -> Limit {
    Limit { name, least, most, whole: false }
}

/// The longest wait or budget a setting may give, in seconds (about 31 years): far beyond any
/// use, well inside what a `Duration` and a timer can hold.
pub const MOST_SECONDS: f64 = 1e9;

/// The most deals one call generates (about 40 bytes each in memory, 330 as text): above it a
/// request is an error naming the limit, never an allocation that aborts.
pub const MOST_DEALS: u64 = 10_000_000;

/// The longest request line a line server reads (1 MiB: a batch of the most requests with
/// whole games' histories fits).
pub const MOST_LINE_BYTES: u64 = 1 << 20;

/// The most requests in one batch line: a laizi lead can have 8,000 legal plays, so a batch's
/// plays are bounded by this times that (and scored [`PLAYS_PER_PASS`] at a time).
pub const MOST_BATCH_ITEMS: u64 = 256;

/// Plays a network scores in one forward pass at most: a decision or a batch with more is
/// scored in passes of this many, so a large one costs time, never unbounded memory.
pub const PLAYS_PER_PASS: usize = 4096;

/// The table: every entry is checked by [`check`] where the value is read, and the fuzz test
/// (`tests/fuzz.rs`, `python/tests/test_env.py`) drives each entry's real reader with values
/// from the whole range of its type.
pub const LIMITS: &[Limit] = &[
    // `ddz train` config ([section] key).
    whole("learner.batch_size", 1, 1 << 20),
    whole("learner.threads", 1, 1024),
    whole("learner.queue_games", 1, 1 << 20),
    whole("learner.publish_every_steps", 0, 1 << 40),
    whole("actors.count", 0, 1024),
    whole("actors.games_in_flight", 1, 1 << 16),
    whole("pool.size", 1, 1000),
    whole("pool.snapshot_every_steps", 0, 1 << 40),
    whole("pool.redraw_every_games", 0, 1 << 40),
    whole("broker.stream_cap", 1, 1 << 24),
    whole("broker.publish_every_steps", 1, 1 << 40),
    whole("game.bid_batch_size", 1, 1 << 20),
    whole("checkpoint.keep_last", 1, 1 << 20),
    whole("log.every_steps", 0, 1 << 40),
    whole("log.win_rate_window", 1, 1 << 20),
    whole("eval.deals", 0, 1 << 20),
    number("budget.max_seconds", 0.0, MOST_SECONDS),
    number("checkpoint.every_minutes", 0.0, MOST_SECONDS / 60.0),
    number("pool.snapshot_every_minutes", 0.0, MOST_SECONDS / 60.0),
    // `ddz pretrain` settings (its flags).
    whole("pretrain.steps", 1, 1 << 40),
    whole("pretrain.batch_size", 1, 1 << 16),
    whole("pretrain.val_every", 1, 1 << 40),
    whole("pretrain.patience", 1, 1 << 20),
    // Command-line settings of evaluation and the bots.
    whole("--threads", 1, 1024),
    // Protocol sizes of the line servers (`ddz bot`, `moves`, `solve`; `ddz.Agent`): checked
    // on what arrives, so one request line costs bounded memory. A line longer than this is
    // answered with an error and skipped unread; a batch holds at most this many requests.
    whole("protocol.line_bytes", 0, MOST_LINE_BYTES),
    whole("protocol.batch_items", 0, MOST_BATCH_ITEMS),
    // Python arguments.
    number("Agent(timeout)", 1e-3, MOST_SECONDS),
    number("VecEnv(timeout)", 1e-3, MOST_SECONDS),
    whole("VecEnv(n)", 1, 1 << 16),
    whole("generate_deals(n)", 0, MOST_DEALS),
];

/// A value out of its declared range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{name} = {value}: {range}")]
pub struct LimitError {
    /// The setting.
    pub name: String,
    /// The value given, as written.
    pub value: String,
    /// The range, in words.
    pub range: String,
}

impl Limit {
    /// The range in words: "a whole number from 1 to 1024".
    pub fn describe(&self) -> String {
        match self.whole {
            true => format!("a whole number from {} to {}", self.least, self.most),
            false => format!("a number from {} to {}", self.least, self.most),
        }
    }

    /// Whether `value` is in range (never for NaN or infinities).
    pub fn holds(&self, value: f64) -> bool {
        value.is_finite() && (self.least..=self.most).contains(&value) && (!self.whole || value.fract() == 0.0)
    }
}

/// The entry of `name`. Every name a reader checks is in the table (a unit test reads them
/// all); one that is not holds no value, so a typo fails loudly, not open.
pub fn limit(name: &str) -> Limit {
    const NONE: Limit = Limit { name: "(undeclared)", least: 1.0, most: 0.0, whole: true };
    LIMITS.iter().copied().find(|l| l.name == name).unwrap_or(NONE)
}

/// `value` if it is in the range of `name`, else the error naming both and the range.
pub fn check<T: Copy + Into<Checked>>(name: &str, value: T) -> Result<T, LimitError> {
    verify(name, value.into()).map(|()| value)
}

/// [`check`] for a value already taken in.
pub fn verify(name: &str, Checked(x, text): Checked) -> Result<(), LimitError> {
    let l = limit(name);
    match l.holds(x) {
        true => Ok(()),
        false => Err(LimitError { name: name.to_string(), value: text, range: l.describe() }),
    }
}

/// A value as [`check`] compares it (a number) and names it (as written).
pub struct Checked(f64, String);

macro_rules! checked_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Checked {
            fn from(v: $t) -> Checked {
                Checked(v as f64, v.to_string())
            }
        }
    )*};
}
checked_from!(u32, u64, usize, i32, i64, f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_hold_inside_and_fail_outside_naming_the_setting() {
        assert_eq!(check("learner.threads", 1i32), Ok(1));
        assert_eq!(check("learner.threads", 1024i32), Ok(1024));
        let e = check("learner.threads", 100_000_000i32).unwrap_err().to_string();
        assert_eq!(e, "learner.threads = 100000000: a whole number from 1 to 1024");
        assert!(check("learner.threads", -1i32).is_err());
        assert!(check("budget.max_seconds", f64::NAN).unwrap_err().to_string().contains("= NaN"));
        assert!(check("budget.max_seconds", f64::INFINITY).is_err());
        assert!(check("VecEnv(timeout)", 1e20).is_err());
        assert!(check("pretrain.batch_size", 4_000_000_000usize).is_err());
        assert!(check("pretrain.batch_size", u64::MAX).is_err());
        assert!(check("no.such.setting", 0u64).is_err(), "an undeclared name fails closed");
        let names: std::collections::HashSet<&str> = LIMITS.iter().map(|l| l.name).collect();
        assert_eq!(names.len(), LIMITS.len(), "one entry per setting");
        assert!(LIMITS.iter().all(|l| l.least <= l.most && l.most <= 2f64.powi(53)));
    }
}
