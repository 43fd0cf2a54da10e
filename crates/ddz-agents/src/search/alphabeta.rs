//! Depth-limited alpha-beta over one world of Dou Dizhu (all hands known in that world): the
//! landlord maximises its value, the farmers minimise it, and at the depth limit an
//! [`Evaluator`] (the network's value from the mover's seat, or a hand-shape heuristic) stands
//! in for the rest of the game. Plays are ordered by the evaluator's action values when it has
//! them, else larger plays first, and only the `top` best are searched at each node.
//!
//! The search itself sees the whole world it is given; an honest agent gives it worlds drawn
//! from its own seat's information ([`ddz_engine::game::State::resample_from_infostate`]).

use super::average::WorldMeans;
use super::evaluator::Evaluator;
use ddz_engine::game::{Action, ActionTable, Seat, State};
use rand::RngExt;
use rand::rngs::SmallRng;
use std::time::Instant;

/// How deep and how wide alpha-beta searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlphaBetaSettings {
    /// Plies searched below the position (a ply is one player's play or pass).
    pub depth: u32,
    /// Plays searched at each node, best first; 0 = all.
    pub top: usize,
}

impl Default for AlphaBetaSettings {
    fn default() -> Self {
        AlphaBetaSettings { depth: 2, top: 4 }
    }
}

/// A depth-limited alpha-beta search over one world, valued by an evaluator at the frontier.
pub struct AlphaBeta<'e> {
    /// The depth and width of each search.
    pub settings: AlphaBetaSettings,
    evaluator: &'e mut dyn Evaluator<State>,
    /// Positions visited in the last search.
    pub nodes: u64,
    /// A search past this moment gives up ([`AlphaBeta::values_within`]).
    deadline: Option<Instant>,
    timed_out: bool,
}

/// Positions between two looks at the clock.
const CLOCK_EVERY: u64 = 16;

impl<'e> AlphaBeta<'e> {
    /// A search with `settings` that values its frontier with `evaluator`; no deadline.
    pub fn new(settings: AlphaBetaSettings, evaluator: &'e mut dyn Evaluator<State>) -> AlphaBeta<'e> {
        AlphaBeta { settings, evaluator, nodes: 0, deadline: None, timed_out: false }
    }

    /// The searches of [`AlphaBeta::values_within`] give up once `deadline` has passed.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> AlphaBeta<'e> {
        self.deadline = deadline;
        self
    }

    /// [`AlphaBeta::values_after`], or `None` when the deadline passed before the search ended
    /// (its values would be partial).
    pub fn values_within(&mut self, world: &State, actions: &[Action]) -> Option<Vec<f64>> {
        self.timed_out = false;
        let values = self.values_after(world, actions);
        (!self.timed_out).then_some(values)
    }

    /// The values of the deepest search of depth 1, 2, … up to the settings' depth that ends
    /// before the deadline (depth 1, the evaluator's value of each action, always ends), and
    /// that depth: what a time budget can answer with in any position.
    pub fn deepening_values(&mut self, world: &State, actions: &[Action]) -> (Vec<f64>, u32) {
        let full = self.settings.depth;
        let deadline = self.deadline.take();
        self.settings.depth = 1;
        let mut best = (self.values_after(world, actions), 1);
        self.deadline = deadline;
        for depth in 2..=full {
            self.settings.depth = depth;
            match self.values_within(world, actions) {
                Some(values) => best = (values, depth),
                None => break,
            }
        }
        self.settings.depth = full;
        best
    }

    /// The mean value for `seat`'s side (the player to act at `state`) of each of `actions`
    /// over up to `worlds` worlds drawn from `seat`'s information with `rng`, one after the
    /// other. Without a deadline every world is searched to the full depth. With one, the
    /// first world deepens as far as the deadline allows (so there is always an answer), and a
    /// later world the deadline cuts short is left out, as are the worlds after it.
    pub fn mean_values(
        &mut self,
        state: &State,
        seat: Seat,
        actions: &[Action],
        worlds: usize,
        rng: &mut SmallRng,
    ) -> Vec<f64> {
        let landlord_side = Some(seat) == state.landlord();
        let mut means = WorldMeans::new(actions.len());
        while means.worlds() < worlds.max(1)
            && (means.worlds() == 0 || self.deadline.is_none_or(|d| Instant::now() < d))
        {
            let world = state.resample_from_infostate(seat, &mut || rng.random());
            let values = match (self.deadline, means.worlds()) {
                (None, _) => self.values_after(&world, actions),
                (Some(_), 0) => self.deepening_values(&world, actions).0,
                (Some(_), _) => match self.values_within(&world, actions) {
                    Some(values) => values,
                    None => break,
                },
            };
            means.add(values.into_iter().map(|v| if landlord_side { v } else { -v }), 1);
        }
        means.means().unwrap_or_else(|| vec![0.0; actions.len()])
    }

    /// The landlord's value of the world after each of `actions` (legal in `world`), searched
    /// `depth - 1` plies further.
    pub fn values_after(&mut self, world: &State, actions: &[Action]) -> Vec<f64> {
        let depth = self.settings.depth.saturating_sub(1);
        actions
            .iter()
            .map(|&a| {
                let mut next = world.clone();
                next.apply_action(a); // the caller's actions are legal at `world`
                self.value(&next, depth, f64::NEG_INFINITY, f64::INFINITY)
            })
            .collect()
    }

    /// The landlord's value of `state` searched `depth` plies, within the window (alpha, beta).
    pub fn value(&mut self, state: &State, depth: u32, mut alpha: f64, mut beta: f64) -> f64 {
        self.nodes += 1;
        if !self.timed_out && self.nodes.is_multiple_of(CLOCK_EVERY) {
            self.timed_out = self.deadline.is_some_and(|d| Instant::now() >= d);
        }
        if self.timed_out {
            return 0.0; // the search is given up: its values are thrown away
        }
        let landlord = state.landlord().expect("search runs after the landlord is known");
        if state.is_terminal() {
            return state.returns()[landlord];
        }
        let legal = state.legal_actions();
        if depth == 0 {
            return self.evaluator.evaluate(state, &legal).values[landlord.index()];
        }
        let maximise = state.current_player() == Some(landlord);
        let values = self.evaluator.action_order(state, &legal);
        let order = ordered(&legal, values.as_deref(), self.settings.top);
        let mut best = if maximise { f64::NEG_INFINITY } else { f64::INFINITY };
        for i in order {
            let mut next = state.clone();
            next.apply_action_unchecked(legal[i]);
            let v = self.value(&next, depth - 1, alpha, beta);
            if maximise {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }
}

/// Indices of `legal`, best first by `values` (else by cards played, passing last), cut to `top`.
pub fn ordered(legal: &[Action], values: Option<&[f64]>, top: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..legal.len()).collect();
    match values {
        Some(v) => order.sort_by(|&a, &b| v[b].total_cmp(&v[a])),
        None => {
            let table = ActionTable::get();
            let size = |a: &Action| match a {
                Action::Play(id) => table.play(*id).cards.len() as i64,
                _ => 0,
            };
            order.sort_by_key(|&i| -size(&legal[i]));
        }
    }
    if top > 0 {
        order.truncate(top);
    }
    order
}
