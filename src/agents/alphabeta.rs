//! Depth-limited alpha-beta as a player ([`crate::search::alphabeta`]): in each of a few worlds
//! drawn from the seat's information, the candidate plays (the network's best, or the largest
//! without a network) are searched to a depth with the network's value (or the hand-shape
//! heuristic) at the frontier; the play with the best mean over the worlds is made, the network's
//! order breaking ties.

use super::ismcts::index_of;
use super::leaf::{HandShapeLeaf, Leaf, NetworkLeaf, plays_of};
use super::model::argmax;
use super::{Agent, Candidate, LastDecision, ModelAgent};
use crate::game::{Action, ActionTable, Play, State};
use crate::search::{AlphaBeta, AlphaBetaSettings, Evaluator, ordered};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::time::{Duration, Instant};

/// A player that searches a few drawn worlds with depth-limited alpha-beta and makes the play
/// of best mean value.
pub struct AlphaBetaAgent {
    net: Option<ModelAgent>,
    settings: AlphaBetaSettings,
    worlds: usize,
    time_limit: Option<Duration>,
    rng: SmallRng,
    label: String,
    last: LastDecision,
}

impl AlphaBetaAgent {
    /// `net: None` searches with the hand-shape heuristic.
    pub fn new(
        net: Option<ModelAgent>,
        settings: AlphaBetaSettings,
        worlds: usize,
        time_limit: Option<Duration>,
        label: impl Into<String>,
    ) -> AlphaBetaAgent {
        let rng = SmallRng::seed_from_u64(0);
        AlphaBetaAgent {
            net,
            settings,
            worlds: worlds.max(1),
            time_limit,
            rng,
            label: label.into(),
            last: LastDecision::default(),
        }
    }

    /// The candidates (indices into `actions`) and their mean value for the seat to act.
    fn search(&mut self, state: &State, actions: &[Action]) -> (Vec<usize>, Vec<f64>) {
        let started = Instant::now();
        let seat = state.current_player().expect("a decision");
        let landlord_side = Some(seat) == state.landlord();
        let q: Option<Vec<f64>> =
            self.net.as_mut().map(|net| net.q_values(state, &plays_of(actions)).into_iter().map(f64::from).collect());
        let order = ordered(actions, q.as_deref(), self.settings.top);
        let chosen: Vec<Action> = order.iter().map(|&i| actions[i]).collect();
        let (mut network_leaf, mut hand_shape);
        let evaluator: &mut dyn Evaluator<State> = match self.net.as_mut() {
            Some(net) => {
                network_leaf = NetworkLeaf { net, leaf: Leaf::Value, observer: seat };
                &mut network_leaf
            }
            None => {
                hand_shape = HandShapeLeaf;
                &mut hand_shape
            }
        };
        let deadline = self.time_limit.map(|t| started + t);
        let mut search = AlphaBeta::new(self.settings, evaluator).with_deadline(deadline);
        let (mut sums, mut worlds) = (vec![0.0; order.len()], 0);
        while worlds < self.worlds && (worlds == 0 || deadline.is_none_or(|d| Instant::now() < d)) {
            let world = state.resample_from_infostate(seat, &mut || self.rng.random());
            // Without a budget every world is searched to the full depth. With one, the first
            // world deepens as far as the budget allows (so there is always an answer), and a
            // later world the budget cuts short is left out.
            let values = match (deadline, worlds) {
                (None, _) => search.values_after(&world, &chosen),
                (Some(_), 0) => search.deepening_values(&world, &chosen).0,
                (Some(_), _) => match search.values_within(&world, &chosen) {
                    Some(values) => values,
                    None => break,
                },
            };
            for (sum, v) in sums.iter_mut().zip(values) {
                *sum += if landlord_side { v } else { -v };
            }
            worlds += 1;
        }
        (order, sums.into_iter().map(|s| s / worlds as f64).collect())
    }
}

impl Agent for AlphaBetaAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn choose(&mut self, state: &State, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        let table = ActionTable::get();
        let actions: Vec<Action> = plays.iter().map(|p| Action::Play(table.id(p))).collect();
        let (order, means) = self.search(state, &actions);
        // The best mean; among equals, the earliest in the network's order.
        let best = argmax(&means);
        let mut candidates = vec![Candidate { value: f32::NAN, visits: None }; plays.len()];
        for (k, &i) in order.iter().enumerate() {
            candidates[index_of(plays, actions[i])] = Candidate { value: means[k] as f32, visits: None };
        }
        self.last.remember(state, candidates);
        order[best]
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn candidates(&mut self, state: &State, plays: &[Play]) -> Option<Vec<Candidate>> {
        self.last.recall(state, plays)
    }
}
