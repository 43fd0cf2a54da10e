//! The one place where game facts become numbers: state features for a seat, and action
//! features for a play. Training, evaluation, pretraining and the bot all go through here.
//!
//! A card multiset is a 15×4 plane: row = rank (3,4,…,A,2,B,R — the engine's rank order),
//! column j set iff the multiset holds more than j cards of that rank. Suits carry no
//! information in play, so the four slots count cards rather than name suits.
//!
//! State features (`STATE_DIM` floats), from the point of view of one seat; "next" is the seat
//! that plays after it, "prev" the one before:
//!
//! | offset | size | feature |
//! |-------:|-----:|---------|
//! | 0      | 60   | own hand |
//! | 60     | 60   | cards played so far by next |
//! | 120    | 60   | cards played so far by prev |
//! | 180    | 60   | unseen cards: deck − own hand − everything played |
//! | 240    | 60   | the landlord's bottom cards (zero until shown) |
//! | 300    | 60   | the play to beat (zero when leading) |
//! | 360    | 900  | the last 15 plays, most recent first, 60 each (a pass is a zero plane) |
//! | 1260   | 3    | cards left: own, next, prev (÷ 20) |
//! | 1263   | 1    | bombs and rockets played (÷ 4, at most 1) |
//! | 1264   | 3    | own role one-hot: landlord, landlord_down, landlord_up (zero while unknown) |
//! | 1267   | 1    | round index: plays and passes so far ÷ 100, at most 1 |
//! | 1268   | 3    | bids of own, next, prev seat (÷ 3) |
//! | 1271   | 3    | whether own, next, prev seat has bid |
//! | 1274   | 63   | cards left one-hot (0..=20, 21 each): own, next, prev |
//! | 1337   | 2    | who made the play to beat: next, prev (zero when leading) |
//!
//! A two-player seat has one opponent: the "next" rows describe it, and the "prev" rows, which
//! no seat fills at a table of two, carry the two-player facts instead ([`write_two_player`]):
//!
//! | offset | size | two-player feature |
//! |-------:|-----:|---------|
//! | 120    | 21   | the farmer's cards to go: cards left − conceded, one-hot 0..=20 |
//! | 180    | 60   | unseen cards: the 46-card deck − own hand − everything played (the opponent's hand and the 9 set aside) |
//! | 1262   | 1    | unseen cards' count ÷ 37 |
//! | 1270   | 1    | robs so far ÷ 4 (at most 1) |
//! | 1273   | 1    | whether anyone has called |
//! | 1316   | 21   | conceded cards, one-hot 0..=20 |
//!
//! The last two rows came later: the scalar cards-left feature makes "one card left" and "two
//! cards left" differ by 0.05, which the network learns to tell apart only slowly, and whether
//! the play to beat is the teammate's was only implied by the passes in the history. Networks
//! trained before them read the first [`STATE_DIM_V1`] features, which kept their offsets.
//! Such networks (1,274 inputs, e.g. `models/dmc-2h/`) still load everywhere (eval, bots,
//! league); `ddz train --init-from` an older network widens its first layer with zero weights
//! for the new features, so it starts from exactly the same values; resuming a run made before
//! them is refused with a clear mismatch error.
//!
//! Action features (`ACTION_DIM` floats) for a play:
//!
//! | offset | size | feature |
//! |-------:|-----:|---------|
//! | 0      | 60   | the play's cards |
//! | 60     | 15   | type one-hot ([`Kind`] order) |
//! | 75     | 15   | main rank one-hot |
//! | 90     | 13   | length one-hot (0..=12) |
//! | 103    | 60   | the kicker cards |
//! | 163    | 60   | own hand after the play |
//!
//! With `[model] hand_structure` the action features gain a block ([`ActionLayout`],
//! [`STRUCTURE_DIM`] floats at [`OFF_ACTION_STRUCTURE`]), from [`crate::game::min_plays`]:
//!
//! | offset | size | feature |
//! |-------:|-----:|---------|
//! | 223    | 21   | fewest plays that empty the own hand after the play, one-hot 0..=20 |
//! | 244    | 5    | extra cost: that + 1 − the fewest before the play, one-hot 0..=4 (clamped); 0 for a pass |
//!
//! Networks without the switch read the first [`ACTION_DIM`] features only, which kept their
//! offsets; the block is computed only for networks that read it.
//!
//! A laizi network's plays carry one more block, [`LAIZI_DIM`] floats after the others (at
//! [`ActionLayout::laizi_offset`]). The base features above are those of the play's reading:
//! its type, main rank and kickers; its cards plane is the cards it takes from the hand.
//!
//! | offset | size | feature |
//! |-------:|-----:|---------|
//! | 0      | 13   | the wild rank, one-hot 3..2 |
//! | 13     | 60   | the play's reading: the ranks its cards stand for |
//! | 73     | 60   | what its wild cards stand for |
//! | 133    | 60   | the reading of the play to beat (zero when leading) |
//!
//! A laizi network and a standard one differ in the width of their action layer, so each is
//! known from its file, and neither plays the other's rules.

pub mod douzero;

use crate::cards::{Counts, NUM_RANKS};
use crate::game::{ActionTable, Kind, MoveList, NUM_ACTIONS, Play, Rules, Seat, State, View, WildRank, min_plays};

/// Floats per card plane (15 ranks × 4 slots).
pub const PLANE: usize = NUM_RANKS * 4;
/// Plays kept in the history feature.
pub const HISTORY_LEN: usize = 15;

/// State offset of the own hand's plane.
pub const OFF_HAND: usize = 0;
/// State offset of the plane of cards the next seat has played so far.
pub const OFF_PLAYED_NEXT: usize = OFF_HAND + PLANE;
/// State offset of the plane of cards the previous seat has played so far.
pub const OFF_PLAYED_PREV: usize = OFF_PLAYED_NEXT + PLANE;
/// State offset of the unseen cards' plane: deck − own hand − everything played.
pub const OFF_UNSEEN: usize = OFF_PLAYED_PREV + PLANE;
/// State offset of the landlord's bottom cards (zero until shown).
pub const OFF_BOTTOM: usize = OFF_UNSEEN + PLANE;
/// State offset of the play to beat (zero when leading).
pub const OFF_RIVAL: usize = OFF_BOTTOM + PLANE;
/// State offset of the last [`HISTORY_LEN`] plays, most recent first, one plane each.
pub const OFF_HISTORY: usize = OFF_RIVAL + PLANE;
/// State offset of the cards left of own, next and prev seat, each ÷ 20.
pub const OFF_CARDS_LEFT: usize = OFF_HISTORY + HISTORY_LEN * PLANE;
/// State offset of the bombs and rockets played so far (÷ 4, at most 1).
pub const OFF_BOMBS: usize = OFF_CARDS_LEFT + 3;
/// State offset of the own role one-hot: landlord, landlord_down, landlord_up (zero while unknown).
pub const OFF_ROLE: usize = OFF_BOMBS + 1;
/// State offset of the round index: plays and passes so far ÷ 100, at most 1.
pub const OFF_ROUND: usize = OFF_ROLE + 3;
/// State offset of the bids of own, next and prev seat (÷ 3).
pub const OFF_BIDS: usize = OFF_ROUND + 1;
/// State offset of the flags whether own, next and prev seat has bid.
pub const OFF_HAS_BID: usize = OFF_BIDS + 3;
/// State offset of the cards-left one-hots of own, next and prev seat, [`CARDS_LEFT_SLOTS`] each.
pub const OFF_CARDS_LEFT_ONE_HOT: usize = OFF_HAS_BID + 3;
/// Slots per seat in the cards-left one-hot: 0 to 20 cards.
pub const CARDS_LEFT_SLOTS: usize = 21;
/// State offset of who made the play to beat: next, prev (zero when leading).
pub const OFF_RIVAL_SEAT: usize = OFF_CARDS_LEFT_ONE_HOT + 3 * CARDS_LEFT_SLOTS;
/// Length of the state features.
pub const STATE_DIM: usize = OFF_RIVAL_SEAT + 2;
/// The state features of the first layout (before the cards-left one-hot and the rival's seat).
pub const STATE_DIM_V1: usize = OFF_CARDS_LEFT_ONE_HOT;

/// Action offset of the play's cards plane.
pub const OFF_ACTION_CARDS: usize = 0;
/// Action offset of the play type one-hot, in [`Kind`] order.
pub const OFF_ACTION_KIND: usize = OFF_ACTION_CARDS + PLANE;
/// Action offset of the main rank one-hot (all zero for a pass).
pub const OFF_ACTION_MAIN: usize = OFF_ACTION_KIND + Kind::COUNT;
/// Action offset of the length one-hot: core ranks, 0 to 12.
pub const OFF_ACTION_LEN: usize = OFF_ACTION_MAIN + NUM_RANKS;
/// Action offset of the kicker cards' plane.
pub const OFF_ACTION_KICKERS: usize = OFF_ACTION_LEN + 13;
/// Action offset of the plane of the own hand after the play.
pub const OFF_ACTION_HAND_AFTER: usize = OFF_ACTION_KICKERS + PLANE;
/// Length of the action features.
pub const ACTION_DIM: usize = OFF_ACTION_HAND_AFTER + PLANE;

/// Action offset of the hand-structure block, for networks that read it.
pub const OFF_ACTION_STRUCTURE: usize = ACTION_DIM;
/// Slots of the structure block's one-hot of the fewest plays left: 0 to 20.
pub const STRUCTURE_PLAYS_SLOTS: usize = 21;
/// Slots of the structure block's one-hot of the extra cost: 0 to 4 (and more).
pub const STRUCTURE_EXTRA_SLOTS: usize = 5;
/// Length of the hand-structure block.
pub const STRUCTURE_DIM: usize = STRUCTURE_PLAYS_SLOTS + STRUCTURE_EXTRA_SLOTS;

/// Slots of the laizi block's wild-rank one-hot: the ranks 3 to 2.
pub const WILD_SLOTS: usize = 13;
/// Length of the laizi block of a play's features.
pub const LAIZI_DIM: usize = WILD_SLOTS + 3 * PLANE;

/// How one network's action features are laid out: the base features, then the hand-structure
/// block and the laizi block when the network reads them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ActionLayout {
    /// Whether the hand-structure block follows the base features.
    pub hand_structure: bool,
    /// Whether the laizi block comes last (a network of the laizi rules).
    pub laizi: bool,
}

/// What a decision's play features share, computed once per decision.
#[derive(Clone, Copy, Debug)]
pub struct DecisionContext {
    hand: Counts,
    /// The fewest plays of the hand (0, and nothing computed, without the structure block).
    fewest: u32,
    wild: Option<WildRank>,
    /// The reading of the play to beat (empty when leading).
    rival: Counts,
}

impl ActionLayout {
    /// Floats per play.
    pub fn dim(self) -> usize {
        self.laizi_offset() + if self.laizi { LAIZI_DIM } else { 0 }
    }
    /// Where the laizi block starts (the width of the other features).
    pub fn laizi_offset(self) -> usize {
        if self.hand_structure { ACTION_DIM + STRUCTURE_DIM } else { ACTION_DIM }
    }
    /// The layout of a network whose action layer reads `width` floats, if it is one of ours.
    pub fn of_width(width: usize) -> Option<ActionLayout> {
        [false, true]
            .into_iter()
            .flat_map(|hand_structure| [false, true].map(|laizi| ActionLayout { hand_structure, laizi }))
            .find(|l| l.dim() == width)
    }
    /// What the features of the plays of `view`'s seat share.
    pub fn context(self, view: &View<'_>) -> DecisionContext {
        self.context_of(view.hand(), view.wild(), view.rival().map(|r| &r.play))
    }
    /// What the features of the plays from `hand` share, under wild rank `wild` (laizi) against
    /// `rival` (`None` when leading).
    pub fn context_of(self, hand: Counts, wild: Option<WildRank>, rival: Option<&Play>) -> DecisionContext {
        DecisionContext {
            hand,
            fewest: if self.hand_structure { min_plays(hand) } else { 0 },
            wild,
            rival: rival.map_or(Counts::EMPTY, Play::reading),
        }
    }
    /// The features of each of `plays` of `view`'s seat, row after row, into `out` (length
    /// `plays.len()` × [`ActionLayout::dim`]).
    pub fn encode_plays(self, view: &View<'_>, plays: &[Play], out: &mut [f32]) {
        assert_eq!(out.len(), plays.len() * self.dim());
        let context = self.context(view);
        for (row, play) in out.chunks_exact_mut(self.dim()).zip(plays) {
            self.encode(play, &context, row);
        }
    }
    /// The features of `play` into `out` (length [`ActionLayout::dim`]).
    pub fn encode(self, play: &Play, context: &DecisionContext, out: &mut [f32]) {
        assert_eq!(out.len(), self.dim());
        let hand = context.hand;
        encode_action(play, hand, &mut out[..ACTION_DIM]);
        if self.hand_structure {
            write_structure(play, hand, context.fewest, &mut out[OFF_ACTION_STRUCTURE..]);
        }
        if self.laizi {
            write_laizi(play, context, &mut out[self.laizi_offset()..]);
        }
    }
}

/// The laizi block of `play` (see the module's table).
fn write_laizi(play: &Play, context: &DecisionContext, out: &mut [f32]) {
    out.fill(0.0);
    if let Some(w) = context.wild {
        out[w.rank() as usize] = 1.0;
    }
    write_plane(play.reading(), &mut out[WILD_SLOTS..]);
    write_plane(play.wilds.stands(), &mut out[WILD_SLOTS + PLANE..]);
    write_plane(context.rival, &mut out[WILD_SLOTS + 2 * PLANE..]);
}

/// The hand-structure block of `play` from `hand`, whose fewest plays are `before`. The extra
/// cost is how many plays the move adds to the best way out: 0 for a play of an optimal
/// decomposition. A pass spends no play of the hand (the hand and its fewest plays stay), so
/// its extra cost is 0 too: what a pass costs is tempo, which the rest of the state shows.
fn write_structure(play: &Play, hand: Counts, before: u32, out: &mut [f32]) {
    out.fill(0.0);
    let after = if play.is_pass() { before } else { min_plays(hand.minus(play.cards)) };
    let extra = if play.is_pass() { 0 } else { (after + 1).saturating_sub(before) };
    out[(after as usize).min(STRUCTURE_PLAYS_SLOTS - 1)] = 1.0;
    out[STRUCTURE_PLAYS_SLOTS + (extra as usize).min(STRUCTURE_EXTRA_SLOTS - 1)] = 1.0;
}

/// Writes a card multiset as a 15×4 plane into `out[..60]` (which must be zeroed).
#[inline]
pub fn write_plane(cards: Counts, out: &mut [f32]) {
    let mut bits = cards.0;
    while bits != 0 {
        let nibble = (bits.trailing_zeros() / 4) as usize;
        let n = ((bits >> (nibble * 4)) & 0xF) as usize;
        out[nibble * 4..nibble * 4 + n].fill(1.0);
        bits &= !(0xF << (nibble * 4));
    }
}

/// State features of `seat` at `state` into `out`: those of its [`View`].
pub fn encode_state(state: &State, seat: Seat, out: &mut [f32]) {
    encode_view(&View::of(state, seat), out);
}

/// State features of a seat's view into `out` (length `STATE_DIM`; fully overwritten).
pub fn encode_view(view: &View<'_>, out: &mut [f32]) {
    assert_eq!(out.len(), STATE_DIM);
    out.fill(0.0);
    let seat = view.seat();
    let table = view.table();
    let next = table.next(seat);
    // At a table of two the opponent is next (and prev): its "prev" rows carry other facts.
    let prev = (table.len() == 3).then(|| table.prev(seat));
    let hand = view.hand();
    write_plane(hand, &mut out[OFF_HAND..]);
    write_plane(view.played_by(next), &mut out[OFF_PLAYED_NEXT..]);
    if let Some(prev) = prev {
        write_plane(view.played_by(prev), &mut out[OFF_PLAYED_PREV..]);
    }
    let played = table.seats().iter().fold(Counts::EMPTY, |c, &q| c.plus(view.played_by(q)));
    let unseen = view.config().rules.deck_counts().minus(hand).minus(played);
    write_plane(unseen, &mut out[OFF_UNSEEN..]);
    if let Some(bottom) = view.bottom() {
        write_plane(bottom, &mut out[OFF_BOTTOM..]);
    }
    if let Some(r) = view.rival() {
        write_plane(r.play.cards, &mut out[OFF_RIVAL..]);
        if r.seat == next {
            out[OFF_RIVAL_SEAT] = 1.0;
        } else if Some(r.seat) == prev {
            out[OFF_RIVAL_SEAT + 1] = 1.0;
        }
    }
    let record = view.play_record();
    for (i, r) in record.iter().rev().take(HISTORY_LEN).enumerate() {
        write_plane(r.play.cards, &mut out[OFF_HISTORY + i * PLANE..]);
    }
    for (i, s) in [Some(seat), Some(next), prev].into_iter().enumerate() {
        let Some(s) = s else { continue };
        let left = view.cards_left(s) as usize;
        out[OFF_CARDS_LEFT + i] = left as f32 / 20.0;
        out[OFF_CARDS_LEFT_ONE_HOT + i * CARDS_LEFT_SLOTS + left] = 1.0; // a hand holds at most 20
        if let Some(b) = view.bid_of(s) {
            out[OFF_BIDS + i] = b as f32 / 3.0;
            out[OFF_HAS_BID + i] = 1.0;
        }
    }
    out[OFF_BOMBS] = (view.bombs_played() as f32 / 4.0).min(1.0);
    if let Some(role) = view.role() {
        out[OFF_ROLE + role.index()] = 1.0;
    }
    out[OFF_ROUND] = (record.len() as f32 / 100.0).min(1.0);
    if view.config().rules == Rules::TwoPlayer {
        write_two_player(view, unseen, out);
    }
}

/// The two-player facts in the rows no seat fills at a table of two (see the module's table):
/// what the farmer must still shed to win, the unseen cards' count, the robs and the conceded
/// cards. All public.
fn write_two_player(view: &View<'_>, unseen: Counts, out: &mut [f32]) {
    let table = view.table();
    let conceded = view.conceded() as usize;
    let farmer = view.landlord().map(|l| table.next(l));
    if let Some(farmer) = farmer {
        let to_go = (view.cards_left(farmer) as usize).saturating_sub(conceded);
        out[OFF_PLAYED_PREV + to_go.min(CARDS_LEFT_SLOTS - 1)] = 1.0;
    }
    out[OFF_CARDS_LEFT + 2] = unseen.len() as f32 / 37.0;
    out[OFF_BIDS + 2] = (view.robs() as f32 / 4.0).min(1.0);
    out[OFF_HAS_BID + 2] = view.bids().contains(&1) as u8 as f32;
    out[OFF_CARDS_LEFT_ONE_HOT + 2 * CARDS_LEFT_SLOTS + conceded.min(CARDS_LEFT_SLOTS - 1)] = 1.0;
}

/// Ranks of the two other hands in [`HiddenHands`]: next's 15 counts, then prev's.
pub const HIDDEN_RANKS: usize = 2 * NUM_RANKS;
/// Floats of the oracle's input: the two other hands as planes, next's then prev's.
pub const ORACLE_DIM: usize = 2 * PLANE;

/// What `seat` cannot see: the cards of each rank in the next and the previous seat's hands.
///
/// **Training only.** These are the targets of the hidden-hand prediction head and the inputs
/// of oracle guiding; no agent reads them when it decides (`QNet`'s play-time forward pass has
/// no parameter that could carry them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HiddenHands(pub [u8; HIDDEN_RANKS]);

impl HiddenHands {
    /// The next and the previous seat's hands as `seat` would see them if it could.
    pub fn of(state: &State, seat: Seat) -> HiddenHands {
        let mut out = [0u8; HIDDEN_RANKS];
        for (k, other) in state.table().others(seat).enumerate() {
            out[k * NUM_RANKS..(k + 1) * NUM_RANKS].copy_from_slice(&state.hand(other).to_array());
        }
        HiddenHands(out)
    }

    /// The two hands as planes into `out` (length [`ORACLE_DIM`]; fully overwritten).
    pub fn write_oracle(&self, out: &mut [f32]) {
        assert_eq!(out.len(), ORACLE_DIM);
        out.fill(0.0);
        for (i, &n) in self.0.iter().enumerate() {
            let (hand, rank) = (i / NUM_RANKS, i % NUM_RANKS);
            let at = hand * PLANE + rank * 4;
            out[at..at + n.min(4) as usize].fill(1.0);
        }
    }
}

/// The OpenSpiel-style information-state tensor: the state features of `seat`.
pub fn information_state_tensor(state: &State, seat: Seat) -> Vec<f32> {
    let mut v = vec![0.0; STATE_DIM];
    encode_state(state, seat, &mut v);
    v
}

/// Action features of `play` made from `hand` into `out` (length `ACTION_DIM`; overwritten).
pub fn encode_action(play: &Play, hand: Counts, out: &mut [f32]) {
    assert_eq!(out.len(), ACTION_DIM);
    out.fill(0.0);
    write_plane(play.cards, &mut out[OFF_ACTION_CARDS..]);
    out[OFF_ACTION_KIND + play.kind as usize] = 1.0;
    if !play.is_pass() {
        out[OFF_ACTION_MAIN + play.main as usize] = 1.0;
    }
    out[OFF_ACTION_LEN + play.len as usize] = 1.0;
    write_plane(play.kickers(), &mut out[OFF_ACTION_KICKERS..]);
    write_plane(hand.minus(play.cards), &mut out[OFF_ACTION_HAND_AFTER..]);
}

/// Features of a hand for the hand evaluator: its plane, the bottom's plane (zero when the
/// bottom is unknown: a 17-card hand before bidding), and 1 when the bottom is known.
pub const HAND_DIM: usize = 2 * PLANE + 1;

/// Hand features (length `HAND_DIM`; overwritten): `hand` holds the bottom when it is given.
pub fn encode_hand(hand: Counts, bottom: Option<Counts>, out: &mut [f32]) {
    assert_eq!(out.len(), HAND_DIM);
    out.fill(0.0);
    write_plane(hand, &mut out[..PLANE]);
    if let Some(b) = bottom {
        write_plane(b, &mut out[PLANE..2 * PLANE]);
        out[2 * PLANE] = 1.0;
    }
}

/// Features of a bidding decision: the seat's 17 cards; what the next seat and the one after
/// it have bid (one-hot: not yet, pass, 1, 2, 3); the seat's turn in the bidding (first,
/// second, third). Two-player: the opponent's last bid (not yet, pass, call or rob) in the
/// first block, the robs so far in the second (one-hot 0..=4, clamped), and the turn as bids
/// so far (0, 1, 2 or more).
pub const BID_DIM: usize = PLANE + 2 * 5 + 3;

/// The bidding decision of `seat` at `state` into `out`: that of its [`View`].
pub fn encode_bid_state(state: &State, seat: Seat, out: &mut [f32]) {
    encode_bid_view(&View::of(state, seat), out);
}

/// The bidding decision of a seat's view into `out` (length `BID_DIM`; overwritten).
pub fn encode_bid_view(view: &View<'_>, out: &mut [f32]) {
    assert_eq!(out.len(), BID_DIM);
    out.fill(0.0);
    write_plane(view.hand(), &mut out[..PLANE]);
    let table = view.table();
    for (i, other) in table.others(view.seat()).enumerate() {
        let slot = view.bid_of(other).map_or(0, |b| b as usize + 1);
        out[PLANE + i * 5 + slot] = 1.0;
    }
    if table.len() == 2 {
        out[PLANE + 5 + (view.robs() as usize).min(4)] = 1.0;
    }
    let turn = view.bids().len().min(2);
    out[PLANE + 10 + turn] = 1.0;
}

/// The legal mask of the current decision over the 27,472-id action table (laizi: its
/// 7,409,259 ids, [`crate::game::laizi::ids`]). A decision node with
/// no legal id would be an engine bug: it is reported as an error, never returned as a mask to
/// train on.
pub fn legal_mask(state: &State) -> Result<Vec<bool>, MaskError> {
    let Some(seat) = state.current_player() else {
        return Err(MaskError::NoDecision);
    };
    let mut plays = MoveList::new();
    state.legal_plays_into(&mut plays);
    let table = ActionTable::get();
    // Laizi's ids extend the standard table's (a 7 MB mask: prefer the list of legal ids).
    let ids = match state.config().rules {
        Rules::Standard | Rules::TwoPlayer => NUM_ACTIONS,
        Rules::Laizi => crate::game::laizi::ids::NUM_LAIZI_ACTIONS,
    };
    let mut mask = vec![false; ids];
    for p in &plays {
        mask[table.id(p).index()] = true;
    }
    if !mask.iter().any(|&m| m) {
        return Err(MaskError::Empty { seat, state: state.to_json() });
    }
    Ok(mask)
}

/// Why [`legal_mask`] has no mask.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaskError {
    /// No seat is to act: a chance (dealing) or terminal node.
    #[error("legal_mask: not a decision node")]
    NoDecision,
    /// A decision without a legal play: an engine bug, with the state to reproduce it.
    #[error("empty legal mask for seat {seat}: engine bug; state {state}")]
    Empty {
        /// The seat to act.
        seat: Seat,
        /// The state as JSON.
        state: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Table;

    #[test]
    fn layout_adds_up() {
        assert_eq!(OFF_HISTORY, 360);
        assert_eq!(OFF_CARDS_LEFT, 1260);
        assert_eq!(STATE_DIM_V1, 1274);
        assert_eq!(OFF_RIVAL_SEAT, 1337);
        assert_eq!(STATE_DIM, 1339);
        assert_eq!(ACTION_DIM, 223);
    }

    #[test]
    fn planes_are_count_thermometers() {
        let mut p = [0.0f32; PLANE];
        write_plane(Counts::parse("3336BR").unwrap(), &mut p);
        assert_eq!(&p[0..4], &[1.0, 1.0, 1.0, 0.0]);
        assert_eq!(&p[12..16], &[1.0, 0.0, 0.0, 0.0]);
        assert_eq!(p[52], 1.0);
        assert_eq!(p[56], 1.0);
        assert_eq!(p.iter().sum::<f32>(), 6.0);
    }

    #[test]
    fn masks_are_never_empty_and_pass_is_legal_exactly_when_following() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(4);
        for _ in 0..30 {
            let mut s = crate::game::new_initial_state();
            s.deal_random(&mut rng);
            while !s.is_terminal() {
                let mask = legal_mask(&s).unwrap();
                assert_eq!(mask[0], s.rival().is_some(), "pass legal exactly when following");
                let legal: Vec<usize> = (0..NUM_ACTIONS).filter(|&i| mask[i]).collect();
                let id = legal[rng.random_range(0..legal.len())];
                s.apply_action(crate::game::Action::Play(crate::game::ActionId(id as u32)));
            }
            assert!(legal_mask(&s).is_err());
        }
    }

    #[test]
    fn cards_left_and_rival_seat_match_the_state() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        let mut st = vec![0.0; STATE_DIM];
        let (mut by_next, mut by_prev) = (0, 0);
        for _ in 0..20 {
            let mut s = crate::game::new_initial_state();
            s.deal_random(&mut rng);
            while let Some(seat) = s.current_player() {
                encode_state(&s, seat, &mut st);
                for (i, who) in [seat, Table::THREE.next(seat), Table::THREE.prev(seat)].into_iter().enumerate() {
                    let slots = &st[OFF_CARDS_LEFT_ONE_HOT + i * CARDS_LEFT_SLOTS..][..CARDS_LEFT_SLOTS];
                    assert_eq!(slots.iter().sum::<f32>(), 1.0);
                    assert_eq!(slots[s.cards_left(who) as usize], 1.0);
                }
                let flags = [st[OFF_RIVAL_SEAT], st[OFF_RIVAL_SEAT + 1]];
                match s.rival() {
                    None => assert_eq!(flags, [0.0, 0.0]),
                    Some(r) if r.seat == Table::THREE.next(seat) => (assert_eq!(flags, [1.0, 0.0]), by_next += 1).1,
                    Some(r) => (assert_eq!((r.seat, flags), (Table::THREE.prev(seat), [0.0, 1.0])), by_prev += 1).1,
                }
                let mask = legal_mask(&s).unwrap();
                let legal: Vec<usize> = (0..NUM_ACTIONS).filter(|&i| mask[i]).collect();
                let id = legal[rng.random_range(0..legal.len())];
                s.apply_action(crate::game::Action::Play(crate::game::ActionId(id as u32)));
            }
        }
        assert!(by_next > 0 && by_prev > 0, "both kinds of rival seen: {by_next} / {by_prev}");
    }

    #[test]
    fn action_features_mark_slots() {
        let play = Play::parse("3334445A").unwrap();
        let hand = Counts::parse("3334445A2").unwrap();
        let mut a = vec![0.0; ACTION_DIM];
        encode_action(&play, hand, &mut a);
        assert_eq!(a[OFF_ACTION_KIND + Kind::AirplaneSolo as usize], 1.0);
        assert_eq!(a[OFF_ACTION_MAIN], 1.0);
        assert_eq!(a[OFF_ACTION_LEN + 2], 1.0);
        assert_eq!(a[OFF_ACTION_KICKERS..OFF_ACTION_KICKERS + PLANE].iter().sum::<f32>(), 2.0);
        assert_eq!(a[OFF_ACTION_HAND_AFTER + 12 * 4], 1.0, "the 2 stays in hand");
    }

    #[test]
    fn structure_block_counts_plays_left_and_extra_cost() {
        let layout = ActionLayout { hand_structure: true, laizi: false };
        let hand = Counts::parse("3334445A2").unwrap(); // 3334445A + 2: two plays
        let context = layout.context_of(hand, None, None);
        assert_eq!(context.fewest, 2);
        let block = |play: &str| {
            let mut a = vec![0.0; layout.dim()];
            layout.encode(&Play::parse(play).unwrap(), &context, &mut a);
            let b = &a[OFF_ACTION_STRUCTURE..];
            assert_eq!(b.iter().sum::<f32>(), 2.0, "two one-hots");
            let left = b[..STRUCTURE_PLAYS_SLOTS].iter().position(|&x| x == 1.0).unwrap();
            let extra = b[STRUCTURE_PLAYS_SLOTS..].iter().position(|&x| x == 1.0).unwrap();
            (left, extra)
        };
        assert_eq!(block("3334445A"), (1, 0), "the airplane leaves the 2: on the best way out");
        assert_eq!(block("3"), (4, 3), "44433, 5, A and 2 are left: three plays more than needed");
        assert_eq!(block("pass"), (2, 0), "a pass leaves the hand as it was");
        let mut plain = vec![0.0; ACTION_DIM];
        let base = ActionLayout::default();
        base.encode(&Play::parse("3").unwrap(), &base.context_of(hand, None, None), &mut plain);
        let mut wide = vec![0.0; layout.dim()];
        layout.encode(&Play::parse("3").unwrap(), &context, &mut wide);
        assert_eq!(plain[..], wide[..ACTION_DIM], "the base features keep their offsets");
    }

    #[test]
    fn laizi_block_marks_the_wild_rank_the_reading_and_the_rival() {
        use crate::game::laizi::read_play;
        let c = |t: &str| Counts::parse(t).unwrap();
        let wild = WildRank::parse("7").unwrap();
        let soft = read_play(c("5557"), c("5555"), wild).unwrap();
        let rival = read_play(c("4447"), c("4444"), wild).unwrap();
        let widths: Vec<usize> = [(false, false), (true, false), (false, true), (true, true)]
            .map(|(hand_structure, laizi)| ActionLayout { hand_structure, laizi }.dim())
            .to_vec();
        assert_eq!(widths, [223, 249, 416, 442]);
        for layout in
            [ActionLayout { hand_structure: false, laizi: true }, ActionLayout { hand_structure: true, laizi: true }]
        {
            assert_eq!(ActionLayout::of_width(layout.dim()), Some(layout), "a file's width tells its layout");
            let context = layout.context_of(c("5557"), Some(wild), Some(&rival));
            let mut a = vec![0.0; layout.dim()];
            layout.encode(&soft, &context, &mut a);
            let block = &a[layout.laizi_offset()..];
            assert_eq!(block[..WILD_SLOTS].iter().position(|&x| x == 1.0), Some(4), "7 is rank 4");
            let plane = |k: usize| {
                Counts((0..NUM_RANKS).fold(0, |acc, r| {
                    let at = WILD_SLOTS + k * PLANE + r * 4;
                    acc | ((block[at..at + 4].iter().sum::<f32>() as u64) << (4 * r))
                }))
            };
            assert_eq!((plane(0), plane(1), plane(2)), (c("5555"), c("5"), c("4444")));
            assert_eq!(a[OFF_ACTION_KIND + Kind::Bomb as usize], 1.0, "the base features are the reading's");
            assert_eq!(a[OFF_ACTION_CARDS..OFF_ACTION_CARDS + PLANE].iter().sum::<f32>(), 4.0);
        }
        assert_eq!(ActionLayout::of_width(300), None);
    }
}
