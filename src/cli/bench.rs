//! `ddz bench …`: speed measurements of the web server, the solver, agents and the engine
//! (the training benches are [`super::learn`]'s).

use super::report::{self, AgentsBench, EngineBench, SolveBench};
use anyhow::{Result, bail};
use ddz::agents::AgentSpec;
use ddz::bench;
use ddz::game::Rules;
use std::io::IsTerminal;
use std::path::Path;

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
pub(crate) fn reference_of(needs: bench::Needs) -> Result<bench::Reference> {
    super::python::install(needs.import_check, needs.packages, "the reference bench");
    Ok(bench::Reference::prepare(needs)?)
}
