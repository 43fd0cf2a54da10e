//! How searches value the positions at the edge of their search ([`Evaluator`]s over the game
//! state): a policy's value from the mover's seat, a rollout to the end of the game with one
//! player model in every seat, or a hand-shape heuristic.
//!
//! Each sees only the world the search hands it; search agents hand it worlds drawn from their
//! own seat's information, so what a leaf reads of that world is never the real hidden hands.

use super::evaluator::{Evaluation, Evaluator};
use super::game::table_returns;
use super::policy::{Greedy, OpponentModel, Policy, argmax};
use ddz_engine::cards::Counts;
use ddz_engine::game::{Action, ActionTable, MoveList, Play, Seat, State};

/// What a leaf is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// The network's best Q for the player to act, from that player's seat.
    Value,
    /// The game played out by the network (greedy) in every seat.
    Rollout,
}

/// A network's view of positions, with leaves valued by `leaf` (rollouts by the network itself).
///
/// Values all come from one seat's Q, the searching seat's (`observer`): a network trained
/// against a mix of opponents is optimistic for whichever seat it plays, so the landlord's Q and
/// a farmer's Q of the same position do not add up to zero, and a search that mixed them would
/// favour whatever hands the move to the more optimistic seat. At another seat's turn the
/// network plays on (greedily) until the observer is to act, and the observer's best Q is the
/// value. The mover's own Q still orders its plays: each play's value is the position's value
/// plus the play's Q advantage over the mover's best.
pub struct NetworkLeaf<'a> {
    /// The network that values positions and orders plays.
    pub policy: &'a mut dyn Policy,
    /// How leaves are valued: the network's Q or a rollout by the network.
    pub leaf: Leaf,
    /// The searching seat, whose Q every value comes from.
    pub observer: Seat,
}

/// Rollouts with one player model in every seat (random, rule or a network) and no action
/// values: plain UCT.
pub struct RolloutLeaf<'a, M: OpponentModel + ?Sized> {
    /// The player that plays every seat of each rollout.
    pub policy: &'a mut M,
}

/// A heuristic without a network: the side that needs fewer plays to empty its hands leads.
pub struct HandShapeLeaf {
    /// Plays needed to empty a hand when nobody stops it (a split of the hand into plays).
    pub plays_needed: fn(Counts) -> usize,
}

/// The plays behind play actions.
pub fn plays_of(actions: &[Action]) -> Vec<Play> {
    let table = ActionTable::get();
    actions
        .iter()
        .map(|a| match a {
            Action::Play(id) => *table.play(*id),
            other => panic!("search in the play phase only, got {other}"),
        })
        .collect()
}

/// `value` for the seats on `seat`'s side, its opposite for the others: one entry per seat of
/// the state's table (two in two-player Dou Dizhu).
fn sided(state: &State, seat: Seat, value: f64) -> Vec<f64> {
    state.table().seats().iter().map(|&s| if state.same_side(s, seat) { value } else { -value }).collect()
}

/// The returns of `state` played out to the end with `model` in every seat (in the play phase,
/// where search runs).
fn rollout<M: OpponentModel + ?Sized>(state: &State, model: &mut M) -> Vec<f64> {
    let mut world = state.clone();
    let mut plays = MoveList::new();
    while world.current_player().is_some() {
        world.legal_plays_into(&mut plays);
        let Some(&first) = plays.first() else { break };
        // An answer outside the list is the first legal play, as in the game loop.
        let play = plays.get(model.pick(&world, &plays)).copied().unwrap_or(first);
        world.apply_play_unchecked(play);
    }
    table_returns(&world)
}

impl NetworkLeaf<'_> {
    /// The observer's best Q once the network has played on to the observer's turn (the
    /// returns when the game ends first), for every seat.
    fn observer_value(&mut self, state: &State) -> Vec<f64> {
        let mut world = state.clone();
        let mut plays = MoveList::new();
        while let Some(seat) = world.current_player() {
            world.legal_plays_into(&mut plays);
            let q = self.policy.q_values(&world, &plays);
            if seat == self.observer {
                return sided(&world, seat, q.iter().cloned().fold(f32::NEG_INFINITY, f32::max) as f64);
            }
            world.apply_play_unchecked(plays[argmax(&q)]);
        }
        table_returns(&world)
    }
}

impl NetworkLeaf<'_> {
    fn q(&mut self, state: &State, actions: &[Action]) -> Vec<f64> {
        self.policy.q_values(state, &plays_of(actions)).into_iter().map(f64::from).collect()
    }
}

impl Evaluator<State> for NetworkLeaf<'_> {
    /// The mover's Q: the same order as the action values `evaluate` gives, without valuing
    /// the state.
    fn action_order(&mut self, state: &State, actions: &[Action]) -> Option<Vec<f64>> {
        Some(self.q(state, actions))
    }

    fn evaluate(&mut self, state: &State, actions: &[Action]) -> Evaluation {
        let Some(seat) = state.current_player() else {
            return Evaluation { values: table_returns(state), action_values: None };
        };
        let q = self.q(state, actions);
        let best = q.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let values = match self.leaf {
            Leaf::Value if seat == self.observer => sided(state, seat, best),
            Leaf::Value => self.observer_value(state),
            Leaf::Rollout => rollout(state, &mut Greedy(&mut *self.policy)),
        };
        let action_values = q.iter().map(|v| values[seat.index()] + v - best).collect();
        Evaluation { values, action_values: Some(action_values) }
    }
}

impl<M: OpponentModel + ?Sized> Evaluator<State> for RolloutLeaf<'_, M> {
    fn action_order(&mut self, _state: &State, _actions: &[Action]) -> Option<Vec<f64>> {
        None
    }
    fn evaluate(&mut self, state: &State, _actions: &[Action]) -> Evaluation {
        Evaluation { values: rollout(state, self.policy), action_values: None }
    }
}

impl Evaluator<State> for HandShapeLeaf {
    fn action_order(&mut self, _state: &State, _actions: &[Action]) -> Option<Vec<f64>> {
        None
    }
    fn evaluate(&mut self, state: &State, _actions: &[Action]) -> Evaluation {
        let landlord = state.landlord().expect("a landlord");
        let farmers = state.table().others(landlord);
        let turns = |seat: Seat| (self.plays_needed)(state.hand(seat)) as f64;
        let landlord_turns = turns(landlord);
        let farmer_turns = farmers.map(turns).fold(f64::INFINITY, f64::min);
        // Having the move is worth about half a play.
        let tempo = if state.current_player() == Some(landlord) { 0.5 } else { -0.5 };
        let v = ((farmer_turns - landlord_turns + tempo) / 2.0).tanh();
        Evaluation { values: sided(state, landlord, v), action_values: None }
    }
}
