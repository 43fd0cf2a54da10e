//! Perfect-information Monte Carlo on top of a Q network: when few enough cards are left, the
//! agent draws worlds consistent with what its seat knows (`resample_from_infostate`), solves
//! each of the network's best few plays exactly in every world, and makes the play that wins in
//! the most worlds (the network's order breaks ties). With more cards left it plays as the
//! network does.
//!
//! It never reads a card its seat could not see: the worlds come from the seat's information
//! and the agent's own seeded draws only, and the network sees the seat's features only.

use super::{Agent, Candidate, ModelAgent};
use crate::game::{Play, State};
use crate::search::{Position, Solver};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The knobs, with their defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PimcSettings {
    /// Worlds drawn per decision.
    pub worlds: usize,
    /// The network's best plays that are solved in each world.
    pub top: usize,
    /// Search only when at most this many cards are left in all three hands.
    pub cards: u32,
    /// Positions the solver may search per play and world; a play it cannot finish counts as
    /// a loss in that world.
    pub max_nodes: u64,
    /// Stop drawing worlds after this many milliseconds (0 = no limit; at least one world).
    pub ms: u64,
}

impl Default for PimcSettings {
    fn default() -> Self {
        PimcSettings { worlds: 16, top: 4, cards: 20, max_nodes: 200_000, ms: 0 }
    }
}

pub struct PimcAgent {
    net: ModelAgent,
    settings: PimcSettings,
    rng: SmallRng,
    label: String,
}

impl PimcAgent {
    pub fn new(net: ModelAgent, settings: PimcSettings, label: impl Into<String>) -> PimcAgent {
        PimcAgent { net, settings, rng: SmallRng::seed_from_u64(0), label: label.into() }
    }

    /// How many of `worlds` each candidate wins in, for the current player of `state`.
    pub fn wins_by_candidate(&mut self, state: &State, candidates: &[Play]) -> Vec<usize> {
        let seat = state.current_player().expect("a decision");
        let mut wins = vec![0; candidates.len()];
        let mut solver = Solver::new();
        let started = std::time::Instant::now();
        let out_of_time =
            |w: usize| w > 0 && self.settings.ms > 0 && started.elapsed().as_millis() as u64 >= self.settings.ms;
        for w in 0..self.settings.worlds {
            if out_of_time(w) {
                break;
            }
            let world = state.resample_from_infostate(seat, &mut || self.rng.random::<f64>());
            let Some(pos) = Position::of_state(&world) else { continue };
            let landlord_side = pos.to_move == 0;
            for (k, &play) in candidates.iter().enumerate() {
                let after = pos.after(play);
                let won = match after.winner() {
                    Some(w) => (w == 0) == landlord_side,
                    None => solver.landlord_wins_within(&after, self.settings.max_nodes) == Some(landlord_side),
                };
                wins[k] += won as usize;
            }
        }
        wins
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
        let q = self.net.q_values(state, plays);
        let left: u32 = (0..3).map(|seat| state.hand(seat).len()).sum();
        let mut order: Vec<usize> = (0..plays.len()).collect();
        order.sort_by(|&a, &b| q[b].total_cmp(&q[a]));
        if left > self.settings.cards {
            return order[0];
        }
        order.truncate(self.settings.top.max(1));
        let candidates: Vec<Play> = order.iter().map(|&i| plays[i]).collect();
        let wins = self.wins_by_candidate(state, &candidates);
        // The most wins; among equals, the network's order (max_by_key keeps the last maximum).
        let best = (0..order.len()).rev().max_by_key(|&k| wins[k]).unwrap_or(0);
        order[best]
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn candidates(&mut self, state: &State, plays: &[Play]) -> Option<Vec<Candidate>> {
        self.net.candidates(state, plays)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelConfig, QNet};
    use rand::rngs::StdRng;

    fn agent() -> PimcAgent {
        let model = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], ..Default::default() };
        let settings = PimcSettings { worlds: 4, top: 3, cards: 54, max_nodes: 5_000, ms: 0 };
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
                s.apply_play(pick).unwrap();
            }
        }
        assert!(decisions > 30, "{decisions} decisions checked");
        assert!(searched_differently > 0, "the search changed some decisions of the network");
    }
}
