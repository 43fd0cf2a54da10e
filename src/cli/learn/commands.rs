//! The trainer's commands: `ddz train`, `ddz actor` and `ddz pretrain` (training runs, their
//! remote actors and the supervised warm start), `ddz evaluate-hands`, `ddz check-inference`,
//! and the training benches.

use super::args::{ActorArgs, Overrides, PretrainArgs, TrainArgs};
use super::report::{DistributedBench, Hands, TrainBench};
use crate::cli::bench::reference_of;
use crate::cli::report;
use anyhow::{Result, bail};
use ddz::agents::AgentSpec;
use ddz::bench;
use ddz::eval::curve::BackgroundEval;
use ddz::runtime;
use ddz::train::{self, Start, Trainer, config::TrainConfig};
use std::path::Path;

/// Trains (or resumes) a run, evaluating each checkpoint in the background.
pub fn train(args: TrainArgs) -> Result<()> {
    if args.resume.is_some() && args.overrides.run_dir.is_some() {
        bail!("--run-dir cannot be combined with --resume (the run folder is the one resumed)");
    }
    let (mut cfg, start) = match &args.resume {
        Some(dir) => (train::load_run_config(dir)?, Start::Resume),
        None => {
            (TrainConfig::load_with(&args.config, &args.settings)?, Start::Fresh { init_from: args.init_from.clone() })
        }
    };
    args.overrides.apply(&mut cfg);
    if !args.keep_exploration && cfg.explore_for(&start) {
        let a = &cfg.actors;
        eprintln!(
            "warm start: softmax exploration, temperature {} -> {} over {} frames (--keep-exploration to keep epsilon)",
            a.temperature_start, a.temperature_end, a.temperature_anneal_frames
        );
    }
    if args.print_config {
        return report::show(&report::Text(cfg.to_toml()), false);
    }
    let device = cfg.run.device.resolve()?;
    let local_actors = if args.broker.is_some() { args.overrides.actors.unwrap_or(0) } else { cfg.actor_count() };
    eprintln!(
        "training in {} on {device} with {local_actors} actor(s) here × {} games in flight (libtorch {})",
        cfg.run.dir.display(),
        cfg.actors.games_in_flight,
        runtime::LIBTORCH_VERSION
    );
    let mut evaluation = BackgroundEval::new(&cfg.run.dir, cfg.eval.deals);
    let resume = matches!(start, Start::Resume);
    let run_dir = cfg.run.dir.clone();
    let name = args.run.clone().unwrap_or_else(|| cfg.run.name());
    let mut trainer = Trainer::new(cfg, start, false)?;
    if let Some(url) = &args.broker {
        trainer = trainer.with_broker(url, &name, local_actors)?;
        let url = train::broker::masked(url);
        eprintln!("reading games from Redis at {url}: start actors with `ddz actor --broker {url} --run {name}`");
    }
    if resume {
        let (step, frames, games, hours) = trainer.resumes_at();
        eprintln!(
            "resuming {} at step {step}, frame {frames}, game {games} ({hours:.2} h trained); this session's budget: {}",
            run_dir.display(),
            session_budget(&args.overrides)
        );
    }
    let summary = trainer.on_checkpoint(move |_| evaluation.checkpoint_written()).run()?;
    report::show(&summary, false)
}

/// The budget flags given, for the resume message.
fn session_budget(o: &Overrides) -> String {
    let given: Vec<String> = [
        o.max_frames.map(|v| format!("{v} frames")),
        o.max_games.map(|v| format!("{v} games")),
        o.max_seconds.map(|v| format!("{v} s")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if given.is_empty() { "none (until Ctrl-C)".into() } else { given.join(", ") }
}

/// Plays for a learner that reads its games through Redis, until it finishes.
pub fn actor(args: ActorArgs) -> Result<()> {
    let check = args.config.as_deref().map(TrainConfig::load).transpose()?;
    let options = train::broker::remote::ActorOptions {
        url: args.broker,
        run: args.run,
        threads: args.threads,
        check,
        wait_seconds: args.wait_seconds,
        quiet: args.quiet,
    };
    let summary = train::broker::remote::run_actors(&options)?;
    report::show(&summary, args.json)
}

/// Imitates the plays of game logs with the RL network.
pub fn pretrain(args: PretrainArgs) -> Result<()> {
    runtime::configure_threads(1);
    let model = TrainConfig::load(&args.config)?.model;
    let (mut games, bad) = ddz::logs::read_logs(&args.logs, args.skip_invalid)
        .map_err(|e| anyhow::anyhow!("{e} (use --skip-invalid to leave such games out)"))?;
    for e in &bad {
        eprintln!("skipped {e}");
    }
    let mut skipped = bad.len();
    if args.skip_invalid {
        // Games of other rules are games this network cannot learn from: left out like bad ones.
        let before = games.len();
        games.retain(|(_, g)| g.state.config().rules == model.rules);
        let other = before - games.len();
        if other > 0 {
            eprintln!("skipped {other} game(s) of other rules than the network's ({} rules)", model.rules);
        }
        skipped += other;
    }
    let PretrainArgs { steps, batch_size, lr, val_share, patience, seed, device, player, .. } = args;
    let cfg = ddz::pretrain::PretrainConfig {
        steps,
        batch_size,
        lr,
        val_share,
        patience,
        seed,
        model,
        device,
        player,
        ..Default::default()
    };
    let summary = ddz::pretrain::pretrain(games, skipped, &args.out, &cfg, false)?;
    report::show(&summary, false)?;
    if summary.validated_on_training_data {
        eprintln!(
            "note: no game was held out (--val-share too small for so few games): validation was measured on training decisions"
        );
    }
    Ok(())
}

/// Trains the hand evaluator on games `agent` plays out, and plots its calibration.
pub fn evaluate_hands(agent: &AgentSpec, cfg: &ddz::hands::HandsConfig, out: &Path) -> Result<()> {
    cfg.validate()?;
    runtime::configure_threads(1);
    crate::cli::python::install_plotting();
    let progress = ddz::eval::progress_bar(cfg.games as u64);
    let outcomes = ddz::hands::play_games(agent, cfg.games, cfg.seed, cfg.threads, &progress)?;
    progress.finish_and_clear();
    let report = ddz::hands::train(&outcomes, &agent.to_string(), cfg, out)?;
    let plot = match ddz::hands::plot(out) {
        Ok(png) => Some(png),
        Err(e) => {
            eprintln!("no plot: {e}");
            None
        }
    };
    report::show(&Hands { report, plot }, false)
}

/// Both paths of every network of `model`; an error when they differ by more than `tolerance`
/// or in any choice.
pub fn check_inference(model: &Path, decisions: usize, seed: u64, tolerance: f64, json: bool) -> Result<()> {
    ddz::runtime::configure_threads(1);
    let report = ddz::inference::check_inference(model, decisions, seed)?;
    report::show(&report, json)?;
    let (worst, choices) = (report.worst(), report.different_choices());
    if worst > tolerance || choices > 0 {
        bail!(
            "the torch-free path differs from libtorch: worst {worst:.2e} (tolerance {tolerance:.0e}), {choices} different choices"
        );
    }
    Ok(())
}

/// Frames/s of `config`, against DouZero's trainer too with `reference`.
pub fn bench_train(config: &Path, seconds: f64, runs: usize, json: bool, reference: bool) -> Result<()> {
    let base = TrainConfig::load(config)?;
    let reference = if reference { Some(reference_of(bench::DOUZERO)?) } else { None };
    let report = bench::bench_train(&base, seconds, runs, reference.as_ref(), |run, who, fps| {
        eprintln!("run {run}: {who} {fps:.0} frames/s")
    })?;
    report::show(&TrainBench { config: config.to_path_buf(), seconds, report }, json)
}

/// Frames/s of `config` in process against actors over Redis.
pub fn distributed(config: &Path, seconds: f64, runs: usize, broker: Option<&str>, json: bool) -> Result<()> {
    let base = TrainConfig::load(config)?;
    let exe = std::env::current_exe()?;
    let report = bench::distributed::bench_distributed(&base, seconds, runs, broker, &exe, |run, who, fps| {
        eprintln!("run {run}: {who} {fps:.0} frames/s")
    })?;
    report::show(&DistributedBench { config: config.to_path_buf(), seconds, report }, json)
}

/// Bytes and costs per frame of each wire format.
pub fn wire(games: usize, runs: usize, seed: u64, json: bool) -> Result<()> {
    report::show(&bench::wire::bench_wire(games, runs, seed), json)
}
