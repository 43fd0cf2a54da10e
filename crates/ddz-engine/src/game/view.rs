//! [`View`]: what one seat knows — its own cards and the public record, never another hand.
//!
//! Agents decide on a view, the bot protocol's requests are views (their serde form), and search
//! gets full states from a view only through [`View::redeal`], which deals the hidden cards
//! afresh. A view holds no hidden card, so nothing handed one can read them.
//!
//! The serde form is the native bot protocol's request. At a play (and once the game is over):
//! `{"seat":"landlord_down","hand":"…","bottom":"…","history":[["landlord","34567"],…]}`, the
//! seats named by role, with `"bids":[…]` added when the landlord was bid for. While bidding:
//! `{"seat_index":1,"hand":"<17 cards>","bids":[…]}`, the seat named by its place in the
//! bidding order (0 bids first) and `bids` the bids before its own. The form names seats by
//! role and bidding order, not by number, so a view read from it sits in the default seating
//! (the landlord, or the first bidder, in seat 0); everything the seat knows is the same.
//! Under laizi a play request adds `"wild":"7"`, and each play of the history is written as its
//! reading and the ranks its wild cards stand for (`"5555/5"`, see [`crate::game::laizi::ids`]).

use super::laizi::{self, WildRank};
use super::seat::{MAX_SEATS, Seat, Table, by_seat};
use super::state::{
    Action, GameConfig, HAND_SIZE, Phase, PlayRecord, Role, Rules, Slot, State, conceded_in, last_bid_of,
    legal_bids_after, robs_in,
};
use super::{MoveList, Play, legal_plays};
use crate::cards::{CardSet, Counts, NUM_RANKS};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;

/// What `seat` knows of a game: the rules, its hand, the bids, the bottom once shown, every play
/// and pass, and how many cards each seat holds.
///
/// ```
/// use ddz_engine::game::{State, View};
/// use rand::SeedableRng;
///
/// let mut state = State::new(Default::default());
/// state.deal_random(&mut rand::rngs::StdRng::seed_from_u64(3));
/// let seat = state.current_player().unwrap();
/// let view = View::of(&state, seat);
/// assert_eq!(view.hand(), state.hand(seat));
/// // The protocol's request, and back: the same view.
/// let json = serde_json::to_string(&view).unwrap();
/// let back: View = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, view);
/// // A world the seat cannot tell from the real one.
/// let world = view.redeal(&mut || 0.5);
/// assert_eq!(View::of(&world, seat), view);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View<'a> {
    config: GameConfig,
    phase: Phase,
    seat: Seat,
    hand: Counts,
    /// Cards dealt so far: 54 once the deal is done.
    dealt: u8,
    landlord: Option<Seat>,
    /// The bottom, once the landlord is known.
    bottom: Option<Counts>,
    base: u8,
    bids: Cow<'a, [u8]>,
    record: Cow<'a, [PlayRecord]>,
    cards_left: [u32; MAX_SEATS],
    played: [Counts; MAX_SEATS],
    rival: Option<PlayRecord>,
    current: Option<Seat>,
    bombs: u8,
    winner: Option<Seat>,
    /// Laizi: the wild rank, once drawn (public).
    wild: Option<WildRank>,
}

/// Why a request is no view of any game.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ViewError {
    /// Not the protocol's JSON.
    #[error("bad request: {0}")]
    Json(String),
    /// A field that does not parse: its name and why.
    #[error("{field}: {reason}")]
    Field {
        /// The field's name in the request (`history 3` for the third play).
        field: String,
        /// Why its value does not parse.
        reason: String,
    },
    /// Well-formed, but no game is like that (cards that do not add up, plays out of turn…).
    #[error("{0}")]
    Impossible(String),
}

fn field(name: impl Into<String>, reason: impl std::fmt::Display) -> ViewError {
    ViewError::Field { field: name.into(), reason: reason.to_string() }
}

fn impossible(reason: impl Into<String>) -> ViewError {
    ViewError::Impossible(reason.into())
}

impl<'a> View<'a> {
    /// The view of `seat` at `state`, borrowing its record.
    pub fn of(state: &'a State, seat: Seat) -> View<'a> {
        View {
            config: state.config().clone(),
            phase: state.phase(),
            seat,
            hand: state.hand(seat),
            dealt: state.dealt_count() as u8,
            landlord: state.landlord(),
            bottom: state.bottom_revealed().then(|| state.bottom().counts()),
            base: state.base(),
            bids: Cow::Borrowed(state.bids()),
            record: Cow::Borrowed(state.play_record()),
            cards_left: by_seat(|q| state.cards_left(q)),
            played: by_seat(|q| state.played_by(q)),
            rival: state.rival().copied(),
            current: state.current_player(),
            bombs: state.bombs_played(),
            winner: state.winner(),
            wild: state.wild(),
        }
    }

    /// The same view, owning its record (to keep it past the state's life).
    pub fn into_owned(self) -> View<'static> {
        View { bids: Cow::Owned(self.bids.into_owned()), record: Cow::Owned(self.record.into_owned()), ..self }
    }

    /// The rules of the game.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }
    /// The seats of the game and their turn order.
    pub fn table(&self) -> Table {
        self.config.rules.table()
    }
    /// Two-player: how many times the landlord was robbed (0 under other rules).
    pub fn robs(&self) -> u8 {
        robs_in(self.config.rules, &self.bids)
    }
    /// Two-player: the farmer wins once no more than this many cards are left in their hand
    /// (public: the robs, or the game's setting); 0 under other rules.
    pub fn conceded(&self) -> u8 {
        conceded_in(&self.config, &self.bids)
    }
    /// Where the game stands.
    pub fn phase(&self) -> Phase {
        self.phase
    }
    /// The seat whose view this is.
    pub fn seat(&self) -> Seat {
        self.seat
    }
    /// The seat's cards now (the landlord's with the bottom once known).
    pub fn hand(&self) -> Counts {
        self.hand
    }
    /// The landlord's seat, `None` until it is known.
    pub fn landlord(&self) -> Option<Seat> {
        self.landlord
    }
    /// Laizi: the wild rank, once drawn; `None` before and in the standard game.
    pub fn wild(&self) -> Option<WildRank> {
        self.wild
    }
    /// The role of `seat`, `None` until the landlord is known (and for a seat not at the table).
    pub fn role_of(&self, seat: Seat) -> Option<Role> {
        let table = self.table();
        self.landlord.filter(|_| table.has(seat)).map(|l| Role::of_seat(table, seat, l))
    }
    /// The role of the view's seat, `None` until the landlord is known.
    pub fn role(&self) -> Option<Role> {
        self.role_of(self.seat)
    }
    /// The bottom cards, shown to all once the landlord is known.
    pub fn bottom(&self) -> Option<Counts> {
        self.bottom
    }
    /// The bids made so far, in turn from the first bidder (0 = pass).
    pub fn bids(&self) -> &[u8] {
        &self.bids
    }
    /// The last bid `seat` made, if it has bid.
    pub fn bid_of(&self, seat: Seat) -> Option<u8> {
        last_bid_of(self.table(), self.config.first_bidder, &self.bids, seat)
    }
    /// The base stake: the winning bid once bidding ends, 1 before it and without bidding.
    pub fn base(&self) -> u8 {
        self.base
    }
    /// Every play and pass so far, in order, with its seat.
    pub fn play_record(&self) -> &[PlayRecord] {
        &self.record
    }
    /// How many cards `seat` holds now.
    pub fn cards_left(&self, seat: Seat) -> u32 {
        self.cards_left[seat]
    }
    /// Every card `seat` has played so far.
    pub fn played_by(&self, seat: Seat) -> Counts {
        self.played[seat]
    }
    /// The play to beat, or `None` when the player to act leads.
    pub fn rival(&self) -> Option<&PlayRecord> {
        self.rival.as_ref()
    }
    /// The seat to act; `None` once the game is over.
    pub fn current_player(&self) -> Option<Seat> {
        self.current
    }
    /// Bombs and rockets played so far.
    pub fn bombs_played(&self) -> u8 {
        self.bombs
    }
    /// The seat that won (emptied its hand, or the two-player farmer got down to the conceded
    /// cards), `None` while the game runs or if nobody bid.
    pub fn winner(&self) -> Option<Seat> {
        self.winner
    }
    /// Whether the game is over.
    pub fn is_terminal(&self) -> bool {
        self.phase == Phase::Over
    }
    /// Whether seats `a` and `b` play on the same side (before the landlord is known, every
    /// seat counts as on one side).
    pub fn same_side(&self, a: Seat, b: Seat) -> bool {
        (Some(a) == self.landlord) == (Some(b) == self.landlord)
    }
    /// Whether the view's seat is to play (not bid): a decision of its own.
    pub fn is_own_play(&self) -> bool {
        self.phase == Phase::Play && self.current == Some(self.seat)
    }

    /// The seat's legal plays into a reusable buffer; empty unless it is to play.
    pub fn legal_plays_into(&self, out: &mut MoveList) {
        if !self.is_own_play() {
            out.clear();
            return;
        }
        let rival = self.rival.as_ref().map(|r| &r.play);
        match self.wild {
            Some(wild) => laizi::legal_plays(self.hand, wild, rival, out),
            None => legal_plays(self.hand, rival, out),
        }
    }

    /// The bids the seat may make (0 = pass); empty unless it is to bid.
    pub fn legal_bids_vec(&self) -> Vec<u8> {
        if self.phase != Phase::Bid || self.current != Some(self.seat) {
            return Vec::new();
        }
        legal_bids_after(self.config.rules, &self.bids).collect()
    }

    /// Everything the seat knows, as text: its own hand, the bottom once shown, bids, every
    /// public play and pass, and the number of cards each player holds. Nothing else.
    pub fn information_state_string(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "seat {} phase {:?}", self.seat, self.phase);
        let _ = writeln!(s, "hand {}", self.hand.as_hand());
        let _ = write!(s, "cards left");
        for &q in self.table().seats() {
            let _ = write!(s, " {}", self.cards_left[q]);
        }
        let _ = writeln!(s, "\ndealt {}", self.dealt);
        let _ = writeln!(s, "bids {:?}", self.bids);
        match (self.landlord, self.bottom) {
            (Some(l), Some(bottom)) => {
                let _ = writeln!(s, "landlord {l} bottom {bottom}");
            }
            _ => s.push_str("landlord none\n"),
        }
        if let Some(w) = self.wild {
            let _ = writeln!(s, "wild {w}");
        }
        if self.config.rules == Rules::TwoPlayer {
            let _ = writeln!(s, "conceded {}", self.conceded());
        }
        s.push_str("plays");
        for r in self.record.iter() {
            let _ = write!(s, " {}:{}", r.seat, r.play);
        }
        s.push('\n');
        if let Some(w) = self.winner {
            let _ = writeln!(s, "winner {w}");
        }
        s
    }

    /// A hash of [`View::information_state_string`]: equal for positions the seat cannot tell
    /// apart.
    pub fn information_state_key(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = rustc_hash::FxHasher::default();
        self.information_state_string().hash(&mut h);
        h.finish()
    }

    /// A full state that the seat cannot tell from the real one: its own cards and the public
    /// record as they are, the hidden cards dealt uniformly at random (as
    /// [`State::resample_from_infostate`] deals them); `rng` returns f64 in [0, 1).
    pub fn redeal(&self, rng: &mut dyn FnMut() -> f64) -> State {
        let world = match self.phase {
            Phase::Deal => Ok(dealing(&self.config, self.seat, self.hand, self.dealt)),
            _ => {
                let public = Public { landlord: self.landlord, bottom: self.bottom, bids: &self.bids, wild: self.wild };
                world(&self.config, self.seat, self.hand, public, &self.record)
            }
        };
        match world {
            Ok(state) => state.resample_from_infostate(self.seat, rng),
            Err(e) => unreachable!("a view is of a game, so it has a world: {e}"),
        }
    }

    /// The view a native request (its JSON text) describes, checked against the rules.
    pub fn from_json(text: &str) -> Result<View<'static>, ViewError> {
        let wire: Wire = serde_json::from_str(text).map_err(|e| ViewError::Json(e.to_string()))?;
        wire.view()
    }

    /// [`View::from_json`] from parsed JSON.
    pub fn from_value(value: serde_json::Value) -> Result<View<'static>, ViewError> {
        let wire: Wire = serde_json::from_value(value).map_err(|e| ViewError::Json(e.to_string()))?;
        wire.view()
    }

    /// The native request's form of this view.
    fn wire(&self) -> Wire {
        let hand = Some(self.hand.to_string());
        let table = self.table();
        let two_player = self.config.rules == Rules::TwoPlayer;
        let rules = two_player.then_some(Rules::TwoPlayer);
        let Some(landlord) = self.landlord else {
            let seat_index = Some(table.turns_after(self.seat, self.config.first_bidder) as u8);
            return Wire { rules, seat_index, hand, bids: Some(self.bids.to_vec()), ..Wire::default() };
        };
        let role = |s: Seat| Role::of_seat(table, s, landlord).name_at(table).to_string();
        Wire {
            rules,
            seat: Some(role(self.seat)),
            hand,
            bottom: self.bottom.map(|b| b.to_string()),
            history: Some(self.record.iter().map(|r| (role(r.seat), laizi::ids::play_notation(&r.play))).collect()),
            bids: self.config.bidding.then(|| self.bids.to_vec()),
            seat_index: None,
            wild: self.wild.map(|w| w.to_string()),
            conceded: (two_player && !self.config.bidding && self.config.conceded > 0).then_some(self.config.conceded),
        }
    }
}

impl Serialize for View<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.wire().serialize(s)
    }
}

impl<'de> Deserialize<'de> for View<'static> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<View<'static>, D::Error> {
        Wire::deserialize(d)?.view().map_err(serde::de::Error::custom)
    }
}

/// The native request as JSON holds it: a play request has `seat` (a role), a bid request
/// `seat_index`; a two-player request says `"rules":"two_player"`.
#[derive(Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Wire {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    rules: Option<Rules>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seat: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seat_index: Option<u8>,
    hand: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bottom: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    history: Option<Vec<(String, String)>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bids: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wild: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    conceded: Option<u8>,
}

fn counts(name: &str, text: &str) -> Result<Counts, ViewError> {
    Counts::parse(text).map_err(|e| field(name, e))
}

impl Wire {
    /// The view this request describes, its world replayed through the rules.
    fn view(self) -> Result<View<'static>, ViewError> {
        let hand = counts("hand", self.hand.as_deref().ok_or_else(|| ViewError::Json("missing field `hand`".into()))?)?;
        let wild = self.wild.as_deref().map(WildRank::parse).transpose().map_err(|e| field("wild", e))?;
        let rules = match (self.rules, wild) {
            (Some(Rules::Laizi) | None, Some(_)) => Rules::Laizi,
            (Some(rules), Some(_)) => return Err(field("wild", format!("{rules} games have no wild rank"))),
            (Some(rules), None) => rules,
            (None, None) => Rules::Standard,
        };
        let conceded = self.conceded.unwrap_or(0);
        if conceded > 0 && (rules != Rules::TwoPlayer || self.bids.is_some()) {
            return Err(field("conceded", "only two-player games without bidding set the conceded cards"));
        }
        match (self.seat, self.seat_index) {
            (None, Some(_)) if wild.is_some() => Err(field("wild", "the wild rank is drawn after the bidding")),
            (None, Some(index)) => View::bidding_under(rules, index, hand, &self.bids.unwrap_or_default()),
            (Some(role), None) => {
                let bottom = self.bottom.ok_or_else(|| ViewError::Json("missing field `bottom`".into()))?;
                let history = self.history.unwrap_or_default();
                let public = Public {
                    landlord: None,
                    bottom: Some(counts("bottom", &bottom)?),
                    bids: &self.bids.clone().unwrap_or_default(),
                    wild,
                };
                let config = GameConfig { bidding: self.bids.is_some(), rules, conceded, ..GameConfig::default() };
                play_view(config, &role, hand, public, history)
            }
            (Some(_), Some(_)) => Err(ViewError::Json("a request has `seat` (a play) or `seat_index` (a bid)".into())),
            (None, None) => Err(ViewError::Json("missing field `seat`".into())),
        }
    }
}

impl View<'static> {
    /// The view of a bid request: the seat at `index` in the bidding order (0 bids first) with
    /// its 17 cards, after the `bids` before its own; the default seating.
    pub fn bidding(index: u8, hand: Counts, bids: &[u8]) -> Result<View<'static>, ViewError> {
        View::bidding_under(Rules::Standard, index, hand, bids)
    }

    /// [`View::bidding`] under `rules` (standard, laizi or two-player).
    pub fn bidding_under(rules: Rules, index: u8, hand: Counts, bids: &[u8]) -> Result<View<'static>, ViewError> {
        let config = GameConfig { bidding: true, rules, ..GameConfig::default() };
        let table = rules.table();
        let Some(seat) =
            Seat::new(index).filter(|&k| table.has(k)).map(|k| table.after(config.first_bidder, k.index() as u64))
        else {
            return Err(field(
                "seat_index",
                format!("{index} is not a seat of a {rules} game (0 to {})", table.len() - 1),
            ));
        };
        if bids.len() % table.len() != index as usize {
            let n = bids.len();
            return Err(field("bids", format!("{n} bids so far, so seat {} bids next, not {index}", n % table.len())));
        }
        if hand.len() as usize != HAND_SIZE {
            return Err(field("hand", format!("{} cards, not the 17 dealt", hand.len())));
        }
        let public = Public { landlord: None, bottom: None, bids, wild: None };
        let state = world(&config, seat, hand, public, &[])?;
        if state.phase() != Phase::Bid {
            return Err(impossible("the bidding is already over"));
        }
        Ok(View::of(&state, seat).into_owned())
    }

    /// The view of a play request: the seat of role `me` with `hand`, the bottom, every play
    /// so far by role, and the bids when the landlord was bid for; the default seating.
    pub fn playing(
        me: Role,
        hand: Counts,
        bottom: Counts,
        history: &[(Role, Play)],
        bids: Option<&[u8]>,
    ) -> Result<View<'static>, ViewError> {
        let config = GameConfig { bidding: bids.is_some(), ..GameConfig::default() };
        let public = Public { landlord: None, bottom: Some(bottom), bids: bids.unwrap_or(&[]), wild: None };
        View::playing_under(config, me, hand, public, history)
    }

    /// [`View::playing`] in a game under `config` (its rules, bidding and conceded cards), with
    /// the public facts of `public` (its landlord is found from the bids or the config).
    fn playing_under(
        config: GameConfig,
        me: Role,
        hand: Counts,
        public: Public,
        history: &[(Role, Play)],
    ) -> Result<View<'static>, ViewError> {
        let table = config.rules.table();
        let landlord = match config.bidding {
            true => bid_winner(config.rules, public.bids)?,
            false => config.landlord_seat,
        };
        let seat_of = |r: Role| table.after(landlord, r.index() as u64);
        let record: Vec<PlayRecord> = history.iter().map(|&(r, play)| PlayRecord { seat: seat_of(r), play }).collect();
        let public = Public { landlord: Some(landlord), ..public };
        let state = world(&config, seat_of(me), hand, public, &record)?;
        Ok(View::of(&state, seat_of(me)).into_owned())
    }
}

/// A play request's fields parsed: the seat of `role` with `hand`, the public facts and the plays.
fn play_view(
    config: GameConfig,
    role: &str,
    hand: Counts,
    public: Public,
    history: Vec<(String, String)>,
) -> Result<View<'static>, ViewError> {
    let table = config.rules.table();
    let role_of = |name: &str, s: &str| {
        Role::parse_at(table, s).ok_or_else(|| {
            let names: Vec<&str> = Role::at(table).iter().map(|r| r.name_at(table)).collect();
            field(name, format!("unknown seat {s:?}: use {}", names.join(", ")))
        })
    };
    let me = role_of("seat", role)?;
    let plays = history
        .iter()
        .enumerate()
        .map(|(k, (s, p))| {
            let name = format!("history {}", k + 1);
            Ok((role_of(&name, s)?, laizi::ids::parse_play_notation(p, public.wild).map_err(|e| field(name, e))?))
        })
        .collect::<Result<Vec<_>, ViewError>>()?;
    View::playing_under(config, me, hand, public, &plays)
}

/// The seat the bids make the landlord under `rules` (seats counted from the default first
/// bidder).
fn bid_winner(rules: Rules, bids: &[u8]) -> Result<Seat, ViewError> {
    let config = GameConfig { bidding: true, rules, ..GameConfig::default() };
    let mut state = State::new(config);
    // Any deal: the bids alone decide who is landlord.
    let deal = &crate::game::generate_deals_for(rules, 1, 0)[0];
    state.deal_hands_unchecked(deal.hands, deal.bottom);
    for (k, &bid) in bids.iter().enumerate() {
        state.try_apply_bid(bid).map_err(|e| field("bids", format!("bid {}: {e}", k + 1)))?;
    }
    state.landlord().ok_or_else(|| field("bids", format!("{bids:?} leave nobody landlord")))
}

/// Cards a seat starts the play phase with.
fn start_size(seat: Seat, landlord: Seat) -> u32 {
    if seat == landlord { 20 } else { 17 }
}

fn rank_max(a: Counts, b: Counts) -> Counts {
    (0..NUM_RANKS as u8).fold(Counts::EMPTY, |c, r| c.with(r, a.get(r).max(b.get(r))))
}

/// The public facts a world is built from, besides the plays.
struct Public<'b> {
    landlord: Option<Seat>,
    bottom: Option<Counts>,
    bids: &'b [u8],
    wild: Option<WildRank>,
}

/// A state with the seat's cards and the public record as given, the hidden cards dealt in rank
/// order: one world of the view, checked through the rules. [`View::redeal`] then deals the
/// hidden cards afresh.
fn world(
    config: &GameConfig,
    seat: Seat,
    hand: Counts,
    public: Public,
    record: &[PlayRecord],
) -> Result<State, ViewError> {
    let Public { landlord, bottom, bids, wild } = public;
    // The game's own settings check, as every other reader of a game makes it.
    config.check().map_err(|e| field(e.setting(), e))?;
    let deck = config.rules.deck_counts();
    if !hand.is_subset_of(deck) {
        let reason = match config.rules {
            Rules::TwoPlayer => format!("{hand} is not in the two-player deck (no 3s or 4s)"),
            Rules::Standard | Rules::Laizi => format!("{hand} holds more of a rank than the deck"),
        };
        return Err(field("hand", reason));
    }
    let (dealt, bottom) = match (landlord, bottom) {
        (Some(l), Some(bottom)) => (starting_hands(config.rules, seat, l, hand, bottom, record)?, bottom),
        _ => bidding_hands(config.rules, seat, hand),
    };
    let mut state = State::new(config.clone());
    state.try_deal_counts(dealt, bottom).map_err(|e| impossible(e.to_string()))?;
    for (k, &bid) in bids.iter().enumerate() {
        state.try_apply_bid(bid).map_err(|e| field("bids", format!("bid {}: {e}", k + 1)))?;
    }
    if landlord.is_some() && state.landlord() != landlord {
        return Err(field("bids", "they do not make this landlord"));
    }
    match wild {
        Some(w) => state.try_apply_action(Action::Wild(w)).map_err(|e| field("wild", e))?,
        None if state.phase() == Phase::Wild => {
            return Err(field("wild", "missing: a laizi game in play has its wild rank drawn (\"wild\":\"7\")"));
        }
        None => {}
    }
    replay(&mut state, record)?;
    Ok(state)
}

/// A deal `dealt` cards in, `seat` holding `hand`: the others' cards in deck order.
fn dealing(config: &GameConfig, seat: Seat, hand: Counts, dealt: u8) -> State {
    let own = crate::cards::assign_suits(&[hand]).map_or(CardSet::EMPTY, |sets| sets[0]);
    let (mut mine, mut rest) = (own.iter(), config.rules.deck().minus(own).iter());
    let mut state = State::new(config.clone());
    for position in 0..dealt as usize {
        let to_seat = Slot::of_position(config.rules, position) == Slot::Seat(seat);
        if let Some(card) = if to_seat { mine.next() } else { rest.next() } {
            state.apply_action_unchecked(Action::Deal(card)); // each card once
        }
    }
    state
}

/// Seat `seat` holds `hand` (17 cards before the bottom is shown); the other seats get the rest
/// of the deck in rank order, in seat order, then the bottom (the set-aside is what is left).
fn bidding_hands(rules: Rules, seat: Seat, hand: Counts) -> ([Counts; MAX_SEATS], Counts) {
    let table = rules.table();
    let mut pool = rules.deck_counts().minus(hand).iter().flat_map(|(r, n)| std::iter::repeat_n(r, n as usize));
    let mut take = |n: usize| pool.by_ref().take(n).fold(Counts::EMPTY, |c, r| c.with(r, 1));
    let hands = by_seat(|q| match q {
        q if q == seat => hand,
        q if table.has(q) => take(HAND_SIZE),
        _ => Counts::EMPTY,
    });
    (hands, take(super::state::BOTTOM_SIZE))
}

/// The plays of `record` in order, each checked: in turn, and legal.
fn replay(state: &mut State, record: &[PlayRecord]) -> Result<(), ViewError> {
    let table = state.table();
    for (k, r) in record.iter().enumerate() {
        let name = |s: Seat| state.role(s).map_or("nobody", |role| role.name_at(table));
        let turn =
            state.current_player().ok_or_else(|| impossible(format!("play {}: the game is already over", k + 1)))?;
        if turn != r.seat {
            let (who, by) = (name(turn), name(r.seat));
            return Err(impossible(format!("play {} ({} by {by}): out of turn, {who} was to play", k + 1, r.play)));
        }
        let by = name(r.seat);
        state.try_apply_play(r.play).map_err(|e| impossible(format!("play {} ({} by {by}): {e}", k + 1, r.play)))?;
    }
    Ok(())
}

/// The cards each seat was dealt, for a view in play: `seat`'s hand and plays as given, the
/// others' plays (and the bottom, for the landlord) topped up from the unseen cards in rank
/// order (two-player: what is left over is set aside).
fn starting_hands(
    rules: Rules,
    seat: Seat,
    landlord: Seat,
    hand: Counts,
    bottom: Counts,
    record: &[PlayRecord],
) -> Result<[Counts; MAX_SEATS], ViewError> {
    let table = rules.table();
    let name = |s: Seat| Role::of_seat(table, s, landlord).name_at(table);
    if bottom.len() != 3 {
        return Err(field("bottom", format!("{bottom} has {} cards, expected 3", bottom.len())));
    }
    let played = |q: Seat| record.iter().filter(|r| r.seat == q).fold(Counts::EMPTY, |c, r| c.plus(r.play.cards));
    let deck = rules.deck_counts();
    let mine = hand.plus(played(seat));
    if !mine.is_subset_of(deck) {
        return Err(impossible(format!("hand {hand} plus the plays of {} is more than the deck holds", name(seat))));
    }
    let size = start_size(seat, landlord);
    if mine.len() != size {
        let n = mine.len();
        return Err(impossible(format!(
            "{} must have started with {size} cards, but hand {hand} and its plays make {n}",
            name(seat)
        )));
    }
    if seat == landlord && !bottom.is_subset_of(mine) {
        return Err(impossible(format!("the landlord's cards do not include the bottom {bottom}")));
    }
    // What each other seat certainly started with: what it played (and the bottom, for the landlord).
    let mut start = by_seat(|q| match q {
        q if q == seat => mine,
        q if q == landlord => rank_max(played(q), bottom),
        q => played(q),
    });
    let known = start.iter().fold(Counts::EMPTY, |c, s| c.plus(*s));
    if !known.is_subset_of(deck) {
        return Err(impossible("the hand, bottom and plays hold more cards of some rank than the deck"));
    }
    let mut pool = deck.minus(known).iter().flat_map(|(r, n)| std::iter::repeat_n(r, n as usize));
    for q in table.others(seat) {
        let need = start_size(q, landlord)
            .checked_sub(start[q].len())
            .ok_or_else(|| impossible(format!("{} played more cards than it held", name(q))))?;
        for r in pool.by_ref().take(need as usize) {
            start[q].add(r, 1);
        }
        if start[q].len() != start_size(q, landlord) {
            return Err(impossible("the cards do not add up to a deal"));
        }
    }
    Ok(by_seat(|q| if q == landlord { start[q].minus(bottom) } else { start[q] }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// Games with bidding and without, every seat's view during the deal and at every decision.
    fn views(check: &mut dyn FnMut(&State, Seat)) {
        let mut rng = StdRng::seed_from_u64(11);
        let mut plays = MoveList::new();
        for game in 0..45 {
            let rules = if game % 3 == 2 { Rules::TwoPlayer } else { Rules::Standard };
            let conceded = if rules == Rules::TwoPlayer && game % 2 == 0 { 2 } else { 0 };
            let config = GameConfig { bidding: game % 2 == 1, rules, conceded, ..GameConfig::default() };
            let mut state = State::new(config);
            let seats = state.table().seats();
            let mut deck: Vec<_> = rules.deck().iter().collect();
            rand::seq::SliceRandom::shuffle(&mut deck[..], &mut rng);
            for (k, card) in deck.into_iter().enumerate() {
                if k % 20 == 7 {
                    seats.iter().for_each(|&q| check(&state, q));
                }
                state.apply_action(Action::Deal(card));
            }
            while state.current_player().is_some() {
                for &q in seats {
                    check(&state, q);
                }
                if state.phase() == Phase::Bid {
                    let legal = state.legal_bids_vec();
                    state.apply_bid(legal[rng.random_range(0..legal.len())]);
                    continue;
                }
                state.legal_plays_into(&mut plays);
                state.apply_play(plays[rng.random_range(0..plays.len())]);
            }
            for &q in seats {
                check(&state, q);
            }
        }
    }

    #[test]
    fn a_view_says_what_its_seat_knows_and_redeals_to_the_same_view() {
        let mut rng = StdRng::seed_from_u64(4);
        let mut checked = 0;
        views(&mut |state, seat| {
            let view = View::of(state, seat);
            let world = view.redeal(&mut || rng.random::<f64>());
            assert_eq!(View::of(&world, seat), view, "a redealt world looks the same to the seat");
            let (mut a, mut b) = (MoveList::new(), MoveList::new());
            view.legal_plays_into(&mut a);
            if state.current_player() == Some(seat) {
                state.legal_plays_into(&mut b);
                assert_eq!(view.legal_bids_vec(), state.legal_bids_vec());
            }
            assert_eq!(a, b);
            checked += 1;
        });
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn the_request_form_round_trips_and_names_seats_by_role() {
        let mut checked = 0;
        views(&mut |state, seat| {
            let view = View::of(state, seat);
            // Before the landlord is known only the seat to bid has a request: "the bids before
            // its own".
            if state.landlord().is_none() && (state.current_player() != Some(seat) || state.phase() == Phase::Deal) {
                return;
            }
            let json = serde_json::to_string(&view).unwrap();
            let back = View::from_json(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!(serde_json::to_string(&back).unwrap(), json);
            // The default seating: the same view exactly.
            assert_eq!(back, view, "{json}");
            checked += 1;
        });
        assert!(checked > 500, "{checked}");
        let lead = r#"{"seat":"landlord","hand":"33344567789TJQKA22BR","bottom":"3BR","history":[]}"#;
        let view = View::from_json(lead).unwrap();
        assert_eq!((view.role(), view.seat(), view.cards_left(Seat::S1)), (Some(Role::Landlord), Seat::S0, 17));
    }

    #[test]
    fn impossible_requests_say_why() {
        let err = |text: &str| View::from_json(text).unwrap_err().to_string();
        let e = err(r#"{"seat":"king","hand":"3","bottom":"3BR","history":[]}"#);
        assert!(e.starts_with("seat: unknown seat \"king\""), "{e}");
        let e = err(
            r#"{"seat":"landlord_down","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord_up","3"]]}"#,
        );
        assert!(e.contains("out of turn"), "{e}");
        let e = err(r#"{"seat":"landlord","hand":"33456789TJQKA22BRR","bottom":"3BR","history":[]}"#);
        assert!(e.starts_with("hand:"), "{e}");
        let e = err(r#"{"seat":"landlord","hand":"3","bottom":"3BR","history":[],"extra":1}"#);
        assert!(e.starts_with("bad request") && e.contains("extra"), "{e}");
        let e = err(r#"{"seat_index":2,"hand":"33445566899JJQKKA","bids":[1]}"#);
        assert!(e.starts_with("bids:"), "{e}");
        let e = err(r#"{"seat_index":1,"hand":"33445566899JJQKKA","bids":[3]}"#);
        assert!(e.contains("already over"), "{e}");
        let e = err(r#"{"seat":"landlord","hand":"3","bottom":"3BR","history":[],"bids":[0,0,0]}"#);
        assert!(e.starts_with("bids:") && e.contains("nobody"), "{e}");
        // Two-player requests: two roles, no 3s or 4s, conceded cards only without bidding.
        let e = err(r#"{"rules":"two_player","seat":"landlord_up","hand":"5","bottom":"5BR","history":[]}"#);
        assert!(e.starts_with("seat: unknown seat \"landlord_up\": use landlord, farmer"), "{e}");
        let e = err(r#"{"rules":"two_player","seat":"farmer","hand":"35566778899TTJJQQ","bottom":"KBR","history":[]}"#);
        assert!(e.starts_with("hand:") && e.contains("no 3s or 4s"), "{e}");
        let e = err(
            r#"{"rules":"two_player","seat":"farmer","hand":"5","bottom":"5BR","history":[],"bids":[1],"conceded":1}"#,
        );
        assert!(e.starts_with("conceded:"), "{e}");
        let e = err(r#"{"rules":"two_player","seat_index":1,"hand":"55667788999TTJJQQ","bids":[1,1]}"#);
        assert!(e.starts_with("bids:"), "seat 1 bids after an even number of bids: {e}");
        let farmer = r#"{"rules":"two_player","seat":"farmer","hand":"55667788999TTJJQQ","bottom":"KBR","history":[["landlord","6"]],"conceded":3}"#;
        let view = View::from_json(farmer).unwrap();
        assert_eq!(
            (view.table(), view.role(), view.conceded(), view.cards_left(Seat::S0)),
            (Table::TWO, Some(Role::LandlordDown), 3, 19)
        );
        assert_eq!(serde_json::to_string(&view).unwrap(), farmer);
        let bidder =
            View::from_json(r#"{"rules":"two_player","seat_index":0,"hand":"55667788999TTJJQQ","bids":[1,1]}"#)
                .unwrap();
        assert_eq!((bidder.robs(), bidder.legal_bids_vec()), (1, vec![0, 1]));
        // Issue 64: the reader makes the game's own settings check (conceded of 17 to 255 was
        // taken), and a laizi game in play without its wild rank was "over".
        for conceded in [17, 200, 255] {
            let e = err(&farmer.replace("\"conceded\":3", &format!("\"conceded\":{conceded}")));
            assert!(e.starts_with(&format!("conceded: conceded = {conceded}: at most 16")), "{e}");
        }
        let e = err(r#"{"rules":"laizi","seat":"landlord","hand":"3344556777789TJQKA2B","bottom":"A2B","history":[]}"#);
        assert!(e.starts_with("wild: missing"), "{e}");
    }
}
