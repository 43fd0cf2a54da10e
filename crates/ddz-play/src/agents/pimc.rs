//! Perfect-information Monte Carlo on top of a Q network ([`crate::search::pimc`]): the agent
//! draws worlds consistent with what its seat knows, scores each of the network's best few
//! plays in every world, and makes the play with the best mean (the network's order breaks
//! ties). When few enough cards are left a play's score in a world is exact; before that it is
//! the result of the game played out by the network in every seat (`far=rollout`), or the agent
//! simply plays as the network does (`far=network`). With `opp=rule` the rule agent models the
//! other side, in the worlds' weights and in rollouts. With `opp=rlcard` it exploits RLCard's
//! rule agent, known in full ([`crate::search::exploit`]): worlds by the chance that agent had
//! of its plays, and each candidate scored by the best response to it in each world.
//!
//! It never reads a card its seat could not see: the worlds come from the seat's information
//! and the agent's own seeded draws only, and the network sees the seat's features only.

use super::{Agent, Candidate, LastDecision, ModelAgent, RlcardAgent, RuleAgent, Turn};
use crate::game::{Play, Seat, State};
use crate::search::pimc::in_order;
use crate::search::{Belief, Budget, ExploitSearch, OpponentModel, PimcSearch, Policy, argmax};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use std::time::Duration;

/// How a search agent models the players of the other side (its teammate is always modelled
/// as the network).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Opponents {
    /// As the network plays: the default, for an opponent nothing is known about.
    #[default]
    Network,
    /// As the rule agent plays ([`RuleAgent`]).
    Rule,
    /// As RLCard's rule agent plays ([`RlcardAgent`]), known in full: exploited.
    Rlcard,
}

impl Opponents {
    /// Every kind, in the order of the `opp=` knob's choices.
    pub const ALL: [Opponents; 3] = [Opponents::Network, Opponents::Rule, Opponents::Rlcard];

    /// The name in an agent spec's `opp=` knob: `net`, `rule` or `rlcard`.
    pub fn name(self) -> &'static str {
        match self {
            Opponents::Network => "net",
            Opponents::Rule => "rule",
            Opponents::Rlcard => "rlcard",
        }
    }

    /// The opponent model PIMC's search gets: `rule` as the rule agent, none for the network
    /// (search then has the network play the other side too). `rlcard` is searched apart
    /// ([`ExploitSearch`]).
    pub fn model(self, rule: &mut RuleAgent) -> Option<&mut dyn OpponentModel> {
        match self {
            Opponents::Rule => Some(rule),
            Opponents::Network | Opponents::Rlcard => None,
        }
    }
}

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
    /// Worlds drawn per decision, and a time past which no further world is scored (at least
    /// one world is).
    pub budget: Budget,
    /// The network's best plays that are scored in each world.
    pub top: usize,
    /// Solve exactly when at most this many cards are left in all three hands (0 = never).
    pub cards: u32,
    /// Positions the solver may search per play and world; a play it cannot finish counts as
    /// a loss in that world.
    pub max_nodes: u64,
    /// How plays are scored while more than `cards` cards are left.
    pub far: Far,
    /// Weigh worlds by the other seats' plays at this softmax temperature over the network's
    /// Q ([`crate::search::belief`]); 0 = uniform worlds.
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
            budget: Budget::count(16),
            top: 4,
            cards: 20,
            max_nodes: 200_000,
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
    /// The other side's model with `opp=rule`.
    rule: RuleAgent,
    /// The other side's known policy with `opp=rlcard`.
    rlcard: RlcardAgent,
}

impl PimcAgent {
    /// An agent over `net` with `settings`; `label` is its name in reports.
    pub fn new(net: ModelAgent, settings: PimcSettings, label: impl Into<String>) -> PimcAgent {
        let rng = SmallRng::seed_from_u64(0);
        PimcAgent {
            net,
            settings,
            rng,
            label: label.into(),
            last: LastDecision::default(),
            rule: RuleAgent::new(),
            rlcard: RlcardAgent::new(0),
        }
    }

    /// The search behind the settings.
    fn search(&self) -> PimcSearch {
        let s = &self.settings;
        let belief = Belief { temperature: s.belief, draws: s.draws, steps: s.steps };
        PimcSearch { budget: s.budget, cards: s.cards, max_nodes: s.max_nodes, belief }
    }

    /// Sets the time limit of each decision from now on (`None`: none), keeping the count.
    pub fn set_time(&mut self, time: Option<Duration>) {
        self.settings.budget = self.settings.budget.with_time(time);
    }

    /// The plays it scores: the indices of the network's best `top` plays, best first.
    pub fn shortlist(&mut self, state: &State, plays: &[Play]) -> Vec<usize> {
        self.net.best_plays(state, plays, self.settings.top)
    }

    /// The mean score of each candidate over the drawn worlds, for the current player's side
    /// ([`PimcSearch::scores`]; in the given order when no player is to act).
    pub fn scores(&mut self, state: &State, candidates: &[Play]) -> Vec<f64> {
        let Some(seat) = state.current_player() else { return in_order(candidates.len()) };
        if self.settings.opponents == Opponents::Rlcard {
            let s = &self.settings;
            let exploit = ExploitSearch { budget: s.budget, steps: s.steps, cards: s.cards, max_nodes: s.max_nodes };
            return exploit.scores(&mut self.net, &mut self.rlcard, state, seat, candidates, &mut self.rng);
        }
        let search = self.search();
        let opponents = self.settings.opponents.model(&mut self.rule);
        search.scores(&mut self.net, opponents, state, seat, candidates, &mut self.rng)
    }
}

impl Agent for PimcAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { view, plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        let left: u32 = Seat::ALL.iter().map(|&seat| view.cards_left(seat)).sum();
        if left > self.settings.cards && self.settings.far == Far::Network {
            self.last.forget();
            return argmax(&self.net.q_values(view, plays));
        }
        let state = &super::root_world(turn);
        let order = self.shortlist(state, plays);
        let candidates: Vec<Play> = order.iter().map(|&i| plays[i]).collect();
        let scores = self.scores(state, &candidates);
        // The best mean; among equals, the earliest in the network's order.
        let best = argmax(&scores);
        let mut shown = vec![Candidate { value: f32::NAN, visits: None }; plays.len()];
        for (k, &i) in order.iter().enumerate() {
            shown[i] = Candidate::value(scores[k] as f32);
        }
        self.last.remember(turn, shown);
        order[best]
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        self.last.recall(turn).or_else(|| self.net.candidates(turn))
    }

    /// Its worlds are three standard hands, and its network must play them.
    fn plays_rules(&self, rules: crate::game::Rules) -> Result<(), super::Unplayable> {
        super::standard_only(rules).and_then(|()| self.net.plays_rules(rules))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddz_nets::{ModelConfig, QNetwork};
    use rand::RngExt;
    use rand::rngs::StdRng;

    fn agent() -> PimcAgent {
        let model = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], ..Default::default() };
        let settings =
            PimcSettings { budget: Budget::count(4), top: 3, cards: 54, max_nodes: 5_000, ..Default::default() };
        PimcAgent::new(ModelAgent::new(QNetwork::random(&model, 7).unwrap(), "tiny"), settings, "pimc")
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
                let left: u32 = Seat::ALL.iter().map(|&p| s.hand(p).len()).sum();
                if plays.len() > 1 && left <= 24 {
                    // The same information for the seat, other hidden hands.
                    let other = s.resample_from_infostate(seat, &mut || rng.random::<f64>());
                    assert_eq!(other.hand(seat), s.hand(seat));
                    pimc.reset(game * 100 + decisions);
                    let real = pimc.choose(Turn::new(&s.view(s.current_player().unwrap()), &plays).unwrap());
                    pimc.reset(game * 100 + decisions);
                    let seen = pimc.choose(Turn::new(&other.view(other.current_player().unwrap()), &plays).unwrap());
                    assert_eq!(real, seen, "game {game}: the play must not depend on the hidden hands");
                    searched_differently += (real != argmax(&pimc.net.q_values(&s.view(seat), &plays))) as u32;
                    decisions += 1;
                }
                let pick = plays[rng.random_range(0..plays.len())];
                s.try_apply_play(pick).unwrap();
            }
        }
        assert!(decisions > 30, "{decisions} decisions checked");
        assert!(searched_differently > 0, "the search changed some decisions of the network");
    }

    #[test]
    fn exploiting_rlcard_never_reads_the_hidden_hands() {
        let mut pimc = agent();
        pimc.settings.opponents = Opponents::Rlcard;
        let mut player = RlcardAgent::new(5);
        let mut rng = StdRng::seed_from_u64(22);
        let (mut decisions, mut searched_differently) = (0, 0);
        for game in 0..6u64 {
            let mut s = State::new(Default::default());
            s.deal_random(&mut rng);
            let mut plays = Vec::new();
            while let Some(seat) = s.current_player() {
                s.legal_plays_into(&mut plays);
                if plays.len() > 1 && s.play_record().len() % 2 == 1 {
                    let other = s.resample_from_infostate(seat, &mut || rng.random::<f64>());
                    pimc.reset(game * 100 + decisions);
                    let real = pimc.choose(Turn::new(&s.view(seat), &plays).unwrap());
                    pimc.reset(game * 100 + decisions);
                    let seen = pimc.choose(Turn::new(&other.view(seat), &plays).unwrap());
                    assert_eq!(real, seen, "game {game}: the play must not depend on the hidden hands");
                    searched_differently += (real != argmax(&pimc.net.q_values(&s.view(seat), &plays))) as u32;
                    decisions += 1;
                }
                let pick = player.choose(Turn::new(&s.view(seat), &plays).unwrap());
                s.try_apply_play(plays[pick]).unwrap();
            }
        }
        assert!(decisions > 30, "{decisions} decisions checked");
        assert!(searched_differently > 0, "the search changed some decisions of the network");
    }
}
