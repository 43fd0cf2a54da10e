//! `ddz logs`, `ddz deals` and `ddz export`: the game log and deal files other commands read,
//! and networks written for other programs.

use super::args::{LogsWhat, ReviewArgs};
use super::report::{self, Checked, Imported, PlayerReviews, Reviews, Synthetic};
use anyhow::{Context, Result, bail};
use std::path::Path;

/// Imports, writes or checks game logs.
pub fn logs(what: LogsWhat) -> Result<()> {
    use ddz::logs;
    match what {
        LogsWhat::Import { from: _, files, out, skip_invalid } => {
            let (good, bad) = logs::import_files(&files, skip_invalid)
                .map_err(|e| anyhow::anyhow!("{e} (use --skip-invalid to leave such games out)"))?;
            for e in &bad {
                eprintln!("skipped {e}");
            }
            ddz::files::write(&out, logs::to_jsonl(&good)).with_context(|| format!("writing {}", out.display()))?;
            report::show(&Imported { games: good.len(), out, skipped: bad.len() }, false)?;
        }
        LogsWhat::Selfplay { agent, games, seed, out } => {
            const MOST: usize = 1_000_000; // about 1 KB a game log, held until written
            if games > MOST {
                bail!("--games {games}: at most {MOST} games a file (make more files with other --seed)");
            }
            let mut a = agent.build()?;
            let (games, illegal) = ddz::logs::selfplay_logs(a.as_mut(), games, seed, &format!("synthetic:{agent}"))?;
            ddz::files::write(&out, logs::to_jsonl(&games)).with_context(|| format!("writing {}", out.display()))?;
            report::show(&Synthetic { games: games.len(), agent: agent.to_string(), out }, false)?;
            if illegal > 0 {
                bail!("{agent} gave {illegal} illegal answers (the first legal play was made instead)");
            }
        }
        LogsWhat::Check { file } => {
            let (good, bad) = logs::read_logs(&file, true)?;
            for e in &bad {
                eprintln!("{e}");
            }
            report::show(&Checked { file, valid: good.len(), invalid: bad.len() }, false)?;
            if !bad.is_empty() {
                bail!("{} invalid game(s)", bad.len());
            }
        }
    }
    Ok(())
}

/// Writes `n` deals drawn from `seed` to `out`.
pub fn deals(n: usize, seed: u64, out: &Path) -> Result<()> {
    if n > ddz::game::MOST_DEALS {
        bail!("--n {n}: at most {} deals a file (make more files with other --seed)", ddz::game::MOST_DEALS);
    }
    ddz::game::write_deals(out, &ddz::game::generate_deals(n, seed))
        .with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {n} deals (seed {seed}) to {}", out.display());
    Ok(())
}

/// Writes `model` as ONNX and its golden vectors, as asked.
pub fn export(model: &Path, onnx: Option<&Path>, golden: Option<&Path>, positions: usize, seed: u64) -> Result<()> {
    let mut files = Vec::new();
    if let Some(out) = onnx {
        files.extend(ddz::export::export_onnx(model, out)?);
    }
    if let Some(out) = golden {
        let vectors = ddz::export::golden(model, positions, seed)?;
        let mut text = String::new();
        for g in &vectors {
            text.push_str(&serde_json::to_string(g)?);
            text.push('\n');
        }
        ddz::files::write(out, text).with_context(|| format!("writing {}", out.display()))?;
        files.push(out.to_path_buf());
    }
    report::show(&report::Exported { files }, false)
}

/// Reviews the games of the logs with a network, each game's rules with its own by default.
pub fn review(args: ReviewArgs) -> Result<()> {
    use ddz::review::{review, summarize};
    let mut games = Vec::new();
    for file in &args.logs {
        let good = ddz::logs::read_games(file)?;
        games.extend(good.into_iter().enumerate().map(|(k, g)| (file.clone(), k, g)));
    }
    let numbers: Vec<usize> = match args.game {
        Some(n) => vec![n],
        None => (0..games.len()).collect(),
    };
    if let Some(n) = args.game {
        let total = games.len();
        let one = games.into_iter().nth(n);
        games =
            vec![one.with_context(|| format!("--game {n}: the logs hold {total} games, 0 to {}", total.max(1) - 1))?];
    }
    if args.html.is_some() && games.len() != 1 {
        bail!("--html draws one game, and the logs hold {}: pick one with --game N", games.len());
    }
    let mut reviewers: Vec<Reviewer> = Vec::new();
    let progress = ddz::eval::progress_bar(games.len() as u64);
    let mut reviews = Vec::new();
    for (file, k, (log, game)) in &games {
        let reviewer = reviewer_for(&mut reviewers, game.state.config().rules, &args)?;
        let at = || format!("{}: game {} of the file", file.display(), k + 1);
        let mut reviewed = review(log, game, reviewer.agent.as_mut(), args.thresholds).with_context(at)?;
        if let Some(policy) = reviewer.policy.as_mut() {
            let budget = ddz::search::budget::Budget::count(64).with_ms(args.deep_ms);
            let belief = ddz::search::belief::Belief::UNIFORM;
            // Rollouts only, never the open-hand solver: its worlds are played as if every hand were
            // seen, which flatters whichever side is to move.
            let search = ddz::search::pimc::PimcSearch { budget, cards: 0, max_nodes: 0, belief };
            ddz::review::deepen(&mut reviewed, game, policy, &search, *k as u64).with_context(at)?;
        }
        reviews.push(reviewed);
        progress.inc(1);
    }
    progress.finish_and_clear();
    if let Some(path) = &args.html {
        let page = ddz::review::html::page(&reviews[0]);
        ddz::files::write(path, page).with_context(|| format!("writing {}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    if args.calibration {
        let bins = ddz::review::calibration(&reviews);
        return report::show(
            &report::Calibration { schema: ddz::review::SCHEMA, games: reviews.len(), bins },
            args.json,
        );
    }
    if args.summary {
        report::show(&PlayerReviews { schema: ddz::review::SCHEMA, players: summarize(&reviews) }, args.json)
    } else {
        report::show(&Reviews { schema: ddz::review::SCHEMA, games: reviews, numbers }, args.json)
    }
}

/// The reviewer of one rule set: its agent and, with `--deep-ms`, its network as a search's
/// rollout policy.
struct Reviewer {
    rules: ddz::game::Rules,
    agent: Box<dyn ddz::agents::Agent>,
    policy: Option<ddz::agents::ModelAgent>,
}

/// The reviewer of `rules` in `reviewers`, built on first use: `--agent`, or the strongest
/// shipped network of those rules.
fn reviewer_for<'a>(
    reviewers: &'a mut Vec<Reviewer>,
    rules: ddz::game::Rules,
    args: &ReviewArgs,
) -> Result<&'a mut Reviewer> {
    if let Some(k) = reviewers.iter().position(|r| r.rules == rules) {
        return Ok(&mut reviewers[k]);
    }
    let spec = match &args.agent {
        Some(spec) => spec.clone(),
        None => ddz::review::default_reviewer(rules).parse::<ddz::agents::AgentSpec>()?,
    };
    let agent = spec.build().with_context(|| format!("the reviewer {spec}"))?;
    let policy = if args.deep_ms > 0 { Some(spec.build_network()?) } else { None };
    reviewers.push(Reviewer { rules, agent, policy });
    Ok(reviewers.last_mut().expect("pushed above"))
}
