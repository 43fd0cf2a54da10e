//! `rlcard`: RLCard's rule agent exactly as DouZero's evaluation plays it
//! (`douzero/evaluation/rlcard_agent.py`, which `scripts/douzero_bot.py rlcard` wraps), quirks
//! included, so that curves and ladders can play it in process. docs/evaluation.md lists the
//! quirks; in short:
//!
//! - **Leading** (the last two moves both passes, or the first play): the hand is cut into
//!   combinations by a fixed greedy recipe (rocket, bombs, trios joined into trio chains, solo
//!   chains, "pair chains", pairs, solos), and the agent plays the *last* combination in that
//!   order that holds its lowest card.
//! - **Following**: among DouZero's legal plays, in DouZero's own order, the first of lowest
//!   rank whose RLCard type (type and length) is the play to beat's, over a teammate too.
//!   Without one, a farmer passes a farmer's play; anyone else plays uniformly at random among
//!   DouZero's legal plays (bombs, the rocket and the pass included).
//! - **Its exception path**: when any of DouZero's legal plays is missing from RLCard's table
//!   of types (four with the two jokers as kickers, an airplane whose solo wings are both
//!   jokers), the lookup fails and the agent plays uniformly at random.
//!
//! Following depends on the order of DouZero's legal plays where plays tie on rank, and for
//! trio-and-solo DouZero lists the solos in the iteration order of a CPython `set` of the hand's
//! card values, which is not sorted when the hand has four distinct values or fewer; both are
//! reproduced here. Random choices are drawn from a seeded generator (Python draws from its
//! own), among those of DouZero's plays that the rules here allow.

use super::{Agent, Turn};
use crate::search::KnownPolicy;
use crate::search::solver::Position;
use ddz_engine::cards::{Counts, NUM_RANKS, RANK_BLACK_JOKER, RANK_RED_JOKER};
use ddz_engine::game::{ActionTable, Play, Role, View, classify};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// What RLCard's agent does at a decision: a play it is sure of, or a uniform draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RlcardChoice {
    /// This play (its cards; empty for a pass).
    Play(Counts),
    /// A uniform draw among these plays: DouZero's legal plays, in DouZero's order (which may
    /// hold plays the rules here forbid: the jokers as kickers).
    Uniform(Vec<Counts>),
}

/// RLCard's rule agent, with seeded draws where it draws.
pub struct RlcardAgent {
    rng: SmallRng,
}

impl RlcardAgent {
    /// An agent whose draws start from `seed` (each game reseeds it through `reset`).
    pub fn new(seed: u64) -> RlcardAgent {
        RlcardAgent { rng: SmallRng::seed_from_u64(seed) }
    }
}

impl Agent for RlcardAgent {
    fn name(&self) -> String {
        "rlcard".into()
    }
    fn choose(&mut self, turn: Turn<'_>) -> usize {
        let Turn { view, plays, .. } = turn;
        let among = distribution(rlcard_choice(view), plays);
        among[self.rng.random_range(0..among.len())].0
    }
    fn reset(&mut self, seed: u64) {
        self.rng = SmallRng::seed_from_u64(seed);
    }
}

/// RLCard's agent is known in full: a best response can be searched against it.
impl KnownPolicy for RlcardAgent {
    fn distribution(&mut self, pos: &Position, plays: &[Play]) -> Vec<(usize, f64)> {
        let hand = pos.hands[pos.to_move.index()];
        let rival = pos.rival.map(|(play, by)| (play.cards, by));
        distribution(rlcard_decision(hand, rival, Some(pos.to_move)), plays)
    }
}

/// The agent's choice over `plays` (the legal plays here), each play equally likely: its play,
/// or its draw among those of DouZero's plays that are legal here (all of `plays`, should none
/// be).
fn distribution(choice: RlcardChoice, plays: &[Play]) -> Vec<(usize, f64)> {
    let index_of = |cards: Counts| plays.iter().position(|p| p.cards == cards && p.wilds.count() == 0);
    let among: Vec<usize> = match choice {
        RlcardChoice::Play(cards) => vec![index_of(cards).unwrap_or(0)],
        RlcardChoice::Uniform(among) => among.into_iter().filter_map(index_of).collect(),
    };
    let among = if among.is_empty() { (0..plays.len()).collect() } else { among };
    let p = 1.0 / among.len() as f64;
    among.into_iter().map(|i| (i, p)).collect()
}

/// What RLCard's agent does at a play decision of the standard game (`view` is its seat's, at
/// its turn).
pub fn rlcard_choice(view: &View<'_>) -> RlcardChoice {
    let rival = view.rival().map(|r| (r.play.cards, view.role_of(r.seat).unwrap_or(Role::Landlord)));
    rlcard_decision(view.hand(), rival, view.role())
}

/// RLCard's agent's decision from what it reads: its hand, the play to beat and the role that
/// made it (`None` when it leads), and its own role.
pub fn rlcard_decision(hand: Counts, rival: Option<(Counts, Role)>, role: Option<Role>) -> RlcardChoice {
    let Some((rival, rival_role)) = rival else {
        return RlcardChoice::Play(lead(hand));
    };
    let legal = douzero_answers(hand, rival);
    let Some(to_beat) = rlcard_type(rival) else {
        return RlcardChoice::Uniform(legal);
    };
    let mut best: Option<(u8, Counts)> = None;
    for &cards in legal.iter().filter(|c| !c.is_empty()) {
        let Some((kind, rank)) = rlcard_type(cards) else {
            return RlcardChoice::Uniform(legal); // the lookup raises: the `except` draws
        };
        if kind == to_beat.0 && best.is_none_or(|(b, _)| rank < b) {
            best = Some((rank, cards));
        }
    }
    let farmer = |role: Option<Role>| role.is_some_and(Role::is_farmer);
    match best {
        Some((_, cards)) => RlcardChoice::Play(cards),
        None if farmer(Some(rival_role)) && farmer(role) => RlcardChoice::Play(Counts::EMPTY),
        None => RlcardChoice::Uniform(legal),
    }
}

/// A play's entry in RLCard's table of types: its type with the chain length, and a rank that
/// orders plays of that type (the table's weights order as the main ranks do: the engine's
/// conformance test checks it on all 27,471 plays). `None` for cards the table lacks.
fn rlcard_type(cards: Counts) -> Option<(String, u8)> {
    ActionTable::get().id_of_cards(cards)?;
    classify(cards).map(|p: Play| (p.type_name(), p.main))
}

// ---- leading: RLCard's `combine_cards` ----

/// The lead: the last of the hand's combinations, in RLCard's order, that holds its lowest card.
fn lead(hand: Counts) -> Counts {
    // The combinations cover the hand, so one holds its lowest card (none only for no cards).
    let Some(lowest) = (0..NUM_RANKS as u8).find(|&r| hand.get(r) > 0) else { return Counts::EMPTY };
    combinations(hand).into_iter().rev().find(|c| c.get(lowest) > 0).unwrap_or_default()
}

/// RLCard's combinations of a hand, in the order its dictionary is iterated: rocket, bombs,
/// trios, trio chains, solo chains, "pair chains", pairs, solos.
fn combinations(hand: Counts) -> Vec<Counts> {
    let mut left = hand.to_array();
    let mut rocket = Vec::new();
    if left[RANK_BLACK_JOKER as usize] == 1 && left[RANK_RED_JOKER as usize] == 1 {
        rocket.push(Counts::EMPTY.with(RANK_BLACK_JOKER, 1).with(RANK_RED_JOKER, 1));
        left[RANK_BLACK_JOKER as usize] = 0;
        left[RANK_RED_JOKER as usize] = 0;
    }
    let mut bombs = Vec::new();
    for (r, n) in left.iter_mut().enumerate() {
        if *n == 4 {
            bombs.push(Counts::EMPTY.with(r as u8, 4));
            *n = 0;
        }
    }
    // Trios in rank order, each joined to the one before when their ranks follow (never a 2).
    let mut runs: Vec<(usize, usize)> = Vec::new(); // (first rank, trios)
    for (r, n) in left.iter_mut().enumerate() {
        if *n == 3 {
            *n = 0;
            match runs.last_mut() {
                Some((first, trios)) if r < 12 && *first + *trios == r => *trios += 1,
                _ => runs.push((r, 1)),
            }
        }
    }
    let trio_run = |&(first, n): &(usize, usize)| (first..first + n).fold(Counts::EMPTY, |c, r| c.with(r as u8, 3));
    let trios: Vec<Counts> = runs.iter().filter(|(_, n)| *n == 1).map(trio_run).collect();
    let trio_chains: Vec<Counts> = runs.iter().filter(|(_, n)| *n > 1).map(trio_run).collect();
    let solo_chains = pick_chains(&mut left, 1);
    let pair_chains = pick_chains(&mut left, 2);
    let (mut pairs, mut solos) = (Vec::new(), Vec::new());
    for (r, &n) in left.iter().enumerate() {
        // What is left holds at most two of a rank: a pair, or a solo.
        match n {
            2 => pairs.push(Counts::EMPTY.with(r as u8, 2)),
            1 => solos.push(Counts::EMPTY.with(r as u8, 1)),
            _ => {}
        }
    }
    [rocket, bombs, trios, trio_chains, solo_chains, pair_chains, pairs, solos].concat()
}

/// RLCard's `pick_chain`: each run of ranks 3 to A that all have cards left and is at least
/// five long is taken whole; its least count `m` is taken from every rank of the run, and the
/// run, as single cards, is listed `m / per` times (`per` 1 for solo chains, 2 for "pair
/// chains", which are so listed as solo chains).
fn pick_chains(left: &mut [u8; NUM_RANKS], per: u8) -> Vec<Counts> {
    let mut chains = Vec::new();
    let mut r = 0;
    while r < 12 {
        let end = (r..12).find(|&k| left[k] == 0).unwrap_or(12);
        if end - r >= 5 {
            let least = left[r..end].iter().copied().min().unwrap_or(0);
            if least / per != 0 {
                let chain = (r..end).fold(Counts::EMPTY, |c, k| c.with(k as u8, 1));
                left[r..end].iter_mut().for_each(|n| *n -= least);
                chains.extend(std::iter::repeat_n(chain, (least / per) as usize));
            }
        }
        r = end + 1;
    }
    chains
}

// ---- following: DouZero's legal plays, in DouZero's order ----

/// A rank's card value in DouZero (3 to 14 for 3 to A, 17 for 2, 20 and 30 for the jokers):
/// runs need consecutive values, so neither a 2 nor a joker extends one.
const VALUE: [u8; NUM_RANKS] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30];

/// DouZero's type of a play, as its move detector reads the cards (a mirror of
/// `get_move_type`): the generator to answer it with, and the chain length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DzType {
    Single,
    Pair,
    Triple,
    Bomb,
    KingBomb,
    ThreeOne,
    ThreeTwo,
    SerialSingle(usize),
    SerialPair(usize),
    SerialTriple(usize),
    SerialThreeOne(usize),
    SerialThreeTwo(usize),
    FourTwo,
    FourTwoPairs,
    Wrong,
}

/// The play's card values, sorted.
fn values(cards: Counts) -> Vec<u8> {
    cards.iter().flat_map(|(r, n)| std::iter::repeat_n(VALUE[r as usize], n as usize)).collect()
}

fn consecutive(values: &[u8]) -> bool {
    values.windows(2).all(|w| w[1] == w[0] + 1)
}

/// DouZero's `get_move_type` of a non-empty play.
fn douzero_type(cards: Counts) -> DzType {
    let v = values(cards);
    let counts: Vec<(u8, u8)> = cards.iter().map(|(r, n)| (VALUE[r as usize], n)).collect();
    let with = |k: u8| counts.iter().filter(|(_, n)| *n == k).count();
    let distinct = counts.len();
    match v.len() {
        1 => return DzType::Single,
        2 if distinct == 1 => return DzType::Pair,
        2 if v == [20, 30] => return DzType::KingBomb,
        2 => return DzType::Wrong,
        3 => return if distinct == 1 { DzType::Triple } else { DzType::Wrong },
        4 if distinct == 1 => return DzType::Bomb,
        4 if distinct == 2 && (v[0] == v[2] || v[1] == v[3]) => return DzType::ThreeOne,
        4 => return DzType::Wrong,
        _ => {}
    }
    if consecutive(&v) {
        return DzType::SerialSingle(v.len());
    }
    if v.len() == 5 {
        return if distinct == 2 { DzType::ThreeTwo } else { DzType::Wrong };
    }
    if v.len() == 6 && (distinct == 2 || distinct == 3) && with(4) == 1 && (with(2) == 1 || with(1) == 2) {
        return DzType::FourTwo;
    }
    if v.len() == 8 && (((distinct == 3 || distinct == 2) && with(4) == 1 && with(2) == 2) || with(4) == 2) {
        return DzType::FourTwoPairs;
    }
    let keys: Vec<u8> = counts.iter().map(|(k, _)| *k).collect();
    if distinct == with(2) && consecutive(&keys) {
        return DzType::SerialPair(distinct);
    }
    if distinct == with(3) && consecutive(&keys) {
        return DzType::SerialTriple(distinct);
    }
    serial_with_wings(&counts)
}

/// The airplanes in `get_move_type`: trios that run (or four trios of which three run) with
/// solo or pair wings.
fn serial_with_wings(counts: &[(u8, u8)]) -> DzType {
    let trios: Vec<u8> = counts.iter().filter(|(_, n)| *n == 3).map(|(k, _)| *k).collect();
    if trios.len() < 2 || counts.iter().any(|(_, n)| *n == 4) {
        return DzType::Wrong;
    }
    let singles = counts.iter().filter(|(_, n)| *n == 1).count();
    let pairs = counts.iter().filter(|(_, n)| *n == 2).count();
    if consecutive(&trios) {
        if trios.len() == singles + 2 * pairs {
            return DzType::SerialThreeOne(trios.len());
        }
        if trios.len() == pairs && counts.len() == 2 * trios.len() {
            return DzType::SerialThreeTwo(trios.len());
        }
    }
    if trios.len() == 4 && (consecutive(&trios[1..]) || consecutive(&trios[..3])) {
        return DzType::SerialThreeOne(3);
    }
    DzType::Wrong
}

/// The hand's card values with their counts, in rank order (DouZero's `cards_dict`, filled
/// from the sorted hand).
fn value_counts(hand: Counts) -> Vec<(u8, u8)> {
    hand.iter().map(|(r, n)| (VALUE[r as usize], n)).collect()
}

/// The order CPython iterates a `set` built from the hand's distinct card values, added in
/// rank order: with five values or more the table has 32 slots and each value its own slot
/// (sorted); with fewer, eight slots, a value at its value mod 8, collisions moved on by
/// CPython's probe `i = (5i + 1) mod 8` (the perturbation is 0 below 32).
fn python_set_order(sorted: &[u8]) -> Vec<u8> {
    if sorted.len() >= 5 {
        return sorted.to_vec();
    }
    let mut slots = [None; 8];
    for &v in sorted {
        let mut i = (v & 7) as usize;
        while slots[i].is_some() {
            i = (i * 5 + 1) & 7;
        }
        slots[i] = Some(v);
    }
    slots.into_iter().flatten().collect()
}

/// Cards of the given values.
fn of_values(values: &[u8]) -> Counts {
    let mut c = Counts::EMPTY;
    for r in values.iter().filter_map(|&v| VALUE.iter().position(|&x| x == v)) {
        c.add(r as u8, 1);
    }
    c
}

/// DouZero's runs of `width` of each value among `ranks` (sorted values), `n` long: every
/// window of each maximal run of consecutive values at least `min` long, in value order.
fn serial(ranks: &[u8], min: usize, n: usize, width: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < ranks.len() {
        let mut end = start + 1;
        while end < ranks.len() && ranks[end] == ranks[end - 1] + 1 {
            end += 1;
        }
        let run = &ranks[start..end];
        if run.len() >= min && run.len() >= n {
            for w in run.windows(n) {
                out.push(w.iter().flat_map(|&v| std::iter::repeat_n(v, width)).collect());
            }
        }
        start = end;
    }
    out
}

/// `itertools.combinations(items, k)`, as lists, in its order.
fn combinations_of(items: &[u8], k: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut index: Vec<usize> = (0..k).collect();
    if k > items.len() {
        return out;
    }
    loop {
        out.push(index.iter().map(|&i| items[i]).collect());
        let Some(i) = (0..k).rev().find(|&i| index[i] != i + items.len() - k) else { return out };
        index[i] += 1;
        for j in i + 1..k {
            index[j] = index[j - 1] + 1;
        }
    }
}

/// `itertools.groupby` keeping one of each run of equal moves.
fn dedup_runs(mut moves: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    moves.dedup();
    moves
}

/// The highest value held exactly three times in a move (DouZero's rank of an airplane).
fn top_trio(m: &[u8]) -> u8 {
    m.iter().copied().filter(|&v| m.iter().filter(|&&x| x == v).count() == 3).max().unwrap_or(0)
}

/// The value held four times in a move.
fn four_of(m: &[u8]) -> u8 {
    m.iter().copied().find(|&v| m.iter().filter(|&&x| x == v).count() == 4).unwrap_or(0)
}

fn sorted(mut m: Vec<u8>) -> Vec<u8> {
    m.sort_unstable();
    m
}

/// `gen_type_11_serial_3_1` filtered: each trio chain of `n` (from the ranks with three cards or
/// more) with every `n` of the other cards, runs of equal moves kept once, whose highest trio
/// beats `rival_rank`.
fn airplanes_with_solos(cards: &[u8], trios: &[u8], n: usize, rival_rank: u8) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    for chain in serial(trios, 2, n, 3) {
        let rest: Vec<u8> = cards.iter().copied().filter(|v| !chain.contains(v)).collect();
        all.extend(combinations_of(&rest, n).into_iter().map(|wings| [chain.clone(), wings].concat()));
    }
    dedup_runs(all).into_iter().filter(|m| top_trio(m) > rival_rank).map(sorted).collect()
}

/// `gen_type_12_serial_3_2` filtered: each trio chain of `n` with every `n` of the other ranks
/// that hold a pair.
fn airplanes_with_pairs(pairs: &[u8], trios: &[u8], n: usize, rival_rank: u8) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    for chain in serial(trios, 2, n, 3) {
        let others: Vec<u8> = pairs.iter().copied().filter(|v| !chain.contains(v)).collect();
        for wings in combinations_of(&others, n) {
            all.push(sorted([chain.clone(), wings.clone(), wings].concat()));
        }
    }
    all.into_iter().filter(|m| top_trio(m) > rival_rank).collect()
}

/// `gen_type_13_4_2` filtered: each four with every two of the other cards (the rocket
/// included), runs of equal moves kept once, whose four beats `rival_rank`.
fn fours_with_solos(cards: &[u8], fours: &[u8], rival_rank: u8) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    for &f in fours {
        let rest: Vec<u8> = cards.iter().copied().filter(|&v| v != f).collect();
        all.extend(combinations_of(&rest, 2).into_iter().map(|k| [vec![f; 4], k].concat()));
    }
    dedup_runs(all).into_iter().map(sorted).filter(|m| m[2] > rival_rank).collect()
}

/// `gen_type_14_4_22` filtered: each four with every two other ranks that hold a pair.
fn fours_with_pairs(pairs: &[u8], fours: &[u8], rival_rank: u8) -> Vec<Vec<u8>> {
    let mut all = Vec::new();
    for &f in fours {
        let others: Vec<u8> = pairs.iter().copied().filter(|&v| v != f).collect();
        all.extend(combinations_of(&others, 2).into_iter().map(|p| sorted(vec![f, f, f, f, p[0], p[0], p[1], p[1]])));
    }
    all.into_iter().filter(|m| four_of(m) > rival_rank).collect()
}

/// DouZero's legal answers of `hand` to `rival`, in the order of
/// `GameEnv.get_legal_card_play_actions`: the rival's type from its generator and filter, then
/// the bombs and the rocket (unless the rival is one), then the pass.
fn douzero_answers(hand: Counts, rival: Counts) -> Vec<Counts> {
    let held = value_counts(hand);
    let cards = values(hand);
    let distinct: Vec<u8> = held.iter().map(|(v, _)| *v).collect();
    let at_least = |k: u8| held.iter().filter(|(_, n)| *n >= k).map(|(v, _)| *v).collect::<Vec<u8>>();
    let fours: Vec<u8> = held.iter().filter(|(_, n)| *n == 4).map(|(v, _)| *v).collect();
    let r = values(rival);
    let mut bombs: Vec<Vec<u8>> = fours.iter().map(|&v| vec![v; 4]).collect();
    if distinct.contains(&20) && distinct.contains(&30) {
        bombs.push(vec![20, 30]);
    }
    let rival_type = douzero_type(rival);
    let moves: Vec<Vec<u8>> = match rival_type {
        DzType::Single => python_set_order(&distinct).into_iter().filter(|&v| v > r[0]).map(|v| vec![v]).collect(),
        DzType::Pair => at_least(2).into_iter().filter(|&v| v > r[0]).map(|v| vec![v; 2]).collect(),
        DzType::Triple => at_least(3).into_iter().filter(|&v| v > r[0]).map(|v| vec![v; 3]).collect(),
        DzType::Bomb => bombs.iter().filter(|m| m[0] > r[0]).cloned().collect(),
        DzType::KingBomb => Vec::new(),
        DzType::ThreeOne => {
            let singles = python_set_order(&distinct);
            let trios = at_least(3);
            let all = singles
                .iter()
                .flat_map(|&t| trios.iter().filter(move |&&i| i != t).map(move |&i| sorted(vec![t, i, i, i])));
            all.filter(|m| m[1] > r[1]).collect()
        }
        DzType::ThreeTwo => {
            let (pairs, trios) = (at_least(2), at_least(3));
            let all = pairs
                .iter()
                .flat_map(|&t| trios.iter().filter(move |&&i| i != t).map(move |&i| sorted(vec![t, t, i, i, i])));
            all.filter(|m| m[2] > r[2]).collect()
        }
        DzType::SerialSingle(n) => serial(&distinct, 5, n, 1).into_iter().filter(|m| m[0] > r[0]).collect(),
        DzType::SerialPair(n) => serial(&at_least(2), 3, n, 2).into_iter().filter(|m| m[0] > r[0]).collect(),
        DzType::SerialTriple(n) => serial(&at_least(3), 2, n, 3).into_iter().filter(|m| m[0] > r[0]).collect(),
        DzType::SerialThreeOne(n) => airplanes_with_solos(&cards, &at_least(3), n, top_trio(&r)),
        DzType::SerialThreeTwo(n) => airplanes_with_pairs(&at_least(2), &at_least(3), n, top_trio(&r)),
        DzType::FourTwo => fours_with_solos(&cards, &fours, r[2]),
        DzType::FourTwoPairs => fours_with_pairs(&at_least(2), &fours, four_of(&r)),
        DzType::Wrong => Vec::new(),
    };
    let mut answers: Vec<Counts> = moves.iter().map(|m| of_values(m)).collect();
    if !matches!(rival_type, DzType::Bomb | DzType::KingBomb) {
        answers.extend(bombs.iter().map(|m| of_values(m)));
    }
    answers.push(Counts::EMPTY);
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cards(text: &str) -> Counts {
        Counts::parse(text).unwrap()
    }

    #[test]
    fn the_lead_is_the_last_combination_that_holds_the_lowest_card() {
        // 3 is both in the chain 345678 and left over as a solo: the solo comes last.
        assert_eq!(lead(cards("33456789")), cards("3"));
        // 333 joins 444 into a trio chain, which comes after the trios.
        assert_eq!(lead(cards("333444666K")), cards("333444"));
        // A run of 2s in every rank of a chain is listed twice, and the 3 is in it.
        assert_eq!(lead(cards("3344556677")), cards("34567"));
        // Only the jokers: the rocket.
        assert_eq!(lead(cards("BR")), cards("BR"));
    }

    #[test]
    fn cpython_sets_of_few_values_are_not_sorted() {
        // 3, 5 and the black joker (20): 20 mod 8 = 4 comes before 5.
        assert_eq!(python_set_order(&[3, 5, 20]), vec![3, 20, 5]);
        // 3 and 11 collide in slot 3: 11 moves to slot (3·5 + 1) mod 8 = 0.
        assert_eq!(python_set_order(&[3, 11]), vec![11, 3]);
        assert_eq!(python_set_order(&[4, 5, 20]), vec![20, 4, 5]);
        assert_eq!(python_set_order(&[3, 4, 5, 6, 7]), vec![3, 4, 5, 6, 7]);
    }

    #[test]
    fn douzero_answers_list_a_trio_and_solo_by_the_set_order_of_its_solos() {
        // Rival 3334: the trio 555 with each solo, in the order CPython iterates {4, 5, 20}:
        // 20 collides with 4 in slot 4, then with 5 in slot 5, and lands in slot 2.
        let answers = douzero_answers(cards("4555B"), cards("3334"));
        assert_eq!(answers, vec![cards("555B"), cards("4555"), Counts::EMPTY]);
    }

    #[test]
    fn itertools_combinations_order() {
        assert_eq!(combinations_of(&[1, 2, 3], 2), vec![vec![1, 2], vec![1, 3], vec![2, 3]]);
        assert!(combinations_of(&[1], 2).is_empty());
    }
}
