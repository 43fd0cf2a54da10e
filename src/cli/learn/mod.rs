//! The trainer's part of the command line (the `learn` feature): its arguments, commands and
//! reports, and the dispatch of each command to the library.

pub mod args;
pub mod commands;
pub mod report;

use anyhow::Result;
use args::{LearnBench, LearnCommand};

/// Runs one of the trainer's commands.
pub fn run(command: LearnCommand) -> Result<()> {
    match command {
        LearnCommand::Info { json } => {
            ddz::runtime::configure_threads(1);
            crate::cli::report::show(&ddz::runtime::info(), json)
        }
        LearnCommand::Train(args) => commands::train(args),
        LearnCommand::Actor(args) => commands::actor(args),
        LearnCommand::Pretrain(args) => commands::pretrain(args),
        LearnCommand::EvaluateHands { agent, games, seed, epochs, batch_size, lr, val_share, threads, out } => {
            let threads = crate::cli::eval::threads_or_all(threads);
            let cfg = ddz::hands::HandsConfig { games, seed, epochs, batch_size, lr, val_share, threads };
            commands::evaluate_hands(&agent, &cfg, &out)
        }
        LearnCommand::CheckInference { model, decisions, seed, tolerance, json } => {
            commands::check_inference(&model, decisions, seed, tolerance, json)
        }
    }
}

/// Runs one of the training benches.
pub fn bench(what: LearnBench) -> Result<()> {
    match what {
        LearnBench::Train { config, seconds, runs, json, distributed: true, broker, .. } => {
            commands::distributed(&config, seconds, runs, broker.as_deref(), json)
        }
        LearnBench::Train { config, seconds, runs, json, reference, .. } => {
            commands::bench_train(&config, seconds, runs, json, reference)
        }
        LearnBench::Wire { games, runs, seed, json } => commands::wire(games, runs, seed, json),
        LearnBench::Inference { model, decisions, runs, seed, json } => {
            ddz::runtime::configure_threads(1);
            crate::cli::report::show(&ddz::bench::inference::bench_inference(&model, decisions, runs, seed)?, json)
        }
    }
}
