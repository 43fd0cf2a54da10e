//! Who decides an agent's bids: the rule bidder (every agent's default, [`super::bid`]), the
//! hand evaluator with thresholds — bid the highest level whose threshold the evaluator's win
//! chance for the 17-card hand reaches — or a bidding network trained by DMC beside a play
//! network (`game.bidding = true`): the legal bid of highest Q. `ddz eval --bidding --bidder-a
//! SPEC` puts a bidder in front of an agent's play.

use super::{Agent, AgentError, BidTurn, Candidate, Cheat, Turn};
use crate::encode::{HAND_DIM, encode_hand};
use ddz_nets::{BidNetwork as BidNet, HandNetwork as HandNet};
use std::fmt;
use std::path::PathBuf;

/// A bidder by name: `own` (the agent's own: a network agent's bidding network when its
/// checkpoint has one, else the rule bidder), `rule`, `evaluator:PATH?t1=0.5&t2=0.6&t3=0.7` (PATH a hand evaluator's
/// `.safetensors` file or its folder; `tN` the win chance needed to bid N, defaults tuned on
/// 300 deals of seed 7 against the rule bidder: 0.45, 0.55, 0.65), or `network:PATH` (a
/// bidding network: a checkpoint or run folder of a run with bidding, or its `bid.safetensors`).
#[derive(Clone, Debug, PartialEq)]
pub enum BidderSpec {
    /// The agent's own bids: its checkpoint's bidding network if it has one, else the rule bidder.
    Own,
    /// The rule bidder ([`super::bid::rule_bid`]).
    Rule,
    /// Bid the highest level whose threshold the hand evaluator's win chance reaches.
    Evaluator {
        /// The evaluator's `.safetensors` file, or a folder holding `model.safetensors`.
        path: PathBuf,
        /// The win chance (0 to 1) needed to bid 1, 2 and 3.
        thresholds: [f32; 3],
    },
    /// The legal bid of highest Q under a bidding network.
    Network {
        /// A `bid.safetensors` file, a checkpoint folder holding one, or a run folder (its newest
        /// checkpoint's).
        path: PathBuf,
    },
}

/// The evaluator bidder's default win chances needed to bid 1, 2 and 3.
pub const DEFAULT_THRESHOLDS: [f32; 3] = [0.45, 0.55, 0.65];

impl std::str::FromStr for BidderSpec {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<BidderSpec, AgentError> {
        let bad = |reason: String| AgentError::Setting { spec: s.to_string(), reason };
        match s {
            "own" => return Ok(BidderSpec::Own),
            "rule" => return Ok(BidderSpec::Rule),
            _ => {}
        }
        if let Some(path) = s.strip_prefix("network:") {
            return match path {
                "" => Err(bad("no bidding network path".into())),
                _ => Ok(BidderSpec::Network { path: PathBuf::from(path) }),
            };
        }
        let Some(rest) = s.strip_prefix("evaluator:") else {
            return Err(bad("a bidder is own, rule, evaluator:PATH[?t1=…&t2=…&t3=…] or network:PATH".into()));
        };
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        if path.is_empty() {
            return Err(bad("no evaluator path".into()));
        }
        let mut thresholds = DEFAULT_THRESHOLDS;
        for (key, value) in super::knobs::pairs(query).map_err(|e| bad(e.to_string()))? {
            let k = match key {
                "t1" => 0,
                "t2" => 1,
                "t3" => 2,
                other => return Err(bad(format!("unknown knob {other:?}: use t1, t2, t3"))),
            };
            thresholds[k] = value
                .parse::<f32>()
                .ok()
                .filter(|t| (0.0..=1.0).contains(t))
                .ok_or_else(|| bad(format!("{key}: {value:?} is not a chance between 0 and 1")))?;
        }
        Ok(BidderSpec::Evaluator { path: PathBuf::from(path), thresholds })
    }
}

impl fmt::Display for BidderSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BidderSpec::Own => write!(f, "own"),
            BidderSpec::Rule => write!(f, "rule"),
            BidderSpec::Evaluator { path, thresholds: [a, b, c] } => {
                write!(f, "evaluator:{}?t1={a}&t2={b}&t3={c}", path.display())
            }
            BidderSpec::Network { path } => write!(f, "network:{}", path.display()),
        }
    }
}

/// An agent's play with another bidder's bids.
pub struct WithBidder {
    inner: Box<dyn Agent>,
    bidder: Bidder,
    label: String,
}

enum Bidder {
    Rule,
    Evaluator { net: HandNet, thresholds: [f32; 3] },
    Network(BidNet),
}

impl WithBidder {
    /// `agent` bidding as `spec` says.
    pub fn wrap(agent: Box<dyn Agent>, spec: &BidderSpec) -> Result<Box<dyn Agent>, AgentError> {
        let bidder = match spec {
            BidderSpec::Own => return Ok(agent),
            BidderSpec::Rule => Bidder::Rule,
            BidderSpec::Evaluator { path, thresholds } => {
                let file = if path.is_dir() { path.join("model.safetensors") } else { path.clone() };
                Bidder::Evaluator { net: HandNet::load(&file)?, thresholds: *thresholds }
            }
            BidderSpec::Network { path } => Bidder::Network(BidNet::load(&bid_file(path))?),
        };
        let label = format!("{} bidding by {spec}", agent.name());
        Ok(Box::new(WithBidder { inner: agent, bidder, label }))
    }

    /// The evaluator's win chance for the seat's 17 cards (the bottom not yet shown); None
    /// for another bidder.
    pub fn win_chance(&self, turn: BidTurn<'_>) -> Option<f32> {
        let Bidder::Evaluator { net, .. } = &self.bidder else { return None };
        Some(evaluator_win_chance(net, turn))
    }
}

/// The evaluator's win chance for the 17 cards of the seat to bid (the bottom not yet shown).
fn evaluator_win_chance(net: &HandNet, turn: BidTurn<'_>) -> f32 {
    let mut features = [0.0f32; HAND_DIM];
    encode_hand(turn.view.hand(), None, &mut features);
    net.predict(&features)[0].win
}

/// The bidding network's file: `path` itself, `bid.safetensors` in a checkpoint folder, or in
/// the newest checkpoint of a run folder.
fn bid_file(path: &std::path::Path) -> PathBuf {
    if !path.is_dir() {
        return path.to_path_buf();
    }
    let direct = path.join(crate::run::BID_FILE);
    if direct.is_file() {
        return direct;
    }
    crate::run::latest(path).map(|dir| dir.join(crate::run::BID_FILE)).unwrap_or(direct)
}

impl Agent for WithBidder {
    fn name(&self) -> String {
        self.label.clone()
    }
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        self.inner.choose(turn)
    }
    fn try_choose(&mut self, turn: Turn<'_>) -> Result<usize, super::Fault> {
        self.inner.try_choose(turn)
    }
    fn try_choose_many(&mut self, queries: &[super::Query]) -> Result<Vec<usize>, super::Fault> {
        self.inner.try_choose_many(queries)
    }
    fn reset(&mut self, seed: u64) {
        self.inner.reset(seed);
    }
    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        self.inner.candidates(turn)
    }
    fn as_cheat(&mut self) -> Option<&mut dyn Cheat> {
        self.inner.as_cheat()
    }
    fn plays_rules(&self, rules: crate::game::Rules) -> Result<(), crate::agents::Unplayable> {
        self.inner.plays_rules(rules)
    }
    fn bid(&mut self, turn: BidTurn<'_>) -> u8 {
        let BidTurn { view, legal, .. } = turn;
        match &self.bidder {
            Bidder::Rule => super::bid::rule_bid(view.hand(), legal),
            Bidder::Evaluator { net, thresholds } => {
                let p = evaluator_win_chance(net, turn);
                let want = (1..=3u8).rev().find(|&b| p >= thresholds[b as usize - 1]).unwrap_or(0);
                if legal.contains(&want) { want } else { 0 }
            }
            Bidder::Network(net) => net.bid(view, legal),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bidder_specs_parse_print_and_refuse_nonsense() {
        assert_eq!("rule".parse::<BidderSpec>().unwrap(), BidderSpec::Rule);
        assert_eq!("own".parse::<BidderSpec>().unwrap(), BidderSpec::Own);
        let e: BidderSpec = "evaluator:m?t3=0.8".parse().unwrap();
        assert_eq!(e, BidderSpec::Evaluator { path: "m".into(), thresholds: [0.45, 0.55, 0.8] });
        assert_eq!(e.to_string().parse::<BidderSpec>().unwrap(), e);
        assert!("evaluator:m?t1=2".parse::<BidderSpec>().is_err());
        assert!("evaluator:m?x=1".parse::<BidderSpec>().is_err());
        assert!("network".parse::<BidderSpec>().is_err());
        let n: BidderSpec = "network:runs/bid".parse().unwrap();
        assert_eq!(n, BidderSpec::Network { path: "runs/bid".into() });
        assert_eq!(n.to_string().parse::<BidderSpec>().unwrap(), n);
        assert!("network:".parse::<BidderSpec>().is_err());
    }
}
