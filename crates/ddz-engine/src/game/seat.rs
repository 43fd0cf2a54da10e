//! Seats at the table: a checked number 0..3, the [`Table`] of a game (three seats, or two in
//! two-player Dou Dizhu) with its turn order, and a container indexed by seat.
//!
//! A seat is a place at the table, not a role: the landlord can sit anywhere (see
//! [`crate::game::State::landlord`] and [`crate::game::Role`]). Every file, protocol and report
//! writes a seat as its plain number, so `Seat` serialises and displays as that number.
//!
//! Turn order belongs to the table, not to the seat: seat 1 plays after seat 0 at any table,
//! but after seat 1 comes seat 2 at a table of three and seat 0 at a table of two. So a seat
//! has no `next()`; ask the game's table (`state.table().next(seat)`).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Index, IndexMut};

/// Most seats at any table: per-seat arrays hold this many slots, and a two-seat game leaves
/// the last one empty (no cards, no plays, zero returns).
pub const MAX_SEATS: usize = 3;

/// One of the seats, numbered 0, 1, 2 in turn order (seat 1 plays after seat 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Seat(u8);

/// A number that is not a seat (seats are 0, 1 and 2); holds the number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("seat {0} is not 0, 1 or 2")]
pub struct SeatError(pub i64);

impl Seat {
    /// Seat 0 (the landlord when bidding is off, by default).
    pub const S0: Seat = Seat(0);
    /// Seat 1, who plays after seat 0.
    pub const S1: Seat = Seat(1);
    /// Seat 2, who plays after seat 1 at a table of three (there is none at a table of two).
    pub const S2: Seat = Seat(2);
    /// Every seat there can be, in turn order from seat 0: the seats of a table of three.
    pub const ALL: [Seat; MAX_SEATS] = [Seat::S0, Seat::S1, Seat::S2];

    /// The seat numbered `n`, `None` unless `n` is 0, 1 or 2.
    pub const fn new(n: u8) -> Option<Seat> {
        if (n as usize) < MAX_SEATS { Some(Seat(n)) } else { None }
    }
    /// The seat at position `i` of [`Seat::ALL`], `None` unless `i` < 3.
    pub const fn from_index(i: usize) -> Option<Seat> {
        if i < MAX_SEATS { Some(Seat(i as u8)) } else { None }
    }
    /// The seat's number, 0..3.
    pub const fn number(self) -> u8 {
        self.0
    }
    /// The seat's number as an array index, 0..3.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

/// The seats of one game and their turn order: three for the standard rules and laizi, two for
/// two-player Dou Dizhu ([`crate::game::Rules::table`]). Seats are numbered from 0 in turn
/// order and play round in a circle.
///
/// ```
/// use ddz_engine::game::{Seat, Table};
///
/// assert_eq!(Table::THREE.next(Seat::S1), Seat::S2);
/// assert_eq!(Table::TWO.next(Seat::S1), Seat::S0);
/// assert_eq!(Table::TWO.seats(), &[Seat::S0, Seat::S1]);
/// assert_eq!(Table::THREE.others(Seat::S0).collect::<Vec<_>>(), [Seat::S1, Seat::S2]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Table(u8);

impl Table {
    /// Three seats: the standard game and laizi.
    pub const THREE: Table = Table(3);
    /// Two seats: two-player Dou Dizhu.
    pub const TWO: Table = Table(2);

    /// How many seats there are.
    pub const fn len(self) -> usize {
        self.0 as usize
    }
    /// Never true: a table has two or three seats (for clippy's `len` without `is_empty`).
    pub const fn is_empty(self) -> bool {
        false
    }
    /// The seats in turn order from seat 0.
    pub fn seats(self) -> &'static [Seat] {
        &Seat::ALL[..self.len()]
    }
    /// Whether `seat` is at this table.
    pub const fn has(self, seat: Seat) -> bool {
        seat.0 < self.0
    }
    /// The seat numbered `n` at this table, or why there is none.
    pub fn seat(self, n: i64) -> Result<Seat, TableSeatError> {
        match usize::try_from(n).ok().and_then(Seat::from_index) {
            Some(seat) if self.has(seat) => Ok(seat),
            _ => Err(TableSeatError { seat: n, seats: self.0 }),
        }
    }
    /// The seat that plays right after `seat`.
    pub const fn next(self, seat: Seat) -> Seat {
        self.after(seat, 1)
    }
    /// The seat that plays right before `seat`.
    pub const fn prev(self, seat: Seat) -> Seat {
        self.after(seat, self.0 as u64 - 1)
    }
    /// The seat `turns` turns after `seat` (as many turns as seats come back round to it).
    pub const fn after(self, seat: Seat, turns: u64) -> Seat {
        let n = self.0 as u64;
        Seat(((seat.0 as u64 + turns % n) % n) as u8)
    }
    /// How many turns after `from` the seat `seat` plays: 0 for `from` itself, 1 for its next.
    pub const fn turns_after(self, seat: Seat, from: Seat) -> usize {
        let n = self.0 as usize;
        (seat.0 as usize + n - from.0 as usize) % n
    }
    /// The other seats in turn order after `seat`: at a table of three its next, then its prev.
    pub fn others(self, seat: Seat) -> impl Iterator<Item = Seat> + Clone {
        (1..self.0 as u64).map(move |k| self.after(seat, k))
    }
}

/// A seat number that is not a seat of the game's table; holds the number and the table's size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("seat {seat} is not a seat of this game (its seats are 0 to {})", seats - 1)]
pub struct TableSeatError {
    /// The number asked for.
    pub seat: i64,
    /// How many seats the game has.
    pub seats: u8,
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl TryFrom<u8> for Seat {
    type Error = SeatError;
    fn try_from(n: u8) -> Result<Seat, SeatError> {
        Seat::new(n).ok_or(SeatError(n.into()))
    }
}

impl TryFrom<usize> for Seat {
    type Error = SeatError;
    fn try_from(n: usize) -> Result<Seat, SeatError> {
        Seat::from_index(n).ok_or(SeatError(i64::try_from(n).unwrap_or(i64::MAX)))
    }
}

impl TryFrom<i64> for Seat {
    type Error = SeatError;
    fn try_from(n: i64) -> Result<Seat, SeatError> {
        usize::try_from(n).ok().and_then(Seat::from_index).ok_or(SeatError(n))
    }
}

impl From<Seat> for u8 {
    fn from(seat: Seat) -> u8 {
        seat.0
    }
}

impl From<Seat> for usize {
    fn from(seat: Seat) -> usize {
        seat.index()
    }
}

impl<T> Index<Seat> for [T; MAX_SEATS] {
    type Output = T;
    fn index(&self, seat: Seat) -> &T {
        &self[seat.index()]
    }
}

impl<T> IndexMut<Seat> for [T; MAX_SEATS] {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self[seat.index()]
    }
}

/// Builds a per-seat array from a function of the seat, like [`std::array::from_fn`] (every
/// slot, so at a table of two the function also answers for seat 2).
pub fn by_seat<T>(mut f: impl FnMut(Seat) -> T) -> [T; MAX_SEATS] {
    Seat::ALL.map(&mut f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_order_goes_round_each_table() {
        for table in [Table::THREE, Table::TWO] {
            for &s in table.seats() {
                assert_eq!(table.prev(table.next(s)), s);
                assert_eq!(table.after(s, table.len() as u64), s);
                assert_eq!(table.turns_after(table.next(s), s), 1);
                assert_eq!(table.turns_after(table.prev(s), s), table.len() - 1);
                assert!(table.others(s).all(|o| o != s && table.has(o)));
                assert_eq!(table.others(s).count(), table.len() - 1);
            }
        }
        assert_eq!(Table::THREE.next(Seat::S2), Seat::S0);
        assert_eq!(Table::THREE.others(Seat::S1).collect::<Vec<_>>(), [Seat::S2, Seat::S0]);
        assert_eq!(Table::TWO.next(Seat::S1), Seat::S0);
        assert_eq!(Table::TWO.prev(Seat::S0), Seat::S1);
        assert!(!Table::TWO.has(Seat::S2));
        assert_eq!(
            Table::TWO.seat(2).unwrap_err().to_string(),
            "seat 2 is not a seat of this game (its seats are 0 to 1)"
        );
        assert_eq!(Table::THREE.seat(2), Ok(Seat::S2));
        assert!(Table::THREE.seat(-1).is_err());
    }

    #[test]
    fn numbers_check_and_serialise_plainly() {
        assert_eq!(Seat::try_from(3u8), Err(SeatError(3)));
        assert_eq!(Seat::try_from(-1i64).unwrap_err().to_string(), "seat -1 is not 0, 1 or 2");
        assert_eq!(serde_json::to_string(&Seat::S2).unwrap(), "2");
        assert_eq!(serde_json::from_str::<Seat>("1").unwrap(), Seat::S1);
        assert!(serde_json::from_str::<Seat>("3").is_err());
        assert_eq!(Seat::S1.to_string(), "1");
        assert_eq!([10, 11, 12][Seat::S2], 12);
    }
}
