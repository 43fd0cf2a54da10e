//! ISMCTS as a player ([`crate::search::ismcts`]): guided by a network (PUCT priors and first
//! values from its Q, leaves valued by the network or by network rollouts) or, without one, by
//! rollouts of the rule or random agent (plain UCT).
//!
//! Every simulation runs in a world drawn from the seat's information; the real hidden hands
//! are never read.

use super::{Agent, Candidate, LastDecision, ModelAgent, RandomAgent, RuleAgent, Turn};
use crate::game::{Action, ActionTable, Play, Seat, State};
use crate::search::belief::draw_worlds;
use crate::search::{Belief, Ismcts, IsmctsSettings, Leaf, NetworkLeaf, RolloutLeaf, SearchResult};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::time::{Duration, Instant};

/// Who guides the search.
pub enum Guide {
    /// The network, its leaf values, and the belief temperature of the root worlds (0 =
    /// uniform draws; see [`crate::search::belief`]).
    Network(Box<ModelAgent>, Leaf, f64),
    /// Rollouts by this agent.
    Rollouts(Box<dyn Agent>),
}

impl Guide {
    /// Rollouts by the rule agent.
    pub fn rule() -> Guide {
        Guide::Rollouts(Box::new(RuleAgent::new()))
    }
    /// Rollouts by a random agent.
    pub fn random() -> Guide {
        Guide::Rollouts(Box::new(RandomAgent::new(0)))
    }
}

/// A player that runs ISMCTS over worlds drawn from its seat's information at each decision.
pub struct IsmctsAgent {
    guide: Guide,
    settings: IsmctsSettings,
    rng: SmallRng,
    label: String,
    last: LastDecision,
}

impl IsmctsAgent {
    /// An agent searching with `settings`, guided by `guide`; `label` is its name in reports.
    pub fn new(guide: Guide, settings: IsmctsSettings, label: impl Into<String>) -> IsmctsAgent {
        IsmctsAgent {
            guide,
            settings,
            rng: SmallRng::seed_from_u64(0),
            label: label.into(),
            last: LastDecision::default(),
        }
    }

    /// Sets the time limit of each decision from now on (`None`: none), keeping the count.
    pub fn set_time(&mut self, time: Option<Duration>) {
        self.settings.budget = self.settings.budget.with_time(time);
    }

    /// Searches the decision of `observer` at `state` (the seat's information only).
    pub fn search(&mut self, state: &State, observer: Seat) -> SearchResult<Action> {
        let started = Instant::now();
        let mut search = Ismcts::new(self.settings);
        match &mut self.guide {
            Guide::Network(net, leaf, belief) if *belief > 0.0 => {
                let n = self.settings.max_world_samples.unwrap_or(self.settings.budget.count).min(4096);
                let (belief, drawing) = (Belief::network(*belief), self.settings.budget.drawing_deadline(started));
                let pool = draw_worlds(net.as_mut(), state, observer, n, belief, None, drawing, &mut self.rng);
                let leaf = &mut NetworkLeaf { policy: net.as_mut(), leaf: *leaf, observer };
                search.search_worlds_since(state, &pool, leaf, &mut self.rng, started)
            }
            Guide::Network(net, leaf, _) => {
                let leaf = &mut NetworkLeaf { policy: net.as_mut(), leaf: *leaf, observer };
                search.search(state, leaf, &mut self.rng)
            }
            Guide::Rollouts(policy) => {
                policy.reset(self.rng.random());
                search.search(state, &mut RolloutLeaf { policy: policy.as_mut() }, &mut self.rng)
            }
        }
    }
}

/// Index of `action` among `plays`.
pub(super) fn index_of(plays: &[Play], action: Action) -> usize {
    let table = ActionTable::get();
    plays.iter().position(|p| Action::Play(table.id(p)) == action).expect("search picks a legal play")
}

impl Agent for IsmctsAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { seat, plays, .. } = turn;
        if plays.len() == 1 {
            return 0;
        }
        let state = &super::root_world(turn);
        let result = self.search(state, seat);
        let mut candidates = vec![Candidate { value: f32::NAN, visits: Some(0) }; plays.len()];
        for c in &result.candidates {
            candidates[index_of(plays, c.action)] = Candidate { value: c.value as f32, visits: Some(c.visits) };
        }
        self.last.remember(turn, candidates);
        index_of(plays, result.best)
    }

    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }

    fn candidates(&mut self, turn: Turn<'_>) -> Option<Vec<Candidate>> {
        self.last.recall(turn)
    }

    /// The standard game, and two-player without belief (belief weighs worlds of three hands);
    /// its tree keys plays by the standard action table, so never laizi. A guiding network must
    /// play the rules too.
    fn plays_rules(&self, rules: crate::game::Rules) -> Result<(), crate::agents::Unplayable> {
        use crate::agents::Unplayable;
        use crate::game::Rules;
        match (rules, &self.guide) {
            (Rules::Laizi, _) => Err(Unplayable::new(rules, "its tree keys plays by the standard action table")),
            (Rules::TwoPlayer, Guide::Network(_, _, belief)) if *belief > 0.0 => {
                Err(Unplayable::new(rules, "belief weighs worlds of three hands (use belief=0)"))
            }
            (_, Guide::Network(net, _, _)) => net.plays_rules(rules),
            (_, Guide::Rollouts(_)) => Ok(()),
        }
    }
}
