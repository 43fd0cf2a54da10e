//! Watching a run: TensorBoard scalars, moving-average win rates, and a progress bar (hidden
//! when stderr is not a terminal).

use super::actor::Learning;
use super::config::{BudgetConfig, LogConfig};
use crate::model::{StepStats, learner::ROLE_NAMES};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::Path;
use tensorboard_rs::summary_writer::SummaryWriter;

/// The unit the progress bar counts in: the budget that is set, seconds first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarUnit {
    /// `budget.max_seconds` is set.
    Seconds,
    /// `budget.max_frames` is set (and no time budget).
    Frames,
    /// `budget.max_games` is set (and neither of the others).
    Games,
    /// No budget: a spinner instead of a bar.
    Unbounded,
}

/// A run's TensorBoard writer (when `log.tensorboard`), progress bar and moving-average win
/// rates of the learning side.
pub struct Monitor {
    tb: Option<SummaryWriter>,
    bar: ProgressBar,
    unit: BarUnit,
    window: usize,
    /// Results of games in which the landlord learned against a frozen opponent (true = won).
    landlord: VecDeque<bool>,
    /// Results of games in which the farmers learned against a frozen opponent (true = won).
    farmers: VecDeque<bool>,
    /// The same against the rule agent (`pool.rule_share`).
    rule_landlord: VecDeque<bool>,
    rule_farmers: VecDeque<bool>,
}

fn push(q: &mut VecDeque<bool>, v: bool, window: usize) {
    q.push_back(v);
    while q.len() > window {
        q.pop_front();
    }
}

fn rate(q: &VecDeque<bool>) -> Option<f64> {
    (!q.is_empty()).then(|| q.iter().filter(|&&w| w).count() as f64 / q.len() as f64)
}

impl Monitor {
    /// A monitor whose bar counts toward the session's budget from `start` (frames, games so
    /// far: a resumed run's bar starts where the run stands, with a fresh time estimate).
    pub fn new(run: &Path, log: &LogConfig, budget: &BudgetConfig, quiet: bool, start: (u64, u64)) -> Monitor {
        let tb = log.tensorboard.then(|| SummaryWriter::new(run.join("tb")));
        let (unit, len) = if budget.max_seconds > 0.0 {
            (BarUnit::Seconds, budget.max_seconds.ceil() as u64)
        } else if budget.max_frames > 0 {
            (BarUnit::Frames, budget.max_frames)
        } else if budget.max_games > 0 {
            (BarUnit::Games, budget.max_games)
        } else {
            (BarUnit::Unbounded, 0)
        };
        let bar = if unit == BarUnit::Unbounded { ProgressBar::new_spinner() } else { ProgressBar::new(len) };
        let template = if unit == BarUnit::Unbounded { SPINNER_STYLE } else { BAR_STYLE };
        // The style is cosmetic: a template that did not parse would leave the default bar.
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_prefix(match unit {
            BarUnit::Seconds => "s",
            BarUnit::Frames => "frames",
            BarUnit::Games => "games",
            BarUnit::Unbounded => "",
        });
        if quiet || !std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        match unit {
            BarUnit::Frames => bar.set_position(start.0),
            BarUnit::Games => bar.set_position(start.1),
            BarUnit::Seconds | BarUnit::Unbounded => {}
        }
        bar.reset_eta();
        let window = log.win_rate_window.max(1);
        Monitor {
            tb,
            bar,
            unit,
            window,
            landlord: VecDeque::new(),
            farmers: VecDeque::new(),
            rule_landlord: VecDeque::new(),
            rule_farmers: VecDeque::new(),
        }
    }

    /// Counts a finished game toward the learning side's win rate (against the pool, or the
    /// rule agent when `vs_rule`); games in which every seat learned count in none.
    pub fn record_game(&mut self, learning: Learning, vs_rule: bool, landlord_won: bool) {
        let (landlord, farmers) = if vs_rule {
            (&mut self.rule_landlord, &mut self.rule_farmers)
        } else {
            (&mut self.landlord, &mut self.farmers)
        };
        match learning {
            Learning::Landlord => push(landlord, landlord_won, self.window),
            Learning::Farmers => push(farmers, !landlord_won, self.window),
            Learning::AllSeats => {}
        }
    }

    /// (landlord, farmers) moving-average win rates against the pool.
    pub fn win_rates(&self) -> (Option<f64>, Option<f64>) {
        (rate(&self.landlord), rate(&self.farmers))
    }

    /// (landlord, farmers) moving-average win rates against the rule agent.
    pub fn rule_win_rates(&self) -> (Option<f64>, Option<f64>) {
        (rate(&self.rule_landlord), rate(&self.rule_farmers))
    }

    /// Shows the loss, frames/s and win rates on the bar and, with TensorBoard, writes them at
    /// learner step `step` with the rest of `stats`, the games/s, the queue depth, the pool's
    /// size and the frames learned.
    #[allow(clippy::too_many_arguments)]
    pub fn scalars(
        &mut self,
        step: u64,
        stats: &StepStats,
        frames_per_s: f64,
        games_per_s: f64,
        queue: usize,
        pool: usize,
        frames: u64,
    ) {
        let (wl, wf) = self.win_rates();
        let (rl, rf) = self.rule_win_rates();
        self.bar.set_message(format!(
            "loss {:.3} | {:.0} frames/s | WP vs pool L {} F {}",
            stats.loss,
            frames_per_s,
            wl.map_or("-".into(), |w| format!("{w:.2}")),
            wf.map_or("-".into(), |w| format!("{w:.2}"))
        ));
        let Some(tb) = self.tb.as_mut() else { return };
        let s = step as usize;
        tb.add_scalar("loss/all", stats.loss as f32, s);
        for (name, l) in ROLE_NAMES.iter().zip(stats.loss_by_role) {
            if l.is_finite() {
                tb.add_scalar(&format!("loss/{name}"), l as f32, s);
            }
        }
        tb.add_scalar("mean_q", stats.mean_q as f32, s);
        if let Some(points) = stats.points_loss {
            tb.add_scalar("train/points_loss", points as f32, s);
        }
        if let Some(h) = stats.hands {
            tb.add_scalar("hands/loss", h.loss as f32, s);
            tb.add_scalar("hands/placed", h.placed as f32, s);
            tb.add_scalar("hands/placed_uniform", h.placed_uniform as f32, s);
        }
        tb.add_scalar("lr", stats.lr as f32, s);
        tb.add_scalar("speed/frames_per_s", frames_per_s as f32, s);
        tb.add_scalar("speed/games_per_s", games_per_s as f32, s);
        tb.add_scalar("queue_depth", queue as f32, s);
        tb.add_scalar("pool_size", pool as f32, s);
        tb.add_scalar("frames", frames as f32, s);
        if let Some(w) = wl {
            tb.add_scalar("win_rate_vs_pool/landlord", w as f32, s);
        }
        if let Some(w) = wf {
            tb.add_scalar("win_rate_vs_pool/farmers", w as f32, s);
        }
        for (side, w) in [("landlord", rl), ("farmers", rf)] {
            if let Some(w) = w {
                tb.add_scalar(&format!("win_rate_vs_rule/{side}"), w as f32, s);
            }
        }
    }

    /// One more TensorBoard scalar at learner step `step`.
    pub fn scalar(&mut self, name: &str, value: f64, step: u64) {
        if let Some(tb) = self.tb.as_mut() {
            tb.add_scalar(name, value as f32, step as usize);
        }
    }

    /// Moves the bar to where the run stands: `seconds` of this session, or frames or games so
    /// far, whichever the bar counts.
    pub fn progress(&self, seconds: f64, frames: u64, games: u64) {
        match self.unit {
            BarUnit::Seconds => self.bar.set_position(seconds as u64),
            BarUnit::Frames => self.bar.set_position(frames),
            BarUnit::Games => self.bar.set_position(games),
            BarUnit::Unbounded => self.bar.tick(),
        }
    }

    /// Writes the TensorBoard scalars out to disk.
    pub fn flush(&mut self) {
        if let Some(tb) = self.tb.as_mut() {
            tb.flush();
        }
    }

    /// Flushes and clears the bar, at the end of the session.
    pub fn finish(&mut self) {
        self.flush();
        self.bar.finish_and_clear();
    }
}

/// The progress bar's look without a budget, and with one.
const SPINNER_STYLE: &str = "{spinner} {elapsed_precise} {msg}";
const BAR_STYLE: &str = "{bar:30} {pos}/{len} {prefix} ({eta} left) {msg}";

#[cfg(test)]
mod tests {
    #[test]
    fn the_bar_styles_parse() {
        for template in [SPINNER_STYLE, BAR_STYLE] {
            assert!(indicatif::ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }

    use super::*;

    #[test]
    fn a_resumed_runs_bar_starts_where_the_run_stands() {
        let run = std::env::temp_dir().join(format!("ddz-monitor-{}", std::process::id()));
        let log = LogConfig { tensorboard: false, ..LogConfig::default() };
        let budget = BudgetConfig { max_frames: 1_000_000, ..BudgetConfig::default() };
        let m = Monitor::new(&run, &log, &budget, true, (400_000, 9_000));
        assert_eq!((m.unit, m.bar.position(), m.bar.length()), (BarUnit::Frames, 400_000, Some(1_000_000)));
        let budget = BudgetConfig { max_games: 10_000, ..BudgetConfig::default() };
        assert_eq!(Monitor::new(&run, &log, &budget, true, (400_000, 9_000)).bar.position(), 9_000);
    }
}
