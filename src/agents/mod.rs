//! Players behind one interface: every evaluation, replay and bot goes through [`Agent`], by
//! name through [`AgentSpec`] and whole games through [`play::play_out`].

#[cfg(feature = "torch")]
pub mod alphabeta;
#[cfg(feature = "torch")]
pub mod auto;
#[cfg(feature = "torch")]
pub mod belief;
pub mod bid;
#[cfg(feature = "torch")]
pub mod bidder;
#[cfg(feature = "torch")]
pub mod ismcts;
#[cfg(feature = "torch")]
pub mod leaf;
#[cfg(feature = "torch")]
pub mod model;
#[cfg(feature = "torch")]
pub mod pimc;
pub mod play;
pub mod random;
pub mod rule;
#[cfg(feature = "torch")]
pub mod spec;

#[cfg(feature = "torch")]
pub use alphabeta::AlphaBetaAgent;
#[cfg(feature = "torch")]
pub use auto::{AutoAgent, AutoSettings, Verdict};
#[cfg(feature = "torch")]
pub use ismcts::{Guide, IsmctsAgent};
#[cfg(feature = "torch")]
pub use model::ModelAgent;
#[cfg(feature = "torch")]
pub use pimc::{PimcAgent, PimcSettings};
pub use play::{Decision, Everyone, Seating, Sides, decide, play_out};
pub use random::RandomAgent;
pub use rule::RuleAgent;
#[cfg(feature = "torch")]
pub use spec::{AgentError, AgentSpec};

use crate::game::{Play, State};

pub trait Agent: Send {
    /// A short name for reports.
    fn name(&self) -> String;
    /// Picks one of `plays` (the legal plays of the current player, never empty); returns its index.
    fn choose(&mut self, state: &State, plays: &[Play]) -> usize;
    /// The bid at a bidding decision (0 = pass), one of `legal`. By default the rule bidder's
    /// ([`bid::rule_bid`]), so that every agent can play the whole game.
    fn bid(&mut self, state: &State, legal: &[u8]) -> u8 {
        let seat = state.current_player().expect("a bidding decision");
        bid::rule_bid(state.hand(seat), legal)
    }
    /// Called before each game with a seed derived from the deal, so that results do not
    /// depend on which thread played which deal.
    fn reset(&mut self, _seed: u64) {}
    /// The agent's view of each play, where it has one, for replays: a network's Q, a search
    /// agent's value (and visits) from the decision it just made at `state`.
    fn candidates(&mut self, _state: &State, _plays: &[Play]) -> Option<Vec<Candidate>> {
        None
    }
}

/// What an agent thinks of one play: its value for the agent's side (NaN: not considered) and,
/// for tree search, how often it was visited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    pub value: f32,
    pub visits: Option<u32>,
}

impl Candidate {
    pub fn value(value: f32) -> Candidate {
        Candidate { value, visits: None }
    }
}

/// The candidates of the decision a search agent made last, shown when a replay asks about that
/// same decision (searching again would cost as much as the decision did).
#[cfg(feature = "torch")]
#[derive(Default)]
pub(crate) struct LastDecision(Option<(u64, Vec<Candidate>)>);

#[cfg(feature = "torch")]
impl LastDecision {
    pub(crate) fn remember(&mut self, state: &State, candidates: Vec<Candidate>) {
        self.0 = Some((decision_key(state), candidates));
    }
    pub(crate) fn forget(&mut self) {
        self.0 = None;
    }
    /// The remembered candidates if `state` is the decision they belong to.
    pub(crate) fn recall(&self, state: &State, plays: &[Play]) -> Option<Vec<Candidate>> {
        match &self.0 {
            Some((key, c)) if *key == decision_key(state) && c.len() == plays.len() => Some(c.clone()),
            _ => None,
        }
    }
}

/// A key of the decision for the seat to act: equal for states that seat cannot tell apart.
#[cfg(feature = "torch")]
fn decision_key(state: &State) -> u64 {
    let seat = state.current_player().expect("a decision") as usize;
    crate::search::SearchState::information_state_key(state, seat)
}
