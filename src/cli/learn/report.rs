//! What the trainer's commands print: their [`Report`]s (printed, as every report, by
//! [`crate::cli::report::show`]).

use crate::cli::report::Report;
use ddz::bench::{TrainBenchReport, distributed::DistributedReport, wire::WireReport};
use ddz::pretrain::PretrainSummary;
use ddz::train::{TrainSummary, broker::remote::ActorReport};
use serde::Serialize;
use std::fmt::{self, Write};
use std::path::PathBuf;

impl Report for ddz::runtime::Info {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "ddz {}", self.ddz_version)?;
        writeln!(out, "libtorch {}", self.libtorch_version)?;
        writeln!(
            out,
            "CUDA available: {} ({} device(s)), cuDNN: {}",
            self.cuda_available, self.cuda_devices, self.cudnn_available
        )?;
        writeln!(
            out,
            "cores: {}, libtorch intra-op threads: {} (set by ddz; actors use 1 each)",
            self.cores, self.intra_op_threads
        )?;
        writeln!(out, "link check: {}", self.link_check)
    }
}

impl Report for TrainSummary {
    fn text(&self, out: &mut String) -> fmt::Result {
        let s = self;
        let rate = |w: Option<f64>| w.map_or("-".to_string(), |w| format!("{w:.3}"));
        let vs_rule = match (s.win_rate_vs_rule_landlord, s.win_rate_vs_rule_farmers) {
            (None, None) => String::new(),
            (l, f) => format!("; vs rule (trained against): landlord {}, farmers {}", rate(l), rate(f)),
        };
        writeln!(
            out,
            "{} steps, {} frames ({:.0} frames/s), {} games ({:.1} games/s) in {:.0} s, stopped by {}; last loss {:.4}; \
             win rate vs pool: landlord {}, farmers {}{vs_rule}; checkpoint {}",
            s.steps,
            s.frames,
            s.frames_per_s,
            s.games,
            s.games_per_s,
            s.seconds,
            s.stopped_by,
            s.last_loss,
            rate(s.win_rate_vs_pool_landlord),
            rate(s.win_rate_vs_pool_farmers),
            s.checkpoint.display()
        )
    }
}

impl Report for ActorReport {
    fn text(&self, out: &mut String) -> fmt::Result {
        let r = self;
        writeln!(
            out,
            "{} games, {} frames sent ({:.0} bytes/frame) in {:.0} s, {:.0} s waiting for room in the stream; \
             {} weights versions ({} refused: they do not fit the run's network); stopped: {}",
            r.games,
            r.frames,
            r.bytes as f64 / r.frames.max(1) as f64,
            r.seconds,
            r.waited_seconds,
            r.versions,
            r.refused,
            r.stopped_by
        )
    }
}

impl Report for PretrainSummary {
    fn text(&self, out: &mut String) -> fmt::Result {
        let s = self;
        let stop = if s.interrupted {
            " (interrupted)"
        } else if s.stopped_early {
            " (early stop)"
        } else {
            ""
        };
        writeln!(
            out,
            "{} games ({} skipped): {} training / {} validation decisions ({} duplicates dropped); {} steps{}; \
             best validation loss {:.3}, top-1 {:.3}; wrote {}",
            s.games,
            s.skipped_games,
            s.train_samples,
            s.val_samples,
            s.duplicates_dropped,
            s.steps,
            stop,
            s.best_val_loss,
            s.best_val_top1,
            s.checkpoint.display()
        )
    }
}

/// The trained hand evaluator (`ddz evaluate-hands`) and its calibration plot.
#[derive(Serialize)]
pub struct Hands {
    /// Fit and calibration.
    #[serde(flatten)]
    pub report: ddz::hands::HandsReport,
    /// The plot, when one could be drawn.
    pub plot: Option<PathBuf>,
}

impl Report for Hands {
    fn text(&self, out: &mut String) -> fmt::Result {
        let r = &self.report;
        writeln!(
            out,
            "{} training hands, {} held out: Brier {:.4} (always the base rate: {:.4}), points MAE {:.3}; wrote {}",
            r.train_hands,
            r.val_hands,
            r.brier,
            r.brier_constant,
            r.points_mae,
            r.model.display()
        )?;
        writeln!(out, "calibration, 17 cards (predicted → observed): {}", deciles(&r.deciles_17))?;
        writeln!(out, "calibration, 20 cards (predicted → observed): {}", deciles(&r.deciles_20))?;
        match &self.plot {
            Some(png) => writeln!(out, "plot: {}", png.display()),
            None => Ok(()),
        }
    }
}

fn deciles(ds: &[ddz::hands::Decile]) -> String {
    ds.iter().map(|d| format!("{:.2}→{:.2}", d.predicted, d.observed)).collect::<Vec<_>>().join(" ")
}

/// Training speed (`ddz bench train`), with the config and run length it was measured with.
#[derive(Serialize)]
#[serde(transparent)]
pub struct TrainBench {
    /// The config file.
    #[serde(skip)]
    pub config: PathBuf,
    /// Seconds per run.
    #[serde(skip)]
    pub seconds: f64,
    /// The measurement.
    pub report: TrainBenchReport,
}

impl Report for TrainBench {
    fn text(&self, out: &mut String) -> fmt::Result {
        let (report, seconds) = (&self.report, self.seconds);
        let (median, n) = (report.frames_per_s_median, report.frames_per_s_runs.len());
        let config = self.config.display();
        writeln!(out, "training benchmark ({config}): median {median:.0} frames/s over {n} runs of {seconds} s")?;
        if let Some(x) = report.speedup_vs_douzero {
            let theirs: Vec<f64> = report.douzero_frames_per_s_runs.iter().map(|r| r.round()).collect();
            writeln!(
                out,
                "DouZero (CPU, 2 actors, OMP_NUM_THREADS=1) per run: {theirs:?} frames/s; speed-up, median of per-run ratios: {x:.1}×"
            )?;
        }
        Ok(())
    }

    /// On one line, unlike the other reports' JSON: as this one has always been printed.
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}

/// Training in process against over Redis (`ddz bench train --distributed`).
#[derive(Serialize)]
#[serde(transparent)]
pub struct DistributedBench {
    /// The config file.
    #[serde(skip)]
    pub config: PathBuf,
    /// Seconds per run.
    #[serde(skip)]
    pub seconds: f64,
    /// The measurement.
    pub report: DistributedReport,
}

impl Report for DistributedBench {
    fn text(&self, out: &mut String) -> fmt::Result {
        let (r, seconds) = (&self.report, self.seconds);
        writeln!(
            out,
            "{} actor thread(s), runs of {seconds} s ({}): in process {:.0} frames/s, over Redis {:.0} frames/s (median); \
             ratio {:.3} (median of per-run ratios)",
            r.actor_threads,
            self.config.display(),
            r.in_process_median,
            r.distributed_median,
            r.ratio_median
        )?;
        writeln!(
            out,
            "{:.0} bytes per frame on the wire; Redis memory {:.1} MB empty, {:.1} MB with {} games in the stream (cap {})",
            r.bytes_per_frame,
            r.redis_memory_empty_bytes as f64 / 1e6,
            r.redis_memory_at_cap_bytes as f64 / 1e6,
            r.stream_len_at_cap,
            r.stream_cap
        )?;
        let a = &r.alone;
        writeln!(
            out,
            "alone on one core: an actor thread makes {:.0} frames/s, the learner takes {:.0} frames/s (decoding {:.0} ns a \
             frame): one learner keeps {:.1} actor threads busy",
            a.actor_frames_per_s_per_thread, a.learner_frames_per_s, a.decode_ns_per_frame, a.actor_threads_per_learner
        )
    }
}

impl Report for WireReport {
    fn text(&self, out: &mut String) -> fmt::Result {
        let r = self;
        writeln!(out, "{} rule self-play games, {} frames; medians of {} runs, one thread", r.games, r.frames, r.runs)?;
        writeln!(out, "{:<8} {:>14} {:>18} {:>20}", "format", "bytes/frame", "actor ns/frame", "learner ns/frame")?;
        for o in &r.options {
            writeln!(
                out,
                "{:<8} {:>14.1} {:>18.0} {:>20.0}",
                o.name, o.bytes_per_frame, o.actor_ns_per_frame, o.learner_ns_per_frame
            )?;
        }
        Ok(())
    }
}

impl Report for ddz::inference::CheckReport {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "{}: libtorch against the torch-free path", self.path.display())?;
        writeln!(out, "{:>9} {:>9} {:>11} {:>9}  network", "decisions", "outputs", "worst |Δ|", "choices≠")?;
        for n in &self.networks {
            let a = &n.agreement;
            writeln!(
                out,
                "{:>9} {:>9} {:>11.2e} {:>9}  {} ({})",
                a.decisions,
                a.outputs,
                a.worst,
                a.different_choices,
                n.network,
                n.file.display()
            )?;
        }
        Ok(())
    }
}

impl Report for ddz::bench::inference::InferenceReport {
    fn text(&self, out: &mut String) -> fmt::Result {
        let r = self;
        writeln!(
            out,
            "{} ({} rules): {} self-play decisions, {:.1} legal plays on average, one thread, kernels {}",
            r.model.display(),
            r.rules,
            r.decisions,
            r.mean_plays,
            r.kernel
        )?;
        writeln!(out, "per decision (encode, value, choose), microseconds:")?;
        writeln!(out, "{:>10} {:>10} {:>10}  path", "median", "p90", "mean")?;
        for t in &r.per_decision {
            writeln!(out, "{:>10.1} {:>10.1} {:>10.1}  {}", t.median_us, t.p90_us, t.mean_us, t.path)?;
        }
        writeln!(out, "ddz-nets decides {:.2}x as fast as libtorch (ratio of medians)", r.speedup)?;
        writeln!(out, "forward pass alone, decisions/s by batch:")?;
        writeln!(out, "{:>9} {:>8} {:>12} {:>12} {:>7}", "decisions", "plays", "libtorch", "ddz-nets", "ratio")?;
        for b in &r.batches {
            writeln!(
                out,
                "{:>9} {:>8.0} {:>12.0} {:>12.0} {:>6.2}x",
                b.decisions, b.plays, b.torch_per_s, b.nets_per_s, b.ratio
            )?;
        }
        writeln!(out, "building the torch-free network from published weights: {:.2} ms", r.build_ms)?;
        writeln!(out, "hidden layers by kernel (half the inputs zero), microseconds:")?;
        writeln!(out, "{:>9} {:>5} {:>9} {:>9} {:>9}", "layer", "rows", "sparse", "blocked", "sgemm")?;
        for k in &r.kernels {
            let layer = format!("{}x{}", k.shape.0, k.shape.1);
            writeln!(out, "{layer:>9} {:>5} {:>9.1} {:>9.1} {:>9.1}", k.rows, k.sparse_us, k.blocked_us, k.sgemm_us)?;
        }
        Ok(())
    }
}
