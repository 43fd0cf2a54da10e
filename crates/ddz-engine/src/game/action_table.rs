//! The fixed action table: every play of the standard rules (27,471) plus `pass`, one id each.
//!
//! Ids are grouped by type in [`Kind`] order (pass = 0, then solos, pairs, …, bombs, rocket);
//! within a type by length, main rank, then kickers. Each id carries its slots: type, main rank,
//! length and kicker ranks ([`Play`]). The table is built once by generating every lead from the
//! full deck, so a card multiset can never get two ids: plays are keyed by their rank counts.

use super::movegen::legal_plays;
use super::play::{Kind, Play};
use crate::cards::Counts;
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// Number of ids: 27,471 plays + pass.
pub const NUM_ACTIONS: usize = 27_472;

/// An index into the action table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
pub struct ActionId(pub u32);

impl ActionId {
    /// The id of `pass`.
    pub const PASS: ActionId = ActionId(0);
    /// The id as an index, 0..[`NUM_ACTIONS`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Every play with its id, and the way back from cards to id; get it with [`ActionTable::get`].
pub struct ActionTable {
    plays: Vec<Play>,
    by_cards: FxHashMap<Counts, ActionId>,
    /// First id of each kind, and one past the last.
    kind_ranges: [(u16, u16); Kind::COUNT],
}

impl ActionTable {
    /// The table, built on first use (a few milliseconds).
    pub fn get() -> &'static ActionTable {
        static TABLE: OnceLock<ActionTable> = OnceLock::new();
        TABLE.get_or_init(ActionTable::build)
    }

    fn build() -> ActionTable {
        let mut plays = Vec::with_capacity(NUM_ACTIONS);
        legal_plays(Counts::full_deck(), None, &mut plays);
        plays.push(Play::PASS);
        plays.sort_by_key(|p| (p.kind, p.len, p.main, p.kickers()));
        let mut by_cards = FxHashMap::default();
        let mut kind_ranges = [(0u16, 0u16); Kind::COUNT];
        for (i, p) in plays.iter().enumerate() {
            let id = i as u16;
            let previous = by_cards.insert(p.cards, ActionId(id as u32));
            assert!(previous.is_none(), "two ids for {p:?}");
            let range = &mut kind_ranges[p.kind as usize];
            if range.1 == 0 {
                range.0 = id;
            }
            range.1 = id + 1;
        }
        assert_eq!(plays.len(), NUM_ACTIONS, "the action table must hold 27,471 plays + pass");
        ActionTable { plays, by_cards, kind_ranges }
    }

    /// Number of ids: [`NUM_ACTIONS`].
    pub fn len(&self) -> usize {
        self.plays.len()
    }
    /// Whether the table has no ids (never true).
    pub fn is_empty(&self) -> bool {
        self.plays.is_empty()
    }
    /// The play of `id`; panics if `id` is out of range.
    pub fn play(&self, id: ActionId) -> &Play {
        &self.plays[id.index()]
    }
    /// Every play, indexed by id.
    pub fn plays(&self) -> &[Play] {
        &self.plays
    }
    /// The id of a card multiset, if it is a play.
    pub fn id_of_cards(&self, cards: Counts) -> Option<ActionId> {
        self.by_cards.get(&cards).copied()
    }
    /// The id of a play (every play has one). A laizi play that takes wild cards gets its id in
    /// the laizi action space ([`crate::game::laizi::ids`]), which extends this table.
    pub fn id(&self, play: &Play) -> ActionId {
        if play.wilds.count() > 0 {
            return crate::game::laizi::ids::id_of(play);
        }
        self.by_cards[&play.cards]
    }
    /// The ids of one type: `start..end`.
    pub fn kind_range(&self, kind: Kind) -> std::ops::Range<usize> {
        let (a, b) = self.kind_ranges[kind as usize];
        a as usize..b as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_grouped_by_kind_and_round_trips() {
        let t = ActionTable::get();
        assert_eq!(t.len(), NUM_ACTIONS);
        assert_eq!(t.play(ActionId::PASS), &Play::PASS);
        let mut end = 0;
        for kind in Kind::ALL {
            let r = t.kind_range(kind);
            assert_eq!(r.start, end, "{kind:?} follows the previous group");
            assert!(t.plays()[r.clone()].iter().all(|p| p.kind == kind));
            end = r.end;
        }
        assert_eq!(end, NUM_ACTIONS);
        for (i, p) in t.plays().iter().enumerate() {
            assert_eq!(t.id(p).index(), i);
        }
    }
}
