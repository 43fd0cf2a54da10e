//! Agents by name, as the command line and reports name them:
//!
//! - `random`, `rule`, `checkpoint:PATH` (a checkpoint folder, a `.safetensors` file, or a run
//!   folder: its newest checkpoint);
//! - `pimc:NET?worlds=16&top=4&cards=20&max_nodes=200000&ms=0&far=rollout&belief=0&opp=net&draws=4&steps=30`:
//!   the network's best plays scored over drawn worlds, exactly in the endgame, by network
//!   rollouts before ([`super::pimc`]); `opp=rule` models the other side as the rule agent;
//! - `ismcts:GUIDE?sims=100&c=1&ms=0&worlds=0&leaf=value&final=visits&key=mover&belief=0`: information-set
//!   MCTS ([`super::ismcts`]) guided by a network (PUCT) or by `rule` / `random` rollouts (UCT);
//! - `auto:NET?evidence=3&telling=0&prior_landlord=0.5&prior_farmers=0&net_steps=30`: the
//!   rule-model PIMC while the game fits the rule agent and not the network, ISMCTS with belief
//!   once it does not fit the rule agent, both weighed by the seat's prior while it cannot tell
//!   yet ([`super::auto`]);
//! - `alphabeta:GUIDE?depth=2&top=4&worlds=8&ms=0`: depth-limited alpha-beta over drawn worlds
//!   ([`super::alphabeta`]) with the network's value, or the `heuristic` hand shape, at the
//!   frontier.
//!
//! - `douzero:DIR`: DouZero's checkpoints (`landlord*.ckpt`, `landlord_up*.ckpt`,
//!   `landlord_down*.ckpt`, as its trainer writes them) played natively ([`super::douzero`]);
//! - `bot:CMD?timeout_ms=10000&on_error=fail`: a program speaking the native bot protocol
//!   ([`super::bot_client`]), started once per worker with `sh -c CMD`; `on_error=forfeit` turns
//!   its failures into lost games. CMD may be quoted (`bot:"CMD"?…`), and must be where it holds
//!   a `?`.
//!
//! NET is `checkpoint:PATH` or just PATH. The values shown are the defaults; `ms` is a time budget
//! per decision (0 = none), `worlds=0` in ismcts draws a fresh world for every simulation.

use super::Leaf;
use super::Opponents;
use super::auto::AutoSettings;
use super::ismcts::Guide;
use super::pimc::Far;
use super::{Agent, ModelAgent, PimcAgent, PimcSettings, RandomAgent, RuleAgent};
use super::{AlphaBetaAgent, AutoAgent, BotAgent, BotSettings, IsmctsAgent, OnError};
use crate::model::WeightsError;
use crate::search::{AlphaBetaSettings, FinalChoice, IsmctsSettings, Keying};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An agent by name, parsed from and printed as the names the module docs list; build it with
/// [`AgentSpec::build`].
///
/// ```
/// use ddz::agents::AgentSpec;
///
/// let spec: AgentSpec = "ismcts:rule?sims=50".parse().unwrap();
/// // Printed with every knob, the name parses back to the same agent.
/// assert!(spec.to_string().starts_with("ismcts:rule?sims=50&c=1"), "{spec}");
/// assert_eq!(spec.to_string().parse::<AgentSpec>().unwrap(), spec);
/// let _agent: Box<dyn ddz::agents::Agent> = spec.build().unwrap();
/// let bad = "ismcts:rule?sims=banana".parse::<AgentSpec>().unwrap_err();
/// assert!(bad.to_string().contains("sims"), "{bad}");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    /// `random`: a uniformly random legal play.
    Random,
    /// `rule`: the hand-written rule agent.
    Rule,
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
    /// Worlds drawn per decision (`worlds`: 1 to 100,000; default 8).
    pub worlds: usize,
    /// Time budget per decision in milliseconds (`ms`: at most an hour; default 0, none).
    pub ms: u64,
}

impl Default for AlphaBetaKnobs {
    fn default() -> Self {
        AlphaBetaKnobs { settings: AlphaBetaSettings::default(), worlds: 8, ms: 0 }
    }
}

/// Why an agent name does not parse or its agent cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// A name of no known kind.
    #[error(
        "unknown agent {0:?}: use random, rule, checkpoint:PATH, pimc:NET[?knobs], ismcts:GUIDE[?knobs], auto:NET, \
         alphabeta:GUIDE[?knobs], douzero:DIR or bot:CMD (see ddz eval --help)"
    )]
    Unknown(String),
    /// A known kind with a bad path, guide, command or knob.
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
        let setting = |reason: String| AgentError::Setting { spec: spec.to_string(), reason };
        if let Some(rest) = spec.strip_prefix("bot:") {
            return bot(rest).map(|(command, settings)| AgentSpec::Bot(command, settings)).map_err(setting);
        }
        if let Some((kind, rest)) = spec.split_once(':') {
            let (guide, query) = rest.split_once('?').unwrap_or((rest, ""));
            let knobs = parse_knobs(query).map_err(setting)?;
            return match kind {
                "checkpoint" if !rest.is_empty() => Ok(AgentSpec::Checkpoint(PathBuf::from(rest))),
                "douzero" if !rest.is_empty() => Ok(AgentSpec::Douzero(PathBuf::from(rest))),
                "pimc" => Ok(AgentSpec::Pimc(network_path(guide).map_err(setting)?, pimc(&knobs).map_err(setting)?)),
                "ismcts" => {
                    Ok(AgentSpec::Ismcts(guide_spec(guide, false).map_err(setting)?, ismcts(&knobs).map_err(setting)?))
                }
                "alphabeta" => {
                    let g = guide_spec(guide, true).map_err(setting)?;
                    Ok(AgentSpec::AlphaBeta(g, alphabeta(&knobs).map_err(setting)?))
                }
                "auto" => Ok(AgentSpec::Auto(network_path(guide).map_err(setting)?, auto(&knobs).map_err(setting)?)),
                _ => Err(AgentError::Unknown(spec.to_string())),
            };
        }
        match spec {
            "random" => Ok(AgentSpec::Random),
            "rule" => Ok(AgentSpec::Rule),
            _ => Err(AgentError::Unknown(spec.to_string())),
        }
    }
}

/// `CMD`, `CMD?knobs` or `"CMD"[?knobs]`: unquoted, a last `?` followed by `key=value` pairs
/// starts the knobs.
fn bot(rest: &str) -> Result<(String, BotSettings), String> {
    let (command, query) = if let Some(quoted) = rest.strip_prefix('"') {
        let (command, after) = quoted.split_once('"').ok_or("the command's closing quote is missing")?;
        match after {
            "" => (command, ""),
            _ => (command, after.strip_prefix('?').ok_or(format!("{after:?} after the command: use \"CMD\"?knobs"))?),
        }
    } else {
        match rest.rsplit_once('?') {
            Some((command, query)) if parse_knobs(query).is_ok() && !query.contains(' ') => (command, query),
            _ => (rest, ""),
        }
    };
    let command = command.trim();
    if command.is_empty() {
        return Err("no command".into());
    }
    let mut s = BotSettings::default();
    for (key, value) in parse_knobs(query)? {
        match key {
            "timeout_ms" => s.timeout = Duration::from_millis(whole(key, value, 1)?.min(86_400_000)),
            "on_error" => {
                s.on_error = match value {
                    "fail" => OnError::Fail,
                    "forfeit" => OnError::Forfeit,
                    _ => return Err(format!("on_error: {value:?} is not fail or forfeit")),
                }
            }
            _ => return Err(unknown(key, "timeout_ms, on_error")),
        }
    }
    Ok((command.to_string(), s))
}

fn network_path(guide: &str) -> Result<PathBuf, String> {
    let path = guide.strip_prefix("checkpoint:").unwrap_or(guide);
    if path.is_empty() { Err("no network path".into()) } else { Ok(PathBuf::from(path)) }
}

fn guide_spec(guide: &str, alphabeta: bool) -> Result<GuideSpec, String> {
    Ok(match guide {
        "rule" if !alphabeta => GuideSpec::Rule,
        "random" if !alphabeta => GuideSpec::Random,
        "heuristic" if alphabeta => GuideSpec::Heuristic,
        "rule" | "random" | "heuristic" => {
            let which = if alphabeta { "heuristic" } else { "rule or random" };
            return Err(format!("{guide:?} cannot guide this search: use a network or {which}"));
        }
        other => GuideSpec::Network(network_path(other)?),
    })
}

pub(crate) fn parse_knobs(query: &str) -> Result<Vec<(&str, &str)>, String> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| pair.split_once('=').ok_or_else(|| format!("{pair:?} is not key=value")))
        .collect()
}

fn whole(key: &str, value: &str, least: u64) -> Result<u64, String> {
    within(key, value, least, u64::MAX)
}

/// A whole-number knob from `least` to `most`. Knobs that size what a search keeps (worlds
/// drawn, tree nodes, a solver's table) have a `most`, so that no value can make it reserve
/// more memory than a machine has (an abort, not an error).
fn within(key: &str, value: &str, least: u64, most: u64) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(n) if (least..=most).contains(&n) => Ok(n),
        Ok(n) if n < least => Err(format!("{key} must be at least {least}")),
        Ok(n) => Err(format!("{key} = {n} is more than the {most} allowed")),
        Err(_) => Err(format!("{key}: {value:?} is not a whole number")),
    }
}

/// Worlds one decision may draw and keep.
const MOST_WORLDS: u64 = 100_000;
/// A time budget of an hour a decision is the most any search may be given.
const MOST_MS: u64 = 3_600_000;

fn temperature(key: &str, value: &str) -> Result<f64, String> {
    value
        .parse()
        .ok()
        .filter(|t: &f64| t.is_finite() && *t >= 0.0)
        .ok_or(format!("{key}: {value:?} is not a temperature of at least 0"))
}

fn weight(key: &str, value: &str) -> Result<f64, String> {
    value
        .parse()
        .ok()
        .filter(|p: &f64| (0.0..=1.0).contains(p))
        .ok_or(format!("{key}: {value:?} is not a weight from 0 to 1"))
}

fn unknown(key: &str, known: &str) -> String {
    format!("unknown knob {key:?}: {known}")
}

fn pimc(knobs: &[(&str, &str)]) -> Result<PimcSettings, String> {
    let mut s = PimcSettings::default();
    for &(key, value) in knobs {
        match key {
            "worlds" => s.worlds = within(key, value, 1, MOST_WORLDS)? as usize,
            "top" => s.top = whole(key, value, 1)? as usize,
            "cards" => s.cards = whole(key, value, 0)?.min(54) as u32,
            "max_nodes" => s.max_nodes = within(key, value, 1, 100_000_000)?,
            "ms" => s.ms = within(key, value, 0, MOST_MS)?,
            "far" => {
                s.far = match value {
                    "rollout" => Far::Rollout,
                    "network" => Far::Network,
                    _ => return Err(format!("far: {value:?} is not rollout or network")),
                }
            }
            "belief" => s.belief = temperature(key, value)?,
            "opp" => {
                s.opponents = match value {
                    "net" => Opponents::Network,
                    "rule" => Opponents::Rule,
                    _ => return Err(format!("opp: {value:?} is not net or rule")),
                }
            }
            "draws" => s.draws = within(key, value, 1, 10_000)? as usize,
            "steps" => s.steps = within(key, value, 0, 1_000_000)? as usize,
            _ => return Err(unknown(key, "worlds, top, cards, max_nodes, ms, far, belief, opp, draws, steps")),
        }
    }
    Ok(s)
}

fn ismcts(knobs: &[(&str, &str)]) -> Result<IsmctsKnobs, String> {
    let mut k = IsmctsKnobs::default();
    let s = &mut k.settings;
    for &(key, value) in knobs {
        match (key, value) {
            ("sims", _) => s.max_simulations = within(key, value, 1, 10_000_000)? as u32,
            ("c", _) => {
                s.uct_c = value
                    .parse()
                    .ok()
                    .filter(|c: &f64| c.is_finite() && *c >= 0.0)
                    .ok_or(format!("c: {value:?} is not a number of at least 0"))?
            }
            ("ms", _) => {
                s.time_limit = Some(within(key, value, 0, MOST_MS)?).filter(|&m| m > 0).map(Duration::from_millis)
            }
            ("worlds", _) => {
                s.max_world_samples = Some(within(key, value, 0, MOST_WORLDS)? as usize).filter(|&w| w > 0)
            }
            ("belief", _) => k.belief = temperature(key, value)?,
            ("leaf", "value") => k.leaf = Leaf::Value,
            ("leaf", "rollout") => k.leaf = Leaf::Rollout,
            ("final", "visits") => s.final_choice = FinalChoice::Visits,
            ("final", "value") => s.final_choice = FinalChoice::Value,
            ("key", "mover") => s.keying = Keying::Mover,
            ("key", "observer") => s.keying = Keying::Observer,
            ("leaf" | "final" | "key", _) => {
                return Err(format!("{key}: {value:?} is not one of value|rollout, visits|value, mover|observer"));
            }
            _ => return Err(unknown(key, "sims, c, ms, worlds, leaf, final, key, belief")),
        }
    }
    Ok(k)
}

fn auto(knobs: &[(&str, &str)]) -> Result<AutoSettings, String> {
    let mut s = AutoSettings::default();
    for &(key, value) in knobs {
        match key {
            "evidence" => s.evidence = whole(key, value, 0)?.min(u32::MAX as u64) as u32,
            "telling" => s.telling = whole(key, value, 0)?.min(u32::MAX as u64) as u32,
            "prior" => {
                let prior = weight(key, value)?;
                (s.prior_landlord, s.prior_farmers) = (prior, prior);
            }
            "prior_landlord" => s.prior_landlord = weight(key, value)?,
            "prior_farmers" => s.prior_farmers = weight(key, value)?,
            "net_steps" => s.network_steps = whole(key, value, 0)?.min(10_000) as usize,
            _ => return Err(unknown(key, "evidence, telling, prior, prior_landlord, prior_farmers, net_steps")),
        }
    }
    Ok(s)
}

fn alphabeta(knobs: &[(&str, &str)]) -> Result<AlphaBetaKnobs, String> {
    let mut k = AlphaBetaKnobs::default();
    for &(key, value) in knobs {
        match key {
            "depth" => k.settings.depth = whole(key, value, 1)?.min(64) as u32,
            "top" => k.settings.top = whole(key, value, 0)? as usize,
            "worlds" => k.worlds = within(key, value, 1, MOST_WORLDS)? as usize,
            "ms" => k.ms = within(key, value, 0, MOST_MS)?,
            _ => return Err(unknown(key, "depth, top, worlds, ms")),
        }
    }
    Ok(k)
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

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentSpec::Random => write!(f, "random"),
            AgentSpec::Rule => write!(f, "rule"),
            AgentSpec::Checkpoint(p) => write!(f, "checkpoint:{}", p.display()),
            AgentSpec::Pimc(p, s) => write!(
                f,
                "pimc:{}?worlds={}&top={}&cards={}&max_nodes={}&ms={}&far={}&belief={}&opp={}&draws={}&steps={}",
                p.display(),
                s.worlds,
                s.top,
                s.cards,
                s.max_nodes,
                s.ms,
                if s.far == Far::Rollout { "rollout" } else { "network" },
                s.belief,
                s.opponents.name(),
                s.draws,
                s.steps
            ),
            AgentSpec::Ismcts(g, k) => {
                let s = &k.settings;
                let leaf = if k.leaf == Leaf::Value { "value" } else { "rollout" };
                let last = if s.final_choice == FinalChoice::Visits { "visits" } else { "value" };
                let key = if s.keying == Keying::Mover { "mover" } else { "observer" };
                let ms = s.time_limit.map_or(0, |t| t.as_millis());
                let worlds = s.max_world_samples.unwrap_or(0);
                let (sims, c) = (s.max_simulations, s.uct_c);
                let belief = k.belief;
                write!(
                    f,
                    "ismcts:{g}?sims={sims}&c={c}&ms={ms}&worlds={worlds}&leaf={leaf}&final={last}&key={key}&belief={belief}"
                )
            }
            AgentSpec::AlphaBeta(g, k) => {
                let (d, t, w, ms) = (k.settings.depth, k.settings.top, k.worlds, k.ms);
                write!(f, "alphabeta:{g}?depth={d}&top={t}&worlds={w}&ms={ms}")
            }
            AgentSpec::Auto(p, s) => write!(
                f,
                "auto:{}?evidence={}&telling={}&prior_landlord={}&prior_farmers={}&net_steps={}",
                p.display(),
                s.evidence,
                s.telling,
                s.prior_landlord,
                s.prior_farmers,
                s.network_steps
            ),
            AgentSpec::Douzero(p) => write!(f, "douzero:{}", p.display()),
            AgentSpec::Bot(command, s) => {
                let mut knobs = Vec::new();
                if s.timeout != BotSettings::default().timeout {
                    knobs.push(format!("timeout_ms={}", s.timeout.as_millis()));
                }
                if s.on_error == OnError::Forfeit {
                    knobs.push("on_error=forfeit".into());
                }
                match (command.contains('?') || command.starts_with('"'), knobs.is_empty()) {
                    (false, true) => write!(f, "bot:{command}"),
                    (false, false) => write!(f, "bot:{command}?{}", knobs.join("&")),
                    (true, true) => write!(f, "bot:\"{command}\""),
                    (true, false) => write!(f, "bot:\"{command}\"?{}", knobs.join("&")),
                }
            }
        }
    }
}

impl AgentSpec {
    /// The network file or run folder the agent plays with, if it has one (for hints).
    pub fn network(&self) -> Option<&Path> {
        match self {
            AgentSpec::Checkpoint(p) | AgentSpec::Pimc(p, _) | AgentSpec::Auto(p, _) => Some(p),
            AgentSpec::Ismcts(GuideSpec::Network(p), _) | AgentSpec::AlphaBeta(GuideSpec::Network(p), _) => Some(p),
            _ => None,
        }
    }

    /// The agent, ready to play (a checkpoint's network is loaded on the CPU).
    pub fn build(&self) -> Result<Box<dyn Agent>, AgentError> {
        let name = self.to_string();
        Ok(match self {
            AgentSpec::Random => Box::new(RandomAgent::new(0)),
            AgentSpec::Rule => Box::new(RuleAgent::new()),
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
                let ms = Some(Duration::from_millis(k.ms)).filter(|_| k.ms > 0);
                Box::new(AlphaBetaAgent::new(net, k.settings, k.worlds, ms, name))
            }
            AgentSpec::Auto(p, settings) => {
                let nets = [network(p, &name)?, network(p, &name)?, network(p, &name)?];
                Box::new(AutoAgent::new(nets, *settings, name))
            }
            AgentSpec::Bot(command, settings) => Box::new(BotAgent::new(command, *settings, name)),
            AgentSpec::Douzero(dir) => Box::new(super::douzero::DouzeroAgent::load(dir, name)?),
        })
    }
}

/// The network agent of PATH; a run folder stands for its newest checkpoint. A folder that
/// holds a bidding network (`bid.safetensors`, from a run with bidding) gives the agent its bids.
fn network(path: &Path, name: &str) -> Result<ModelAgent, AgentError> {
    let file = if crate::run::checkpoints_dir(path).is_dir() { crate::run::latest(path)? } else { path.to_path_buf() };
    let mut agent = ModelAgent::new(crate::model::load_network(&file)?, name);
    let bid = file.join(crate::run::BID_FILE);
    if file.is_dir() && bid.is_file() {
        agent.bid_net = Some(crate::model::bidnet::BidNet::load(&bid)?);
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
        use crate::model::{ModelConfig, QNet, bidnet::BidNet, save_weights_file};
        use rand::SeedableRng;
        crate::runtime::configure_threads(1);
        let dir = std::env::temp_dir().join(format!("ddz-spec-bid-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let model = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        save_weights_file(&QNet::cpu(&model, 1), &dir.join("model.safetensors")).unwrap();
        let spec = AgentSpec::Checkpoint(dir.clone());
        let (mut with_rule, mut agreed) = (spec.build().unwrap(), 0);
        let bid = BidNet::cpu(2);
        bid.save(&dir.join(crate::run::BID_FILE)).unwrap();
        let mut with_net = spec.build().unwrap();
        for seed in 0..40 {
            let mut s = State::new(GameConfig { bidding: true, ..GameConfig::default() });
            s.deal_random(&mut rand::rngs::SmallRng::seed_from_u64(seed));
            let legal = s.legal_bids_vec();
            let mut f = [0.0f32; BID_DIM];
            encode_bid_state(&s, 0, &mut f);
            assert_eq!(with_net.bid(&s, &legal), BidNet::best(&bid.q_values(&f)[0], &legal));
            let rule = crate::agents::bid::rule_bid(s.hand(0), &legal);
            assert_eq!(with_rule.bid(&s, &legal), rule, "no bidding network: the rule bidder");
            agreed += (with_net.bid(&s, &legal) == rule) as usize;
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
        assert_eq!(
            pimc.to_string(),
            "pimc:m/x.safetensors?worlds=8&top=4&cards=15&max_nodes=200000&ms=0&far=rollout&belief=0&opp=net&draws=4&steps=30"
        );
        assert_eq!("pimc:checkpoint:m/x.safetensors?worlds=8&cards=15".parse::<AgentSpec>().unwrap(), pimc);
        let ismcts: AgentSpec = "ismcts:checkpoint:m?sims=50&c=1.5&leaf=rollout&key=observer".parse().unwrap();
        assert_eq!(
            ismcts.to_string(),
            "ismcts:checkpoint:m?sims=50&c=1.5&ms=0&worlds=0&leaf=rollout&final=visits&key=observer&belief=0"
        );
        let alphabeta: AgentSpec = "alphabeta:heuristic?depth=3&ms=100".parse().unwrap();
        assert_eq!(alphabeta.to_string(), "alphabeta:heuristic?depth=3&top=4&worlds=8&ms=100");
        let auto: AgentSpec = "auto:checkpoint:m/x.safetensors".parse().unwrap();
        assert_eq!(
            auto.to_string(),
            "auto:m/x.safetensors?evidence=3&telling=0&prior_landlord=0.5&prior_farmers=0&net_steps=30"
        );
        let one_prior: AgentSpec = "auto:m?prior=0.25&prior_farmers=0&net_steps=0".parse().unwrap();
        assert_eq!(
            one_prior.to_string(),
            "auto:m?evidence=3&telling=0&prior_landlord=0.25&prior_farmers=0&net_steps=0"
        );
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
}
