//! Worlds weighted by what the other players did. A world drawn uniformly from a seat's
//! information ignores that a farmer who passed could perhaps not beat the play, or that a
//! landlord who led a pair of 3s probably holds no lone 3: this draws more worlds than needed,
//! weighs each by how likely the network finds every past play of the other two seats in it
//! (the product of a softmax over its Q at each of their decisions, all decisions of all worlds
//! in one batch), and keeps worlds drawn by weight.
//!
//! Only the seat's information goes in: the worlds come from `resample_from_infostate`, and the
//! plays weighed are the public record.

use super::ModelAgent;
use crate::game::{MoveList, Play, State};
use rand::RngExt;
use rand::rngs::SmallRng;

/// `n` worlds for the current player of `state`: `n × oversample` drawn uniformly, `n` of them
/// kept by their weight at `temperature` (uniform draws when the temperature is 0 or the game
/// had bidding, which these replays do not redo).
pub fn draw_worlds(
    net: &mut ModelAgent,
    state: &State,
    n: usize,
    oversample: usize,
    temperature: f64,
    rng: &mut SmallRng,
) -> Vec<State> {
    let seat = state.current_player().expect("a decision");
    let uniform = |k: usize, rng: &mut SmallRng| -> Vec<State> {
        (0..k).map(|_| state.resample_from_infostate(seat, &mut || rng.random::<f64>())).collect()
    };
    if temperature <= 0.0 || oversample <= 1 || state.config().bidding {
        return uniform(n, rng);
    }
    let pool = uniform(n * oversample, rng);
    let log_weights = log_likelihoods(net, &pool, seat, temperature);
    let top = log_weights.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = log_weights.iter().map(|w| (w - top).exp()).collect();
    let total: f64 = weights.iter().sum();
    (0..n)
        .map(|_| {
            let mut x = rng.random::<f64>() * total;
            let mut pick = weights.len() - 1;
            for (i, w) in weights.iter().enumerate() {
                if x < *w {
                    pick = i;
                    break;
                }
                x -= w;
            }
            pool[pick].clone()
        })
        .collect()
}

/// For each world, the log-probability of the other seats' past plays under a softmax of the
/// network's Q at `temperature`.
fn log_likelihoods(net: &mut ModelAgent, worlds: &[State], seat: u8, temperature: f64) -> Vec<f64> {
    // Every past decision of the other seats with a choice, in every world: (world, state, plays, taken).
    let mut asked: Vec<(usize, State, MoveList, usize)> = Vec::new();
    for (w, world) in worlds.iter().enumerate() {
        let mut past = State::new(world.config().clone());
        past.deal_hands([world.dealt_cards(0), world.dealt_cards(1), world.dealt_cards(2)], world.bottom())
            .expect("a world's deal is a deal");
        let mut plays = MoveList::new();
        for record in world.play_record() {
            past.legal_plays_into(&mut plays);
            if record.seat != seat && plays.len() > 1 {
                let taken = plays.iter().position(|p| *p == record.play).expect("a recorded play was legal");
                asked.push((w, past.clone(), plays.clone(), taken));
            }
            past.apply_play(record.play).expect("a recorded play applies");
        }
    }
    let mut log_w = vec![0.0; worlds.len()];
    for chunk in asked.chunks(512) {
        let decisions: Vec<(&State, &[Play])> = chunk.iter().map(|(_, s, p, _)| (s, &p[..])).collect();
        for ((w, _, _, taken), q) in chunk.iter().zip(net.q_values_many(&decisions)) {
            log_w[*w] += log_softmax(&q, *taken, temperature);
        }
    }
    log_w
}

fn log_softmax(q: &[f32], i: usize, temperature: f64) -> f64 {
    let scaled: Vec<f64> = q.iter().map(|&v| v as f64 / temperature).collect();
    let top = scaled.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = scaled.iter().map(|v| (v - top).exp()).sum();
    scaled[i] - top - sum.ln()
}
