//! The command line's arguments: every subcommand, flag and help text of `ddz`.

use clap::{Parser, Subcommand};
use ddz::agents::AgentSpec;
use ddz::game::DealSource;
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "ddz", version, about = "Dou Dizhu engine and Deep Monte Carlo trainer", long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// The Python interpreter for plots, DouZero checkpoint conversion and reference benches
    /// (default: the checkout's .venv/bin/python); missing packages are installed into it on
    /// first use.
    #[arg(long, global = true, env = "DDZ_PYTHON", value_name = "PATH")]
    pub python: Option<std::path::PathBuf>,
    /// The folder of ddz's Python scripts (default: the checkout's scripts/).
    #[arg(long, global = true, env = "DDZ_SCRIPTS", value_name = "DIR")]
    pub scripts: Option<std::path::PathBuf>,
}

#[derive(Subcommand)]
pub enum Command {
    // The one switch between the torch-free player and the trainer (the `learn` feature):
    // the trainer's commands, with libtorch.
    #[cfg(feature = "learn")]
    #[command(flatten)]
    Learn(super::learn::args::LearnCommand),
    /// Evaluate agents on fixed deals, both seatings, with 95% confidence intervals; or every
    /// checkpoint of a run against random and rule (`--run`), as a curve and a PNG plot.
    Eval(Box<EvalArgs>),
    /// The strength ladder: a fixed roster (random, rule, RLCard's rule agent `rlcard`, a
    /// reference DouZero `douzero-1h`, every shipped network, the default search agent)
    /// round robin on the `test` deals, both seatings: a WP matrix with 95% CIs and a rating per
    /// agent with its interval (Bradley–Terry on all games), as Markdown, JSON and a plot in
    /// --out. Finished pairings are kept there, so a stopped ladder resumes; search agents play
    /// the first --slow-deals deals only.
    #[command(after_help = ddz::agents::spec::help())]
    Ladder(LadderArgs),
    /// Replay one deal move by move: hands, each play, and each network or search agent's five
    /// best candidates with their values (and visits, for ISMCTS).
    #[command(after_help = ddz::agents::spec::help())]
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
    /// Review finished games: every play scored by a network from what its seat saw — the
    /// play made, the best play, the win chance of each, the chance lost and a verdict — the
    /// landlord's win chance after each play, and each seat's accuracy (docs/review.md).
    #[command(after_help = ddz::agents::spec::help())]
    Review(ReviewArgs),
    /// Serve an agent to another program: one JSON request per line on stdin, one JSON answer
    /// per line on stdout (native protocol, or Botzone's FightTheLandlord format). A search
    /// agent's time budget (`ms=`) bounds each answer.
    #[command(after_help = ddz::agents::spec::help())]
    Bot {
        /// The agent (see AGENTS below).
        #[arg(long, default_value = DEFAULT_AGENT)]
        agent: AgentSpec,
        #[arg(long, value_enum, default_value = "native")]
        protocol: Protocol,
    },
    /// Play a game against two agents in the terminal (or through a pipe, one entry a line).
    /// Every game is saved to the log directory in ddz's JSONL format (`games.jsonl`, or
    /// `unfinished.jsonl` after `quit`), ready for `ddz logs check` and `ddz pretrain`.
    #[command(after_help = ddz::agents::spec::help())]
    Play(PlayArgs),
    /// Serve a web page where people play whole games against two agents in the browser
    /// (a small JSON API under it). Every finished game is saved to the log directory.
    #[command(after_help = ddz::agents::spec::help())]
    Serve(ServeArgs),
    /// Key decisions: put curated situations (a seat's view and the plays a sound player makes
    /// or must not make) to agents; prints each verdict and the pass rates by rule.
    #[command(after_help = ddz::agents::spec::help())]
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
    /// Game logs: import other formats, write self-play logs, check a log file.
    Logs {
        #[command(subcommand)]
        what: LogsWhat,
    },
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
    /// {"legal":[…]} (or {"error":"…"}) per line on stdout. With --rules laizi a line is
    /// {"hand":"…","wild":"7","rival":{"cards":"…","as":"…"}} (rival left out when leading) and
    /// each legal play is {"cards":"…","as":"…"}: the cards taken and the ranks they stand for.
    Moves {
        /// The rules: standard, or laizi (wild cards; docs/rules.md).
        #[arg(long, default_value = "standard")]
        rules: ddz::game::Rules,
    },
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
    /// The headroom against RLCard's rule agent: on each deal, the clairvoyant best response
    /// of each side (every hand open, the agent's every decision known, its random choices as
    /// chance nodes), the most any agent can win against it there. Deals whose search passes
    /// --nodes are counted apart: the figure is an interval (them lost, them won).
    Headroom {
        /// Deal set: dev, test or a deal file (JSONL), as in `ddz eval`.
        #[arg(long, default_value = "test")]
        deals: DealSource,
        /// Play only the first N deals of the set.
        #[arg(long)]
        n: Option<usize>,
        /// Positions a deal's search may visit before it counts as unfinished.
        #[arg(long, default_value_t = 5_000_000)]
        nodes: u64,
        /// Threads; default: all cores. Results do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Print JSON (with every deal's chance) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write a network for other programs, with no torch: `--onnx OUT` its graph as ONNX
    /// (opset 17; a per-role network as one file per role, OUT's name with the role; the
    /// checkpoint folder's bidding network beside it as NAME.bid.onnx), `--golden OUT` golden
    /// vectors (JSONL: a seat's request, its legal plays, their non-zero features, Q and the
    /// agent's choice, for --positions self-play decisions of the network's rules);
    /// docs/inference.md says how to play with them.
    Export {
        /// The network: a checkpoint folder or a weights file.
        model: PathBuf,
        /// Write the ONNX graph here.
        #[arg(long, value_name = "OUT", required_unless_present = "golden")]
        onnx: Option<PathBuf>,
        /// Write golden vectors here.
        #[arg(long, value_name = "OUT")]
        golden: Option<PathBuf>,
        /// Decisions in the golden vectors.
        #[arg(long, default_value_t = 300)]
        positions: usize,
        /// The self-play games of the golden vectors are seeded by this.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Measure speed.
    Bench {
        #[command(subcommand)]
        what: BenchWhat,
    },
}

#[derive(Subcommand)]
pub enum LogsWhat {
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
pub struct ReviewArgs {
    /// Game logs (JSONL, as `play`, `serve` and `logs selfplay|import` write them).
    #[arg(required = true)]
    pub logs: Vec<PathBuf>,
    /// The reviewer, a network agent (default: the strongest shipped network of the game's
    /// rules: models/ema-2h, laizi-1h or two-player-1h).
    #[arg(long)]
    pub agent: Option<AgentSpec>,
    /// Review only this game of the logs (0-based, counted over all the files).
    #[arg(long)]
    pub game: Option<usize>,
    /// Win chance lost from which a play is an inaccuracy, a mistake, a blunder.
    #[arg(long, default_value = "0.03,0.07,0.15")]
    pub thresholds: ddz::review::Thresholds,
    /// Check each mistake and blunder again with a search of this many milliseconds: both
    /// plays scored over 64 worlds drawn from what the seat knew, each played out to the end
    /// by the reviewer's network in every seat; both figures are shown. Standard games; 0: off.
    #[arg(long, default_value_t = 0, value_name = "MS")]
    pub deep_ms: u64,
    /// One table per player over all the games (mean chance lost and accuracy, 95% CIs)
    /// instead of each game's review.
    #[arg(long)]
    pub summary: bool,
    /// Instead of the reviews, how well the reviewer's win chances match the games' results:
    /// ten bins of the chance it gave each play made, with the share of those plays' sides
    /// that won (docs/review.md).
    #[arg(long, conflicts_with = "summary")]
    pub calibration: bool,
    /// Write the game's review as a self-contained HTML page here (one game: with --game
    /// when the logs hold more).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Print the review as JSON (schema ddz.review/1).
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
#[command(after_help = ddz::agents::spec::help())]
pub struct EvalArgs {
    /// Agent A (see AGENTS below).
    #[arg(long, required_unless_present_any = ["run", "league"])]
    pub a: Option<AgentSpec>,
    /// Agent B (the opponent).
    #[arg(long, required_unless_present_any = ["run", "league"])]
    pub b: Option<AgentSpec>,
    /// Round robin of these agents (comma-separated): a WP/ADP matrix and a rating per agent.
    #[arg(long, value_delimiter = ',', conflicts_with_all = ["a", "b", "run"])]
    pub league: Option<Vec<AgentSpec>>,
    /// Every checkpoint of this run against random and rule: RUN/eval/curve.{csv,json,png}.
    #[arg(long, value_name = "RUN_DIR", conflicts_with_all = ["a", "b"])]
    pub run: Option<PathBuf>,
    /// With --run: the opponents every checkpoint plays, comma-separated, each LABEL=AGENT or
    /// AGENT (default: random,rule), e.g. `--opponents
    /// "rule,top=checkpoint:models/dmc-default-2h,rlcard"`.
    #[arg(long, value_delimiter = ',', requires = "run")]
    pub opponents: Vec<ddz::eval::ladder::Entry>,
    /// Deal set: dev (2,000 built-in deals for choosing settings; its first 1,000 are the set
    /// of every figure before the split), test (2,000 others, for reported figures) or a deal
    /// file (JSONL).
    #[arg(long, default_value = "dev")]
    pub deals: DealSource,
    /// Use only the first N deals.
    #[arg(long)]
    pub n: Option<usize>,
    /// Play a deal file that holds the same deal more than once (refused by default: every
    /// deal counts as an independent sample, so repeats narrow the intervals without
    /// information); a warning names the first repeat.
    #[arg(long)]
    pub allow_duplicates: bool,
    /// The whole game with bidding: on every deal each agent plays alone against two copies of
    /// the other, in each seat (so it bids first, second and third); points with the bid,
    /// bombs and spring. Agents without a bidding model bid with the rule bidder.
    #[arg(long, conflicts_with_all = ["league", "run"])]
    pub bidding: bool,
    /// With --bidding: who bids for A: own (the agent's own bidding: a network's bidding
    /// network when its checkpoint folder has one, else the rule bidder), rule,
    /// evaluator:PATH[?t1=0.5&t2=0.6&t3=0.7] (the hand evaluator; tN is the win chance needed to
    /// bid N), or network:PATH (the bidding network of a run trained with game.bidding = true).
    #[arg(long, default_value = "own", requires = "bidding")]
    pub bidder_a: ddz::agents::bidder::BidderSpec,
    /// With --bidding: who bids for B.
    #[arg(long, default_value = "own", requires = "bidding")]
    pub bidder_b: ddz::agents::bidder::BidderSpec,
    /// Without --bidding: double the points of a spring or anti-spring too (off by default, so
    /// that ADP compares with published fixed-landlord figures; --bidding always doubles them).
    #[arg(long, conflicts_with_all = ["bidding", "league", "run"])]
    pub spring: bool,
    /// The rules of the games: standard, laizi (each deal's wild rank drawn from its cards with
    /// a fixed seed, so every run and both seatings see the same) or two_player (the deal set
    /// dealt from the 46-card deck, no cards conceded); docs/rules.md. With --run, the run's.
    #[arg(long, default_value = "standard", conflicts_with_all = ["bidding", "league", "run"])]
    pub rules: ddz::game::Rules,
    /// With --bidding: when every seat passes, deal again (redeal) or count a drawn game (draw).
    #[arg(long, value_enum, default_value = "redeal", requires = "bidding")]
    pub all_pass: AllPass,
    /// Threads; default: all cores. Results do not depend on it.
    #[arg(long, value_parser = threads)]
    pub threads: Option<usize>,
    /// Also write the report as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Also write the report as Markdown here.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct LadderArgs {
    /// The roster, comma-separated, each LABEL=AGENT or AGENT; default: the roster above (see
    /// `ddz::eval::ladder::DEFAULT_ROSTER`).
    #[arg(long, value_delimiter = ',')]
    pub agents: Vec<ddz::eval::ladder::Entry>,
    /// Deal set: test (for reported figures), dev, or a deal file.
    #[arg(long, default_value = "test")]
    pub deals: DealSource,
    /// Use only the first N deals.
    #[arg(long)]
    pub n: Option<usize>,
    /// Play a deal file that holds the same deal more than once (refused by default: every
    /// deal counts as an independent sample, so repeats narrow the intervals without
    /// information); a warning names the first repeat.
    #[arg(long)]
    pub allow_duplicates: bool,
    /// Deals the pairings of a search agent play (the first ones of the set).
    #[arg(long, default_value_t = 100)]
    pub slow_deals: usize,
    /// The whole game with bidding: each deal in all six seatings (each agent alone against two
    /// of the other in every seat), as `ddz eval --bidding`; bot: agents bid with the rule
    /// bidder. Its pairings play on one thread each.
    #[arg(long)]
    pub bidding: bool,
    /// The rules: standard, or two_player (the deal set dealt from the 46-card deck, the
    /// landlord fixed; default roster random, rule and models/two-player-1h; not with --bidding).
    #[arg(long, default_value = "standard", conflicts_with = "bidding", value_parser = ladder_rules)]
    pub rules: ddz::game::Rules,
    /// Where the pairings, ladder.{md,json,png} and ratings.csv go (and are resumed from).
    #[arg(long, default_value = "runs/ladder")]
    pub out: PathBuf,
    /// Threads; default: all cores. Results do not depend on it.
    #[arg(long, value_parser = threads)]
    pub threads: Option<usize>,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    /// Your seat: landlord, landlord_down (plays after the landlord), landlord_up, or random;
    /// in two-player games landlord, farmer or random.
    #[arg(long, default_value = "random")]
    pub seat: String,
    /// The agents in the other two seats, in seat order: one spec for both, or two
    /// comma-separated (see AGENTS below; a two-player game takes the first). Default: the
    /// ladder's top agent, or the variant's network (models/laizi-1h, models/two-player-1h).
    #[arg(long)]
    pub agents: Option<String>,
    /// The rules: standard, laizi (a wild rank drawn once the landlord is known; type `5557 as
    /// 5555` when cards make more than one play) or two_player (one opponent, 46 cards; with
    /// --bidding type call, rob or pass); docs/rules.md.
    #[arg(long, default_value = "standard")]
    pub rules: ddz::game::Rules,
    /// Play deal N of the built-in 1,000-deal evaluation set.
    #[arg(long, conflicts_with = "seed")]
    pub deal: Option<usize>,
    /// Deal from this seed (default: a fresh seed, printed so the game can be played again).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where finished games go (games.jsonl) and quit ones (unfinished.jsonl).
    #[arg(long, default_value = "human-games")]
    pub log_dir: PathBuf,
    /// Start with 1-2-3 bidding (two-player: calling and robbing; the first bidder drawn from
    /// the seed; a deal everyone passes on is dealt again). --seat then names a place at the
    /// table (landlord = seat 0 of the deal, …); the bids decide the roles. Points are
    /// multiplied by the winning bid (two-player: doubled per rob).
    #[arg(long)]
    pub bidding: bool,
}

#[derive(clap::Args)]
pub struct ServeArgs {
    /// The agents in the two seats that are not the person's, in seat order: one spec for both,
    /// or two comma-separated (see AGENTS below; a two-player game takes the first). Default:
    /// the ladder's top agent, or the variant's network (models/laizi-1h, models/two-player-1h).
    #[arg(long)]
    pub agents: Option<String>,
    /// The rules of every game: standard, laizi (the page shows the wild rank and asks which
    /// play is meant when the chosen cards make more than one) or two_player (the page shows
    /// one opponent, the conceded cards and the robs); docs/rules.md.
    #[arg(long, default_value = "standard")]
    pub rules: ddz::game::Rules,
    /// The address to listen on; the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The port (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Where finished games go (games.jsonl) and abandoned ones (unfinished.jsonl).
    #[arg(long, default_value = "human-games")]
    pub log_dir: PathBuf,
    /// Live games at most; a new game beyond it gets 503 until one ends or an idle one expires.
    #[arg(long, default_value_t = 256)]
    pub max_games: usize,
    /// New games one client (IP address) may start in a minute; beyond it, 429.
    #[arg(long, default_value_t = 30)]
    pub starts_per_minute: usize,
    /// Minutes after which an untouched game is dropped (saved as unfinished if it was).
    #[arg(long, default_value_t = 30.0)]
    pub idle_minutes: f64,
    /// Games start with 1-2-3 bidding; the bids decide the landlord and the stake.
    #[arg(long)]
    pub bidding: bool,
}

#[derive(Subcommand)]
pub enum BenchWhat {
    /// The training benches (train, wire, inference), with libtorch.
    #[cfg(feature = "learn")]
    #[command(flatten)]
    Learn(super::learn::args::LearnBench),
    /// The web server over real HTTP on 127.0.0.1: the time to answer a play (the person's play
    /// and both agents' replies), games played one at a time; then many games at once to the
    /// end, checking that every game finished and is in the log, replaying.
    #[command(after_help = ddz::agents::spec::help())]
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
    #[command(after_help = ddz::agents::spec::help())]
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
    /// generation and `min_plays` on 20-card leads; medians of several runs.
    Engine {
        /// Total seconds to spend (split over the runs and the three measurements).
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
        /// The rules: standard, or laizi (wild cards, the landlord fixed).
        #[arg(long, default_value = "standard")]
        rules: ddz::game::Rules,
    },
}

/// The agent of `play`, `serve` and `bot` unless told otherwise: the top of the ladder
/// (docs/ladder/ladder.md, `test` deals) among networks and search agents within 200 ms a
/// decision (this one: 137 ms median, 184 ms p90 on one core, `ddz bench agents`).
pub const DEFAULT_AGENT: &str = "auto:models/dmc-rule-2h/model.safetensors";

/// The agent of `play` and `serve` under laizi unless told otherwise: the shipped laizi network
/// (models/laizi-1h; search agents do not take laizi yet).
pub const DEFAULT_LAIZI_AGENT: &str = "checkpoint:models/laizi-1h/model.safetensors";

/// The agent of `play` and `serve` in two-player games unless told otherwise: the shipped
/// two-player network (models/two-player-1h; search agents do not take two-player games yet).
pub const DEFAULT_TWO_PLAYER_AGENT: &str = "checkpoint:models/two-player-1h/model.safetensors";

/// `--agents` as given, or the default agent of `rules`.
pub fn agents_or_default(agents: &Option<String>, rules: ddz::game::Rules) -> &str {
    use ddz::game::Rules;
    match (agents, rules) {
        (Some(a), _) => a,
        (None, Rules::Standard) => DEFAULT_AGENT,
        (None, Rules::Laizi) => DEFAULT_LAIZI_AGENT,
        (None, Rules::TwoPlayer) => DEFAULT_TWO_PLAYER_AGENT,
    }
}

/// The rules a ladder plays: the standard game or two-player (laizi has no ladder yet).
fn ladder_rules(text: &str) -> Result<ddz::game::Rules, String> {
    match text.parse::<ddz::game::Rules>() {
        Ok(ddz::game::Rules::Laizi) => Err("the ladder plays standard or two_player games, not laizi yet".into()),
        parsed => parsed.map_err(|e| e.to_string()),
    }
}

/// Why a count given on the command line (`--threads`) is refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CountError {
    /// Not a whole number.
    #[error("{text:?}: {reason}")]
    NotANumber {
        /// The text given.
        text: String,
        /// The parser's reason.
        #[source]
        reason: std::num::ParseIntError,
    },
    /// A number outside the limits table's range for it.
    #[error(transparent)]
    Limit(#[from] ddz::limits::LimitError),
}

/// A count checked against the limits table's entry `name` (`ddz::limits`).
pub(crate) fn count_within(name: &str, text: &str) -> Result<usize, CountError> {
    let n: usize = text.parse().map_err(|reason| CountError::NotANumber { text: text.to_string(), reason })?;
    Ok(ddz::limits::check(name, n)?)
}

/// `--threads` of evaluation and data commands, through the limits table.
pub(crate) fn threads(text: &str) -> Result<usize, CountError> {
    count_within("--threads", text)
}

/// `--protocol`: which request format `ddz bot` serves ([`ddz::bot::Protocol`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// ddz's own JSON requests (seat, hand, bottom, history; or a bid request).
    Native,
    /// Botzone's FightTheLandlord (and bidding FightTheLandlord2) requests, card ids 0 to 53,
    /// in keep-running mode.
    Botzone,
}

impl From<Protocol> for ddz::bot::Protocol {
    fn from(p: Protocol) -> Self {
        match p {
            Protocol::Native => ddz::bot::Protocol::Native,
            Protocol::Botzone => ddz::bot::Protocol::Botzone,
        }
    }
}

/// `--all-pass`: what happens when every seat passes ([`ddz::eval::bidding::AllPass`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum AllPass {
    /// Deal again (at most 16 times, then the game is drawn).
    Redeal,
    /// A drawn game: zero points.
    Draw,
}

impl From<AllPass> for ddz::eval::bidding::AllPass {
    fn from(a: AllPass) -> Self {
        match a {
            AllPass::Redeal => ddz::eval::bidding::AllPass::Redeal,
            AllPass::Draw => ddz::eval::bidding::AllPass::Draw,
        }
    }
}
