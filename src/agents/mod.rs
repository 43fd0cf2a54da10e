//! Players behind one interface: every evaluation, replay and bot goes through [`Agent`], by
//! name through [`AgentSpec`] and whole games through [`play::play_out`].

pub mod model;
pub mod pimc;
pub mod play;
pub mod random;
pub mod rule;
pub mod spec;

pub use model::ModelAgent;
pub use pimc::{PimcAgent, PimcSettings};
pub use play::{Decision, Everyone, Seating, Sides, decide, play_out};
pub use random::RandomAgent;
pub use rule::RuleAgent;
pub use spec::{AgentError, AgentSpec};

use crate::game::{Play, State};

pub trait Agent {
    /// A short name for reports.
    fn name(&self) -> String;
    /// Picks one of `plays` (the legal plays of the current player, never empty); returns its index.
    fn choose(&mut self, state: &State, plays: &[Play]) -> usize;
    /// Called before each game with a seed derived from the deal, so that results do not
    /// depend on which thread played which deal.
    fn reset(&mut self, _seed: u64) {}
    /// The agent's value of each play, where it has one (model agents: Q), for replays.
    fn values(&mut self, _state: &State, _plays: &[Play]) -> Option<Vec<f32>> {
        None
    }
}
