//! Laizi (癞子) rules: the four cards of one rank, drawn after the deal, are wild.
//!
//! A wild card stands for any rank from 3 to 2 (never a joker); a play of wild cards only stands
//! for the wild rank itself. A play is read as the standard play its cards stand for, and two
//! readings of the same cards with the same type and main rank are one play (rule 6 of
//! docs/rules.md): only what a kicker's wild stands for differs between them, which changes
//! nothing. Each such play is listed once, with its preferred reading ([`preference`]).
//!
//! The generator builds on the standard one: for each multiset `S` of ranks that the wild cards
//! taken may stand for, it lists the standard plays of the natural cards plus `S` that use all of
//! `S`, and maps each back to the cards it takes from the hand. Bombs then rank by tier
//! ([`crate::game::play::BombTier`]): soft < hard < pure wild bomb < rocket.

pub mod ids;

use super::movegen::{MoveList, bombs_and_rocket, legal_plays as standard_plays};
use super::play::{Kind, Play, Wilds, classify};
use crate::cards::{Counts, RANK_TWO, rank_char, rank_of_char};
use rustc_hash::FxHashMap;
use std::collections::hash_map::Entry;
use std::fmt;

/// The wild rank of a laizi deal: one of the 13 ranks from 3 to 2, never a joker. Its serde
/// form is its card character (`"7"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct WildRank(u8);

impl TryFrom<String> for WildRank {
    type Error = LaiziError;
    fn try_from(text: String) -> Result<WildRank, LaiziError> {
        WildRank::parse(&text)
    }
}

impl From<WildRank> for String {
    fn from(wild: WildRank) -> String {
        wild.to_string()
    }
}

impl WildRank {
    /// The wild rank of rank index `rank` (0 = 3 … 12 = 2); `None` for a joker or beyond.
    pub fn new(rank: u8) -> Option<WildRank> {
        (rank <= RANK_TWO).then_some(WildRank(rank))
    }
    /// The 13 possible wild ranks, 3 first.
    pub fn all() -> impl Iterator<Item = WildRank> {
        (0..=RANK_TWO).map(WildRank)
    }
    /// Parses one card character from `3` to `2`.
    pub fn parse(text: &str) -> Result<WildRank, LaiziError> {
        let bad = |reason: &str| LaiziError::WildRank { text: text.to_string(), reason: reason.to_string() };
        let mut chars = text.trim().chars();
        let (Some(ch), None) = (chars.next(), chars.next()) else {
            return Err(bad("expected one card character from 3 to 2"));
        };
        let rank = rank_of_char(ch).ok_or_else(|| bad("not a card character (3456789TJQKA2)"))?;
        WildRank::new(rank).ok_or_else(|| bad("a joker is never wild"))
    }
    /// The rank index, 0 (3) to 12 (2).
    pub fn rank(self) -> u8 {
        self.0
    }
}

impl fmt::Display for WildRank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", rank_char(self.0))
    }
}

/// Why a wild rank or a laizi play was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaiziError {
    /// Not a rank from 3 to 2.
    #[error("bad wild rank {text:?}: {reason}")]
    WildRank {
        /// The text given.
        text: String,
        /// Why it is not a wild rank.
        reason: String,
    },
    /// Cards and a reading that are no laizi play.
    #[error("cards {cards} read as {reading} are not a play with wild rank {wild}: {reason}")]
    NotAPlay {
        /// The cards taken from the hand.
        cards: String,
        /// What they were said to stand for.
        reading: String,
        /// The wild rank.
        wild: char,
        /// Why not.
        reason: String,
    },
}

/// Every legal laizi play of `hand` with wild rank `wild`: with `rival = None` (or a pass) the
/// player leads; otherwise `pass` comes first, then every play that beats `rival`. Each play by
/// rule 6 once, with its preferred reading.
pub fn legal_plays(hand: Counts, wild: WildRank, rival: Option<&Play>, out: &mut MoveList) {
    out.clear();
    let w = wild.rank();
    let wild_cards = hand.get(w);
    let natural = hand.minus(Counts::EMPTY.with(w, wild_cards));
    let rival = rival.filter(|r| !r.is_pass());
    if rival.is_some() {
        out.push(Play::PASS);
    }
    // (cards taken, type, main rank) → its place in `out`: rule 6's identity of a play.
    let mut index: FxHashMap<(Counts, Kind, u8), usize> = FxHashMap::default();
    let mut readings = MoveList::new();
    each_multiset(wild_cards, &mut |stands| {
        standard_answers(with_stands(natural, stands), rival, &mut readings);
        for reading in &readings {
            let Some(play) = from_reading(reading, stands, wild) else { continue };
            if rival.is_some_and(|r| !play.beats(r)) {
                continue;
            }
            match index.entry((play.cards, play.kind, play.main)) {
                Entry::Vacant(slot) => {
                    slot.insert(out.len());
                    out.push(play);
                }
                Entry::Occupied(slot) => {
                    let kept = &mut out[*slot.get()];
                    if preference(&play, wild) < preference(kept, wild) {
                        *kept = play;
                    }
                }
            }
        }
    });
}

/// [`legal_plays`] into a fresh vector.
pub fn legal_plays_vec(hand: Counts, wild: WildRank, rival: Option<&Play>) -> Vec<Play> {
    let mut out = Vec::new();
    legal_plays(hand, wild, rival, &mut out);
    out
}

/// Cuts `plays` (the legal laizi plays of `hand`) to the `k` that leave the hand best placed by
/// a cheap count over decompositions — the fewest standard plays that empty the natural cards
/// left, less one per wild card kept (a wild card joins some play of the rest) — ties kept in
/// list order. The pass, bombs and the rocket always stay: their worth is tempo and control,
/// which the count cannot see. The order of the kept plays is kept; at most `k` plays (besides
/// those) change nothing. The write-up this project follows scores a top 100 this way before a
/// network scores them, where a lead with wild cards has thousands of plays.
pub fn top_plays(hand: Counts, wild: WildRank, plays: &mut MoveList, k: usize) {
    let always = |p: &Play| matches!(p.kind, Kind::Pass | Kind::Bomb | Kind::Rocket);
    let others = plays.iter().filter(|p| !always(p)).count();
    if others <= k {
        return;
    }
    let w = wild.rank();
    let score = |p: &Play| {
        let left = hand.minus(p.cards);
        let wilds = left.get(w);
        super::min_plays(left.minus(Counts::EMPTY.with(w, wilds))) as i32 - i32::from(wilds)
    };
    let mut ranked: Vec<(i32, usize)> =
        plays.iter().enumerate().filter(|(_, p)| !always(p)).map(|(i, p)| (score(p), i)).collect();
    ranked.sort_unstable();
    let mut keep: Vec<bool> = plays.iter().map(always).collect();
    for &(_, i) in &ranked[..k] {
        keep[i] = true;
    }
    let mut at = 0;
    plays.retain(|_| {
        at += 1;
        keep[at - 1]
    });
}

/// The laizi play that takes `cards` from a hand and stands for `reading`, with its preferred
/// reading: `reading` must be a standard play, hold every natural card of `cards`, and give each
/// wild card one rank from 3 to 2 (all of them the wild rank when no natural card is taken).
pub fn read_play(cards: Counts, reading: Counts, wild: WildRank) -> Result<Play, LaiziError> {
    let bad = |reason: String| LaiziError::NotAPlay {
        cards: cards.to_string(),
        reading: reading.to_string(),
        wild: rank_char(wild.rank()),
        reason,
    };
    let w = wild.rank();
    let k = cards.get(w);
    let natural = cards.minus(Counts::EMPTY.with(w, k));
    if !natural.is_subset_of(reading) {
        return Err(bad(format!("the reading leaves out natural cards of {natural}")));
    }
    let stands = reading.minus(natural);
    if stands.len() != k as u32 {
        return Err(bad(format!("{k} wild card(s) cannot stand for the {} card(s) {stands}", stands.len())));
    }
    if stands.iter().any(|(r, _)| r > RANK_TWO) {
        return Err(bad("a wild card never stands for a joker".into()));
    }
    let standard = classify(reading).filter(|p| !p.is_pass()).ok_or_else(|| bad("the reading is no play".into()))?;
    let play = from_reading(&standard, stands, wild)
        .ok_or_else(|| bad("wild cards played alone stand for the wild rank".into()))?;
    Ok(preferred(play, wild))
}

/// The plays of a (virtual) hand that may answer `rival`, as the standard generator lists them.
fn standard_answers(hand: Counts, rival: Option<&Play>, out: &mut MoveList) {
    match rival {
        // A lower-ranked bomb of a higher tier still beats a bomb: list them all, filter later.
        Some(r) if r.kind == Kind::Bomb => bombs_and_rocket(hand, out),
        _ => standard_plays(hand, rival, out),
    }
}

/// The natural cards with wild cards standing for `stands`, keeping at most four of a rank: a
/// play never takes more, and the standard generator counts on it.
fn with_stands(natural: Counts, stands: Counts) -> Counts {
    stands.iter().fold(natural, |hand, (r, n)| {
        let keep = hand.get(r).min(4 - n);
        hand.minus(Counts::EMPTY.with(r, hand.get(r) - keep)).with(r, n)
    })
}

/// The laizi play of a standard `reading` in which the cards `stands` are played by wild cards;
/// `None` if the reading leaves some of them out (another multiset lists it) or reads wild cards
/// alone as anything but the wild rank (rule 3).
fn from_reading(reading: &Play, stands: Counts, wild: WildRank) -> Option<Play> {
    if reading.is_pass() || !stands.is_subset_of(reading.cards) {
        return None;
    }
    let k = stands.len() as u8;
    let cards = reading.cards.minus(stands).with(wild.rank(), k);
    let only_wild = cards.get(wild.rank()) as u32 == cards.len();
    if only_wild && stands != Counts::EMPTY.with(wild.rank(), k) {
        return None;
    }
    let wilds = Wilds::new(wild.rank(), stands)?;
    Some(Play { cards, kind: reading.kind, main: reading.main, len: reading.len, wilds })
}

/// Order among readings of one play (smaller first): wild cards standing for their own rank,
/// then for the lowest ranks. So `5557` with 7s wild reads as trio of 5s with a 7, not with a 3.
fn preference(play: &Play, wild: WildRank) -> [u8; 4] {
    let mut key = [u8::MAX; 4];
    let mut i = 0;
    for (r, n) in play.wilds.stands().iter() {
        for _ in 0..n {
            key[i] = if r == wild.rank() { 0 } else { r + 1 };
            i += 1;
        }
    }
    key.sort_unstable();
    key
}

/// The preferred reading of `play`'s cards with its type and main rank.
fn preferred(play: Play, wild: WildRank) -> Play {
    let w = wild.rank();
    let k = play.cards.get(w);
    let natural = play.cards.minus(Counts::EMPTY.with(w, k));
    let mut best = play;
    each_multiset_of_size(k, &mut |stands| {
        let Some(reading) = classify(natural.plus(stands)) else { return };
        if reading.kind != play.kind || reading.main != play.main || reading.len != play.len {
            return;
        }
        if let Some(other) = from_reading(&reading, stands, wild)
            && preference(&other, wild) < preference(&best, wild)
        {
            best = other;
        }
    });
    best
}

/// Calls `f` on every multiset of 0 to `most` ranks from 3 to 2 (at most four of a rank).
fn each_multiset(most: u8, f: &mut dyn FnMut(Counts)) {
    (0..=most.min(4)).for_each(|k| each_multiset_of_size(k, f));
}

/// Calls `f` on every multiset of exactly `k` ranks from 3 to 2, in rank order.
fn each_multiset_of_size(k: u8, f: &mut dyn FnMut(Counts)) {
    fn go(from: u8, left: u8, acc: Counts, f: &mut dyn FnMut(Counts)) {
        if left == 0 {
            return f(acc);
        }
        for r in from..=RANK_TWO {
            go(r, left - 1, acc.with(r, 1), f);
        }
    }
    go(0, k, Counts::EMPTY, f);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Counts {
        Counts::parse(s).unwrap()
    }
    fn wild(s: &str) -> WildRank {
        WildRank::parse(s).unwrap()
    }
    /// `cards>reading` per legal play, sorted.
    fn legal(hand: &str, w: &str, rival: Option<Play>) -> Vec<String> {
        let mut v: Vec<String> = legal_plays_vec(c(hand), wild(w), rival.as_ref())
            .iter()
            .map(|p| if p.is_pass() { "pass".into() } else { format!("{}>{}", p.cards, p.reading()) })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_top_plays_keep_pass_bombs_and_the_best_counted_plays_in_order() {
        let mut cut_any = false;
        for deal in crate::game::generate_deals(40, 41) {
            // A landlord's 20 cards, its most common rank wild: one to four wild cards.
            let hand = deal.hands[0].counts().plus(deal.bottom.counts());
            let most = (0..=RANK_TWO).max_by_key(|&r| hand.get(r)).unwrap();
            let wild = WildRank::new(most).unwrap();
            let all = legal_plays_vec(hand, wild, None);
            let mut top = all.clone();
            top_plays(hand, wild, &mut top, 30);
            let special = |p: &Play| matches!(p.kind, Kind::Pass | Kind::Bomb | Kind::Rocket);
            assert!(all.iter().filter(|p| special(p)).all(|p| top.contains(p)), "pass, bombs, rocket kept");
            assert_eq!(top.iter().filter(|p| !special(p)).count(), 30.min(all.iter().filter(|p| !special(p)).count()));
            let mut from = 0;
            for p in &top {
                from += all[from..].iter().position(|q| q == p).expect("a kept play is legal, in order") + 1;
            }
            cut_any |= top.len() < all.len();
            let mut same = all.clone();
            top_plays(hand, wild, &mut same, all.len());
            assert_eq!(same, all, "k at least the plays: nothing cut");
        }
        assert!(cut_any, "20-card leads with wild cards have more than 30 plays");
    }

    #[test]
    fn wild_rank_parses_ranks_three_to_two_only() {
        assert_eq!(wild("7").rank(), 4);
        assert_eq!(wild("2").rank(), 12);
        assert_eq!(WildRank::all().count(), 13);
        for (text, why) in [("B", "joker"), ("R", "joker"), ("x", "not a card"), ("77", "one card"), ("", "one card")] {
            let err = WildRank::parse(text).unwrap_err().to_string();
            assert!(err.contains(why), "{text:?}: {err}");
        }
    }

    #[test]
    fn a_lone_wild_is_its_own_rank_and_pairs_read_once() {
        // Rule 3: one wild is always the wild rank; rule 6: one 7 with one 5 is a pair of 5s once.
        assert_eq!(legal("7", "7", None), ["7>7"]);
        assert_eq!(legal("57", "7", None), ["57>55", "5>5", "7>7"]);
        assert_eq!(legal("77", "7", None), ["77>77", "7>7"], "two wilds alone: a pair of 7s only");
    }

    #[test]
    fn readings_that_change_the_type_are_different_plays() {
        // The example: wild rank 7, cards 5557 lead as a trio of 5s with a 7 or a bomb.
        let got = legal("5557", "7", None);
        assert!(got.contains(&"5557>5557".to_string()), "trio with the 7 as itself: {got:?}");
        assert!(got.contains(&"5557>5555".to_string()), "soft bomb of 5s: {got:?}");
        assert!(!got.iter().any(|p| p.starts_with("5557>") && !p.ends_with("5557") && !p.ends_with("5555")), "{got:?}");
    }

    #[test]
    fn chains_use_wilds_for_gaps_and_stop_at_the_ace() {
        let got = legal("34567", "4", None);
        assert!(got.contains(&"34567>34567".to_string()));
        // The 4 may fill a chain's gap only as a 4 here; 3567+4 stands for 34567 already.
        let gap = legal("3567Q", "Q", None);
        assert!(gap.contains(&"3567Q>34567".to_string()), "{gap:?}");
        let ace = legal("JQKA9", "9", None);
        assert!(ace.contains(&"9JQKA>TJQKA".to_string()), "{ace:?}");
        assert!(!ace.iter().any(|p| p.split('>').nth(1).is_some_and(|r| r.contains('2'))), "{ace:?}");
        let wild_two = legal("JQKA2", "2", None);
        assert!(wild_two.contains(&"JQKA2>TJQKA".to_string()), "the wild 2 as a ten: {wild_two:?}");
        assert!(!wild_two.contains(&"JQKA2>JQKA2".to_string()), "a chain never reaches the 2");
    }

    #[test]
    fn kicker_readings_collapse_to_one_play() {
        // 333 with a wild 7 kicker: the 7 may stand for any rank but 3; one play, read as 3337.
        let got: Vec<String> = legal("3337", "7", None).into_iter().filter(|p| p.starts_with("3337>")).collect();
        assert_eq!(got, ["3337>3333", "3337>3337"], "a soft bomb and one trio with a solo");
    }

    #[test]
    fn bombs_answer_by_tier() {
        let rival = |cards: &str, reading: &str, w: &str| read_play(c(cards), c(reading), wild(w)).unwrap();
        // A soft bomb of 2s falls to a hard bomb of 3s; a hard bomb of 2s to the pure wild bomb.
        let soft_twos = rival("2227", "2222", "7");
        assert_eq!(legal("3333", "7", Some(soft_twos)), ["3333>3333", "pass"]);
        let hard_twos = rival("2222", "2222", "7");
        assert_eq!(legal("37777", "7", Some(hard_twos)), ["7777>7777", "pass"]);
        assert_eq!(legal("3337BR", "7", Some(hard_twos)), ["BR>BR", "pass"], "soft bombs lose to hard");
        let soft_fours = rival("4447", "4444", "7");
        assert_eq!(legal("5557", "7", Some(soft_fours)), ["5557>5555", "pass"]);
    }

    #[test]
    fn following_matches_type_and_length() {
        let pair_of_fives = Play::parse("55").unwrap();
        assert_eq!(legal("37", "7", Some(pair_of_fives)), ["pass"], "the natural 3 pairs only as 3s");
        assert_eq!(legal("377", "7", Some(pair_of_fives)), ["77>77", "pass"]);
        assert_eq!(legal("6Q", "Q", Some(pair_of_fives)), ["6Q>66", "pass"]);
    }

    #[test]
    fn read_play_checks_and_prefers() {
        let w = wild("7");
        let play = read_play(c("3337"), c("3334"), w).unwrap();
        assert_eq!(play.reading(), c("3337"), "the preferred reading: the wild as itself");
        assert_eq!(play.kind, Kind::TrioSolo);
        let err = |cards: &str, reading: &str| read_play(c(cards), c(reading), w).unwrap_err().to_string();
        assert!(err("3337", "4445").contains("leaves out natural cards"), "{}", err("3337", "4445"));
        assert!(err("33", "3333").contains("cannot stand for"));
        assert!(err("37", "3B").contains("no play") || err("37", "3B").contains("joker"));
        assert!(err("77", "55").contains("alone stand for the wild rank"));
        assert!(err("3457", "3456").contains("no play"));
    }
}
