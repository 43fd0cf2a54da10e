//! `VecEnv`: N games stepped in Rust per call, batched numpy arrays out, no Python loop per game.
//!
//! The learner plays one seat in every game; the other two seats are rule or random agents that
//! play inside `step` until the learner is to act again. In self-play (`seat="all"`) the learner
//! makes every decision of every seat and `seats` says whose each row is. A finished game is reset at once: the
//! k-th game the environment deals (counting every environment's games, in environment order at
//! construction and at `reset`, then in the order they finish) is dealt from `seed + k`, exactly
//! as `Game.new_dealt_state(seed + k)` deals.
//!
//! The legal plays come as masks over the action table (`legal="mask"`), or as candidate lists
//! (`legal="ids"`: an int32 array `[n, k]` of play ids, padded with −1, k the longest list of
//! the batch), which is much smaller: a mask row is 27,472 bytes, a game has a few dozen plays.

use crate::spiel::{Game, dealt, value_error};
use ddz::agents::{Agent, RandomAgent, RuleAgent};
use ddz::encode::{STATE_DIM, encode_state};
use ddz::game::{ActionId, ActionTable, GameConfig, MoveList, NUM_ACTIONS, Play, Role, State};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;

/// Which seat the learner takes in each new game.
#[derive(Clone, Copy)]
enum SeatChoice {
    Fixed(u8),
    /// Seat `k % 3` for the k-th game dealt.
    Rotate,
    /// Every seat: self-play, no opponents; each row is the decision of the seat to act.
    All,
}

/// An opponent: concrete types, so that the environment is `Sync` as pyo3 requires.
enum Opponent {
    Rule(RuleAgent),
    Random(RandomAgent),
}

impl Opponent {
    fn agent(&mut self) -> &mut dyn Agent {
        match self {
            Opponent::Rule(a) => a,
            Opponent::Random(a) => a,
        }
    }
}

/// One game, with the learner's legal plays once it is the learner's turn.
struct Slot {
    state: State,
    seat: u8,
    legal: MoveList,
}

/// Batched games for a learner (see the module docs).
#[pyclass(module = "ddz._ddz")]
pub struct VecEnv {
    config: GameConfig,
    seat: SeatChoice,
    /// One agent per seat.
    opponents: Vec<Opponent>,
    slots: Vec<Slot>,
    seed: u64,
    dealt: u64,
    masks: bool,
}

/// The opponents play until the learner is to act or the game is over; then the learner's
/// legal plays are kept in the slot. In self-play the learner is whoever is to act.
fn play_opponents(opponents: &mut [Opponent], slot: &mut Slot, self_play: bool) {
    if self_play && let Some(p) = slot.state.current_player() {
        slot.seat = p;
    }
    while let Some(p) = slot.state.current_player().filter(|&p| p != slot.seat) {
        slot.state.legal_plays_into(&mut slot.legal);
        let k = opponents[p as usize].agent().choose(&slot.state, &slot.legal).min(slot.legal.len() - 1);
        slot.state.apply_play(slot.legal[k]).expect("a legal play applies");
    }
    slot.state.legal_plays_into(&mut slot.legal);
}

impl VecEnv {
    fn new_game(&mut self) -> Slot {
        let k = self.dealt;
        self.dealt += 1;
        let seat = match self.seat {
            SeatChoice::Fixed(s) => s,
            SeatChoice::Rotate => (k % 3) as u8,
            SeatChoice::All => 0,
        };
        let mut slot = Slot { state: dealt(&self.config, self.seed.wrapping_add(k)), seat, legal: MoveList::new() };
        let self_play = self.self_play();
        play_opponents(&mut self.opponents, &mut slot, self_play);
        slot
    }

    /// Features and the legal plays (mask or candidate list) of every game, and the seats.
    fn batch<'py>(&self, py: Python<'py>) -> PyResult<Batch<'py>> {
        let n = self.slots.len();
        let mut obs = vec![0.0f32; n * STATE_DIM];
        for (i, slot) in self.slots.iter().enumerate() {
            encode_state(&slot.state, slot.seat, &mut obs[i * STATE_DIM..(i + 1) * STATE_DIM]);
        }
        let table = ActionTable::get();
        let legal = if self.masks {
            let mut mask = vec![false; n * NUM_ACTIONS];
            for (i, slot) in self.slots.iter().enumerate() {
                for p in &slot.legal {
                    mask[i * NUM_ACTIONS + table.id(p).index()] = true;
                }
            }
            PyArray1::from_vec(py, mask).reshape([n, NUM_ACTIONS])?.into_any()
        } else {
            let k = self.slots.iter().map(|s| s.legal.len()).max().unwrap_or(0).max(1);
            let mut ids = vec![-1i32; n * k];
            for (i, slot) in self.slots.iter().enumerate() {
                for (j, p) in slot.legal.iter().enumerate() {
                    ids[i * k + j] = table.id(p).0 as i32;
                }
            }
            PyArray1::from_vec(py, ids).reshape([n, k])?.into_any()
        };
        let seats: Vec<u8> = self.slots.iter().map(|s| s.seat).collect();
        Ok((PyArray1::from_vec(py, obs).reshape([n, STATE_DIM])?, legal, PyArray1::from_vec(py, seats)))
    }

    /// The plays of `actions`, or the first illegal one as an error.
    fn check(&self, actions: &[i64]) -> PyResult<Vec<Play>> {
        let table = ActionTable::get();
        let mut out = Vec::with_capacity(actions.len());
        for (i, (&a, slot)) in actions.iter().zip(&self.slots).enumerate() {
            let play = usize::try_from(a).ok().filter(|&a| a < NUM_ACTIONS).map(|a| *table.play(ActionId(a as u16)));
            match play {
                Some(p) if slot.legal.contains(&p) => out.push(p),
                Some(p) => return Err(value_error(format!("game {i}: play {a} ({p}) is not legal here"))),
                None => return Err(value_error(format!("game {i}: {a} is not a play id (0 to {})", NUM_ACTIONS - 1))),
            }
        }
        Ok(out)
    }

    fn self_play(&self) -> bool {
        matches!(self.seat, SeatChoice::All)
    }

    /// Plays the learner's plays and the opponents' answers; returns the rewards (one per
    /// game, or each seat's in self-play) and which games ended.
    fn advance(&mut self, plays: &[Play]) -> (Vec<f32>, Vec<bool>) {
        let n = self.slots.len();
        let self_play = self.self_play();
        let width = if self_play { 3 } else { 1 };
        let (mut rewards, mut dones) = (vec![0.0f32; n * width], vec![false; n]);
        for (i, &play) in plays.iter().enumerate() {
            let slot = &mut self.slots[i];
            slot.state.apply_play(play).expect("checked legal");
            play_opponents(&mut self.opponents, slot, self_play);
            if slot.state.is_terminal() {
                let returns = slot.state.returns();
                if self_play {
                    for (r, v) in rewards[i * 3..i * 3 + 3].iter_mut().zip(returns) {
                        *r = v as f32;
                    }
                } else {
                    rewards[i] = returns[slot.seat as usize] as f32;
                }
                dones[i] = true;
                self.slots[i] = self.new_game();
            }
        }
        (rewards, dones)
    }
}

/// Features, legal plays (masks or candidate lists) and seats.
type Batch<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyAny>, Bound<'py, PyArray1<u8>>);

/// Features, legal plays, rewards, dones and seats.
type StepResult<'py> = (
    Bound<'py, PyArray2<f32>>,
    Bound<'py, PyAny>,
    Bound<'py, PyAny>,
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<u8>>,
);

#[pymethods]
impl VecEnv {
    /// `VecEnv(n, seed=0, seat="landlord", opponents="rule", game=None, legal="mask")`: `seat`
    /// is a role name, `"rotate"` (landlord, landlord_down, landlord_up in turn over the games
    /// dealt) or `"all"` (self-play: the learner makes every decision, rewards are `[n, 3]`);
    /// `opponents` is `"rule"` or `"random"`; `game` a `ddz.Game` without bidding
    /// (default win/loss); `legal` is `"mask"` or `"ids"` (candidate lists).
    #[new]
    #[pyo3(signature = (n, seed=0, seat="landlord", opponents="rule", game=None, legal="mask"))]
    fn new(
        n: usize,
        seed: u64,
        seat: &str,
        opponents: &str,
        game: Option<PyRef<'_, Game>>,
        legal: &str,
    ) -> PyResult<VecEnv> {
        // Each game keeps its observation, its mask over 27,472 actions and its state.
        const MOST: usize = 65_536;
        if n == 0 || n > MOST {
            return Err(value_error(format!("n = {n}: from 1 to {MOST} games")));
        }
        let config = game.map(|g| g.config.clone()).unwrap_or_default();
        if config.bidding {
            return Err(value_error("VecEnv plays games without bidding (Game(bidding=False))"));
        }
        let seat = match seat {
            "rotate" => SeatChoice::Rotate,
            "all" => SeatChoice::All,
            s => SeatChoice::Fixed(
                Role::parse(s).ok_or_else(|| value_error(format!("seat {s:?}: a role name or \"rotate\"")))?.index()
                    as u8,
            ),
        };
        let opponents: Vec<Opponent> = match opponents {
            "rule" => (0..3).map(|_| Opponent::Rule(RuleAgent::new())).collect(),
            "random" => (0..3).map(|i| Opponent::Random(RandomAgent::new(seed.wrapping_add(i)))).collect(),
            o => return Err(value_error(format!("opponents {o:?}: \"rule\" or \"random\""))),
        };
        let masks = match legal {
            "mask" => true,
            "ids" => false,
            l => return Err(value_error(format!("legal {l:?}: \"mask\" or \"ids\""))),
        };
        let mut env = VecEnv { config, seat, opponents, slots: Vec::with_capacity(n), seed, dealt: 0, masks };
        for _ in 0..n {
            let slot = env.new_game();
            env.slots.push(slot);
        }
        Ok(env)
    }

    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Deals every game again (continuing the deal count) and returns `(features [n, STATE_DIM]
    /// float32, legal plays (masks [n, NUM_PLAYS] bool, or ids [n, k] int32), seats [n] uint8)`.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Batch<'py>> {
        let n = self.slots.len();
        self.slots.clear();
        for _ in 0..n {
            let slot = self.new_game();
            self.slots.push(slot);
        }
        self.batch(py)
    }

    /// Plays `actions[i]` (a play id) in game i, then the opponents; returns `(features, legal
    /// plays, rewards [n] float32 ([n, 3] in self-play), dones [n] bool, seats)`. A finished
    /// game's reward is the learner's return (every seat's in self-play) and its row already
    /// shows the next game. An illegal action raises
    /// `ValueError` naming the game and the play, before any game moves.
    fn step<'py>(&mut self, py: Python<'py>, actions: PyReadonlyArray1<'py, i64>) -> PyResult<StepResult<'py>> {
        let actions = actions.as_slice()?;
        if actions.len() != self.slots.len() {
            return Err(value_error(format!("{} actions for {} games", actions.len(), self.slots.len())));
        }
        let plays = self.check(actions)?;
        let (rewards, dones) = py.detach(|| self.advance(&plays));
        let (obs, legal, seats) = self.batch(py)?;
        let rewards = PyArray1::from_vec(py, rewards);
        let rewards = if self.self_play() { rewards.reshape([plays.len(), 3])?.into_any() } else { rewards.into_any() };
        Ok((obs, legal, rewards, PyArray1::from_vec(py, dones), seats))
    }
}
