//! What the commands print on stdout, all in this file: each result is a [`Report`] that shows
//! itself as text for people or as JSON for programs, and [`show`] is the one place that prints
//! one. Results the library already computes are reports as they are; where the text needs
//! more than the result (the seed, the config file), a small type here carries it, and its JSON
//! stays the library result's alone.

use ddz::bench::{self, AgentTiming, EngineReport, EngineRun, SolveSize, TrainBenchReport};
use ddz::bench::{distributed::DistributedReport, serve::ServeReport, wire::WireReport};
use ddz::pretrain::PretrainSummary;
use ddz::train::{TrainSummary, broker::remote::ActorReport};
use serde::Serialize;
use std::fmt::{self, Write};
use std::path::PathBuf;

/// A command's result as it goes to stdout.
pub trait Report: Serialize {
    /// The text for people: whole lines, each ended by a newline.
    fn text(&self, out: &mut String) -> fmt::Result;

    /// The JSON for programs: pretty-printed, unless a report's readers expect one line.
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string_pretty(self)
    }
}

/// Prints `report` on stdout: its JSON (one value, then a newline) or its text.
pub fn show(report: &impl Report, json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", report.json()?);
    } else {
        let mut text = String::new();
        report.text(&mut text)?;
        print!("{text}");
    }
    Ok(())
}

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

/// A match, a league or a bidding match (`ddz eval`): its Markdown, headed by the deal set, and
/// its JSON, which names the deal set too.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Evaluation {
    /// The Markdown, as printed and as written by `--markdown`.
    #[serde(skip)]
    pub markdown: String,
    /// The report as JSON, as written by `--json`.
    pub json: serde_json::Value,
}

impl Report for Evaluation {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "{}", self.markdown)
    }
}

/// Every checkpoint of a run evaluated (`ddz eval --run`).
#[derive(Serialize)]
pub struct Curve {
    /// Checkpoints evaluated.
    pub checkpoints: usize,
    /// Deals each was played on.
    pub deals: usize,
    /// Illegal plays over all of them.
    pub illegal_plays: u32,
    /// The plot, when one could be drawn.
    pub png: Option<PathBuf>,
}

impl Report for Curve {
    fn text(&self, out: &mut String) -> fmt::Result {
        let illegal = self.illegal_plays;
        writeln!(out, "{} checkpoints evaluated on {} deals; illegal plays: {illegal}", self.checkpoints, self.deals)?;
        match &self.png {
            Some(png) => writeln!(out, "curve: {}", png.display()),
            None => Ok(()),
        }
    }
}

impl Report for ddz::eval::ladder::Ladder {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "{}", self.markdown())
    }
}

/// One deal replayed move by move (`ddz replay`), as the library writes it.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Replay(pub String);

impl Report for Replay {
    fn text(&self, out: &mut String) -> fmt::Result {
        out.write_str(&self.0)
    }
}

/// Which deal a person's game in the terminal plays (`ddz play`), before the game itself.
#[derive(Serialize)]
pub struct PersonDeal {
    /// The deal's index in the evaluation set, when `--deal` chose it.
    pub deal: Option<usize>,
    /// The seed it came from (the index, for a deal of the set).
    pub seed: u64,
}

impl Report for PersonDeal {
    fn text(&self, out: &mut String) -> fmt::Result {
        let seed = self.seed;
        match self.deal {
            Some(n) => writeln!(out, "Deal {n} of the evaluation set."),
            None => writeln!(out, "Deal from seed {seed} (replay it with --seed {seed})."),
        }
    }
}

/// Where `ddz serve` listens.
#[derive(Serialize)]
pub struct Listening {
    /// The address bound (with the port chosen, for port 0).
    pub address: String,
    /// Where the games are saved.
    pub log_dir: PathBuf,
}

impl Report for Listening {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "ddz serve: http://{}/ (games saved in {})", self.address, self.log_dir.display())
    }
}

/// The key decisions' verdicts, one report per agent (`ddz check-decisions`).
#[derive(Serialize)]
#[serde(transparent)]
pub struct Decisions(pub Vec<ddz::decisions::Report>);

impl Report for Decisions {
    fn text(&self, out: &mut String) -> fmt::Result {
        for r in &self.0 {
            if self.0.len() == 1 {
                for v in &r.verdicts {
                    let sound =
                        if v.good.is_empty() { format!("not {}", v.bad.join(" / ")) } else { v.good.join(" / ") };
                    let mark = if v.passed { "pass" } else { "FAIL" };
                    writeln!(out, "{mark}  {:<20} played {:<10} sound: {:<16} {}", v.id, v.play, sound, v.reason)?;
                }
            }
            let rules: Vec<String> = r.rules.iter().map(|x| format!("{} {}/{}", x.rule, x.passed, x.total)).collect();
            let (agent, passed, total, rate) = (&r.agent, r.passed, r.total, 100.0 * r.rate);
            writeln!(out, "{agent}: {passed}/{total} passed ({rate:.0}%); {}", rules.join(", "))?;
        }
        Ok(())
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

/// Games imported from another format (`ddz logs import`).
#[derive(Serialize)]
pub struct Imported {
    /// Games written.
    pub games: usize,
    /// Where.
    pub out: PathBuf,
    /// Games left out as invalid.
    pub skipped: usize,
}

impl Report for Imported {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "imported {} game(s) into {}, skipped {}", self.games, self.out.display(), self.skipped)
    }
}

/// Synthetic game logs written (`ddz logs selfplay`).
#[derive(Serialize)]
pub struct Synthetic {
    /// Games written.
    pub games: usize,
    /// The agent in every seat.
    pub agent: String,
    /// Where.
    pub out: PathBuf,
}

impl Report for Synthetic {
    fn text(&self, out: &mut String) -> fmt::Result {
        let (games, agent, file) = (self.games, &self.agent, self.out.display());
        writeln!(out, "wrote {games} synthetic games ({agent} in every seat) to {file}")
    }
}

/// A log file replayed (`ddz logs check`).
#[derive(Serialize)]
pub struct Checked {
    /// The file.
    pub file: PathBuf,
    /// Games that replay.
    pub valid: usize,
    /// Games that do not.
    pub invalid: usize,
}

impl Report for Checked {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "{}: {} valid game(s), {} invalid", self.file.display(), self.valid, self.invalid)
    }
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

/// The exact solver's speed by cards left (`ddz bench solve`), with the seed of its positions.
#[derive(Serialize)]
#[serde(transparent)]
pub struct SolveBench {
    /// Seed of the rule self-play games the positions come from.
    #[serde(skip)]
    pub seed: u64,
    /// One row per size.
    pub sizes: Vec<SolveSize>,
}

impl Report for SolveBench {
    fn text(&self, out: &mut String) -> fmt::Result {
        let seed = self.seed;
        writeln!(
            out,
            "exact solver, one core, a fresh table per position (positions from rule self-play, seed {seed})"
        )?;
        writeln!(
            out,
            "{:>6} {:>9} {:>7} {:>11} {:>11} {:>13} {:>12}",
            "cards", "positions", "solved", "median ms", "p90 ms", "median nodes", "nodes/s"
        )?;
        for s in &self.sizes {
            writeln!(
                out,
                "{:>6} {:>9} {:>7} {:>11.2} {:>11.2} {:>13.0} {:>12.0}",
                s.cards, s.positions, s.solved, s.median_ms, s.p90_ms, s.median_nodes, s.nodes_per_s
            )?;
        }
        Ok(())
    }
}

/// Milliseconds per decision of agents (`ddz bench agents`), with where the positions came from.
#[derive(Serialize)]
#[serde(transparent)]
pub struct AgentsBench {
    /// Seed of the rule self-play games the positions come from.
    #[serde(skip)]
    pub seed: u64,
    /// Positions timed.
    #[serde(skip)]
    pub positions: usize,
    /// One row per agent.
    pub timings: Vec<AgentTiming>,
}

impl Report for AgentsBench {
    fn text(&self, out: &mut String) -> fmt::Result {
        let (positions, seed) = (self.positions, self.seed);
        writeln!(out, "ms per decision, one thread, {positions} decisions from rule self-play (seed {seed})")?;
        writeln!(out, "{:>10} {:>10} {:>10} {:>8}  agent", "median", "p90", "mean", "ratio")?;
        for t in &self.timings {
            let (m, p, a, r) = (t.median_ms, t.p90_ms, t.mean_ms, t.ratio_to_first);
            writeln!(out, "{m:>10.2} {p:>10.2} {a:>10.2} {r:>7.1}×  {}", t.agent)?;
        }
        Ok(())
    }
}

impl Report for ServeReport {
    fn text(&self, out: &mut String) -> fmt::Result {
        let r = self;
        writeln!(out, "agents: {} / {}", r.agents[0], r.agents[1])?;
        writeln!(
            out,
            "one game at a time: {} plays in {} games, answer median {:.1} ms, p90 {:.1} ms (the person's play and both agents' replies)",
            r.latency_plays, r.latency_games, r.median_ms, r.p90_ms
        )?;
        writeln!(
            out,
            "{} games at once: {} finished in {:.1} s, answer median {:.1} ms, p90 {:.1} ms",
            r.concurrent_games,
            r.concurrent_finished,
            r.concurrent_seconds,
            r.concurrent_median_ms,
            r.concurrent_p90_ms
        )?;
        writeln!(out, "log: {} games, {} replay; nothing lost: {}", r.logged, r.replayed, r.nothing_lost)?;
        writeln!(
            out,
            "/api/advise ({}): {} positions, one client: median {:.2} ms, p90 {:.2} ms; {} clients at once: median {:.2} ms, p90 {:.2} ms",
            r.agents[0],
            r.advice_requests,
            r.advice_median_ms,
            r.advice_p90_ms,
            bench::serve::ADVICE_CLIENTS,
            r.advice_concurrent_median_ms,
            r.advice_concurrent_p90_ms
        )
    }
}

/// The engine's speed (`ddz bench engine`), with the time each measurement had.
#[derive(Serialize)]
#[serde(transparent)]
pub struct EngineBench {
    /// Seconds per measurement.
    #[serde(skip)]
    pub per_run: f64,
    /// The measurement.
    pub report: EngineReport,
}

impl Report for EngineBench {
    fn text(&self, out: &mut String) -> fmt::Result {
        let report = &self.report;
        writeln!(
            out,
            "engine benchmark: {} runs × {:.2} s per measurement, one thread",
            report.runs.len(),
            self.per_run
        )?;
        writeln!(
            out,
            "{:>4} {:>14} {:>16} {:>20} {:>14} {:>20} {:>15} {:>10}",
            "run",
            "games/s",
            "decisions/s",
            "lead-20 calls/s",
            "plays/call",
            "min_plays-20 calls/s",
            "plays/decision",
            "most plays"
        )?;
        let row = |out: &mut String, name: String, r: &EngineRun| {
            let (g, d, c, p) = (r.games_per_s, r.decisions_per_s, r.lead20_calls_per_s, r.lead20_plays_per_call);
            let (m, per, most) = (r.min_plays20_calls_per_s, r.plays_per_decision, r.most_plays);
            writeln!(out, "{name:>4} {g:>14.0} {d:>16.0} {c:>20.0} {p:>14.1} {m:>20.0} {per:>15.1} {most:>10.0}")
        };
        for (i, r) in report.runs.iter().enumerate() {
            row(out, (i + 1).to_string(), r)?;
        }
        row(out, "med".into(), &report.median)?;
        if let Some(x) = report.speedup_vs_reference {
            let refs: Vec<String> = report.reference_games_per_s.iter().map(|g| format!("{g:.0}")).collect();
            writeln!(out, "reference (OpenSpiel dou_dizhu from Python) games/s per run: {}", refs.join(", "))?;
            writeln!(out, "speed-up, median of per-run ratios: {x:.1}×")?;
        }
        Ok(())
    }
}

/// An error and the causes it keeps, each cause once: library errors name their cause in their
/// own message too (a server or a Python caller sees only that message), so a cause whose text
/// the lines above already hold is not repeated.
pub fn error_text(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    let mut causes = Vec::new();
    for cause in error.chain().skip(1) {
        let line = cause.to_string();
        if !text.contains(&line) && !causes.contains(&line) {
            causes.push(line);
        }
    }
    if !causes.is_empty() {
        text.push_str("\n\nCaused by:");
        for line in causes {
            text.push_str(&format!("\n    {line}"));
        }
    }
    text
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
        writeln!(out, "building the torch-free network from published weights: {:.2} ms", r.build_ms)
    }
}
