//! The `ddz` command line: parses arguments, then calls one library function per subcommand.

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use ddz::agents::{Agent, AgentSpec};
use ddz::eval::curve::BackgroundEval;
use ddz::game::{Deal, DealSource};
use ddz::runtime::{self, Device};
use ddz::train::{self, Start, Trainer, config::Exploration, config::TrainConfig};
use ddz::{bench, moves};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

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
    /// Train a Deep Monte Carlo agent: actor threads self-play against a pool of frozen
    /// snapshots, a learner fits Q(s, a) to the final reward. Stops at a budget or Ctrl-C (after a
    /// checkpoint); `--resume RUN_DIR` continues a run.
    Train(TrainArgs),
    /// Play for a run whose learner reads games through Redis (`ddz train --broker URL`): actor
    /// threads here take the run's config, weights and pool from Redis and append each finished
    /// game to the run's stream, as in-process actors would. Start as many as you like, on any
    /// machine that reaches Redis; they stop when the learner finishes, or at Ctrl-C.
    Actor(ActorArgs),
    /// Evaluate agents on fixed deals, both seatings, with 95% confidence intervals; or every
    /// checkpoint of a run against random and rule (`--run`), as a curve and a PNG plot.
    Eval(Box<EvalArgs>),
    /// The strength ladder: a fixed roster (random, rule, RLCard's rule agent and a reference
    /// DouZero through scripts/douzero_bot.py, every shipped network, the default search agent)
    /// round robin on the `test` deals, both seatings: a WP matrix with 95% CIs and a rating per
    /// agent with its interval (Bradley–Terry on all games), as Markdown, JSON and a plot in
    /// --out. Finished pairings are kept there, so a stopped ladder resumes; search agents play
    /// the first --slow-deals deals only.
    #[command(after_help = AGENTS_HELP)]
    Ladder(LadderArgs),
    /// Replay one deal move by move: hands, each play, and each network or search agent's five
    /// best candidates with their values (and visits, for ISMCTS).
    #[command(after_help = AGENTS_HELP)]
    Replay {
        /// Deal index in the deal set.
        #[arg(long, default_value_t = 0)]
        deal: usize,
        /// Three agents: landlord, landlord_down, landlord_up (see AGENTS below).
        #[arg(long, value_delimiter = ',', default_value = "rule,rule,rule")]
        agents: Vec<AgentSpec>,
        /// Deal set: dev, test (2,000 built-in deals each) or a deal file (JSONL).
        #[arg(long, default_value = "dev")]
        deals: DealSource,
    },
    /// Serve an agent to another program: one JSON request per line on stdin, one JSON answer
    /// per line on stdout (native protocol, or Botzone's FightTheLandlord format). A search
    /// agent's time budget (`ms=`) bounds each answer.
    #[command(after_help = AGENTS_HELP)]
    Bot {
        /// The agent (see AGENTS below).
        #[arg(long, default_value = DEFAULT_AGENT)]
        agent: AgentSpec,
        #[arg(long, value_enum, default_value = "native")]
        protocol: ddz::bot::Protocol,
    },
    /// Play a game against two agents in the terminal (or through a pipe, one entry a line).
    /// Every game is saved to the log directory in ddz's JSONL format (`games.jsonl`, or
    /// `unfinished.jsonl` after `quit`), ready for `ddz logs check` and `ddz pretrain`.
    #[command(after_help = AGENTS_HELP)]
    Play(PlayArgs),
    /// Serve a web page where people play whole games against two agents in the browser
    /// (a small JSON API under it). Every finished game is saved to the log directory.
    #[command(after_help = AGENTS_HELP)]
    Serve(ServeArgs),
    /// Key decisions: put curated situations (a seat's view and the plays a sound player makes
    /// or must not make) to agents; prints each verdict and the pass rates by rule.
    #[command(after_help = AGENTS_HELP)]
    CheckDecisions {
        /// Agents, comma-separated (see AGENTS below).
        #[arg(long, value_delimiter = ',', default_value = "rule")]
        agent: Vec<AgentSpec>,
        /// A situations file (JSONL; see docs/evaluation.md); default: the built-in 60.
        #[arg(long)]
        file: Option<PathBuf>,
        /// Print the reports as JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Train the hand evaluator by Monte Carlo: deal, play the game out with AGENT in every
    /// seat, label the landlord's 17-card hand (and its 20 with the bottom) with the result;
    /// writes OUT/model.safetensors, a calibration table and plot (deciles of held-out deals).
    #[command(after_help = AGENTS_HELP)]
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
        #[arg(long)]
        threads: Option<usize>,
        #[arg(long, default_value = "models/hand-evaluator")]
        out: PathBuf,
    },
    /// Game logs: import other formats, write self-play logs, check a log file.
    Logs {
        #[command(subcommand)]
        what: LogsWhat,
    },
    /// Supervised warm start: imitate the plays of game logs with the RL network (cross-entropy
    /// over each decision's legal plays); `ddz train --init-from OUT` continues with RL.
    Pretrain(PretrainArgs),
    /// Write a deal file: JSONL, one deal a line (see README).
    Deals {
        #[arg(long, default_value_t = 1000)]
        n: usize,
        #[arg(long, default_value_t = 20261129)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Legal plays over JSON lines: reads {"hand":"…","rival":"…"} per line on stdin and writes
    /// {"legal":[…]} (or {"error":"…"}) per line on stdout.
    Moves,
    /// The exact open-hand solver over JSON lines: reads
    /// {"hands":{"landlord":"…","landlord_down":"…","landlord_up":"…"},"to_move":"landlord",
    /// "rival":{"seat":"landlord_up","play":"33"}} per line (rival left out when leading; two
    /// hands for a two-player puzzle) and writes {"value":1|-1,"winning_plays":[…],"line":[…],
    /// "nodes":N,"ms":T} (value 1: the side to move wins), or {"error":"…"}.
    Solve {
        /// Give up on a position after this many nodes (an error line); 0 = never.
        #[arg(long, default_value_t = 200_000_000)]
        max_nodes: u64,
        /// Give up on a position after this many milliseconds (an error line, within about
        /// 1,024 positions of the budget); 0 = never.
        #[arg(long, default_value_t = 0)]
        ms: u64,
    },
    /// Measure speed.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
}

#[derive(Subcommand)]
enum LogsWhat {
    /// Convert other formats to ours (each FILE one replay), replaying every game to check it.
    Import {
        /// Source format.
        #[arg(long, value_parser = ["rlcard-showdown"])]
        from: String,
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[arg(long)]
        out: PathBuf,
        #[arg(long)]
        skip_invalid: bool,
    },
    /// Synthetic logs: AGENT plays every seat on generated deals.
    Selfplay {
        #[arg(long, default_value = "rule")]
        agent: AgentSpec,
        #[arg(long, default_value_t = 2000)]
        games: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        out: PathBuf,
    },
    /// Replay every game of a log file and report the invalid ones.
    Check { file: PathBuf },
}

#[derive(clap::Args)]
#[command(after_help = AGENTS_HELP)]
struct EvalArgs {
    /// Agent A (see AGENTS below).
    #[arg(long, required_unless_present_any = ["run", "league"])]
    a: Option<AgentSpec>,
    /// Agent B (the opponent).
    #[arg(long, required_unless_present_any = ["run", "league"])]
    b: Option<AgentSpec>,
    /// Round robin of these agents (comma-separated): a WP/ADP matrix and a rating per agent.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["a", "b", "run"])]
    league: Option<Vec<AgentSpec>>,
    /// Every checkpoint of this run against random and rule: RUN/eval/curve.{csv,json,png}.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["a", "b"])]
    run: Option<PathBuf>,
    /// With --run: further opponents, e.g. snapshots of another run (checkpoint:PATH,…).
    #[arg(long, value_delimiter = ',', requires = "run")]
    also: Vec<AgentSpec>,
    /// Deal set: dev (2,000 built-in deals for choosing settings; its first 1,000 are the set
    /// of every figure before the split), test (2,000 others, for reported figures) or a deal
    /// file (JSONL).
    #[arg(long, default_value = "dev")]
    deals: DealSource,
    /// Use only the first N deals.
    #[arg(long)]
    n: Option<usize>,
    /// Play a deal file that holds the same deal more than once (refused by default: every
    /// deal counts as an independent sample, so repeats narrow the intervals without
    /// information); a warning names the first repeat.
    #[arg(long)]
    allow_duplicates: bool,
    /// The whole game with bidding: on every deal each agent plays alone against two copies of
    /// the other, in each seat (so it bids first, second and third); points with the bid,
    /// bombs and spring. Agents without a bidding model bid with the rule bidder.
    #[arg(long, conflicts_with_all = ["league", "run"])]
    bidding: bool,
    /// With --bidding: who bids for A: own (the agent's own bidding: a network's bidding
    /// network when its checkpoint folder has one, else the rule bidder), rule,
    /// evaluator:PATH[?t1=0.5&t2=0.6&t3=0.7] (the hand evaluator; tN is the win chance needed to
    /// bid N), or network:PATH (the bidding network of a run trained with game.bidding = true).
    #[arg(long, default_value = "own", requires = "bidding")]
    bidder_a: ddz::agents::bidder::BidderSpec,
    /// With --bidding: who bids for B.
    #[arg(long, default_value = "own", requires = "bidding")]
    bidder_b: ddz::agents::bidder::BidderSpec,
    /// Without --bidding: double the points of a spring or anti-spring too (off by default, so
    /// that ADP compares with published fixed-landlord figures; --bidding always doubles them).
    #[arg(long, conflicts_with_all = ["bidding", "league", "run"])]
    spring: bool,
    /// With --bidding: when every seat passes, deal again (redeal) or count a drawn game (draw).
    #[arg(long, value_enum, default_value = "redeal", requires = "bidding")]
    all_pass: ddz::eval::bidding::AllPass,
    /// Threads; default: all cores. Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
    /// Also write the report as JSON here.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Also write the report as Markdown here.
    #[arg(long)]
    markdown: Option<PathBuf>,
}

#[derive(clap::Args)]
struct LadderArgs {
    /// The roster, comma-separated, each LABEL=AGENT or AGENT; default: the roster above (see
    /// `ddz::eval::ladder::DEFAULT_ROSTER`).
    #[arg(long, value_delimiter = ',')]
    agents: Vec<ddz::eval::ladder::Entry>,
    /// Deal set: test (for reported figures), dev, or a deal file.
    #[arg(long, default_value = "test")]
    deals: DealSource,
    /// Use only the first N deals.
    #[arg(long)]
    n: Option<usize>,
    /// Play a deal file that holds the same deal more than once (refused by default: every
    /// deal counts as an independent sample, so repeats narrow the intervals without
    /// information); a warning names the first repeat.
    #[arg(long)]
    allow_duplicates: bool,
    /// Deals the pairings of a search agent play (the first ones of the set).
    #[arg(long, default_value_t = 100)]
    slow_deals: usize,
    /// The whole game with bidding: each deal in all six seatings (each agent alone against two
    /// of the other in every seat), as `ddz eval --bidding`; bot: agents bid with the rule
    /// bidder. Its pairings play on one thread each.
    #[arg(long)]
    bidding: bool,
    /// Where the pairings, ladder.{md,json,png} and ratings.csv go (and are resumed from).
    #[arg(long, default_value = "runs/ladder")]
    out: PathBuf,
    /// Threads; default: all cores. Results do not depend on it.
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(clap::Args)]
struct ActorArgs {
    /// Redis URL, as the learner was given it, e.g. redis://10.0.0.5:6379/.
    #[arg(long, value_name = "URL")]
    broker: String,
    /// The run's name: the learner's --run (by default its run folder's name).
    #[arg(long, value_name = "NAME")]
    run: String,
    /// Actor threads; 0 = one per core.
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Refuse to play unless the learner's config agrees with this file on model, reward,
    /// actors, pool, broker, game and seed (actors always play the learner's config).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Give up when no learner has published the run after this many seconds (0 = wait on).
    #[arg(long, default_value_t = 0.0)]
    wait_seconds: f64,
    /// No progress line.
    #[arg(long)]
    quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct TrainArgs {
    /// The configuration file (every key documented in configs/dmc.toml).
    #[arg(long, default_value = "configs/dmc.toml", conflicts_with = "resume")]
    config: PathBuf,
    /// Continue the run in this folder from its newest checkpoint (uses the run's config.toml).
    #[arg(long, value_name = "RUN_DIR")]
    resume: Option<PathBuf>,
    /// Start from these weights (a .safetensors file or a checkpoint folder), e.g. from pretraining.
    #[arg(long, value_name = "CKPT", conflicts_with = "resume")]
    init_from: Option<PathBuf>,
    /// With --init-from, keep the config's exploration instead of switching to softmax.
    #[arg(long)]
    keep_exploration: bool,
    /// Learn from actor processes (`ddz actor`) through Redis at this URL, e.g.
    /// redis://127.0.0.1:6379/; then no actors run here unless --actors N asks for some.
    #[arg(long, value_name = "URL")]
    broker: Option<String>,
    /// The run's name in Redis (keys ddz:NAME:*), which actors join with `ddz actor --run NAME`
    /// (default: the run folder's name).
    #[arg(long, value_name = "NAME", requires = "broker")]
    run: Option<String>,
    #[command(flatten)]
    overrides: Overrides,
}

/// Command-line overrides of the common config keys.
#[derive(clap::Args, Clone, Default)]
struct Overrides {
    /// Run folder (config: run.dir).
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Learner device: auto, cpu, cuda, cuda:N (config: run.device).
    #[arg(long)]
    device: Option<Device>,
    /// Actor threads, 0 = one per core (config: actors.count); with --broker, the actor threads
    /// in this process beside the remote ones (default none).
    #[arg(long)]
    actors: Option<usize>,
    /// Run seed (config: run.seed).
    #[arg(long)]
    seed: Option<u64>,
    /// Stop after this many learned frames (config: budget.max_frames; 0 = no bound).
    #[arg(long)]
    max_frames: Option<u64>,
    /// Stop after this many games (config: budget.max_games; 0 = no bound).
    #[arg(long)]
    max_games: Option<u64>,
    /// Stop after this many seconds of this session (config: budget.max_seconds; 0 = no bound).
    #[arg(long)]
    max_seconds: Option<f64>,
    /// Minutes between checkpoints (config: checkpoint.every_minutes).
    #[arg(long)]
    checkpoint_minutes: Option<f64>,
}

impl Overrides {
    fn apply(&self, cfg: &mut TrainConfig) {
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

/// The agent names every command takes, with every knob and its default.
/// The agent of `play`, `serve` and `bot` unless told otherwise: the top of the ladder
/// (docs/ladder/ladder.md, `test` deals) among networks and search agents within 200 ms a
/// decision (this one: 137 ms median, 184 ms p90 on one core, `ddz bench agents`).
const DEFAULT_AGENT: &str = "auto:models/dmc-rule-2h/model.safetensors";

const AGENTS_HELP: &str = "\
AGENTS:
  random, rule                 uniformly random; the rule player
  checkpoint:PATH              a network: a .safetensors file, a checkpoint folder, or a run folder
                               (its newest checkpoint)
  pimc:NET?worlds=16&top=4&cards=20&max_nodes=200000&ms=0&far=rollout&belief=0&opp=net&draws=4&steps=30
                               the network's `top` plays scored in `worlds` worlds drawn from what
                               the seat knows: solved exactly from `cards` cards left in all (0:
                               never), before that played out by the network (far=network: the
                               network alone); belief=T weighs worlds by the other seats' plays
                               (softmax of Q at T); opp=rule models the other side as the rule agent:
                               worlds weighed by its plays (`draws` drawn per world kept, then
                               `steps` card swaps toward worlds where it would have played so) and
                               rollouts where it plays that side
  ismcts:GUIDE?sims=100&c=1&ms=0&worlds=0&leaf=value&final=visits&key=mover&belief=0
                               information-set MCTS: `sims` simulations (or `ms` milliseconds), each
                               in a world drawn from what the seat knows (worlds=N: a pool of N);
                               GUIDE a network (PUCT from its Q; leaf=value: its value, leaf=rollout:
                               games played out by it) or rule / random (UCT with their rollouts);
                               final=visits|value; key=mover (OpenSpiel) or observer (single observer);
                               belief=T: root worlds weighted by the other seats' plays (network)
  auto:NET?evidence=3&telling=0&prior_landlord=0.5&prior_farmers=0&net_steps=30
                               pimc:NET?opp=rule&worlds=64&cards=0 while some world drawn from what
                               the seat knows explains every play of the other side (at least
                               `evidence` with a choice, `telling` of them plays the network would
                               not make) as the rule agent's and none drawn toward the network
                               (`net_steps` swaps; 0: not tried) explains them as the network's;
                               ismcts:NET?belief=0.1 once no world fits the rule agent; before
                               that, or while both fit, both, their values weighed
                               prior : 1 - prior (the seat's prior; prior=P sets both)
  alphabeta:GUIDE?depth=2&top=4&worlds=8&ms=0
                               alpha-beta `depth` plies deep over the `top` plays at each node, in
                               `worlds` drawn worlds; GUIDE a network (its value at the frontier) or
                               heuristic (the hand shape)
  douzero:DIR                  DouZero's checkpoints (landlord*.ckpt, landlord_up*.ckpt,
                               landlord_down*.ckpt as its trainer writes them, converted once with
                               the venv's torch), played natively, greedy on its Q
  bot:CMD?timeout_ms=10000&on_error=fail
                               any program speaking ddz's native bot protocol (JSON lines, as
                               `ddz bot` serves), started once per worker with `sh -c CMD`; a crash,
                               time-out or bad answer stops the command with the bot, deal and
                               request named (on_error=forfeit: that game is lost and counted).
                               E.g. bot:python3 scripts/douzero_bot.py rlcard (RLCard's rule
                               agent). Quote CMD (bot:\"CMD\"?knobs) where it holds a `?`; in a
                               comma-separated list it must hold no comma
  NET is checkpoint:PATH or PATH; ms=0 means no time limit. No agent reads a hidden card: search
  agents see only worlds drawn from their seat's information.";

#[derive(Subcommand)]
enum BenchWhat {
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
    /// The web server over real HTTP on 127.0.0.1: the time to answer a play (the person's play
    /// and both agents' replies), games played one at a time; then many games at once to the
    /// end, checking that every game finished and is in the log, replaying.
    #[command(after_help = AGENTS_HELP)]
    Serve {
        /// The agents (one spec for both seats, or two comma-separated).
        #[arg(long, default_value = "checkpoint:models/dmc-rule-2h")]
        agents: String,
        /// Games played one at a time, for the answer time.
        #[arg(long, default_value_t = 10)]
        latency_games: usize,
        /// Games played at once, each by its own client.
        #[arg(long, default_value_t = 100)]
        games: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Give up (and fail) after this many seconds.
        #[arg(long, default_value_t = 600)]
        timeout: u64,
        /// Where the server writes the games' logs (its games.jsonl is replaced).
        #[arg(long, default_value = "target/bench-serve")]
        log_dir: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// The exact solver on one core: positions from rule self-play games at 10, 15, 20, 25 and 30
    /// cards left in all; median and 90th-percentile time, nodes/s.
    Solve {
        /// Positions per size.
        #[arg(long, default_value_t = 30)]
        positions: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Give up on a position after this many nodes (counted as unsolved); 0 = never.
        #[arg(long, default_value_t = 20_000_000)]
        max_nodes: u64,
        #[arg(long, value_delimiter = ',', default_value = "10,15,20,25,30")]
        cards: Vec<u32>,
        #[arg(long)]
        json: bool,
    },
    /// Milliseconds per decision of agents on one thread (search agents above all): the same
    /// positions for each (decisions drawn from rule self-play games), median, 90th percentile
    /// and the ratio of medians to the first agent.
    #[command(after_help = AGENTS_HELP)]
    Agents {
        /// Agents, comma-separated, the reference first (e.g. checkpoint:M,ismcts:checkpoint:M).
        #[arg(long, value_delimiter = ',', required = true)]
        agents: Vec<AgentSpec>,
        /// Positions (one decision from each of this many games).
        #[arg(long, default_value_t = 200)]
        positions: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long)]
        json: bool,
    },
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

#[derive(clap::Args)]
struct PretrainArgs {
    /// Game log file (our JSONL format).
    #[arg(long)]
    logs: PathBuf,
    /// Output folder: model.safetensors, pretrain.json, tb/.
    #[arg(long, default_value = "models/pretrained")]
    out: PathBuf,
    /// The training config whose [model] sizes to use (so RL can start from the result).
    #[arg(long, default_value = "configs/dmc.toml")]
    config: PathBuf,
    #[arg(long, default_value_t = 3000)]
    steps: u64,
    #[arg(long, default_value_t = 256)]
    batch_size: usize,
    #[arg(long, default_value_t = 1e-4)]
    lr: f64,
    /// Share of games held out for validation (early stopping, top-1 accuracy).
    #[arg(long, default_value_t = 0.1)]
    val_share: f64,
    /// Stop after this many validations (every 100 steps) without a better validation loss.
    #[arg(long, default_value_t = 5)]
    patience: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// auto, cpu, cuda, cuda:N.
    #[arg(long, default_value = "auto")]
    device: Device,
    /// Leave out invalid games (reported with their reasons) instead of stopping.
    #[arg(long)]
    skip_invalid: bool,
    /// Imitate only the seats NAME played, by the logs' `players` field: `human` learns from
    /// people's decisions in `ddz play` / `ddz serve` logs, not from the agents they played.
    #[arg(long, value_name = "NAME")]
    player: Option<String>,
}

fn main() -> Result<()> {
    match Cli::parse().command {
        Command::Info { json } => info(json),
        Command::Train(args) => train(args),
        Command::Actor(args) => actor(args),
        Command::Eval(args) => eval(*args),
        Command::Ladder(args) => ladder(args),
        Command::Replay { deal, agents, deals } => replay(deal, &agents, &deals),
        Command::Bot { agent, protocol } => {
            runtime::configure_threads(1);
            let mut agent = agent.build()?;
            ddz::bot::serve(agent.as_mut(), protocol, std::io::stdin().lock(), std::io::stdout().lock())?;
            Ok(())
        }
        Command::Play(args) => play(args),
        Command::EvaluateHands { agent, games, seed, epochs, batch_size, lr, val_share, threads, out } => {
            let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
            let cfg = ddz::hands::HandsConfig { games, seed, epochs, batch_size, lr, val_share, threads };
            evaluate_hands(&agent, &cfg, &out)
        }
        Command::CheckDecisions { agent, file, json } => check_decisions(&agent, file.as_deref(), json),
        Command::Serve(args) => serve(args),
        Command::Logs { what } => logs(what),
        Command::Pretrain(args) => pretrain(args),
        Command::Deals { n, seed, out } => {
            if n > ddz::game::MOST_DEALS {
                bail!("--n {n}: at most {} deals a file (make more files with other --seed)", ddz::game::MOST_DEALS);
            }
            ddz::game::write_deals(&out, &ddz::game::generate_deals(n, seed))
                .with_context(|| format!("writing {}", out.display()))?;
            eprintln!("wrote {n} deals (seed {seed}) to {}", out.display());
            Ok(())
        }
        Command::Solve { max_nodes, ms } => {
            let errors = ddz::solve::serve(std::io::stdin().lock(), std::io::stdout().lock(), max_nodes, ms)
                .context("reading stdin")?;
            if errors > 0 && !std::io::stdout().is_terminal() {
                eprintln!("ddz solve: {errors} line(s) had errors (answered with {{\"error\":…}})");
            }
            Ok(())
        }
        Command::Moves => {
            let errors = moves::serve(std::io::stdin().lock(), std::io::stdout().lock()).context("reading stdin")?;
            if errors > 0 && !std::io::stdout().is_terminal() {
                eprintln!("ddz moves: {errors} line(s) had errors (answered with {{\"error\":…}})");
            }
            Ok(())
        }
        Command::Bench { what: BenchWhat::Train { config, seconds, runs, json, distributed: true, broker, .. } } => {
            bench_distributed(&config, seconds, runs, broker.as_deref(), json)
        }
        Command::Bench { what: BenchWhat::Train { config, seconds, runs, json, reference, .. } } => {
            bench_train(&config, seconds, runs, json, reference)
        }
        Command::Bench { what: BenchWhat::Wire { games, runs, seed, json } } => bench_wire(games, runs, seed, json),
        Command::Bench { what: BenchWhat::Solve { positions, seed, max_nodes, cards, json } } => {
            bench_solve(&cards, positions, seed, max_nodes, json)
        }
        Command::Bench { what: BenchWhat::Agents { agents, positions, seed, json } } => {
            bench_agents(&agents, positions, seed, json)
        }
        Command::Bench { what: BenchWhat::Serve { agents, latency_games, games, seed, timeout, log_dir, json } } => {
            bench_serve(&agents, latency_games, games, seed, timeout, &log_dir, json)
        }
        Command::Bench { what: BenchWhat::Engine { seconds, runs, seed, json, reference } } => {
            bench_engine(seconds, runs, seed, json, reference)
        }
    }
}

fn bench_serve(
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
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!("agents: {} / {}", r.agents[0], r.agents[1]);
        println!(
            "one game at a time: {} plays in {} games, answer median {:.1} ms, p90 {:.1} ms (the person's play and both agents' replies)",
            r.latency_plays, r.latency_games, r.median_ms, r.p90_ms
        );
        println!(
            "{} games at once: {} finished in {:.1} s, answer median {:.1} ms, p90 {:.1} ms",
            r.concurrent_games,
            r.concurrent_finished,
            r.concurrent_seconds,
            r.concurrent_median_ms,
            r.concurrent_p90_ms
        );
        println!("log: {} games, {} replay; nothing lost: {}", r.logged, r.replayed, r.nothing_lost);
        println!(
            "/api/advise ({}): {} positions, one client: median {:.2} ms, p90 {:.2} ms; {} clients at once: median {:.2} ms, p90 {:.2} ms",
            r.agents[0],
            r.advice_requests,
            r.advice_median_ms,
            r.advice_p90_ms,
            bench::serve::ADVICE_CLIENTS,
            r.advice_concurrent_median_ms,
            r.advice_concurrent_p90_ms
        );
    }
    if !r.nothing_lost {
        bail!("games were lost: {} of {} finished, {} logged", r.concurrent_finished, r.concurrent_games, r.logged);
    }
    Ok(())
}

fn info(json: bool) -> Result<()> {
    runtime::configure_threads(1);
    let info = runtime::info();
    if json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(());
    }
    println!("ddz {}", info.ddz_version);
    println!("libtorch {}", info.libtorch_version);
    println!(
        "CUDA available: {} ({} device(s)), cuDNN: {}",
        info.cuda_available, info.cuda_devices, info.cudnn_available
    );
    println!(
        "cores: {}, libtorch intra-op threads: {} (set by ddz; actors use 1 each)",
        info.cores, info.intra_op_threads
    );
    println!("link check: {}", info.link_check);
    Ok(())
}

fn train(args: TrainArgs) -> Result<()> {
    if args.resume.is_some() && args.overrides.run_dir.is_some() {
        bail!("--run-dir cannot be combined with --resume (the run folder is the one resumed)");
    }
    let (mut cfg, start) = match &args.resume {
        Some(dir) => (train::load_run_config(dir)?, Start::Resume),
        None => (TrainConfig::load(&args.config)?, Start::Fresh { init_from: args.init_from.clone() }),
    };
    args.overrides.apply(&mut cfg);
    if args.init_from.is_some() && cfg.actors.exploration == Exploration::Epsilon && !args.keep_exploration {
        // After a warm start, explore by softmax with an annealed temperature, so RL can leave
        // pure imitation behind.
        cfg.actors.exploration = Exploration::Softmax;
        let a = &cfg.actors;
        eprintln!(
            "warm start: softmax exploration, temperature {} -> {} over {} frames (--keep-exploration to keep epsilon)",
            a.temperature_start, a.temperature_end, a.temperature_anneal_frames
        );
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
    let mut trainer = Trainer::new(cfg, start, false)?;
    if let Some(url) = &args.broker {
        let name = match &args.run {
            Some(name) => name.clone(),
            None => run_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "dmc".into()),
        };
        trainer = trainer.with_broker(url, &name, local_actors)?;
        let url = ddz::train::broker::masked(url);
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
    let s = trainer.on_checkpoint(move |_| evaluation.checkpoint_written()).run()?;
    let rate = |w: Option<f64>| w.map_or("-".to_string(), |w| format!("{w:.3}"));
    let vs_rule = match (s.win_rate_vs_rule_landlord, s.win_rate_vs_rule_farmers) {
        (None, None) => String::new(),
        (l, f) => format!("; vs rule (trained against): landlord {}, farmers {}", rate(l), rate(f)),
    };
    println!(
        "{} steps, {} frames ({:.0} frames/s), {} games ({:.1} games/s) in {:.0} s, stopped by {}; last loss {:.4}; \
         win rate vs pool: landlord {}, farmers {}{vs_rule}; checkpoint {}",
        s.steps,
        s.frames,
        s.frames_per_s,
        s.games,
        s.games_per_s,
        s.seconds,
        s.stopped_by,
        s.last_loss,
        rate(s.win_rate_vs_pool_landlord),
        rate(s.win_rate_vs_pool_farmers),
        s.checkpoint.display()
    );
    Ok(())
}

fn actor(args: ActorArgs) -> Result<()> {
    let check = args.config.as_deref().map(TrainConfig::load).transpose()?;
    let options = train::broker::remote::ActorOptions {
        url: args.broker,
        run: args.run,
        threads: args.threads,
        check,
        wait_seconds: args.wait_seconds,
        quiet: args.quiet,
    };
    let r = train::broker::remote::run_actors(&options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!(
            "{} games, {} frames sent ({:.0} bytes/frame) in {:.0} s, {:.0} s waiting for room in the stream; \
             {} weights versions; stopped: {}",
            r.games,
            r.frames,
            r.bytes as f64 / r.frames.max(1) as f64,
            r.seconds,
            r.waited_seconds,
            r.versions,
            r.stopped_by
        );
    }
    Ok(())
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

/// Refuses (or, allowed, warns of) a deal set that repeats a deal.
fn distinct_deals(deals: &[ddz::game::Deal], source: &ddz::game::DealSource, allow: bool) -> Result<()> {
    let Some((first, again)) = ddz::game::first_repeat(deals) else { return Ok(()) };
    let what = format!(
        "{source}: deal {} is deal {} again; every deal counts as an independent sample, so repeats \
         narrow the 95% intervals without adding information",
        again + 1,
        first + 1
    );
    if !allow {
        bail!("{what}. Remove the repeats, or pass --allow-duplicates to play them anyway");
    }
    eprintln!("warning: {what} (--allow-duplicates)");
    Ok(())
}

fn eval(args: EvalArgs) -> Result<()> {
    runtime::configure_threads(1);
    let mut deals = args.deals.load()?;
    if let Some(n) = args.n {
        deals.truncate(n);
    }
    distinct_deals(&deals, &args.deals, args.allow_duplicates)?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let (illegal, markdown, mut report) = if let Some(run) = &args.run {
        return eval_run(run, &deals, &args.also, threads);
    } else if let Some(agents) = &args.league {
        let league = ddz::eval::league::round_robin(agents, &deals, threads)?;
        let illegal: u32 = league.matches.iter().map(|m| m.illegal_plays()).sum();
        (illegal, league.markdown(), serde_json::to_value(&league)?)
    } else if args.bidding {
        let (a, b) = (args.a.as_ref().expect("clap requires --a"), args.b.as_ref().expect("clap requires --b"));
        let progress = ddz::eval::progress_bar(6 * deals.len() as u64);
        use ddz::eval::bidding::{Bidding, evaluate_bidding};
        let (a, b) = (Bidding { agent: a, bidder: &args.bidder_a }, Bidding { agent: b, bidder: &args.bidder_b });
        let report = evaluate_bidding(&a, &b, &deals, args.all_pass, &progress)?;
        progress.finish_and_clear();
        (report.illegal, report.markdown(), serde_json::to_value(&report)?)
    } else {
        let (a, b) = (args.a.as_ref().expect("clap requires --a"), args.b.as_ref().expect("clap requires --b"));
        let progress = ddz::eval::progress_bar(2 * deals.len() as u64);
        let report = ddz::eval::evaluate_with(a, b, &deals, threads, &progress, args.spring)?;
        progress.finish_and_clear();
        (report.illegal_plays(), report.markdown(), serde_json::to_value(&report)?)
    };
    // Every report names its deal set: `dev` for choosing, `test` for reporting.
    let set = format!("{} ({} deals)", args.deals, deals.len());
    let markdown = format!("Deal set: {set}.\n\n{markdown}");
    if let Some(fields) = report.as_object_mut() {
        fields.insert("deal_set".into(), serde_json::Value::String(set));
    }
    println!("{markdown}");
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&report)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.markdown {
        std::fs::write(path, &markdown).with_context(|| format!("writing {}", path.display()))?;
    }
    if illegal > 0 {
        bail!("{illegal} illegal plays");
    }
    Ok(())
}

fn ladder(args: LadderArgs) -> Result<()> {
    use ddz::eval::ladder::{DEFAULT_ROSTER, Entry, LadderConfig};
    runtime::configure_threads(1);
    let roster: Vec<Entry> = if args.agents.is_empty() {
        DEFAULT_ROSTER.iter().map(|s| s.parse()).collect::<Result<_, _>>()?
    } else {
        args.agents
    };
    let mut deals = args.deals.load()?;
    if let Some(n) = args.n {
        deals.truncate(n);
    }
    distinct_deals(&deals, &args.deals, args.allow_duplicates)?;
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    let config = LadderConfig {
        deal_set: args.deals.to_string(),
        slow_deals: args.slow_deals,
        threads,
        bidding: args.bidding,
        out: args.out,
    };
    let pairs = roster.len() * roster.len().saturating_sub(1) / 2;
    let bar = indicatif::ProgressBar::new(pairs as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} pairings ({elapsed}) {msg}")?);
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let ladder = ddz::eval::ladder::run(&roster, &deals, &config, |done, _, last| {
        bar.set_position(done as u64);
        bar.set_message(last.to_string());
    })?;
    bar.finish_and_clear();
    let png = ladder.write(&config.out)?;
    println!("{}", ladder.markdown());
    eprintln!("wrote {}, ladder.md, ladder.json and ratings.csv", png.display());
    Ok(())
}

fn eval_run(run: &Path, deals: &[Deal], also: &[AgentSpec], threads: usize) -> Result<()> {
    runtime::stop_cleanly_on_signals("after the checkpoint being played");
    let points = ddz::eval::curve::evaluate_run(run, deals, also, threads, |p| {
        eprintln!(
            "step {:>8} ({:.2} h): vs random L {:.3} F {:.3} | vs rule L {:.3} F {:.3}",
            p.step, p.hours, p.vs_random.0, p.vs_random.1, p.vs_rule.0, p.vs_rule.1
        )
    })?;
    let illegal: u32 = points.iter().map(|p| p.illegal_plays).sum();
    println!("{} checkpoints evaluated on {} deals; illegal plays: {illegal}", points.len(), deals.len());
    match ddz::eval::curve::plot(run, deals.len()) {
        Ok(png) => println!("curve: {}", png.display()),
        Err(e) => eprintln!("{e} (the curve is in {}/eval/curve.csv)", run.display()),
    }
    Ok(())
}

fn replay(deal: usize, agents: &[AgentSpec], deals: &DealSource) -> Result<()> {
    runtime::configure_threads(1);
    let deals = deals.load()?;
    let d = deals.get(deal).with_context(|| format!("deal {deal} is out of range (the set has {})", deals.len()))?;
    let built: Vec<Box<dyn Agent>> = agents.iter().map(|a| a.build()).collect::<Result<_, _>>()?;
    let mut three: [Box<dyn Agent>; 3] =
        built.try_into().map_err(|_| anyhow::anyhow!("--agents takes three agents"))?;
    print!("{}", ddz::replay::replay(d, &mut three));
    Ok(())
}

#[derive(clap::Args)]
struct PlayArgs {
    /// Your seat: landlord, landlord_down (plays after the landlord), landlord_up, or random.
    #[arg(long, default_value = "random")]
    seat: String,
    /// The agents in the other two seats, in seat order: one spec for both, or two
    /// comma-separated (see AGENTS below).
    #[arg(long, default_value = DEFAULT_AGENT)]
    agents: String,
    /// Play deal N of the built-in 1,000-deal evaluation set.
    #[arg(long, conflicts_with = "seed")]
    deal: Option<usize>,
    /// Deal from this seed (default: a fresh seed, printed so the game can be played again).
    #[arg(long)]
    seed: Option<u64>,
    /// Where finished games go (games.jsonl) and quit ones (unfinished.jsonl).
    #[arg(long, default_value = "human-games")]
    log_dir: PathBuf,
    /// Start with 1-2-3 bidding (the first bidder drawn from the seed; a deal everyone passes
    /// on is dealt again). --seat then names a place at the table (landlord = seat 0 of the
    /// deal, …); the bids decide the roles. Points are multiplied by the winning bid.
    #[arg(long)]
    bidding: bool,
}

/// The deal of a person's game and the seed it came from.
fn person_deal(deal: Option<usize>, seed: Option<u64>) -> Result<(Deal, u64)> {
    if let Some(n) = deal {
        let deals = ddz::game::default_deals();
        let d = deals.get(n).with_context(|| format!("--deal {n}: the set has deals 0 to {}", deals.len() - 1))?;
        return Ok((d.clone(), n as u64));
    }
    let seed = seed.unwrap_or_else(rand::random);
    Ok((ddz::game::generate_deals(1, seed).remove(0), seed))
}

fn play(args: PlayArgs) -> Result<()> {
    use ddz::play::{Session, parse_agents, parse_seat, terminal};
    runtime::configure_threads(1);
    let specs = parse_agents(&args.agents).map_err(|e| anyhow::anyhow!("--agents: {e}"))?;
    let (deal, seed) = person_deal(args.deal, args.seed)?;
    let seat = parse_seat(&args.seat, seed).map_err(|e| anyhow::anyhow!("--seat: {e}"))?;
    let rules = ddz::play::rules(args.bidding, seed);
    let mut session = Session::with_rules(&deal, seat, &specs, seed, "human:terminal", rules)?;
    match args.deal {
        Some(n) => println!("Deal {n} of the evaluation set."),
        None => println!("Deal from seed {seed} (replay it with --seed {seed})."),
    }
    let screen = terminal::Screen {
        colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        interactive: std::io::stdin().is_terminal(),
    };
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    terminal::run(&mut session, &mut stdin.lock(), &mut stdout.lock(), &args.log_dir, screen)
        .with_context(|| format!("playing (logs in {})", args.log_dir.display()))?;
    Ok(())
}

#[derive(clap::Args)]
struct ServeArgs {
    /// The agents in the two seats that are not the person's, in seat order: one spec for both,
    /// or two comma-separated (see AGENTS below).
    #[arg(long, default_value = DEFAULT_AGENT)]
    agents: String,
    /// The address to listen on; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// The port (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8000)]
    port: u16,
    /// Where finished games go (games.jsonl) and abandoned ones (unfinished.jsonl).
    #[arg(long, default_value = "human-games")]
    log_dir: PathBuf,
    /// Live games at most; a new game beyond it gets 503 until one ends or an idle one expires.
    #[arg(long, default_value_t = 256)]
    max_games: usize,
    /// New games one client (IP address) may start in a minute; beyond it, 429.
    #[arg(long, default_value_t = 30)]
    starts_per_minute: usize,
    /// Minutes after which an untouched game is dropped (saved as unfinished if it was).
    #[arg(long, default_value_t = 30.0)]
    idle_minutes: f64,
    /// Games start with 1-2-3 bidding; the bids decide the landlord and the stake.
    #[arg(long)]
    bidding: bool,
}

fn serve(args: ServeArgs) -> Result<()> {
    use ddz::serve::ServeConfig;
    runtime::configure_threads(1);
    let agents = ddz::play::parse_agents(&args.agents).map_err(|e| anyhow::anyhow!("--agents: {e}"))?;
    for spec in &agents {
        spec.build().with_context(|| format!("--agents: {spec}"))?; // fail now, not at the first game
    }
    const WEEK_MINUTES: f64 = 7.0 * 24.0 * 60.0;
    if !(args.idle_minutes > 0.0 && args.idle_minutes <= WEEK_MINUTES) {
        bail!("--idle-minutes must be above 0 and at most {WEEK_MINUTES} (a week), not {}", args.idle_minutes);
    }
    let mut config = ServeConfig::new(agents, args.log_dir.clone());
    config.max_games = args.max_games.max(1);
    config.starts_per_minute = args.starts_per_minute.max(1);
    config.idle = std::time::Duration::from_secs_f64(args.idle_minutes * 60.0);
    config.bidding = args.bidding;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the server runtime")?;
    rt.block_on(async move {
        let addr = format!("{}:{}", args.host, args.port);
        let listener = tokio::net::TcpListener::bind(&addr).await.with_context(|| format!("listening on {addr}"))?;
        let local = listener.local_addr()?;
        println!("ddz serve: http://{local}/ (games saved in {})", args.log_dir.display());
        ddz::serve::serve(listener, config).await.context("serving")
    })
}

fn check_decisions(agents: &[AgentSpec], file: Option<&Path>, json: bool) -> Result<()> {
    runtime::configure_threads(1);
    let situations = ddz::decisions::load(file)?;
    let mut reports = Vec::new();
    for spec in agents {
        let mut agent = spec.build()?;
        reports.push(ddz::decisions::check(agent.as_mut(), &situations));
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
        return Ok(());
    }
    for r in &reports {
        if reports.len() == 1 {
            for v in &r.verdicts {
                let sound = if v.good.is_empty() { format!("not {}", v.bad.join(" / ")) } else { v.good.join(" / ") };
                let mark = if v.passed { "pass" } else { "FAIL" };
                println!("{mark}  {:<20} played {:<10} sound: {:<16} {}", v.id, v.play, sound, v.reason);
            }
        }
        let rules: Vec<String> = r.rules.iter().map(|x| format!("{} {}/{}", x.rule, x.passed, x.total)).collect();
        println!("{}: {}/{} passed ({:.0}%); {}", r.agent, r.passed, r.total, 100.0 * r.rate, rules.join(", "));
    }
    Ok(())
}

fn evaluate_hands(agent: &AgentSpec, cfg: &ddz::hands::HandsConfig, out: &Path) -> Result<()> {
    cfg.validate()?;
    runtime::configure_threads(1);
    let progress = ddz::eval::progress_bar(cfg.games as u64);
    let outcomes = ddz::hands::play_games(agent, cfg.games, cfg.seed, cfg.threads, &progress)?;
    progress.finish_and_clear();
    let r = ddz::hands::train(&outcomes, &agent.to_string(), cfg, out)?;
    println!(
        "{} training hands, {} held out: Brier {:.4} (always the base rate: {:.4}), points MAE {:.3}; wrote {}",
        r.train_hands,
        r.val_hands,
        r.brier,
        r.brier_constant,
        r.points_mae,
        r.model.display()
    );
    println!("calibration, 17 cards (predicted → observed): {}", deciles(&r.deciles_17));
    println!("calibration, 20 cards (predicted → observed): {}", deciles(&r.deciles_20));
    match ddz::hands::plot(out) {
        Ok(png) => println!("plot: {}", png.display()),
        Err(e) => eprintln!("no plot: {e}"),
    }
    Ok(())
}

fn deciles(ds: &[ddz::hands::Decile]) -> String {
    ds.iter().map(|d| format!("{:.2}→{:.2}", d.predicted, d.observed)).collect::<Vec<_>>().join(" ")
}

fn logs(what: LogsWhat) -> Result<()> {
    use ddz::pretrain::logs;
    match what {
        LogsWhat::Import { from: _, files, out, skip_invalid } => {
            let (good, bad) = logs::import_files(&files, skip_invalid)
                .map_err(|e| anyhow::anyhow!("{e} (use --skip-invalid to leave such games out)"))?;
            for e in &bad {
                eprintln!("skipped {e}");
            }
            std::fs::write(&out, logs::to_jsonl(&good)).with_context(|| format!("writing {}", out.display()))?;
            println!("imported {} game(s) into {}, skipped {}", good.len(), out.display(), bad.len());
        }
        LogsWhat::Selfplay { agent, games, seed, out } => {
            const MOST: usize = 1_000_000; // about 1 KB a game log, held until written
            if games > MOST {
                bail!("--games {games}: at most {MOST} games a file (make more files with other --seed)");
            }
            runtime::configure_threads(1);
            let mut a = agent.build()?;
            let (games, illegal) =
                ddz::pretrain::selfplay_logs(a.as_mut(), games, seed, &format!("synthetic:{agent}"))?;
            std::fs::write(&out, logs::to_jsonl(&games)).with_context(|| format!("writing {}", out.display()))?;
            println!("wrote {} synthetic games ({agent} in every seat) to {}", games.len(), out.display());
            if illegal > 0 {
                bail!("{agent} gave {illegal} illegal answers (the first legal play was made instead)");
            }
        }
        LogsWhat::Check { file } => {
            let (good, bad) = logs::read_logs(&file, true)?;
            for e in &bad {
                eprintln!("{e}");
            }
            println!("{}: {} valid game(s), {} invalid", file.display(), good.len(), bad.len());
            if !bad.is_empty() {
                bail!("{} invalid game(s)", bad.len());
            }
        }
    }
    Ok(())
}

fn pretrain(args: PretrainArgs) -> Result<()> {
    runtime::configure_threads(1);
    let model = TrainConfig::load(&args.config)?.model;
    let (games, bad) = ddz::pretrain::logs::read_logs(&args.logs, args.skip_invalid)
        .map_err(|e| anyhow::anyhow!("{e} (use --skip-invalid to leave such games out)"))?;
    for e in &bad {
        eprintln!("skipped {e}");
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
    let s = ddz::pretrain::pretrain(games, bad.len(), &args.out, &cfg, false)?;
    println!(
        "{} games ({} skipped): {} training / {} validation decisions ({} duplicates dropped); {} steps{}; \
         best validation loss {:.3}, top-1 {:.3}; wrote {}",
        s.games,
        s.skipped_games,
        s.train_samples,
        s.val_samples,
        s.duplicates_dropped,
        s.steps,
        if s.interrupted {
            " (interrupted)"
        } else if s.stopped_early {
            " (early stop)"
        } else {
            ""
        },
        s.best_val_loss,
        s.best_val_top1,
        s.checkpoint.display()
    );
    if s.validated_on_training_data {
        eprintln!(
            "note: no game was held out (--val-share too small for so few games): validation was measured on training decisions"
        );
    }
    Ok(())
}

fn bench_train(config: &Path, seconds: f64, runs: usize, json: bool, reference: bool) -> Result<()> {
    let base = TrainConfig::load(config)?;
    let reference = if reference { Some(bench::Reference::prepare_douzero()?) } else { None };
    let report = bench::bench_train(&base, seconds, runs, reference.as_ref(), |run, who, fps| {
        eprintln!("run {run}: {who} {fps:.0} frames/s")
    })?;
    if json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    let (median, n) = (report.frames_per_s_median, report.frames_per_s_runs.len());
    println!("training benchmark ({}): median {median:.0} frames/s over {n} runs of {seconds} s", config.display());
    if let Some(x) = report.speedup_vs_douzero {
        let theirs: Vec<f64> = report.douzero_frames_per_s_runs.iter().map(|r| r.round()).collect();
        println!(
            "DouZero (CPU, 2 actors, OMP_NUM_THREADS=1) per run: {theirs:?} frames/s; speed-up, median of per-run ratios: {x:.1}×"
        );
    }
    Ok(())
}

fn bench_distributed(config: &Path, seconds: f64, runs: usize, broker: Option<&str>, json: bool) -> Result<()> {
    let base = TrainConfig::load(config)?;
    let exe = std::env::current_exe()?;
    let r = bench::distributed::bench_distributed(&base, seconds, runs, broker, &exe, |run, who, fps| {
        eprintln!("run {run}: {who} {fps:.0} frames/s")
    })?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!(
        "{} actor thread(s), runs of {seconds} s ({}): in process {:.0} frames/s, over Redis {:.0} frames/s (median); \
         ratio {:.3} (median of per-run ratios)",
        r.actor_threads,
        config.display(),
        r.in_process_median,
        r.distributed_median,
        r.ratio_median
    );
    println!(
        "{:.0} bytes per frame on the wire; Redis memory {:.1} MB empty, {:.1} MB with {} games in the stream (cap {})",
        r.bytes_per_frame,
        r.redis_memory_empty_bytes as f64 / 1e6,
        r.redis_memory_at_cap_bytes as f64 / 1e6,
        r.stream_len_at_cap,
        r.stream_cap
    );
    let a = &r.alone;
    println!(
        "alone on one core: an actor thread makes {:.0} frames/s, the learner takes {:.0} frames/s (decoding {:.0} ns a \
         frame): one learner keeps {:.1} actor threads busy",
        a.actor_frames_per_s_per_thread, a.learner_frames_per_s, a.decode_ns_per_frame, a.actor_threads_per_learner
    );
    Ok(())
}

fn bench_wire(games: usize, runs: usize, seed: u64, json: bool) -> Result<()> {
    let r = bench::wire::bench_wire(games, runs, seed);
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(());
    }
    println!("{} rule self-play games, {} frames; medians of {} runs, one thread", r.games, r.frames, r.runs);
    println!("{:<8} {:>14} {:>18} {:>20}", "format", "bytes/frame", "actor ns/frame", "learner ns/frame");
    for o in &r.options {
        println!(
            "{:<8} {:>14.1} {:>18.0} {:>20.0}",
            o.name, o.bytes_per_frame, o.actor_ns_per_frame, o.learner_ns_per_frame
        );
    }
    Ok(())
}

fn bench_solve(cards: &[u32], positions: usize, seed: u64, max_nodes: u64, json: bool) -> Result<()> {
    let sizes = bench::bench_solve(cards, positions, seed, max_nodes);
    if json {
        println!("{}", serde_json::to_string_pretty(&sizes)?);
        return Ok(());
    }
    println!("exact solver, one core, a fresh table per position (positions from rule self-play, seed {seed})");
    println!(
        "{:>6} {:>9} {:>7} {:>11} {:>11} {:>13} {:>12}",
        "cards", "positions", "solved", "median ms", "p90 ms", "median nodes", "nodes/s"
    );
    for s in &sizes {
        println!(
            "{:>6} {:>9} {:>7} {:>11.2} {:>11.2} {:>13.0} {:>12.0}",
            s.cards, s.positions, s.solved, s.median_ms, s.p90_ms, s.median_nodes, s.nodes_per_s
        );
    }
    Ok(())
}

fn bench_agents(agents: &[AgentSpec], positions: usize, seed: u64, json: bool) -> Result<()> {
    runtime::configure_threads(1);
    let states = bench::decision_positions(positions, seed);
    let progress = indicatif::ProgressBar::new((agents.len() * states.len()) as u64);
    progress.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} decisions ({eta} left)")?);
    if !std::io::stderr().is_terminal() {
        progress.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let timings = bench::bench_agents(agents, &states, &progress)?;
    progress.finish_and_clear();
    if json {
        println!("{}", serde_json::to_string_pretty(&timings)?);
        return Ok(());
    }
    println!("ms per decision, one thread, {} decisions from rule self-play (seed {seed})", states.len());
    println!("{:>10} {:>10} {:>10} {:>8}  agent", "median", "p90", "mean", "ratio");
    for t in &timings {
        let (m, p, a, r) = (t.median_ms, t.p90_ms, t.mean_ms, t.ratio_to_first);
        println!("{m:>10.2} {p:>10.2} {a:>10.2} {r:>7.1}×  {}", t.agent);
    }
    Ok(())
}

fn bench_engine(seconds: f64, runs: usize, seed: u64, json: bool, reference: bool) -> Result<()> {
    if seconds.is_nan() || seconds <= 0.0 || runs == 0 {
        bail!("--seconds must be positive and --runs at least 1");
    }
    let reference = if reference { Some(bench::Reference::prepare()?) } else { None };
    let parts = if reference.is_some() { 3.0 } else { 2.0 };
    let per_run = seconds / (parts * runs as f64);
    let report = bench::bench_engine(per_run, runs, seed, reference.as_ref())?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    println!("engine benchmark: {} runs × {:.2} s per measurement, one thread", report.runs.len(), per_run);
    println!("{:>4} {:>14} {:>16} {:>20} {:>14}", "run", "games/s", "decisions/s", "lead-20 calls/s", "plays/call");
    let row = |name: String, r: &bench::EngineRun| {
        let (g, d, c, p) = (r.games_per_s, r.decisions_per_s, r.lead20_calls_per_s, r.lead20_plays_per_call);
        println!("{name:>4} {g:>14.0} {d:>16.0} {c:>20.0} {p:>14.1}");
    };
    for (i, r) in report.runs.iter().enumerate() {
        row((i + 1).to_string(), r);
    }
    row("med".into(), &report.median);
    if let Some(x) = report.speedup_vs_reference {
        let refs: Vec<String> = report.reference_games_per_s.iter().map(|g| format!("{g:.0}")).collect();
        println!("reference (OpenSpiel dou_dizhu from Python) games/s per run: {}", refs.join(", "));
        println!("speed-up, median of per-run ratios: {x:.1}×");
    }
    Ok(())
}
