//! Cards, ranks and the two compact card-set representations the engine runs on.
//!
//! * [`CardSet`]: a 60-bit set of physical cards, bit `rank * 4 + suit`. The jokers sit in suit
//!   slot 0 of ranks 13 (B) and 14 (R). The 15×4 layout is the same one the encoder uses.
//! * [`Counts`]: a multiset of ranks, 4 bits per rank (`rank * 4`). Plays are rank multisets, so
//!   the rules only ever look at counts; suits matter for dealing and nothing else.
//!
//! Text notation: `3456789TJQKA2BR`, one character per card, B = black (small) joker,
//! R = red (big) joker. A play is written sorted by rank; `pass` is the empty play.

use std::fmt;

/// Number of ranks: 3..A (12), 2, black joker, red joker.
pub const NUM_RANKS: usize = 15;
/// Number of physical cards in the deck.
pub const NUM_CARDS: usize = 54;
/// The rank characters, indexed by rank.
pub const RANK_CHARS: &[u8; NUM_RANKS] = b"3456789TJQKA2BR";
/// Rank index of the 2: the lowest rank that can never be part of a chain.
pub const RANK_TWO: u8 = 12;
/// Rank index of the ace, the highest rank a chain may reach.
pub const RANK_ACE: u8 = 11;
/// Black (small) joker.
pub const RANK_BLACK_JOKER: u8 = 13;
/// Red (big) joker.
pub const RANK_RED_JOKER: u8 = 14;

/// How many cards of each rank the deck holds.
pub const fn rank_capacity(rank: u8) -> u8 {
    if rank >= RANK_BLACK_JOKER { 1 } else { 4 }
}

/// Why a card string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CardError {
    /// A character that is not one of `3456789TJQKA2BR`, in a text other than `pass`.
    #[error("unknown card character {ch:?} at position {pos} in {text:?} (expected one of 3456789TJQKA2BR)")]
    UnknownChar {
        /// The character.
        ch: char,
        /// Its position, in characters from 0, in the text with surrounding whitespace trimmed.
        pos: usize,
        /// The whole text as given.
        text: String,
    },
    /// More cards of one rank than the deck holds.
    #[error("impossible cards {text:?}: {count} × {rank} but the deck has only {capacity}")]
    TooMany {
        /// The whole text as given.
        text: String,
        /// The rank's character.
        rank: char,
        /// The count at which the text was rejected: one more than `capacity`.
        count: u8,
        /// How many of that rank the deck holds (4, or 1 for a joker).
        capacity: u8,
    },
    /// A dense card id outside 0..54 (see [`Card::id`]).
    #[error("card id {0} is out of range 0..54")]
    BadCardId(u32),
}

/// Character of a rank index.
pub fn rank_char(rank: u8) -> char {
    RANK_CHARS[rank as usize] as char
}

/// Rank index of a character, if it is one.
pub fn rank_of_char(ch: char) -> Option<u8> {
    RANK_CHARS.iter().position(|&c| c as char == ch).map(|i| i as u8)
}

/// One physical card: bit index `rank * 4 + suit` in a [`CardSet`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Card(u8);

impl Card {
    /// The card of `rank` (0..15) in suit slot `suit` (0..4; only 0 for a joker).
    pub fn new(rank: u8, suit: u8) -> Card {
        debug_assert!(rank < NUM_RANKS as u8 && suit < rank_capacity(rank));
        Card(rank * 4 + suit)
    }
    /// The 54 cards in deck order: 3♠..3♣, 4♠.., …, 2♣, B, R.
    pub fn deck() -> impl Iterator<Item = Card> {
        (0..NUM_RANKS as u8).flat_map(|r| (0..rank_capacity(r)).map(move |s| Card::new(r, s)))
    }
    /// Dense id 0..54 (jokers are 52 and 53), as Botzone numbers cards.
    pub fn id(self) -> u8 {
        if self.0 >= 56 { 53 } else { self.0 }
    }
    /// The card with dense id `id` (0..54, jokers 52 and 53); any other id is [`CardError::BadCardId`].
    pub fn from_id(id: u32) -> Result<Card, CardError> {
        match id {
            0..=52 => Ok(Card(id as u8)),
            53 => Ok(Card(56)),
            _ => Err(CardError::BadCardId(id)),
        }
    }
    /// Rank index 0..15, indexing [`RANK_CHARS`].
    pub fn rank(self) -> u8 {
        self.0 / 4
    }
    /// Suit slot 0..4 (always 0 for a joker).
    pub fn suit(self) -> u8 {
        self.0 % 4
    }
    fn bit(self) -> u64 {
        1 << self.0
    }
}

impl TryFrom<u8> for Card {
    type Error = CardError;
    fn try_from(id: u8) -> Result<Card, CardError> {
        Card::from_id(id as u32)
    }
}

impl From<Card> for u8 {
    fn from(card: Card) -> u8 {
        card.id()
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SUITS: [char; 4] = ['♠', '♥', '♣', '♦'];
        if self.rank() >= RANK_BLACK_JOKER {
            write!(f, "{}", rank_char(self.rank()))
        } else {
            write!(f, "{}{}", rank_char(self.rank()), SUITS[self.suit() as usize])
        }
    }
}

/// A multiset of ranks, 4 bits per rank. `Counts::default()` is empty (a pass).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Counts(pub u64);

const NIBBLE_LOW: u64 = 0x111_1111_1111_1111; // bit 0 of each of the 15 nibbles

impl Counts {
    /// No cards: also the cards of a pass.
    pub const EMPTY: Counts = Counts(0);

    /// The whole deck: four of each rank 3..2, one of each joker.
    pub fn full_deck() -> Counts {
        let mut c = Counts::EMPTY;
        for r in 0..NUM_RANKS as u8 {
            c.add(r, rank_capacity(r));
        }
        c
    }

    /// How many cards of `rank` (0..15) the multiset holds.
    #[inline]
    pub fn get(self, rank: u8) -> u8 {
        ((self.0 >> (rank * 4)) & 0xF) as u8
    }
    /// Adds `n` cards of `rank`; a count must stay at most 15 or it spills into the next rank.
    #[inline]
    pub fn add(&mut self, rank: u8, n: u8) {
        self.0 += (n as u64) << (rank * 4);
    }
    /// A copy with `n` more cards of `rank`, as [`Counts::add`].
    #[inline]
    pub fn with(mut self, rank: u8, n: u8) -> Counts {
        self.add(rank, n);
        self
    }
    /// Total number of cards.
    #[inline]
    pub fn len(self) -> u32 {
        // Sum of nibbles: multiply trick would overflow past 15 per byte pair, so fold bytes.
        let x = self.0;
        let bytes = (x & 0x0F0F_0F0F_0F0F_0F0F) + ((x >> 4) & 0x0F0F_0F0F_0F0F_0F0F);
        (bytes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
    }
    /// Whether there are no cards (a pass).
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The cards as a hand reads: their notation, or `none` for no cards (whose notation,
    /// `pass`, names a play and would misread as one).
    pub fn as_hand(self) -> String {
        if self.is_empty() { "none".into() } else { self.to_string() }
    }
    /// Whether every rank count of `self` is at most the one of `other`.
    #[inline]
    pub fn is_subset_of(self, other: Counts) -> bool {
        // Nibble-wise other - self never borrows iff each nibble of self <= other's; detect a
        // borrow by computing with a guard bit above each nibble (5 bits per lane would be exact;
        // counts are <= 4 so a 3-bit value plus a guard fits in the nibble).
        let guard = NIBBLE_LOW << 3;
        ((other.0 | guard) - self.0) & guard == guard
    }
    /// Removes `other` from `self`; `other` must be a subset.
    #[inline]
    pub fn minus(self, other: Counts) -> Counts {
        debug_assert!(other.is_subset_of(self));
        Counts(self.0 - other.0)
    }
    /// Both multisets together, count by count; a count must stay at most 15.
    #[inline]
    pub fn plus(self, other: Counts) -> Counts {
        Counts(self.0 + other.0)
    }
    /// Ranks present, with their counts, in rank order.
    pub fn iter(self) -> impl Iterator<Item = (u8, u8)> {
        (0..NUM_RANKS as u8).map(move |r| (r, self.get(r))).filter(|&(_, n)| n > 0)
    }
    /// The count of every rank, indexed by rank.
    pub fn to_array(self) -> [u8; NUM_RANKS] {
        std::array::from_fn(|r| self.get(r as u8))
    }

    /// Parses `3456789TJQKA2BR` notation (any order); `pass` or the empty string is empty.
    pub fn parse(text: &str) -> Result<Counts, CardError> {
        let trimmed = text.trim();
        if trimmed.eq_ignore_ascii_case("pass") {
            return Ok(Counts::EMPTY);
        }
        let mut counts = [0u8; NUM_RANKS];
        for (pos, ch) in trimmed.chars().enumerate() {
            let rank = rank_of_char(ch).ok_or_else(|| CardError::UnknownChar { ch, pos, text: text.to_string() })?;
            counts[rank as usize] += 1;
            let capacity = rank_capacity(rank);
            if counts[rank as usize] > capacity {
                return Err(CardError::TooMany {
                    text: text.to_string(),
                    rank: ch,
                    count: counts[rank as usize],
                    capacity,
                });
            }
        }
        Ok(counts.iter().enumerate().fold(Counts::EMPTY, |c, (r, &n)| c.with(r as u8, n)))
    }
}

impl fmt::Display for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("pass");
        }
        for (r, n) in self.iter() {
            for _ in 0..n {
                write!(f, "{}", rank_char(r))?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Counts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Counts({self})")
    }
}

impl std::str::FromStr for Counts {
    type Err = CardError;
    fn from_str(s: &str) -> Result<Counts, CardError> {
        Counts::parse(s)
    }
}

/// A set of physical cards (bit `rank * 4 + suit`).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CardSet(pub u64);

impl CardSet {
    /// No cards.
    pub const EMPTY: CardSet = CardSet(0);

    /// All 54 cards.
    pub fn full_deck() -> CardSet {
        Card::deck().collect()
    }
    /// Whether `card` is in the set.
    #[inline]
    pub fn contains(self, card: Card) -> bool {
        self.0 & card.bit() != 0
    }
    /// Adds `card` (no change if it is already in).
    #[inline]
    pub fn insert(&mut self, card: Card) {
        self.0 |= card.bit();
    }
    /// Takes `card` out (no change if it is not in).
    #[inline]
    pub fn remove(&mut self, card: Card) {
        self.0 &= !card.bit();
    }
    /// Number of cards, 0..=54.
    #[inline]
    pub fn len(self) -> u32 {
        self.0.count_ones()
    }
    /// Whether there are no cards.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The cards in either set.
    pub fn union(self, other: CardSet) -> CardSet {
        CardSet(self.0 | other.0)
    }
    /// The cards of `self` that are not in `other`.
    pub fn minus(self, other: CardSet) -> CardSet {
        CardSet(self.0 & !other.0)
    }
    /// Whether the two sets share a card.
    pub fn intersects(self, other: CardSet) -> bool {
        self.0 & other.0 != 0
    }
    /// Rank counts: a per-nibble popcount.
    #[inline]
    pub fn counts(self) -> Counts {
        let x = self.0;
        let x = x - ((x >> 1) & 0x5555_5555_5555_5555);
        let x = (x & 0x3333_3333_3333_3333) + ((x >> 2) & 0x3333_3333_3333_3333);
        Counts(x)
    }
    /// The cards in bit order: by rank, then suit (so by ascending [`Card::id`]).
    pub fn iter(self) -> impl Iterator<Item = Card> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(Card(i))
        })
    }
    /// Parses rank notation into physical cards, giving each rank its lowest free suits.
    pub fn parse(text: &str) -> Result<CardSet, CardError> {
        let counts = Counts::parse(text)?;
        Ok(CardSet::lowest_suits(counts))
    }
    /// The physical cards of `counts` with the lowest suit slots of each rank.
    pub fn lowest_suits(counts: Counts) -> CardSet {
        let mut set = CardSet::EMPTY;
        for (r, n) in counts.iter() {
            for s in 0..n {
                set.insert(Card::new(r, s));
            }
        }
        set
    }
}

/// Physical cards for several disjoint rank multisets (say, hands): each rank's suits are handed
/// out in order, so the sets never share a card. `None` if together they exceed the deck.
pub fn assign_suits(parts: &[Counts]) -> Option<Vec<CardSet>> {
    let mut next_suit = [0u8; NUM_RANKS];
    parts
        .iter()
        .map(|counts| {
            let mut set = CardSet::EMPTY;
            for (r, n) in counts.iter() {
                for _ in 0..n {
                    if next_suit[r as usize] >= rank_capacity(r) {
                        return None;
                    }
                    set.insert(Card::new(r, next_suit[r as usize]));
                    next_suit[r as usize] += 1;
                }
            }
            Some(set)
        })
        .collect()
}

impl FromIterator<Card> for CardSet {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> CardSet {
        let mut set = CardSet::EMPTY;
        for c in iter {
            set.insert(c);
        }
        set
    }
}

impl fmt::Display for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.counts())
    }
}

impl fmt::Debug for CardSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CardSet(")?;
        for (i, c) in self.iter().enumerate() {
            if i > 0 {
                write!(f, " ")?;
            }
            write!(f, "{c}")?;
        }
        write!(f, ")")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notation_round_trips_sorted() {
        let c = Counts::parse("R3B2A33").unwrap();
        assert_eq!(c.to_string(), "333A2BR");
        assert_eq!(c.len(), 7);
        assert_eq!(Counts::parse("pass").unwrap(), Counts::EMPTY);
        assert_eq!(Counts::EMPTY.to_string(), "pass");
        assert_eq!(Counts::EMPTY.as_hand(), "none", "a hand of no cards is not a play");
        assert_eq!(Counts::parse("33").unwrap().as_hand(), "33");
    }

    #[test]
    fn rejects_unknown_characters_and_impossible_multisets() {
        assert!(matches!(Counts::parse("34x"), Err(CardError::UnknownChar { ch: 'x', pos: 2, .. })));
        assert!(matches!(Counts::parse("77777"), Err(CardError::TooMany { rank: '7', count: 5, .. })));
        assert!(matches!(Counts::parse("RR"), Err(CardError::TooMany { rank: 'R', .. })));
        let msg = Counts::parse("3z").unwrap_err().to_string();
        assert!(msg.contains("'z'"), "{msg}");
    }

    #[test]
    fn deck_has_54_cards_and_counts_match() {
        let deck = CardSet::full_deck();
        assert_eq!(deck.len(), 54);
        assert_eq!(deck.counts(), Counts::full_deck());
        assert_eq!(Counts::full_deck().len(), 54);
        let ids: Vec<u8> = Card::deck().map(Card::id).collect();
        assert_eq!(ids, (0..54).collect::<Vec<u8>>());
    }

    #[test]
    fn subset_and_minus() {
        let hand = CardSet::parse("3334455BR").unwrap();
        let play = Counts::parse("333").unwrap();
        assert!(play.is_subset_of(hand.counts()));
        assert!(!Counts::parse("3333").unwrap().is_subset_of(hand.counts()));
        assert!(!Counts::parse("2").unwrap().is_subset_of(hand.counts()));
        assert_eq!(hand.counts().minus(Counts::parse("34BR").unwrap()).to_string(), "33455");
    }
}
