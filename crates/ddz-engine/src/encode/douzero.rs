//! DouZero's observation, as its `douzero` package (1.1.0) encodes it for its networks, so that
//! `douzero:DIR` plays DouZero's checkpoints in ddz. Written from the published layout; the test
//! `tests/douzero.rs` checks it against the package itself, feature for feature.
//!
//! A card multiset is 54 numbers: for each rank 3..2 in order, four slots of which the first n
//! are set for n cards of that rank; then the black joker and the red joker.
//!
//! `x` (one row per candidate play), for the landlord (373 numbers):
//! own hand, the cards the other two hold together, the play to beat (none when leading),
//! cards played by landlord_up, by landlord_down, cards left of landlord_up (one-hot of 17),
//! of landlord_down (17), bombs and rockets played (one-hot of 15), the candidate play.
//!
//! For a farmer (484): own hand, the others' cards together, cards played by the landlord, by
//! the teammate, the play to beat, the landlord's last move, the teammate's last move (a pass,
//! or none yet, is empty), cards left of the landlord (one-hot of 20), of the teammate (17),
//! bombs played (15), the candidate play.
//!
//! `z`: the last 15 moves (passes included, empty ones in front when fewer), three to a row:
//! 5 rows of 162.
//!
//! A one-hot of cards left sets slot n − 1 (for no cards at all, the last slot, as the
//! package's negative index does; at a decision nobody has none).

use crate::cards::{Counts, RANK_BLACK_JOKER, RANK_RED_JOKER};
use crate::game::{Kind, Role, View};

/// Numbers per card multiset.
pub const CARDS: usize = 54;
/// `x`'s length for the landlord, the candidate play included.
pub const LANDLORD_X: usize = 373;
/// `x`'s length for a farmer, the candidate play included.
pub const FARMER_X: usize = 484;
/// Moves in `z`.
pub const Z_MOVES: usize = 15;
/// Rows of `z`.
pub const Z_ROWS: usize = 5;
/// Numbers per row of `z`: three moves' card multisets.
pub const Z_COLS: usize = 3 * CARDS;

/// `x`'s length for a role.
pub fn x_len(role: Role) -> usize {
    if role == Role::Landlord { LANDLORD_X } else { FARMER_X }
}

/// A seat's view as DouZero's observation reads it (its "infoset"): the seat's role, its hand,
/// and every move so far by role (a pass is empty).
#[derive(Clone, Debug, PartialEq)]
pub struct Infoset {
    /// The seat's role.
    pub role: Role,
    /// The seat's hand.
    pub hand: Counts,
    /// Every move since the first lead, in order, with the role that made it (a pass is empty).
    pub moves: Vec<(Role, Counts)>,
}

impl Infoset {
    /// The infoset of a view; None before the landlord is known (DouZero has no bidding).
    pub fn of(view: &View<'_>) -> Option<Infoset> {
        let landlord = view.landlord()?;
        let role = |s: crate::game::Seat| Role::of_seat(view.table(), s, landlord);
        Some(Infoset {
            role: role(view.seat()),
            hand: view.hand(),
            moves: view.play_record().iter().map(|r| (role(r.seat), r.play.cards)).collect(),
        })
    }
}

/// DouZero's observation of a view: `x` without the candidate play, and `z`.
#[derive(Clone, Debug, PartialEq)]
pub struct Observation {
    /// The observing seat's role, which picks the network and the layout of `x`.
    pub role: Role,
    /// `x_len(role) - CARDS` numbers; each candidate's row is these and then its cards.
    pub x_state: Vec<f32>,
    /// `Z_ROWS * Z_COLS` numbers, row after row.
    pub z: Vec<f32>,
}

/// The 54 numbers of a card multiset into `out`.
pub fn write_cards(cards: Counts, out: &mut [f32]) {
    out[..CARDS].fill(0.0);
    for r in 0..RANK_BLACK_JOKER {
        let n = cards.get(r) as usize;
        out[r as usize * 4..r as usize * 4 + n].fill(1.0);
    }
    out[52] = (cards.get(RANK_BLACK_JOKER) > 0) as u8 as f32;
    out[53] = (cards.get(RANK_RED_JOKER) > 0) as u8 as f32;
}

fn push_cards(out: &mut Vec<f32>, cards: Counts) {
    let at = out.len();
    out.resize(at + CARDS, 0.0);
    write_cards(cards, &mut out[at..]);
}

fn push_one_hot(out: &mut Vec<f32>, index: usize, len: usize) {
    let at = out.len();
    out.resize(at + len, 0.0);
    out[at + index.min(len - 1)] = 1.0;
}

/// One-hot of cards left: slot n − 1, and the last slot for none (the package's index −1).
fn push_cards_left(out: &mut Vec<f32>, left: u32, len: usize) {
    push_one_hot(out, if left == 0 { len - 1 } else { left as usize - 1 }, len);
}

fn is_bomb(cards: Counts) -> bool {
    matches!(crate::game::classify(cards).map(|p| p.kind), Some(Kind::Bomb | Kind::Rocket))
}

/// The observation of an infoset.
pub fn observe(view: &Infoset) -> Observation {
    let played = |role: Role| view.moves.iter().filter(|(r, _)| *r == role).fold(Counts::EMPTY, |c, (_, m)| c.plus(*m));
    let last_of = |role: Role| view.moves.iter().rev().find(|(r, _)| *r == role).map_or(Counts::EMPTY, |(_, m)| *m);
    let start = |role: Role| if role == Role::Landlord { 20 } else { 17 };
    let left = |role: Role| if role == view.role { view.hand.len() } else { start(role) - played(role).len() };
    let all_played = view.moves.iter().fold(Counts::EMPTY, |c, (_, m)| c.plus(*m));
    let others = Counts::full_deck().minus(view.hand).minus(all_played);
    // The play to beat: the last move, or the one before it when the last was a pass.
    let n = view.moves.len();
    let rival = match view.moves.last() {
        Some((_, m)) if !m.is_empty() => *m,
        Some(_) if n >= 2 => view.moves[n - 2].1,
        _ => Counts::EMPTY,
    };
    let bombs = view.moves.iter().filter(|(_, m)| is_bomb(*m)).count();
    let mut x = Vec::with_capacity(x_len(view.role));
    push_cards(&mut x, view.hand);
    push_cards(&mut x, others);
    if view.role == Role::Landlord {
        push_cards(&mut x, rival);
        push_cards(&mut x, played(Role::LandlordUp));
        push_cards(&mut x, played(Role::LandlordDown));
        push_cards_left(&mut x, left(Role::LandlordUp), 17);
        push_cards_left(&mut x, left(Role::LandlordDown), 17);
    } else {
        let mate = if view.role == Role::LandlordUp { Role::LandlordDown } else { Role::LandlordUp };
        push_cards(&mut x, played(Role::Landlord));
        push_cards(&mut x, played(mate));
        push_cards(&mut x, rival);
        push_cards(&mut x, last_of(Role::Landlord));
        push_cards(&mut x, last_of(mate));
        push_cards_left(&mut x, left(Role::Landlord), 20);
        push_cards_left(&mut x, left(mate), 17);
    }
    push_one_hot(&mut x, bombs, 15);
    debug_assert_eq!(x.len() + CARDS, x_len(view.role));
    let mut z = vec![0.0; Z_ROWS * Z_COLS];
    let recent = &view.moves[n.saturating_sub(Z_MOVES)..];
    let pad = Z_MOVES - recent.len();
    for (k, (_, m)) in recent.iter().enumerate() {
        write_cards(*m, &mut z[(pad + k) * CARDS..]);
    }
    Observation { role: view.role, x_state: x, z }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_fill_slots_by_count_and_jokers_last() {
        let mut out = [9.0; CARDS];
        write_cards(Counts::parse("33TTT2222R").unwrap(), &mut out);
        let set: Vec<usize> = (0..CARDS).filter(|&i| out[i] == 1.0).collect();
        assert_eq!(set, vec![0, 1, 28, 29, 30, 48, 49, 50, 51, 53]);
        assert_eq!(out.iter().filter(|&&v| v == 0.0).count(), CARDS - set.len());
    }

    #[test]
    fn a_fresh_game_observes_as_the_layout_says() {
        let mut state = crate::game::State::new(Default::default());
        state.deal_hands(crate::game::generate_deals(1, 3)[0].hands, crate::game::generate_deals(1, 3)[0].bottom);
        let o = observe(&Infoset::of(&View::of(&state, state.current_player().unwrap())).unwrap());
        assert_eq!((o.role, o.x_state.len(), o.z.len()), (Role::Landlord, LANDLORD_X - CARDS, 810));
        assert_eq!(o.x_state[..54].iter().sum::<f32>(), 20.0, "own hand");
        assert_eq!(o.x_state[54..108].iter().sum::<f32>(), 34.0, "the others' cards");
        assert_eq!(o.x_state[270 + 16], 1.0, "landlord_up holds 17");
        assert_eq!(o.x_state[304], 1.0, "no bombs yet");
        assert!(o.z.iter().all(|&v| v == 0.0));
    }
}
