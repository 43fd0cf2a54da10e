//! The exact solver of open-hand positions: who wins when every hand is known and every player
//! plays perfectly. The landlord's side maximises, the farmers minimise, and either farmer
//! going out wins for both. Alpha-beta on a won/lost value is an AND/OR search: the side to
//! move wins if one of its plays wins, loses if all of them lose. A transposition table keyed
//! by the whole position (hands, play to beat and who made it, player to move) remembers every
//! solved position, and plays are tried likely winners first: a play that empties the hand,
//! then larger plays, passing last.
//!
//! Two-player puzzles (one player against another, as puzzle collections publish them) are the
//! same search with the third seat left out of the turn order.

use ddz_engine::cards::Counts;
use ddz_engine::game::{MoveList, Play, Role, State, Table, legal_plays};
use rustc_hash::FxHashMap;

/// What makes a position impossible.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The position cannot arise in a game: why.
    #[error("{0}")]
    Impossible(String),
}

/// An open-hand position. It is landlord-relative: every hand and player is named by its role
/// (indexed by [`Role::index`]), whatever seats the game put them in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Cards held by role, indexed by [`Role::index`].
    pub hands: [Counts; 3],
    /// Roles that take part, indexed by [`Role::index`]: all three, or two for a two-player puzzle.
    pub seated: [bool; 3],
    /// The role to move.
    pub to_move: Role,
    /// The play to beat and the role that made it; `None` when `to_move` leads.
    pub rival: Option<(Play, Role)>,
}

/// What the solver found for the player to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// Whether the side to move wins.
    pub wins: bool,
    /// Every legal play of the player to move that wins (empty when the side loses).
    pub winning_plays: Vec<Play>,
    /// A line of play to the end: at each turn the first winning play (in search order) of the
    /// side to move, or its first legal play when it has no winning one.
    pub line: Vec<(Role, Play)>,
    /// Positions searched (transposition hits included).
    pub nodes: u64,
}

impl Position {
    /// A checked position: the hands (by role; `None` for a role that is not in the game) hold
    /// at most one deck, the player to move is seated and holds cards, and the rival play is a
    /// play its seat could have made (a seated player other than the one to move, the cards
    /// not beyond the deck with the hands).
    pub fn new(
        hands: [Option<Counts>; 3],
        to_move: Role,
        rival: Option<(Play, Role)>,
    ) -> Result<Position, PositionError> {
        let bad = |why: String| Err(PositionError::Impossible(why));
        let seated = hands.map(|h| h.is_some());
        let hands = hands.map(Option::unwrap_or_default);
        if seated.iter().filter(|&&s| s).count() < 2 {
            return bad("a position needs at least two players".into());
        }
        let all = hands.iter().fold(rival.map_or(Counts::EMPTY, |(p, _)| p.cards), |a, h| a.plus(*h));
        if !all.is_subset_of(Counts::full_deck()) {
            return bad(format!(
                "the hands{} hold more cards than one deck: {all}",
                if rival.is_some() { " and the rival play" } else { "" }
            ));
        }
        if !seated[to_move.index()] || hands[to_move.index()].is_empty() {
            return bad(format!("seat {} is not a player with cards", to_move.index()));
        }
        if let Some((play, by)) = rival
            && (play.is_pass() || !seated[by.index()] || by == to_move)
        {
            return bad(format!("the rival play {play} by seat {} cannot be the play to beat", by.index()));
        }
        let pos = Position { hands, seated, to_move, rival };
        if let Some(w) = pos.winner() {
            return bad(format!("seat {} has no cards: the game is over", w.index()));
        }
        Ok(pos)
    }

    /// The open-hand position of a game in play, every hand shown (for the solver and its
    /// benchmark, never for a player's decision), its seats named by their roles. `None` outside
    /// the play phase.
    pub fn of_state(state: &State) -> Option<Position> {
        // The solver plays the three-seat game, where a side wins by emptying a hand.
        if state.table() != Table::THREE {
            return None;
        }
        let landlord = state.landlord()?;
        let role = |seat| Role::of_seat(Table::THREE, seat, landlord);
        let to_move = role(state.current_player()?);
        let hands = Role::ALL.map(|r| state.seat_of(r).map(|s| state.hand(s)));
        let rival = state.rival().map(|r| (r.play, role(r.seat)));
        Position::new(hands, to_move, rival).ok()
    }

    /// The role that went out, if the game is over.
    pub fn winner(&self) -> Option<Role> {
        Role::ALL.into_iter().find(|r| self.seated[r.index()] && self.hands[r.index()].is_empty())
    }

    fn next_role(&self, role: Role) -> Role {
        let mut r = role.next();
        while !self.seated[r.index()] {
            r = r.next();
        }
        r
    }

    /// The legal plays of the player to move.
    pub fn plays(&self, out: &mut MoveList) {
        legal_plays(self.hands[self.to_move.index()], self.rival.as_ref().map(|(p, _)| p), out);
    }

    /// The position after the player to move makes `play` (one of its legal plays).
    pub fn after(&self, play: Play) -> Position {
        let mut next = *self;
        let me = self.to_move;
        next.hands[me.index()] = self.hands[me.index()].minus(play.cards);
        next.to_move = self.next_role(me);
        if !play.is_pass() {
            next.rival = Some((play, me));
        } else if self.rival.is_some_and(|(_, by)| by == next.to_move) {
            next.rival = None; // everyone else passed: the last player to play leads
        }
        next
    }
}

/// Positions the table holds at most (about 80 bytes each).
const TABLE_LIMIT: usize = 1 << 23;

/// The solver, with its transposition table (kept across calls: positions of one game share it).
#[derive(Default)]
pub struct Solver {
    table: FxHashMap<Position, bool>,
    nodes: u64,
    /// Stop after this many positions (0 = no limit); set by [`Solver::solve_within`].
    limit: u64,
    /// Stop when this moment has passed ([`Solver::set_deadline`]); checked every
    /// [`CLOCK_EVERY`] positions, so a search overruns it by at most that many.
    deadline: Option<std::time::Instant>,
    aborted: bool,
    buffers: Vec<MoveList>,
}

/// Positions between two looks at the clock: a look costs about a position's time.
const CLOCK_EVERY: u64 = 1024;

impl Solver {
    /// A solver with an empty transposition table, no node limit and no deadline.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// Searches from now on give up (as past a node budget: `None`, nothing wrong stored) once
    /// `deadline` has passed; `None` lifts it.
    pub fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.deadline = deadline;
    }

    /// Whether the deadline of [`Solver::set_deadline`] has passed.
    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| std::time::Instant::now() >= d)
    }

    /// Solves `pos` unless that takes more than `max_nodes` positions (then `None`).
    pub fn solve_within(&mut self, pos: &Position, max_nodes: u64) -> Option<Solution> {
        self.limit = max_nodes;
        let solution = self.solve(pos);
        self.limit = 0;
        (!std::mem::take(&mut self.aborted)).then_some(solution)
    }

    /// Whether the landlord wins `pos`, unless that takes more than `max_nodes` positions.
    pub fn landlord_wins_within(&mut self, pos: &Position, max_nodes: u64) -> Option<bool> {
        (self.nodes, self.limit, self.aborted) = (0, max_nodes, false);
        let value = self.landlord_wins(pos);
        self.limit = 0;
        (!std::mem::take(&mut self.aborted)).then_some(value)
    }

    /// Solves `pos`: who wins, with which plays, and one line of perfect play.
    pub fn solve(&mut self, pos: &Position) -> Solution {
        self.nodes = 0;
        self.aborted = false;
        let mut plays = MoveList::new();
        pos.plays(&mut plays);
        let me_landlord = pos.to_move == Role::Landlord;
        let winning_plays: Vec<Play> = match pos.winner() {
            Some(_) => Vec::new(),
            None => plays.iter().copied().filter(|&p| self.landlord_wins(&pos.after(p)) == me_landlord).collect(),
        };
        let wins = match pos.winner() {
            Some(w) => (w == Role::Landlord) == me_landlord,
            None => !winning_plays.is_empty(),
        };
        let nodes = self.nodes;
        Solution { wins, winning_plays, line: self.line(pos), nodes }
    }

    /// Whether the landlord wins `pos` with perfect play on both sides.
    pub fn landlord_wins(&mut self, pos: &Position) -> bool {
        self.nodes += 1;
        let late = || self.deadline.is_some_and(|d| std::time::Instant::now() >= d);
        if self.aborted
            || (self.limit > 0 && self.nodes > self.limit)
            || (self.nodes.is_multiple_of(CLOCK_EVERY) && late())
        {
            self.aborted = true; // the value is meaningless from here on and is not stored
            return false;
        }
        if let Some(w) = pos.winner() {
            return w == Role::Landlord;
        }
        if let Some(&known) = self.table.get(pos) {
            return known;
        }
        let mut plays = self.buffers.pop().unwrap_or_default();
        pos.plays(&mut plays);
        order(&mut plays, pos.hands[pos.to_move.index()]);
        let maximising = pos.to_move == Role::Landlord;
        // The side to move wins as soon as one play wins for it.
        let mut value = !maximising;
        for &play in plays.iter() {
            if self.landlord_wins(&pos.after(play)) == maximising {
                value = maximising;
                break;
            }
        }
        self.buffers.push(plays);
        if self.aborted {
            return value;
        }
        if self.table.len() >= TABLE_LIMIT {
            self.table.clear(); // bounded memory: start over rather than grow without end
        }
        self.table.insert(*pos, value);
        value
    }

    /// A line of perfect play from `pos` to the end of the game.
    fn line(&mut self, pos: &Position) -> Vec<(Role, Play)> {
        let mut line = Vec::new();
        let mut at = *pos;
        let mut plays = MoveList::new();
        while at.winner().is_none() && !self.aborted {
            at.plays(&mut plays);
            order(&mut plays, at.hands[at.to_move.index()]);
            let side_landlord = at.to_move == Role::Landlord;
            let play =
                plays.iter().copied().find(|&p| self.landlord_wins(&at.after(p)) == side_landlord).unwrap_or(plays[0]);
            line.push((at.to_move, play));
            at = at.after(play);
        }
        line
    }

    /// Solved positions in the table.
    pub fn table_len(&self) -> usize {
        self.table.len()
    }
}

/// Likely winners first: a play that empties the hand, then plays with more cards (they shed the
/// hand fastest), passing last.
pub(super) fn order(plays: &mut MoveList, hand: Counts) {
    plays.sort_by_key(|p| {
        let out = p.cards == hand;
        (std::cmp::Reverse(out), p.is_pass(), std::cmp::Reverse(p.cards.len()))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddz_engine::cards::NUM_RANKS;
    use ddz_engine::game::legal_plays_vec;
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    /// Plain minimax, written apart from the solver: no pruning, no table, its own turn rule.
    fn plain(hands: [Counts; 3], seated: [bool; 3], to_move: Role, rival: Option<(Play, Role)>) -> bool {
        if let Some(w) = (0..3).find(|&s| seated[s] && hands[s].is_empty()) {
            return w == 0;
        }
        let next = |r: Role| if seated[r.next().index()] { r.next() } else { r.prev() };
        let values: Vec<bool> = legal_plays_vec(hands[to_move.index()], rival.as_ref().map(|(p, _)| p))
            .into_iter()
            .map(|play| {
                let mut h = hands;
                h[to_move.index()] = h[to_move.index()].minus(play.cards);
                let n = next(to_move);
                let r = match (play.is_pass(), rival) {
                    (false, _) => Some((play, to_move)),
                    (true, Some((_, by))) if by == n => None,
                    (true, r) => r,
                };
                plain(h, seated, n, r)
            })
            .collect();
        if to_move == Role::Landlord { values.iter().any(|&v| v) } else { values.iter().all(|&v| v) }
    }

    /// A random position with `total` cards in the seated hands (each at least one).
    fn random_position(rng: &mut SmallRng, total: usize) -> Position {
        let mut deck: Vec<u8> = (0..NUM_RANKS as u8)
            .flat_map(|r| std::iter::repeat_n(r, ddz_engine::cards::rank_capacity(r) as usize))
            .collect();
        for i in (1..deck.len()).rev() {
            deck.swap(i, rng.random_range(0..=i));
        }
        let two_player = rng.random_range(0..4) == 0;
        let left_out = if two_player { Some(rng.random_range(1..3u8)) } else { None };
        let seats: Vec<u8> = (0..3u8).filter(|s| Some(*s) != left_out).collect();
        let mut counts = [Counts::EMPTY; 3];
        for (k, &rank) in deck.iter().take(total).enumerate() {
            let s = if k < seats.len() { seats[k] } else { seats[rng.random_range(0..seats.len())] };
            counts[s as usize].add(rank, 1);
        }
        let hands: [Option<Counts>; 3] = std::array::from_fn(|s| seats.contains(&(s as u8)).then_some(counts[s]));
        let to_move = Role::ALL[seats[rng.random_range(0..seats.len())] as usize];
        let rival = if rng.random_range(0..2) == 0 {
            None
        } else {
            let spare: Counts = deck[total..total + 6].iter().fold(Counts::EMPTY, |mut c, &r| {
                c.add(r, 1);
                c
            });
            let leads = legal_plays_vec(spare, None);
            let by: Vec<Role> = seats.iter().map(|&s| Role::ALL[s as usize]).filter(|&s| s != to_move).collect();
            Some((leads[rng.random_range(0..leads.len())], by[rng.random_range(0..by.len())]))
        };
        Position::new(hands, to_move, rival).expect("a possible position")
    }

    /// Solves `n` random positions of each total in `totals` and checks value and winning
    /// plays against plain minimax; returns how many the landlord wins.
    fn check_against_plain(seed: u64, totals: std::ops::RangeInclusive<usize>, n: usize) -> usize {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut solver = Solver::new();
        let mut landlord_wins = 0;
        for total in totals {
            for _ in 0..n {
                let pos = random_position(&mut rng, total);
                let expected = plain(pos.hands, pos.seated, pos.to_move, pos.rival);
                assert_eq!(solver.landlord_wins(&pos), expected, "{pos:?}");
                landlord_wins += expected as usize;
                let s = solver.solve(&pos);
                assert_eq!(s.wins, expected == (pos.to_move == Role::Landlord), "{pos:?}");
                for play in &s.winning_plays {
                    assert_eq!(
                        plain_after(&pos, *play),
                        pos.to_move == Role::Landlord,
                        "{play} wins for the side to move"
                    );
                }
            }
        }
        landlord_wins
    }

    #[test]
    fn the_solver_equals_plain_minimax_on_small_positions() {
        let wins = check_against_plain(14, 3..=9, 150);
        assert!((200..1150).contains(&wins), "both sides win some: {wins} of 1,050");
    }

    #[test]
    #[ignore = "slow: 10,000 positions against plain minimax (scripts/test runs it)"]
    fn the_solver_equals_plain_minimax_on_10000_positions_of_up_to_12_cards() {
        // Plain minimax grows about tenfold a card: most positions have up to 10 cards in all.
        let wins = check_against_plain(15, 3..=10, 1_240) + check_against_plain(16, 11..=12, 40);
        assert!((2_000..8_000).contains(&wins), "both sides win some: {wins}");
    }

    fn plain_after(pos: &Position, play: Play) -> bool {
        let next = pos.after(play);
        plain(next.hands, next.seated, next.to_move, next.rival)
    }

    #[test]
    fn a_node_budget_stops_the_search_without_a_wrong_answer() {
        let mut rng = SmallRng::seed_from_u64(3);
        let pos = random_position(&mut rng, 12);
        let mut solver = Solver::new();
        assert!(solver.solve_within(&pos, 5).is_none(), "too few nodes");
        let full = solver.solve_within(&pos, 0).expect("no limit");
        let fresh = Solver::new().solve(&pos);
        assert_eq!((full.wins, &full.winning_plays, &full.line), (fresh.wins, &fresh.winning_plays, &fresh.line));
    }

    #[test]
    fn impossible_positions_are_named() {
        let c = |t: &str| Some(Counts::parse(t).unwrap());
        assert!(Position::new([c("333"), c("33"), c("5")], Role::Landlord, None).is_err(), "five 3s");
        assert!(Position::new([c("3"), None, None], Role::Landlord, None).is_err(), "one player");
        assert!(
            Position::new(
                [c("3"), c("4"), c("5")],
                Role::LandlordDown,
                Some((Play::parse("4").unwrap(), Role::LandlordDown))
            )
            .is_err()
        );
        assert!(
            Position::new(
                [c("3"), c("4"), c("5")],
                Role::LandlordDown,
                Some((Play::parse("3333").unwrap(), Role::Landlord))
            )
            .is_err()
        );
        assert!(Position::new([c("3"), c(""), c("5")], Role::Landlord, None).is_err(), "the game is over");
        let p = Position::new([c("3"), c("4"), None], Role::Landlord, None).unwrap();
        assert_eq!(p.after(Play::parse("3").unwrap()).winner(), Some(Role::Landlord));
    }
}
