//! Players behind one interface: every evaluation, replay and bot goes through [`Agent`], by
//! name through [`AgentSpec`] and whole games through [`play::play_out`].
//!
//! The search agents ([`PimcAgent`], [`AlphaBetaAgent`], [`IsmctsAgent`], [`AutoAgent`]) are
//! thin adapters: the searches, world sampling and leaf values live in [`crate::search`],
//! generic over its traits, which this layer implements: [`crate::search::Policy`] for
//! [`ModelAgent`], and [`crate::search::OpponentModel`] for every agent (the other side
//! "plays like agent X": `opp=rule` passes the rule agent).

#[cfg(feature = "torch")]
pub mod alphabeta;
#[cfg(feature = "torch")]
pub mod auto;
pub mod bid;
#[cfg(feature = "torch")]
pub mod bidder;
pub mod bot_client;
#[cfg(feature = "torch")]
pub mod douzero;
#[cfg(feature = "torch")]
pub mod ismcts;
pub mod knobs;
#[cfg(feature = "torch")]
pub mod model;
#[cfg(feature = "torch")]
pub mod pimc;
pub mod play;
pub mod random;
pub mod rule;
#[cfg(feature = "torch")]
pub mod spec;

pub use crate::search::Leaf;
#[cfg(feature = "torch")]
pub use alphabeta::AlphaBetaAgent;
#[cfg(feature = "torch")]
pub use auto::{AutoAgent, AutoSettings, Verdict};
pub use bot_client::{BotAgent, BotSettings, OnError};
#[cfg(feature = "torch")]
pub use ismcts::{Guide, IsmctsAgent};
#[cfg(feature = "torch")]
pub use model::ModelAgent;
#[cfg(feature = "torch")]
pub use pimc::{Far, Opponents, PimcAgent, PimcSettings};
pub use play::{Decision, Everyone, SeatFault, Seating, Sides, decide, legal_bid, play_out, try_decide};
pub use random::RandomAgent;
pub use rule::RuleAgent;
#[cfg(feature = "torch")]
pub use spec::{AgentError, AgentSpec};

use crate::game::{Play, State};

/// Why an agent gave no answer. Only agents that talk to something outside the process fail
/// (`bot:CMD`); every other agent always answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Fault {
    /// The agent cannot go on: whatever plays the game stops with this error.
    #[error("{0}")]
    Failed(String),
    /// The agent gives the game up (`on_error=forfeit`): its side loses, and reports count it.
    #[error("forfeit: {0}")]
    Forfeit(String),
    /// The game has left the rules the agent plays by: it counts as neither won nor lost.
    #[error("rule mismatch: {0}")]
    Mismatch(String),
}

/// A player: picks plays (and bids) at the decisions of its seat.
///
/// Any agent plays whole games through [`play_out`]; here the rule agent as landlord against
/// random farmers on a fixed deal:
///
/// ```
/// use ddz::agents::{RandomAgent, RuleAgent, Sides, play_out};
/// use ddz::game::{State, generate_deals};
///
/// let deal = &generate_deals(1, 3)[0];
/// let mut state = State::new(Default::default());
/// state.deal_hands_unchecked(deal.hands, deal.bottom); // a generated deal is valid
/// let (mut rule, mut random) = (RuleAgent::new(), RandomAgent::new(1));
/// let seats = &mut Sides { landlord: &mut rule, farmers: &mut random };
/// let illegal = play_out(&mut state, seats, |_, _, _, _| {}).unwrap();
/// assert_eq!(illegal, 0);
/// assert!(state.is_terminal());
/// ```
pub trait Agent: Send {
    /// A short name for reports.
    fn name(&self) -> String;
    /// Picks one of `plays` (the legal plays of the current player, never empty); returns its index.
    fn choose(&mut self, state: &State, plays: &[Play]) -> usize;
    /// [`Agent::choose`] for an agent that can fail to answer; the game loop asks this.
    fn try_choose(&mut self, state: &State, plays: &[Play]) -> Result<usize, Fault> {
        Ok(self.choose(state, plays))
    }
    /// Several decisions at once, each answered as `reset(query.seed)` then
    /// [`Agent::try_choose`] would answer it (which the default does, one after the other); a
    /// network answers them all in one forward pass.
    fn try_choose_many(&mut self, queries: &[Query]) -> Result<Vec<usize>, Fault> {
        one_by_one(self, queries)
    }
    /// The bid at a bidding decision (0 = pass), one of `legal`. By default the rule bidder's
    /// ([`bid::rule_bid`]), so that every agent can play the whole game.
    fn bid(&mut self, state: &State, legal: &[u8]) -> u8 {
        let seat = state.current_player().expect("a bidding decision");
        bid::rule_bid(state.hand(seat), legal)
    }
    /// [`Agent::bid`] for an agent that can fail to answer; the game loop asks this.
    fn try_bid(&mut self, state: &State, legal: &[u8]) -> Result<u8, Fault> {
        Ok(self.bid(state, legal))
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

/// Any agent models a player for search: the play it would choose.
impl<A: Agent + ?Sized> crate::search::OpponentModel for A {
    fn pick(&mut self, state: &State, plays: &[Play]) -> usize {
        self.choose(state, plays)
    }
}

/// [`Agent::try_choose_many`] one query after the other.
pub fn one_by_one<A: Agent + ?Sized>(agent: &mut A, queries: &[Query]) -> Result<Vec<usize>, Fault> {
    queries
        .iter()
        .map(|q| {
            agent.reset(q.seed);
            agent.try_choose(q.state, q.plays)
        })
        .collect()
}

/// One decision of a batch ([`Agent::try_choose_many`]): a state with a seat to act, that
/// seat's legal plays (never empty) and the seed of the agent's draws for it.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// The state, with a seat to act in the play phase.
    pub state: &'a State,
    /// The legal plays of the seat to act (never empty).
    pub plays: &'a [Play],
    /// The seed the agent is reset with before answering.
    pub seed: u64,
}

/// What an agent thinks of one play: its value for the agent's side (NaN: not considered) and,
/// for tree search, how often it was visited.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    /// The play's value for the agent's side; NaN when the agent did not consider it.
    pub value: f32,
    /// How often tree search visited the play; None for agents without a tree.
    pub visits: Option<u32>,
}

impl Candidate {
    /// A candidate with a value and no visit count.
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
    let seat = state.current_player().expect("a decision").index();
    crate::search::SearchState::information_state_key(state, seat)
}
