//! Seats at the table: a checked number 0..3 with the turn order, and a container indexed by seat.
//!
//! A seat is a place at the table, not a role: the landlord can sit anywhere (see
//! [`crate::game::State::landlord`] and [`crate::game::Role`]). Every file, protocol and report
//! writes a seat as its plain number, so `Seat` serialises and displays as that number.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Index, IndexMut};

/// One of the three seats, numbered 0, 1, 2 in turn order (seat 1 plays after seat 0).
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
    /// Seat 2, who plays after seat 1 and before seat 0.
    pub const S2: Seat = Seat(2);
    /// The three seats in turn order from seat 0.
    pub const ALL: [Seat; 3] = [Seat::S0, Seat::S1, Seat::S2];

    /// The seat numbered `n`, `None` unless `n` is 0, 1 or 2.
    pub const fn new(n: u8) -> Option<Seat> {
        if n < 3 { Some(Seat(n)) } else { None }
    }
    /// The seat at position `i` of [`Seat::ALL`], `None` unless `i` < 3.
    pub const fn from_index(i: usize) -> Option<Seat> {
        if i < 3 { Some(Seat(i as u8)) } else { None }
    }
    /// The seat's number, 0..3.
    pub const fn number(self) -> u8 {
        self.0
    }
    /// The seat's number as an array index, 0..3.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// The seat that plays right after this one.
    pub const fn next(self) -> Seat {
        self.after(1)
    }
    /// The seat that plays right before this one.
    pub const fn prev(self) -> Seat {
        self.after(2)
    }
    /// The seat `turns` turns after this one (3 turns come back round to it).
    pub const fn after(self, turns: u64) -> Seat {
        Seat(((self.0 as u64 + turns % 3) % 3) as u8)
    }
    /// How many turns after `from` this seat plays: 0 for `from` itself, 1 for its next, 2 for its prev.
    pub const fn turns_after(self, from: Seat) -> usize {
        (self.0 as usize + 3 - from.0 as usize) % 3
    }
    /// The two other seats in turn order: the next one, then the previous one.
    pub const fn others(self) -> [Seat; 2] {
        [self.next(), self.prev()]
    }
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

impl<T> Index<Seat> for [T; 3] {
    type Output = T;
    fn index(&self, seat: Seat) -> &T {
        &self[seat.index()]
    }
}

impl<T> IndexMut<Seat> for [T; 3] {
    fn index_mut(&mut self, seat: Seat) -> &mut T {
        &mut self[seat.index()]
    }
}

/// Builds a per-seat array from a function of the seat, like [`std::array::from_fn`].
pub fn by_seat<T>(mut f: impl FnMut(Seat) -> T) -> [T; 3] {
    Seat::ALL.map(&mut f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_order_goes_round() {
        for s in Seat::ALL {
            assert_eq!(s.next().prev(), s);
            assert_eq!(s.after(3), s);
            assert_eq!(s.next().turns_after(s), 1);
            assert_eq!(s.prev().turns_after(s), 2);
            assert_eq!(s.others(), [s.next(), s.prev()]);
        }
        assert_eq!(Seat::S2.next(), Seat::S0);
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
