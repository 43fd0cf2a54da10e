//! Depth-limited alpha-beta as a player ([`AlphaBeta::mean_values`]): in each of a few worlds
//! drawn from the seat's information, the candidate plays (the network's best, or the largest
//! without a network) are searched to a depth with the network's value (or the hand-shape
//! heuristic) at the frontier; the play with the best mean over the worlds is made, the network's
//! order breaking ties.

use super::ismcts::index_of;
use super::rule::hand_shape_leaf;
use super::{Agent, Candidate, LastDecision, ModelAgent, Turn};
use crate::game::{Action, ActionTable, Seat, State};
use crate::search::{AlphaBeta, AlphaBetaSettings, Budget, Evaluator, Leaf, NetworkLeaf, argmax, ordered, plays_of};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::time::Instant;

/// A player that searches a few drawn worlds with depth-limited alpha-beta and makes the play
/// of best mean value.
pub struct AlphaBetaAgent {
    net: Option<ModelAgent>,
    settings: AlphaBetaSettings,
    budget: Budget,
    rng: SmallRng,
    label: String,
    last: LastDecision,
}

impl AlphaBetaAgent {
    /// `net: None` searches with the hand-shape heuristic.
    pub fn new(
        net: Option<ModelAgent>,
        settings: AlphaBetaSettings,
        budget: Budget,
        label: impl Into<String>,
    ) -> AlphaBetaAgent {
        let rng = SmallRng::seed_from_u64(0);
        AlphaBetaAgent { net, settings, budget, rng, label: label.into(), last: LastDecision::default() }
    }

    /// The candidates (indices into `actions`) and their mean value for `seat`, the seat to act.
    fn search(&mut self, state: &State, seat: Seat, actions: &[Action]) -> (Vec<usize>, Vec<f64>) {
        let started = Instant::now();
        let q: Option<Vec<f64>> = self.net.as_mut().map(|net| {
            net.q_values(&crate::game::View::of(state, seat), &plays_of(actions)).into_iter().map(f64::from).collect()
        });
        let order = ordered(actions, q.as_deref(), self.settings.top);
        let chosen: Vec<Action> = order.iter().map(|&i| actions[i]).collect();
        let (mut network_leaf, mut hand_shape);
        let evaluator: &mut dyn Evaluator<State> = match self.net.as_mut() {
            Some(net) => {
                network_leaf = NetworkLeaf { policy: net, leaf: Leaf::Value, observer: seat };
                &mut network_leaf
            }
            None => {
                hand_shape = hand_shape_leaf();
                &mut hand_shape
            }
        };
        let deadline = self.budget.deadline(started);
        let mut search = AlphaBeta::new(self.settings, evaluator).with_deadline(deadline);
        let means = search.mean_values(state, seat, &chosen, self.budget.units(), &mut self.rng);
        (order, means)
    }
}

impl Agent for AlphaBetaAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    /// The standard game and two-player (its worlds are redealt at the table of the view); its
    /// search keys plays by the standard action table, so never laizi. A network at its frontier
    /// must play the rules too.
    fn plays_rules(&self, rules: crate::game::Rules) -> Result<(), crate::agents::Unplayable> {
        if rules == crate::game::Rules::Laizi {
            return Err(crate::agents::Unplayable::new(rules, "its search keys plays by the standard action table"));
        }
        self.net.as_ref().map_or(Ok(()), |net| net.plays_rules(rules))
    }

    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { seat, plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        let state = &super::root_world(turn);
        let table = ActionTable::get();
        let actions: Vec<Action> = plays.iter().map(|p| Action::Play(table.id(p))).collect();
        let (order, means) = self.search(state, seat, &actions);
        // The best mean; among equals, the earliest in the network's order.
        let best = argmax(&means);
        let mut candidates = vec![Candidate { value: f32::NAN, visits: None }; plays.len()];
        for (k, &i) in order.iter().enumerate() {
            candidates[index_of(plays, actions[i])] = Candidate { value: means[k] as f32, visits: None };
        }
        self.last.remember(turn, candidates);
        order[best]
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        self.last.recall(turn)
    }
}
