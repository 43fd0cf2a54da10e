//! Action ids of laizi plays: every standard play as a reading, with every multiset of its
//! cards that wild cards may supply. The ids do not depend on the wild rank, so a game's
//! history, saves and action integers read the same whatever rank was drawn.
//!
//! Layout, [`NUM_LAIZI_ACTIONS`] = 7,409,259 ids:
//! - `0..27,472`: the standard table's ids ([`ActionTable`]), plays without wild cards.
//! - then, for each standard play in table order, one id per non-empty multiset `S` of at most
//!   four of its cards from 3 to 2 (never a joker): the play read as that standard play with the
//!   cards `S` supplied by wild cards. Within a play, the multisets go in lexicographic order
//!   of their count vectors (3s first), ranked and unranked by counting, without a table.
//!
//! Under a given wild rank only some ids are plays: `S` must hold every card of the wild rank
//! the reading has (those cards are all wild), and the reading must be the preferred one
//! (rule 6). [`play_of`] says which.

use super::{WildRank, preferred};
use crate::cards::{Counts, RANK_TWO};
use crate::game::action_table::{ActionId, ActionTable, NUM_ACTIONS};
use crate::game::play::{Play, PlayError};
use std::sync::OnceLock;

/// Number of laizi action ids: standard plays plus every wild supply of each of them.
pub const NUM_LAIZI_ACTIONS: usize = 7_409_259;

/// Ranks a wild card may stand for: 3 to 2.
const WILD_RANKS: usize = RANK_TWO as usize + 1;

/// For each standard id, the first laizi id of its block of wild supplies.
fn block_starts() -> &'static [u32] {
    static STARTS: OnceLock<Vec<u32>> = OnceLock::new();
    STARTS.get_or_init(|| {
        let mut next = NUM_ACTIONS as u32;
        let mut starts = Vec::with_capacity(NUM_ACTIONS + 1);
        for play in ActionTable::get().plays() {
            starts.push(next);
            next += supplies(play.cards)[0][4] - 1;
        }
        starts.push(next);
        assert_eq!(next as usize, NUM_LAIZI_ACTIONS, "the documented size of the laizi action space");
        starts
    })
}

/// `n[i][b]`: how many multisets of the reading's cards of ranks `i..=12` hold at most `b` cards.
fn supplies(reading: Counts) -> [[u32; 5]; WILD_RANKS + 1] {
    let mut n = [[1u32; 5]; WILD_RANKS + 1];
    for i in (0..WILD_RANKS).rev() {
        let have = reading.get(i as u8) as usize;
        for b in 0..5 {
            n[i][b] = (0..=have.min(b)).map(|v| n[i + 1][b - v]).sum();
        }
    }
    n
}

/// The laizi id of `play`: its standard id when it takes no wild card.
pub fn id_of(play: &Play) -> ActionId {
    let reading = ActionTable::get().id_of_cards(play.reading()).expect("a laizi play reads as a standard play");
    id_of_reading(reading, play.wilds.stands())
}

/// The laizi id of standard play `reading` with the cards `stands` supplied by wild cards.
fn id_of_reading(reading: ActionId, stands: Counts) -> ActionId {
    let table = ActionTable::get();
    if stands.is_empty() {
        return reading;
    }
    let n = supplies(table.play(reading).cards);
    let (mut rank, mut budget) = (0u32, 4usize);
    for i in 0..WILD_RANKS {
        let s = stands.get(i as u8) as usize;
        rank += (0..s).map(|v| n[i + 1][budget - v]).sum::<u32>();
        budget -= s;
    }
    ActionId(block_starts()[reading.index()] + rank - 1)
}

/// The standard play an id reads as, and the cards of it that wild cards supply; `None` past
/// the last id.
pub fn reading_of(id: ActionId) -> Option<(Play, Counts)> {
    let table = ActionTable::get();
    if id.index() < NUM_ACTIONS {
        return Some((*table.play(id), Counts::EMPTY));
    }
    let starts = block_starts();
    if id.index() >= NUM_LAIZI_ACTIONS {
        return None;
    }
    let block = starts.partition_point(|&s| s <= id.0) - 1;
    let reading = *table.play(ActionId(block as u32));
    let n = supplies(reading.cards);
    let (mut left, mut budget, mut stands) = (id.0 - starts[block] + 1, 4usize, Counts::EMPTY);
    for i in 0..WILD_RANKS {
        let have = reading.cards.get(i as u8) as usize;
        let mut v = 0;
        while v < have.min(budget) && left >= n[i + 1][budget - v] {
            left -= n[i + 1][budget - v];
            v += 1;
        }
        stands.add(i as u8, v as u8);
        budget -= v;
    }
    Some((reading, stands))
}

/// The play of `id` under wild rank `wild`, if it is one: the reading's wild-rank cards all
/// supplied by wild cards, wild cards alone standing for the wild rank, the preferred reading.
pub fn play_of(id: ActionId, wild: WildRank) -> Option<Play> {
    let (reading, stands) = reading_of(id)?;
    let w = wild.rank();
    if reading.is_pass() {
        return Some(reading);
    }
    if stands.get(w) != reading.cards.get(w) {
        return None;
    }
    let play = super::from_reading(&reading, stands, wild)?;
    (preferred(play, wild) == play).then_some(play)
}

/// The W-independent notation of a laizi id: its reading, then `/` and the ranks its wild cards
/// stand for when it has any (`5555/5`, `34567/4`, `7777/7777`, `pass`).
pub fn notation(id: ActionId) -> Option<String> {
    let (reading, stands) = reading_of(id)?;
    Some(if stands.is_empty() { reading.to_string() } else { format!("{reading}/{stands}") })
}

/// The id of a [`notation`]; `None` for text that names no laizi id.
pub fn parse_notation(text: &str) -> Option<ActionId> {
    let (reading, stands) = match text.trim().split_once('/') {
        Some((r, s)) => (Play::parse(r).ok()?, Counts::parse(s).ok()?),
        None => (Play::parse(text).ok()?, Counts::EMPTY),
    };
    if !stands.is_subset_of(reading.cards) || stands.len() > 4 || stands.iter().any(|(r, _)| r > RANK_TWO) {
        return None;
    }
    Some(id_of_reading(ActionTable::get().id(&reading), stands))
}

/// A play as texts write it (requests, answers, action strings): its cards, or under laizi,
/// when it takes wild cards, its id's [`notation`] (`5555/5`), which names the reading too.
pub fn play_notation(play: &Play) -> String {
    if play.wilds.count() == 0 {
        return play.to_string();
    }
    notation(ActionTable::get().id(play)).unwrap_or_else(|| play.to_string())
}

/// The play a [`play_notation`] text names: cards (any game), or under laizi (`wild` given)
/// also an id's notation read with that wild rank.
pub fn parse_play_notation(text: &str, wild: Option<WildRank>) -> Result<Play, PlayError> {
    match wild {
        Some(w) if text.contains('/') => parse_notation(text)
            .and_then(|id| play_of(id, w))
            .ok_or_else(|| PlayError::NoWildPlay { text: text.to_string(), wild: w }),
        _ => Play::parse(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::laizi::legal_plays_vec;

    #[test]
    fn ids_round_trip_through_readings_and_notation() {
        let starts = block_starts();
        assert_eq!(*starts.last().unwrap() as usize, NUM_LAIZI_ACTIONS);
        // Every 997th id, and both ends of every block of a sample of plays.
        let mut ids: Vec<u32> = (0..NUM_LAIZI_ACTIONS as u32).step_by(997).collect();
        for b in (0..NUM_ACTIONS).step_by(101) {
            ids.extend([starts[b], starts[b + 1] - 1].into_iter().filter(|&i| i >= starts[b] && i < starts[b + 1]));
        }
        ids.push(NUM_LAIZI_ACTIONS as u32 - 1);
        for id in ids.into_iter().map(ActionId) {
            let (reading, stands) = reading_of(id).unwrap();
            assert!(stands.is_subset_of(reading.cards) && stands.len() <= 4, "{id:?}");
            let text = notation(id).unwrap();
            assert_eq!(parse_notation(&text), Some(id), "{text}");
        }
        assert_eq!(reading_of(ActionId(NUM_LAIZI_ACTIONS as u32)), None);
    }

    #[test]
    fn legal_plays_have_ids_that_give_them_back() {
        let wild = WildRank::parse("7").unwrap();
        let hand = Counts::parse("3344557778TTJQKA2B").unwrap();
        let plays = legal_plays_vec(hand, wild, None);
        let mut ids: Vec<ActionId> = plays.iter().map(id_of).collect();
        for (p, id) in plays.iter().zip(&ids) {
            assert_eq!(play_of(*id, wild).as_ref(), Some(p), "{p:?} → {id:?}");
        }
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), plays.len(), "distinct plays, distinct ids");
        let soft = plays.iter().find(|p| format!("{p:?}") == "bomb(5577 as 5555)").unwrap();
        assert_eq!(notation(id_of(soft)).unwrap(), "5555/55");
        let with_eights = play_of(id_of(soft), WildRank::parse("8").unwrap()).unwrap();
        assert_eq!(with_eights.cards, Counts::parse("5588").unwrap(), "the same id takes 8s when they are wild");
        assert_eq!(play_of(id_of(soft), WildRank::parse("5").unwrap()), None, "with 5s wild, every 5 is wild");
    }
}
