//! A finished game as bytes, for actors in other processes (one Redis stream entry each).
//!
//! Two layouts, both measured by `ddz bench wire` (docs/distributed.md): [`Layout::Floats`]
//! writes every feature as a little-endian f32; [`Layout::Bits`] writes one bit per feature
//! (set where the feature is not zero) and lists the few features that are neither 0 nor 1
//! (card counts over 20, the round…) as index and value. The encoder's features are almost all
//! 0 or 1, so `Bits` is about 25 times smaller and exact: a decoded frame equals the sent one bit
//! for bit. Actors send `Bits`; the learner reads either.
//!
//! ```text
//! "DDZG" layout:u8 learning:u8 vs_rule:u8 landlord_won:u8 version:u64 index:u64 frames:u32
//! per frame: target:f32 points:f32 role:u8 hidden[HIDDEN_RANKS] state[STATE_DIM] action[ACTION_DIM]
//! bids:u16, per bid: target:f32 bid:u8 features[BID_DIM]              (all little-endian)
//! ```

use super::actor::{GameMsg, Learning};
use super::config::MAX_POINTS;
use super::trajectory::BidFrame;
use crate::cards::{NUM_RANKS, RANK_BLACK_JOKER, RANK_RED_JOKER};
use crate::encode::{ACTION_DIM, BID_DIM, HIDDEN_RANKS, HiddenHands, STATE_DIM};
use crate::game::MOST_CONCEDED;

/// The most bids of a deal: three seats once each; two-player a pass, a call and its robs.
const MOST_BIDS: usize = 2 + MOST_CONCEDED as usize;
use crate::game::Role;
use crate::game::spiel::MAX_PLAY_DECISIONS;
use crate::model::Frame;

const MAGIC: &[u8; 4] = b"DDZG";
const HEADER: usize = 4 + 4 + 8 + 8 + 4;

/// How features are written; its value is the layout byte of the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Layout {
    /// One bit per feature, and the features neither 0 nor 1 as index and value.
    Bits = 5,
    /// Every feature as a little-endian f32.
    Floats = 6,
}

/// Why bytes are not a message this ddz can read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WireError {
    /// The bytes do not start with `DDZG`.
    #[error("not a ddz game: it does not start with DDZG")]
    Magic,
    /// A layout byte this ddz does not know (another version wrote it).
    #[error(
        "layout {0} is unknown to this ddz (5 = bits, 6 = floats; 1 to 4 came from a ddz before frames carried the hidden hands (1, 2) and the points label (3, 4): run actors and learner of one version)"
    )]
    Layout(u8),
    /// The message ends early; the number is its length in bytes.
    #[error("cut short: {0} bytes where more were due")]
    Truncated(usize),
    /// A count or value out of its range, or bytes left after the end.
    #[error("{0}")]
    Invalid(String),
}

/// Appends `msg` to `out` in `layout`.
pub fn encode(msg: &GameMsg, layout: Layout, out: &mut Vec<u8>) {
    out.extend_from_slice(MAGIC);
    let learning = match msg.learning {
        Learning::AllSeats => 0u8,
        Learning::Landlord => 1,
        Learning::Farmers => 2,
    };
    out.extend_from_slice(&[layout as u8, learning, msg.vs_rule as u8, msg.landlord_won as u8]);
    out.extend_from_slice(&msg.version.to_le_bytes());
    out.extend_from_slice(&msg.index.to_le_bytes());
    out.extend_from_slice(&(msg.frames.len() as u32).to_le_bytes());
    for f in &msg.frames {
        out.extend_from_slice(&f.target.to_le_bytes());
        out.extend_from_slice(&f.points.to_le_bytes());
        out.push(f.role.index() as u8);
        out.extend_from_slice(&f.hidden.0);
        match layout {
            Layout::Floats => f.state.iter().chain(&f.action).for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Layout::Bits => {
                write_bits(&f.state, out);
                write_bits(&f.action, out);
            }
        }
    }
    out.extend_from_slice(&(msg.bids.len() as u16).to_le_bytes());
    for b in &msg.bids {
        out.extend_from_slice(&b.target.to_le_bytes());
        out.push(b.bid);
        match layout {
            Layout::Floats => b.features.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Layout::Bits => write_bits(&b.features, out),
        }
    }
}

/// One bit per feature (not zero), then the count and (index, value) of those neither 0 nor 1.
fn write_bits(features: &[f32], out: &mut Vec<u8>) {
    let mut odd = Vec::new();
    for (j, chunk) in features.chunks(8).enumerate() {
        let mut byte = 0u8;
        for (k, &x) in chunk.iter().enumerate() {
            if x != 0.0 {
                byte |= 1 << k;
                if x != 1.0 {
                    odd.push(((j * 8 + k) as u16, x));
                }
            }
        }
        out.push(byte);
    }
    out.extend_from_slice(&(odd.len() as u16).to_le_bytes());
    for (i, x) in odd {
        out.extend_from_slice(&i.to_le_bytes());
        out.extend_from_slice(&x.to_le_bytes());
    }
}

/// Reads a message of plays with the base action features ([`ACTION_DIM`]); see [`decode_with`].
pub fn decode(bytes: &[u8]) -> Result<GameMsg, WireError> {
    decode_with(bytes, ACTION_DIM)
}

/// Reads a message whose plays have `action_dim` features each (the receiving network's
/// [`crate::encode::ActionLayout::dim`]: the base features, or them and the hand-structure
/// block); every length and value is checked, so bad bytes are an error, never a panic.
pub fn decode_with(bytes: &[u8], action_dim: usize) -> Result<GameMsg, WireError> {
    if bytes.len() < 4 || &bytes[..4] != MAGIC {
        return Err(WireError::Magic);
    }
    let mut r = Reader { bytes, at: 4 };
    let layout = match r.u8()? {
        5 => Layout::Bits,
        6 => Layout::Floats,
        other => return Err(WireError::Layout(other)),
    };
    let learning = match r.u8()? {
        0 => Learning::AllSeats,
        1 => Learning::Landlord,
        2 => Learning::Farmers,
        other => return Err(WireError::Invalid(format!("learning side {other} (0, 1 or 2)"))),
    };
    let (vs_rule, landlord_won) = (r.flag()?, r.flag()?);
    let version = u64::from_le_bytes(r.array()?);
    let index = u64::from_le_bytes(r.array()?);
    let n = r.u32()? as usize;
    // Checked against the game before anything is allocated for it: no game has more.
    if n > MAX_PLAY_DECISIONS {
        return Err(WireError::Invalid(format!("{n} decisions: a game has at most {MAX_PLAY_DECISIONS}")));
    }
    // Each frame holds at least its target, role and bit masks: a count beyond that is a lie.
    if n > bytes.len() / (9 + HIDDEN_RANKS + (STATE_DIM + action_dim) / 8) {
        return Err(WireError::Invalid(format!("{n} frames cannot fit in {} bytes", bytes.len())));
    }
    let mut frames = Vec::with_capacity(n);
    for _ in 0..n {
        let target = r.f32()?;
        let points = r.f32()?;
        let role = *Role::ALL.get(r.u8()? as usize).ok_or(WireError::Invalid("a role beyond 2".into()))?;
        let hidden = HiddenHands(r.array()?);
        if let Some(&c) = hidden.0.iter().find(|&&c| c > 4) {
            return Err(WireError::Invalid(format!("a hidden hand with {c} cards of one rank (at most 4)")));
        }
        let (state, action) = match layout {
            Layout::Floats => (r.floats(STATE_DIM)?, r.floats(action_dim)?),
            Layout::Bits => (r.bits(STATE_DIM)?, r.bits(action_dim)?),
        };
        frames.push(Frame { state, action, target, points, role, hidden });
    }
    let bids = read_bids(&mut r, layout)?;
    if r.at != bytes.len() {
        return Err(WireError::Invalid(format!("{} bytes after the last frame", bytes.len() - r.at)));
    }
    Ok(GameMsg { frames, learning, vs_rule, landlord_won, bids, version, index })
}

/// Checks what a message that decoded carries, before it can reach a batch: every label finite
/// and at most `label_bound` in magnitude (play and bid labels alike: a bid's label and a
/// frame's points label are points, so they are bounded by [`MAX_POINTS`]), every feature finite and within 0..=1 (as every feature
/// ddz writes is). A decodable entry with an absurd value (a label of 3e38 makes the loss
/// infinite) would otherwise stop the learner, and stay pending for the next session too.
pub fn check_values(msg: &GameMsg, label_bound: f32) -> Result<(), WireError> {
    let bad = |what: String| Err(WireError::Invalid(what));
    let features_ok = |v: &[f32]| v.iter().all(|x| (0.0..=1.0).contains(x));
    let points_bound = MAX_POINTS + label_bound;
    for (i, f) in msg.frames.iter().enumerate() {
        // The deciding seat belongs to the side that learned, and what it did not see are two
        // hands a deal can hold: at most 20 cards each, 37 together, one of each joker.
        let side_ok = match msg.learning {
            Learning::AllSeats => true,
            Learning::Landlord => f.role == Role::Landlord,
            Learning::Farmers => f.role != Role::Landlord,
        };
        if !side_ok {
            return bad(format!("frame {i}: a {:?} decision in a game where only the other side learned", f.role));
        }
        if let Some(why) = impossible_hidden(&f.hidden) {
            return bad(format!("frame {i}: {why}"));
        }
        if f.target.is_nan() || f.target.abs() > label_bound {
            return bad(format!("frame {i}: label {} (at most {label_bound} in magnitude here)", f.target));
        }
        if f.points.is_nan() || f.points.abs() > points_bound {
            return bad(format!("frame {i}: points label {} (at most {points_bound} in magnitude)", f.points));
        }
        if !features_ok(&f.state) || !features_ok(&f.action) {
            return bad(format!("frame {i}: a feature outside 0..=1 or not finite"));
        }
    }
    let bid_bound = MAX_POINTS + label_bound;
    for (i, b) in msg.bids.iter().enumerate() {
        if b.target.is_nan() || b.target.abs() > bid_bound {
            return bad(format!("bid {i}: label {} (at most {bid_bound} in magnitude)", b.target));
        }
        if !features_ok(&b.features) {
            return bad(format!("bid {i}: a feature outside 0..=1 or not finite"));
        }
    }
    Ok(())
}

/// Why the other two hands of a frame cannot be hands of one deal, if they cannot.
fn impossible_hidden(hidden: &HiddenHands) -> Option<String> {
    let (next, prev) = hidden.0.split_at(NUM_RANKS);
    let cards = |h: &[u8]| h.iter().map(|&c| c as usize).sum::<usize>();
    let (a, b) = (cards(next), cards(prev));
    // The landlord holds 20 cards at most, a farmer 17.
    if a > 20 || b > 20 || a + b > 37 {
        return Some(format!("hidden hands of {a} and {b} cards (at most 20 each, 37 together)"));
    }
    let jokers = |h: &[u8]| h[RANK_BLACK_JOKER as usize].max(h[RANK_RED_JOKER as usize]);
    if jokers(next) > 1
        || jokers(prev) > 1
        || next[RANK_BLACK_JOKER as usize] + prev[RANK_BLACK_JOKER as usize] > 1
        || next[RANK_RED_JOKER as usize] + prev[RANK_RED_JOKER as usize] > 1
    {
        return Some("more than one of a joker in the hidden hands".to_string());
    }
    None
}

fn read_bids(r: &mut Reader, layout: Layout) -> Result<Vec<BidFrame>, WireError> {
    let n = u16::from_le_bytes(r.array()?);
    if n as usize > MOST_BIDS {
        return Err(WireError::Invalid(format!("{n} bids: a deal has at most {MOST_BIDS}")));
    }
    (0..n)
        .map(|_| {
            let target = r.f32()?;
            let bid = r.u8()?;
            if bid > 3 {
                return Err(WireError::Invalid(format!("a bid of {bid} (0 to 3)")));
            }
            let features = match layout {
                Layout::Floats => r.floats(BID_DIM)?,
                Layout::Bits => r.bits(BID_DIM)?,
            };
            Ok(BidFrame { features, bid, target })
        })
        .collect()
}

/// The bytes a message's header takes, whatever its layout.
pub const fn header_bytes() -> usize {
    HEADER
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        let end =
            self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(WireError::Truncated(self.bytes.len()))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    /// The next `N` bytes as an array, so that the numbers read from them need no length check.
    fn array<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let (&head, _) =
            self.bytes[self.at..].split_first_chunk::<N>().ok_or(WireError::Truncated(self.bytes.len()))?;
        self.at += N;
        Ok(head)
    }
    fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    fn flag(&mut self) -> Result<bool, WireError> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(WireError::Invalid(format!("flag {other} (0 or 1)"))),
        }
    }
    fn u32(&mut self) -> Result<u32, WireError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn f32(&mut self) -> Result<f32, WireError> {
        let x = f32::from_le_bytes(self.array()?);
        if x.is_finite() { Ok(x) } else { Err(WireError::Invalid(format!("a value {x}: every value must be finite"))) }
    }
    fn floats(&mut self, n: usize) -> Result<Vec<f32>, WireError> {
        (0..n).map(|_| self.f32()).collect()
    }
    fn bits(&mut self, n: usize) -> Result<Vec<f32>, WireError> {
        let mask = self.take(n.div_ceil(8))?;
        let mut out = vec![0.0f32; n];
        // Features are sparse: visit only the set bits.
        for (j, &byte) in mask.iter().enumerate() {
            let mut b = byte;
            while b != 0 {
                let i = j * 8 + b.trailing_zeros() as usize;
                *out.get_mut(i).ok_or_else(|| WireError::Invalid(format!("a bit for feature {i}, beyond {n}")))? = 1.0;
                b &= b - 1;
            }
        }
        let odd = u16::from_le_bytes(self.array()?);
        for _ in 0..odd {
            let i = u16::from_le_bytes(self.array()?) as usize;
            let x = self.f32()?;
            match out.get_mut(i) {
                Some(slot) if *slot == 1.0 => *slot = x,
                _ => return Err(WireError::Invalid(format!("value for feature {i}, which is zero or beyond {n}"))),
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encode::{encode_action, encode_state};
    use crate::game::{GameConfig, MoveList, State};
    use crate::train::trajectory::{Decision, label};
    use rand::{RngExt, SeedableRng, rngs::SmallRng};

    /// A real game's frames, every seat learning.
    fn game(seed: u64) -> GameMsg {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut s = State::new(GameConfig::default());
        s.deal_random(&mut rng);
        let (mut plays, mut decisions) = (MoveList::new(), Vec::new());
        while !s.is_terminal() {
            s.legal_plays_into(&mut plays);
            let seat = s.current_player().unwrap();
            let p = plays[rng.random_range(0..plays.len())];
            let (mut st, mut a) = (vec![0.0; STATE_DIM], vec![0.0; ACTION_DIM]);
            encode_state(&s, seat, &mut st);
            encode_action(&p, s.hand(seat), &mut a);
            let hidden = HiddenHands::of(&s, seat);
            decisions.push(Decision { seat, state: st, action: a, q: None, points: None, hidden });
            s.apply_play_unchecked(p);
        }
        let frames = label(decisions, &s, &Default::default());
        let bids = (0..(seed % 4) as u8)
            .map(|bid| {
                let mut features = vec![0.0; BID_DIM];
                features[bid as usize * 7] = 1.0;
                BidFrame { features, bid, target: -2.0 * bid as f32 }
            })
            .collect();
        let landlord_won = s.winner() == s.landlord();
        GameMsg { frames, learning: Learning::AllSeats, vs_rule: false, landlord_won, bids, version: 7, index: seed }
    }

    fn same(a: &GameMsg, b: &GameMsg) -> bool {
        (a.learning, a.vs_rule, a.landlord_won, a.version, a.index)
            == (b.learning, b.vs_rule, b.landlord_won, b.version, b.index)
            && a.bids == b.bids
            && a.frames.len() == b.frames.len()
            && a.frames.iter().zip(&b.frames).all(|(x, y)| {
                x.target.to_bits() == y.target.to_bits()
                    && x.points.to_bits() == y.points.to_bits()
                    && x.role == y.role
                    && x.hidden == y.hidden
                    && x.state.iter().zip(&y.state).all(|(p, q)| p.to_bits() == q.to_bits())
                    && x.action.iter().zip(&y.action).all(|(p, q)| p.to_bits() == q.to_bits())
            })
    }

    #[test]
    fn both_layouts_round_trip_bit_for_bit_and_bits_is_far_smaller() {
        for seed in 0..20 {
            let msg = game(seed);
            let (mut bits, mut floats) = (Vec::new(), Vec::new());
            encode(&msg, Layout::Bits, &mut bits);
            encode(&msg, Layout::Floats, &mut floats);
            assert!(same(&decode(&bits).unwrap(), &msg));
            assert!(same(&decode(&floats).unwrap(), &msg));
            assert!(bits.len() * 15 < floats.len(), "{} vs {} bytes", bits.len(), floats.len());
        }
    }

    #[test]
    fn bad_bytes_are_errors_never_panics() {
        let mut bytes = Vec::new();
        encode(&game(3), Layout::Bits, &mut bytes);
        assert_eq!(decode(b"hello").unwrap_err(), WireError::Magic);
        for cut in [5, HEADER - 1, HEADER + 3, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        let mut layout = bytes.clone();
        layout[4] = 9;
        assert_eq!(decode(&layout).unwrap_err(), WireError::Layout(9));
        layout[4] = 3;
        assert!(decode(&layout).unwrap_err().to_string().contains("the points label (3, 4)"));
        let mut hidden = bytes.clone();
        hidden[HEADER + 9] = 7;
        assert!(decode(&hidden).unwrap_err().to_string().contains("7 cards of one rank"));
        let mut count = bytes.clone();
        count[HEADER - 4..HEADER].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode(&count).unwrap_err(), WireError::Invalid(_)));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(decode(&longer).unwrap_err(), WireError::Invalid(_)));
        // Every single-byte corruption decodes to an error or to some message, never a panic.
        let mut rng = SmallRng::seed_from_u64(5);
        for _ in 0..2000 {
            let mut b = bytes.clone();
            let i = rng.random_range(0..b.len());
            b[i] = rng.random();
            let _ = decode(&b);
        }
    }

    #[test]
    fn values_no_game_can_have_are_refused() {
        let bound = crate::train::config::RewardConfig::default().label_bound();
        let good = game(3);
        check_values(&good, bound).unwrap();
        let poison = |edit: &dyn Fn(&mut GameMsg)| {
            let mut m = game(3);
            edit(&mut m);
            // A finite absurd value decodes, and only the check refuses it; the decoder
            // already refuses values that are not finite.
            let mut bytes = Vec::new();
            encode(&m, Layout::Floats, &mut bytes);
            decode(&bytes).and_then(|m| check_values(&m, bound)).unwrap_err().to_string()
        };
        assert!(poison(&|m| m.frames[0].target = 3e38).contains("frame 0: label 3"));
        assert!(poison(&|m| m.frames[1].target = 1e5).contains("frame 1: label 100000"));
        assert!(poison(&|m| m.frames[1].target = f32::NAN).contains("NaN"));
        assert!(poison(&|m| m.frames[2].points = -1e9).contains("frame 2: points label -1000000000"));
        assert!(poison(&|m| m.frames[0].state[5] = 7.0).contains("frame 0: a feature outside"));
        assert!(poison(&|m| m.frames[0].action[0] = -0.5).contains("a feature outside"));
        if !good.bids.is_empty() {
            assert!(poison(&|m| m.bids[0].target = -1e30).contains("bid 0: label"));
        }
    }

    #[test]
    fn games_no_deal_can_produce_are_refused() {
        let bound = crate::train::config::RewardConfig::default().label_bound();
        let check = |m: &GameMsg| {
            let mut bytes = Vec::new();
            encode(m, Layout::Bits, &mut bytes);
            decode(&bytes).and_then(|m| check_values(&m, bound)).map_err(|e| e.to_string())
        };
        // A made-up game of 20,000 decisions (a real one has at most 160 play decisions).
        let mut long = game(3);
        let frame = long.frames[0].clone();
        long.frames = vec![frame; 20_000];
        assert!(check(&long).unwrap_err().contains("20000 decisions: a game has at most 160"));
        let mut bids = game(3);
        bids.bids = vec![bids.bids[0].clone(); 19];
        assert!(check(&bids).unwrap_err().contains("19 bids: a deal has at most 18"));
        // Decisions of a side that did not learn.
        let mut side = game(4);
        side.learning = Learning::Landlord;
        assert!(check(&side).unwrap_err().contains("only the other side learned"));
        // Hidden hands no deal holds.
        let mut hidden = game(5);
        hidden.frames[0].hidden.0 = [4; HIDDEN_RANKS];
        assert!(check(&hidden).unwrap_err().contains("hidden hands of"));
        let mut jokers = game(5);
        jokers.frames[0].hidden.0 = [0; HIDDEN_RANKS];
        jokers.frames[0].hidden.0[RANK_RED_JOKER as usize] = 1;
        jokers.frames[0].hidden.0[NUM_RANKS + RANK_RED_JOKER as usize] = 1;
        assert!(check(&jokers).unwrap_err().contains("joker"));
        for seed in 0..20 {
            assert!(check(&game(seed)).is_ok(), "a real game passes");
        }
    }
}
