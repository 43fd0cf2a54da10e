//! Helpers around the State API: legal plays of a hand, the encoder, the rule and random agents,
//! and deal files.

use crate::spiel::{State, value_error};
use ddz_agents::agents::{Agent, RandomAgent as InnerRandom, RuleAgent as InnerRule};
use ddz_engine::cards::{Card, CardSet, Counts};
use ddz_engine::encode::{ACTION_DIM, STATE_DIM};
use ddz_engine::game::laizi::ids::{parse_play_notation, play_notation};
use ddz_engine::game::laizi::{self, WildRank};
use ddz_engine::game::{Action, ActionTable, Deal, MoveList, Play, legal_plays_vec};
use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

fn counts(text: &str, what: &str) -> PyResult<Counts> {
    Counts::parse(text).map_err(|e| value_error(format!("{what}: {e}")))
}

/// The legal plays of `hand` (notation, e.g. `"3455778899KAA22R"`) against `rival` (None or
/// `""` to lead), sorted by notation, `pass` included when following. With `wild` (a rank,
/// `"7"`) the hand plays by laizi rules: plays with wild cards are written `reading/stands`
/// (`5555/5`: a bomb of 5s, one of them a wild card), and so may the rival be.
#[pyfunction]
#[pyo3(signature = (hand, rival=None, wild=None))]
pub fn legal_plays(hand: &str, rival: Option<&str>, wild: Option<&str>) -> PyResult<Vec<String>> {
    let hand = counts(hand, "hand")?;
    let wild = wild.map(WildRank::parse).transpose().map_err(|e| value_error(format!("wild: {e}")))?;
    let rival = match rival.map(str::trim).filter(|r| !r.is_empty()) {
        Some(r) => Some(parse_play_notation(r, wild).map_err(|e| value_error(format!("rival: {e}")))?),
        None => None,
    };
    if rival.is_some_and(|r| r.is_pass()) {
        return Err(value_error("rival: a pass is not a play to beat (give None to lead)"));
    }
    let plays = match wild {
        Some(w) => laizi::legal_plays_vec(hand, w, rival.as_ref()),
        None => legal_plays_vec(hand, rival.as_ref()),
    };
    let mut plays: Vec<String> = plays.iter().map(play_notation).collect();
    plays.sort();
    Ok(plays)
}

/// The state features (float32, `STATE_DIM`) of `state` for `player`.
#[pyfunction]
pub fn encode_state<'py>(py: Python<'py>, state: &State, player: i64) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let seat = state.inner.table().seat(player).map_err(|e| value_error(format!("player {player}: {e}")))?;
    let mut v = vec![0.0; STATE_DIM];
    ddz_engine::encode::encode_state(&state.inner, seat, &mut v);
    Ok(PyArray1::from_vec(py, v))
}

/// The action features (float32, `ACTION_DIM`) of `play` made from `hand`.
#[pyfunction]
pub fn encode_action<'py>(py: Python<'py>, play: &str, hand: &str) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let play = Play::parse(play).map_err(|e| value_error(format!("play: {e}")))?;
    let hand = counts(hand, "hand")?;
    if !play.cards.is_subset_of(hand) {
        return Err(value_error(format!("the hand {hand} does not hold {play}")));
    }
    let mut v = vec![0.0; ACTION_DIM];
    ddz_engine::encode::encode_action(&play, hand, &mut v);
    Ok(PyArray1::from_vec(py, v))
}

/// The features of every legal play of the player to act (float32 [len(legal_actions()),
/// width]), row by row in the order of `state.legal_actions()`, as a network of that layout
/// reads them: `hand_structure` adds the hand-structure block (today's networks read it; its
/// ONNX file says so in `ddz_hand_structure`), and the plays of a laizi game carry the laizi
/// block. With `encode_state` it is all an exported network needs (docs/inference.md).
#[pyfunction]
#[pyo3(signature = (state, hand_structure=false))]
pub fn encode_plays<'py>(py: Python<'py>, state: &State, hand_structure: bool) -> PyResult<Bound<'py, PyArray2<f32>>> {
    let s = &state.inner;
    if s.phase() != ddz_engine::game::Phase::Play {
        return Err(value_error(format!("plays are encoded in the play phase; this state is in {:?}", s.phase())));
    }
    let seat = s.current_player().ok_or_else(|| value_error("the game is over"))?;
    let layout =
        ddz_engine::encode::ActionLayout { hand_structure, laizi: s.config().rules == ddz_engine::game::Rules::Laizi };
    let mut plays = MoveList::new();
    s.legal_plays_into(&mut plays);
    let table = ActionTable::get();
    let by_action: std::collections::HashMap<u32, &Play> =
        plays.iter().map(|p| (Action::Play(table.id(p)).to_int(), p)).collect();
    let actions = s.legal_action_ints();
    let in_order = actions
        .iter()
        .map(|a| by_action.get(a).map(|&&p| p).ok_or_else(|| value_error(format!("action {a} is not a play"))))
        .collect::<PyResult<Vec<Play>>>()?;
    let width = layout.dim();
    let mut rows = vec![0.0f32; actions.len() * width];
    layout.encode_plays(&s.view(seat), &in_order, &mut rows);
    let array = numpy::ndarray::Array2::from_shape_vec((actions.len(), width), rows).map_err(value_error)?;
    Ok(PyArray2::from_owned_array(py, array))
}

/// The action integer an agent chooses at `state` (plays only: no bidding yet).
fn agent_step(agent: &mut dyn Agent, state: &State) -> PyResult<u32> {
    let s = &state.inner;
    if s.phase() != ddz_engine::game::Phase::Play {
        return Err(value_error(format!("the agent plays cards only; this state is in phase {:?}", s.phase())));
    }
    let mut plays = MoveList::new();
    s.legal_plays_into(&mut plays);
    let seat = s.current_player().ok_or_else(|| value_error("the game is over"))?;
    let view = s.view(seat);
    let turn = ddz_agents::agents::Turn::new(&view, &plays).ok_or_else(|| value_error("the game is over"))?;
    let k = agent.choose(turn);
    let play = plays.get(k).ok_or_else(|| value_error("the agent chose outside the legal plays"))?;
    Ok(Action::Play(ActionTable::get().id(play)).to_int())
}

/// ddz's hand-written baseline: `step(state)` returns its action integer for the player to act.
/// It reads only what that player may see.
#[pyclass(module = "ddz._ddz")]
pub struct RuleAgent(InnerRule);

#[pymethods]
impl RuleAgent {
    #[new]
    fn new() -> RuleAgent {
        RuleAgent(InnerRule::new())
    }
    fn step(&mut self, state: &State) -> PyResult<u32> {
        agent_step(&mut self.0, state)
    }
}

/// Uniformly random legal plays from a seed: `step(state)` returns an action integer.
#[pyclass(module = "ddz._ddz")]
pub struct RandomAgent(InnerRandom);

#[pymethods]
impl RandomAgent {
    #[new]
    #[pyo3(signature = (seed=0))]
    fn new(seed: u64) -> RandomAgent {
        RandomAgent(InnerRandom::new(seed))
    }
    fn step(&mut self, state: &State) -> PyResult<u32> {
        agent_step(&mut self.0, state)
    }
}

fn deal_dict<'py>(py: Python<'py>, deal: &Deal) -> PyResult<Bound<'py, PyDict>> {
    let ids = |set: CardSet| set.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
    let d = PyDict::new(py);
    let names: &[&str] = match deal.table().len() {
        2 => &["landlord", "farmer"],
        _ => &["landlord", "landlord_down", "landlord_up"],
    };
    for (name, hand) in names.iter().zip(deal.hands) {
        d.set_item(*name, ids(hand))?;
    }
    d.set_item("bottom", ids(deal.bottom))?;
    if let Some(w) = deal.wild {
        d.set_item("wild", w.to_string())?;
    }
    Ok(d)
}

pub(crate) fn deal_of(d: &Bound<'_, PyDict>) -> PyResult<Deal> {
    let set = |key: &str| -> PyResult<CardSet> {
        let item = d.get_item(key)?.ok_or_else(|| value_error(format!("the deal has no {key:?}")))?;
        let ids: Vec<u32> = item.extract()?;
        ids.into_iter().map(|i| Card::from_id(i).map_err(|e| value_error(format!("{key}: {e}")))).collect()
    };
    let wild = match d.get_item("wild")? {
        Some(w) => Some(WildRank::parse(&w.extract::<String>()?).map_err(|e| value_error(format!("wild: {e}")))?),
        None => None,
    };
    // A two-player deal names the farmer's hand; the last slot stays empty.
    let hands = match d.contains("farmer")? {
        true => [set("landlord")?, set("farmer")?, CardSet::EMPTY],
        false => [set("landlord")?, set("landlord_down")?, set("landlord_up")?],
    };
    Ok(Deal { hands, bottom: set("bottom")?, wild })
}

/// `n` deals from `seed`, as dicts of card ids (the deal-file format of `ddz deals`); with
/// `rules="two_player"` two hands (`landlord`, `farmer`) of the 46-card deck.
#[pyfunction]
#[pyo3(signature = (n, seed, rules="standard"))]
pub fn generate_deals<'py>(py: Python<'py>, n: usize, seed: u64, rules: &str) -> PyResult<Vec<Bound<'py, PyDict>>> {
    ddz_engine::limits::check("generate_deals(n)", n).map_err(|e| value_error(e.to_string()))?;
    let rules: ddz_engine::game::Rules = rules.parse().map_err(value_error)?;
    ddz_engine::game::generate_deals_for(rules, n, seed).iter().map(|d| deal_dict(py, d)).collect()
}

/// The deals of a deal file (JSONL); a bad line is a `ValueError` naming the file and line.
#[pyfunction]
pub fn read_deals<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let deals = ddz_engine::game::read_deals(&path).map_err(value_error)?;
    deals.iter().map(|d| deal_dict(py, d)).collect()
}

/// Writes deals (dicts as `generate_deals` makes) to a deal file.
#[pyfunction]
pub fn write_deals(path: PathBuf, deals: Vec<Bound<'_, PyDict>>) -> PyResult<()> {
    let deals: Vec<Deal> = deals.iter().map(deal_of).collect::<PyResult<_>>()?;
    ddz_engine::game::write_deals(&path, &deals).map_err(|e| value_error(format!("{}: {e}", path.display())))
}

/// The limits table (`ddz_engine::limits`): `(name, least, most, whole)` for each setting, so that
/// the Python side checks its own arguments against the same ranges.
#[pyfunction]
pub fn limits() -> Vec<(&'static str, f64, f64, bool)> {
    ddz_engine::limits::LIMITS.iter().map(|l| (l.name, l.least, l.most, l.whole)).collect()
}
