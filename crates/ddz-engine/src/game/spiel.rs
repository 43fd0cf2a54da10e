//! The game as OpenSpiel describes one: every action as one integer, the game's sizes and
//! utility bounds, and the current-turn observation string. The Python package mirrors these
//! names; the State API itself is in [`super::state`].
//!
//! Action integers: a card dealt is its id (0–53, as in deal files), a bid `b` (0 = pass, 1–3)
//! is `54 + b`, a play is `58 +` its action-table id (pass = 58). Laizi extends the plays to its
//! 7,409,259 ids ([`crate::game::laizi::ids`]) and puts the 13 wild ranks after them.

use super::action_table::{ActionId, ActionTable, NUM_ACTIONS};
use super::laizi::WildRank;
use super::laizi::ids::{NUM_LAIZI_ACTIONS, parse_notation};
use super::seat::Seat;
use super::state::{Action, GameConfig, Rules, Scoring, State};
use crate::cards::{Card, NUM_CARDS};

/// Chance outcomes at a deal node: the 54 cards.
pub const MAX_CHANCE_OUTCOMES: usize = NUM_CARDS;
/// First integer of the bids.
pub const FIRST_BID: u32 = NUM_CARDS as u32;
/// First integer of the plays (4 bids: pass, 1, 2, 3).
pub const FIRST_PLAY: u32 = FIRST_BID + 4;
/// Distinct action integers: cards, bids and plays.
pub const NUM_DISTINCT_ACTIONS: usize = FIRST_PLAY as usize + NUM_ACTIONS;
/// First integer of laizi's wild ranks (3 first), after its plays.
pub const FIRST_WILD: u32 = FIRST_PLAY + NUM_LAIZI_ACTIONS as u32;
/// Distinct action integers of laizi: cards, bids, its plays and the 13 wild ranks.
pub const LAIZI_NUM_DISTINCT_ACTIONS: usize = FIRST_WILD as usize + 13;

/// Distinct action integers of a game under `rules`.
pub fn num_distinct_actions(rules: Rules) -> usize {
    match rules {
        Rules::Standard | Rules::TwoPlayer => NUM_DISTINCT_ACTIONS,
        Rules::Laizi => LAIZI_NUM_DISTINCT_ACTIONS,
    }
}
/// Most play decisions in a game: at most 54 plays of cards with at most two passes between
/// consecutive ones.
pub const MAX_PLAY_DECISIONS: usize = NUM_CARDS + 2 * (NUM_CARDS - 1);
/// Most player decisions in a game: three bids, then the plays (two-player games are shorter:
/// at most 2 + 16 bids and 73 plays and passes).
pub const MAX_GAME_LENGTH: usize = 3 + MAX_PLAY_DECISIONS;
/// Chance nodes in a history: one per card.
pub const MAX_CHANCE_NODES: usize = NUM_CARDS;
/// Bombs and rockets a game can hold: 13 bombs and the rocket (two-player: 11 and the rocket).
const MAX_BOMBS: u32 = 14;

/// An action integer that is no action of the game: the integer and the game's rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("action {0} is not an action of this game (0 to {max} under {1} rules)", max = num_distinct_actions(*.1) - 1)]
pub struct ActionIntError(pub i64, pub Rules);

impl Action {
    /// The action's integer.
    pub fn to_int(self) -> u32 {
        match self {
            Action::Deal(card) => card.id() as u32,
            Action::Bid(b) => FIRST_BID + b as u32,
            Action::Play(id) => FIRST_PLAY + id.0,
            Action::Wild(w) => FIRST_WILD + w.rank() as u32,
        }
    }

    /// The action of an integer of a game under `rules`; outside
    /// 0..[`num_distinct_actions`] it is an error.
    pub fn from_int(n: i64, rules: Rules) -> Result<Action, ActionIntError> {
        let bad = ActionIntError(n, rules);
        match n {
            n if n < 0 || n >= num_distinct_actions(rules) as i64 => Err(bad),
            n if n < FIRST_BID as i64 => Card::from_id(n as u32).map(Action::Deal).map_err(|_| bad),
            n if n < FIRST_PLAY as i64 => Ok(Action::Bid((n - FIRST_BID as i64) as u8)),
            n if n < FIRST_WILD as i64 => Ok(Action::Play(ActionId((n - FIRST_PLAY as i64) as u32))),
            n => WildRank::new((n - FIRST_WILD as i64) as u8).map(Action::Wild).ok_or(bad),
        }
    }

    /// OpenSpiel's `ActionToString`: `deal 3♠`, `bid 2`, `bid pass`, `34567`, `pass`.
    pub fn to_spiel_string(self) -> String {
        self.to_string()
    }

    /// The inverse of [`Action::to_spiel_string`]: `deal 3♠` (or `deal N`, a card id), `bid N`,
    /// `bid pass`, a play in notation (any order of cards) or `pass`.
    pub fn from_spiel_string(text: &str) -> Result<Action, ActionParseError> {
        let bad = |reason: String| ActionParseError { text: text.to_string(), reason };
        let t = text.trim();
        if let Some(bid) = t.strip_prefix("bid ") {
            return match bid.trim() {
                "pass" | "0" => Ok(Action::Bid(0)),
                b => b
                    .parse::<u8>()
                    .ok()
                    .filter(|b| (1..=3).contains(b))
                    .map(Action::Bid)
                    .ok_or_else(|| bad(format!("bad bid {b:?}"))),
            };
        }
        if let Some(card) = t.strip_prefix("deal ") {
            return card_of_text(card.trim()).map(Action::Deal).map_err(bad);
        }
        if let Some(wild) = t.strip_prefix("wild ") {
            return WildRank::parse(wild).map(Action::Wild).map_err(|e| bad(e.to_string()));
        }
        if t.contains('/') {
            return parse_notation(t).map(Action::Play).ok_or_else(|| bad(format!("{t:?} is no laizi play")));
        }
        let play = super::Play::parse(t).map_err(|e| bad(e.to_string()))?;
        Ok(Action::Play(ActionTable::get().id(&play)))
    }
}

/// A text that is no action of [`Action::from_spiel_string`]: the text and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct ActionParseError {
    /// The text as given.
    pub text: String,
    /// Why it is not an action.
    pub reason: String,
}

/// A card as [`Card`]'s `Display` writes it (`3♠`, `T♦`, `B`, `R`) or as its id (`0`–`53`).
fn card_of_text(text: &str) -> Result<Card, String> {
    if let Ok(id) = text.parse::<u32>() {
        return Card::from_id(id).map_err(|e| e.to_string());
    }
    Card::deck()
        .find(|c| c.to_string() == text)
        .ok_or_else(|| format!("unknown card {text:?} (e.g. 3♠, T♦, B, R or 0-53)"))
}

/// The utility bounds of a game under `config`: win/loss is ±1; with points the landlord can
/// win or lose twice the largest stake (bid 3 × 2 per bomb or rocket × 2 for a spring), or in
/// two-player the largest stake (2 per rob × 2 per bomb or rocket × 2 for a spring).
pub fn utility_bounds(config: &GameConfig) -> (f64, f64) {
    match config.scoring {
        Scoring::WinLoss => (-1.0, 1.0),
        Scoring::Score => {
            let spring = if config.spring { 2.0 } else { 1.0 };
            let most = match config.rules {
                Rules::Laizi => 2.0 * 3.0 * f64::from(config.soft_bomb_multiplier.max(2)).powi(MAX_BOMBS as i32),
                Rules::Standard => 2.0 * 3.0 * 2f64.powi(MAX_BOMBS as i32),
                Rules::TwoPlayer => 2f64.powi(i32::from(config.max_robs) + MAX_BOMBS as i32 - 2),
            } * spring;
            (-most, most)
        }
    }
}

impl State {
    /// The current-turn view of `seat`, as text: its hand, every seat's cards left, the bottom
    /// once shown, the play to beat and the last 15 plays — what the observation tensor (the
    /// state features) holds, without the full history of the information state.
    pub fn observation_string(&self, seat: Seat) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "seat {seat}");
        let _ = writeln!(s, "hand {}", self.hand(seat).as_hand());
        let left: Vec<String> = self.table().seats().iter().map(|&q| self.cards_left(q).to_string()).collect();
        let _ = writeln!(s, "cards left {}", left.join(" "));
        if let Some(l) = self.landlord() {
            let _ = writeln!(s, "landlord {l} bottom {}", self.bottom().counts());
        }
        if let Some(w) = self.wild() {
            let _ = writeln!(s, "wild {w}");
        }
        if self.config().rules == Rules::TwoPlayer {
            let _ = writeln!(s, "conceded {}", self.conceded());
        }
        // A laizi play with wild cards as its id notation (`5555/5`), so the reading shows.
        let text = super::laizi::ids::play_notation;
        match self.rival() {
            Some(r) => {
                let _ = writeln!(s, "to beat {}:{}", r.seat, text(&r.play));
            }
            None => s.push_str("to beat none\n"),
        }
        let record = self.play_record();
        let recent: Vec<String> =
            record[record.len().saturating_sub(15)..].iter().map(|r| format!("{}:{}", r.seat, text(&r.play))).collect();
        let _ = writeln!(s, "recent {}", recent.join(" "));
        s
    }

    /// The legal action integers of the player to act, ascending (empty at a terminal node).
    pub fn legal_action_ints(&self) -> Vec<u32> {
        self.legal_actions().into_iter().map(Action::to_int).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_integers_round_trip_and_cover_the_space() {
        for n in 0..NUM_DISTINCT_ACTIONS as i64 {
            let a = Action::from_int(n, Rules::Standard).unwrap();
            assert_eq!(a.to_int() as i64, n);
            assert_eq!(Action::from_spiel_string(&a.to_spiel_string()).unwrap(), a, "{n}");
        }
        assert!(Action::from_int(-1, Rules::Standard).is_err());
        let past = Action::from_int(NUM_DISTINCT_ACTIONS as i64, Rules::Standard).unwrap_err().to_string();
        assert!(past.contains("0 to 27529 under standard rules"), "{past}");
        assert!(
            Action::from_int(LAIZI_NUM_DISTINCT_ACTIONS as i64, Rules::Laizi)
                .unwrap_err()
                .to_string()
                .contains("7409329")
        );
        for n in (NUM_DISTINCT_ACTIONS as i64..LAIZI_NUM_DISTINCT_ACTIONS as i64)
            .step_by(4099)
            .chain([FIRST_WILD as i64 + 12])
        {
            let a = Action::from_int(n, Rules::Laizi).unwrap();
            assert_eq!(a.to_int() as i64, n);
            assert_eq!(Action::from_spiel_string(&a.to_spiel_string()).unwrap(), a, "{n}");
        }
        assert_eq!(Action::from_spiel_string("deal 53").unwrap(), Action::Deal(Card::from_id(53).unwrap()));
        assert_eq!(Action::from_spiel_string("76543").unwrap().to_spiel_string(), "34567");
    }

    #[test]
    fn sizes() {
        assert_eq!(NUM_DISTINCT_ACTIONS, 27_530);
        assert_eq!(MAX_GAME_LENGTH, 163);
        let points = GameConfig { scoring: Scoring::Score, ..GameConfig::default() };
        assert_eq!(utility_bounds(&points), (-196_608.0, 196_608.0));
    }
}
