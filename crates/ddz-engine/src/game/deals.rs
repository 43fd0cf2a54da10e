//! Pre-generated deals: the same seed gives the same deals on any machine.
//!
//! File format (JSONL, one deal a line): `{"landlord":[ids…17],"landlord_down":[…17],
//! "landlord_up":[…17],"bottom":[…3]}` with card ids 0–53 (id/4 = rank index 3..2, 52 = black
//! joker, 53 = red joker, as Botzone numbers them). The landlord gets the bottom on top of its 17.
//! A laizi deal may fix its wild rank, `"wild":"7"` (docs/rules.md); without it a laizi game
//! draws one, and a standard game ignores it. A two-player deal names two hands,
//! `{"landlord":[…17],"farmer":[…17],"bottom":[…3]}`, of the 46 cards without 3s and 4s (ids
//! 8–53); the 9 cards it does not name are set aside.

use super::laizi::WildRank;
use super::seat::Table;
use super::state::{BOTTOM_SIZE, HAND_SIZE, Rules};
use crate::cards::{Card, CardSet};
use crate::error::Cause;
use crate::lines::{Line, split_lines};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What is wrong with a deal or a deal file.
#[derive(Debug, thiserror::Error)]
pub enum DealError {
    /// A deal line that is not a deal: the JSON error, or the field at fault and why.
    #[error("{0}")]
    Invalid(#[source] Cause),
    /// A deal file that could not be read or holds no deals.
    #[error("{path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why it was rejected: the I/O error, or that it holds no deals.
        #[source]
        reason: Cause,
    },
    /// A line of a deal file that is not UTF-8 or not a valid deal.
    #[error("{path}:{line}: {reason}")]
    Line {
        /// The file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// Why the line was rejected: not UTF-8, or not a deal.
        #[source]
        reason: Cause,
    },
}

/// Three 17-card hands (seat 0 is the landlord) and the 3-card bottom; or a two-player deal:
/// two hands (the last slot empty), the bottom, and the rest of its deck set aside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deal {
    /// The 17-card hands by seat: landlord, landlord_down, landlord_up (without the bottom);
    /// two-player: landlord, farmer and an empty slot.
    pub hands: [CardSet; 3],
    /// The 3 bottom cards, which go to the landlord.
    pub bottom: CardSet,
    /// Laizi: the wild rank the deal fixes; `None` (as generated deals have): a laizi game draws
    /// it (evaluation from the deal's cards, a person's game from its seed).
    pub wild: Option<WildRank>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DealLine {
    landlord: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    landlord_down: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    landlord_up: Option<Vec<u32>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    farmer: Option<Vec<u32>>,
    bottom: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wild: Option<String>,
}

/// `n` deals of the rules' deck from `seed` (deal i uses its own generator, so a prefix is
/// stable); standard and laizi deals are [`generate_deals`]'.
pub fn generate_deals_for(rules: Rules, n: usize, seed: u64) -> Vec<Deal> {
    if rules.table() == Table::THREE {
        return generate_deals(n, seed);
    }
    (0..n as u64)
        .map(|i| {
            let mut rng = StdRng::seed_from_u64(crate::seeds::deal(seed, i));
            let mut cards: Vec<Card> = rules.deck().iter().collect();
            for k in (1..cards.len()).rev() {
                cards.swap(k, rng.random_range(0..=k));
            }
            let hand = |s: usize| cards[s * HAND_SIZE..(s + 1) * HAND_SIZE].iter().copied().collect();
            Deal {
                hands: [hand(0), hand(1), CardSet::EMPTY],
                bottom: cards[2 * HAND_SIZE..2 * HAND_SIZE + BOTTOM_SIZE].iter().copied().collect(),
                wild: None,
            }
        })
        .collect()
}

/// `n` standard deals from `seed` (deal i uses its own generator, so a prefix is stable).
pub fn generate_deals(n: usize, seed: u64) -> Vec<Deal> {
    (0..n as u64)
        .map(|i| {
            let mut rng = StdRng::seed_from_u64(crate::seeds::deal(seed, i));
            let mut cards: Vec<Card> = Card::deck().collect();
            for k in (1..cards.len()).rev() {
                cards.swap(k, rng.random_range(0..=k));
            }
            let hand = |s: usize| cards[s * HAND_SIZE..(s + 1) * HAND_SIZE].iter().copied().collect();
            Deal {
                hands: [hand(0), hand(1), hand(2)],
                bottom: cards[3 * HAND_SIZE..3 * HAND_SIZE + BOTTOM_SIZE].iter().copied().collect(),
                wild: None,
            }
        })
        .collect()
}

/// The two built-in deal sets, 2,000 deals each from their own seed: `dev` for every sweep,
/// prior, threshold and default we choose, `test` only for the figures we report. (The first
/// 1,000 `dev` deals are the set every figure before the split was measured on.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DealSet {
    /// The set for development: sweeps, priors, thresholds, defaults.
    Dev,
    /// The held-out set, only for reported figures.
    Test,
}

/// Deals in each built-in set.
pub const DEAL_SET_SIZE: usize = 2000;

impl DealSet {
    /// The seed the set's deals are generated from.
    pub fn seed(self) -> u64 {
        match self {
            DealSet::Dev => 20261129,
            DealSet::Test => 20261201,
        }
    }
    /// The name the command line uses: `dev` or `test`.
    pub fn name(self) -> &'static str {
        match self {
            DealSet::Dev => "dev",
            DealSet::Test => "test",
        }
    }
    /// The set's [`DEAL_SET_SIZE`] deals, generated on each call.
    pub fn deals(self) -> Vec<Deal> {
        generate_deals(DEAL_SET_SIZE, self.seed())
    }
    /// The set's deals for games under `rules`: the same seed, that rules' deck.
    pub fn deals_for(self, rules: Rules) -> Vec<Deal> {
        generate_deals_for(rules, DEAL_SET_SIZE, self.seed())
    }
}

/// Where the deals of an evaluation come from, as the command line names it: `dev`, `test`,
/// or a deal file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DealSource {
    /// A built-in set.
    Set(DealSet),
    /// A JSONL deal file in the module's format.
    File(PathBuf),
}

impl std::str::FromStr for DealSource {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<DealSource, Self::Err> {
        Ok(match s {
            "dev" => DealSource::Set(DealSet::Dev),
            "test" => DealSource::Set(DealSet::Test),
            path => DealSource::File(PathBuf::from(path)),
        })
    }
}

impl std::fmt::Display for DealSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DealSource::Set(set) => f.write_str(set.name()),
            DealSource::File(path) => write!(f, "{}", path.display()),
        }
    }
}

impl DealSource {
    /// The deals; a file's error names it, the line and the reason.
    pub fn load(&self) -> Result<Vec<Deal>, DealError> {
        self.load_for(Rules::Standard)
    }
    /// The deals of games under `rules`; a file's deal of another deck is an error naming the
    /// file, the line and the reason.
    pub fn load_for(&self, rules: Rules) -> Result<Vec<Deal>, DealError> {
        match self {
            DealSource::Set(set) => Ok(set.deals_for(rules)),
            DealSource::File(path) => {
                let deals = read_deals(path)?;
                let refused = |k: usize, reason: String| DealError::Read {
                    path: path.clone(),
                    reason: format!("deal {}: {reason}", k + 1).into(),
                };
                for (k, d) in deals.iter().enumerate() {
                    if d.table() != rules.table() {
                        return Err(refused(k, format!("a deal of {} seats, not of {rules} rules", d.table().len())));
                    }
                    // A wild rank would be dropped without a word in a game that has none.
                    if let (Some(w), false) = (d.wild, rules == Rules::Laizi) {
                        return Err(refused(k, format!("it fixes wild rank {w}; {rules} games have no wild cards")));
                    }
                }
                Ok(deals)
            }
        }
    }
}

/// The first deal that repeats an earlier one, as (earlier index, repeat index). An
/// evaluation counts every deal as an independent sample: repeats would narrow its confidence
/// intervals without adding information.
pub fn first_repeat(deals: &[Deal]) -> Option<(usize, usize)> {
    let mut seen = std::collections::HashMap::with_capacity(deals.len());
    deals.iter().enumerate().find_map(|(i, d)| seen.insert(d.to_json(), i).map(|first| (first, i)))
}

/// The default set of evaluations, replays and people's games: `dev`.
pub fn default_deals() -> Vec<Deal> {
    DealSet::Dev.deals()
}

fn ids(set: CardSet) -> Vec<u32> {
    set.iter().map(|c| c.id() as u32).collect()
}

impl Deal {
    /// The table the deal is for: two seats when its last hand is empty.
    pub fn table(&self) -> Table {
        if self.hands[2].is_empty() { Table::TWO } else { Table::THREE }
    }

    /// The deal as one line of the file format (no newline), card ids ascending within each field.
    pub fn to_json(&self) -> String {
        let two = self.table() == Table::TWO;
        serde_json::to_string(&DealLine {
            landlord: ids(self.hands[0]),
            landlord_down: (!two).then(|| ids(self.hands[1])),
            landlord_up: (!two).then(|| ids(self.hands[2])),
            farmer: two.then(|| ids(self.hands[1])),
            bottom: ids(self.bottom),
            wild: self.wild.map(|w| w.to_string()),
        })
        .unwrap()
    }

    /// Parses one line of the file format; [`DealError::Invalid`] names the fault (bad JSON or field, a card
    /// id outside 0..54, a wrong card count, or a card given twice).
    pub fn from_json(text: &str) -> Result<Deal, DealError> {
        let line: DealLine = serde_json::from_str(text).map_err(|e| DealError::Invalid(e.into()))?;
        let set = |name: &str, v: &[u32], size: usize| -> Result<CardSet, DealError> {
            let invalid = |reason: String| DealError::Invalid(format!("{name}: {reason}").into());
            let mut s = CardSet::EMPTY;
            for &id in v {
                let c = Card::from_id(id).map_err(|e| invalid(e.to_string()))?;
                if s.contains(c) {
                    return Err(invalid(format!("card {id} twice")));
                }
                s.insert(c);
            }
            if v.len() != size {
                return Err(invalid(format!("{} cards, expected {size}", v.len())));
            }
            Ok(s)
        };
        let missing = |name: &str| DealError::Invalid(format!("missing field `{name}`").into());
        let hands = match (&line.landlord_down, &line.landlord_up, &line.farmer) {
            (Some(down), Some(up), None) => [
                set("landlord", &line.landlord, HAND_SIZE)?,
                set("landlord_down", down, HAND_SIZE)?,
                set("landlord_up", up, HAND_SIZE)?,
            ],
            (None, None, Some(farmer)) => {
                [set("landlord", &line.landlord, HAND_SIZE)?, set("farmer", farmer, HAND_SIZE)?, CardSet::EMPTY]
            }
            (None, None, None) => return Err(missing("landlord_down")),
            (Some(_), None, None) => return Err(missing("landlord_up")),
            (None, Some(_), None) => return Err(missing("landlord_down")),
            (_, _, Some(_)) => {
                let reason = "a deal names `farmer` (two-player) or `landlord_down` and `landlord_up`, not both";
                return Err(DealError::Invalid(reason.into()));
            }
        };
        let deal = Deal {
            hands,
            bottom: set("bottom", &line.bottom, BOTTOM_SIZE)?,
            wild: match line.wild.as_deref() {
                Some(w) => Some(WildRank::parse(w).map_err(|e| DealError::Invalid(format!("wild: {e}").into()))?),
                None => None,
            },
        };
        let parts = 3 * HAND_SIZE + BOTTOM_SIZE - if deal.table() == Table::TWO { HAND_SIZE } else { 0 };
        let all = deal.hands.iter().fold(deal.bottom, |a, h| a.union(*h));
        if all.len() as usize != parts {
            return Err(DealError::Invalid("a card appears in two places".into()));
        }
        if deal.table() == Table::TWO && !all.minus(Rules::TwoPlayer.deck()).is_empty() {
            let reason = "a two-player deal has no 3s or 4s (card ids 0 to 7)";
            return Err(DealError::Invalid(reason.into()));
        }
        Ok(deal)
    }
}

/// Writes `deals` to `path` in the file format, one a line, replacing any file there whole or
/// not at all ([`crate::files::write_with`]).
pub fn write_deals(path: &Path, deals: &[Deal]) -> std::io::Result<()> {
    use std::io::Write;
    // Streamed: the text of millions of deals is never held whole.
    crate::files::write_with(path, |out| deals.iter().try_for_each(|d| writeln!(out, "{}", d.to_json())))
}

/// The most deals one call generates: the limits table's bound ([`crate::limits::MOST_DEALS`]).
pub const MOST_DEALS: usize = crate::limits::MOST_DEALS as usize;

/// Reads a deal file; an error names the file, the line and the reason.
pub fn read_deals(path: &Path) -> Result<Vec<Deal>, DealError> {
    let bytes = std::fs::read(path).map_err(|e| DealError::Read { path: path.to_path_buf(), reason: e.into() })?;
    let deals = split_lines(&bytes)
        .filter(|l| !l.text.as_ref().is_ok_and(|t| t.trim().is_empty()))
        .map(|Line { number, text }| {
            let line_error = |reason: Cause| DealError::Line { path: path.to_path_buf(), line: number, reason };
            let text = text.map_err(|e| line_error(e.into()))?;
            Deal::from_json(&text).map_err(|e| line_error(e.into()))
        })
        .collect::<Result<Vec<Deal>, DealError>>()?;
    if deals.is_empty() {
        return Err(DealError::Read { path: path.to_path_buf(), reason: "no deals in the file".into() });
    }
    Ok(deals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_and_test_are_apart_and_dev_keeps_the_old_set() {
        let (dev, test) = (DealSet::Dev.deals(), DealSet::Test.deals());
        assert_eq!((dev.len(), test.len()), (DEAL_SET_SIZE, DEAL_SET_SIZE));
        assert_eq!(dev[..1000], generate_deals(1000, 20261129)[..], "the first 1,000 are the old built-in set");
        let seen: std::collections::HashSet<String> = dev.iter().map(Deal::to_json).collect();
        assert!(test.iter().all(|d| !seen.contains(&d.to_json())), "no test deal is a dev deal");
        assert_eq!("test".parse::<DealSource>().unwrap().load().unwrap(), test);
        assert_eq!("x.jsonl".parse::<DealSource>().unwrap(), DealSource::File("x.jsonl".into()));
        assert!(
            "no/such.jsonl".parse::<DealSource>().unwrap().load().unwrap_err().to_string().contains("no/such.jsonl")
        );
    }

    #[test]
    fn round_trip_and_errors() {
        let d = &generate_deals(3, 1)[2];
        assert_eq!(&Deal::from_json(&d.to_json()).unwrap(), d);
        assert!(
            Deal::from_json(r#"{"landlord":[1],"landlord_down":[],"landlord_up":[],"bottom":[]}"#)
                .unwrap_err()
                .to_string()
                .contains("landlord: 1 cards")
        );
        assert!(Deal::from_json(r#"{"landlord":[99]}"#).is_err());
        // A laizi deal may fix its wild rank: kept through the file, a joker refused by name.
        let fixed = Deal { wild: WildRank::new(4), ..d.clone() };
        assert!(fixed.to_json().ends_with(r#","wild":"7"}"#), "{}", fixed.to_json());
        assert_eq!(Deal::from_json(&fixed.to_json()).unwrap(), fixed);
        assert!(!d.to_json().contains("wild"), "a deal without one writes none");
        let joker = fixed.to_json().replace(r#""wild":"7""#, r#""wild":"B""#);
        let e = Deal::from_json(&joker).unwrap_err().to_string();
        assert!(e.starts_with("wild: "), "{e}");
        let dir = std::env::temp_dir().join(format!("ddz-deals-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("d.jsonl");
        std::fs::write(&path, [d.to_json().as_bytes(), b"\n\xff\n"].concat()).unwrap();
        let e = read_deals(&path).unwrap_err().to_string();
        assert!(e.contains("d.jsonl:2: not UTF-8"), "{e}");
        std::fs::write(&path, "\n").unwrap();
        assert!(read_deals(&path).unwrap_err().to_string().contains("no deals"));
        // Issue 64: a fixed wild rank was dropped without a word outside laizi.
        std::fs::write(&path, format!("{}\n{}\n", d.to_json(), fixed.to_json())).unwrap();
        let file = DealSource::File(path.clone());
        let e = file.load_for(Rules::Standard).unwrap_err().to_string();
        assert!(e.contains("deal 2: it fixes wild rank 7; standard games have no wild cards"), "{e}");
        assert_eq!(file.load_for(Rules::Laizi).unwrap()[1], fixed);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
