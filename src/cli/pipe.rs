//! `ddz bot`, `ddz moves` and `ddz solve`: JSON lines in on stdin, JSON lines out on stdout,
//! one answer a request, for other programs. The library writes the answers; no report here.

use anyhow::{Context, Result};
use ddz::agents::AgentSpec;
use std::io::IsTerminal;

/// Serves `agent` over `protocol`.
pub fn bot(agent: &AgentSpec, protocol: ddz::bot::Protocol) -> Result<()> {
    let mut agent = agent.clone().refuse_cheat("ddz bot")?.build()?;
    ddz::bot::serve(agent.as_mut(), protocol, std::io::stdin().lock(), std::io::stdout().lock())?;
    Ok(())
}

/// Legal plays under `rules`, a line each.
pub fn moves(rules: ddz::game::Rules) -> Result<()> {
    let errors =
        ddz::moves::serve(rules, std::io::stdin().lock(), std::io::stdout().lock()).context("reading stdin")?;
    if errors > 0 && !std::io::stdout().is_terminal() {
        eprintln!("ddz moves: {errors} line(s) had errors (answered with {{\"error\":…}})");
    }
    Ok(())
}

/// Open-hand positions solved, a line each.
pub fn solve(max_nodes: u64, ms: u64) -> Result<()> {
    let errors =
        ddz::solve::serve(std::io::stdin().lock(), std::io::stdout().lock(), max_nodes, ms).context("reading stdin")?;
    if errors > 0 && !std::io::stdout().is_terminal() {
        eprintln!("ddz solve: {errors} line(s) had errors (answered with {{\"error\":…}})");
    }
    Ok(())
}
