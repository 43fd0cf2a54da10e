//! What the commands print on stdout: each result is a [`Report`] that shows itself as text
//! for people or as JSON for programs, and [`show`] is the one place that prints one (the
//! trainer's reports are in [`super::learn`]'s report module). Results the library already computes are reports as they are; where the text needs
//! more than the result (the seed, the config file), a small type here carries it, and its JSON
//! stays the library result's alone.

use ddz::bench::{self, AgentTiming, EngineReport, EngineRun, SolveSize, serve::ServeReport};
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

/// Text the library already wrote for people, printed as it is: a deal replayed move by move
/// (`ddz replay`), the config a run would use (`ddz train --print-config`, TOML).
#[derive(Serialize)]
#[serde(transparent)]
pub struct Text(pub String);

impl Report for Text {
    fn text(&self, out: &mut String) -> fmt::Result {
        out.write_str(&self.0)
    }
}

/// Reviewed games (`ddz review`): each game's seats and its worst plays.
#[derive(Serialize)]
pub struct Reviews {
    /// The JSON's version.
    pub schema: &'static str,
    /// Each game's review.
    pub games: Vec<ddz::review::Review>,
    /// Each game's number in the logs (0-based, as `--game` takes it).
    #[serde(skip)]
    pub numbers: Vec<usize>,
}

impl Report for Reviews {
    fn text(&self, out: &mut String) -> fmt::Result {
        use ddz::review::Verdict;
        for (r, k) in self.games.iter().zip(&self.numbers) {
            let result = if r.landlord_won { "the landlord won" } else { "the farmers won" };
            let source = if r.source.is_empty() { String::new() } else { format!(" ({})", r.source) };
            writeln!(out, "game {k}{source}, {} rules, reviewed by {}: {result}", r.rules, r.reviewer)?;
            writeln!(out, "  seat  role           player                 decisions  accuracy  chance lost")?;
            for s in &r.seats {
                let player = s.player.as_deref().unwrap_or("?");
                writeln!(
                    out,
                    "  {:<4}  {:<13}  {:<22} {:>9}  {:>7.0}%  {:>11.2}",
                    s.seat.index(),
                    s.role,
                    player,
                    s.decisions,
                    s.accuracy,
                    s.total_loss
                )?;
            }
            let mut worst: Vec<_> =
                r.decisions.iter().filter(|d| matches!(d.verdict, Verdict::Mistake | Verdict::Blunder)).collect();
            worst.sort_by(|a, b| b.loss.total_cmp(&a.loss));
            for d in worst {
                let deep = d.deep.as_ref().map_or(String::new(), |c| {
                    format!("; search: {:.0}% against {:.0}%", 100.0 * c.played, 100.0 * c.best)
                });
                writeln!(
                    out,
                    "  move {:>2}, {}: {} ({:.0}% lost): played {} ({:.0}%), best {} ({:.0}%){deep}",
                    d.move_no,
                    d.role,
                    d.verdict.name(),
                    100.0 * d.loss,
                    d.played.play,
                    100.0 * d.played.win,
                    d.best.play,
                    100.0 * d.best.win
                )?;
            }
        }
        Ok(())
    }
}

/// The reviewer's calibration over reviewed games (`ddz review --calibration`).
#[derive(Serialize)]
pub struct Calibration {
    /// The JSON's version.
    pub schema: &'static str,
    /// Games reviewed.
    pub games: usize,
    /// The ten bins.
    pub bins: Vec<ddz::review::CalibrationBin>,
}

impl Report for Calibration {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "{} games: the reviewer's win chance of each play made against its side's result", self.games)?;
        writeln!(out, "| chance given | plays | mean chance | side won |")?;
        writeln!(out, "|---|---:|---:|---:|")?;
        for b in self.bins.iter().filter(|b| b.decisions > 0) {
            writeln!(
                out,
                "| {:.1}–{:.1} | {} | {:.3} | {:.3} ± {:.3} |",
                b.low, b.high, b.decisions, b.predicted, b.observed, b.observed_ci
            )?;
        }
        Ok(())
    }
}

/// Each player's figures over reviewed games (`ddz review --summary`).
#[derive(Serialize)]
pub struct PlayerReviews {
    /// The JSON's version.
    pub schema: &'static str,
    /// One row per player.
    pub players: Vec<ddz::review::PlayerSummary>,
}

impl Report for PlayerReviews {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "| player | games | decisions | mean chance lost | accuracy |")?;
        writeln!(out, "|---|---:|---:|---:|---:|")?;
        for p in &self.players {
            writeln!(
                out,
                "| {} | {} | {} | {:.3} ± {:.3} | {:.1}% ± {:.1} |",
                p.player, p.games, p.decisions, p.mean_loss, p.mean_loss_ci, p.accuracy, p.accuracy_ci
            )?;
        }
        Ok(())
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

/// `ddz headroom`: each side's best response against RLCard's agent.
#[derive(Serialize)]
pub struct Headroom {
    /// The node budget of a deal's search.
    pub nodes: u64,
    /// The landlord's, then the farmers'.
    pub sides: Vec<ddz::eval::headroom::SideHeadroom>,
}

impl Report for Headroom {
    fn text(&self, out: &mut String) -> fmt::Result {
        writeln!(
            out,
            "Best response against RLCard's rule agent (every hand open, its play known), {} positions a deal at most:",
            self.nodes
        )?;
        writeln!(out, "| side | deals | finished | win chance, finished deals | headroom (unfinished lost – won) |")?;
        writeln!(out, "|---|---:|---:|---:|---:|")?;
        for s in &self.sides {
            writeln!(
                out,
                "| {} | {} | {} | {:.4} | {:.4} – {:.4} |",
                s.side, s.deals, s.finished, s.mean_finished, s.low, s.high
            )?;
        }
        Ok(())
    }
}

/// The files `ddz export` wrote.
#[derive(Serialize)]
pub struct Exported {
    /// Each file, in the order written.
    pub files: Vec<PathBuf>,
}

impl Report for Exported {
    fn text(&self, out: &mut String) -> fmt::Result {
        for f in &self.files {
            writeln!(out, "wrote {}", f.display())?;
        }
        Ok(())
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
