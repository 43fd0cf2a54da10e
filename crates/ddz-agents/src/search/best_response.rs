//! The clairvoyant best response to a known policy: every hand open, the other side playing by
//! a policy whose every decision is known (as a distribution over its plays: its random choices
//! are chance nodes), and our side choosing each play to make its chance of winning the
//! greatest. That chance is the most any agent of our side can win against that policy on that
//! deal: an upper bound on every honest agent, which sees less.
//!
//! The search is expectimax over the solver's open-hand positions ([`Position`]) with a
//! transposition table: only our seats branch; the policy's nodes are its distribution's
//! average (a single child where it is sure). It needs the policy's decision to depend on the
//! position alone (hands, the play to beat and who made it, the player to move), which holds
//! for rule agents such as RLCard's. Our side stops searching a node once one play is a sure
//! win, and plays are tried likely winners first, as in the solver.

use super::budget::Deadline;
use super::solver::{Position, order};
use ddz_engine::game::{MoveList, Play, Role};
use rustc_hash::FxHashMap;

/// A policy known in full: its decision at a position, as probabilities over the plays.
pub trait KnownPolicy {
    /// The distribution of the play of `pos`'s player to move over `plays` (its legal plays,
    /// never empty): (index, probability) pairs whose probabilities sum to 1.
    fn distribution(&mut self, pos: &Position, plays: &[Play]) -> Vec<(usize, f64)>;

    /// The chance that the policy makes `plays[taken]` at `pos` (0 when it never would).
    fn chance_of(&mut self, pos: &Position, plays: &[Play], taken: usize) -> f64 {
        self.distribution(pos, plays).iter().filter(|&&(i, _)| i == taken).map(|&(_, p)| p).sum()
    }
}

/// A side of the table: the landlord alone, or the two farmers together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The landlord.
    Landlord,
    /// Both farmers, who share their win.
    Farmers,
}

impl Side {
    /// Whether `role` plays for this side.
    pub fn has(self, role: Role) -> bool {
        (role == Role::Landlord) == (self == Side::Landlord)
    }
    /// The name reports print.
    pub fn name(self) -> &'static str {
        match self {
            Side::Landlord => "landlord",
            Side::Farmers => "farmers",
        }
    }
}

/// Positions the table holds at most before it starts over (bounded memory).
const TABLE_LIMIT: usize = 1 << 23;

/// Positions between two looks at the clock, when there is a deadline.
const CLOCK_EVERY: u64 = 1024;

/// The best response of one side against a known policy on the other, with its table.
pub struct BestResponse<'a> {
    policy: &'a mut dyn KnownPolicy,
    us: Side,
    table: FxHashMap<Position, f64>,
    nodes: u64,
    limit: u64,
    aborted: bool,
    deadline: Deadline,
    buffers: Vec<MoveList>,
}

impl<'a> BestResponse<'a> {
    /// `us` responding to `policy`, which plays the other side.
    pub fn new(policy: &'a mut dyn KnownPolicy, us: Side) -> BestResponse<'a> {
        BestResponse {
            policy,
            us,
            table: FxHashMap::default(),
            nodes: 0,
            limit: 0,
            aborted: false,
            deadline: Deadline::NONE,
            buffers: Vec::new(),
        }
    }

    /// Searches from now on give up (as past the node budget) once `deadline` has passed.
    pub fn set_deadline(&mut self, deadline: Deadline) {
        self.deadline = deadline;
    }

    /// Our side's greatest chance of winning from `pos`, unless finding it takes more than
    /// `max_nodes` positions (then `None`). The table is cleared first: a deal's positions
    /// share it, another deal's never meet it.
    pub fn win_chance_within(&mut self, pos: &Position, max_nodes: u64) -> Option<f64> {
        self.table.clear();
        self.win_chance_in_deal_within(pos, max_nodes)
    }

    /// [`BestResponse::win_chance_within`] keeping what earlier searches found: for positions
    /// of the same hands (one deal, one world), which share much of their trees.
    pub fn win_chance_in_deal_within(&mut self, pos: &Position, max_nodes: u64) -> Option<f64> {
        (self.nodes, self.limit, self.aborted) = (0, max_nodes, false);
        let value = self.value(pos);
        (!self.aborted).then_some(value)
    }

    /// Our best play at `pos` (our side to move) and its chance, keeping what earlier searches
    /// of the same deal found; `None` past `max_nodes` positions or where we do not move.
    pub fn best_play_within(&mut self, pos: &Position, max_nodes: u64) -> Option<(Play, f64)> {
        if !self.us.has(pos.to_move) || pos.winner().is_some() {
            return None;
        }
        (self.nodes, self.limit, self.aborted) = (0, max_nodes, false);
        let mut plays = MoveList::new();
        pos.plays(&mut plays);
        order(&mut plays, pos.hands[pos.to_move.index()]);
        let mut best: Option<(Play, f64)> = None;
        for &play in plays.iter() {
            let value = self.value(&pos.after(play));
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(_, b)| value > b) {
                best = Some((play, value));
            }
            if value >= 1.0 {
                break;
            }
        }
        best
    }

    /// Positions the last search visited.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn value(&mut self, pos: &Position) -> f64 {
        self.nodes += 1;
        if self.aborted
            || (self.limit > 0 && self.nodes > self.limit)
            || (self.nodes.is_multiple_of(CLOCK_EVERY) && self.deadline.passed())
        {
            self.aborted = true; // meaningless from here on, and never stored
            return 0.0;
        }
        if let Some(w) = pos.winner() {
            return if self.us.has(w) { 1.0 } else { 0.0 };
        }
        if let Some(&known) = self.table.get(pos) {
            return known;
        }
        let mut plays = self.buffers.pop().unwrap_or_default();
        pos.plays(&mut plays);
        let value = if self.us.has(pos.to_move) { self.best(pos, &mut plays) } else { self.expected(pos, &plays) };
        self.buffers.push(plays);
        if !self.aborted {
            if self.table.len() >= TABLE_LIMIT {
                self.table.clear();
            }
            self.table.insert(*pos, value);
        }
        value
    }

    /// Our move: the best play's chance, a sure win ending the search.
    fn best(&mut self, pos: &Position, plays: &mut MoveList) -> f64 {
        order(plays, pos.hands[pos.to_move.index()]);
        let mut best = 0.0f64;
        for &play in plays.iter() {
            best = best.max(self.value(&pos.after(play)));
            if best >= 1.0 || self.aborted {
                break;
            }
        }
        best
    }

    /// The policy's move: its distribution's average.
    fn expected(&mut self, pos: &Position, plays: &[Play]) -> f64 {
        let mut sum = 0.0;
        for (i, p) in self.policy.distribution(pos, plays) {
            sum += p * self.value(&pos.after(plays[i]));
            if self.aborted {
                break;
            }
        }
        sum
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddz_engine::cards::Counts;

    /// A policy that always plays its first legal play (the engine's order: a pass last when
    /// following, so it never passes while it can play).
    struct First;
    impl KnownPolicy for First {
        fn distribution(&mut self, _: &Position, _: &[Play]) -> Vec<(usize, f64)> {
            vec![(0, 1.0)]
        }
    }

    /// A policy that plays uniformly at random.
    struct Uniform;
    impl KnownPolicy for Uniform {
        fn distribution(&mut self, _: &Position, plays: &[Play]) -> Vec<(usize, f64)> {
            (0..plays.len()).map(|i| (i, 1.0 / plays.len() as f64)).collect()
        }
    }

    fn position(landlord: &str, down: &str, up: &str) -> Position {
        let hand = |t: &str| Some(Counts::parse(t).unwrap());
        Position::new([hand(landlord), hand(down), hand(up)], Role::Landlord, None).unwrap()
    }

    #[test]
    fn a_landlord_who_goes_out_first_wins_for_sure() {
        let mut policy = First;
        let mut br = BestResponse::new(&mut policy, Side::Landlord);
        assert_eq!(br.win_chance_within(&position("33", "4", "5"), 0), Some(1.0));
    }

    #[test]
    fn against_chance_the_value_is_the_average_of_the_policy_branches() {
        // The landlord holds 3 and 5; each farmer one card. The landlord leads 3: the farmer
        // after it holds 4 and may beat it (win: its 4 empties its hand) or pass; a uniform
        // farmer beats it half the time. Leading 5 instead: the farmers cannot beat a 5 with 4
        // and 4, and the landlord goes out with the 3 next. The best response leads the 5.
        let mut policy = Uniform;
        let mut br = BestResponse::new(&mut policy, Side::Landlord);
        assert_eq!(br.win_chance_within(&position("35", "4", "4"), 0), Some(1.0));
        // With a 3 and a 4 against two 5s the landlord loses whatever it leads: each farmer
        // can beat either card and go out; a uniform farmer passes half the time.
        // Lead either card: each farmer in turn beats it (and goes out) half the time, and
        // after two passes the landlord goes out with the other: 1/4.
        assert_eq!(br.win_chance_within(&position("34", "5", "5"), 0), Some(0.25));
    }

    #[test]
    fn a_node_budget_gives_up_rather_than_answer_wrong() {
        let mut policy = Uniform;
        let mut br = BestResponse::new(&mut policy, Side::Farmers);
        let deal = &ddz_engine::game::generate_deals(1, 7)[0];
        let hands = [deal.hands[0].counts().plus(deal.bottom.counts()), deal.hands[1].counts(), deal.hands[2].counts()];
        let pos = Position::new(hands.map(Some), Role::Landlord, None).unwrap();
        assert_eq!(br.win_chance_within(&pos, 10), None);
        assert!(br.nodes() > 10);
    }
}
