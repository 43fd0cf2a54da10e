//! Actor threads: self-play against frozen snapshots, several games at once so that their
//! decisions share one forward pass.
//!
//! In each game either every seat plays the current weights (a `self_play_share` of games), or
//! one side does — the landlord or the farmers, alternately by game index — against a frozen
//! snapshot drawn from the pool, or (a `rule_share` of games, none by default) against the rule
//! agent. Only the current-weights seats learn; they explore, the frozen seats play greedily.

use super::config::{Exploration, TrainConfig};
use super::pool::Pool;
use super::trajectory::{Decision, Frame, label};
use crate::encode::{ACTION_DIM, STATE_DIM, encode_action, encode_state};
use crate::game::{GameConfig, MoveList, Play, State};
use crate::model::{QNet, Weights};
use crossbeam_channel::Sender;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

/// What the learner shares with the actors.
pub struct Shared {
    /// The newest published weights.
    pub weights: Mutex<Arc<Weights>>,
    pub version: AtomicU64,
    pub pool: RwLock<Pool>,
    pub stop: AtomicBool,
    /// Index of the next game to deal (deal seed = (run seed, index)).
    pub next_game: AtomicU64,
    /// Frames learned so far (anneals the softmax temperature).
    pub frames: AtomicU64,
}

impl Shared {
    pub fn publish(&self, weights: Weights) {
        let version = weights.version;
        *self.weights.lock().unwrap() = Arc::new(weights);
        self.version.store(version, Ordering::Release);
    }
}

/// Which side learns in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learning {
    AllSeats,
    Landlord,
    Farmers,
}

/// A finished game as the learner sees it.
#[derive(Debug)]
pub struct GameMsg {
    pub frames: Vec<Frame>,
    pub learning: Learning,
    /// The side that did not learn was the rule agent.
    pub vs_rule: bool,
    pub landlord_won: bool,
}

/// Who plays the seats that do not learn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opponent {
    /// A frozen snapshot, by its pool step.
    Snapshot(u64),
    Rule,
}

/// The deal seed of game `index` in a run.
pub fn game_seed(run_seed: u64, index: u64) -> u64 {
    // splitmix64 of the pair: nearby indices give unrelated deals.
    let mut z = run_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_add(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Slot {
    state: State,
    learning: Learning,
    /// Unused when all seats learn.
    opponent: Opponent,
    decisions: Vec<Decision>,
}

impl Slot {
    /// The network that decides for `seat`; only for seats the rule agent does not play.
    fn net_key(&self, seat: u8) -> NetKey {
        match (self.seat_learns(seat), self.opponent) {
            (true, _) => None,
            (false, Opponent::Snapshot(step)) => Some(step),
            (false, Opponent::Rule) => unreachable!("the rule agent chose before the forward passes"),
        }
    }

    fn seat_learns(&self, seat: u8) -> bool {
        let landlord = self.state.landlord() == Some(seat);
        match self.learning {
            Learning::AllSeats => true,
            Learning::Landlord => landlord,
            Learning::Farmers => !landlord,
        }
    }
}

/// Which network decides: the learner's (`None`) or a frozen snapshot (its pool step).
type NetKey = Option<u64>;

/// Runs one actor until `shared.stop` is set or the learner hangs up.
pub fn run_actor(actor: usize, cfg: &TrainConfig, shared: Arc<Shared>, tx: Sender<GameMsg>) {
    crate::runtime::configure_threads(1);
    let game_config = GameConfig { scoring: cfg.reward.scoring, ..GameConfig::default() };
    let start_index = shared.next_game.load(Ordering::Relaxed);
    let mut rng = SmallRng::seed_from_u64(game_seed(cfg.run.seed ^ 0xAC70, start_index + actor as u64 * 7919));
    let mut net = QNet::new(&cfg.model, tch::Device::Cpu);
    let mut version = u64::MAX;
    // Frozen nets by pool step; at most the current opponent and the previous one in use.
    let mut frozen: Vec<(u64, QNet)> = Vec::new();
    let mut opponent: u64 = 0;
    let mut games_since_draw = u64::MAX;
    let mut rule = crate::agents::rule::RuleAgent::new();

    let mut slots: Vec<Slot> = Vec::new();
    let mut plays: Vec<MoveList> = Vec::new();
    let mut state_buf: Vec<f32> = Vec::new();
    let mut action_buf: Vec<f32> = Vec::new();
    let mut owner: Vec<i64> = Vec::new();
    let mut chosen: Vec<Option<usize>> = Vec::new();

    while !shared.stop.load(Ordering::Relaxed) {
        // Newest weights.
        let v = shared.version.load(Ordering::Acquire);
        if v != version {
            let w = shared.weights.lock().unwrap().clone();
            net.import(&w).expect("published weights fit the actor's network");
            version = w.version;
        }
        // Fill empty slots with new games, redrawing the opponent when due.
        while slots.len() < cfg.actors.games_in_flight {
            if games_since_draw >= cfg.pool.redraw_every_games {
                let pool = shared.pool.read().unwrap();
                let entry = pool.sample(rng.random::<f64>()).expect("the pool always holds a snapshot");
                opponent = entry.step;
                if !frozen.iter().any(|(s, _)| *s == opponent) {
                    let mut n = QNet::new(&cfg.model, tch::Device::Cpu);
                    n.import(&entry.weights).expect("pool weights fit the actor's network");
                    frozen.push((opponent, n));
                }
                games_since_draw = 0;
            }
            let index = shared.next_game.fetch_add(1, Ordering::Relaxed);
            let mut state = State::new(game_config.clone());
            state.deal_random(&mut SmallRng::seed_from_u64(game_seed(cfg.run.seed, index)));
            let u = rng.random::<f64>();
            let learning = if u < cfg.pool.self_play_share {
                Learning::AllSeats
            } else if index % 2 == 0 {
                Learning::Landlord
            } else {
                Learning::Farmers
            };
            let against = if u >= cfg.pool.self_play_share && u < cfg.pool.self_play_share + cfg.pool.rule_share {
                Opponent::Rule
            } else {
                Opponent::Snapshot(opponent)
            };
            slots.push(Slot { state, learning, opponent: against, decisions: Vec::new() });
            games_since_draw += 1;
        }
        frozen.retain(|(s, _)| {
            *s == opponent || slots.iter().any(|sl| sl.learning != Learning::AllSeats && sl.opponent == Opponent::Snapshot(*s))
        });

        // Legal plays of every game's current player.
        plays.resize_with(slots.len(), MoveList::new);
        chosen.clear();
        chosen.resize(slots.len(), None);
        for (i, slot) in slots.iter().enumerate() {
            slot.state.legal_plays_into(&mut plays[i]);
            assert!(!plays[i].is_empty(), "empty legal mask: a bug in the engine, state {}", slot.state.to_json());
            let seat = slot.state.current_player().unwrap();
            if plays[i].len() == 1 {
                chosen[i] = Some(0);
            } else if !slot.seat_learns(seat) && slot.opponent == Opponent::Rule {
                chosen[i] = Some(crate::agents::Agent::choose(&mut rule, &slot.state, &plays[i]));
            }
        }
        // One batched forward pass per network.
        let mut keys: Vec<NetKey> = Vec::new();
        for (i, slot) in slots.iter().enumerate() {
            if chosen[i].is_none() {
                let seat = slot.state.current_player().unwrap();
                let key = slot.net_key(seat);
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
        }
        for key in keys {
            state_buf.clear();
            action_buf.clear();
            owner.clear();
            let mut members = Vec::new();
            for (i, slot) in slots.iter().enumerate() {
                if chosen[i].is_some() {
                    continue;
                }
                let seat = slot.state.current_player().unwrap();
                let k = slot.net_key(seat);
                if k != key {
                    continue;
                }
                let b = members.len();
                members.push(i);
                let at = state_buf.len();
                state_buf.resize(at + STATE_DIM, 0.0);
                encode_state(&slot.state, seat, &mut state_buf[at..]);
                let hand = slot.state.hand(seat);
                for p in plays[i].iter() {
                    let at = action_buf.len();
                    action_buf.resize(at + ACTION_DIM, 0.0);
                    encode_action(p, hand, &mut action_buf[at..]);
                    owner.push(b as i64);
                }
            }
            let q = match key {
                None => net.q_values(&state_buf, &action_buf, &owner),
                Some(step) => frozen.iter().find(|(s, _)| *s == step).unwrap().1.q_values(&state_buf, &action_buf, &owner),
            };
            let mut offset = 0;
            for (b, &i) in members.iter().enumerate() {
                let n = plays[i].len();
                let qs = &q[offset..offset + n];
                let pick = if key.is_none() { explore(qs, cfg, &shared, &mut rng) } else { crate::agents::model::argmax(qs) };
                chosen[i] = Some(pick);
                if key.is_none() {
                    // A learned decision: keep the features just encoded rather than encode again.
                    let row = offset + pick;
                    let seat = slots[i].state.current_player().unwrap();
                    slots[i].decisions.push(Decision {
                        seat,
                        state: state_buf[b * STATE_DIM..(b + 1) * STATE_DIM].to_vec(),
                        action: action_buf[row * ACTION_DIM..(row + 1) * ACTION_DIM].to_vec(),
                        q: Some(qs[pick]),
                    });
                }
                offset += n;
            }
        }
        // Record learned decisions, apply, and ship finished games.
        let mut i = 0;
        while i < slots.len() {
            let slot = &mut slots[i];
            let play: Play = plays[i][chosen[i].unwrap()];
            let seat = slot.state.current_player().unwrap();
            // Learned decisions with a choice were recorded with the forward pass; forced ones here.
            if slot.seat_learns(seat) && plays[i].len() == 1 {
                let mut st = vec![0.0; STATE_DIM];
                encode_state(&slot.state, seat, &mut st);
                let mut a = vec![0.0; ACTION_DIM];
                encode_action(&play, slot.state.hand(seat), &mut a);
                slot.decisions.push(Decision { seat, state: st, action: a, q: None });
            }
            slot.state.apply_play(play).expect("generated plays are legal");
            if slot.state.is_terminal() {
                let done = slots.swap_remove(i);
                plays.swap_remove(i);
                chosen.swap_remove(i);
                let landlord_won = done.state.winner() == done.state.landlord();
                let frames = label(done.decisions, &done.state, &cfg.reward);
                let vs_rule = done.learning != Learning::AllSeats && done.opponent == Opponent::Rule;
                if tx.send(GameMsg { frames, learning: done.learning, vs_rule, landlord_won }).is_err() {
                    return; // the learner is gone
                }
                continue;
            }
            i += 1;
        }
    }
}

/// The learning seat's choice: ε-greedy or softmax over Q.
fn explore(q: &[f32], cfg: &TrainConfig, shared: &Shared, rng: &mut SmallRng) -> usize {
    match cfg.actors.exploration {
        Exploration::Epsilon => {
            if rng.random::<f64>() < cfg.actors.epsilon {
                rng.random_range(0..q.len())
            } else {
                crate::agents::model::argmax(q)
            }
        }
        Exploration::Softmax => {
            let a = &cfg.actors;
            let progress = (shared.frames.load(Ordering::Relaxed) as f64 / a.temperature_anneal_frames.max(1) as f64).min(1.0);
            let t = a.temperature_start + (a.temperature_end - a.temperature_start) * progress;
            let max = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let weights: Vec<f64> = q.iter().map(|&x| (((x - max) as f64) / t).exp()).collect();
            let total: f64 = weights.iter().sum();
            let mut u = rng.random::<f64>() * total;
            for (i, w) in weights.iter().enumerate() {
                u -= w;
                if u <= 0.0 {
                    return i;
                }
            }
            q.len() - 1
        }
    }
}
