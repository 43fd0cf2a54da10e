//! Agents by name, as the command line and reports name them:
//!
//! - `random`, `rule`, `checkpoint:PATH` (a checkpoint folder, a `.safetensors` file, or a run
//!   folder: its newest checkpoint);
//! - `pimc:NET?knobs`: the network's best plays scored over drawn worlds, exactly in the
//!   endgame, by network rollouts before ([`super::pimc`]); `opp=rule` models the other side as
//!   the rule agent;
//! - `ismcts:GUIDE?knobs`: information-set MCTS ([`super::ismcts`]) guided by a network (PUCT)
//!   or by `rule` / `random` rollouts (UCT);
//! - `auto:NET?knobs`: the rule-model PIMC while the game fits the rule agent and not the
//!   network, ISMCTS with belief once it does not fit the rule agent, both weighed by the seat's
//!   prior while it cannot tell yet ([`super::auto`]);
//! - `alphabeta:GUIDE?knobs`: depth-limited alpha-beta over drawn worlds ([`super::alphabeta`])
//!   with the network's value, or the `heuristic` hand shape, at the frontier;
//! - `douzero:DIR`: DouZero's checkpoints (`landlord*.ckpt`, `landlord_up*.ckpt`,
//!   `landlord_down*.ckpt`, as its trainer writes them) played natively ([`super::douzero`]);
//! - `cheat:NET?knobs`: **sees every hand**, for measuring headroom only: the network's best
//!   plays scored in the one true world ([`super::cheat`]); refused where a person plays
//!   ([`AgentSpec::refuse_cheat`]) and never rated by the ladder;
//! - `bot:CMD?knobs`: a program speaking the native bot protocol ([`super::bot_client`]),
//!   started once per worker with `sh -c CMD`. CMD may be quoted (`bot:"CMD"?…`), and must be
//!   where it holds a `?`.
//!
//! NET is `checkpoint:PATH` or just PATH. Each kind's knobs are one table here ([`PIMC`],
//! [`ISMCTS`], [`AUTO`], [`ALPHABETA`], [`BOT`]): it parses them, prints the canonical name
//! (knobs at their default left out, so a name says what differs), and writes [`help`] and the
//! tables of docs/search.md ([`markdown`]).

use super::Leaf;
use super::Opponents;
use super::auto::AutoSettings;
use super::ismcts::Guide;
use super::knobs::{self, Format, Knob, KnobError, Range, Value};
use super::pimc::Far;
use super::{Agent, ModelAgent, PimcAgent, PimcSettings, RandomAgent, RlcardAgent, RuleAgent};
use super::{AlphaBetaAgent, AutoAgent, BotAgent, BotSettings, CheatAgent, CheatSettings, IsmctsAgent, OnError};
use crate::search::{AlphaBetaSettings, Budget, FinalChoice, IsmctsSettings, Keying};
use ddz_nets::WeightsError;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An agent by name, parsed from and printed as the names the module docs list; build it with
/// [`AgentSpec::build`].
///
/// ```
/// use ddz_play::agents::AgentSpec;
///
/// let spec: AgentSpec = "ismcts:rule?sims=50".parse().unwrap();
/// // Printed with the knobs that differ from the defaults, the name parses back to the agent.
/// assert_eq!(spec.to_string(), "ismcts:rule?sims=50");
/// assert_eq!(spec.to_string().parse::<AgentSpec>().unwrap(), spec);
/// let _agent: Box<dyn ddz_play::agents::Agent> = spec.build().unwrap();
/// let bad = "ismcts:rule?sims=banana".parse::<AgentSpec>().unwrap_err();
/// assert!(bad.to_string().contains("sims"), "{bad}");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// `random`: a uniformly random legal play.
    Random,
    /// `rule`: the hand-written rule agent.
    Rule,
    /// `rlcard`: RLCard's rule agent as DouZero's evaluation plays it, in this process.
    Rlcard,
    /// `checkpoint:PATH`: the network's greedy play, from a checkpoint folder, a weights file
    /// or a run folder (its newest checkpoint).
    Checkpoint(PathBuf),
    /// `pimc:NET?knobs`: perfect-information Monte Carlo over drawn worlds with the network.
    Pimc(PathBuf, PimcSettings),
    /// `ismcts:GUIDE?knobs`: information-set MCTS guided by a network, `rule` or `random`.
    Ismcts(GuideSpec, IsmctsKnobs),
    /// `alphabeta:GUIDE?knobs`: depth-limited alpha-beta over drawn worlds, valued by a network
    /// or `heuristic`.
    AlphaBeta(GuideSpec, AlphaBetaKnobs),
    /// The rule-model PIMC while the game fits the rule agent, else ISMCTS with belief; the
    /// plays of the other side needed first.
    Auto(PathBuf, AutoSettings),
    /// A program speaking the native bot protocol: its shell command and knobs.
    Bot(String, BotSettings),
    /// DouZero's checkpoints (a folder of its `.ckpt` files, or of them converted).
    Douzero(PathBuf),
    /// `cheat:NET?knobs`: sees every hand (evaluation only): the network's best plays scored
    /// in the true world.
    Cheat(PathBuf, CheatSettings),
}

/// What guides a search agent: a network, or (no network) rollouts of a simple agent or the
/// hand-shape heuristic.
#[derive(Clone, Debug, PartialEq)]
pub enum GuideSpec {
    /// A network: a checkpoint folder, weights file or run folder.
    Network(PathBuf),
    /// Rollouts of the rule agent (ISMCTS only).
    Rule,
    /// Random rollouts (ISMCTS only).
    Random,
    /// The hand-shape heuristic at the frontier (alpha-beta only).
    Heuristic,
}

/// The knobs of an `ismcts:` agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IsmctsKnobs {
    /// The search's settings (`sims`, `c`, `ms`, `worlds`, `final`, `key`).
    pub settings: IsmctsSettings,
    /// What a leaf is worth with a network guide (`leaf`; default the network's value).
    pub leaf: Leaf,
    /// Belief temperature of the root worlds (network guides only; 0 = uniform).
    pub belief: f64,
}

impl Default for IsmctsKnobs {
    fn default() -> Self {
        IsmctsKnobs { settings: IsmctsSettings::default(), leaf: Leaf::Value, belief: 0.0 }
    }
}

/// The knobs of an `alphabeta:` agent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AlphaBetaKnobs {
    /// The search's settings (`depth`, `top`).
    pub settings: AlphaBetaSettings,
    /// Worlds drawn per decision and a time limit (`worlds`, `ms`; default 8 worlds, no limit).
    pub budget: Budget,
}

impl Default for AlphaBetaKnobs {
    fn default() -> Self {
        AlphaBetaKnobs { settings: AlphaBetaSettings::default(), budget: Budget::count(8) }
    }
}

/// Why an agent name does not parse or its agent cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// A name of no known kind.
    #[error(
        "unknown agent {0:?}: use random, rule, rlcard, checkpoint:PATH, pimc:NET[?knobs], ismcts:GUIDE[?knobs], auto:NET, \
         alphabeta:GUIDE[?knobs], douzero:DIR, bot:CMD or cheat:NET[?knobs] (see ddz eval --help)"
    )]
    Unknown(String),
    /// A known kind with a bad knob.
    #[error("agent {spec:?}: {error}")]
    Knob {
        /// The name as given.
        spec: String,
        /// What is wrong with the knob.
        #[source]
        error: KnobError,
    },
    /// A known kind with a bad path, guide or command.
    #[error("agent {spec:?}: {reason}")]
    Setting {
        /// The name as given.
        spec: String,
        /// What is wrong, naming the knob.
        reason: String,
    },
    /// A network's (the bidding network's included) or DouZero's weights could not be loaded.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// A run folder's newest checkpoint could not be found or read.
    #[error(transparent)]
    Run(#[from] crate::run::RunError),
    /// A built agent that could not answer (a `bot:` program that failed).
    #[error(transparent)]
    Fault(#[from] super::SeatFault),
}

impl std::str::FromStr for AgentSpec {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<AgentSpec, AgentError> {
        let spec = s.trim();
        parse_spec(spec).map_err(|bad| bad.of(spec))?.ok_or_else(|| AgentError::Unknown(spec.to_string()))
    }
}

/// The agent `spec` names, `None` for a name of no known kind.
fn parse_spec(spec: &str) -> Result<Option<AgentSpec>, Bad> {
    if let Some(rest) = spec.strip_prefix("bot:") {
        return bot(rest).map(|(command, settings)| Some(AgentSpec::Bot(command, settings)));
    }
    let Some((kind, rest)) = spec.split_once(':') else {
        return Ok(match spec {
            "random" => Some(AgentSpec::Random),
            "rule" => Some(AgentSpec::Rule),
            "rlcard" => Some(AgentSpec::Rlcard),
            _ => None,
        });
    };
    let (guide, query) = rest.split_once('?').unwrap_or((rest, ""));
    Ok(Some(match kind {
        "checkpoint" if !rest.is_empty() => AgentSpec::Checkpoint(PathBuf::from(rest)),
        "douzero" if !rest.is_empty() => AgentSpec::Douzero(PathBuf::from(rest)),
        "pimc" => AgentSpec::Pimc(network_path(guide)?, knobs::parse(PIMC, query)?),
        "ismcts" => AgentSpec::Ismcts(guide_spec(guide, false)?, knobs::parse(ISMCTS, query)?),
        "alphabeta" => AgentSpec::AlphaBeta(guide_spec(guide, true)?, knobs::parse(ALPHABETA, query)?),
        "auto" => AgentSpec::Auto(network_path(guide)?, knobs::parse(AUTO, query)?),
        "cheat" => AgentSpec::Cheat(network_path(guide)?, knobs::parse(CHEAT, query)?),
        _ => return Ok(None),
    }))
}

/// `CMD`, `CMD?knobs` or `"CMD"[?knobs]`: unquoted, a last `?` followed by `key=value` pairs
/// starts the knobs.
fn bot(rest: &str) -> Result<(String, BotSettings), Bad> {
    let (command, query) = if let Some(quoted) = rest.strip_prefix('"') {
        let (command, after) =
            quoted.split_once('"').ok_or(Bad::Text("the command's closing quote is missing".into()))?;
        match after {
            "" => (command, ""),
            _ => (
                command,
                after.strip_prefix('?').ok_or(Bad::Text(format!("{after:?} after the command: use \"CMD\"?knobs")))?,
            ),
        }
    } else {
        match rest.rsplit_once('?') {
            Some((command, query)) if knobs::pairs(query).is_ok() && !query.contains(' ') => (command, query),
            _ => (rest, ""),
        }
    };
    let command = command.trim();
    if command.is_empty() {
        return Err(Bad::Text("no command".into()));
    }
    Ok((command.to_string(), knobs::parse(BOT, query)?))
}

/// Why one part of a spec is wrong: its knobs, or its path, guide or command.
enum Bad {
    Knob(KnobError),
    Text(String),
}

impl From<KnobError> for Bad {
    fn from(e: KnobError) -> Bad {
        Bad::Knob(e)
    }
}

impl Bad {
    fn of(self, spec: &str) -> AgentError {
        match self {
            Bad::Knob(error) => AgentError::Knob { spec: spec.to_string(), error },
            Bad::Text(reason) => AgentError::Setting { spec: spec.to_string(), reason },
        }
    }
}

fn network_path(guide: &str) -> Result<PathBuf, Bad> {
    let path = guide.strip_prefix("checkpoint:").unwrap_or(guide);
    if path.is_empty() { Err(Bad::Text("no network path".into())) } else { Ok(PathBuf::from(path)) }
}

fn guide_spec(guide: &str, alphabeta: bool) -> Result<GuideSpec, Bad> {
    Ok(match guide {
        "rule" if !alphabeta => GuideSpec::Rule,
        "random" if !alphabeta => GuideSpec::Random,
        "heuristic" if alphabeta => GuideSpec::Heuristic,
        "rule" | "random" | "heuristic" => {
            let which = if alphabeta { "heuristic" } else { "rule or random" };
            return Err(Bad::Text(format!("{guide:?} cannot guide this search: use a network or {which}")));
        }
        other => GuideSpec::Network(network_path(other)?),
    })
}

/// Worlds one decision may draw and keep.
const MOST_WORLDS: u64 = 100_000;
/// A time budget of an hour a decision is the most any search may be given.
const MOST_MS: u64 = 3_600_000;
const MS: Range = Range::Whole { least: 0, most: MOST_MS };
const TEMPERATURE: Range = Range::Number { least: 0.0, most: f64::INFINITY };
const WEIGHT: Range = Range::Number { least: 0.0, most: 1.0 };

fn millis(time: Option<Duration>) -> Value {
    Value::Whole(time.map_or(0, |t| t.as_millis() as u64))
}

/// `pimc:NET?knobs`.
pub const PIMC: &[Knob<PimcSettings>] = &[
    Knob {
        name: "worlds",
        range: Range::Whole { least: 1, most: MOST_WORLDS },
        doc: "worlds drawn per decision",
        get: Some(|s| Value::Whole(s.budget.count as u64)),
        set: |s, v| s.budget.count = v.whole() as usize,
    },
    Knob {
        name: "top",
        range: Range::Whole { least: 1, most: u64::MAX },
        doc: "the network's best plays scored in each world",
        get: Some(|s| Value::Whole(s.top as u64)),
        set: |s, v| s.top = v.whole() as usize,
    },
    Knob {
        name: "cards",
        range: Range::Whole { least: 0, most: 54 },
        doc: "solve exactly from this many cards left in all hands (0: never)",
        get: Some(|s| Value::Whole(s.cards as u64)),
        set: |s, v| s.cards = v.whole() as u32,
    },
    Knob {
        name: "max_nodes",
        range: Range::Whole { least: 1, most: 100_000_000 },
        doc: "positions the solver may search per play and world (a play it cannot finish counts as lost)",
        get: Some(|s| Value::Whole(s.max_nodes)),
        set: |s, v| s.max_nodes = v.whole(),
    },
    Knob {
        name: "ms",
        range: MS,
        doc: "time budget per decision in milliseconds (0: none; at least one world)",
        get: Some(|s| Value::Whole(s.budget.ms())),
        set: |s, v| s.budget = s.budget.with_ms(v.whole()),
    },
    Knob {
        name: "far",
        range: Range::Choice(&["rollout", "network"]),
        doc: "before the solver: score by network rollouts, or play as the network alone",
        get: Some(|s| Value::Choice((s.far == Far::Network) as usize)),
        set: |s, v| s.far = if v.choice() == 1 { Far::Network } else { Far::Rollout },
    },
    Knob {
        name: "belief",
        range: TEMPERATURE,
        doc: "weigh worlds by the other seats' plays, softmax of the network's Q at this temperature (0: uniform)",
        get: Some(|s| Value::Number(s.belief)),
        set: |s, v| s.belief = v.number(),
    },
    Knob {
        name: "opp",
        range: Range::Choice(&["net", "rule", "rlcard"]),
        doc: "the other side plays like the network, like the rule agent (worlds weighed by its plays, rollouts where it plays), \
              or like RLCard's rule agent, exploited (worlds by its chance of its plays, best response to it)",
        get: Some(|s| Value::Choice(Opponents::ALL.iter().position(|&o| o == s.opponents).unwrap_or(0))),
        set: |s, v| s.opponents = Opponents::ALL[v.choice()],
    },
    Knob {
        name: "draws",
        range: Range::Whole { least: 1, most: 10_000 },
        doc: "worlds drawn for each world kept, when worlds are weighed",
        get: Some(|s| Value::Whole(s.draws as u64)),
        set: |s, v| s.draws = v.whole() as usize,
    },
    Knob {
        name: "steps",
        range: Range::Whole { least: 0, most: 1_000_000 },
        doc: "card swaps per world toward worlds the other side's model explains (opp=rule, rlcard)",
        get: Some(|s| Value::Whole(s.steps as u64)),
        set: |s, v| s.steps = v.whole() as usize,
    },
];

/// `cheat:NET?knobs`.
pub const CHEAT: &[Knob<CheatSettings>] = &[
    Knob {
        name: "top",
        range: Range::Whole { least: 1, most: u64::MAX },
        doc: "the network's best plays scored in the true world",
        get: Some(|s| Value::Whole(s.top as u64)),
        set: |s, v| s.top = v.whole() as usize,
    },
    Knob {
        name: "cards",
        range: Range::Whole { least: 0, most: 54 },
        doc: "solve exactly from this many cards left in all hands (0: never; network rollouts before)",
        get: Some(|s| Value::Whole(s.cards as u64)),
        set: |s, v| s.cards = v.whole() as u32,
    },
    Knob {
        name: "max_nodes",
        range: Range::Whole { least: 1, most: 100_000_000 },
        doc: "positions the solver may search per play (a play it cannot finish counts as lost)",
        get: Some(|s| Value::Whole(s.max_nodes)),
        set: |s, v| s.max_nodes = v.whole(),
    },
    Knob {
        name: "ms",
        range: MS,
        doc: "time budget per decision in milliseconds (0: none; past it, the network's best play)",
        get: Some(|s| Value::Whole(s.ms)),
        set: |s, v| s.ms = v.whole(),
    },
];

/// `ismcts:GUIDE?knobs`.
pub const ISMCTS: &[Knob<IsmctsKnobs>] = &[
    Knob {
        name: "sims",
        range: Range::Whole { least: 1, most: 10_000_000 },
        doc: "simulations per decision",
        get: Some(|k| Value::Whole(k.settings.budget.count as u64)),
        set: |k, v| k.settings.budget.count = v.whole() as usize,
    },
    Knob {
        name: "c",
        range: Range::Number { least: 0.0, most: f64::INFINITY },
        doc: "exploration constant of UCT / PUCT",
        get: Some(|k| Value::Number(k.settings.uct_c)),
        set: |k, v| k.settings.uct_c = v.number(),
    },
    Knob {
        name: "ms",
        range: MS,
        doc: "time budget per decision in milliseconds, checked between simulations (0: none)",
        get: Some(|k| Value::Whole(k.settings.budget.ms())),
        set: |k, v| k.settings.budget = k.settings.budget.with_ms(v.whole()),
    },
    Knob {
        name: "worlds",
        range: Range::Whole { least: 0, most: MOST_WORLDS },
        doc: "a pool of this many root worlds drawn once (0: a fresh world every simulation)",
        get: Some(|k| Value::Whole(k.settings.max_world_samples.unwrap_or(0) as u64)),
        set: |k, v| k.settings.max_world_samples = Some(v.whole() as usize).filter(|&w| w > 0),
    },
    Knob {
        name: "leaf",
        range: Range::Choice(&["value", "rollout"]),
        doc: "a network guide's leaf: its value, or the game played out by it",
        get: Some(|k| Value::Choice((k.leaf == Leaf::Rollout) as usize)),
        set: |k, v| k.leaf = if v.choice() == 1 { Leaf::Rollout } else { Leaf::Value },
    },
    Knob {
        name: "final",
        range: Range::Choice(&["visits", "value"]),
        doc: "the play made: the most visited, or the best valued",
        get: Some(|k| Value::Choice((k.settings.final_choice == FinalChoice::Value) as usize)),
        set: |k, v| k.settings.final_choice = if v.choice() == 1 { FinalChoice::Value } else { FinalChoice::Visits },
    },
    Knob {
        name: "key",
        range: Range::Choice(&["mover", "observer"]),
        doc: "whose information names a node: the player to move (OpenSpiel), or the searching seat",
        get: Some(|k| Value::Choice((k.settings.keying == Keying::Observer) as usize)),
        set: |k, v| k.settings.keying = if v.choice() == 1 { Keying::Observer } else { Keying::Mover },
    },
    Knob {
        name: "belief",
        range: TEMPERATURE,
        doc: "root worlds weighed by the other seats' plays at this temperature (network guides; 0: uniform)",
        get: Some(|k| Value::Number(k.belief)),
        set: |k, v| k.belief = v.number(),
    },
];

/// `auto:NET?knobs`.
pub const AUTO: &[Knob<AutoSettings>] = &[
    Knob {
        name: "evidence",
        range: Range::Whole { least: 0, most: u32::MAX as u64 },
        doc: "plays with a choice the other side must have made before the rule model is trusted alone",
        get: Some(|s| Value::Whole(s.evidence as u64)),
        set: |s, v| s.evidence = v.whole() as u32,
    },
    Knob {
        name: "telling",
        range: Range::Whole { least: 0, most: u32::MAX as u64 },
        doc: "of those, plays the network would not have made",
        get: Some(|s| Value::Whole(s.telling as u64)),
        set: |s, v| s.telling = v.whole() as u32,
    },
    Knob {
        name: "prior",
        range: WEIGHT,
        doc: "sets prior_landlord and prior_farmers at once",
        get: None,
        set: |s, v| (s.prior_landlord, s.prior_farmers) = (v.number(), v.number()),
    },
    Knob {
        name: "prior_landlord",
        range: WEIGHT,
        doc: "the rule model's weight while undecided, as the landlord (1 - it: the network model's)",
        get: Some(|s| Value::Number(s.prior_landlord)),
        set: |s, v| s.prior_landlord = v.number(),
    },
    Knob {
        name: "prior_farmers",
        range: WEIGHT,
        doc: "the same as a farmer",
        get: Some(|s| Value::Number(s.prior_farmers)),
        set: |s, v| s.prior_farmers = v.number(),
    },
    Knob {
        name: "net_steps",
        range: Range::Whole { least: 0, most: 10_000 },
        doc: "card swaps toward worlds the network explains, before trusting the rule model (0: not tried)",
        get: Some(|s| Value::Whole(s.network_steps as u64)),
        set: |s, v| s.network_steps = v.whole() as usize,
    },
    Knob {
        name: "verdict_worlds",
        range: Range::Whole { least: 1, most: MOST_WORLDS },
        doc: "worlds drawn toward each model for a verdict",
        get: Some(|s| Value::Whole(s.verdict_worlds as u64)),
        set: |s, v| s.verdict_worlds = v.whole() as usize,
    },
    Knob {
        name: "verdict_draws",
        range: Range::Whole { least: 1, most: 10_000 },
        doc: "worlds drawn per world kept toward the rule model, for a verdict",
        get: Some(|s| Value::Whole(s.verdict_draws as u64)),
        set: |s, v| s.verdict_draws = v.whole() as usize,
    },
    Knob {
        name: "verdict_steps",
        range: Range::Whole { least: 0, most: 1_000_000 },
        doc: "card swaps per world toward the rule model, for a verdict",
        get: Some(|s| Value::Whole(s.verdict_steps as u64)),
        set: |s, v| s.verdict_steps = v.whole() as usize,
    },
    Knob {
        name: "net_belief",
        range: TEMPERATURE,
        doc: "softmax temperature of the network model's weights on the worlds its swaps start from",
        get: Some(|s| Value::Number(s.network_belief)),
        set: |s, v| s.network_belief = v.number(),
    },
    Knob {
        name: "pimc_worlds",
        range: Range::Whole { least: 1, most: MOST_WORLDS },
        doc: "worlds of the rule-model PIMC",
        get: Some(|s| Value::Whole(s.pimc_worlds as u64)),
        set: |s, v| s.pimc_worlds = v.whole() as usize,
    },
    Knob {
        name: "pimc_cards",
        range: Range::Whole { least: 0, most: 54 },
        doc: "cards left from which the rule-model PIMC solves exactly (0: never)",
        get: Some(|s| Value::Whole(s.pimc_cards as u64)),
        set: |s, v| s.pimc_cards = v.whole() as u32,
    },
    Knob {
        name: "ismcts_belief",
        range: TEMPERATURE,
        doc: "belief temperature of the root worlds of the network-model ISMCTS",
        get: Some(|s| Value::Number(s.ismcts_belief)),
        set: |s, v| s.ismcts_belief = v.number(),
    },
    Knob {
        name: "ms",
        range: MS,
        doc: "time budget per decision in milliseconds over every phase: a quarter for the verdict, the rest for the search (0: none)",
        get: Some(|s| Value::Whole(s.ms)),
        set: |s, v| s.ms = v.whole(),
    },
];

/// `alphabeta:GUIDE?knobs`.
pub const ALPHABETA: &[Knob<AlphaBetaKnobs>] = &[
    Knob {
        name: "depth",
        range: Range::Whole { least: 1, most: 64 },
        doc: "plies searched below the position",
        get: Some(|k| Value::Whole(k.settings.depth as u64)),
        set: |k, v| k.settings.depth = v.whole() as u32,
    },
    Knob {
        name: "top",
        range: Range::Whole { least: 0, most: u64::MAX },
        doc: "plays searched at each node, best first (0: all)",
        get: Some(|k| Value::Whole(k.settings.top as u64)),
        set: |k, v| k.settings.top = v.whole() as usize,
    },
    Knob {
        name: "worlds",
        range: Range::Whole { least: 1, most: MOST_WORLDS },
        doc: "worlds drawn per decision",
        get: Some(|k| Value::Whole(k.budget.count as u64)),
        set: |k, v| k.budget.count = v.whole() as usize,
    },
    Knob {
        name: "ms",
        range: MS,
        doc: "time budget per decision in milliseconds (0: none)",
        get: Some(|k| Value::Whole(k.budget.ms())),
        set: |k, v| k.budget = k.budget.with_ms(v.whole()),
    },
];

/// `bot:CMD?knobs`.
pub const BOT: &[Knob<BotSettings>] = &[
    Knob {
        name: "timeout_ms",
        range: Range::Whole { least: 1, most: 86_400_000 },
        doc: "the longest wait for one answer, in milliseconds",
        get: Some(|s| millis(Some(s.timeout))),
        set: |s, v| s.timeout = Duration::from_millis(v.whole()),
    },
    Knob {
        name: "on_error",
        range: Range::Choice(&["fail", "forfeit"]),
        doc: "a crash, time-out or bad answer stops the command, or loses that game",
        get: Some(|s| Value::Choice((s.on_error == OnError::Forfeit) as usize)),
        set: |s, v| s.on_error = if v.choice() == 1 { OnError::Forfeit } else { OnError::Fail },
    },
];

/// One kind of agent for help texts and docs: how it is written, what it does, its knobs.
struct Kind {
    syntax: &'static str,
    doc: &'static str,
    knobs: fn(Format) -> String,
}

fn no_knobs(_: Format) -> String {
    String::new()
}

const KINDS: &[Kind] = &[
    Kind { syntax: "random", doc: "a uniformly random legal play", knobs: no_knobs },
    Kind { syntax: "rule", doc: "the hand-written rule player", knobs: no_knobs },
    Kind {
        syntax: "rlcard",
        doc: "RLCard's rule agent as DouZero's evaluation plays it, quirks included, in this process (`bot:python3 scripts/douzero_bot.py rlcard` is the Python original)",
        knobs: no_knobs,
    },
    Kind {
        syntax: "checkpoint:PATH",
        doc: "a network, greedy on its Q: a .safetensors file, a checkpoint folder, or a run folder (its newest checkpoint)",
        knobs: no_knobs,
    },
    Kind {
        syntax: "pimc:NET?knobs",
        doc: "the network's best plays scored in worlds drawn from what the seat knows: solved exactly in the endgame, \
              played out by the network before",
        knobs: |f| knobs::describe(PIMC, f),
    },
    Kind {
        syntax: "ismcts:GUIDE?knobs",
        doc: "information-set MCTS over worlds drawn from what the seat knows; GUIDE a network (PUCT from its Q) \
              or rule / random (UCT with their rollouts)",
        knobs: |f| knobs::describe(ISMCTS, f),
    },
    Kind {
        syntax: "auto:NET?knobs",
        doc: "pimc:NET?opp=rule&worlds=64&cards=0 (pimc_worlds, pimc_cards) while a world drawn from what the seat knows explains the other \
              side's plays as the rule agent's and none drawn toward the network explains them as the network's; \
              ismcts:NET?belief=0.1 (ismcts_belief) once no world fits the rule agent; before that, or while both fit, both, their \
              values weighed by the seat's prior",
        knobs: |f| knobs::describe(AUTO, f),
    },
    Kind {
        syntax: "alphabeta:GUIDE?knobs",
        doc: "depth-limited alpha-beta in drawn worlds; GUIDE a network (its value at the frontier) or heuristic \
              (the hand shape)",
        knobs: |f| knobs::describe(ALPHABETA, f),
    },
    Kind {
        syntax: "douzero:DIR",
        doc: "DouZero's checkpoints (landlord*.ckpt, landlord_up*.ckpt, landlord_down*.ckpt as its trainer writes \
              them, converted once with the venv's torch), played natively, greedy on its Q",
        knobs: no_knobs,
    },
    Kind {
        syntax: "bot:CMD?knobs",
        doc: "any program speaking ddz's native bot protocol (JSON lines, as `ddz bot` serves), started once per \
              worker with `sh -c CMD`, e.g. bot:python3 scripts/douzero_bot.py rlcard (RLCard's rule agent); \
              quote CMD (bot:\"CMD\"?knobs) where it holds a `?`; in a comma-separated list it holds no comma",
        knobs: |f| knobs::describe(BOT, f),
    },
    Kind {
        syntax: "cheat:NET?knobs",
        doc: "SEES EVERY HAND, for measuring headroom only: the network's best plays scored in the one true world, \
              solved exactly in the endgame, played out by the network before; refused by bot, play and serve, \
              never rated by the ladder",
        knobs: |f| knobs::describe(CHEAT, f),
    },
];

/// The agent names every command takes, each kind's knobs with their defaults: the text of
/// `--help`.
pub fn help() -> String {
    let mut out = String::from("AGENTS:\n");
    for kind in KINDS {
        out.push_str(&format!("  {}\n", kind.syntax));
        for line in knobs::wrap(kind.doc, 92) {
            out.push_str(&format!("      {line}\n"));
        }
        out.push_str(&(kind.knobs)(Format::Help));
    }
    out.push_str(
        "  NET is checkpoint:PATH or PATH; knobs are key=value joined by &. No agent reads a hidden card:\n  \
         search agents see only worlds drawn from their seat's information (all but cheat:, which is\n  \
         named for what it does).",
    );
    out
}

/// The knobs of every kind as Markdown tables: the section of docs/search.md.
pub fn markdown() -> String {
    let mut out = String::new();
    for kind in KINDS {
        let rows = (kind.knobs)(Format::Markdown);
        if !rows.is_empty() {
            out.push_str(&format!(
                "`{}`: {}\n\n| knob | default | values | what it does |\n|---|---|---|---|\n",
                kind.syntax, kind.doc
            ));
            out.push_str(&rows);
            out.push('\n');
        }
    }
    out
}

impl std::fmt::Display for GuideSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GuideSpec::Network(p) => write!(f, "checkpoint:{}", p.display()),
            GuideSpec::Rule => write!(f, "rule"),
            GuideSpec::Random => write!(f, "random"),
            GuideSpec::Heuristic => write!(f, "heuristic"),
        }
    }
}

/// `head` and the knobs that differ from the defaults: `head?k=v&…`, or `head` alone.
fn with_knobs(f: &mut std::fmt::Formatter<'_>, head: std::fmt::Arguments, knobs: String) -> std::fmt::Result {
    match knobs.is_empty() {
        true => write!(f, "{head}"),
        false => write!(f, "{head}?{knobs}"),
    }
}

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentSpec::Random => write!(f, "random"),
            AgentSpec::Rule => write!(f, "rule"),
            AgentSpec::Rlcard => write!(f, "rlcard"),
            AgentSpec::Checkpoint(p) => write!(f, "checkpoint:{}", p.display()),
            AgentSpec::Pimc(p, s) => with_knobs(f, format_args!("pimc:{}", p.display()), knobs::print(PIMC, s)),
            AgentSpec::Ismcts(g, k) => with_knobs(f, format_args!("ismcts:{g}"), knobs::print(ISMCTS, k)),
            AgentSpec::AlphaBeta(g, k) => with_knobs(f, format_args!("alphabeta:{g}"), knobs::print(ALPHABETA, k)),
            AgentSpec::Auto(p, s) => with_knobs(f, format_args!("auto:{}", p.display()), knobs::print(AUTO, s)),
            AgentSpec::Douzero(p) => write!(f, "douzero:{}", p.display()),
            AgentSpec::Cheat(p, s) => with_knobs(f, format_args!("cheat:{}", p.display()), knobs::print(CHEAT, s)),
            AgentSpec::Bot(command, s) => {
                let quoted = command.contains('?') || command.starts_with('"');
                let head = if quoted { format!("bot:\"{command}\"") } else { format!("bot:{command}") };
                with_knobs(f, format_args!("{head}"), knobs::print(BOT, s))
            }
        }
    }
}

impl AgentSpec {
    /// Whether `name` names this agent: printed as today, or with every knob spelled out as
    /// reports written before knobs at their default were left out name it.
    pub fn is_named(&self, name: &str) -> bool {
        name.parse::<AgentSpec>().is_ok_and(|other| other == *self)
    }

    /// The network of a spec that names one (`checkpoint:`, a search over a network) as an
    /// agent of its own, for what needs the network itself (a search's rollout policy).
    pub fn build_network(&self) -> Result<ModelAgent, AgentError> {
        match self.network() {
            Some(path) => network(path, &self.to_string()),
            None => Err(AgentError::Setting { spec: self.to_string(), reason: "it names no network".into() }),
        }
    }

    /// The network file or run folder the agent plays with, if it has one (for hints).
    pub fn network(&self) -> Option<&Path> {
        match self {
            AgentSpec::Checkpoint(p) | AgentSpec::Pimc(p, _) | AgentSpec::Auto(p, _) | AgentSpec::Cheat(p, _) => {
                Some(p)
            }
            AgentSpec::Ismcts(GuideSpec::Network(p), _) | AgentSpec::AlphaBeta(GuideSpec::Network(p), _) => Some(p),
            _ => None,
        }
    }

    /// Whether the agent can play a game of `rules`, said before any game starts: a network
    /// plays the rules it was trained for. Every agent plays the standard game; under laizi
    /// only random, rule and checkpoint:NET agents play; under two_player so do `ismcts:GUIDE`
    /// without belief (the default `belief=0`) and `alphabeta:GUIDE`, whose worlds are redealt
    /// from the seat's information at a table of two. `pimc:`, `auto:` and ISMCTS with belief
    /// weigh worlds of three hands, so they are refused there, as are `bot:`, `douzero:` and
    /// `cheat:` ([`AgentSpec::playing_under`] names who plays).
    pub fn check_rules(&self, rules: crate::game::Rules) -> Result<(), AgentError> {
        use crate::game::Rules;
        let refuse = |reason: String| AgentError::Setting { spec: self.to_string(), reason };
        let plays = match (rules, self) {
            (Rules::Standard, _) | (_, AgentSpec::Random | AgentSpec::Rule | AgentSpec::Checkpoint(_)) => true,
            (Rules::TwoPlayer, AgentSpec::Ismcts(_, knobs)) => knobs.belief == 0.0,
            (Rules::TwoPlayer, AgentSpec::AlphaBeta(..)) => true,
            _ => false,
        };
        if !plays {
            return Err(refuse(format!("under {rules} rules only {} play", Self::playing_under(rules))));
        }
        let Some(path) = self.network() else { return Ok(()) };
        let net = ddz_nets::QNetwork::load(&network_file(path)?)?.config().rules;
        if net != rules {
            return Err(refuse(format!(
                "the network was trained for {net} rules and cannot play {rules} games (train one with [game] rules = \"{rules}\")"
            )));
        }
        Ok(())
    }

    /// The agents that play games of `rules`, as [`AgentSpec::check_rules`] names them when it
    /// refuses one.
    pub fn playing_under(rules: crate::game::Rules) -> &'static str {
        match rules {
            crate::game::Rules::Standard => "every agent",
            crate::game::Rules::Laizi => "random, rule and checkpoint:NET agents",
            crate::game::Rules::TwoPlayer => {
                "random, rule, checkpoint:NET, ismcts:GUIDE (belief=0: belief weighs worlds of three hands) \
                 and alphabeta:GUIDE agents"
            }
        }
    }

    /// The agent, ready to play (a checkpoint's network is loaded on the CPU).
    pub fn build(&self) -> Result<Box<dyn Agent>, AgentError> {
        let name = self.to_string();
        Ok(match self {
            AgentSpec::Random => Box::new(RandomAgent::new(0)),
            AgentSpec::Rule => Box::new(RuleAgent::new()),
            AgentSpec::Rlcard => Box::new(RlcardAgent::new(0)),
            AgentSpec::Checkpoint(p) => Box::new(network(p, &name)?),
            AgentSpec::Pimc(p, settings) => Box::new(PimcAgent::new(network(p, &name)?, *settings, name)),
            AgentSpec::Ismcts(g, k) => {
                let guide = match g {
                    GuideSpec::Network(p) => Guide::Network(Box::new(network(p, &name)?), k.leaf, k.belief),
                    GuideSpec::Rule => Guide::rule(),
                    GuideSpec::Random | GuideSpec::Heuristic => Guide::random(),
                };
                Box::new(IsmctsAgent::new(guide, k.settings, name))
            }
            AgentSpec::AlphaBeta(g, k) => {
                let net = match g {
                    GuideSpec::Network(p) => Some(network(p, &name)?),
                    _ => None,
                };
                Box::new(AlphaBetaAgent::new(net, k.settings, k.budget, name))
            }
            AgentSpec::Auto(p, settings) => {
                let nets = [network(p, &name)?, network(p, &name)?, network(p, &name)?];
                Box::new(AutoAgent::new(nets, *settings, name))
            }
            AgentSpec::Bot(command, settings) => Box::new(BotAgent::new(command, *settings, name)),
            AgentSpec::Douzero(dir) => Box::new(super::douzero::DouzeroAgent::load(dir, name)?),
            AgentSpec::Cheat(p, settings) => Box::new(CheatAgent::new(network(p, &name)?, *settings, name)),
        })
    }

    /// Whether the agent reads hidden cards at play time (`cheat:`).
    pub fn sees_hidden_cards(&self) -> bool {
        matches!(self, AgentSpec::Cheat(..))
    }

    /// The spec itself, or an error for an agent that sees hidden cards: what `bot`, `play`
    /// and `serve` ask before they let an agent face a person or a program that trusts it.
    pub fn refuse_cheat(self, whom: &str) -> Result<AgentSpec, AgentError> {
        match self.sees_hidden_cards() {
            false => Ok(self),
            true => Err(AgentError::Setting {
                spec: self.to_string(),
                reason: format!(
                    "a cheat: agent sees every hand; {whom} plays only agents that see what their seat sees"
                ),
            }),
        }
    }
}

/// The weights a network spec's PATH names: the file or checkpoint folder itself, or a run
/// folder's newest checkpoint.
fn network_file(path: &Path) -> Result<PathBuf, AgentError> {
    Ok(if crate::run::checkpoints_dir(path).is_dir() { crate::run::latest(path)? } else { path.to_path_buf() })
}

/// The network agent of PATH; a run folder stands for its newest checkpoint. A folder that
/// holds a bidding network (`bid.safetensors`, from a run with bidding) gives the agent its bids.
fn network(path: &Path, name: &str) -> Result<ModelAgent, AgentError> {
    let file = network_file(path)?;
    let mut agent = ModelAgent::new(ddz_nets::QNetwork::load(&file)?, name);
    let bid = file.join(crate::run::BID_FILE);
    if file.is_dir() && bid.is_file() {
        agent.bid_net = Some(ddz_nets::BidNetwork::load(&bid)?);
    }
    Ok(agent)
}

#[cfg(test)]
mod tests {
    use super::AgentSpec;

    #[test]
    fn a_checkpoint_folder_with_a_bidding_network_bids_with_it() {
        use crate::encode::{BID_DIM, encode_bid_state};
        use crate::game::{GameConfig, State};
        use ddz_nets::{BidNetwork, ModelConfig, Weights};
        use rand::SeedableRng;
        let dir = std::env::temp_dir().join(format!("ddz-spec-bid-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let model = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        Weights::random(&model.tensor_shapes(), 1).write(&dir.join("model.safetensors")).unwrap();
        let spec = AgentSpec::Checkpoint(dir.clone());
        let (mut with_rule, mut agreed) = (spec.build().unwrap(), 0);
        Weights::random(&BidNetwork::tensor_shapes(), 2).write(&dir.join(crate::run::BID_FILE)).unwrap();
        let bid = BidNetwork::load(&dir.join(crate::run::BID_FILE)).unwrap();
        let mut with_net = spec.build().unwrap();
        for seed in 0..40 {
            let mut s = State::new(GameConfig { bidding: true, ..GameConfig::default() });
            s.deal_random(&mut rand::rngs::SmallRng::seed_from_u64(seed));
            let legal = s.legal_bids_vec();
            let mut f = [0.0f32; BID_DIM];
            encode_bid_state(&s, crate::game::Seat::S0, &mut f);
            assert_eq!(
                with_net.bid(crate::agents::BidTurn::new(&s.view(s.current_player().unwrap()), &legal).unwrap()),
                BidNetwork::best(&bid.q_values(&f)[0], &legal)
            );
            let rule = crate::agents::bid::rule_bid(s.hand(crate::game::Seat::S0), &legal);
            assert_eq!(
                with_rule.bid(crate::agents::BidTurn::new(&s.view(s.current_player().unwrap()), &legal).unwrap()),
                rule,
                "no bidding network: the rule bidder"
            );
            agreed += (with_net.bid(crate::agents::BidTurn::new(&s.view(s.current_player().unwrap()), &legal).unwrap())
                == rule) as usize;
        }
        assert!(agreed < 40, "the network's bids are its own");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn bot_specs_parse_print_and_refuse_bad_knobs() {
        use crate::agents::{BotSettings, OnError};
        use std::time::Duration;
        let plain: AgentSpec = "bot:python3 scripts/douzero_bot.py rlcard".parse().unwrap();
        assert_eq!(plain, AgentSpec::Bot("python3 scripts/douzero_bot.py rlcard".into(), BotSettings::default()));
        assert_eq!(plain.to_string(), "bot:python3 scripts/douzero_bot.py rlcard");
        let knobs: AgentSpec = "bot:./b --x?timeout_ms=500&on_error=forfeit".parse().unwrap();
        let want = BotSettings { timeout: Duration::from_millis(500), on_error: OnError::Forfeit };
        assert_eq!(knobs, AgentSpec::Bot("./b --x".into(), want));
        let quoted: AgentSpec = "bot:\"curl 'x?y=1'\"?timeout_ms=20".parse().unwrap();
        assert_eq!(quoted.to_string(), "bot:\"curl 'x?y=1'\"?timeout_ms=20");
        assert_eq!("bot:echo what? yes".parse::<AgentSpec>().unwrap().to_string(), "bot:\"echo what? yes\"");
        for spec in [plain, knobs, quoted] {
            assert_eq!(spec.to_string().parse::<AgentSpec>().unwrap(), spec, "the name round-trips");
        }
        for bad in ["bot:", "bot:x?timeout_ms=0", "bot:x?on_error=retry", "bot:x?timeout=5", "bot:\"x", "bot:\"x\"y"] {
            let err = bad.parse::<AgentSpec>().unwrap_err().to_string();
            assert!(err.contains(&format!("{bad:?}")), "{bad}: {err}");
        }
    }

    #[test]
    fn specs_parse_and_print() {
        assert!("checkpoint:".parse::<AgentSpec>().is_err());
        assert!("rul".parse::<AgentSpec>().unwrap_err().to_string().contains("random, rule"));
        assert_eq!("checkpoint:x/y".parse::<AgentSpec>().unwrap(), AgentSpec::Checkpoint("x/y".into()));
        assert_eq!(" rule ".parse::<AgentSpec>().unwrap().to_string(), "rule");
        let pimc: AgentSpec = "pimc:m/x.safetensors?worlds=8&cards=15".parse().unwrap();
        assert_eq!(pimc.to_string(), "pimc:m/x.safetensors?worlds=8&cards=15", "defaults are left out");
        assert_eq!("pimc:checkpoint:m/x.safetensors?worlds=8&cards=15".parse::<AgentSpec>().unwrap(), pimc);
        let ismcts: AgentSpec = "ismcts:checkpoint:m?sims=50&c=1.5&leaf=rollout&key=observer".parse().unwrap();
        assert_eq!(ismcts.to_string(), "ismcts:checkpoint:m?sims=50&c=1.5&leaf=rollout&key=observer");
        let alphabeta: AgentSpec = "alphabeta:heuristic?depth=3&ms=100".parse().unwrap();
        assert_eq!(alphabeta.to_string(), "alphabeta:heuristic?depth=3&ms=100");
        let auto: AgentSpec = "auto:checkpoint:m/x.safetensors".parse().unwrap();
        assert_eq!(auto.to_string(), "auto:m/x.safetensors");
        let one_prior: AgentSpec = "auto:m?prior=0.25&prior_farmers=0&net_steps=0".parse().unwrap();
        assert_eq!(one_prior.to_string(), "auto:m?prior_landlord=0.25&net_steps=0");
        for spec in [
            pimc,
            ismcts,
            alphabeta,
            auto,
            one_prior,
            "ismcts:rule".parse().unwrap(),
            "ismcts:random?final=value".parse().unwrap(),
            "pimc:m?opp=rule&steps=5&draws=2&cards=0".parse().unwrap(),
        ] {
            assert_eq!(spec.to_string().parse::<AgentSpec>().unwrap(), spec, "the name round-trips");
        }
        for bad in [
            "pimc:",
            "pimc:m?worlds=x",
            "pimc:m?depth=3",
            "pimc:m?top=0",
            "pimc:m?worlds",
            "ismcts:m?sims=0",
            "ismcts:m?c=-1",
            "ismcts:m?leaf=solver",
            "ismcts:heuristic",
            "alphabeta:rule",
            "alphabeta:m?depth=0",
            "alpha:m",
            "pimc:m?opp=farmer",
            "auto:m?evidence=-1",
            "auto:m?sims=3",
            "auto:m?prior=1.5",
            "auto:m?prior_farmers=-0.1",
            "auto:m?net_steps=-1",
        ] {
            let err = bad.parse::<AgentSpec>().unwrap_err().to_string();
            assert!(err.contains(bad.split('?').next().unwrap()), "{bad}: {err}");
        }
        // Sizes that would make a search reserve more memory than any machine has are errors
        // naming the knob and its most, never an abort.
        for (huge, named) in [
            ("pimc:m?worlds=4000000000", "worlds = 4000000000 is more than the 100000 allowed"),
            ("pimc:m?max_nodes=99999999999", "max_nodes = 99999999999 is more than"),
            ("ismcts:rule?sims=99999999999", "sims = 99999999999 is more than"),
            ("ismcts:rule?worlds=4000000000", "worlds = 4000000000 is more than"),
            ("alphabeta:heuristic?worlds=4000000000", "worlds = 4000000000 is more than"),
            ("alphabeta:heuristic?ms=99999999999", "ms = 99999999999 is more than the 3600000 allowed"),
        ] {
            let err = huge.parse::<AgentSpec>().unwrap_err().to_string();
            assert!(err.contains(named), "{huge}: {err}");
        }
    }

    /// Names as reports and docs wrote them when every knob was printed parse to the agents of
    /// today's shorter names.
    #[test]
    fn names_with_every_knob_still_parse_to_the_same_agent() {
        for (old, new) in [
            (
                "pimc:models/dmc-rule-2h/model.safetensors?worlds=64&top=4&cards=0&max_nodes=200000&ms=0&far=rollout&belief=0&opp=rule&draws=4&steps=30",
                "pimc:models/dmc-rule-2h/model.safetensors?worlds=64&cards=0&opp=rule",
            ),
            (
                "ismcts:checkpoint:models/dmc-rule-2h/model.safetensors?sims=100&c=1&ms=0&worlds=0&leaf=value&final=visits&key=mover&belief=0.1",
                "ismcts:checkpoint:models/dmc-rule-2h/model.safetensors?belief=0.1",
            ),
            (
                "auto:models/dmc-rule-2h/model.safetensors?evidence=3&telling=0&prior_landlord=0.5&prior_farmers=0&net_steps=30",
                "auto:models/dmc-rule-2h/model.safetensors",
            ),
            ("alphabeta:checkpoint:m?depth=2&top=4&worlds=8&ms=0", "alphabeta:checkpoint:m"),
            ("bot:x?timeout_ms=10000&on_error=fail", "bot:x"),
        ] {
            let spec: AgentSpec = old.parse().unwrap();
            assert_eq!(spec, new.parse().unwrap(), "{old}");
            assert_eq!(spec.to_string(), new);
        }
    }

    #[test]
    fn help_and_docs_list_every_knob_with_its_default() {
        let (help, docs) = (super::help(), super::markdown());
        let flat = help.split_whitespace().collect::<Vec<_>>().join(" ");
        for (kind, table) in
            [("pimc", super::knobs::defaults(super::PIMC)), ("ismcts", super::knobs::defaults(super::ISMCTS))]
        {
            for pair in table.split('&') {
                let (knob, default) = pair.split_once('=').unwrap();
                assert!(help.contains(&format!("      {knob:<15} ")), "{kind} {knob} in --help");
                assert!(flat.contains(&format!("(default {default};")), "{kind} {knob}={default} in --help");
                assert!(docs.contains(&format!("| `{knob}` | `{default}` |")), "{kind} {knob}={default} in the docs");
            }
        }
        assert!(help.lines().all(|l| l.chars().count() <= 120), "help lines stay readable");
    }

    /// docs/search.md carries the knob tables as the parser reads them;
    /// `DDZ_WRITE_DOCS=1 cargo test --lib knob_tables_as_parsed` writes them there.
    #[test]
    fn docs_carry_the_knob_tables_as_parsed() {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("docs/search.md");
        let text = std::fs::read_to_string(&path).unwrap();
        let (begin, end) =
            ("<!-- knobs: generated from crates/ddz-play/src/agents/spec.rs -->\n", "<!-- end of knobs -->");
        let (a, b) = (text.find(begin).unwrap() + begin.len(), text.find(end).unwrap());
        let want = super::markdown();
        if std::env::var_os("DDZ_WRITE_DOCS").is_some() {
            std::fs::write(&path, format!("{}{want}{}", &text[..a], &text[b..])).unwrap();
        } else {
            assert!(
                text[a..b] == want,
                "docs/search.md's knob tables are stale: run DDZ_WRITE_DOCS=1 cargo test --lib knob_tables_as_parsed"
            );
        }
    }
}
