//! `cheat:NET`: an evaluation-only player that **sees every hand**. It scores the network's
//! best few plays in the one true world (exactly by the open-hand solver once few enough cards
//! are left, by the network playing every seat out before) and makes the best. It measures the
//! headroom above a network: how much a player with the network's judgement gains from the
//! hidden cards alone.
//!
//! Because it reads the hidden hands it is named `cheat` wherever it is named, `bot`, `play`
//! and `serve` refuse it ([`super::AgentSpec::refuse_cheat`]), and the ladder rates none.

use super::{Agent, Candidate, Cheat, LastDecision, ModelAgent, Turn};
use crate::game::State;
use crate::search::{Belief, Budget, PimcSearch, Policy, argmax};
use std::time::Instant;

/// The knobs of a `cheat:` agent, with their defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CheatSettings {
    /// The network's best plays that are scored in the true world.
    pub top: usize,
    /// Solve exactly when at most this many cards are left in all three hands (0 = never).
    pub cards: u32,
    /// Positions the solver may search per play; a play it cannot finish counts as lost.
    pub max_nodes: u64,
    /// Time budget per decision in milliseconds (0: none); past it the network's best play.
    pub ms: u64,
}

impl Default for CheatSettings {
    fn default() -> Self {
        CheatSettings { top: 4, cards: 20, max_nodes: 200_000, ms: 0 }
    }
}

/// A player that scores the network's best plays in the true world (see the module docs).
pub struct CheatAgent {
    net: ModelAgent,
    settings: CheatSettings,
    label: String,
    last: LastDecision,
}

impl CheatAgent {
    /// An agent over `net`; `label` is its name in reports (it starts with `cheat:`).
    pub fn new(net: ModelAgent, settings: CheatSettings, label: impl Into<String>) -> CheatAgent {
        CheatAgent { net, settings, label: label.into(), last: LastDecision::default() }
    }
}

impl Agent for CheatAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    /// The solver and rollouts of three standard hands, with its network's rules.
    fn plays_rules(&self, rules: crate::game::Rules) -> Result<(), crate::agents::Unplayable> {
        super::standard_only(rules).and_then(|()| self.net.plays_rules(rules))
    }

    /// Without the true state (a tool that hands agents only views): the network's play.
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        self.last.forget();
        self.net.choose(turn)
    }

    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        self.last.recall(turn).or_else(|| self.net.candidates(turn))
    }

    fn as_cheat(&mut self) -> Option<&mut dyn Cheat> {
        Some(self)
    }
}

impl Cheat for CheatAgent {
    fn choose_seeing(&mut self, state: &State, turn: Turn<'_>) -> usize {
        let Turn { seat, plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        let started = Instant::now();
        let order = self.net.best_plays(state, plays, self.settings.top);
        let candidates: Vec<_> = order.iter().map(|&i| plays[i]).collect();
        let s = self.settings;
        let budget = Budget::count(1).with_ms(s.ms);
        let search = PimcSearch { budget, cards: s.cards, max_nodes: s.max_nodes, belief: Belief::UNIFORM };
        // The one world searched is the state itself, every hand as dealt: the cheat.
        let world = std::slice::from_ref(state);
        let scores = search.scores_in(&mut self.net, None, world, seat, &candidates, started);
        // The best score; among equals, the earliest in the network's order.
        let best = argmax(&scores);
        let mut shown = vec![Candidate { value: f32::NAN, visits: None }; plays.len()];
        for (k, &i) in order.iter().enumerate() {
            shown[i] = Candidate::value(scores[k] as f32);
        }
        self.last.remember(turn, shown);
        order[best]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Seat, View};
    use ddz_nets::{ModelConfig, QNetwork};
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// The opposite of every honest agent's test: with the seat's information the same and the
    /// hidden hands redrawn, a cheat's decision changes somewhere, and in the endgame it never
    /// makes a play the solver calls lost while another wins.
    #[test]
    fn it_reads_the_hidden_hands_and_plays_the_endgame_perfectly() {
        let model = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], ..Default::default() };
        let settings = CheatSettings { top: usize::MAX, cards: 14, max_nodes: 200_000, ms: 0 };
        let mut cheat =
            CheatAgent::new(ModelAgent::new(QNetwork::random(&model, 7).unwrap(), "tiny"), settings, "cheat:tiny");
        let mut rng = StdRng::seed_from_u64(5);
        let (mut differed, mut solved) = (0, 0);
        for _ in 0..40 {
            let mut s = State::new(Default::default());
            s.deal_random(&mut rng);
            let mut plays = Vec::new();
            while let Some(seat) = s.current_player() {
                s.legal_plays_into(&mut plays);
                let left: u32 = Seat::ALL.iter().map(|&p| s.hand(p).len()).sum();
                if plays.len() > 1 && left <= 14 {
                    let view = View::of(&s, seat);
                    let turn = Turn::new(&view, &plays).unwrap();
                    let real = cheat.choose_seeing(&s, turn);
                    // Every play scored by the solver: the one made wins whenever any does.
                    let scores = cheat.last.recall(turn).expect("the decision's scores");
                    let best = scores.iter().map(|c| c.value).fold(f32::MIN, f32::max);
                    assert_eq!(scores[real].value, best, "the cheat made a play worse than one it solved");
                    let other = s.resample_from_infostate(seat, &mut || rng.random::<f64>());
                    let other_view = View::of(&other, seat);
                    differed += (cheat.choose_seeing(&other, Turn::new(&other_view, &plays).unwrap()) != real) as u32;
                    solved += 1;
                }
                let pick = plays[rng.random_range(0..plays.len())];
                s.try_apply_play(pick).unwrap();
            }
        }
        assert!(solved > 50, "{solved} endgame decisions checked");
        assert!(differed > 0, "a cheat's decision must follow the true hands");
    }
}
