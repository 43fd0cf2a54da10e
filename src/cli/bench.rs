//! `ddz bench …`: speed measurements of training, the wire formats, the web server, the
//! solver, agents and the engine.

use super::report::{self, AgentsBench, DistributedBench, EngineBench, SolveBench, TrainBench};
use anyhow::{Result, bail};
use ddz::agents::AgentSpec;
use ddz::bench;
use ddz::game::Rules;
use ddz::runtime;
use ddz::train::config::TrainConfig;
use std::io::IsTerminal;
use std::path::Path;

/// Frames/s of `config`, against DouZero's trainer too with `reference`.
pub fn train(config: &Path, seconds: f64, runs: usize, json: bool, reference: bool) -> Result<()> {
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

/// The web server's answer times, and whether many games at once all finish in the log.
pub fn serve(
    agents: &str,
    latency_games: usize,
    games: usize,
    seed: u64,
    timeout: u64,
    log_dir: &Path,
    json: bool,
) -> Result<()> {
    runtime::configure_threads(1);
    let agents = ddz::play::parse_agents(agents).map_err(|e| anyhow::anyhow!("--agents: {e}"))?;
    let limit = std::time::Duration::from_secs(timeout);
    let r = bench::serve::bench_serve(&agents, latency_games, games, seed, limit, log_dir)?;
    report::show(&r, json)?;
    if !r.nothing_lost {
        bail!("games were lost: {} of {} finished, {} logged", r.concurrent_finished, r.concurrent_games, r.logged);
    }
    Ok(())
}

/// The exact solver's times by cards left.
pub fn solve(cards: &[u32], positions: usize, seed: u64, max_nodes: u64, json: bool) -> Result<()> {
    let sizes = bench::bench_solve(cards, positions, seed, max_nodes);
    report::show(&SolveBench { seed, sizes }, json)
}

/// Milliseconds per decision of each agent on the same positions.
pub fn agents(agents: &[AgentSpec], positions: usize, seed: u64, json: bool) -> Result<()> {
    runtime::configure_threads(1);
    let states = bench::decision_positions(positions, seed);
    let progress = indicatif::ProgressBar::new((agents.len() * states.len()) as u64);
    progress.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} decisions ({eta} left)")?);
    if !std::io::stderr().is_terminal() {
        progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let timings = bench::bench_agents(agents, &states, &progress)?;
    progress.finish_and_clear();
    report::show(&AgentsBench { seed, positions: states.len(), timings }, json)
}

/// Random self-play and move generation speed, against OpenSpiel too with `reference`.
pub fn engine(seconds: f64, runs: usize, seed: u64, json: bool, reference: bool, rules: Rules) -> Result<()> {
    if seconds.is_nan() || seconds <= 0.0 || runs == 0 {
        bail!("--seconds must be positive and --runs at least 1");
    }
    if reference && rules != Rules::Standard {
        bail!("--reference times OpenSpiel's standard game; it has no {rules} rules to compare with");
    }
    let reference = if reference { Some(reference_of(bench::OPENSPIEL)?) } else { None };
    let parts = if reference.is_some() { 4.0 } else { 3.0 };
    let per_run = seconds / (parts * runs as f64);
    let report = bench::bench_engine(per_run, runs, seed, rules, reference.as_ref())?;
    report::show(&EngineBench { per_run, report }, json)
}

/// The reference program `needs` describes, its packages installed first.
fn reference_of(needs: bench::Needs) -> Result<bench::Reference> {
    super::python::install(needs.import_check, needs.packages, "the reference bench");
    Ok(bench::Reference::prepare(needs)?)
}
