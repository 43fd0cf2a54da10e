//! The `ddz` command line: parses arguments, then calls one library function per subcommand.

mod cli;

use anyhow::Result;
use clap::Parser;
use cli::args::{BenchWhat, Cli, Command};
use cli::{bench, data, eval, pipe, play, train};
use std::process::ExitCode;

fn main() -> ExitCode {
    ddz::runtime::keep_freed_memory();
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
        Command::Info { json } => {
            ddz::runtime::configure_threads(1);
            cli::report::show(&ddz::runtime::info(), json)
        }
        Command::Train(args) => train::train(args),
        Command::Actor(args) => train::actor(args),
        Command::Eval(args) => eval::eval(*args),
        Command::Ladder(args) => eval::ladder(args),
        Command::Replay { deal, agents, deals } => eval::replay(deal, &agents, &deals),
        Command::Bot { agent, protocol } => pipe::bot(&agent, protocol.into()),
        Command::Play(args) => play::play(args),
        Command::EvaluateHands { agent, games, seed, epochs, batch_size, lr, val_share, threads, out } => {
            let threads = eval::threads_or_all(threads);
            let cfg = ddz::hands::HandsConfig { games, seed, epochs, batch_size, lr, val_share, threads };
            eval::evaluate_hands(&agent, &cfg, &out)
        }
        Command::CheckDecisions { agent, file, json } => eval::check_decisions(&agent, file.as_deref(), json),
        Command::CheckInference { model, decisions, seed, tolerance, json } => {
            eval::check_inference(&model, decisions, seed, tolerance, json)
        }
        Command::Serve(args) => play::serve(args),
        Command::Logs { what } => data::logs(what),
        Command::Pretrain(args) => train::pretrain(args),
        Command::Deals { n, seed, out } => data::deals(n, seed, &out),
        Command::Solve { max_nodes, ms } => pipe::solve(max_nodes, ms),
        Command::Moves { rules } => pipe::moves(rules),
        Command::Bench { what } => match what {
            BenchWhat::Train { config, seconds, runs, json, distributed: true, broker, .. } => {
                bench::distributed(&config, seconds, runs, broker.as_deref(), json)
            }
            BenchWhat::Train { config, seconds, runs, json, reference, .. } => {
                bench::train(&config, seconds, runs, json, reference)
            }
            BenchWhat::Wire { games, runs, seed, json } => bench::wire(games, runs, seed, json),
            BenchWhat::Solve { positions, seed, max_nodes, cards, json } => {
                bench::solve(&cards, positions, seed, max_nodes, json)
            }
            BenchWhat::Inference { model, decisions, runs, seed, json } => {
                ddz::runtime::configure_threads(1);
                cli::report::show(&ddz::bench::inference::bench_inference(&model, decisions, runs, seed)?, json)
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
