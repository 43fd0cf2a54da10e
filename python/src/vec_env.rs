//! `VecEnv`: N games stepped in Rust per call, batched numpy arrays out, no Python loop per game.
//!
//! The learner plays one seat in every game; the other two seats are played inside `step` until
//! the learner is to act again, by rule or random agents in this process or by any other agent
//! (a network, a search) in one `ddz bot` process that gets the waiting decisions of all the
//! games in one line. In self-play (`seat="all"`) the learner makes every decision of every
//! seat and `seats` says whose each row is. A finished game is reset at once: the k-th game the
//! environment deals (counting every environment's games, in row order at construction and at
//! `reset`, then in the order they finish) is dealt from `seed + k`, exactly as
//! `Game.new_dealt_state(seed + k)` deals.
//!
//! The legal plays come as masks over the action table (`legal="mask"`), or as candidate lists
//! (`legal="ids"`: an int32 array `[n, k]` of play ids, padded with −1, k the longest list of
//! the batch), which is much smaller: a mask row is 27,472 bytes, a game has a few dozen plays.

use crate::spiel::{Game, State as PyState, dealt, value_error};
use ddz_agents::agents::{Agent, BotAgent, BotSettings, Fault, Query, RandomAgent, RuleAgent, Turn, ask_many};
use ddz_engine::encode::{STATE_DIM, encode_state};
use ddz_engine::game::{
    ActionId, ActionTable, GameConfig, MoveList, NUM_ACTIONS, Play, Role, Seat, State, Table, View,
};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use std::time::Duration;

/// Which seat the learner takes in each new game.
#[derive(Clone, Copy)]
enum SeatChoice {
    Fixed(Seat),
    /// Seat 0, 1, 2, 0, … in turn, for the games as they are dealt.
    Rotate,
    /// Every seat: self-play, no opponents; each row is the decision of the seat to act.
    All,
}

/// An in-process opponent: concrete types, so that the environment is `Sync` as pyo3 requires.
enum Local {
    Rule(RuleAgent),
    Random(RandomAgent),
}

impl Local {
    fn agent(&mut self) -> &mut dyn Agent {
        match self {
            Local::Rule(a) => a,
            Local::Random(a) => a,
        }
    }
}

/// Who plays the seats that are not the learner's.
enum Opponents {
    /// In-process agents, one per seat, asked each decision as it comes.
    Local(Vec<Local>),
    /// One agent of a spec for every seat (in this process, or a `ddz bot --agent SPEC` process
    /// with `binary=`), asked for the waiting decisions of all the games at once per round (a
    /// network answers them in one forward pass). It gets each seat's view only and deals the
    /// hidden cards for itself.
    /// (In a mutex only to be `Sync`, as a Python class must be: the env has it to itself.)
    Bot(std::sync::Mutex<Box<dyn Agent>>),
}

/// Where every game stood before a step.
struct Snapshot {
    slots: Vec<Slot>,
    dealt: u64,
    opponent_decisions: u64,
}

/// One game, with the legal plays of the seat to act.
#[derive(Clone)]
struct Slot {
    state: State,
    seat: Seat,
    legal: MoveList,
}

/// Batched games for a learner (see the module docs).
#[pyclass(module = "ddz._ddz")]
pub struct VecEnv {
    config: GameConfig,
    seat: SeatChoice,
    opponents: Opponents,
    slots: Vec<Slot>,
    seed: u64,
    dealt: u64,
    masks: bool,
    /// Decisions the opponents made so far.
    opponent_decisions: u64,
}

/// What a step's finished games gave: each row's reward (each seat's in self-play) and whether
/// a game of that row ended.
struct Outcome {
    rewards: Vec<f32>,
    dones: Vec<bool>,
}

impl VecEnv {
    /// Deals the next game (the opponents have not moved yet).
    fn new_game(&mut self) -> Slot {
        let k = self.dealt;
        self.dealt += 1;
        let seat = match self.seat {
            SeatChoice::Fixed(s) => s,
            SeatChoice::Rotate => Table::THREE.after(Seat::S0, k),
            SeatChoice::All => Seat::S0,
        };
        Slot { state: dealt(&self.config, self.seed.wrapping_add(k)), seat, legal: MoveList::new() }
    }

    /// Moves every game on to the learner's next decision: in-process opponents play at once,
    /// a bot's decisions of all the games waiting for it are asked in one batch per round, and a
    /// finished game is scored into `out` (None: not counted) and dealt again, in row order.
    fn settle(&mut self, mut out: Option<&mut Outcome>) -> Result<(), Fault> {
        // Only the rows the bot has just played in can have moved since the last round.
        let mut rows: Vec<usize> = (0..self.slots.len()).collect();
        loop {
            let waiting: Vec<usize> = rows.into_iter().filter(|&i| self.settle_row(i, &mut out)).collect();
            let VecEnv { opponents: Opponents::Bot(bot), slots, opponent_decisions, .. } = self else { return Ok(()) };
            if waiting.is_empty() {
                return Ok(());
            }
            let picks = {
                let no_decision = || Fault::Failed("the bot has no decision".into());
                let views: Vec<View> = waiting
                    .iter()
                    .map(|&i| slots[i].state.current_player().map(|p| slots[i].state.view(p)).ok_or_else(no_decision))
                    .collect::<Result<_, Fault>>()?;
                let mut queries: Vec<Query> = Vec::with_capacity(views.len());
                for (&i, view) in waiting.iter().zip(&views) {
                    // Seeded as `ddz bot` seeds a request: by its text, so either place answers alike.
                    let seed = serde_json::to_string(view).map_or(0, |text| ddz_play::bot::request_seed(&text));
                    queries.push(Query { turn: Turn::new(view, &slots[i].legal).ok_or_else(no_decision)?, seed });
                }
                let agent = bot.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
                ask_many(agent.as_mut(), &queries).into_iter().collect::<Result<Vec<usize>, Fault>>()?
            };
            *opponent_decisions += waiting.len() as u64;
            for (&i, k) in waiting.iter().zip(picks) {
                let slot = &mut slots[i];
                let play = slot.legal.get(k).copied();
                let illegal = || Fault::Failed(format!("the bot answered play {k} of {}", slot.legal.len()));
                slot.state.apply_play_unchecked(play.ok_or_else(illegal)?);
            }
            rows = waiting;
        }
    }

    /// Plays row `i` on until the learner is to act (false) or the bot is (true).
    fn settle_row(&mut self, i: usize, out: &mut Option<&mut Outcome>) -> bool {
        let self_play = self.self_play();
        loop {
            let slot = &mut self.slots[i];
            let Some(p) = slot.state.current_player() else {
                if let Some(out) = out {
                    let returns = slot.state.returns();
                    if self_play {
                        for (r, v) in out.rewards[i * 3..i * 3 + 3].iter_mut().zip(returns) {
                            *r += v as f32;
                        }
                    } else {
                        out.rewards[i] += returns[slot.seat] as f32;
                    }
                    out.dones[i] = true;
                }
                self.slots[i] = self.new_game();
                continue;
            };
            if self_play {
                slot.seat = p;
            }
            slot.state.legal_plays_into(&mut slot.legal);
            if p == slot.seat {
                return false;
            }
            let Opponents::Local(agents) = &mut self.opponents else { return true };
            let view = slot.state.view(p);
            let Some(turn) = Turn::new(&view, &slot.legal) else { unreachable!("a seat to play has plays") };
            let k = agents[p.index()].agent().choose(turn).min(slot.legal.len() - 1);
            slot.state.apply_play_unchecked(slot.legal[k]);
            self.opponent_decisions += 1;
        }
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
        let seats: Vec<u8> = self.slots.iter().map(|s| s.seat.number()).collect();
        Ok((PyArray1::from_vec(py, obs).reshape([n, STATE_DIM])?, legal, PyArray1::from_vec(py, seats)))
    }

    /// The plays of `actions`, or the first illegal one as an error.
    fn check(&self, actions: &[i64]) -> PyResult<Vec<Play>> {
        let table = ActionTable::get();
        let mut out = Vec::with_capacity(actions.len());
        for (i, (&a, slot)) in actions.iter().zip(&self.slots).enumerate() {
            let play = usize::try_from(a).ok().filter(|&a| a < NUM_ACTIONS).map(|a| *table.play(ActionId(a as u32)));
            match play {
                Some(p) if slot.legal.contains(&p) => out.push(p),
                Some(p) => return Err(value_error(format!("game {i}: play {a} ({p}) is not legal here"))),
                None => return Err(value_error(format!("game {i}: {a} is not a play id (0 to {})", NUM_ACTIONS - 1))),
            }
        }
        Ok(out)
    }

    /// Deals a new game in every row (`n` of them, continuing the deal count) and settles them.
    fn deal_all(&mut self, py: Python<'_>, n: usize) -> PyResult<()> {
        self.slots.clear();
        for _ in 0..n {
            let slot = self.new_game();
            self.slots.push(slot);
        }
        py.detach(|| self.settle(None)).map_err(|f| agent_error(py, f))
    }

    /// The games and counts a failed step goes back to.
    fn snapshot(&self) -> Snapshot {
        Snapshot { slots: self.slots.clone(), dealt: self.dealt, opponent_decisions: self.opponent_decisions }
    }

    fn restore(&mut self, s: Snapshot) {
        (self.slots, self.dealt, self.opponent_decisions) = (s.slots, s.dealt, s.opponent_decisions);
    }

    fn self_play(&self) -> bool {
        matches!(self.seat, SeatChoice::All)
    }

    /// Plays the learner's plays and the opponents' answers; what the games that ended gave.
    fn advance(&mut self, plays: &[Play]) -> Result<Outcome, Fault> {
        let width = if self.self_play() { 3 } else { 1 };
        let n = self.slots.len();
        let mut out = Outcome { rewards: vec![0.0; n * width], dones: vec![false; n] };
        for (slot, &play) in self.slots.iter_mut().zip(plays) {
            slot.state.apply_play_unchecked(play); // `check` took them from the legal plays
        }
        self.settle(Some(&mut out))?;
        Ok(out)
    }
}

/// A bot's failure as Python's `ddz.AgentError`.
fn agent_error(py: Python<'_>, fault: Fault) -> PyErr {
    let class = py.import("ddz.agent").and_then(|m| m.getattr("AgentError"));
    match class.and_then(|c| c.call1((fault.to_string(),))) {
        Ok(error) => PyErr::from_value(error),
        Err(e) => e,
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
    /// `VecEnv(n, seed=0, seat="landlord", opponents="rule", game=None, legal="mask",
    /// binary=None, timeout=120.0)`: `seat` is a role name, `"rotate"` (landlord,
    /// landlord_down, landlord_up in turn over the games dealt) or `"all"` (self-play: the
    /// learner makes every decision, rewards are `[n, 3]`); `opponents` is `"rule"` or
    /// `"random"` or any other agent spec (`"checkpoint:…"`, search agents…), played in this
    /// process, or with `binary=` by one `ddz bot` process of that binary, which is allowed
    /// `timeout` seconds for each batch; either is asked for all the waiting decisions at once; `game` a `ddz.Game` without bidding (default win/loss); `legal` is `"mask"` or
    /// `"ids"` (candidate lists).
    #[new]
    #[pyo3(signature = (n, seed=0, seat="landlord", opponents="rule", game=None, legal="mask", binary=None, timeout=120.0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        n: usize,
        seed: u64,
        seat: &str,
        opponents: &str,
        game: Option<PyRef<'_, Game>>,
        legal: &str,
        binary: Option<String>,
        timeout: f64,
    ) -> PyResult<VecEnv> {
        // Each game keeps its observation, its mask over 27,472 actions and its state.
        ddz_engine::limits::check("VecEnv(n)", n).map_err(|e| value_error(e.to_string()))?;
        let config = game.map(|g| g.config.clone()).unwrap_or_default();
        if config.bidding {
            return Err(value_error("VecEnv plays games without bidding (Game(bidding=False))"));
        }
        if config.rules != ddz_engine::game::Rules::Standard {
            // A mask row over laizi's 7,409,259 ids is 7 MB; two-player games are of another shape.
            return Err(value_error(format!(
                "VecEnv plays the standard rules, not {0}: use ddz.env.DouDizhuEnv(rules=\"{0}\")",
                config.rules
            )));
        }
        let seat = match seat {
            "rotate" => SeatChoice::Rotate,
            "all" => SeatChoice::All,
            s => {
                let role =
                    Role::parse(s).ok_or_else(|| value_error(format!("seat {s:?}: a role name or \"rotate\"")))?;
                // No bidding: the landlord sits where the rules put it, the farmers follow.
                SeatChoice::Fixed(Table::THREE.after(config.landlord_seat, role.index() as u64))
            }
        };
        let opponents = match opponents {
            "rule" => Opponents::Local((0..3).map(|_| Local::Rule(RuleAgent::new())).collect()),
            "random" => {
                Opponents::Local((0..3).map(|i| Local::Random(RandomAgent::new(seed.wrapping_add(i)))).collect())
            }
            "" => return Err(value_error("opponents \"\": \"rule\", \"random\" or an agent spec")),
            spec => {
                ddz_engine::limits::check("VecEnv(timeout)", timeout).map_err(|e| value_error(e.to_string()))?;
                Opponents::Bot(std::sync::Mutex::new(match binary {
                    None => {
                        let parsed: ddz_play::agents::AgentSpec = spec.parse().map_err(value_error)?;
                        py.detach(|| parsed.build()).map_err(|e| agent_error(py, Fault::Failed(e.to_string())))?
                    }
                    Some(binary) => {
                        let binary: String =
                            py.import("ddz.agent")?.getattr("find_binary")?.call1((binary,))?.extract()?;
                        let settings = BotSettings { timeout: Duration::from_secs_f64(timeout), ..Default::default() };
                        let mut bot = BotAgent::ddz_bot(&binary, spec, settings);
                        py.detach(|| bot.start()).map_err(|f| agent_error(py, f))?;
                        Box::new(bot)
                    }
                }))
            }
        };
        let masks = match legal {
            "mask" => true,
            "ids" => false,
            l => return Err(value_error(format!("legal {l:?}: \"mask\" or \"ids\""))),
        };
        let mut env = VecEnv {
            config,
            seat,
            opponents,
            slots: Vec::with_capacity(n),
            seed,
            dealt: 0,
            masks,
            opponent_decisions: 0,
        };
        env.deal_all(py, n)?;
        Ok(env)
    }

    /// How many decisions the opponents have made since the environment was made.
    #[getter]
    fn opponent_decisions(&self) -> u64 {
        self.opponent_decisions
    }

    fn __len__(&self) -> usize {
        self.slots.len()
    }

    /// Deals every game again (continuing the deal count) and returns `(features [n, STATE_DIM]
    /// float32, legal plays (masks [n, NUM_PLAYS] bool, or ids [n, k] int32), seats [n] uint8)`.
    fn reset<'py>(&mut self, py: Python<'py>) -> PyResult<Batch<'py>> {
        let n = self.slots.len();
        self.deal_all(py, n)?;
        self.batch(py)
    }

    /// Each row's game as a `ddz.State` (a copy), at the decision of the row's seat: for an
    /// agent that acts on States, e.g. `ddz.Agent(spec).act_batch(env.states())`, whose actions
    /// minus `FIRST_PLAY` are this environment's play ids.
    fn states(&self) -> Vec<PyState> {
        self.slots.iter().map(|s| PyState { inner: s.state.clone() }).collect()
    }

    /// Plays `actions[i]` (a play id) in game i, then the opponents; returns `(features, legal
    /// plays, rewards [n] float32 ([n, 3] in self-play), dones [n] bool, seats)`. A finished
    /// game's reward is the learner's return (every seat's in self-play) and its row already
    /// shows the next game. An illegal action raises
    /// `ValueError` naming the game and the play, before any game moves; an opponent bot that
    /// fails raises `ddz.AgentError` and leaves every game as it was before the step.
    fn step<'py>(&mut self, py: Python<'py>, actions: PyReadonlyArray1<'py, i64>) -> PyResult<StepResult<'py>> {
        let actions = actions.as_slice()?;
        if actions.len() != self.slots.len() {
            return Err(value_error(format!("{} actions for {} games", actions.len(), self.slots.len())));
        }
        let plays = self.check(actions)?;
        // A bot that fails mid-round leaves the games as they were before the step, so that
        // the step can be tried again: never half a turn further (only a bot can fail).
        let before = matches!(self.opponents, Opponents::Bot(_)).then(|| self.snapshot());
        let advanced = py.detach(|| self.advance(&plays));
        let Outcome { rewards, dones } = advanced.map_err(|f| {
            if let Some(before) = before {
                self.restore(before);
            }
            agent_error(py, f)
        })?;
        let (obs, legal, seats) = self.batch(py)?;
        let rewards = PyArray1::from_vec(py, rewards);
        let rewards = if self.self_play() { rewards.reshape([plays.len(), 3])?.into_any() } else { rewards.into_any() };
        Ok((obs, legal, rewards, PyArray1::from_vec(py, dones), seats))
    }
}
