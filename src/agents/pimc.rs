//! Perfect-information Monte Carlo on top of a Q network: the agent draws worlds consistent with
//! what its seat knows (`resample_from_infostate`), scores each of the network's best few plays
//! in every world, and makes the play with the best mean (the network's order breaks ties).
//! When few enough cards are left a play's score in a world is exact (the open-hand solver: won
//! or lost); before that it is the result of the game played out by the network in every seat
//! (`far=rollout`, all the rollouts of a decision batched through the network together), or the
//! agent simply plays as the network does (`far=network`).
//!
//! It never reads a card its seat could not see: the worlds come from the seat's information
//! and the agent's own seeded draws only, and the network sees the seat's features only.

use super::belief::{self, Belief, Opponents};
use super::model::argmax;
use super::{Agent, Candidate, LastDecision, ModelAgent, RuleAgent};
use crate::game::{Play, State};
use crate::search::{Position, Solver};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::time::{Duration, Instant};

/// What PIMC does with more than `cards` cards left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Far {
    /// Play as the network does.
    Network,
    /// Score the candidates by network rollouts in the drawn worlds.
    Rollout,
}

/// The knobs, with their defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PimcSettings {
    /// Worlds drawn per decision.
    pub worlds: usize,
    /// The network's best plays that are scored in each world.
    pub top: usize,
    /// Solve exactly when at most this many cards are left in all three hands (0 = never).
    pub cards: u32,
    /// Positions the solver may search per play and world; a play it cannot finish counts as
    /// a loss in that world.
    pub max_nodes: u64,
    /// Stop drawing worlds after this many milliseconds (0 = no limit; at least one world).
    pub ms: u64,
    /// How plays are scored while more than `cards` cards are left.
    pub far: Far,
    /// Weigh worlds by the other seats' plays at this softmax temperature over the network's
    /// Q ([`super::belief`]); 0 = uniform worlds.
    pub belief: f64,
    /// How the other side's players are modelled, in the worlds' weights and in rollouts.
    pub opponents: Opponents,
    /// Worlds drawn for each world kept, when worlds are weighed.
    pub draws: usize,
    /// Metropolis steps per world toward the rule model, with rule opponents.
    pub steps: usize,
}

impl Default for PimcSettings {
    fn default() -> Self {
        PimcSettings {
            worlds: 16,
            top: 4,
            cards: 20,
            max_nodes: 200_000,
            ms: 0,
            far: Far::Rollout,
            belief: 0.0,
            opponents: Opponents::Network,
            draws: 4,
            steps: 30,
        }
    }
}

/// A player that scores the network's best few plays in worlds drawn from its seat's
/// information and makes the play of best mean score.
pub struct PimcAgent {
    net: ModelAgent,
    settings: PimcSettings,
    rng: SmallRng,
    label: String,
    last: LastDecision,
}

impl PimcAgent {
    /// An agent over `net` with `settings`; `label` is its name in reports.
    pub fn new(net: ModelAgent, settings: PimcSettings, label: impl Into<String>) -> PimcAgent {
        PimcAgent { net, settings, rng: SmallRng::seed_from_u64(0), label: label.into(), last: LastDecision::default() }
    }

    fn belief(&self) -> Belief {
        let s = &self.settings;
        Belief { temperature: s.belief, opponents: s.opponents, draws: s.draws, steps: s.steps }
    }

    /// The plays it scores: the indices of the network's best `top` plays, best first.
    pub fn shortlist(&mut self, state: &State, plays: &[Play]) -> Vec<usize> {
        let q = self.net.q_values(state, plays);
        let mut order: Vec<usize> = (0..plays.len()).collect();
        order.sort_by(|&a, &b| q[b].total_cmp(&q[a]));
        order.truncate(self.settings.top.max(1));
        order
    }

    /// The mean score of each candidate over the drawn worlds, for the current player's side.
    /// Rollouts score eight worlds at a time, the solver one; a time budget (`ms`) stops
    /// between them and inside a solve, and a world it cuts short is left out. When it leaves
    /// no world scored, the scores keep the network's order (its best play first): the best
    /// answer known by then.
    pub fn scores(&mut self, state: &State, candidates: &[Play]) -> Vec<f64> {
        let started = Instant::now();
        let deadline = (self.settings.ms > 0).then(|| started + Duration::from_millis(self.settings.ms));
        let late = || deadline.is_some_and(|d| Instant::now() >= d);
        let seat = state.current_player().expect("a decision");
        let exact = (0..3).map(|p| state.hand(p).len()).sum::<u32>() <= self.settings.cards;
        let n = self.settings.worlds.max(1);
        let belief = self.belief();
        let worlds = belief::draw_worlds(&mut self.net, state, n, belief, &mut self.rng);
        let (mut totals, mut scored) = (vec![0.0; candidates.len()], 0);
        let mut solver = Solver::new();
        for batch in worlds.chunks(if exact { 1 } else { 8 }) {
            if late() {
                break;
            }
            if scored % 8 == 0 {
                // A fresh table every eight worlds, as when they were solved in batches: the
                // node budget then gives up on the same positions, so results stay the same.
                solver = Solver::new();
                solver.set_deadline(deadline);
            }
            let part = if exact {
                match self.solved(&mut solver, &batch[0], candidates) {
                    Some(part) => part,
                    None => break, // the budget ran out inside this world
                }
            } else {
                self.rolled(batch.to_vec(), candidates, seat)
            };
            totals.iter_mut().zip(part).for_each(|(t, p)| *t += p);
            scored += batch.len();
        }
        if scored == 0 {
            return (0..candidates.len()).map(|k| -(k as f64)).collect();
        }
        totals.into_iter().map(|t| t / scored as f64).collect()
    }

    /// +1 for each candidate that wins `world` (solved exactly), −1 for one that loses or the
    /// node budget gives up on; `None` when the time budget ran out before the world was done.
    fn solved(&self, solver: &mut Solver, world: &State, candidates: &[Play]) -> Option<Vec<f64>> {
        let mut scores = vec![0.0; candidates.len()];
        let Some(pos) = Position::of_state(world) else { return Some(scores) };
        let landlord_side = pos.to_move == 0;
        for (k, &play) in candidates.iter().enumerate() {
            let after = pos.after(play);
            let won = match after.winner() {
                Some(w) => (w == 0) == landlord_side,
                None => {
                    let value = solver.landlord_wins_within(&after, self.settings.max_nodes);
                    if value.is_none() && solver.past_deadline() {
                        return None;
                    }
                    value == Some(landlord_side)
                }
            };
            scores[k] = if won { 1.0 } else { -1.0 };
        }
        Some(scores)
    }

    /// The seat's returns summed over the worlds, each candidate played and the game played out
    /// by the network (the other side by the rule agent when it is modelled so).
    fn rolled(&mut self, worlds: Vec<State>, candidates: &[Play], seat: u8) -> Vec<f64> {
        let mut starts = Vec::with_capacity(worlds.len() * candidates.len());
        for world in &worlds {
            for &play in candidates {
                let mut next = world.clone();
                next.try_apply_play(play).expect("a legal play");
                starts.push(next);
            }
        }
        let mut totals = vec![0.0; candidates.len()];
        let mut rule = RuleAgent::new();
        let opponents: Option<(u8, &mut dyn Agent)> = match self.settings.opponents {
            Opponents::Rule => Some((seat, &mut rule)),
            Opponents::Network => None,
        };
        for (i, returns) in self.net.rollouts_against(starts, opponents).into_iter().enumerate() {
            totals[i % candidates.len()] += returns[seat as usize];
        }
        totals
    }
}

impl Agent for PimcAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn choose(&mut self, state: &State, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        let left: u32 = (0..3).map(|seat| state.hand(seat).len()).sum();
        if left > self.settings.cards && self.settings.far == Far::Network {
            self.last.forget();
            return argmax(&self.net.q_values(state, plays));
        }
        let order = self.shortlist(state, plays);
        let candidates: Vec<Play> = order.iter().map(|&i| plays[i]).collect();
        let scores = self.scores(state, &candidates);
        // The best mean; among equals, the earliest in the network's order.
        let best = argmax(&scores);
        let mut shown = vec![Candidate { value: f32::NAN, visits: None }; plays.len()];
        for (k, &i) in order.iter().enumerate() {
            shown[i] = Candidate::value(scores[k] as f32);
        }
        self.last.remember(state, shown);
        order[best]
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn candidates(&mut self, state: &State, plays: &[Play]) -> Option<Vec<Candidate>> {
        self.last.recall(state, plays).or_else(|| self.net.candidates(state, plays))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelConfig, QNet};
    use rand::RngExt;
    use rand::rngs::StdRng;

    fn agent() -> PimcAgent {
        let model = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], ..Default::default() };
        let settings = PimcSettings { worlds: 4, top: 3, cards: 54, max_nodes: 5_000, ..Default::default() };
        PimcAgent::new(ModelAgent::new(QNet::cpu(&model, 7), "tiny"), settings, "pimc")
    }

    #[test]
    fn the_decision_never_depends_on_the_hidden_hands() {
        let mut pimc = agent();
        let mut rng = StdRng::seed_from_u64(21);
        let (mut decisions, mut searched_differently) = (0, 0);
        for game in 0..8u64 {
            let mut s = State::new(Default::default());
            s.deal_random(&mut rng);
            let mut plays = Vec::new();
            while let Some(seat) = s.current_player() {
                s.legal_plays_into(&mut plays);
                let left: u32 = (0..3).map(|p| s.hand(p).len()).sum();
                if plays.len() > 1 && left <= 24 {
                    // The same information for the seat, other hidden hands.
                    let other = s.resample_from_infostate(seat, &mut || rng.random::<f64>());
                    assert_eq!(other.hand(seat), s.hand(seat));
                    pimc.reset(game * 100 + decisions);
                    let real = pimc.choose(&s, &plays);
                    pimc.reset(game * 100 + decisions);
                    let seen = pimc.choose(&other, &plays);
                    assert_eq!(real, seen, "game {game}: the play must not depend on the hidden hands");
                    searched_differently +=
                        (real != crate::agents::model::argmax(&pimc.net.q_values(&s, &plays))) as u32;
                    decisions += 1;
                }
                let pick = plays[rng.random_range(0..plays.len())];
                s.try_apply_play(pick).unwrap();
            }
        }
        assert!(decisions > 30, "{decisions} decisions checked");
        assert!(searched_differently > 0, "the search changed some decisions of the network");
    }
}
