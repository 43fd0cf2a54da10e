//! `Game` and `State` with OpenSpiel's names and conventions: player ids (chance −1, terminal
//! −4), one integer action space (cards, bids, plays: see `ddz_engine::game::spiel`), errors as
//! `ValueError` naming the action and the reason, and the state unchanged after an error.

use ddz_engine::encode::{STATE_DIM, WILD_SLOTS, information_state_tensor};
use ddz_engine::game::laizi::ids::play_notation;
use ddz_engine::game::spiel as sp;
use ddz_engine::game::{Action, GameConfig, Rules, Scoring, Seat, State as Inner};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::SeedableRng;

/// OpenSpiel's id of the chance player.
pub const CHANCE: i64 = -1;
/// OpenSpiel's id of the player at a terminal state.
pub const TERMINAL: i64 = -4;

pub fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The rules of a game: standard, laizi or two-player, bidding on or off, how it is scored, and
/// the fixed landlord without bidding (two-player: and the conceded cards).
#[pyclass(module = "ddz._ddz", frozen)]
#[derive(Clone)]
pub struct Game {
    pub config: GameConfig,
}

/// The largest soft-bomb multiplier a game takes (the points stay far inside f64's integers).
const SOFT_BOMB_MOST: u8 = 8;

/// Length of the state features under `rules`: laizi adds the wild rank, one-hot over 3 to 2.
pub fn state_dim(rules: Rules) -> usize {
    match rules {
        Rules::Standard | Rules::TwoPlayer => STATE_DIM,
        Rules::Laizi => STATE_DIM + WILD_SLOTS,
    }
}

/// The state features of `seat`, the wild rank appended under laizi (zeros until it is drawn).
pub fn state_features(state: &Inner, seat: Seat) -> Vec<f32> {
    let mut v = information_state_tensor(state, seat);
    if state.config().rules == Rules::Laizi {
        let mut wild = [0.0; WILD_SLOTS];
        if let Some(w) = state.wild() {
            wild[w.rank() as usize] = 1.0;
        }
        v.extend_from_slice(&wild);
    }
    v
}

fn scoring_name(s: Scoring) -> &'static str {
    match s {
        Scoring::WinLoss => "win_loss",
        Scoring::Score => "points",
    }
}

#[pymethods]
impl Game {
    /// `Game(bidding=False, scoring="win_loss", spring=True, landlord_seat=0, first_bidder=0,
    /// rules="standard", soft_bomb_multiplier=2, conceded=0, max_robs=4)`. `scoring` is
    /// `"win_loss"` (±1) or `"points"` (the bid × 2 per bomb or rocket × 2 for a spring, the
    /// landlord's amount doubled); `first_bidder` is the seat that bids first; `rules="laizi"`
    /// draws a wild rank after the landlord is known (a chance node of 13 outcomes) and
    /// `soft_bomb_multiplier` is what a soft bomb multiplies the points by; `rules="two_player"`
    /// is the two-seat game of 46 cards, where `conceded` (without bidding) is how many cards
    /// the farmer may still hold and win, and `max_robs` caps the robs of its bidding
    /// (docs/rules.md).
    #[new]
    #[pyo3(signature = (bidding=false, scoring="win_loss", spring=true, landlord_seat=0, first_bidder=0, rules="standard", soft_bomb_multiplier=2, conceded=0, max_robs=4))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        bidding: bool,
        scoring: &str,
        spring: bool,
        landlord_seat: i64,
        first_bidder: i64,
        rules: &str,
        soft_bomb_multiplier: i64,
        conceded: i64,
        max_robs: i64,
    ) -> PyResult<Game> {
        let scoring = match scoring {
            "win_loss" => Scoring::WinLoss,
            "points" | "score" => Scoring::Score,
            s => return Err(value_error(format!("scoring {s:?}: use \"win_loss\" or \"points\""))),
        };
        let landlord_seat = Seat::try_from(landlord_seat)
            .map_err(|_| value_error(format!("landlord_seat {landlord_seat}: use 0, 1 or 2")))?;
        let first_bidder = Seat::try_from(first_bidder)
            .map_err(|_| value_error(format!("first_bidder {first_bidder}: use 0, 1 or 2")))?;
        let rules: Rules = rules.parse().map_err(value_error)?;
        let soft_bomb_multiplier =
            u8::try_from(soft_bomb_multiplier).ok().filter(|m| (1..=SOFT_BOMB_MOST).contains(m)).ok_or_else(|| {
                value_error(format!("soft_bomb_multiplier {soft_bomb_multiplier}: use 1 to {SOFT_BOMB_MOST}"))
            })?;
        let small = |name: &str, n: i64| {
            u8::try_from(n)
                .map_err(|_| value_error(format!("{name} {n}: use 0 to {}", ddz_engine::game::MOST_CONCEDED)))
        };
        let (conceded, max_robs) = (small("conceded", conceded)?, small("max_robs", max_robs)?);
        let config = GameConfig {
            bidding,
            landlord_seat,
            scoring,
            spring,
            first_bidder,
            rules,
            soft_bomb_multiplier,
            conceded,
            max_robs,
        };
        config.check().map_err(value_error)?;
        Ok(Game { config })
    }
    /// 3, or 2 for `rules="two_player"`.
    fn num_players(&self) -> usize {
        self.config.rules.table().len()
    }
    fn num_distinct_actions(&self) -> usize {
        sp::num_distinct_actions(self.config.rules)
    }
    /// Ids of the game's action table: what `State.play_mask` covers (laizi: 7,409,259).
    fn num_plays(&self) -> usize {
        num_plays(self.config.rules)
    }
    /// `"standard"`, `"laizi"` or `"two_player"`.
    #[getter]
    fn rules(&self) -> &'static str {
        self.config.rules.name()
    }
    fn max_chance_outcomes(&self) -> usize {
        sp::MAX_CHANCE_OUTCOMES
    }
    /// Most player decisions in one game (bids and plays; chance nodes not counted).
    fn max_game_length(&self) -> usize {
        sp::MAX_GAME_LENGTH
    }
    fn max_chance_nodes_in_history(&self) -> usize {
        self.config.rules.deck_size() + usize::from(self.config.rules == Rules::Laizi)
    }
    fn min_utility(&self) -> f64 {
        sp::utility_bounds(&self.config).0
    }
    fn max_utility(&self) -> f64 {
        sp::utility_bounds(&self.config).1
    }
    fn information_state_tensor_shape(&self) -> Vec<usize> {
        vec![state_dim(self.config.rules)]
    }
    fn observation_tensor_shape(&self) -> Vec<usize> {
        vec![state_dim(self.config.rules)]
    }
    fn information_state_tensor_size(&self) -> usize {
        state_dim(self.config.rules)
    }
    fn observation_tensor_size(&self) -> usize {
        state_dim(self.config.rules)
    }
    fn new_initial_state(&self) -> State {
        State { inner: Inner::new(self.config.clone()) }
    }
    /// A state after the deal: from `seed` (the same seed, the same deal) or a fresh one.
    #[pyo3(signature = (seed=None))]
    fn new_dealt_state(&self, seed: Option<u64>) -> State {
        State { inner: dealt(&self.config, seed.unwrap_or_else(rand::random)) }
    }
    /// A state after dealing `deal` (a dict of card ids, as `generate_deals` and `read_deals`
    /// give): without bidding each hand goes to the seat of its role (the landlord's to
    /// `landlord_seat`), as `ddz eval` seats a deal; with bidding, the hands go to seats 0, 1
    /// (and 2) in the deal's order. Under laizi without bidding a deal's `"wild"` is its wild
    /// rank (without one the state is at the wild rank's chance node).
    fn new_state_from_deal(&self, deal: Bound<'_, PyDict>) -> PyResult<State> {
        let deal = crate::helpers::deal_of(&deal)?;
        let table = self.config.rules.table();
        if deal.table() != table {
            let (n, rules) = (deal.table().len(), self.config.rules);
            return Err(value_error(format!("a deal of {n} hands is no deal of a {rules} game")));
        }
        let mut hands = deal.hands;
        if !self.config.bidding {
            for (k, &hand) in deal.hands[..table.len()].iter().enumerate() {
                hands[table.after(self.config.landlord_seat, k as u64)] = hand;
            }
        }
        let mut inner = Inner::new(self.config.clone());
        inner.try_deal_hands(hands, deal.bottom).map_err(value_error)?;
        // Laizi without bidding: a deal that fixes its wild rank is dealt with it.
        if let (Some(w), ddz_engine::game::Phase::Wild) = (deal.wild, inner.phase()) {
            inner.try_apply_action(Action::Wild(w)).map_err(value_error)?;
        }
        Ok(State { inner })
    }
    fn get_parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("bidding", self.config.bidding)?;
        d.set_item("scoring", scoring_name(self.config.scoring))?;
        d.set_item("spring", self.config.spring)?;
        d.set_item("landlord_seat", self.config.landlord_seat.number())?;
        d.set_item("first_bidder", self.config.first_bidder.number())?;
        d.set_item("rules", self.config.rules.name())?;
        d.set_item("soft_bomb_multiplier", self.config.soft_bomb_multiplier)?;
        d.set_item("conceded", self.config.conceded)?;
        d.set_item("max_robs", self.config.max_robs)?;
        Ok(d)
    }
    /// The state that `State.serialize` wrote (its rules are in the text).
    fn deserialize_state(&self, text: &str) -> PyResult<State> {
        Inner::from_json(text).map(|inner| State { inner }).map_err(value_error)
    }
    fn action_to_string(&self, action: i64) -> PyResult<String> {
        Action::from_int(action, self.config.rules).map(Action::to_spiel_string).map_err(value_error)
    }
    fn string_to_action(&self, text: &str) -> PyResult<u32> {
        Action::from_spiel_string(text).map(Action::to_int).map_err(value_error)
    }
    fn __repr__(&self) -> String {
        let c = &self.config;
        let cap = |b: bool| if b { "True" } else { "False" };
        let laizi = match c.rules {
            Rules::Standard => String::new(),
            Rules::Laizi => format!(", rules='laizi', soft_bomb_multiplier={}", c.soft_bomb_multiplier),
            Rules::TwoPlayer => format!(", rules='two_player', conceded={}, max_robs={}", c.conceded, c.max_robs),
        };
        format!(
            "Game(bidding={}, scoring='{}', spring={}, landlord_seat={}, first_bidder={}{laizi})",
            cap(c.bidding),
            scoring_name(c.scoring),
            cap(c.spring),
            c.landlord_seat,
            c.first_bidder
        )
    }
}

/// Ids of the action table under `rules`.
pub fn num_plays(rules: Rules) -> usize {
    match rules {
        Rules::Standard | Rules::TwoPlayer => ddz_engine::game::NUM_ACTIONS,
        Rules::Laizi => ddz_engine::game::laizi::ids::NUM_LAIZI_ACTIONS,
    }
}

/// A state dealt from `seed` with the rules of `config` (the deal of `ddz.VecEnv`'s games;
/// under laizi the wild rank is drawn too, from the same seed).
pub fn dealt(config: &GameConfig, seed: u64) -> Inner {
    let mut s = Inner::new(config.clone());
    s.deal_random(&mut rand::rngs::StdRng::seed_from_u64(seed));
    s
}

/// A game in progress: the real state, with every seat's cards. Agents should read it only
/// through the `information_state_*` and `observation_*` of their own seat.
#[pyclass(module = "ddz._ddz")]
#[derive(Clone)]
pub struct State {
    pub inner: Inner,
}

impl State {
    /// `player` as a seat of this game, where None is the player to act.
    fn seat(&self, player: Option<i64>) -> PyResult<Seat> {
        match player {
            Some(p) => self.inner.table().seat(p).map_err(|e| value_error(format!("player {p}: {e}"))),
            None => self
                .inner
                .current_player()
                .ok_or_else(|| value_error("no player is to act at a chance or terminal node: name one")),
        }
    }
}

#[pymethods]
impl State {
    fn current_player(&self) -> i64 {
        match self.inner.current_player() {
            Some(p) => p.number().into(),
            None if self.inner.is_terminal() => TERMINAL,
            None => CHANCE,
        }
    }
    fn is_chance_node(&self) -> bool {
        self.inner.is_chance_node()
    }
    fn is_terminal(&self) -> bool {
        self.inner.is_terminal()
    }
    fn is_player_node(&self) -> bool {
        self.inner.current_player().is_some()
    }
    /// 3, or 2 in a two-player game.
    fn num_players(&self) -> usize {
        self.inner.table().len()
    }
    /// `[(action, probability)]` at a chance node (each undealt card, equally likely).
    fn chance_outcomes(&self) -> PyResult<Vec<(u32, f64)>> {
        let outcomes = self.inner.chance_outcomes().map_err(value_error)?;
        Ok(outcomes.into_iter().map(|(a, p)| (a.to_int(), p)).collect())
    }
    /// Legal actions of `player` (default: the player to act; empty for anyone else), ascending.
    #[pyo3(signature = (player=None))]
    fn legal_actions(&self, player: Option<i64>) -> Vec<u32> {
        let acting = self.inner.current_player().map(|p| i64::from(p.number()));
        if player.is_some() && player != acting && !(player == Some(CHANCE) && self.inner.is_chance_node()) {
            return Vec::new();
        }
        self.inner.legal_action_ints()
    }
    /// 1 for each legal action of `player` over all `num_distinct_actions()` integers (uint8).
    #[pyo3(signature = (player=None))]
    fn legal_actions_mask<'py>(&self, py: Python<'py>, player: Option<i64>) -> Bound<'py, PyArray1<u8>> {
        let mut mask = vec![0u8; sp::num_distinct_actions(self.inner.config().rules)];
        for a in self.legal_actions(player) {
            mask[a as usize] = 1;
        }
        PyArray1::from_vec(py, mask)
    }
    /// The legal plays of the player to act as a mask over the action table (int8,
    /// `game.num_plays()`: index = play id = action − `FIRST_PLAY`); all zero outside the play
    /// phase.
    fn play_mask<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i8>> {
        let mut mask = vec![0i8; num_plays(self.inner.config().rules)];
        let mut plays = ddz_engine::game::MoveList::new();
        self.inner.legal_plays_into(&mut plays);
        let table = ddz_engine::game::ActionTable::get();
        for p in &plays {
            mask[table.id(p).index()] = 1;
        }
        PyArray1::from_vec(py, mask)
    }
    /// Applies an action integer; an illegal one raises `ValueError` and changes nothing.
    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        let a = Action::from_int(action, self.inner.config().rules).map_err(value_error)?;
        self.inner.try_apply_action(a).map_err(|e| value_error(format!("action {action} ({a}): {e}")))
    }
    /// The state after `action` (this one unchanged).
    fn child(&self, action: i64) -> PyResult<State> {
        let mut next = self.clone();
        next.apply_action(action)?;
        Ok(next)
    }
    #[pyo3(signature = (player, action=None))]
    fn action_to_string(&self, player: i64, action: Option<i64>) -> PyResult<String> {
        // OpenSpiel takes (player, action); (action) alone is accepted too.
        let a = action.unwrap_or(player);
        Action::from_int(a, self.inner.config().rules).map(Action::to_spiel_string).map_err(value_error)
    }
    fn string_to_action(&self, text: &str) -> PyResult<u32> {
        Action::from_spiel_string(text).map(Action::to_int).map_err(value_error)
    }
    /// Laizi: the wild rank once drawn (`"7"`), else None.
    fn wild(&self) -> Option<String> {
        self.inner.wild().map(|w| w.to_string())
    }
    /// Two-player: how many times the landlord was robbed (each doubles the stake).
    fn robs(&self) -> u8 {
        self.inner.robs()
    }
    /// Two-player: the farmer wins once no more cards than this are left (the robs with
    /// bidding, the game's `conceded` without); 0 under other rules.
    fn conceded(&self) -> u8 {
        self.inner.conceded()
    }
    /// One return per player.
    fn returns(&self) -> Vec<f64> {
        self.inner.returns()[..self.num_players()].to_vec()
    }
    /// The rewards of the last transition: the returns at the end, zero before.
    fn rewards(&self) -> Vec<f64> {
        if self.inner.is_terminal() { self.returns() } else { vec![0.0; self.num_players()] }
    }
    fn player_return(&self, player: i64) -> PyResult<f64> {
        let seat = self.seat(Some(player))?;
        Ok(self.inner.returns()[seat])
    }
    #[pyo3(signature = (player=None))]
    fn information_state_string(&self, player: Option<i64>) -> PyResult<String> {
        Ok(self.inner.information_state_string(self.seat(player)?))
    }
    /// The state features of `player` (float32, `STATE_DIM`): what ddz's networks read.
    #[pyo3(signature = (player=None))]
    fn information_state_tensor<'py>(
        &self,
        py: Python<'py>,
        player: Option<i64>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        Ok(PyArray1::from_vec(py, state_features(&self.inner, self.seat(player)?)))
    }
    #[pyo3(signature = (player=None))]
    fn observation_string(&self, player: Option<i64>) -> PyResult<String> {
        Ok(self.inner.observation_string(self.seat(player)?))
    }
    /// The same features as the information-state tensor: they hold the current-turn view
    /// (the last 15 plays, what each seat has played, the cards left).
    #[pyo3(signature = (player=None))]
    fn observation_tensor<'py>(&self, py: Python<'py>, player: Option<i64>) -> PyResult<Bound<'py, PyArray1<f32>>> {
        self.information_state_tensor(py, player)
    }
    /// A state `player` cannot tell from this one, the hidden cards dealt again; `rng` is a
    /// callable returning floats in [0, 1) (OpenSpiel's `UniformProbabilitySampler`, or
    /// `random.Random(seed).random`).
    fn resample_from_infostate(&self, player: i64, rng: Bound<'_, PyAny>) -> PyResult<State> {
        let seat = self.seat(Some(player))?;
        let mut failure: Option<PyErr> = None;
        let inner = {
            let mut draw = || -> f64 {
                if failure.is_some() {
                    return 0.0;
                }
                match rng.call0().and_then(|v| v.extract::<f64>()) {
                    Ok(x) if (0.0..1.0).contains(&x) => x,
                    Ok(x) => {
                        failure = Some(value_error(format!("rng returned {x}, not a float in [0, 1)")));
                        0.0
                    }
                    Err(e) => {
                        failure = Some(e);
                        0.0
                    }
                }
            };
            self.inner.resample_from_infostate(seat, &mut draw)
        };
        match failure {
            Some(e) => Err(e),
            None => Ok(State { inner }),
        }
    }
    /// Every action integer since the start, chance outcomes included.
    fn history(&self) -> Vec<u32> {
        self.inner.history().iter().map(|a| a.to_int()).collect()
    }
    fn history_str(&self) -> String {
        let h: Vec<String> = self.history().iter().map(u32::to_string).collect();
        h.join(", ")
    }
    fn move_number(&self) -> usize {
        self.inner.history().len()
    }
    fn serialize(&self) -> String {
        self.inner.to_json()
    }
    fn get_game(&self) -> Game {
        Game { config: self.inner.config().clone() }
    }
    fn clone(&self) -> State {
        Clone::clone(self)
    }
    fn __copy__(&self) -> State {
        Clone::clone(self)
    }
    fn __deepcopy__(&self, _memo: Bound<'_, PyAny>) -> State {
        Clone::clone(self)
    }
    /// The cards `player` holds now, in notation (`""` for an empty hand).
    fn hand(&self, player: i64) -> PyResult<String> {
        let hand = self.inner.hand(self.seat(Some(player))?);
        Ok(if hand.is_empty() { String::new() } else { hand.to_string() })
    }
    /// The landlord's seat once known.
    fn landlord(&self) -> Option<u8> {
        self.inner.landlord().map(Seat::number)
    }
    /// The play to beat and its seat, or None when the player to act leads (a laizi play with
    /// wild cards as `reading/stands`, e.g. `5555/5`).
    fn rival(&self) -> Option<(u8, String)> {
        self.inner.rival().map(|r| (r.seat.number(), play_notation(&r.play)))
    }
    /// The bottom's three cards once they are shown (when the landlord is known), else None.
    fn bottom(&self) -> Option<String> {
        self.inner.bottom_revealed().then(|| self.inner.bottom().to_string())
    }
    /// The bids made so far, in turn from the first bidder (0 = pass).
    fn bids(&self) -> Vec<u32> {
        self.inner.bids().iter().map(|&b| b as u32).collect()
    }
    /// The public plays so far: `[(seat, play)]`.
    fn plays(&self) -> Vec<(u8, String)> {
        self.inner.play_record().iter().map(|r| (r.seat.number(), play_notation(&r.play))).collect()
    }
    /// What `player` knows here: its hand and the public record, never another hand. Its
    /// `to_json()` is the native bot protocol's request.
    fn view(&self, player: i64) -> PyResult<View> {
        let seat = self.seat(Some(player))?;
        if self.inner.is_chance_node() {
            return Err(value_error("no view while the cards are being dealt"));
        }
        Ok(View { inner: self.inner.view(seat).into_owned() })
    }
    fn __str__(&self) -> String {
        let s = &self.inner;
        let hands: Vec<String> = s.table().seats().iter().map(|&q| format!("seat {q}: {}", s.hand(q))).collect();
        format!("{}\n{}", hands.join("\n"), s.observation_string(s.current_player().unwrap_or(Seat::S0)))
    }
    fn __repr__(&self) -> String {
        format!("<ddz State: player {} after {} actions>", self.current_player(), self.move_number())
    }
}

/// What one seat knows (`state.view(seat)`, or `View.from_json` of a bot request): its own
/// cards and the public record, never another hand.
#[pyclass(module = "ddz._ddz", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct View {
    inner: ddz_engine::game::View<'static>,
}

#[pymethods]
impl View {
    /// The view a native bot request describes, checked against the rules.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<View> {
        ddz_engine::game::View::from_json(text).map(|inner| View { inner }).map_err(value_error)
    }
    /// The native bot protocol's request: `{"seat","hand","bottom","history"}` at a play,
    /// `{"seat_index","hand","bids"}` while bidding.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(value_error)
    }
    /// The seat whose view this is (0 to 2; 0 or 1 in a two-player game).
    #[getter]
    fn seat(&self) -> u8 {
        self.inner.seat().number()
    }
    /// Its role (`landlord`, `landlord_down`, `landlord_up`; two-player: `landlord`, `farmer`),
    /// None while bidding.
    #[getter]
    fn role(&self) -> Option<&'static str> {
        let table = self.inner.table();
        self.inner.role().map(|r| r.name_at(table))
    }
    /// The rules: `"standard"`, `"laizi"` or `"two_player"`.
    #[getter]
    fn rules(&self) -> &'static str {
        self.inner.config().rules.name()
    }
    /// Two-player: the conceded cards (public); 0 under other rules.
    #[getter]
    fn conceded(&self) -> u8 {
        self.inner.conceded()
    }
    /// Its cards now, in notation.
    #[getter]
    fn hand(&self) -> String {
        self.inner.hand().to_string()
    }
    /// The bottom once shown, else None.
    #[getter]
    fn bottom(&self) -> Option<String> {
        self.inner.bottom().map(|b| b.to_string())
    }
    /// The bids so far, in turn from the first bidder (0 = pass).
    #[getter]
    fn bids(&self) -> Vec<u8> {
        self.inner.bids().to_vec()
    }
    /// The public plays so far: `[(seat, play)]`.
    #[getter]
    fn plays(&self) -> Vec<(u8, String)> {
        self.inner.play_record().iter().map(|r| (r.seat.number(), play_notation(&r.play))).collect()
    }
    /// Laizi: the wild rank once drawn (`"7"`), else None.
    #[getter]
    fn wild(&self) -> Option<String> {
        self.inner.wild().map(|w| w.to_string())
    }
    /// How many cards `player` holds now.
    fn cards_left(&self, player: i64) -> PyResult<u32> {
        let seat = self.inner.table().seat(player).map_err(|e| value_error(format!("player {player}: {e}")))?;
        Ok(self.inner.cards_left(seat))
    }
    /// The seat's legal plays in notation (laizi plays with wild cards as `reading/stands`);
    /// empty unless it is to play.
    fn legal_plays(&self) -> Vec<String> {
        let mut plays = ddz_engine::game::MoveList::new();
        self.inner.legal_plays_into(&mut plays);
        plays.iter().map(play_notation).collect()
    }
    /// A full state the seat cannot tell from the real one: the hidden cards dealt afresh from
    /// `seed`.
    fn redeal(&self, seed: u64) -> State {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        State { inner: self.inner.redeal(&mut || rand::RngExt::random::<f64>(&mut rng)) }
    }
    fn __repr__(&self) -> String {
        format!("<ddz View: seat {} holding {}>", self.seat(), self.hand())
    }
}
