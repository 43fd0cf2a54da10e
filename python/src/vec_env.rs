//! `VecEnv`: N games stepped in Rust per call, batched numpy arrays out, no Python loop per game.
//!
//! The learner plays one seat in every game; the other two seats are rule or random agents that
//! play inside `step` until the learner is to act again. A finished game is reset at once: the
//! k-th game the environment deals (counting every environment's games, in environment order at
//! `reset`, then in the order they finish) is dealt from `seed + k`, exactly as
//! `Game.new_dealt_state(seed + k)` deals.

use crate::spiel::{Game, dealt, value_error};
use ddz::agents::{Agent, RandomAgent, RuleAgent};
use ddz::encode::{STATE_DIM, encode_state};
use ddz::game::{ActionTable, GameConfig, MoveList, NUM_ACTIONS, Role, State};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;

/// Which seat the learner takes in each new game.
#[derive(Clone, Copy)]
enum SeatChoice {
    Fixed(u8),
    /// Seat `k % 3` for the k-th game dealt.
    Rotate,
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

struct Slot {
    state: State,
    seat: u8,
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
    plays: MoveList,
}

/// What a call returns: features, masks, the learner's seat in each game.
type Batch<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray2<bool>>, Bound<'py, PyArray1<u8>>);

impl VecEnv {
    fn new_game(&mut self) -> Slot {
        let k = self.dealt;
        self.dealt += 1;
        let seat = match self.seat {
            SeatChoice::Fixed(s) => s,
            SeatChoice::Rotate => (k % 3) as u8,
        };
        let mut slot = Slot { state: dealt(&self.config, self.seed.wrapping_add(k)), seat };
        self.play_opponents(&mut slot);
        slot
    }

    /// The opponents play until the learner is to act or the game is over.
    fn play_opponents(&mut self, slot: &mut Slot) {
        while let Some(p) = slot.state.current_player().filter(|&p| p != slot.seat) {
            slot.state.legal_plays_into(&mut self.plays);
            let k = self.opponents[p as usize].agent().choose(&slot.state, &self.plays).min(self.plays.len() - 1);
            slot.state.apply_play(self.plays[k]).expect("a legal play applies");
        }
    }

    fn batch<'py>(&mut self, py: Python<'py>) -> PyResult<Batch<'py>> {
        let n = self.slots.len();
        let mut obs = vec![0.0f32; n * STATE_DIM];
        let mut mask = vec![false; n * NUM_ACTIONS];
        let table = ActionTable::get();
        for (i, slot) in self.slots.iter().enumerate() {
            encode_state(&slot.state, slot.seat, &mut obs[i * STATE_DIM..(i + 1) * STATE_DIM]);
            slot.state.legal_plays_into(&mut self.plays);
            for p in &self.plays {
                mask[i * NUM_ACTIONS + table.id(p).index()] = true;
            }
        }
        let seats: Vec<u8> = self.slots.iter().map(|s| s.seat).collect();
        let obs = PyArray1::from_vec(py, obs).reshape([n, STATE_DIM])?;
        let mask = PyArray1::from_vec(py, mask).reshape([n, NUM_ACTIONS])?;
        Ok((obs, mask, PyArray1::from_vec(py, seats)))
    }
}

#[pymethods]
impl VecEnv {
    /// `VecEnv(n, seed=0, seat="landlord", opponents="rule", game=None)`: `seat` is a role
    /// name or `"rotate"` (landlord, landlord_down, landlord_up in turn over the games dealt);
    /// `opponents` is `"rule"` or `"random"`; `game` a `ddz.Game` (no bidding; default win/loss).
    #[new]
    #[pyo3(signature = (n, seed=0, seat="landlord", opponents="rule", game=None))]
    fn new(n: usize, seed: u64, seat: &str, opponents: &str, game: Option<PyRef<'_, Game>>) -> PyResult<VecEnv> {
        if n == 0 {
            return Err(value_error("n must be at least 1"));
        }
        let config = game.map(|g| g.config.clone()).unwrap_or_default();
        if config.bidding {
            return Err(value_error("VecEnv plays games without bidding (Game(bidding=False))"));
        }
        let seat = match seat {
            "rotate" => SeatChoice::Rotate,
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
        let mut env =
            VecEnv { config, seat, opponents, slots: Vec::with_capacity(n), seed, dealt: 0, plays: MoveList::new() };
        for _ in 0..n {
            let slot = env.new_game();
            env.slots.push(slot);
        }
        Ok(env)
    }

    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Deals every game again (continuing the deal count) and returns
    /// `(features [n, STATE_DIM] float32, legal masks [n, NUM_PLAYS] bool, seats [n] uint8)`.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Batch<'py>> {
        let n = self.slots.len();
        self.slots.clear();
        for _ in 0..n {
            let slot = self.new_game();
            self.slots.push(slot);
        }
        self.batch(py)
    }

    /// Plays `actions[i]` (a play id, an index of the mask) in game i, then the opponents; returns
    /// `(features, masks, rewards [n] float32, dones [n] bool, seats)`. A finished game's reward
    /// is the learner's return and its row already shows the next game. An illegal action raises
    /// `ValueError` naming the game and the play, before any game moves.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<(
        Bound<'py, PyArray2<f32>>,
        Bound<'py, PyArray2<bool>>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<u8>>,
    )> {
        let actions = actions.as_slice()?;
        if actions.len() != self.slots.len() {
            return Err(value_error(format!("{} actions for {} games", actions.len(), self.slots.len())));
        }
        let plays = self.check(actions)?;
        let (rewards, dones) = py.detach(|| self.advance(&plays));
        let (obs, mask, seats) = self.batch(py)?;
        Ok((obs, mask, PyArray1::from_vec(py, rewards), PyArray1::from_vec(py, dones), seats))
    }
}

impl VecEnv {
    /// The plays of `actions`, or the first illegal one as an error.
    fn check(&mut self, actions: &[i64]) -> PyResult<Vec<ddz::game::Play>> {
        let table = ActionTable::get();
        let mut out = Vec::with_capacity(actions.len());
        for (i, (&a, slot)) in actions.iter().zip(&self.slots).enumerate() {
            slot.state.legal_plays_into(&mut self.plays);
            let play = usize::try_from(a)
                .ok()
                .filter(|&a| a < NUM_ACTIONS)
                .map(|a| *table.play(ddz::game::ActionId(a as u16)));
            match play {
                Some(p) if self.plays.contains(&p) => out.push(p),
                Some(p) => return Err(value_error(format!("game {i}: play {a} ({p}) is not legal here"))),
                None => return Err(value_error(format!("game {i}: {a} is not a play id (0 to {})", NUM_ACTIONS - 1))),
            }
        }
        Ok(out)
    }

    fn advance(&mut self, plays: &[ddz::game::Play]) -> (Vec<f32>, Vec<bool>) {
        let n = self.slots.len();
        let (mut rewards, mut dones) = (vec![0.0f32; n], vec![false; n]);
        for (i, &play) in plays.iter().enumerate() {
            let mut slot =
                std::mem::replace(&mut self.slots[i], Slot { state: State::new(self.config.clone()), seat: 0 });
            slot.state.apply_play(play).expect("checked legal");
            self.play_opponents(&mut slot);
            if slot.state.is_terminal() {
                rewards[i] = slot.state.returns()[slot.seat as usize] as f32;
                dones[i] = true;
                slot = self.new_game();
            }
            self.slots[i] = slot;
        }
        (rewards, dones)
    }
}
