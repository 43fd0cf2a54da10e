//! The `ddz` command line: parses arguments, then calls one library function per subcommand.

mod cli;

use anyhow::Result;
use clap::Parser;
use cli::args::{BenchWhat, Cli, Command};
use cli::{bench, data, eval, pipe, play};
use std::process::ExitCode;

fn main() -> ExitCode {
    ddz::process::keep_freed_memory();
    let cli = Cli::parse();
    cli::python::configure(cli.python, cli.scripts);
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("Error: {}", cli::report::error_text(&e));
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> Result<()> {
    match command {
        #[cfg(feature = "learn")]
        Command::Learn(command) => cli::learn::run(command),
        Command::Eval(args) => eval::eval(*args),
        Command::Ladder(args) => eval::ladder(args),
        Command::Replay { deal, agents, deals } => eval::replay(deal, &agents, &deals),
        Command::Review(args) => data::review(args),
        Command::Bot { agent, protocol } => pipe::bot(&agent, protocol.into()),
        Command::Play(args) => play::play(args),
        Command::CheckDecisions { agent, file, json } => eval::check_decisions(&agent, file.as_deref(), json),
        Command::Serve(args) => play::serve(args),
        Command::Logs { what } => data::logs(what),
        Command::Deals { n, seed, out } => data::deals(n, seed, &out),
        Command::Headroom { deals, n, nodes, threads, json } => eval::headroom(&deals, n, nodes, threads, json),
        Command::Export { model, onnx, golden, positions, seed } => {
            data::export(&model, onnx.as_deref(), golden.as_deref(), positions, seed)
        }
        Command::Solve { max_nodes, ms } => pipe::solve(max_nodes, ms),
        Command::Moves { rules } => pipe::moves(rules),
        Command::Bench { what } => match what {
            #[cfg(feature = "learn")]
            BenchWhat::Learn(what) => cli::learn::bench(what),
            BenchWhat::Solve { positions, seed, max_nodes, cards, json } => {
                bench::solve(&cards, positions, seed, max_nodes, json)
            }
            BenchWhat::Agents { agents, positions, seed, json } => bench::agents(&agents, positions, seed, json),
            BenchWhat::Serve { agents, latency_games, games, seed, timeout, log_dir, json } => {
                bench::serve(&agents, latency_games, games, seed, timeout, &log_dir, json)
            }
            BenchWhat::Engine { seconds, runs, seed, json, reference, rules } => {
                bench::engine(seconds, runs, seed, json, reference, rules)
            }
        },
    }
}
