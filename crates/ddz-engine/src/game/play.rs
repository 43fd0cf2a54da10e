//! Plays: a rank multiset with its type, main rank and length, and the classification of an
//! arbitrary card multiset into at most one play.
//!
//! Under laizi rules a play also carries what its wild cards stand for ([`Wilds`]): the cards it
//! takes from the hand and the standard play it is read as ([`Play::reading`]) then differ.

use crate::cards::{Counts, NUM_RANKS, RANK_ACE, RANK_BLACK_JOKER, RANK_RED_JOKER, RANK_TWO};
use std::fmt;

/// The type of a play. The order is the order of the groups in the action table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Kind {
    /// No cards: the seat declines to answer the play to beat.
    Pass,
    /// One card.
    Solo,
    /// Two cards of one rank.
    Pair,
    /// Three cards of one rank.
    Trio,
    /// Trio with one solo kicker.
    TrioSolo,
    /// Trio with one pair kicker.
    TrioPair,
    /// 5–12 consecutive solos, 3..A.
    SoloChain,
    /// 3–10 consecutive pairs.
    PairChain,
    /// 2–6 consecutive trios.
    TrioChain,
    /// Airplane: 2–5 consecutive trios with as many solo wings.
    AirplaneSolo,
    /// Airplane: 2–4 consecutive trios with as many pair wings (distinct ranks).
    AirplanePair,
    /// Four of a kind with two solos (which may be a pair, never the rocket).
    FourTwoSolo,
    /// Four of a kind with two distinct pairs.
    FourTwoPair,
    /// Four cards of one rank: beats any play but a higher bomb or the rocket.
    Bomb,
    /// Both jokers: beats every play.
    Rocket,
}

impl Kind {
    /// Every type, in declaration (action-table) order.
    pub const ALL: [Kind; 15] = [
        Kind::Pass,
        Kind::Solo,
        Kind::Pair,
        Kind::Trio,
        Kind::TrioSolo,
        Kind::TrioPair,
        Kind::SoloChain,
        Kind::PairChain,
        Kind::TrioChain,
        Kind::AirplaneSolo,
        Kind::AirplanePair,
        Kind::FourTwoSolo,
        Kind::FourTwoPair,
        Kind::Bomb,
        Kind::Rocket,
    ];
    /// Number of types.
    pub const COUNT: usize = Kind::ALL.len();

    /// Cards per rank of the play's core (the part that sets its main rank).
    pub fn core_width(self) -> u8 {
        match self {
            Kind::Pass | Kind::Rocket => 0,
            Kind::Solo | Kind::SoloChain => 1,
            Kind::Pair | Kind::PairChain => 2,
            Kind::Trio
            | Kind::TrioSolo
            | Kind::TrioPair
            | Kind::TrioChain
            | Kind::AirplaneSolo
            | Kind::AirplanePair => 3,
            Kind::FourTwoSolo | Kind::FourTwoPair | Kind::Bomb => 4,
        }
    }

    /// Snake-case name, as in the conformance files (without the chain length).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pass => "pass",
            Kind::Solo => "solo",
            Kind::Pair => "pair",
            Kind::Trio => "trio",
            Kind::TrioSolo => "trio_solo",
            Kind::TrioPair => "trio_pair",
            Kind::SoloChain => "solo_chain",
            Kind::PairChain => "pair_chain",
            Kind::TrioChain => "trio_chain",
            Kind::AirplaneSolo => "trio_solo_chain",
            Kind::AirplanePair => "trio_pair_chain",
            Kind::FourTwoSolo => "four_two_solo",
            Kind::FourTwoPair => "four_two_pair",
            Kind::Bomb => "bomb",
            Kind::Rocket => "rocket",
        }
    }

    /// Whether the type's name carries a length (chains and airplanes).
    pub fn is_chain(self) -> bool {
        matches!(self, Kind::SoloChain | Kind::PairChain | Kind::TrioChain | Kind::AirplaneSolo | Kind::AirplanePair)
    }
}

/// What the wild cards of a laizi play stand for: the wild rank they are, and up to four ranks
/// from 3 to 2 (one per wild card taken, its own rank included), packed a nibble each in rank
/// order. [`Wilds::NONE`] for every play of the standard game.
///
/// Packed so that a [`Play`] stays 16 bytes: the standard game's move lists do not grow.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Wilds {
    /// The wild rank, or [`Wilds::NO_RANK`].
    rank: u8,
    /// Nibble `i` is what the `i`-th wild stands for (ascending); `0xF` past the last one.
    stands: u16,
}

impl Wilds {
    /// No wild cards: every standard play, and a laizi play of natural cards only.
    pub const NONE: Wilds = Wilds { rank: Wilds::NO_RANK, stands: 0xFFFF };
    const NO_RANK: u8 = 0xFF;

    /// Wild cards of `rank` (3..2) standing for `stands` (at most four cards of ranks 3..2);
    /// `None` for a joker among them or more than four.
    pub fn new(rank: u8, stands: Counts) -> Option<Wilds> {
        if rank > RANK_TWO || stands.len() > 4 || stands.iter().any(|(r, _)| r > RANK_TWO) {
            return None;
        }
        if stands.is_empty() {
            return Some(Wilds::NONE);
        }
        let mut packed = 0xFFFFu16;
        let mut i = 0;
        for (r, n) in stands.iter() {
            for _ in 0..n {
                packed = (packed & !(0xF << (4 * i))) | ((r as u16) << (4 * i));
                i += 1;
            }
        }
        Some(Wilds { rank, stands: packed })
    }
    /// How many wild cards the play takes.
    pub fn count(self) -> u8 {
        (0..4).take_while(|i| (self.stands >> (4 * i)) & 0xF != 0xF).count() as u8
    }
    /// The wild rank, when the play takes wild cards.
    pub fn rank(self) -> Option<u8> {
        (self.rank != Wilds::NO_RANK).then_some(self.rank)
    }
    /// The ranks the wild cards stand for, as a multiset.
    pub fn stands(self) -> Counts {
        (0..self.count()).fold(Counts::EMPTY, |c, i| c.with(((self.stands >> (4 * i)) & 0xF) as u8, 1))
    }
}

impl fmt::Debug for Wilds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.rank() {
            None => f.write_str("Wilds(none)"),
            Some(r) => write!(f, "Wilds({} as {})", crate::cards::rank_char(r), self.stands()),
        }
    }
}

/// How a bomb ranks among bombs under laizi rules (the standard game has only hard bombs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BombTier {
    /// One to three wild cards with natural ones.
    Soft,
    /// Four natural cards.
    Hard,
    /// The four wild cards, standing for the wild rank.
    Pure,
}

/// A legal combination of cards: its rank multiset, type, main rank (lowest rank of the core) and
/// length (number of core ranks: 1 except for chains and airplanes).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Play {
    /// The cards taken from the hand, as a rank multiset (wild cards at the wild rank).
    pub cards: Counts,
    /// The type.
    pub kind: Kind,
    /// Main rank: the lowest rank of the core (0 for a pass, the black joker for the rocket).
    pub main: u8,
    /// Number of core ranks: the chain length for chains and airplanes, 0 for a pass, 1 otherwise.
    pub len: u8,
    /// What the wild cards stand for (laizi); [`Wilds::NONE`] in the standard game.
    pub wilds: Wilds,
}

impl Play {
    /// The pass: no cards.
    pub const PASS: Play = Play { cards: Counts::EMPTY, kind: Kind::Pass, main: 0, len: 0, wilds: Wilds::NONE };

    /// A play without wild cards.
    pub const fn new(cards: Counts, kind: Kind, main: u8, len: u8) -> Play {
        Play { cards, kind, main, len, wilds: Wilds::NONE }
    }

    /// Whether this is the pass.
    pub fn is_pass(&self) -> bool {
        self.kind == Kind::Pass
    }

    /// The cards the play stands for: [`Play::cards`] with each wild card replaced by the rank
    /// it stands for. The same as `cards` when the play takes no wild card.
    #[inline]
    pub fn reading(&self) -> Counts {
        match self.wilds.rank() {
            None => self.cards,
            Some(w) => {
                let wild = Counts::EMPTY.with(w, self.cards.get(w));
                self.cards.minus(wild).plus(self.wilds.stands())
            }
        }
    }

    /// The core: `core_width` cards of each rank `main..main+len` (of the reading).
    pub fn core(&self) -> Counts {
        if self.kind == Kind::Rocket {
            return self.cards;
        }
        let w = self.kind.core_width();
        (self.main..self.main + self.len).fold(Counts::EMPTY, |c, r| c.with(r, w))
    }

    /// The kicker cards (wings) of the reading: everything outside the core.
    pub fn kickers(&self) -> Counts {
        self.reading().minus(self.core())
    }

    /// A bomb's tier: soft (some wild cards), hard (none) or pure (four wild cards).
    pub fn bomb_tier(&self) -> BombTier {
        match self.wilds.count() {
            0 => BombTier::Hard,
            4 => BombTier::Pure,
            _ => BombTier::Soft,
        }
    }

    /// The conformance name: `trio_solo_chain_3`, `solo`, …
    pub fn type_name(&self) -> String {
        if self.kind.is_chain() { format!("{}_{}", self.kind.name(), self.len) } else { self.kind.name().to_string() }
    }

    /// Whether this play may answer `rival` (a non-pass play): same type and length with a higher
    /// main rank, or a bomb over a non-bomb or lower bomb, or the rocket. Bombs rank by tier, then
    /// by main rank: soft < hard < pure (laizi; every standard bomb is hard).
    pub fn beats(&self, rival: &Play) -> bool {
        match (self.kind, rival.kind) {
            (Kind::Pass, _) | (_, Kind::Pass) | (_, Kind::Rocket) => false,
            (Kind::Rocket, _) => true,
            (Kind::Bomb, Kind::Bomb) => (self.bomb_tier(), self.main) > (rival.bomb_tier(), rival.main),
            (Kind::Bomb, _) => true,
            (a, b) => a == b && self.len == rival.len && self.main > rival.main,
        }
    }

    /// Parses notation into a play: `pass`, or a card multiset that is exactly one play.
    pub fn parse(text: &str) -> Result<Play, PlayError> {
        let cards = Counts::parse(text)?;
        classify(cards).ok_or_else(|| PlayError::NotAPlay(text.trim().to_string()))
    }
}

impl fmt::Display for Play {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.cards)
    }
}

impl fmt::Debug for Play {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.wilds.count() == 0 {
            write!(f, "{}({})", self.type_name(), self.cards)
        } else {
            write!(f, "{}({} as {})", self.type_name(), self.cards, self.reading())
        }
    }
}

/// Why a text is not a play.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    /// The text is not valid card notation.
    #[error(transparent)]
    Cards(#[from] crate::cards::CardError),
    /// The cards form no play; holds the trimmed text.
    #[error("{0:?} is not a valid play under the standard rules")]
    NotAPlay(String),
    /// Laizi notation (`5555/5`) that names no play with this wild rank.
    #[error("{text:?} is no play with wild rank {wild}")]
    NoWildPlay {
        /// The text given.
        text: String,
        /// The game's wild rank.
        wild: crate::game::laizi::WildRank,
    },
}

/// Shortest chain per core width (solo, pair, trio).
const MIN_CHAIN: [u8; 4] = [0, 5, 3, 2];

/// The one play a card multiset forms, or `None`.
///
/// Written independently of the move generator (which builds plays from their parts), so that
/// tests can check one against the other.
pub fn classify(cards: Counts) -> Option<Play> {
    let n = cards.len() as u8;
    let play = |kind, main, len| Some(Play::new(cards, kind, main, len));
    if n == 0 {
        return play(Kind::Pass, 0, 0);
    }
    let c = cards.to_array();
    if n == 2 && c[RANK_BLACK_JOKER as usize] == 1 && c[RANK_RED_JOKER as usize] == 1 {
        return play(Kind::Rocket, RANK_BLACK_JOKER, 1);
    }
    let ranks: Vec<u8> = (0..15u8).filter(|&r| c[r as usize] > 0).collect();
    let lowest = ranks[0];

    // One rank: solo, pair, trio, bomb.
    if ranks.len() == 1 {
        return match n {
            1 => play(Kind::Solo, lowest, 1),
            2 => play(Kind::Pair, lowest, 1),
            3 => play(Kind::Trio, lowest, 1),
            4 => play(Kind::Bomb, lowest, 1),
            _ => None,
        };
    }

    // Pure chains: every rank the same width, consecutive, within 3..A.
    let width = c[lowest as usize];
    let &highest = ranks.last()?;
    if width <= 3
        && ranks.iter().all(|&r| c[r as usize] == width)
        && highest <= RANK_ACE
        && (highest - lowest + 1) as usize == ranks.len()
        && ranks.len() as u8 >= MIN_CHAIN[width as usize]
    {
        let kind = [Kind::Pass, Kind::SoloChain, Kind::PairChain, Kind::TrioChain][width as usize];
        return play(kind, lowest, ranks.len() as u8);
    }

    let rocket_inside = c[RANK_BLACK_JOKER as usize] == 1 && c[RANK_RED_JOKER as usize] == 1;

    // Trio with a kicker.
    if ranks.len() == 2 && (n == 4 || n == 5) {
        let (trio, other) = if c[ranks[0] as usize] == 3 { (ranks[0], ranks[1]) } else { (ranks[1], ranks[0]) };
        if c[trio as usize] == 3 {
            if n == 4 {
                return play(Kind::TrioSolo, trio, 1);
            }
            if c[other as usize] == 2 {
                return play(Kind::TrioPair, trio, 1);
            }
        }
    }

    // Four with two solos or two pairs.
    if let Some(&four) = ranks.iter().find(|&&r| c[r as usize] == 4) {
        let rest: Vec<u8> = ranks.iter().copied().filter(|&r| r != four).collect();
        if n == 6 && !rocket_inside {
            return play(Kind::FourTwoSolo, four, 1);
        }
        if n == 8 && rest.len() == 2 && rest.iter().all(|&r| c[r as usize] == 2) {
            return play(Kind::FourTwoPair, four, 1);
        }
    }

    airplane(cards, &c, &ranks, rocket_inside)
}

/// Airplanes: k consecutive trios (exactly three cards each) plus k solos or k distinct pairs.
/// A multiset that reads as an airplane in two ways (a wing trio next to the chain) is no play.
fn airplane(cards: Counts, c: &[u8; NUM_RANKS], ranks: &[u8], rocket_inside: bool) -> Option<Play> {
    let n = cards.len() as u8;
    let mut found = None;
    for k in 2..=5u8 {
        let pair_wings = n == 5 * k;
        if n != 4 * k && !pair_wings {
            continue;
        }
        for start in 0..=(RANK_ACE + 1 - k) {
            if (start..start + k).any(|r| c[r as usize] != 3) {
                continue;
            }
            let wings: Vec<u8> = ranks.iter().copied().filter(|&r| r < start || r >= start + k).collect();
            let ok = if pair_wings {
                wings.len() == k as usize && wings.iter().all(|&r| c[r as usize] == 2 && r < RANK_BLACK_JOKER)
            } else {
                !rocket_inside && wings.iter().all(|&r| c[r as usize] <= 3)
            };
            if ok {
                if found.is_some() {
                    return None;
                }
                let kind = if pair_wings { Kind::AirplanePair } else { Kind::AirplaneSolo };
                found = Some(Play::new(cards, kind, start, k));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<String> {
        classify(Counts::parse(s).unwrap()).map(|p| p.type_name())
    }

    #[test]
    fn classifies_the_basic_types() {
        assert_eq!(kind("7").as_deref(), Some("solo"));
        assert_eq!(kind("BR").as_deref(), Some("rocket"));
        assert_eq!(kind("B").as_deref(), Some("solo"));
        assert_eq!(kind("3334").as_deref(), Some("trio_solo"));
        assert_eq!(kind("33344").as_deref(), Some("trio_pair"));
        assert_eq!(kind("34567").as_deref(), Some("solo_chain_5"));
        assert_eq!(kind("TJQKA").as_deref(), Some("solo_chain_5"));
        assert_eq!(kind("JQKA2"), None, "2 never joins a chain");
        assert_eq!(kind("334455").as_deref(), Some("pair_chain_3"));
        assert_eq!(kind("333444").as_deref(), Some("trio_chain_2"));
        assert_eq!(kind("333444555666").as_deref(), Some("trio_chain_4"));
        assert_eq!(kind("33344456").as_deref(), Some("trio_solo_chain_2"));
        assert_eq!(kind("33344455").as_deref(), Some("trio_solo_chain_2"));
        assert_eq!(kind("3334445566").as_deref(), Some("trio_pair_chain_2"));
        assert_eq!(kind("333344").as_deref(), Some("four_two_solo"));
        assert_eq!(kind("33334455").as_deref(), Some("four_two_pair"));
        assert_eq!(kind("3333BR"), None, "the rocket is never two kickers");
        assert_eq!(kind("33344BR"), None);
        assert_eq!(kind("33334444"), None);
        assert_eq!(kind("3334445556667778"), None, "two readings: no play");
        assert_eq!(kind("3456"), None);
        assert_eq!(kind("2222").as_deref(), Some("bomb"));
    }

    #[test]
    fn a_play_stays_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Play>(), 16, "move lists must not grow for the wild cards");
    }

    #[test]
    fn wilds_pack_and_read() {
        let c = |s: &str| Counts::parse(s).unwrap();
        let w = Wilds::new(4, c("55")).unwrap(); // two 7s (rank 4) standing for 5s
        assert_eq!((w.count(), w.rank(), w.stands()), (2, Some(4), c("55")));
        assert_eq!(Wilds::new(4, c("35")).unwrap().stands(), c("35"));
        let play = Play { cards: c("3377"), kind: Kind::PairChain, main: 0, len: 2, wilds: w };
        assert_eq!(play.reading(), c("3355"), "the reading replaces each 7 by what it stands for");
        assert_eq!(Wilds::new(4, Counts::EMPTY), Some(Wilds::NONE));
        assert_eq!(Wilds::new(4, c("B")), None, "never a joker");
        assert_eq!(Wilds::new(13, c("3")), None, "a joker is never wild");
        assert_eq!(Wilds::new(4, Counts::EMPTY.with(0, 5)), None);
        assert_eq!(Wilds::new(4, c("2222")).unwrap().count(), 4);
    }

    #[test]
    fn bombs_rank_by_tier_then_rank() {
        let c = |s: &str| Counts::parse(s).unwrap();
        let bomb = |cards: &str, main: u8, stands: &str| Play {
            cards: c(cards),
            kind: Kind::Bomb,
            main,
            len: 1,
            wilds: Wilds::new(4, c(stands)).unwrap(),
        };
        // Wild rank 7 (rank 4): 2227 is a soft bomb of 2s, 3333 hard, 7777 pure.
        let soft_two = bomb("2227", 12, "2");
        let hard_three = bomb("3333", 0, "");
        let pure = bomb("7777", 4, "7777");
        let rocket = Play::parse("BR").unwrap();
        assert!(hard_three.beats(&soft_two), "a hard bomb beats every soft bomb");
        assert!(pure.beats(&bomb("2222", 12, "")), "the pure wild bomb beats every hard bomb");
        assert!(rocket.beats(&pure));
        assert!(bomb("4447", 1, "4").beats(&bomb("3337", 0, "3")), "soft bombs by rank");
        assert!(!soft_two.beats(&hard_three));
    }

    #[test]
    fn beating_rules() {
        let p = |s: &str| Play::parse(s).unwrap();
        assert!(p("4").beats(&p("3")));
        assert!(!p("3").beats(&p("3")));
        assert!(!p("44").beats(&p("3")));
        assert!(p("45678").beats(&p("34567")));
        assert!(!p("456789").beats(&p("34567")), "length must match");
        assert!(p("3333").beats(&p("22")));
        assert!(p("4444").beats(&p("3333")));
        assert!(!p("3333").beats(&p("4444")));
        assert!(p("BR").beats(&p("2222")));
        assert!(!p("2222").beats(&p("BR")));
        assert!(p("4445").beats(&p("333A")));
    }
}
