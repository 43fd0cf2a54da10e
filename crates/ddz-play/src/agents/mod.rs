//! Players behind one interface: [`Agent`] and the agents without a network come from the
//! `ddz-agents` crate (re-exported here, so `ddz::agents::RuleAgent` and the like name them);
//! this module adds the agents that need libtorch, and agents by name ([`AgentSpec`]).
//!
//! The search agents ([`PimcAgent`], [`AlphaBetaAgent`], [`IsmctsAgent`], [`AutoAgent`]) are
//! thin adapters: the searches, world sampling and leaf values live in [`crate::search`],
//! generic over its traits, which this layer implements: [`crate::search::Policy`] for
//! [`ModelAgent`], and [`crate::search::OpponentModel`] for every agent.

pub use ddz_agents::agents::*;

pub mod alphabeta;
pub mod auto;
pub mod bidder;
pub mod cheat;
pub mod douzero;
pub mod ismcts;
pub mod model;
pub mod pimc;
pub mod spec;

pub use alphabeta::AlphaBetaAgent;
pub use auto::{AutoAgent, AutoSettings, Verdict};
pub use cheat::{CheatAgent, CheatSettings};
pub use ismcts::{Guide, IsmctsAgent};
pub use model::ModelAgent;
pub use pimc::{Far, Opponents, PimcAgent, PimcSettings};
pub use spec::{AgentError, AgentSpec};

/// The candidates of the decision a search agent made last, shown when a replay asks about that
/// same decision (searching again would cost as much as the decision did).
#[derive(Default)]
pub(crate) struct LastDecision(Option<(u64, Vec<Candidate>)>);

impl LastDecision {
    pub(crate) fn remember(&mut self, turn: Turn<'_>, candidates: Vec<Candidate>) {
        self.0 = Some((decision_key(turn), candidates));
    }
    pub(crate) fn forget(&mut self) {
        self.0 = None;
    }
    /// The remembered candidates if `turn` is the decision they belong to.
    pub(crate) fn recall(&self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        match &self.0 {
            Some((key, c)) if *key == decision_key(turn) && c.len() == turn.plays.len() => Some(c.clone()),
            _ => None,
        }
    }
}

/// A key of the decision for the seat to act: equal for states that seat cannot tell apart.
fn decision_key(turn: Turn<'_>) -> u64 {
    turn.view.information_state_key()
}

/// The world search starts from: the seat's view dealt out ([`crate::game::View::redeal`]).
/// Search deals its own worlds from it, and which world it starts from changes none of its
/// answers (the honesty tests, tests/search.rs), so it is dealt with fixed draws: the agent's
/// own draws all stay the search's.
pub(crate) fn root_world(turn: Turn<'_>) -> crate::game::State {
    turn.view.redeal(&mut || 0.0)
}
