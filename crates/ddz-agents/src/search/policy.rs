//! What search asks of the players it models, as traits: a [`Policy`] (a network's Q of many
//! decisions in one batch, and its greedy play) shortlists plays, values leaves and plays out
//! rollouts; an [`OpponentModel`] (any player that picks a play) plays the other side in
//! rollouts and weighs worlds by how well it explains their plays. The agents layer implements
//! both; nothing here names an agent.

use ddz_engine::game::{MoveList, Play, Seat, State};

/// A network as search uses it: Q values of the plays at a decision, and its greedy play.
pub trait Policy {
    /// Q of every play (in order) for the player to act at `state`.
    fn q_values(&mut self, state: &State, plays: &[Play]) -> Vec<f32>;
    /// Q of every play of several decisions (each for its player to act) in one batch:
    /// batching is what makes many rollouts and replays affordable.
    fn q_values_many(&mut self, decisions: &[(&State, &[Play])]) -> Vec<Vec<f32>>;
    /// The play the policy makes at one decision (an index into `plays`).
    fn greedy(&mut self, state: &State, plays: &[Play]) -> usize;
    /// [`Policy::greedy`] at each of several decisions, in one batch.
    fn greedy_many(&mut self, decisions: &[(&State, &[Play])]) -> Vec<usize>;
    /// The indices of the `top` plays of best Q (at least one), best first; equal Q keep the
    /// order of `plays`.
    fn best_plays(&mut self, state: &State, plays: &[Play], top: usize) -> Vec<usize> {
        let q = self.q_values(state, plays);
        let mut order: Vec<usize> = (0..plays.len()).collect();
        order.sort_by(|&a, &b| q[b].total_cmp(&q[a]));
        order.truncate(top.max(1));
        order
    }
}

/// A player as search models it: the play it makes at a decision. A deterministic model (the
/// rule agent, a network's greedy play) also weighs worlds ([`super::belief`]): a world where it
/// would have played otherwise than the record says is less likely.
pub trait OpponentModel {
    /// The index, among `plays` (the legal plays of the player to act at `state`, never
    /// empty), of the play the modelled player makes; an index out of range counts as the
    /// first play, as in the game loop.
    fn pick(&mut self, state: &State, plays: &[Play]) -> usize;
}

/// A policy as an opponent model: its greedy play (a forced play without asking it).
pub struct Greedy<'a>(pub &'a mut dyn Policy);

impl OpponentModel for Greedy<'_> {
    fn pick(&mut self, state: &State, plays: &[Play]) -> usize {
        if plays.len() == 1 {
            return 0;
        }
        self.0.greedy(state, plays)
    }
}

/// Index of the largest value (the first on ties).
pub fn argmax<T: PartialOrd>(values: &[T]) -> usize {
    let mut best = 0;
    for (i, v) in values.iter().enumerate() {
        if v > &values[best] {
            best = i;
        }
    }
    best
}

/// Plays every world to the end with `policy` greedy in every seat, except that with
/// `opponents = Some((seat, model))` the seats on the other side from `seat` are played by
/// `model`; all the policy's decisions of a round go in one batch. The returns of each world.
pub fn rollouts(
    policy: &mut dyn Policy,
    mut worlds: Vec<State>,
    mut opponents: Option<(Seat, &mut dyn OpponentModel)>,
) -> Vec<[f64; 3]> {
    let mut plays: Vec<MoveList> = worlds.iter().map(|_| MoveList::new()).collect();
    loop {
        let live: Vec<usize> = (0..worlds.len()).filter(|&i| !worlds[i].is_terminal()).collect();
        if live.is_empty() {
            return worlds.iter().map(|w| w.returns()).collect();
        }
        for &i in &live {
            worlds[i].legal_plays_into(&mut plays[i]);
        }
        let mut pick = vec![0; worlds.len()];
        // Forced plays need no network, nor do the opponents' plays.
        let mut asked = Vec::with_capacity(live.len());
        for &i in live.iter().filter(|&&i| plays[i].len() > 1) {
            let world = &worlds[i];
            match &mut opponents {
                Some((seat, model)) if world.current_player().is_some_and(|m| !world.same_side(m, *seat)) => {
                    pick[i] = model.pick(world, &plays[i]);
                }
                _ => asked.push(i),
            }
        }
        let decisions: Vec<(&State, &[Play])> = asked.iter().map(|&i| (&worlds[i], &plays[i][..])).collect();
        if !decisions.is_empty() {
            for (choice, &i) in policy.greedy_many(&decisions).into_iter().zip(&asked) {
                pick[i] = choice;
            }
        }
        for &i in &live {
            let play = plays[i].get(pick[i]).copied().unwrap_or(plays[i][0]);
            worlds[i].apply_play_unchecked(play);
        }
    }
}

/// A shorter borrow of an optional opponent model, to lend it to one call after another (an
/// `Option::as_deref_mut` would keep the model's own lifetime, which `&mut` cannot shorten).
pub(super) fn lend<'a>(model: &'a mut Option<&mut dyn OpponentModel>) -> Option<&'a mut dyn OpponentModel> {
    match model {
        Some(m) => Some(&mut **m),
        None => None,
    }
}
