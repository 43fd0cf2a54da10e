//! The trainer's commands and their arguments: what the `ddz` binary offers with the `learn`
//! feature (libtorch), beside the player's commands of [`crate::cli::args`].

use crate::cli::args::{CountError, count_within, threads};
use clap::Subcommand;
use ddz::agents::AgentSpec;
use ddz::runtime::Device;
use ddz::train::config::TrainConfig;
use std::path::PathBuf;

/// The trainer's commands.
#[derive(Subcommand)]
pub enum LearnCommand {
    /// Print the libtorch version, CUDA availability and thread settings (proves the link works).
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Train a Deep Monte Carlo agent: actor threads self-play against a pool of frozen
    /// snapshots, a learner fits Q(s, a) to the final reward. Stops at a budget or Ctrl-C (after a
    /// checkpoint); `--resume RUN_DIR` continues a run.
    Train(TrainArgs),
    /// Play for a run whose learner reads games through Redis (`ddz train --broker URL`): actor
    /// threads here take the run's config, weights and pool from Redis and append each finished
    /// game to the run's stream, as in-process actors would. Start as many as you like, on any
    /// machine that reaches Redis; they stop when the learner finishes, or at Ctrl-C.
    Actor(ActorArgs),
    /// Check that the torch-free networks compute what libtorch computes: every network of
    /// MODEL (a checkpoint folder or weights file with its bidding network, a hand evaluator, a
    /// DouZero checkpoint folder) through both, on self-play decisions of its rules; prints the
    /// worst absolute difference and the decisions whose greedy play differs, and fails when
    /// the difference is above --tolerance or any choice differs.
    CheckInference {
        /// The checkpoint folder or weights file.
        model: PathBuf,
        /// Decisions compared (and as many bidding decisions or hands).
        #[arg(long, default_value_t = 10_000)]
        decisions: usize,
        /// The self-play games the decisions come from are seeded by this.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The largest absolute difference allowed.
        #[arg(long, default_value_t = 1e-5)]
        tolerance: f64,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Train the hand evaluator by Monte Carlo: deal, play the game out with AGENT in every
    /// seat, label the landlord's 17-card hand (and its 20 with the bottom) with the result;
    /// writes OUT/model.safetensors, a calibration table and plot (deciles of held-out deals).
    #[command(after_help = ddz::agents::spec::help())]
    EvaluateHands {
        /// The agent that plays the games out (a play network; see AGENTS below).
        #[arg(long, default_value = "checkpoint:models/dmc-rule-2h")]
        agent: AgentSpec,
        #[arg(long, default_value_t = 20_000)]
        games: usize,
        /// Deals come from this seed (the evaluation set uses 20261129).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 20)]
        epochs: usize,
        #[arg(long, default_value_t = 256)]
        batch_size: usize,
        #[arg(long, default_value_t = 1e-3)]
        lr: f64,
        /// Share of the deals held out for calibration.
        #[arg(long, default_value_t = 0.1)]
        val_share: f64,
        /// Threads that play the games; default: all cores.
        #[arg(long, value_parser = threads)]
        threads: Option<usize>,
        #[arg(long, default_value = "models/hand-evaluator")]
        out: PathBuf,
    },
    /// Supervised warm start: imitate the plays of game logs with the RL network (cross-entropy
    /// over each decision's legal plays); `ddz train --init-from OUT` continues with RL.
    Pretrain(PretrainArgs),
}

/// The training benches.
#[derive(Subcommand)]
pub enum LearnBench {
    /// Training speed: frames/s (learned decisions per second) of the given config, medians of
    /// several short runs in a scratch folder.
    Train {
        #[arg(long, default_value = "configs/dmc.toml")]
        config: PathBuf,
        /// Seconds per run.
        #[arg(long, default_value_t = 60.0)]
        seconds: f64,
        #[arg(long, default_value_t = 3)]
        runs: usize,
        #[arg(long)]
        json: bool,
        /// Also time DouZero's own trainer (CPU, 2 actors, OMP_NUM_THREADS=1) before each run and
        /// report the ratio; installs douzero into the project venv on first use.
        #[arg(long, conflicts_with = "distributed")]
        reference: bool,
        /// Also train with the actors in another process over Redis (`ddz actor`), the same
        /// number of actor threads, after each in-process run; report the ratio, the bytes per
        /// frame and Redis's memory with the stream at its cap (broker.stream_cap).
        #[arg(long)]
        distributed: bool,
        /// With --distributed: the Redis to use (default: a redis-server of its own on a free
        /// loopback port).
        #[arg(long, value_name = "URL", requires = "distributed")]
        broker: Option<String>,
    },
    /// The wire formats of a finished game for actors in other processes: bytes per frame and
    /// the actor's and the learner's cost per frame, for the features bit-packed, as floats, and
    /// the game record that the learner replays and encodes; rule self-play games, one thread.
    Wire {
        #[arg(long, default_value_t = 2000)]
        games: usize,
        #[arg(long, default_value_t = 5)]
        runs: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
    /// The torch-free forward pass against libtorch's on one network, the same positions in the
    /// same run, one thread: microseconds per decision (encode, value, choose: the same agent
    /// over either network), decisions/s of the forward pass alone at the actors' batch sizes,
    /// and the cost of building the torch-free network from published weights.
    Inference {
        /// The network (a checkpoint folder or weights file).
        #[arg(long, default_value = "models/ema-2h")]
        model: PathBuf,
        /// Decisions timed (self-play decisions of the network's rules).
        #[arg(long, default_value_t = 2000)]
        decisions: usize,
        /// Runs of the batch timings (their median is reported).
        #[arg(long, default_value_t = 3)]
        runs: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
pub struct ActorArgs {
    /// Redis URL, as the learner was given it, e.g. redis://10.0.0.5:6379/.
    #[arg(long, value_name = "URL")]
    pub broker: String,
    /// The run's name: the learner's --run (by default its run folder's name).
    #[arg(long, value_name = "NAME")]
    pub run: String,
    /// Actor threads; 0 = one per core.
    #[arg(long, default_value_t = 0, value_parser = actor_threads)]
    pub threads: usize,
    /// Refuse to play unless the learner's config agrees with this file on model, reward,
    /// actors, pool, broker, game and seed (actors always play the learner's config).
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Give up when no learner has published the run after this many seconds (0 = wait on).
    #[arg(long, default_value_t = 0.0)]
    pub wait_seconds: f64,
    /// No progress line.
    #[arg(long)]
    pub quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TrainArgs {
    /// The configuration file (every key documented in configs/dmc.toml).
    #[arg(long, default_value = "configs/dmc.toml", conflicts_with = "resume")]
    pub config: PathBuf,
    /// Continue the run in this folder from its newest checkpoint (uses the run's config.toml).
    #[arg(long, value_name = "RUN_DIR")]
    pub resume: Option<PathBuf>,
    /// Start from these weights (a .safetensors file or a checkpoint folder), e.g. from pretraining.
    #[arg(long, value_name = "CKPT", conflicts_with = "resume")]
    pub init_from: Option<PathBuf>,
    /// With --init-from, keep the config's exploration instead of switching to softmax.
    #[arg(long)]
    pub keep_exploration: bool,
    /// Set one key of the config over the file, as section.key=value (repeatable), e.g.
    /// --set learner.lr_decay_frames=23300000; a value that is not TOML is taken as a string.
    /// The run's config.toml records the result.
    #[arg(long = "set", value_name = "KEY=VALUE", conflicts_with = "resume")]
    pub settings: Vec<ddz::train::config::Setting>,
    /// Print the config the run would use, every key set (the file over the configs it
    /// `extends`, then --set and the flags), and exit without training: what the run's
    /// config.toml would record.
    #[arg(long)]
    pub print_config: bool,
    /// Learn from actor processes (`ddz actor`) through Redis at this URL, e.g.
    /// redis://127.0.0.1:6379/; then no actors run here unless --actors N asks for some.
    #[arg(long, value_name = "URL")]
    pub broker: Option<String>,
    /// The run's name in Redis (keys ddz:NAME:*), which actors join with `ddz actor --run NAME`
    /// (default: the run folder's name).
    #[arg(long, value_name = "NAME", requires = "broker")]
    pub run: Option<String>,
    #[command(flatten)]
    pub overrides: Overrides,
}

/// Command-line overrides of the common config keys.
#[derive(clap::Args, Clone, Default)]
pub struct Overrides {
    /// Run folder (config: run.dir).
    #[arg(long)]
    pub run_dir: Option<PathBuf>,
    /// Learner device: auto, cpu, cuda, cuda:N (config: run.device).
    #[arg(long)]
    pub device: Option<Device>,
    /// Actor threads, 0 = one per core (config: actors.count); with --broker, the actor threads
    /// in this process beside the remote ones (default none).
    #[arg(long, value_parser = actor_threads)]
    pub actors: Option<usize>,
    /// Run seed (config: run.seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop after this many learned frames (config: budget.max_frames; 0 = no bound).
    #[arg(long)]
    pub max_frames: Option<u64>,
    /// Stop after this many games (config: budget.max_games; 0 = no bound).
    #[arg(long)]
    pub max_games: Option<u64>,
    /// Stop after this many seconds of this session (config: budget.max_seconds; 0 = no bound).
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// Minutes between checkpoints (config: checkpoint.every_minutes).
    #[arg(long)]
    pub checkpoint_minutes: Option<f64>,
}

impl Overrides {
    pub fn apply(&self, cfg: &mut TrainConfig) {
        if let Some(v) = &self.run_dir {
            cfg.run.dir = v.clone();
        }
        if let Some(v) = self.device {
            cfg.run.device = v;
        }
        if let Some(v) = self.actors {
            cfg.actors.count = v;
        }
        if let Some(v) = self.seed {
            cfg.run.seed = v;
        }
        if let Some(v) = self.max_frames {
            cfg.budget.max_frames = v;
        }
        if let Some(v) = self.max_games {
            cfg.budget.max_games = v;
        }
        if let Some(v) = self.max_seconds {
            cfg.budget.max_seconds = v;
        }
        if let Some(v) = self.checkpoint_minutes {
            cfg.checkpoint.every_minutes = v;
        }
    }
}

#[derive(clap::Args)]
pub struct PretrainArgs {
    /// Game log file (our JSONL format).
    #[arg(long)]
    pub logs: PathBuf,
    /// Output folder: model.safetensors, pretrain.json, tb/.
    #[arg(long, default_value = "models/pretrained")]
    pub out: PathBuf,
    /// The training config whose [model] sizes to use (so RL can start from the result).
    #[arg(long, default_value = "configs/dmc.toml")]
    pub config: PathBuf,
    #[arg(long, default_value_t = 3000)]
    pub steps: u64,
    #[arg(long, default_value_t = 256)]
    pub batch_size: usize,
    #[arg(long, default_value_t = 1e-4)]
    pub lr: f64,
    /// Share of games held out for validation (early stopping, top-1 accuracy).
    #[arg(long, default_value_t = 0.1)]
    pub val_share: f64,
    /// Stop after this many validations (every 100 steps) without a better validation loss.
    #[arg(long, default_value_t = 5)]
    pub patience: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// auto, cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    pub device: Device,
    /// Leave out invalid games (reported with their reasons) instead of stopping.
    #[arg(long)]
    pub skip_invalid: bool,
    /// Imitate only the seats NAME played, by the logs' `players` field: `human` learns from
    /// people's decisions in `ddz play` / `ddz serve` logs, not from the agents they played.
    #[arg(long, value_name = "NAME")]
    pub player: Option<String>,
}

/// `ddz actor --threads`: as the config's `actors.count`.
fn actor_threads(text: &str) -> Result<usize, CountError> {
    count_within("actors.count", text)
}
