//! Perfect-information Monte Carlo scoring: candidate plays scored in worlds drawn from what the
//! seat knows ([`super::belief`]). When few enough cards are left a play's score in a world is
//! exact (the open-hand solver: won or lost); before that it is the seat's result of the game
//! played out by the policy in every seat, or by an opponent model on the other side (all the
//! rollouts of a batch of worlds through the policy together).
//!
//! It never reads a card the seat could not see: the worlds come from the seat's information
//! and the caller's seeded draws only.

use super::average::WorldMeans;
use super::belief::{Belief, draw_worlds};
use super::budget::Budget;
use super::policy::{OpponentModel, Policy, lend, rollouts};
use super::solver::{Position, Solver};
use ddz_engine::game::{Play, Role, Seat, State};
use rand::rngs::SmallRng;
use std::time::Instant;

/// How PIMC draws and scores its worlds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PimcSearch {
    /// Worlds drawn per decision, and a time past which no further world is scored.
    pub budget: Budget,
    /// Solve exactly when at most this many cards are left in all three hands (0 = never).
    pub cards: u32,
    /// Positions the solver may search per play and world; a play it cannot finish counts as
    /// a loss in that world.
    pub max_nodes: u64,
    /// How the worlds are drawn and weighed.
    pub belief: Belief,
}

/// Worlds rolled out per batch through the policy; also how often the solver starts afresh.
const BATCH: usize = 8;

impl PimcSearch {
    /// The mean score of each candidate (plays legal for `seat`, the player to act at `state`)
    /// over the drawn worlds, for `seat`'s side; `opponents` models the other side, in the
    /// worlds' weights and in rollouts (`None`: the policy plays it). Rollouts score eight
    /// worlds at a time, the solver one; the budget's time stops the drawing and weighing of
    /// worlds at half of it, the scoring between batches and inside a solve, and a world it
    /// cuts short is left out. When it leaves no world scored, the scores
    /// keep the candidates' order ([`in_order`]): the best answer known by then.
    pub fn scores(
        &self,
        policy: &mut dyn Policy,
        mut opponents: Option<&mut dyn OpponentModel>,
        state: &State,
        seat: Seat,
        candidates: &[Play],
        rng: &mut SmallRng,
    ) -> Vec<f64> {
        let started = Instant::now();
        let n = self.budget.units();
        // Drawing and weighing take half the time at most, so that scoring has the rest.
        let drawing = self.budget.drawing_deadline(started);
        let worlds = draw_worlds(policy, state, seat, n, self.belief, lend(&mut opponents), drawing, rng);
        self.scores_in(policy, opponents, &worlds, seat, candidates, started)
    }

    /// [`PimcSearch::scores`] over `worlds` given by the caller, the budget's time counted
    /// from `started`. Whatever the worlds show is read: only a caller that may see those
    /// hands passes them (the drawn worlds of [`PimcSearch::scores`], or the one true world of
    /// an agent named `cheat`).
    pub fn scores_in(
        &self,
        policy: &mut dyn Policy,
        mut opponents: Option<&mut dyn OpponentModel>,
        worlds: &[State],
        seat: Seat,
        candidates: &[Play],
        started: Instant,
    ) -> Vec<f64> {
        let deadline = self.budget.deadline(started);
        let late = || deadline.is_some_and(|d| Instant::now() >= d);
        let Some(first) = worlds.first() else { return in_order(candidates.len()) };
        let exact = Seat::ALL.iter().map(|&p| first.hand(p).len()).sum::<u32>() <= self.cards;
        let mut means = WorldMeans::new(candidates.len());
        let mut solver = Solver::new();
        for batch in worlds.chunks(if exact { 1 } else { BATCH }) {
            if late() {
                break;
            }
            if means.worlds().is_multiple_of(BATCH) {
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
                rolled(policy, lend(&mut opponents), batch.to_vec(), candidates, seat)
            };
            means.add(part, batch.len());
        }
        means.means().unwrap_or_else(|| in_order(candidates.len()))
    }

    /// +1 for each candidate that wins `world` (solved exactly), −1 for one that loses or the
    /// node budget gives up on; `None` when the time budget ran out before the world was done.
    fn solved(&self, solver: &mut Solver, world: &State, candidates: &[Play]) -> Option<Vec<f64>> {
        let mut scores = vec![0.0; candidates.len()];
        let Some(pos) = Position::of_state(world) else { return Some(scores) };
        let landlord_side = pos.to_move == Role::Landlord;
        for (k, &play) in candidates.iter().enumerate() {
            let after = pos.after(play);
            let won = match after.winner() {
                Some(w) => (w == Role::Landlord) == landlord_side,
                None => {
                    let value = solver.landlord_wins_within(&after, self.max_nodes);
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
}

/// Scores that keep `n` candidates in their given order, the first best.
pub fn in_order(n: usize) -> Vec<f64> {
    (0..n).map(|k| -(k as f64)).collect()
}

/// `seat`'s returns summed over the worlds, each candidate played and the game played out by
/// the policy (the other side by `opponents` when given).
fn rolled(
    policy: &mut dyn Policy,
    opponents: Option<&mut dyn OpponentModel>,
    worlds: Vec<State>,
    candidates: &[Play],
    seat: Seat,
) -> Vec<f64> {
    let mut starts = Vec::with_capacity(worlds.len() * candidates.len());
    for world in &worlds {
        for &play in candidates {
            let mut next = world.clone();
            // The seat's hand and the play to beat are the same in every world it cannot tell
            // apart, so a candidate legal at the decision is legal in each world.
            next.apply_play(play);
            starts.push(next);
        }
    }
    let mut totals = vec![0.0; candidates.len()];
    for (i, returns) in rollouts(policy, starts, opponents.map(|m| (seat, m))).into_iter().enumerate() {
        totals[i % candidates.len()] += returns[seat];
    }
    totals
}
