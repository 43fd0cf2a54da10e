//! Information-set Monte Carlo tree search over any [`SearchState`], after OpenSpiel's ISMCTS.
//!
//! Each simulation starts from a world drawn with `resample_from_infostate` from the searching
//! player's information (or from a pool of such worlds), walks down a tree whose nodes are
//! information states, expands one node, values it with an [`Evaluator`] (a rollout or a
//! network) and backs the values up, each node's player keeping its own value.
//!
//! Nodes are keyed by the information state of the player to act ([`Keying::Mover`], OpenSpiel's
//! choice) or of the searching player ([`Keying::Observer`], single-observer ISMCTS, where one
//! node gathers every world the searcher cannot tell apart). An action may be legal in one world
//! and not in another (an opponent's plays depend on its hidden hand): a node adds actions as
//! worlds reveal them, chooses only among those legal in the current world, and counts for each
//! child how often it was available, which takes the place of the parent's visit count in the
//! exploration term (Cowling, Powley and Whitehouse's subset-armed bandit).
//!
//! With an evaluator that values actions (a Q network) children are chosen by PUCT: the prior is
//! a softmax of those values and each child starts from its value as `prior_weight` visits, so a
//! short search plays as the network does and a longer one corrects it.

use super::budget::Budget;
use super::evaluator::Evaluator;
use super::game::SearchState;
use rand::RngExt;
use rand::rngs::SmallRng;
use rustc_hash::FxHashMap;
use std::time::Instant;

/// Whose information state names a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keying {
    /// The player to act (OpenSpiel's ISMCTS).
    Mover,
    /// The searching player at every node (single-observer ISMCTS).
    Observer,
}

/// How the final action is picked at the root.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalChoice {
    /// The most visited (ties: the higher value).
    Visits,
    /// The highest mean value.
    Value,
}

/// The knobs of a search; the default is 100 simulations, no time limit, a fresh world per
/// simulation and mover keying.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IsmctsSettings {
    /// Exploration constant of UCT / PUCT.
    pub uct_c: f64,
    /// Simulations per search, and a time checked between simulations.
    pub budget: Budget,
    /// Draw this many root worlds once and cycle through them; `None` draws a fresh world for
    /// every simulation.
    pub max_world_samples: Option<usize>,
    /// How the root's action is picked once the simulations are done.
    pub final_choice: FinalChoice,
    /// Whose information state names a node.
    pub keying: Keying,
    /// How many visits an evaluator's action value counts for.
    pub prior_weight: f64,
    /// Temperature of the softmax that turns action values into PUCT priors.
    pub prior_temperature: f64,
}

impl Default for IsmctsSettings {
    fn default() -> Self {
        IsmctsSettings {
            uct_c: 1.0,
            budget: Budget::count(100),
            max_world_samples: None,
            final_choice: FinalChoice::Visits,
            keying: Keying::Mover,
            prior_weight: 2.0,
            prior_temperature: 0.1,
        }
    }
}

struct Child<A> {
    action: A,
    visits: u32,
    available: u32,
    total: f64,
    prior: f64,
    first_value: Option<f64>,
}

impl<A> Child<A> {
    fn mean(&self, prior_weight: f64) -> f64 {
        match self.first_value {
            Some(v) => (self.total + prior_weight * v) / (self.visits as f64 + prior_weight),
            None if self.visits > 0 => self.total / self.visits as f64,
            None => 0.0,
        }
    }
}

struct Node<A> {
    children: Vec<Child<A>>,
}

/// One root action after a search.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateStats<A> {
    /// The action.
    pub action: A,
    /// Simulations that took it.
    pub visits: u32,
    /// The mean value for the searching player (the evaluator's value when never visited).
    pub value: f64,
}

/// The outcome of one search: the chosen action and what the root saw.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult<A> {
    /// The action picked by [`IsmctsSettings::final_choice`].
    pub best: A,
    /// Every root action the search saw, in legal order.
    pub candidates: Vec<CandidateStats<A>>,
    /// Simulations run: the budget's count, or fewer when its time stopped the search.
    pub simulations: u32,
}

/// An ISMCTS searcher; its tree is rebuilt for every search, so one value serves many.
pub struct Ismcts<S: SearchState> {
    /// The knobs of the following searches.
    pub settings: IsmctsSettings,
    nodes: FxHashMap<u64, Node<S::Action>>,
}

impl<S: SearchState> Ismcts<S> {
    /// A searcher with these settings and an empty tree.
    pub fn new(settings: IsmctsSettings) -> Ismcts<S> {
        Ismcts { settings, nodes: FxHashMap::default() }
    }

    /// Searches for the player to act at `root`, which must be a decision state; the real
    /// hidden information of `root` is never read: every simulation runs in a drawn world.
    pub fn search(
        &mut self,
        root: &S,
        evaluator: &mut dyn Evaluator<S>,
        rng: &mut SmallRng,
    ) -> SearchResult<S::Action> {
        let started = Instant::now();
        let observer = root.current_player().expect("search starts at a decision");
        let drawing = self.settings.budget.drawing_deadline(started);
        let mut pool: Vec<S> = Vec::new();
        // The pool takes half the time budget at most (at least one world), the tree the rest.
        while pool.len() < self.settings.max_world_samples.map_or(0, |n| n.max(1))
            && (pool.is_empty() || !drawing.passed())
        {
            pool.push(root.resample_from_infostate(observer, &mut || rng.random()));
        }
        self.search_worlds_since(root, &pool, evaluator, rng, started)
    }

    /// [`Ismcts::search`] with the caller's pool of root worlds, cycled through (a fresh draw per
    /// simulation when it is empty): worlds weighted by a belief, for example. They must be
    /// worlds the player to act cannot tell from `root`.
    pub fn search_worlds(
        &mut self,
        root: &S,
        pool: &[S],
        evaluator: &mut dyn Evaluator<S>,
        rng: &mut SmallRng,
    ) -> SearchResult<S::Action> {
        self.search_worlds_since(root, pool, evaluator, rng, Instant::now())
    }

    /// [`Ismcts::search_worlds`] with the time budget counted from `started`: the moment the
    /// decision began, before its pool of worlds was drawn.
    pub fn search_worlds_since(
        &mut self,
        root: &S,
        pool: &[S],
        evaluator: &mut dyn Evaluator<S>,
        rng: &mut SmallRng,
        started: Instant,
    ) -> SearchResult<S::Action> {
        self.nodes.clear();
        let observer = root.current_player().expect("search starts at a decision");
        let mut simulations = 0;
        let deadline = self.settings.budget.deadline(started);
        while (simulations as usize) < self.settings.budget.units() {
            if simulations > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let world = match pool.len() {
                0 => root.resample_from_infostate(observer, &mut || rng.random()),
                n => pool[simulations as usize % n].clone(),
            };
            self.simulate(world, observer, evaluator, rng);
            simulations += 1;
        }
        self.result(root, observer, simulations)
    }

    fn key(&self, state: &S, mover: usize, observer: usize) -> u64 {
        let who = match self.settings.keying {
            Keying::Mover => mover,
            Keying::Observer => observer,
        };
        // The mover is part of the key: with observer keys two players' turns must not share.
        state.information_state_key(who) ^ (mover as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// One simulation: select down the tree, expand and value one node, back the values up.
    fn simulate(&mut self, mut state: S, observer: usize, evaluator: &mut dyn Evaluator<S>, rng: &mut SmallRng) {
        let mut path: Vec<(u64, usize, usize)> = Vec::new();
        let values = loop {
            if state.is_terminal() {
                break state.returns();
            }
            if state.is_chance_node() {
                let outcome = sample_chance(&state.chance_outcomes(), rng);
                state.apply_action(outcome);
                continue;
            }
            let mover = state.current_player().expect("a decision state");
            let legal = state.legal_actions();
            let key = self.key(&state, mover, observer);
            let Some(node) = self.nodes.get(&key) else {
                let evaluation = evaluator.evaluate(&state, &legal);
                self.nodes.insert(key, Node { children: Vec::new() });
                self.add_children(key, &legal, evaluation.action_values.as_deref());
                break evaluation.values;
            };
            if legal.iter().any(|a| !node.children.iter().any(|c| c.action == *a)) {
                let evaluation = evaluator.evaluate(&state, &legal);
                self.add_children(key, &legal, evaluation.action_values.as_deref());
            }
            let index = self.select(key, &legal);
            path.push((key, index, mover));
            state.apply_action(self.nodes[&key].children[index].action);
        };
        for (key, index, mover) in path {
            let child = &mut self.nodes.get_mut(&key).expect("a node on the path").children[index];
            child.visits += 1;
            child.total += values[mover];
        }
    }

    /// Adds the actions of `legal` the node does not have yet, with priors from `values`.
    fn add_children(&mut self, key: u64, legal: &[S::Action], values: Option<&[f64]>) {
        let priors = values.map(|v| softmax(v, self.settings.prior_temperature));
        let node = self.nodes.get_mut(&key).expect("the node exists");
        for (i, &action) in legal.iter().enumerate() {
            if node.children.iter().any(|c| c.action == action) {
                continue;
            }
            let (prior, first_value) = match (&priors, values) {
                (Some(p), Some(v)) => (p[i], Some(v[i])),
                _ => (1.0 / legal.len() as f64, None),
            };
            node.children.push(Child { action, visits: 0, available: 0, total: 0.0, prior, first_value });
        }
    }

    /// The child to follow among those legal in this world: PUCT when the children have
    /// values from the evaluator, else UCT with every untried child first.
    fn select(&mut self, key: u64, legal: &[S::Action]) -> usize {
        let (c, w) = (self.settings.uct_c, self.settings.prior_weight);
        let node = self.nodes.get_mut(&key).expect("the node exists");
        let mut best = (f64::NEG_INFINITY, 0);
        for (i, child) in node.children.iter_mut().enumerate() {
            if !legal.contains(&child.action) {
                continue;
            }
            child.available += 1;
            let n = child.visits as f64;
            let score = match child.first_value {
                Some(_) => child.mean(w) + c * child.prior * (child.available as f64).sqrt() / (1.0 + n),
                None if child.visits == 0 => f64::INFINITY,
                None => child.mean(w) + c * ((child.available as f64).ln() / n).sqrt(),
            };
            if score > best.0 {
                best = (score, i);
            }
        }
        best.1
    }

    fn result(&self, root: &S, observer: usize, simulations: u32) -> SearchResult<S::Action> {
        let w = self.settings.prior_weight;
        let key = self.key(root, observer, observer);
        let children = &self.nodes.get(&key).expect("the root was expanded").children;
        let candidates: Vec<CandidateStats<S::Action>> =
            children.iter().map(|c| CandidateStats { action: c.action, visits: c.visits, value: c.mean(w) }).collect();
        let better = |a: &CandidateStats<S::Action>, b: &CandidateStats<S::Action>| match self.settings.final_choice {
            FinalChoice::Visits => (a.visits, a.value) > (b.visits, b.value),
            FinalChoice::Value => a.value > b.value,
        };
        let mut best = &candidates[0];
        for c in &candidates[1..] {
            if better(c, best) {
                best = c;
            }
        }
        SearchResult { best: best.action, candidates: candidates.clone(), simulations }
    }
}

fn sample_chance<A: Copy>(outcomes: &[(A, f64)], rng: &mut SmallRng) -> A {
    let mut x: f64 = rng.random();
    for &(a, p) in outcomes {
        if x < p {
            return a;
        }
        x -= p;
    }
    outcomes.last().expect("a chance node has outcomes").0
}

fn softmax(values: &[f64], temperature: f64) -> Vec<f64> {
    let t = temperature.max(1e-6);
    let top = values.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = values.iter().map(|v| ((v - top) / t).exp()).collect();
    let sum: f64 = e.iter().sum();
    e.into_iter().map(|x| x / sum).collect()
}
