//! Players behind one interface: every evaluation, replay and bot goes through [`Agent`], and
//! whole games through [`play::play_out`].
//!
//! Here are the agents that need no network: [`RandomAgent`], [`RuleAgent`] (and the rule
//! bidder, [`bid`]), and [`BotAgent`], a program behind a pipe. The network and search agents
//! live in the `ddz` crate, as thin adapters of [`crate::search`]: it is generic over its traits,
//! and every agent here is a [`crate::search::OpponentModel`] (the other side "plays like agent
//! X": `opp=rule` passes the rule agent).

pub mod bid;
pub mod bot_client;
pub mod knobs;
pub mod play;
pub mod random;
pub mod rlcard;
pub mod rule;

pub use crate::search::Leaf;
pub use bot_client::{BotAgent, BotSettings, OnError};
pub use play::{Decision, Everyone, SeatFault, Seating, Sides, decide, decide_turn, legal_bid, play_out, try_decide};
pub use random::RandomAgent;
pub use rlcard::{RlcardAgent, RlcardChoice, rlcard_choice};
pub use rule::RuleAgent;

use ddz_engine::game::{Phase, Play, Rules, Seat, State, View};

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
/// use ddz_agents::agents::{RandomAgent, RuleAgent, Sides, play_out};
/// use ddz_engine::game::{State, generate_deals};
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
    /// Picks one of `turn.plays` (never empty); returns its index.
    fn choose(&mut self, turn: Turn<'_>) -> usize;
    /// [`Agent::choose`] for an agent that can fail to answer; the game loop asks this.
    fn try_choose(&mut self, turn: Turn<'_>) -> Result<usize, Fault> {
        Ok(self.choose(turn))
    }
    /// Several decisions at once, each answered as `reset(query.seed)` then
    /// [`Agent::try_choose`] would answer it (which the default does, one after the other); a
    /// network answers them all in one forward pass.
    fn try_choose_many(&mut self, queries: &[Query]) -> Result<Vec<usize>, Fault> {
        one_by_one(self, queries)
    }
    /// The bid at a bidding decision (0 = pass), one of `turn.legal`. By default the rule
    /// bidder's ([`bid::rule_bid`]), so that every agent can play the whole game.
    fn bid(&mut self, turn: BidTurn<'_>) -> u8 {
        bid::rule_bid_at(turn.view, turn.legal)
    }
    /// [`Agent::bid`] for an agent that can fail to answer; the game loop asks this.
    fn try_bid(&mut self, turn: BidTurn<'_>) -> Result<u8, Fault> {
        Ok(self.bid(turn))
    }
    /// Called before each game with a seed derived from the deal, so that results do not
    /// depend on which thread played which deal.
    fn reset(&mut self, _seed: u64) {}
    /// The agent's view of each play, where it has one, for replays: a network's Q, a search
    /// agent's value (and visits) from the decision it just made at `turn`.
    fn candidates(&mut self, _turn: Turn<'_>) -> Option<Vec<Candidate>> {
        None
    }
    /// The agent as a [`Cheat`], if it is one (`cheat:` agents only): then the game loop asks
    /// it with the true state. Never a default.
    fn as_cheat(&mut self) -> Option<&mut dyn Cheat> {
        None
    }
    /// Whether the agent plays games of `rules`, and why not ([`ask`] refuses a decision of
    /// rules it does not play before the agent sees it). By default the standard game only: an
    /// agent plays a variant only where it says so.
    fn plays_rules(&self, rules: Rules) -> Result<(), Unplayable> {
        standard_only(rules)
    }
}

/// Why an agent does not play games of some rules ([`Agent::plays_rules`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct Unplayable {
    /// The rules refused.
    pub rules: Rules,
    /// Why, as a sentence about the agent ("it plays standard games only").
    pub reason: String,
}

impl Unplayable {
    /// `rules` refused for `reason`.
    pub fn new(rules: Rules, reason: impl Into<String>) -> Unplayable {
        Unplayable { rules, reason: reason.into() }
    }
}

/// [`Agent::plays_rules`] of an agent that plays the standard game only.
pub fn standard_only(rules: Rules) -> Result<(), Unplayable> {
    match rules {
        Rules::Standard => Ok(()),
        other => Err(Unplayable::new(other, "it plays standard games only")),
    }
}

/// The one door a decision goes through to an agent: refused (a [`Fault::Failed`] naming the
/// rules) when the agent does not play the turn's rules, and a panic inside the agent becomes that decision's
/// [`Fault::Failed`], so that whoever serves it (a bot, a server, Python) goes on serving.
pub fn ask(agent: &mut dyn Agent, turn: Turn<'_>) -> Result<usize, Fault> {
    check_rules(&*agent, turn)?;
    unwind_safe(|| agent.try_choose(turn))
}

/// [`ask`] for a batch: each query answered or refused on its own. The queries of the rules
/// the agent plays go to it together ([`Agent::try_choose_many`]); should that fail as a
/// whole, each is asked alone, so one bad query costs only its own answer.
pub fn ask_many(agent: &mut dyn Agent, queries: &[Query<'_>]) -> Vec<Result<usize, Fault>> {
    let mut answers: Vec<Result<usize, Fault>> =
        queries.iter().map(|q| check_rules(&*agent, q.turn).map(|_| 0)).collect();
    let fit: Vec<usize> = (0..queries.len()).filter(|&k| answers[k].is_ok()).collect();
    let batch: Vec<Query<'_>> = fit.iter().map(|&k| queries[k]).collect();
    match unwind_safe(|| agent.try_choose_many(&batch)) {
        Ok(picks) if picks.len() == fit.len() => fit.iter().zip(picks).for_each(|(&k, pick)| answers[k] = Ok(pick)),
        _ => {
            for &k in &fit {
                agent.reset(queries[k].seed);
                answers[k] = ask(agent, queries[k].turn);
            }
        }
    }
    answers
}

/// A [`Fault::Failed`] naming the rules when `agent` does not play the rules of `turn`'s game.
pub fn check_rules(agent: &dyn Agent, turn: Turn<'_>) -> Result<(), Fault> {
    let rules = turn.view.config().rules;
    // Failed, not Mismatch: the game never was one of the agent's rules, so it is an error
    // where it is played, not a game that left the agent's rules midway.
    agent
        .plays_rules(rules)
        .map_err(|why| Fault::Failed(format!("{} cannot play a game of {rules} rules: {why}", agent.name())))
}

/// `f`'s answer, or its panic as a fault (the panic's message said).
fn unwind_safe<T>(f: impl FnOnce() -> Result<T, Fault>) -> Result<T, Fault> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        Err(Fault::Failed(format!("the agent failed on this decision: {}", panic_text(&*panic))))
    })
}

/// What a caught panic said (`no message` when it said nothing readable).
pub fn panic_text(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("no message")
}

/// A play decision as an agent sees it: the seat's [`View`] and its legal plays.
///
/// The view holds the seat's own cards and the public record, never another hand: an agent
/// cannot read the hidden cards because it is never handed them. Search that needs full
/// states deals them from the view ([`View::redeal`]); the honesty tests (tests/search.rs)
/// stay as a second line of defence.
///
/// Outside this crate a turn comes only from [`Turn::new`], which checks that it is a decision.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Turn<'a> {
    /// What the seat to act knows.
    pub view: &'a View<'a>,
    /// The seat to act (the view's).
    pub seat: Seat,
    /// The legal plays of `seat` (never empty).
    pub plays: &'a [Play],
}

impl<'a> Turn<'a> {
    /// The decision of the view's seat among `plays`; None unless that seat is to play and
    /// `plays` is not empty.
    pub fn new(view: &'a View<'a>, plays: &'a [Play]) -> Option<Turn<'a>> {
        (view.is_own_play() && !plays.is_empty()).then_some(Turn { view, seat: view.seat(), plays })
    }
}

/// A bidding decision as an agent sees it: the seat's [`View`] and its legal bids.
///
/// Outside this crate it comes only from [`BidTurn::new`], which checks that it is one.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BidTurn<'a> {
    /// What the seat to bid knows.
    pub view: &'a View<'a>,
    /// The seat to bid (the view's).
    pub seat: Seat,
    /// The legal bids (0 = pass, always among them).
    pub legal: &'a [u8],
}

impl<'a> BidTurn<'a> {
    /// The bidding decision of the view's seat among `legal`; None unless that seat is to bid.
    pub fn new(view: &'a View<'a>, legal: &'a [u8]) -> Option<BidTurn<'a>> {
        let to_bid = view.phase() == Phase::Bid && view.current_player() == Some(view.seat());
        to_bid.then_some(BidTurn { view, seat: view.seat(), legal })
    }
}

/// An agent that sees every hand (`cheat:`, evaluation only). The game loop hands the full
/// state to an agent only through this trait, and only to one whose [`Agent::as_cheat`] says it
/// is one; every other agent decides on its [`Turn`] alone.
pub trait Cheat {
    /// The choice at `turn`, seeing `state` (the true one, every hand as dealt).
    fn choose_seeing(&mut self, state: &State, turn: Turn<'_>) -> usize;
}

/// Any agent models a player for search: the play it would choose in a world's position.
impl<A: Agent + ?Sized> crate::search::OpponentModel for A {
    /// Search asks at decisions only; anywhere else the first play stands in.
    fn pick(&mut self, state: &State, plays: &[Play]) -> usize {
        let Some(seat) = state.current_player() else { return 0 };
        let view = View::of(state, seat);
        Turn::new(&view, plays).map_or(0, |turn| self.choose(turn))
    }
}

/// [`Agent::try_choose_many`] one query after the other.
pub fn one_by_one<A: Agent + ?Sized>(agent: &mut A, queries: &[Query]) -> Result<Vec<usize>, Fault> {
    queries
        .iter()
        .map(|q| {
            agent.reset(q.seed);
            agent.try_choose(q.turn)
        })
        .collect()
}

/// One decision of a batch ([`Agent::try_choose_many`]): the decision and the seed of the
/// agent's draws for it.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// The decision.
    pub turn: Turn<'a>,
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
