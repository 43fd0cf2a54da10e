//! The game as a state machine, in the shape of OpenSpiel's State API.
//!
//! Phases: deal (one chance node per card of the deck: positions 0..51 go round the seats, 51..54
//! to the bottom; two-player: 0..34 round the two seats, 34..37 the bottom, 37..46 set aside)
//! → optional bidding → the bottom joins the landlord's hand, shown to all → play.
//!
//! Hands are rank counts: the rules only see ranks. The physical cards with their suits live in
//! the deal (each chance outcome is one card), so suits never carry information in play.

use super::action_table::{ActionId, ActionTable};
use super::laizi::{self, WildRank};
use super::movegen::{MoveList, legal_plays};
use super::play::{BombTier, Kind, Play};
use super::seat::{MAX_SEATS, Seat, Table, by_seat};
use crate::cards::{Card, CardSet, Counts};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Cards dealt to each player before the bottom is handed out (under every rules setting).
pub const HAND_SIZE: usize = 17;
/// Size of the landlord's bottom (kitty).
pub const BOTTOM_SIZE: usize = 3;
/// Two-player: the cards set aside face down for the whole game, seen by neither seat.
pub const SET_ASIDE_SIZE: usize = 9;
/// Two-player: the most robs the bidding allows by default ([`GameConfig::max_robs`]).
pub const MAX_ROBS: u8 = 4;

/// How a finished game is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// +1 for each winner, −1 for each loser.
    #[default]
    WinLoss,
    /// base (the winning bid, 1 without bidding) × 2 per bomb or rocket played (two-player:
    /// and per rob) × 2 for a spring / anti-spring (when enabled); the landlord wins or loses
    /// a farmer's amount for each farmer (twice it at a table of three).
    Score,
}

/// Which rules a game follows: the standard set, or a variant beside it (docs/rules.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Rules {
    /// The standard rules: 54 cards, three seats, no wild cards.
    #[default]
    Standard,
    /// Laizi (癞子): the four cards of one rank, drawn after the deal, are wild
    /// ([`crate::game::laizi`]).
    Laizi,
    /// Two-player Dou Dizhu (二人斗地主): 46 cards (no 3s or 4s), two seats, 17 cards each, the
    /// bottom of 3 to the landlord and 9 cards set aside unseen; calling and robbing for the
    /// landlord, and the farmer wins once no more cards are left than were conceded
    /// ([`State::conceded`]).
    TwoPlayer,
}

impl Rules {
    /// Every rules setting, in the order `--help` lists them.
    pub const ALL: [Rules; 3] = [Rules::Standard, Rules::Laizi, Rules::TwoPlayer];
    /// The setting's name, as configs and flags spell it.
    pub const fn name(self) -> &'static str {
        match self {
            Rules::Standard => "standard",
            Rules::Laizi => "laizi",
            Rules::TwoPlayer => "two_player",
        }
    }
    /// The seats of a game under these rules.
    pub const fn table(self) -> Table {
        match self {
            Rules::Standard | Rules::Laizi => Table::THREE,
            Rules::TwoPlayer => Table::TWO,
        }
    }
    /// The cards dealt: all 54, or two-player's 46 (no 3s or 4s).
    pub const fn deck(self) -> CardSet {
        // A card's bit is rank × 4 + suit: 52 cards of 3..2, the jokers at bits 52 and 56.
        const FULL: u64 = ((1 << 53) - 1) | (1 << 56);
        match self {
            Rules::Standard | Rules::Laizi => CardSet(FULL),
            Rules::TwoPlayer => CardSet(FULL & !0xFF), // bits 0..8: the 3s and 4s
        }
    }
    /// The deck's ranks: every rank's cards, or none of rank 3 and 4 in two-player.
    pub fn deck_counts(self) -> Counts {
        self.deck().counts()
    }
    /// How many cards the deck holds: 54, or 46.
    pub const fn deck_size(self) -> usize {
        self.deck().0.count_ones() as usize
    }
    /// Cards set aside unseen after the hands and the bottom: 9 in two-player, else none.
    pub const fn set_aside_size(self) -> usize {
        match self {
            Rules::Standard | Rules::Laizi => 0,
            Rules::TwoPlayer => SET_ASIDE_SIZE,
        }
    }
    /// Cards dealt to the seats before the bottom: 17 a seat.
    pub const fn dealt_to_seats(self) -> usize {
        self.table().len() * HAND_SIZE
    }
}

/// Where the card dealt at some position of the deal goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// A seat's hand.
    Seat(Seat),
    /// The landlord's bottom.
    Bottom,
    /// Two-player: the cards set aside, unseen by both seats.
    SetAside,
}

impl Slot {
    /// Where the card dealt at `position` (0 = the first) goes under `rules`: round the seats
    /// 17 times, then 3 to the bottom, then the rest set aside.
    pub fn of_position(rules: Rules, position: usize) -> Slot {
        let table = rules.table();
        if position < rules.dealt_to_seats() {
            Slot::Seat(Seat::ALL[position % table.len()])
        } else if position < rules.dealt_to_seats() + BOTTOM_SIZE {
            Slot::Bottom
        } else {
            Slot::SetAside
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rules name that is none of [`Rules::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rules {0:?} (expected one of: standard, laizi, two_player)")]
pub struct UnknownRules(pub String);

impl std::str::FromStr for Rules {
    type Err = UnknownRules;
    fn from_str(s: &str) -> Result<Rules, UnknownRules> {
        Rules::ALL.into_iter().find(|r| r.name() == s.trim()).ok_or_else(|| UnknownRules(s.to_string()))
    }
}

/// Rule options of a game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameConfig {
    /// Run the 1/2/3-point bidding; off = `landlord_seat` is the landlord (DouZero's setup).
    pub bidding: bool,
    /// The landlord when bidding is off.
    pub landlord_seat: Seat,
    /// How a finished game is scored.
    pub scoring: Scoring,
    /// Double a spring (farmers never played) or anti-spring (landlord played only once).
    pub spring: bool,
    /// The seat that bids first (with bidding); the others follow in seat order.
    pub first_bidder: Seat,
    /// The rules: standard, or a variant (docs/rules.md).
    pub rules: Rules,
    /// Laizi: what a soft bomb multiplies the stake by in score mode (every other bomb doubles).
    pub soft_bomb_multiplier: u8,
    /// Two-player without bidding: the cards conceded to the farmer, who wins once no more
    /// cards than this are left in their hand (with bidding, each rob concedes one instead).
    #[serde(skip_serializing_if = "is_zero")]
    pub conceded: u8,
    /// Two-player bidding: the most robs; the robber who makes the last one is the landlord.
    #[serde(skip_serializing_if = "is_default_robs")]
    pub max_robs: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

fn is_default_robs(n: &u8) -> bool {
    *n == MAX_ROBS
}

/// Most cards a two-player game may concede: the farmer must still hold more at the start.
pub const MOST_CONCEDED: u8 = (HAND_SIZE - 1) as u8;

/// A [`GameConfig`] whose settings do not make a game; names the setting and the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// A seat that is not at the rules' table.
    #[error("{field} = {seat}: {rules} games have seats 0 to {}", rules.table().len() - 1)]
    Seat {
        /// `landlord_seat` or `first_bidder`.
        field: &'static str,
        /// The seat given.
        seat: Seat,
        /// The rules.
        rules: Rules,
    },
    /// Conceded cards where no game can have them, or more than a farmer could ever be short of.
    #[error("conceded = {conceded}: {reason}")]
    Conceded {
        /// The value given.
        conceded: u8,
        /// Why it is refused.
        reason: String,
    },
    /// More robs than any game could concede.
    #[error("max_robs = {0}: at most {MOST_CONCEDED} (each rob concedes a card of the farmer's 17)")]
    MaxRobs(u8),
}

impl ConfigError {
    /// The name of the setting refused, as configs and requests spell it.
    pub fn setting(&self) -> &'static str {
        match self {
            ConfigError::Seat { field, .. } => field,
            ConfigError::Conceded { .. } => "conceded",
            ConfigError::MaxRobs(_) => "max_robs",
        }
    }
}

impl GameConfig {
    /// Whether these settings make a game under their rules, or the setting that does not.
    pub fn check(&self) -> Result<(), ConfigError> {
        let table = self.rules.table();
        for (field, seat) in [("landlord_seat", self.landlord_seat), ("first_bidder", self.first_bidder)] {
            if !table.has(seat) {
                return Err(ConfigError::Seat { field, seat, rules: self.rules });
            }
        }
        if self.conceded > 0 && self.rules != Rules::TwoPlayer {
            let reason = format!("only two-player games concede cards, not {}", self.rules);
            return Err(ConfigError::Conceded { conceded: self.conceded, reason });
        }
        if self.conceded > MOST_CONCEDED {
            let reason = format!("at most {MOST_CONCEDED}, or the farmer would win before the first play");
            return Err(ConfigError::Conceded { conceded: self.conceded, reason });
        }
        if self.max_robs > MOST_CONCEDED {
            return Err(ConfigError::MaxRobs(self.max_robs));
        }
        Ok(())
    }
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            bidding: false,
            landlord_seat: Seat::S0,
            scoring: Scoring::WinLoss,
            spring: true,
            first_bidder: Seat::S0,
            rules: Rules::Standard,
            soft_bomb_multiplier: 2,
            conceded: 0,
            max_robs: MAX_ROBS,
        }
    }
}

/// A seat's role once the landlord is known.
///
/// At a table of two the one farmer is [`Role::LandlordDown`]: it plays right after the
/// landlord (and right before); no seat is [`Role::LandlordUp`] there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The seat that took the bottom and plays alone against the farmers.
    Landlord,
    /// The farmer who plays right after the landlord (two-player: the farmer).
    LandlordDown,
    /// The farmer who plays right before the landlord (at a table of three).
    LandlordUp,
}

impl Role {
    /// The three roles in play order from the landlord, indexed by [`Role::index`].
    pub const ALL: [Role; 3] = [Role::Landlord, Role::LandlordDown, Role::LandlordUp];
    /// Position in [`Role::ALL`]: landlord 0, landlord_down 1, landlord_up 2.
    pub fn index(self) -> usize {
        self as usize
    }
    /// Snake-case name: `landlord`, `landlord_down` or `landlord_up`.
    pub const fn name(self) -> &'static str {
        match self {
            Role::Landlord => "landlord",
            Role::LandlordDown => "landlord_down",
            Role::LandlordUp => "landlord_up",
        }
    }
    /// The role a [`Role::name`] names, if any.
    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == s)
    }
    /// The role's name at `table`: [`Role::name`], but `farmer` for the one farmer of a table
    /// of two.
    pub const fn name_at(self, table: Table) -> &'static str {
        match (self, table.len()) {
            (Role::LandlordDown, 2) => "farmer",
            _ => self.name(),
        }
    }
    /// The role of a game at `table` that [`Role::name_at`] names, if any.
    pub fn parse_at(table: Table, s: &str) -> Option<Role> {
        Role::at(table).iter().copied().find(|r| r.name_at(table) == s)
    }
    /// The role of `seat` at `table` when `landlord` holds the landlord's seat: turn order
    /// decides the rest.
    pub fn of_seat(table: Table, seat: Seat, landlord: Seat) -> Role {
        Role::ALL[table.turns_after(seat, landlord)]
    }
    /// The roles of a game at `table`, in play order from the landlord.
    pub fn at(table: Table) -> &'static [Role] {
        &Role::ALL[..table.len()]
    }
    /// The role that plays right after this one at a table of three.
    pub fn next(self) -> Role {
        Role::ALL[(self.index() + 1) % 3]
    }
    /// The role that plays right before this one at a table of three.
    pub fn prev(self) -> Role {
        Role::ALL[(self.index() + 2) % 3]
    }
    /// Whether the role is a farmer (not the landlord).
    pub fn is_farmer(self) -> bool {
        self != Role::Landlord
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Cards are being dealt: every node is a chance node.
    Deal,
    /// Seats bid for the landlord (only with bidding on).
    Bid,
    /// Laizi: the landlord is known and the wild rank is drawn (a chance node).
    Wild,
    /// The landlord is known and seats play in turn.
    Play,
    /// The game is over: a seat emptied its hand, or nobody bid.
    Over,
}

/// One move of any kind: a chance outcome (a card dealt), a bid (0 = pass), or a play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// A chance outcome: the next card dealt.
    Deal(Card),
    /// A bid: 0 = pass, else 1..=3 points.
    Bid(u8),
    /// A chance outcome of laizi: the wild rank drawn once the landlord is known.
    Wild(WildRank),
    /// A play or pass by action-table id (serialised as its notation).
    Play(#[serde(with = "play_notation")] ActionId),
}

/// Plays serialise as their notation (`"34567"`, `"pass"`), not as table ids.
mod play_notation {
    use super::ActionId;
    use crate::game::laizi::ids;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(id: &ActionId, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&ids::notation(*id).ok_or_else(|| serde::ser::Error::custom("no such play id"))?)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ActionId, D::Error> {
        let text = String::deserialize(d)?;
        ids::parse_notation(&text).ok_or_else(|| D::Error::custom(format!("{text:?} is not a play")))
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Deal(c) => write!(f, "deal {c}"),
            Action::Bid(0) => write!(f, "bid pass"),
            Action::Bid(n) => write!(f, "bid {n}"),
            Action::Wild(w) => write!(f, "wild {w}"),
            Action::Play(id) => f.write_str(&laizi::ids::notation(*id).unwrap_or_else(|| format!("play #{}", id.0))),
        }
    }
}

/// Why a state call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GameError {
    /// `chance_outcomes` was called outside the deal; holds the phase it was in.
    #[error("chance_outcomes() called at a {0:?} node, which is not a chance node")]
    NotChanceNode(Phase),
    /// An action the rules do not allow here; the state is unchanged.
    #[error("illegal action {action} {} in phase {phase:?}: {reason}", player.map_or("at a chance node".into(), |p| format!("for player {p}")))]
    Illegal {
        /// The action, as text.
        action: String,
        /// The seat to act; `None` at a chance or terminal node and for a fixed deal.
        player: Option<Seat>,
        /// The phase the state was in.
        phase: Phase,
        /// Why the action is illegal.
        reason: String,
    },
    /// An action applied to a game that is over.
    #[error("the game is over")]
    Terminal,
    /// A saved state that is not valid JSON or replays an illegal action; says which.
    #[error("bad saved state: {0}")]
    BadSave(String),
}

/// One entry of the public play record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayRecord {
    /// The seat that made the play.
    pub seat: Seat,
    /// The play, `pass` included.
    pub play: Play,
}

/// A game from the first card dealt to the result: hands, bids, plays and the full action history.
///
/// A whole game, every seat playing a legal play drawn at random:
///
/// ```
/// use ddz_engine::game::{MoveList, State};
/// use rand::{RngExt, SeedableRng};
///
/// let mut rng = rand::rngs::StdRng::seed_from_u64(7);
/// let mut state = State::new(Default::default()); // no bidding: seat 0 is the landlord
/// state.deal_random(&mut rng);
/// let mut plays = MoveList::new();
/// while state.current_player().is_some() {
///     state.legal_plays_into(&mut plays);
///     let k = rng.random_range(0..plays.len());
///     state.apply_play_unchecked(plays[k]); // one of the legal plays
/// }
/// let winner = state.winner().expect("someone emptied a hand");
/// assert_eq!(state.hand(winner).len(), 0);
/// assert!(state.returns()[winner] > 0.0);
/// ```
#[derive(Clone, Debug)]
pub struct State {
    config: GameConfig,
    phase: Phase,
    /// Physical cards dealt to each seat (before the bottom joins the landlord).
    dealt: [CardSet; MAX_SEATS],
    bottom: CardSet,
    /// Two-player: the cards set aside, which nobody sees.
    set_aside: CardSet,
    undealt: CardSet,
    dealt_count: u8,
    /// Current hands, rank counts.
    hands: [Counts; MAX_SEATS],
    played: [Counts; MAX_SEATS],
    /// Non-pass plays per seat (spring detection).
    plays_made: [u16; MAX_SEATS],
    bids: Vec<u8>,
    landlord: Option<Seat>,
    /// The winning bid, 1 without bidding.
    base: u8,
    /// Laizi: the wild rank, once drawn.
    wild: Option<WildRank>,
    /// Laizi: soft bombs among `bombs`.
    soft_bombs: u8,
    current: Seat,
    /// Last non-pass play of the current trick and its seat.
    rival: Option<PlayRecord>,
    passes: u8,
    bombs: u8,
    record: Vec<PlayRecord>,
    winner: Option<Seat>,
    history: Vec<Action>,
}

/// What a saved state holds: the rules and every action since the start.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedState {
    config: GameConfig,
    history: Vec<Action>,
}

/// The initial state of a game with default rules.
pub fn new_initial_state() -> State {
    State::new(GameConfig::default())
}

impl State {
    /// A new game under `config`, at the first chance node (nothing dealt yet).
    pub fn new(config: GameConfig) -> State {
        State {
            undealt: config.rules.deck(),
            config,
            phase: Phase::Deal,
            dealt: [CardSet::EMPTY; MAX_SEATS],
            bottom: CardSet::EMPTY,
            set_aside: CardSet::EMPTY,
            dealt_count: 0,
            hands: [Counts::EMPTY; MAX_SEATS],
            played: [Counts::EMPTY; MAX_SEATS],
            plays_made: [0; MAX_SEATS],
            bids: Vec::new(),
            landlord: None,
            base: 1,
            wild: None,
            soft_bombs: 0,
            current: Seat::S0,
            rival: None,
            passes: 0,
            bombs: 0,
            record: Vec::with_capacity(64),
            winner: None,
            history: Vec::with_capacity(128),
        }
    }

    // ---- the OpenSpiel-style API ----

    /// The rules of this game.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }
    /// The seats of this game and their turn order (the rules').
    pub fn table(&self) -> Table {
        self.config.rules.table()
    }
    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// Whether the next action is a chance outcome: a card dealt, or laizi's wild rank.
    pub fn is_chance_node(&self) -> bool {
        matches!(self.phase, Phase::Deal | Phase::Wild)
    }
    /// Whether the game is over.
    pub fn is_terminal(&self) -> bool {
        self.phase == Phase::Over
    }
    /// The seat to act, or `None` at chance and terminal nodes.
    pub fn current_player(&self) -> Option<Seat> {
        match self.phase {
            Phase::Bid | Phase::Play => Some(self.current),
            Phase::Deal | Phase::Wild | Phase::Over => None,
        }
    }

    /// Each undealt card with probability 1/remaining; laizi's 13 wild ranks with 1/13 each.
    pub fn chance_outcomes(&self) -> Result<Vec<(Action, f64)>, GameError> {
        match self.phase {
            Phase::Deal => {
                let p = 1.0 / self.undealt.len() as f64;
                Ok(self.undealt.iter().map(|c| (Action::Deal(c), p)).collect())
            }
            Phase::Wild => Ok(WildRank::all().map(|w| (Action::Wild(w), 1.0 / 13.0)).collect()),
            phase => Err(GameError::NotChanceNode(phase)),
        }
    }

    /// Laizi: the wild rank, once drawn; `None` before and in the standard game.
    pub fn wild(&self) -> Option<WildRank> {
        self.wild
    }

    /// Every legal action, in a fixed order (cards, bids, then plays by table id).
    pub fn legal_actions(&self) -> Vec<Action> {
        match self.phase {
            Phase::Deal => self.undealt.iter().map(Action::Deal).collect(),
            Phase::Bid => self.legal_bids().map(Action::Bid).collect(),
            Phase::Wild => WildRank::all().map(Action::Wild).collect(),
            Phase::Play => {
                let table = ActionTable::get();
                let mut plays = MoveList::new();
                self.legal_plays_into(&mut plays);
                let mut ids: Vec<ActionId> = plays.iter().map(|p| table.id(p)).collect();
                ids.sort_unstable();
                ids.into_iter().map(Action::Play).collect()
            }
            Phase::Over => Vec::new(),
        }
    }

    /// Applies an action, or says why it is illegal (the state is then unchanged).
    pub fn try_apply_action(&mut self, action: Action) -> Result<(), GameError> {
        match self.check_action(action)? {
            Some(play) => self.commit_play(play), // the play its id names, read once
            None => self.commit_action(action),
        }
        Ok(())
    }

    /// Applies an action that must be legal here.
    ///
    /// # Panics
    ///
    /// If the action is illegal, with the message of the error [`State::try_apply_action`] returns.
    pub fn apply_action(&mut self, action: Action) {
        if let Err(e) = self.try_apply_action(action) {
            panic!("{e}");
        }
    }

    /// Applies an action the caller took from [`State::legal_actions`] (or otherwise knows is legal)
    /// without checking it; the state update is the one [`State::try_apply_action`] makes. An
    /// illegal action breaks the state's invariants (debug builds assert against it).
    pub fn apply_action_unchecked(&mut self, action: Action) {
        debug_assert!(self.check_action(action).is_ok(), "unchecked illegal action {action}");
        self.commit_action(action);
    }

    /// Why `action` is illegal here, if it is; for a play, the play its id names.
    fn check_action(&self, action: Action) -> Result<Option<Play>, GameError> {
        match (self.phase, action) {
            (Phase::Over, _) => Err(GameError::Terminal),
            (Phase::Deal, Action::Deal(card)) if !self.undealt.contains(card) => {
                Err(self.illegal(action, format!("{card} was already dealt")))
            }
            (Phase::Deal, Action::Deal(_)) => Ok(None),
            (Phase::Bid, Action::Bid(bid)) if !self.legal_bids().any(|b| b == bid) => {
                Err(self.illegal(action, bid_rule(self.config.rules, bid)))
            }
            (Phase::Bid, Action::Bid(_)) => Ok(None),
            (Phase::Wild, Action::Wild(_)) => Ok(None),
            // An id names the play in the game's own reading: only the move itself is checked.
            (Phase::Play, Action::Play(id)) => match self.play_of_id(id) {
                Some(play) => self.check_move(&play).map(Some),
                None => Err(self.illegal(action, "the id is no play under these rules and this wild rank".into())),
            },
            (phase, action) => {
                Err(self.illegal(action, format!("a {} action is not possible in phase {phase:?}", kind_of(action))))
            }
        }
    }

    fn commit_action(&mut self, action: Action) {
        match action {
            Action::Deal(card) => self.deal_card(card),
            Action::Bid(bid) => self.commit_bid(bid),
            Action::Wild(wild) => self.commit_wild(wild),
            Action::Play(id) => {
                let play = self.play_of_id(id).expect("a checked play id");
                self.commit_play(play)
            }
        }
    }

    /// The play an action id names in this game: a standard table id, or under laizi a laizi id
    /// read with the drawn wild rank.
    fn play_of_id(&self, id: ActionId) -> Option<Play> {
        match (self.config.rules, self.wild) {
            (Rules::Laizi, Some(wild)) => laizi::ids::play_of(id, wild),
            (Rules::Laizi, None) => None,
            (Rules::Standard | Rules::TwoPlayer, _) => ActionTable::get().plays().get(id.index()).copied(),
        }
    }

    /// Returns per seat (zero until the game is over, for a game nobody bid on, and for a seat
    /// that is not at the table).
    pub fn returns(&self) -> [f64; MAX_SEATS] {
        let (Some(winner), Some(landlord)) = (self.winner, self.landlord) else {
            return [0.0; MAX_SEATS];
        };
        let table = self.table();
        let landlord_won = winner == landlord;
        let amount = match self.config.scoring {
            Scoring::WinLoss => 1.0,
            Scoring::Score => self.multiplier() as f64,
        };
        // In score mode the landlord settles with each farmer.
        let landlord_share = match self.config.scoring {
            Scoring::WinLoss => amount,
            Scoring::Score => (table.len() - 1) as f64 * amount,
        };
        by_seat(|seat| {
            if !table.has(seat) {
                return 0.0;
            }
            let is_landlord = seat == landlord;
            let won = is_landlord == landlord_won;
            let value = if is_landlord { landlord_share } else { amount };
            if won { value } else { -value }
        })
    }

    /// A farmer's stake in score mode: base × 2^(bombs + rockets) × 2 for a spring; under laizi a
    /// soft bomb multiplies by the configured soft-bomb multiplier instead of 2; two-player
    /// doubles it once more per rob.
    pub fn multiplier(&self) -> u64 {
        let doubling = self.bombs - self.soft_bombs + self.robs();
        let soft = (self.config.soft_bomb_multiplier as u64).pow(self.soft_bombs as u32);
        let mut m = ((self.base as u64) << doubling) * soft;
        if self.config.spring && self.is_spring() {
            m *= 2;
        }
        m
    }

    /// Spring: the landlord won and the farmers never played; anti-spring: the farmers won and
    /// the landlord played only once.
    pub fn is_spring(&self) -> bool {
        let (Some(winner), Some(l)) = (self.winner, self.landlord) else { return false };
        if winner == l { self.table().others(l).all(|s| self.plays_made[s] == 0) } else { self.plays_made[l] == 1 }
    }

    /// Every action applied since the start, in order: deals, bids, plays.
    pub fn history(&self) -> &[Action] {
        &self.history
    }

    /// A JSON text from which [`State::from_json`] rebuilds this state exactly.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&SavedState { config: self.config.clone(), history: self.history.clone() })
            .expect("a state always serialises")
    }

    /// Rebuilds a state by replaying a saved history; an illegal or malformed history is an error.
    pub fn from_json(text: &str) -> Result<State, GameError> {
        let saved: SavedState = serde_json::from_str(text).map_err(|e| GameError::BadSave(e.to_string()))?;
        saved.config.check().map_err(|e| GameError::BadSave(e.to_string()))?;
        let mut state = State::new(saved.config);
        for (i, action) in saved.history.into_iter().enumerate() {
            state
                .try_apply_action(action)
                .map_err(|e| GameError::BadSave(format!("action {} ({action}): {e}", i + 1)))?;
        }
        Ok(state)
    }

    // ---- dealing ----

    /// Deals every remaining card in a uniformly random order (the same distribution as playing
    /// each chance node by its outcome probabilities), and under laizi without bidding draws the
    /// wild rank too.
    pub fn deal_random<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) {
        use rand::RngExt;
        let mut cards: Vec<Card> = self.undealt.iter().collect();
        for i in (1..cards.len()).rev() {
            let j = rng.random_range(0..=i);
            cards.swap(i, j);
        }
        for card in cards {
            self.deal_card(card);
        }
        // Without bidding, laizi's wild rank is drawn as the deal ends: part of the deal.
        self.draw_wild(rng);
    }

    /// Deals fixed hands: `hands[s]` to seat s (17 cards each; at a table of two the last slot
    /// empty) and `bottom` (3 cards), the rest of the deck set aside (two-player), or says why
    /// it cannot (not a fresh state, or not a deal of the rules' deck; the state is then
    /// unchanged).
    pub fn try_deal_hands(&mut self, hands: [CardSet; MAX_SEATS], bottom: CardSet) -> Result<(), GameError> {
        self.check_deal(&hands, bottom)?;
        self.commit_deal(&hands, bottom);
        Ok(())
    }

    /// Deals fixed hands that must make a deal.
    ///
    /// # Panics
    ///
    /// If they cannot be dealt, with the message of the error [`State::try_deal_hands`] returns.
    pub fn deal_hands(&mut self, hands: [CardSet; MAX_SEATS], bottom: CardSet) {
        if let Err(e) = self.try_deal_hands(hands, bottom) {
            panic!("{e}");
        }
    }

    /// Deals a deal the caller knows is valid (one of a checked [`crate::game::DealSet`] or of
    /// [`crate::game::generate_deals`]) onto a fresh state, without checking it; the state update
    /// is the one [`State::try_deal_hands`] makes (debug builds assert the check).
    pub fn deal_hands_unchecked(&mut self, hands: [CardSet; MAX_SEATS], bottom: CardSet) {
        debug_assert!(self.check_deal(&hands, bottom).is_ok(), "unchecked invalid deal");
        self.commit_deal(&hands, bottom);
    }

    fn check_deal(&self, hands: &[CardSet; MAX_SEATS], bottom: CardSet) -> Result<(), GameError> {
        let rules = self.config.rules;
        let table = rules.table();
        let all = hands.iter().fold(bottom, |acc, h| acc.union(*h));
        let parts: u32 = hands.iter().map(|h| h.len()).sum::<u32>() + bottom.len();
        let sizes_ok = Seat::ALL.iter().all(|&s| hands[s].len() as usize == if table.has(s) { HAND_SIZE } else { 0 })
            && bottom.len() as usize == BOTTOM_SIZE;
        let deck = rules.deck();
        if self.dealt_count != 0 || !sizes_ok || all.len() != parts || !all.minus(deck).is_empty() {
            let reason = match rules {
                Rules::TwoPlayer => {
                    "a two-player deal needs two disjoint 17-card hands and a 3-card bottom of the \
                                     46 cards without 3s and 4s, at the start"
                }
                Rules::Standard | Rules::Laizi => {
                    "a deal needs three disjoint 17-card hands and a 3-card bottom, at the start"
                }
            };
            return Err(GameError::Illegal {
                action: "deal".into(),
                player: None,
                phase: self.phase,
                reason: reason.into(),
            });
        }
        Ok(())
    }

    fn commit_deal(&mut self, hands: &[CardSet; MAX_SEATS], bottom: CardSet) {
        let rules = self.config.rules;
        let n = rules.table().len();
        let by_seat: Vec<Vec<Card>> = hands.iter().map(|h| h.iter().collect()).collect();
        for i in 0..rules.dealt_to_seats() {
            self.deal_card(by_seat[i % n][i / n]);
        }
        let rest = rules.deck().minus(hands.iter().fold(bottom, |acc, h| acc.union(*h)));
        for card in bottom.iter().chain(rest.iter()) {
            self.deal_card(card);
        }
    }

    /// Deals hands given as rank multisets (17 each; at a table of two the last empty) and the
    /// bottom (3), giving the cards suits; the rest of the deck is set aside (two-player).
    pub fn try_deal_counts(&mut self, hands: [Counts; MAX_SEATS], bottom: Counts) -> Result<(), GameError> {
        let too_many = || GameError::Illegal {
            action: "deal".into(),
            player: None,
            phase: self.phase,
            reason: "the hands and bottom hold more cards of some rank than the deck".into(),
        };
        let sets = crate::cards::assign_suits(&[hands[0], hands[1], hands[2], bottom]).ok_or_else(too_many)?;
        self.try_deal_hands([sets[0], sets[1], sets[2]], sets[3])
    }

    fn deal_card(&mut self, card: Card) {
        let position = self.dealt_count as usize;
        match Slot::of_position(self.config.rules, position) {
            Slot::Seat(seat) => {
                self.dealt[seat].insert(card);
                self.hands[seat].add(card.rank(), 1);
            }
            Slot::Bottom => self.bottom.insert(card),
            Slot::SetAside => self.set_aside.insert(card),
        }
        self.undealt.remove(card);
        self.dealt_count += 1;
        self.history.push(Action::Deal(card));
        if self.dealt_count as usize == self.config.rules.deck_size() {
            if self.config.bidding {
                self.phase = Phase::Bid;
                self.current = self.config.first_bidder;
            } else {
                self.start_play(self.config.landlord_seat);
            }
        }
    }

    // ---- bidding ----

    fn legal_bids(&self) -> impl Iterator<Item = u8> + use<> {
        legal_bids_after(self.config.rules, &self.bids)
    }

    /// The bids the seat to act may make (0 = pass), empty outside bidding.
    pub fn legal_bids_vec(&self) -> Vec<u8> {
        if self.phase == Phase::Bid { self.legal_bids().collect() } else { Vec::new() }
    }

    /// The last bid `seat` made, if it has bid (bids are made in turn from the first bidder;
    /// in two-player a seat may call and then rob).
    pub fn bid_of(&self, seat: Seat) -> Option<u8> {
        last_bid_of(self.table(), self.config.first_bidder, &self.bids, seat)
    }

    /// Two-player: how many times the landlord was robbed in the bidding (each doubles the stake
    /// and concedes a card); 0 under other rules and before a call.
    pub fn robs(&self) -> u8 {
        robs_in(self.config.rules, &self.bids)
    }

    /// Two-player: the farmer wins once no more than this many cards are left in their hand:
    /// the robs with bidding, [`GameConfig::conceded`] without; 0 under other rules.
    pub fn conceded(&self) -> u8 {
        conceded_in(&self.config, &self.bids)
    }

    /// Makes bid `bid` (0 = pass) for the seat to act, or says why it is illegal (the state is then
    /// unchanged); the same as [`State::try_apply_action`] with [`Action::Bid`].
    pub fn try_apply_bid(&mut self, bid: u8) -> Result<(), GameError> {
        self.try_apply_action(Action::Bid(bid))
    }

    /// Makes a bid that must be legal here.
    ///
    /// # Panics
    ///
    /// If the bid is illegal, with the message of the error [`State::try_apply_bid`] returns.
    pub fn apply_bid(&mut self, bid: u8) {
        self.apply_action(Action::Bid(bid));
    }

    /// Makes a bid the caller took from [`State::legal_bids_vec`] (or otherwise knows is legal)
    /// without checking it; the state update is the one [`State::try_apply_bid`] makes.
    pub fn apply_bid_unchecked(&mut self, bid: u8) {
        self.apply_action_unchecked(Action::Bid(bid));
    }

    fn commit_bid(&mut self, bid: u8) {
        self.bids.push(bid);
        self.history.push(Action::Bid(bid));
        let bidder = self.current;
        let outcome = match self.config.rules {
            Rules::TwoPlayer => two_player_bidding(&self.bids, self.config.first_bidder, self.config.max_robs),
            Rules::Standard | Rules::Laizi => standard_bidding(&self.bids, self.config.first_bidder),
        };
        match outcome {
            Bidding::Open => self.current = self.table().next(bidder),
            Bidding::Void => self.phase = Phase::Over, // nobody bid: no contest, zero returns
            Bidding::Landlord { seat, base } => {
                self.base = base;
                self.start_play(seat);
            }
        }
    }

    fn start_play(&mut self, landlord: Seat) {
        self.landlord = Some(landlord);
        self.hands[landlord] = self.hands[landlord].plus(self.bottom.counts());
        self.current = landlord;
        self.phase = match self.config.rules {
            Rules::Laizi => Phase::Wild,
            Rules::Standard | Rules::TwoPlayer => Phase::Play,
        };
    }

    fn commit_wild(&mut self, wild: WildRank) {
        self.wild = Some(wild);
        self.history.push(Action::Wild(wild));
        self.phase = Phase::Play;
    }

    /// Laizi: draws the wild rank uniformly at the wild chance node (nothing elsewhere).
    pub fn draw_wild<R: rand::Rng + ?Sized>(&mut self, rng: &mut R) {
        use rand::RngExt;
        if self.phase == Phase::Wild {
            let wild = WildRank::new(rng.random_range(0..13u8)).expect("0..13 are the wild ranks");
            self.commit_wild(wild);
        }
    }

    // ---- play ----

    /// The play to beat, or `None` when the current player leads.
    pub fn rival(&self) -> Option<&PlayRecord> {
        self.rival.as_ref()
    }

    /// Legal plays of the current player into a reusable buffer (empty outside the play phase).
    pub fn legal_plays_into(&self, out: &mut MoveList) {
        if self.phase != Phase::Play {
            out.clear();
            return;
        }
        let rival = self.rival.as_ref().map(|r| &r.play);
        match self.wild {
            Some(wild) => laizi::legal_plays(self.hands[self.current], wild, rival, out),
            None => legal_plays(self.hands[self.current], rival, out),
        }
    }

    /// Plays `play` for the current player, or says why the rules forbid it (the state is then
    /// unchanged).
    pub fn try_apply_play(&mut self, play: Play) -> Result<(), GameError> {
        let play = self.check_play(&play)?;
        self.commit_play(play);
        Ok(())
    }

    /// Plays `play`, which must be legal, for the current player.
    ///
    /// # Panics
    ///
    /// If the play is illegal, with the message of the error [`State::try_apply_play`] returns.
    pub fn apply_play(&mut self, play: Play) {
        if let Err(e) = self.try_apply_play(play) {
            panic!("{e}");
        }
    }

    /// Plays `play`, taken from [`State::legal_plays_into`] or [`legal_plays`] for this state,
    /// without checking it; the state update is the one [`State::try_apply_play`] makes. An
    /// illegal play breaks the state's invariants (debug builds assert against it).
    pub fn apply_play_unchecked(&mut self, play: Play) {
        debug_assert!(self.check_play(&play) == Ok(play), "unchecked illegal play {play:?}");
        self.commit_play(play);
    }

    /// The play as the game records it (under laizi, with its preferred reading), or why the
    /// rules forbid it.
    fn check_play(&self, play: &Play) -> Result<Play, GameError> {
        if self.phase != Phase::Play {
            return Err(self.illegal_play(play, format!("no play is possible in phase {:?}", self.phase)));
        }
        self.check_move(&self.read_play(play)?)
    }

    /// Whether the player to act may make `play`, already in the game's reading: held, and a lead
    /// or an answer that beats the rival.
    fn check_move(&self, play: &Play) -> Result<Play, GameError> {
        let seat = self.current;
        if !play.cards.is_subset_of(self.hands[seat]) {
            return Err(self.illegal_play(play, format!("the hand {} does not hold {}", self.hands[seat], play)));
        }
        match (&self.rival, play.is_pass()) {
            (None, true) => Err(self.illegal_play(play, "the leader cannot pass".into())),
            (Some(r), false) if !play.beats(&r.play) => {
                Err(self.illegal_play(play, format!("{} does not beat {}", play, r.play)))
            }
            _ => Ok(*play),
        }
    }

    /// A play under these rules: as given in the standard game (which has no wild cards), the
    /// preferred reading of its cards and reading under laizi.
    fn read_play(&self, play: &Play) -> Result<Play, GameError> {
        match self.wild {
            None if play.wilds.count() > 0 => {
                Err(self.illegal_play(play, "wild cards exist only under laizi rules".into()))
            }
            None => Ok(*play),
            Some(_) if play.is_pass() => Ok(*play),
            Some(wild) => {
                laizi::read_play(play.cards, play.reading(), wild).map_err(|e| self.illegal_play(play, e.to_string()))
            }
        }
    }

    fn commit_play(&mut self, play: Play) {
        let seat = self.current;
        let id = ActionTable::get().id(&play);
        self.history.push(Action::Play(id));
        self.record.push(PlayRecord { seat, play });
        if play.is_pass() {
            self.passes += 1;
            if self.passes as usize == self.table().len() - 1 {
                self.rival = None; // the last player to play leads next
                self.passes = 0;
            }
        } else {
            self.hands[seat] = self.hands[seat].minus(play.cards);
            self.played[seat] = self.played[seat].plus(play.cards);
            self.plays_made[seat] += 1;
            if matches!(play.kind, Kind::Bomb | Kind::Rocket) {
                self.bombs += 1;
                self.soft_bombs += (play.kind == Kind::Bomb && play.bomb_tier() == BombTier::Soft) as u8;
            }
            self.rival = Some(PlayRecord { seat, play });
            self.passes = 0;
            if self.hands[seat].len() <= self.goal(seat) {
                self.winner = Some(seat);
                self.phase = Phase::Over;
                return;
            }
        }
        self.current = self.table().next(self.current);
    }

    /// How few cards `seat` must get down to to win: 0 (an empty hand), or for the two-player
    /// farmer the conceded cards.
    fn goal(&self, seat: Seat) -> u32 {
        if self.config.rules == Rules::TwoPlayer && Some(seat) != self.landlord { self.conceded() as u32 } else { 0 }
    }

    fn illegal(&self, action: Action, reason: String) -> GameError {
        GameError::Illegal { action: action.to_string(), player: self.current_player(), phase: self.phase, reason }
    }

    fn illegal_play(&self, play: &Play, reason: String) -> GameError {
        GameError::Illegal { action: play.to_string(), player: self.current_player(), phase: self.phase, reason }
    }

    // ---- what the encoder, agents and tools read ----

    /// The cards `seat` holds now (the landlord's with the bottom once known).
    pub fn hand(&self, seat: Seat) -> Counts {
        self.hands[seat]
    }
    /// Physical cards dealt to a seat (without the bottom).
    pub fn dealt_cards(&self, seat: Seat) -> CardSet {
        self.dealt[seat]
    }
    /// The physical cards dealt to each seat (without the bottom): what `deal_hands` takes.
    pub fn dealt_hands(&self) -> [CardSet; MAX_SEATS] {
        self.dealt
    }
    /// Two-player: the 9 cards set aside, which neither seat ever sees (empty under other rules,
    /// and until they are dealt).
    pub fn set_aside(&self) -> CardSet {
        self.set_aside
    }
    /// The bottom cards dealt so far (3 once the deal is done), kept after they join the landlord.
    pub fn bottom(&self) -> CardSet {
        self.bottom
    }
    /// Whether the bottom has been shown (it is once the landlord is known).
    pub fn bottom_revealed(&self) -> bool {
        self.landlord.is_some()
    }
    /// How many cards `seat` holds now.
    pub fn cards_left(&self, seat: Seat) -> u32 {
        self.hands[seat].len()
    }
    /// Every card `seat` has played so far.
    pub fn played_by(&self, seat: Seat) -> Counts {
        self.played[seat]
    }
    /// The landlord's seat, `None` until it is known (and for good if nobody bid).
    pub fn landlord(&self) -> Option<Seat> {
        self.landlord
    }
    /// Whether seats `a` and `b` play on the same side: both the landlord or both farmers
    /// (before the landlord is known, every seat counts as on one side).
    pub fn same_side(&self, a: Seat, b: Seat) -> bool {
        (Some(a) == self.landlord) == (Some(b) == self.landlord)
    }
    /// The role of `seat`, `None` until the landlord is known (and for a seat not at the table).
    pub fn role(&self, seat: Seat) -> Option<Role> {
        let table = self.table();
        self.landlord.filter(|_| table.has(seat)).map(|l| Role::of_seat(table, seat, l))
    }
    /// The seat that has `role`, `None` until the landlord is known (and for a role nobody has
    /// at this table: two-player has no landlord_up).
    pub fn seat_of(&self, role: Role) -> Option<Seat> {
        let table = self.table();
        self.landlord.filter(|_| role.index() < table.len()).map(|l| table.after(l, role.index() as u64))
    }
    /// The bids made so far, in turn from the first bidder (0 = pass).
    pub fn bids(&self) -> &[u8] {
        &self.bids
    }
    /// The base stake: the winning bid (1..=3) once bidding ends, 1 before it and without bidding.
    pub fn base(&self) -> u8 {
        self.base
    }
    /// Bombs and rockets played so far (each doubles the stake in score mode).
    pub fn bombs_played(&self) -> u8 {
        self.bombs
    }
    /// Every play and pass so far, in order, with its seat.
    pub fn play_record(&self) -> &[PlayRecord] {
        &self.record
    }
    /// The seat that won: it emptied its hand (or, the two-player farmer, got down to the
    /// conceded cards); `None` while the game runs or if nobody bid.
    pub fn winner(&self) -> Option<Seat> {
        self.winner
    }
    /// How many cards have been dealt, 0 to the deck's size (54, or 46 in two-player).
    pub fn dealt_count(&self) -> usize {
        self.dealt_count as usize
    }

    /// What `seat` knows here: its [`View`](super::View), the same as `View::of(self, seat)`.
    pub fn view(&self, seat: Seat) -> super::View<'_> {
        super::View::of(self, seat)
    }

    /// Everything `seat` knows, as text: its own hand, the bottom once shown, bids, every public
    /// play and pass, and the number of cards each player holds. Nothing else.
    pub fn information_state_string(&self, seat: Seat) -> String {
        super::View::of(self, seat).information_state_string()
    }
}

/// How the bidding stands after a bid.
enum Bidding {
    /// Someone is still to bid.
    Open,
    /// Nobody bid: the deal is void.
    Void,
    /// Over: `seat` is the landlord and the stake's base is `base`.
    Landlord { seat: Seat, base: u8 },
}

/// The standard 1-2-3 bidding after `bids`: a 3 ends it, else each seat bids once and the
/// highest bid wins (the first of equal bids, hence the strict comparison).
fn standard_bidding(bids: &[u8], first_bidder: Seat) -> Bidding {
    let table = Table::THREE;
    if bids.last() == Some(&3) {
        return Bidding::Landlord { seat: table.after(first_bidder, bids.len() as u64 - 1), base: 3 };
    }
    if bids.len() < table.len() {
        return Bidding::Open;
    }
    let (turn, high) = bids.iter().enumerate().fold((0, 0), |best, (i, &b)| if b > best.1 { (i, b) } else { best });
    match high {
        0 => Bidding::Void,
        base => Bidding::Landlord { seat: table.after(first_bidder, turn as u64), base },
    }
}

/// Two-player bidding after `bids` (1 = call, or rob once someone called; 0 = pass): the seats
/// alternate; two passes before a call void the deal; after a call a pass ends the bidding, and
/// so does the `max_robs`-th rob; the last to call or rob is the landlord.
fn two_player_bidding(bids: &[u8], first_bidder: Seat, max_robs: u8) -> Bidding {
    let table = Table::TWO;
    let Some(last_call) = bids.iter().rposition(|&b| b == 1) else {
        return if bids.len() == table.len() { Bidding::Void } else { Bidding::Open };
    };
    let landlord = Bidding::Landlord { seat: table.after(first_bidder, last_call as u64), base: 1 };
    let passed_after_call = bids.last() == Some(&0);
    if passed_after_call || robs_in(Rules::TwoPlayer, bids) >= max_robs { landlord } else { Bidding::Open }
}

/// The bids open after `bids` (0 = pass always among them): standard, a number above the
/// highest bid up to 3; two-player, 1 (a call, or a rob after one).
pub(super) fn legal_bids_after(rules: Rules, bids: &[u8]) -> impl Iterator<Item = u8> + use<> {
    let (high, top) = match rules {
        Rules::TwoPlayer => (0, 1),
        Rules::Standard | Rules::Laizi => (bids.iter().copied().max().unwrap_or(0), 3),
    };
    std::iter::once(0).chain(high + 1..=top)
}

/// Why `bid` is not a legal bid under `rules`.
fn bid_rule(rules: Rules, bid: u8) -> String {
    match rules {
        Rules::TwoPlayer => format!("bid {bid} is not 0 (pass) or 1 (call, or rob once someone called)"),
        Rules::Standard | Rules::Laizi => format!("bid {bid} is not 0 (pass) or above the highest bid, at most 3"),
    }
}

/// The last of `bids` that `seat` made, bids going round `table` from `first_bidder`.
pub(super) fn last_bid_of(table: Table, first_bidder: Seat, bids: &[u8], seat: Seat) -> Option<u8> {
    let first = table.turns_after(seat, first_bidder);
    bids.iter().skip(first).step_by(table.len()).next_back().copied()
}

/// Two-player: the robs among `bids` (every call after the first); 0 under other rules.
pub(super) fn robs_in(rules: Rules, bids: &[u8]) -> u8 {
    match rules {
        Rules::TwoPlayer => bids.iter().filter(|&&b| b == 1).count().saturating_sub(1) as u8,
        Rules::Standard | Rules::Laizi => 0,
    }
}

/// Two-player: the conceded cards of a game under `config` after `bids`.
pub(super) fn conceded_in(config: &GameConfig, bids: &[u8]) -> u8 {
    match (config.rules, config.bidding) {
        (Rules::TwoPlayer, true) => robs_in(config.rules, bids),
        (Rules::TwoPlayer, false) => config.conceded,
        (Rules::Standard | Rules::Laizi, _) => 0,
    }
}

fn kind_of(action: Action) -> &'static str {
    match action {
        Action::Deal(_) => "deal",
        Action::Bid(_) => "bid",
        Action::Wild(_) => "wild",
        Action::Play(_) => "play",
    }
}

/// For tools that reset internal fields while rewriting a state (resampling).
impl State {
    pub(super) fn replace_hidden(
        &mut self,
        dealt: [CardSet; MAX_SEATS],
        bottom: CardSet,
        set_aside: CardSet,
        undealt: CardSet,
        hands: [Counts; MAX_SEATS],
    ) {
        self.dealt = dealt;
        self.bottom = bottom;
        self.set_aside = set_aside;
        self.undealt = undealt;
        self.hands = hands;
    }
    pub(super) fn history_mut(&mut self) -> &mut Vec<Action> {
        &mut self.history
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn random_game(seed: u64, config: GameConfig) -> State {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut s = State::new(config);
        s.deal_random(&mut rng);
        while !s.is_terminal() {
            let actions = s.legal_actions();
            let a = actions[rand::RngExt::random_range(&mut rng, 0..actions.len())];
            s.apply_action(a);
        }
        s
    }

    #[test]
    fn chance_outcomes_sum_to_one_and_error_elsewhere() {
        let mut s = new_initial_state();
        let outcomes = s.chance_outcomes().unwrap();
        assert_eq!(outcomes.len(), 54);
        let total: f64 = outcomes.iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        s.deal_random(&mut rng);
        assert!(matches!(s.chance_outcomes(), Err(GameError::NotChanceNode(Phase::Play))));
        assert_eq!(s.cards_left(Seat::S0), 20);
        assert_eq!(s.current_player(), Some(Seat::S0));
    }

    #[test]
    fn illegal_actions_are_errors_and_change_nothing() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        let mut s = new_initial_state();
        s.deal_random(&mut rng);
        let before = s.to_json();
        let e = s.try_apply_action(Action::Play(ActionId::PASS)).unwrap_err().to_string();
        assert!(e.contains("for player 0") && !e.contains("Some("), "the leader cannot pass: {e}");
        assert!(s.try_apply_action(Action::Bid(1)).is_err());
        assert!(s.try_apply_bid(1).is_err());
        let missing = (0..15u8).find(|&r| s.hand(Seat::S0).get(r) == 0).unwrap();
        let play = Play::parse(&crate::cards::rank_char(missing).to_string()).unwrap();
        assert!(s.try_apply_play(play).is_err());
        assert_eq!(s.to_json(), before);
    }

    #[test]
    fn serialisation_round_trips() {
        for seed in 0..20 {
            let config = GameConfig { bidding: seed % 2 == 0, scoring: Scoring::Score, ..GameConfig::default() };
            let s = random_game(seed, config);
            let restored = State::from_json(&s.to_json()).unwrap();
            assert_eq!(restored.to_json(), s.to_json());
            assert_eq!(restored.returns(), s.returns());
            assert_eq!(restored.information_state_string(Seat::S1), s.information_state_string(Seat::S1));
        }
        assert!(State::from_json("{\"config\":{},\"history\":[{\"play\":\"3\"}]}").is_err());
        assert!(State::from_json("{\"config\":{\"bogus\":1},\"history\":[]}").is_err());
        let e = State::from_json(r#"{"config":{"rules":"two_player","landlord_seat":2},"history":[]}"#).unwrap_err();
        assert_eq!(e.to_string(), "bad saved state: landlord_seat = 2: two_player games have seats 0 to 1");
    }

    #[test]
    fn returns_follow_the_scoring_rules() {
        for seed in 0..50 {
            let s = random_game(seed, GameConfig { scoring: Scoring::Score, ..GameConfig::default() });
            let r = s.returns();
            let l = s.landlord().unwrap();
            assert_eq!(r.iter().sum::<f64>(), 0.0, "score mode is zero-sum");
            assert_eq!(r[l].abs(), 2.0 * s.multiplier() as f64);
            assert!(s.multiplier() >= 1 << s.bombs_played());
            let w = random_game(seed, GameConfig::default()).returns();
            assert!(w.iter().all(|x| x.abs() == 1.0));
        }
    }

    #[test]
    fn an_empty_hand_reads_none_not_pass() {
        use rand::{RngExt, SeedableRng};
        let mut s = State::new(Default::default());
        assert!(s.information_state_string(Seat::S0).contains("hand none\n"), "before the deal");
        let mut rng = rand::rngs::SmallRng::seed_from_u64(2);
        s.deal_random(&mut rng);
        let mut plays = crate::game::MoveList::new();
        while !s.is_terminal() {
            s.legal_plays_into(&mut plays);
            s.apply_play_unchecked(plays[rng.random_range(0..plays.len())]);
        }
        let winner = s.winner().unwrap();
        for text in [s.information_state_string(winner), s.observation_string(winner)] {
            assert!(text.contains("hand none\n") && !text.contains("hand pass"), "{text}");
        }
    }

    #[test]
    fn checked_and_unchecked_paths_make_the_same_game() {
        use rand::RngExt;
        for seed in 0..30 {
            let rules = if seed % 3 == 0 { Rules::Laizi } else { Rules::Standard };
            let config = GameConfig { bidding: seed % 2 == 0, rules, ..GameConfig::default() };
            let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
            let (mut checked, mut unchecked) = (State::new(config.clone()), State::new(config));
            while !checked.is_terminal() {
                let actions = checked.legal_actions();
                let a = actions[rng.random_range(0..actions.len())];
                checked.try_apply_action(a).unwrap();
                match a {
                    Action::Bid(b) => unchecked.apply_bid_unchecked(b),
                    Action::Play(id) => unchecked.apply_play_unchecked(unchecked.play_of_id(id).unwrap()),
                    Action::Deal(_) | Action::Wild(_) => unchecked.apply_action_unchecked(a),
                }
                assert_eq!(unchecked.to_json(), checked.to_json());
            }
            assert_eq!(unchecked.returns(), checked.returns());
            assert_eq!(unchecked.information_state_string(Seat::S2), checked.information_state_string(Seat::S2));
        }
    }

    #[test]
    #[should_panic(expected = "the leader cannot pass")]
    fn apply_play_panics_with_the_reason() {
        let mut s = new_initial_state();
        s.deal_random(&mut rand::rngs::StdRng::seed_from_u64(3));
        s.apply_play(Play::parse("pass").unwrap());
    }
}
