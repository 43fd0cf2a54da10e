//! Legal-move generation: every play a hand can make, leading or answering a rival play.
//!
//! Plays are built from their parts (core ranks, then wings) straight from the hand's rank
//! counts; nothing is filtered out of the 27,472-entry table, which would cost far more.

use super::play::{Kind, Play};
use crate::cards::{Counts, NUM_RANKS, RANK_ACE, RANK_BLACK_JOKER, RANK_RED_JOKER, RANK_TWO};

/// A reusable buffer of plays (avoids an allocation per decision).
pub type MoveList = Vec<Play>;

/// All legal plays for `hand`: with `rival = None` the player leads (no pass); otherwise `pass`
/// comes first, then every play that beats `rival`.
pub fn legal_plays(hand: Counts, rival: Option<&Play>, out: &mut MoveList) {
    out.clear();
    let g = Gen { h: hand.to_array(), hand };
    match rival {
        None => g.lead(out),
        Some(r) if r.is_pass() => g.lead(out),
        Some(r) => {
            out.push(Play::PASS);
            g.follow(r, out);
        }
    }
}

/// Convenience wrapper returning a fresh vector.
pub fn legal_plays_vec(hand: Counts, rival: Option<&Play>) -> Vec<Play> {
    let mut out = Vec::new();
    legal_plays(hand, rival, &mut out);
    out
}

/// Every bomb and the rocket `hand` holds, lowest first (no pass): the answers to a bomb under
/// rules where a lower-ranked bomb may still beat it (laizi's tiers).
pub(crate) fn bombs_and_rocket(hand: Counts, out: &mut MoveList) {
    out.clear();
    let g = Gen { h: hand.to_array(), hand };
    g.of_kind(Kind::Bomb, 1, ANY, out);
    g.of_kind(Kind::Rocket, 1, ANY, out);
}

struct Gen {
    h: [u8; NUM_RANKS],
    hand: Counts,
}

/// `main` must exceed this (−1 means any).
type Floor = i16;
const ANY: Floor = -1;

/// Chain length bounds (min, max) per core width 1, 2, 3.
const CHAIN_LEN: [(u8, u8); 4] = [(0, 0), (5, 12), (3, 10), (2, 6)];

impl Gen {
    fn lead(&self, out: &mut MoveList) {
        for kind in &Kind::ALL[1..] {
            match kind {
                Kind::SoloChain | Kind::PairChain | Kind::TrioChain => {
                    let w = kind.core_width();
                    let (lo, hi) = CHAIN_LEN[w as usize];
                    for len in lo..=hi {
                        self.chains(*kind, w, len, ANY, out);
                    }
                }
                Kind::AirplaneSolo => (2..=5).for_each(|k| self.airplanes(k, false, ANY, out)),
                Kind::AirplanePair => (2..=4).for_each(|k| self.airplanes(k, true, ANY, out)),
                _ => self.of_kind(*kind, 1, ANY, out),
            }
        }
    }

    fn follow(&self, rival: &Play, out: &mut MoveList) {
        let floor = rival.main as Floor;
        match rival.kind {
            Kind::Rocket => return,
            Kind::Bomb => {
                self.of_kind(Kind::Bomb, 1, floor, out);
                self.of_kind(Kind::Rocket, 1, ANY, out);
                return;
            }
            Kind::SoloChain | Kind::PairChain | Kind::TrioChain => {
                self.chains(rival.kind, rival.kind.core_width(), rival.len, floor, out)
            }
            Kind::AirplaneSolo => self.airplanes(rival.len, false, floor, out),
            Kind::AirplanePair => self.airplanes(rival.len, true, floor, out),
            k => self.of_kind(k, 1, floor, out),
        }
        self.of_kind(Kind::Bomb, 1, ANY, out);
        self.of_kind(Kind::Rocket, 1, ANY, out);
    }

    fn push(&self, out: &mut MoveList, cards: Counts, kind: Kind, main: u8, len: u8) {
        debug_assert!(cards.is_subset_of(self.hand));
        out.push(Play::new(cards, kind, main, len));
    }

    /// Non-chain kinds (`len` is 1).
    fn of_kind(&self, kind: Kind, len: u8, floor: Floor, out: &mut MoveList) {
        let h = &self.h;
        let first = (floor + 1) as u8;
        match kind {
            Kind::Solo => {
                for r in first..NUM_RANKS as u8 {
                    if h[r as usize] >= 1 {
                        self.push(out, Counts::EMPTY.with(r, 1), kind, r, len);
                    }
                }
            }
            Kind::Pair | Kind::Trio | Kind::Bomb => {
                let w = kind.core_width();
                for r in first..=RANK_TWO {
                    if h[r as usize] >= w {
                        self.push(out, Counts::EMPTY.with(r, w), kind, r, len);
                    }
                }
            }
            Kind::Rocket => {
                if h[RANK_BLACK_JOKER as usize] == 1 && h[RANK_RED_JOKER as usize] == 1 {
                    let cards = Counts::EMPTY.with(RANK_BLACK_JOKER, 1).with(RANK_RED_JOKER, 1);
                    self.push(out, cards, kind, RANK_BLACK_JOKER, 1);
                }
            }
            Kind::TrioSolo | Kind::TrioPair => {
                let kicker = if kind == Kind::TrioSolo { 1 } else { 2 };
                let last_kicker = if kicker == 1 { RANK_RED_JOKER } else { RANK_TWO };
                for t in first..=RANK_TWO {
                    if h[t as usize] < 3 {
                        continue;
                    }
                    let core = Counts::EMPTY.with(t, 3);
                    for k in 0..=last_kicker {
                        if k != t && h[k as usize] >= kicker {
                            self.push(out, core.with(k, kicker), kind, t, 1);
                        }
                    }
                }
            }
            Kind::FourTwoSolo | Kind::FourTwoPair => {
                for f in first..=RANK_TWO {
                    if h[f as usize] == 4 {
                        self.four_with_two(f, kind == Kind::FourTwoPair, out);
                    }
                }
            }
            _ => unreachable!("{kind:?} is generated elsewhere"),
        }
    }

    fn four_with_two(&self, f: u8, pairs: bool, out: &mut MoveList) {
        let h = &self.h;
        let core = Counts::EMPTY.with(f, 4);
        let (kind, w, last) =
            if pairs { (Kind::FourTwoPair, 2, RANK_TWO) } else { (Kind::FourTwoSolo, 1, RANK_RED_JOKER) };
        for a in 0..=last {
            if a == f || h[a as usize] < w {
                continue;
            }
            // Two solos may be the same rank (a pair); two pairs must differ.
            let b_first = if pairs { a + 1 } else { a };
            for b in b_first..=last {
                if b == f || h[b as usize] < w || (a == b && h[a as usize] < 2 * w) {
                    continue;
                }
                if a == RANK_BLACK_JOKER && b == RANK_RED_JOKER {
                    continue; // the rocket never serves as two kickers
                }
                self.push(out, core.with(a, w).with(b, w), kind, f, 1);
            }
        }
    }

    /// Chains of exactly `len` ranks of width `w`, starting above `floor`.
    fn chains(&self, kind: Kind, w: u8, len: u8, floor: Floor, out: &mut MoveList) {
        let h = &self.h;
        let first = (floor + 1) as u8;
        if first + len > RANK_ACE + 1 {
            return;
        }
        // run = number of consecutive ranks with >= w cards ending at r.
        let mut run = 0u8;
        let mut cards = Counts::EMPTY;
        for r in 0..=RANK_ACE {
            if h[r as usize] >= w {
                run += 1;
                cards.add(r, w);
                if run > len {
                    cards = cards.minus(Counts::EMPTY.with(r - len, w));
                    run = len;
                }
                if run == len {
                    let start = r + 1 - len;
                    if start >= first {
                        self.push(out, cards, kind, start, len);
                    }
                }
            } else {
                run = 0;
                cards = Counts::EMPTY;
            }
        }
    }

    /// Airplanes of `k` trios, with `k` solo wings or `k` distinct pair wings.
    fn airplanes(&self, k: u8, pair_wings: bool, floor: Floor, out: &mut MoveList) {
        let h = &self.h;
        let width = if pair_wings { 5 } else { 4 };
        if (self.hand.len() as u8) < width * k {
            return;
        }
        let first = (floor + 1) as u8;
        if first + k > RANK_ACE + 1 {
            return;
        }
        for start in first..=(RANK_ACE + 1 - k) {
            if (start..start + k).any(|r| h[r as usize] < 3) {
                continue;
            }
            let core = (start..start + k).fold(Counts::EMPTY, |c, r| c.with(r, 3));
            // Wing candidates and how many of each may be used.
            let mut ranks = [0u8; NUM_RANKS];
            let mut caps = [0u8; NUM_RANKS];
            let mut m = 0;
            for r in 0..NUM_RANKS as u8 {
                if r >= start && r < start + k {
                    continue;
                }
                let cap = if pair_wings {
                    if r <= RANK_TWO && h[r as usize] >= 2 { 1 } else { 0 }
                } else {
                    // A wing trio beside the chain would read as a longer chain too: no play.
                    let adjacent = (r + 1 == start) || (r == start + k && r <= RANK_ACE);
                    let max = if adjacent { 2 } else { 3 };
                    h[r as usize].min(max)
                };
                if cap > 0 {
                    ranks[m] = r;
                    caps[m] = cap;
                    m += 1;
                }
            }
            let kind = if pair_wings { Kind::AirplanePair } else { Kind::AirplaneSolo };
            let play = Play::new(core, kind, start, k);
            let unit = if pair_wings { 2 } else { 1 };
            self.wings(&ranks[..m], &caps[..m], k, unit, play, out);
        }
    }

    /// Adds every multiset of `left` wings (each rank up to its cap, `unit` cards per wing).
    fn wings(&self, ranks: &[u8], caps: &[u8], left: u8, unit: u8, play: Play, out: &mut MoveList) {
        if left == 0 {
            let c = play.cards;
            if c.get(RANK_BLACK_JOKER) == 1 && c.get(RANK_RED_JOKER) == 1 {
                return; // the rocket never serves as two kickers
            }
            self.push(out, c, play.kind, play.main, play.len);
            return;
        }
        let Some((&r, rest)) = ranks.split_first() else { return };
        // Capacity left in the remaining ranks bounds the search.
        let room: u8 = caps.iter().sum();
        if room < left {
            return;
        }
        for n in (0..=caps[0].min(left)).rev() {
            let next = Play { cards: play.cards.with(r, n * unit), ..play };
            self.wings(rest, &caps[1..], left - n, unit, next, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legal(hand: &str, rival: &str) -> Vec<String> {
        let hand = Counts::parse(hand).unwrap();
        let rival = if rival.is_empty() { None } else { Some(Play::parse(rival).unwrap()) };
        let mut v: Vec<String> = legal_plays_vec(hand, rival.as_ref()).iter().map(|p| p.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn every_chain_of_every_length_and_start() {
        let got = legal("3456789", "");
        let chains: Vec<&String> = got.iter().filter(|s| s.len() >= 5).collect();
        assert_eq!(chains, ["34567", "345678", "3456789", "45678", "456789", "56789"]);
    }

    #[test]
    fn pass_only_when_following() {
        assert!(!legal("345", "").contains(&"pass".to_string()));
        assert_eq!(legal("345", "2"), ["pass"]);
        assert_eq!(legal("3455BR", "A"), ["B", "BR", "R", "pass"]);
        assert_eq!(legal("3333", "BR"), ["pass"]);
    }
}
