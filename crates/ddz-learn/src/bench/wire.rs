//! `ddz bench wire`: the wire formats of a finished game, for actors in other processes. For
//! each option, the bytes per frame and what the learner's side pays per frame (decoding, or
//! replaying the game and encoding its features), on one thread, on the same games.
//!
//! - `bits` and `floats`: the two layouts of [`crate::train::wire`] (features sent).
//! - `record`: the game itself (deal and plays, 2 bytes a play) for the learner to replay and
//!   encode. Its size is counted from the game; its cost is the replay and encoding, timed.

use super::median;
use crate::agents::{Agent, RuleAgent, decide};
use crate::encode::{ACTION_DIM, STATE_DIM, encode_action, encode_state};
use crate::game::{GameConfig, MoveList, Play, Seat, State};
use crate::train::actor::{GameMsg, Learning};
use crate::train::trajectory::{Decision, label};
use crate::train::wire::{self, Layout};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::Serialize;
use std::time::Instant;

/// One way to send a finished game: its size and the cost on each side, per frame.
#[derive(Debug, Clone, Serialize)]
pub struct WireOption {
    /// `bits`, `floats` or `record`.
    pub name: &'static str,
    /// Bytes sent per frame.
    pub bytes_per_frame: f64,
    /// The actor's cost: encoding the message (for `record`, nothing beyond keeping the plays).
    pub actor_ns_per_frame: f64,
    /// The learner's cost: decoding (for `record`, replaying the game and encoding features).
    pub learner_ns_per_frame: f64,
}

/// The wire bench's result: every option, timed on the same games.
#[derive(Debug, Clone, Serialize)]
pub struct WireReport {
    /// Rule self-play games the options were timed on.
    pub games: usize,
    /// Frames (decisions) in those games.
    pub frames: usize,
    /// Timed runs over those games (at least 1).
    pub runs: usize,
    /// Medians over the runs.
    pub options: Vec<WireOption>,
}

/// A game played by the rule agent in every seat, every decision recorded as a learning seat's.
struct Played {
    deal: State,
    plays: Vec<Play>,
    msg: GameMsg,
}

fn play_game(seed: u64, rule: &mut RuleAgent) -> Played {
    let mut state = State::new(GameConfig::default());
    state.deal_random(&mut SmallRng::seed_from_u64(seed));
    let deal = state.clone();
    let (mut legal, mut plays, mut decisions) = (MoveList::new(), Vec::new(), Vec::new());
    while let Some(seat) = state.current_player() {
        state.legal_plays_into(&mut legal);
        let play = legal[decide(rule as &mut dyn Agent, &state, &legal).index];
        decisions.push(features(&state, seat, &play));
        plays.push(play);
        state.apply_play_unchecked(play);
    }
    let landlord_won = state.winner() == state.landlord();
    let frames = label(decisions, &state, &Default::default());
    let msg = GameMsg {
        frames,
        learning: Learning::AllSeats,
        vs_rule: false,
        landlord_won,
        bids: vec![],
        version: 0,
        index: seed,
    };
    Played { deal, plays, msg }
}

fn features(state: &State, seat: Seat, play: &Play) -> Decision {
    let (mut s, mut a) = (vec![0.0; STATE_DIM], vec![0.0; ACTION_DIM]);
    encode_state(state, seat, &mut s);
    encode_action(play, state.hand(seat), &mut a);
    Decision { seat, state: s, action: a, q: None, points: None, hidden: crate::encode::HiddenHands::of(state, seat) }
}

/// Times each option over `games` rule self-play games (seeds `seed..`), `runs` times.
pub fn bench_wire(games: usize, runs: usize, seed: u64) -> WireReport {
    let mut rule = RuleAgent::new();
    let played: Vec<Played> = (0..games as u64).map(|i| play_game(seed + i, &mut rule)).collect();
    let frames: usize = played.iter().map(|p| p.msg.frames.len()).sum();
    let mut samples: Vec<[(f64, f64, f64); 3]> = Vec::new();
    for _ in 0..runs.max(1) {
        let per_frame = |t: Instant| t.elapsed().as_nanos() as f64 / frames.max(1) as f64;
        let mut row = [(0.0, 0.0, 0.0); 3];
        for (k, layout) in [Layout::Bits, Layout::Floats].into_iter().enumerate() {
            let t = Instant::now();
            let encoded: Vec<Vec<u8>> = played
                .iter()
                .map(|p| {
                    let mut b = Vec::new();
                    wire::encode(&p.msg, layout, &mut b);
                    b
                })
                .collect();
            let actor = per_frame(t);
            let t = Instant::now();
            let decoded =
                encoded.iter().map(|b| wire::decode(b).expect("our own bytes decode").frames.len()).sum::<usize>();
            let learner = per_frame(t);
            assert_eq!(decoded, frames);
            let bytes = encoded.iter().map(|b| b.len()).sum::<usize>() as f64 / frames.max(1) as f64;
            row[k] = (bytes, actor, learner);
        }
        row[2] = time_record(&played, frames);
        samples.push(row);
    }
    let names = ["bits", "floats", "record"];
    let options = (0..3)
        .map(|k| WireOption {
            name: names[k],
            bytes_per_frame: median(samples.iter().map(|r| r[k].0).collect()),
            actor_ns_per_frame: median(samples.iter().map(|r| r[k].1).collect()),
            learner_ns_per_frame: median(samples.iter().map(|r| r[k].2).collect()),
        })
        .collect();
    WireReport { games, frames, runs: runs.max(1), options }
}

/// The record option: its size (header, 54 dealt cards, 2 bytes a play) and the learner's
/// replay of every game with the features of every decision encoded again.
fn time_record(played: &[Played], frames: usize) -> (f64, f64, f64) {
    let bytes: usize = played.iter().map(|p| wire::header_bytes() + 54 + 2 * p.plays.len()).sum();
    let t = Instant::now();
    let mut replayed = 0;
    for p in played {
        let mut state = p.deal.clone();
        for play in &p.plays {
            // A record that ends early shows in the count checked below.
            let Some(seat) = state.current_player() else { break };
            std::hint::black_box(features(&state, seat, play));
            state.apply_play_unchecked(*play); // recorded from the legal plays
            replayed += 1;
        }
    }
    assert_eq!(replayed, frames);
    let learner = t.elapsed().as_nanos() as f64 / frames.max(1) as f64;
    (bytes as f64 / frames.max(1) as f64, 0.0, learner)
}
