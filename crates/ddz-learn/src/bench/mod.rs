//! The benches of training, beside the playing ones of `ddz_play::bench` (re-exported here):
//!
//! `ddz bench train`: frames/s of the trainer on a config, in a scratch folder; it can time
//! DouZero's trainer in the same runs.
//!
//! `ddz bench train --distributed`: the learner fed over Redis by an actor process against the
//! same actors in process ([`distributed`]); `ddz bench wire`: the wire formats of a game
//! ([`wire`]).
//!
//! `ddz bench inference`: the torch-free forward pass against libtorch's ([`inference`]).

pub mod distributed;
pub mod inference;
pub mod wire;

pub use ddz_play::bench::*;

use crate::train::{Start, TrainError, config::TrainConfig};
use serde::Serialize;

/// Why a bench of training could not run.
#[derive(Debug, thiserror::Error)]
pub enum TrainBenchError {
    /// What a playing bench can fail by (the budget, the reference).
    #[error(transparent)]
    Bench(#[from] BenchError),
    /// A training run failed.
    #[error(transparent)]
    Train(#[from] TrainError),
    /// The distributed bench failed: Redis or the actor process could not be started or
    /// reached, or the actor made too few frames for a batch.
    #[error("{0}")]
    Redis(String),
}

/// The train bench's result: the trainer's frames/s in each run, and DouZero's when timed.
#[derive(Debug, Clone, Serialize)]
pub struct TrainBenchReport {
    /// Frames learned per second in each run, in order.
    pub frames_per_s_runs: Vec<f64>,
    /// The median of those.
    pub frames_per_s_median: f64,
    /// Each run's time budget, in seconds.
    pub seconds_per_run: f64,
    /// DouZero's trainer, timed before each run when asked for (`--reference`).
    pub douzero_frames_per_s_runs: Vec<f64>,
    /// median(our frames/s ÷ DouZero's) over the runs.
    pub speedup_vs_douzero: Option<f64>,
}

/// Trains `base` for `seconds` in a scratch folder, `runs` times (each run after one of the
/// reference, when it is given); `progress` hears each run's frames/s.
pub fn bench_train(
    base: &TrainConfig,
    seconds: f64,
    runs: usize,
    reference: Option<&Reference>,
    mut progress: impl FnMut(usize, &str, f64),
) -> Result<TrainBenchReport, TrainBenchError> {
    if seconds.is_nan() || seconds <= 0.0 || runs == 0 {
        return Err(BenchError::Budget.into());
    }
    let scratch = std::env::temp_dir().join(format!("ddz-bench-train-{}", std::process::id()));
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for i in 0..runs {
        if let Some(r) = reference {
            theirs.push(r.measure(&[seconds.to_string()], "frames_per_s")?);
            progress(i + 1, "DouZero", theirs[i]);
        }
        let mut cfg = base.clone();
        cfg.run.dir = scratch.join(format!("run{i}"));
        cfg.budget = Default::default();
        cfg.budget.max_seconds = seconds;
        cfg.log.tensorboard = false;
        let s = crate::train::train(cfg, Start::Fresh { init_from: None }, true)?;
        progress(i + 1, "ddz", s.frames_per_s);
        ours.push(s.frames_per_s);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    let speedup = (!theirs.is_empty()).then(|| median(ours.iter().zip(&theirs).map(|(a, b)| a / b).collect()));
    Ok(TrainBenchReport {
        frames_per_s_median: median(ours.clone()),
        frames_per_s_runs: ours,
        seconds_per_run: seconds,
        douzero_frames_per_s_runs: theirs,
        speedup_vs_douzero: speedup,
    })
}
