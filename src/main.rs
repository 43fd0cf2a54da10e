//! The `ddz` command line: parses arguments, then calls one library function per subcommand.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use ddz::{bench, moves, runtime};
use std::io::IsTerminal;

#[derive(Parser)]
#[command(name = "ddz", version, about = "Dou Dizhu engine and Deep Monte Carlo trainer", long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the libtorch version, CUDA availability and thread settings (proves the link works).
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Legal plays over JSON lines: reads {"hand":"…","rival":"…"} per line on stdin and writes
    /// {"legal":[…]} (or {"error":"…"}) per line on stdout.
    Moves,
    /// Measure speed.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
}

#[derive(Subcommand)]
enum BenchWhat {
    /// Single-threaded random self-play (deal to end, move generation included) and move
    /// generation on 20-card leads; medians of several runs.
    Engine {
        /// Total seconds to spend (split over the runs and the two measurements).
        #[arg(long, default_value_t = 10.0)]
        seconds: f64,
        /// Number of runs (the median is reported).
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Seed of the random games.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Also time OpenSpiel's dou_dizhu (C++ engine, driven from Python) after each run and
        /// report our speed-up; installs open_spiel into the project venv on first use.
        #[arg(long)]
        reference: bool,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Info { json } => {
            runtime::configure_threads(1);
            let info = runtime::info();
            if json {
                println!("{}", serde_json::to_string_pretty(&info)?);
            } else {
                println!("ddz {}", info.ddz_version);
                println!("libtorch {}", info.libtorch_version);
                println!("CUDA available: {} ({} device(s)), cuDNN: {}", info.cuda_available, info.cuda_devices, info.cudnn_available);
                println!("cores: {}, libtorch intra-op threads: {} (set by ddz; actors use 1 each)", info.cores, info.intra_op_threads);
                println!("link check: {}", info.link_check);
            }
        }
        Command::Moves => {
            let stdin = std::io::stdin();
            let errors = moves::serve(stdin.lock(), std::io::stdout().lock()).context("reading stdin")?;
            if errors > 0 && !std::io::stdout().is_terminal() {
                eprintln!("ddz moves: {errors} line(s) had errors (answered with {{\"error\":…}})");
            }
        }
        Command::Bench { what: BenchWhat::Engine { seconds, runs, seed, json, reference } } => {
            if !(seconds > 0.0) || runs == 0 {
                bail!("--seconds must be positive and --runs at least 1");
            }
            let reference = if reference { Some(bench::Reference::prepare().map_err(anyhow::Error::msg)?) } else { None };
            let parts = if reference.is_some() { 3.0 } else { 2.0 };
            let per_run = seconds / (parts * runs as f64);
            let report = bench::bench_engine(per_run, runs, seed, reference.as_ref()).map_err(anyhow::Error::msg)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!("engine benchmark: {} runs × {:.2} s per measurement, one thread", report.runs.len(), per_run);
                println!("{:>4} {:>14} {:>16} {:>20} {:>14}", "run", "games/s", "decisions/s", "lead-20 calls/s", "plays/call");
                for (i, r) in report.runs.iter().enumerate() {
                    println!("{:>4} {:>14.0} {:>16.0} {:>20.0} {:>14.1}", i + 1, r.games_per_s, r.decisions_per_s, r.lead20_calls_per_s, r.lead20_plays_per_call);
                }
                let m = &report.median;
                println!("{:>4} {:>14.0} {:>16.0} {:>20.0} {:>14.1}", "med", m.games_per_s, m.decisions_per_s, m.lead20_calls_per_s, m.lead20_plays_per_call);
                if let Some(x) = report.speedup_vs_reference {
                    let refs: Vec<String> = report.reference_games_per_s.iter().map(|g| format!("{g:.0}")).collect();
                    println!("reference (OpenSpiel dou_dizhu from Python) games/s per run: {}", refs.join(", "));
                    println!("speed-up, median of per-run ratios: {x:.1}×");
                }
            }
        }
    }
    Ok(())
}
