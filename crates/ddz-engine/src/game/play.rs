//! Plays: a rank multiset with its type, main rank and length, and the classification of an
//! arbitrary card multiset into at most one play.

use crate::cards::{Counts, NUM_RANKS, RANK_ACE, RANK_BLACK_JOKER, RANK_RED_JOKER};
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

/// A legal combination of cards: its rank multiset, type, main rank (lowest rank of the core) and
/// length (number of core ranks: 1 except for chains and airplanes).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Play {
    /// The cards, as a rank multiset.
    pub cards: Counts,
    /// The type.
    pub kind: Kind,
    /// Main rank: the lowest rank of the core (0 for a pass, the black joker for the rocket).
    pub main: u8,
    /// Number of core ranks: the chain length for chains and airplanes, 0 for a pass, 1 otherwise.
    pub len: u8,
}

impl Play {
    /// The pass: no cards.
    pub const PASS: Play = Play { cards: Counts::EMPTY, kind: Kind::Pass, main: 0, len: 0 };

    /// Whether this is the pass.
    pub fn is_pass(&self) -> bool {
        self.kind == Kind::Pass
    }

    /// The core: `core_width` cards of each rank `main..main+len`.
    pub fn core(&self) -> Counts {
        if self.kind == Kind::Rocket {
            return self.cards;
        }
        let w = self.kind.core_width();
        (self.main..self.main + self.len).fold(Counts::EMPTY, |c, r| c.with(r, w))
    }

    /// The kicker cards (wings): everything outside the core.
    pub fn kickers(&self) -> Counts {
        self.cards.minus(self.core())
    }

    /// The conformance name: `trio_solo_chain_3`, `solo`, …
    pub fn type_name(&self) -> String {
        if self.kind.is_chain() { format!("{}_{}", self.kind.name(), self.len) } else { self.kind.name().to_string() }
    }

    /// Whether this play may answer `rival` (a non-pass play): same type and length with a higher
    /// main rank, or a bomb over a non-bomb or lower bomb, or the rocket.
    pub fn beats(&self, rival: &Play) -> bool {
        match (self.kind, rival.kind) {
            (Kind::Pass, _) | (_, Kind::Pass) | (_, Kind::Rocket) => false,
            (Kind::Rocket, _) => true,
            (Kind::Bomb, Kind::Bomb) => self.main > rival.main,
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
        write!(f, "{}({})", self.type_name(), self.cards)
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
}

/// Shortest chain per core width (solo, pair, trio).
const MIN_CHAIN: [u8; 4] = [0, 5, 3, 2];

/// The one play a card multiset forms, or `None`.
///
/// Written independently of the move generator (which builds plays from their parts), so that
/// tests can check one against the other.
pub fn classify(cards: Counts) -> Option<Play> {
    let n = cards.len() as u8;
    let play = |kind, main, len| Some(Play { cards, kind, main, len });
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
                found = Some(Play { cards, kind, main: start, len: k });
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
