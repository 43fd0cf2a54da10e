//! Worlds weighted by what the other players did. A world drawn uniformly from a seat's
//! information ignores that a farmer who passed could perhaps not beat the play, or that a
//! landlord who led a pair of 3s probably holds no lone 3: this draws more worlds than needed,
//! weighs each by how likely the policy (a network, [`Policy`]) finds every past play of the other two seats in it
//! (the product of a softmax over its Q at each of their decisions, all decisions of all worlds
//! in one batch), and keeps worlds drawn by weight.
//!
//! With an [`OpponentModel`] for the other side (the rule agent, say) its players are modelled
//! by it instead: a play the model would not have made in a world costs that world a factor
//! [`MISMATCH`] (the model is deterministic, so a world where it would have played otherwise is
//! nearly, not quite, ruled out: the opponent may not play as the model after all).
//!
//! Only the seat's information goes in: the worlds come from `resample_from_infostate`, and the
//! plays weighed are the public record.

use super::best_response::KnownPolicy;
use super::budget::Deadline;
use super::policy::{OpponentModel, Policy, argmax, lend};
use super::solver::Position;
use ddz_engine::cards::{Card, CardSet};
use ddz_engine::game::{MoveList, Play, Seat, State};
use rand::RngExt;
use rand::rngs::SmallRng;

/// The weight a world loses for each play a deterministic model of the other side (an
/// [`OpponentModel`], or the policy's greedy play in [`refine_for_policy`]) would not have made
/// in it.
pub const MISMATCH: f64 = 0.01;

/// How worlds are drawn and weighed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Belief {
    /// Softmax temperature over the policy's Q for the other seats' plays (0 = not weighed).
    pub temperature: f64,
    /// Worlds drawn for each world kept, when worlds are weighed.
    pub draws: usize,
    /// Metropolis steps per kept world toward the opponent model ([`refine_for_opponents`]),
    /// when there is one.
    pub steps: usize,
}

impl Belief {
    /// Uniform worlds.
    pub const UNIFORM: Belief = Belief { temperature: 0.0, draws: 1, steps: 0 };

    /// Worlds weighed by the network at `temperature`, from four times as many draws.
    pub fn network(temperature: f64) -> Belief {
        Belief { temperature, draws: 4, ..Belief::UNIFORM }
    }
}

/// `n` worlds that `seat` cannot tell from `state`: `n × draws` drawn uniformly, `n` of them kept
/// by their weight: the policy's likelihood of the other seats' plays at the temperature,
/// times, with an opponent model, the model's for the other side's plays; then moved by
/// [`refine_for_opponents`]. Uniform draws when nothing weighs them, or when the game had
/// bidding, which these replays do not redo.
///
/// Past `deadline` every phase stops where it is: fewer worlds are drawn (at least one), the
/// worlds are kept from the draws weighed so far (one for each `draws` of them), and the worlds
/// not yet moved toward the model stay where their draw put them. Without a deadline the result depends on the draws alone.
#[allow(clippy::too_many_arguments)] // the search's inputs, each its own kind of thing
pub fn draw_worlds(
    policy: &mut dyn Policy,
    state: &State,
    seat: Seat,
    n: usize,
    belief: Belief,
    mut opponents: Option<&mut dyn OpponentModel>,
    deadline: Deadline,
    rng: &mut SmallRng,
) -> Vec<State> {
    let weighed = belief.temperature > 0.0 || opponents.is_some();
    if !weighed || state.config().bidding {
        return uniform_worlds(state, seat, n, deadline, rng);
    }
    let kept = match belief.draws {
        0 | 1 => uniform_worlds(state, seat, n, deadline, rng),
        _ => weighed_draw(policy, state, seat, n, belief, lend(&mut opponents), deadline, rng),
    };
    match opponents {
        // Past the deadline the worlds left are not moved at all (each move starts with a
        // whole replay of the game).
        Some(model) => kept
            .into_iter()
            .map(|w| match deadline.passed() {
                true => w,
                false => refine_for_opponents(&mut *model, w, seat, belief.steps, deadline, rng),
            })
            .collect(),
        None => kept,
    }
}

/// `n` worlds drawn uniformly from `seat`'s information, or as many as `deadline` allows (at
/// least one).
pub fn uniform_worlds(state: &State, seat: Seat, n: usize, deadline: Deadline, rng: &mut SmallRng) -> Vec<State> {
    let mut worlds = Vec::with_capacity(n.min(4096));
    while worlds.len() < n && (worlds.is_empty() || !deadline.passed()) {
        worlds.push(state.resample_from_infostate(seat, &mut || rng.random::<f64>()));
    }
    worlds
}

/// Pool worlds drawn and weighed at a time when a deadline may stop the weighing.
const WEIGH_CHUNK: usize = 64;

/// `n` of `n × draws` uniform worlds, drawn by their likelihood under `belief`; past
/// `deadline`, of the draws weighed by then (at least one chunk).
#[allow(clippy::too_many_arguments)]
fn weighed_draw(
    policy: &mut dyn Policy,
    state: &State,
    seat: Seat,
    n: usize,
    belief: Belief,
    mut opponents: Option<&mut dyn OpponentModel>,
    deadline: Deadline,
    rng: &mut SmallRng,
) -> Vec<State> {
    let total = n * belief.draws;
    // Without a deadline the pool is weighed in one batch, as it always was: the same draws
    // give the same worlds.
    let chunk = if deadline == Deadline::NONE { total.max(1) } else { WEIGH_CHUNK };
    let (mut pool, mut log_weights) = (Vec::new(), Vec::new());
    while pool.len() < total && (pool.is_empty() || !deadline.passed()) {
        let part: Vec<State> = (0..chunk.min(total - pool.len()))
            .map(|_| state.resample_from_infostate(seat, &mut || rng.random::<f64>()))
            .collect();
        log_weights.extend(log_likelihoods(policy, &part, seat, belief.temperature, lend(&mut opponents)));
        pool.extend(part);
    }
    let top = log_weights.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = log_weights.iter().map(|w| (w - top).exp()).collect();
    let total: f64 = weights.iter().sum();
    // Cut short, it keeps one world per `draws` weighed, as the whole pool would have.
    let kept = if pool.len() < n * belief.draws { (pool.len() / belief.draws).max(1) } else { n };
    (0..kept)
        .map(|_| {
            let mut x = rng.random::<f64>() * total;
            let mut pick = weights.len() - 1;
            for (i, w) in weights.iter().enumerate() {
                if x < *w {
                    pick = i;
                    break;
                }
                x -= w;
            }
            pool[pick].clone()
        })
        .collect()
}

/// `world`'s record of plays replayed from its deal with the dealt hands `dealt`, with
/// `decision(seat, state, plays, taken)` called at each decision with a choice of the seats
/// `asks` picks (only theirs need their legal plays listed; `try_apply_play` checks the rest).
/// `None` when a recorded play is not possible with these hands.
fn replay(
    world: &State,
    dealt: [CardSet; 3],
    asks: impl Fn(Seat) -> bool,
    mut decision: impl FnMut(Seat, &State, &MoveList, usize),
) -> Option<State> {
    let mut past = State::new(world.config().clone());
    past.try_deal_hands(dealt, world.bottom()).ok()?;
    let mut plays = MoveList::new();
    for record in world.play_record() {
        if asks(record.seat) {
            past.legal_plays_into(&mut plays);
            if plays.len() > 1 {
                let taken = plays.iter().position(|p| *p == record.play)?;
                decision(record.seat, &past, &plays, taken);
            }
        }
        past.try_apply_play(record.play).ok()?;
    }
    Some(past)
}

/// A past decision put to the policy: the world's index, the position, its legal plays and
/// the index of the play taken.
type Asked = (usize, State, MoveList, usize);

/// The policy's Q at every asked decision, 512 decisions a batch, handed on as
/// `each(world, taken, q)`.
fn with_q(policy: &mut dyn Policy, asked: &[Asked], mut each: impl FnMut(usize, usize, &[f32])) {
    for chunk in asked.chunks(512) {
        let decisions: Vec<(&State, &[Play])> = chunk.iter().map(|(_, s, p, _)| (s, &p[..])).collect();
        for ((w, _, _, taken), q) in chunk.iter().zip(policy.q_values_many(&decisions)) {
            each(*w, *taken, &q);
        }
    }
}

/// A world replayed from its deal with the dealt hands `dealt` and the same record of plays;
/// how many of the other side's plays with a choice (seen from `seat`) it holds, and how many
/// of them `model` would not have made. `None` when a recorded play is not possible with these
/// hands.
fn replay_with_model(
    world: &State,
    dealt: [CardSet; 3],
    seat: Seat,
    model: &mut dyn OpponentModel,
) -> Option<(State, u32, u32)> {
    let (mut asked, mut mismatches) = (0, 0);
    let past = replay(
        world,
        dealt,
        |s| !world.same_side(s, seat),
        |_, state, plays, taken| {
            mismatches += (model.pick(state, plays) != taken) as u32;
            asked += 1;
        },
    )?;
    Some((past, asked, mismatches))
}

/// How many of the other side's plays with a choice (seen from `seat`) `world` holds, and how
/// many of them `model` would not have made in it.
pub fn opponent_evidence(model: &mut dyn OpponentModel, world: &State, seat: Seat) -> (u32, u32) {
    replay_with_model(world, world.dealt_hands(), seat, model).map_or((0, u32::MAX), |(_, a, m)| (a, m))
}

/// How many of the other side's plays in `world` (seen from `seat`) `model` would have made and
/// the policy would not (its best Q, from that player's view of `world`): the plays that tell
/// the model from the policy. All the world's decisions go in one batch.
pub fn telling_plays(policy: &mut dyn Policy, model: &mut dyn OpponentModel, world: &State, seat: Seat) -> u32 {
    let mut asked: Vec<Asked> = Vec::new();
    let replayed = replay(
        world,
        world.dealt_hands(),
        |s| !world.same_side(s, seat),
        |_, state, plays, taken| {
            if model.pick(state, plays) == taken {
                asked.push((0, state.clone(), plays.clone(), taken));
            }
        },
    );
    if replayed.is_none() {
        return 0;
    }
    let mut told = 0;
    with_q(policy, &asked, |_, taken, q| told += (argmax(q) != taken) as u32);
    told
}

/// Moves `world` toward worlds where the other side plays as `model`: `steps` Metropolis
/// steps, each swapping one unplayed hidden card between the two seats `seat` cannot see (never
/// a card of the public bottom), a swap that adds k mismatches kept with probability
/// [`MISMATCH`]^k. Swaps are symmetric and keep every public fact (hand sizes, plays, the
/// bottom), so the chain only reweighs worlds `seat` cannot tell apart. The chain stops early
/// once `deadline` has passed.
pub fn refine_for_opponents(
    model: &mut dyn OpponentModel,
    world: State,
    seat: Seat,
    steps: usize,
    deadline: Deadline,
    rng: &mut SmallRng,
) -> State {
    if world.config().bidding || steps == 0 {
        return world;
    }
    let Some((mut current, _, mut mismatches)) = replay_with_model(&world, world.dealt_hands(), seat, model) else {
        return world;
    };
    for _ in 0..steps {
        if deadline.passed() {
            break;
        }
        let hands = match propose(&current, seat, rng) {
            Proposal::Stop => break,
            Proposal::Skip => continue,
            Proposal::Hands(hands) => hands,
        };
        let Some((next, _, m)) = replay_with_model(&current, hands, seat, model) else { continue };
        if accept(m, mismatches, rng) {
            (current, mismatches) = (next, m);
        }
    }
    current
}

/// The same chain toward worlds where the other side plays as the policy (its best Q, from each
/// player's own view), run on all `worlds` in step so that each step's replays go through the
/// policy in one batch. Each world comes back with its count of the other side's plays the
/// policy would not have made (`u32::MAX` for a world whose record does not replay). The chains
/// stop early once `deadline` has passed.
pub fn refine_for_policy(
    policy: &mut dyn Policy,
    worlds: Vec<State>,
    seat: Seat,
    steps: usize,
    deadline: Deadline,
    rng: &mut SmallRng,
) -> Vec<(State, u32)> {
    let dealt: Vec<(&State, [CardSet; 3])> = worlds.iter().map(|w| (w, w.dealt_hands())).collect();
    let first = policy_mismatches(policy, &dealt, seat);
    let mut chains: Vec<(State, u32)> =
        worlds.iter().zip(first).map(|(w, r)| r.unwrap_or_else(|| (w.clone(), u32::MAX))).collect();
    if worlds.first().is_none_or(|w| w.config().bidding) {
        return chains;
    }
    for _ in 0..steps {
        if deadline.passed() {
            break;
        }
        // A chain that can no longer move (a hand with no unplayed card) sits the step out.
        let moves: Vec<(usize, [CardSet; 3])> = (0..chains.len())
            .filter_map(|i| match propose(&chains[i].0, seat, rng) {
                Proposal::Hands(hands) => Some((i, hands)),
                _ => None,
            })
            .collect();
        let proposed: Vec<(&State, [CardSet; 3])> = moves.iter().map(|&(i, h)| (&chains[i].0, h)).collect();
        let replayed = policy_mismatches(policy, &proposed, seat);
        for (&(i, _), next) in moves.iter().zip(replayed) {
            if let Some((next, m)) = next
                && accept(m, chains[i].1, rng)
            {
                chains[i] = (next, m);
            }
        }
    }
    chains
}

/// For each world replayed from its dealt hands, the replayed world and how many of the other
/// side's plays with a choice (seen from `seat`) the policy would not have made in it; all
/// the decisions of all the worlds in one batch. `None` when a record does not replay.
fn policy_mismatches(
    policy: &mut dyn Policy,
    worlds: &[(&State, [CardSet; 3])],
    seat: Seat,
) -> Vec<Option<(State, u32)>> {
    let mut asked: Vec<Asked> = Vec::new();
    let mut out: Vec<Option<(State, u32)>> = worlds
        .iter()
        .enumerate()
        .map(|(w, &(world, dealt))| {
            let other_side = |s: Seat| !world.same_side(s, seat);
            let record =
                |_, state: &State, plays: &MoveList, taken| asked.push((w, state.clone(), plays.clone(), taken));
            replay(world, dealt, other_side, record).map(|past| (past, 0))
        })
        .collect();
    with_q(policy, &asked, |w, taken, q| {
        if let Some((_, m)) = out[w].as_mut() {
            *m += (argmax(q) != taken) as u32;
        }
    });
    out
}

/// What a world's record says under a policy known in full playing the other side: how many
/// of their plays with a choice it could not have made there, and the log of the chance it
/// had of making the others.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Evidence {
    impossible: u32,
    log_chance: f64,
}

impl Evidence {
    /// The chain's log-weight: each impossible play costs [`MISMATCH`], so that a chain started
    /// in an impossible world can walk out of it.
    fn log_weight(self) -> f64 {
        self.log_chance + self.impossible as f64 * MISMATCH.ln()
    }
}

/// A world replayed from `dealt` and what its record says under `known` (seen from `seat`);
/// `None` when a recorded play is not possible with these hands.
fn replay_with_known(
    world: &State,
    dealt: [CardSet; 3],
    seat: Seat,
    known: &mut dyn KnownPolicy,
) -> Option<(State, Evidence)> {
    let mut evidence = Evidence { impossible: 0, log_chance: 0.0 };
    let past = replay(
        world,
        dealt,
        |s| !world.same_side(s, seat),
        |_, state, plays, taken| {
            // A position the open-hand form cannot hold (another table) tells nothing.
            let chance = Position::of_state(state).map_or(1.0, |pos| known.chance_of(&pos, plays, taken));
            match chance > 0.0 {
                true => evidence.log_chance += f64::ln(chance),
                false => evidence.impossible += 1,
            }
        },
    )?;
    Some((past, evidence))
}

/// `n` worlds that `seat` cannot tell from `state`, drawn by the chance that `known` (a policy
/// known in full, playing the other side) had of making every play they made: one Metropolis
/// chain of card swaps ([`refine_for_opponents`]'s moves) from a uniform draw, a world taken
/// every `steps` steps. Of the worlds taken, only those where the fewest of the other side's
/// plays are impossible are kept (none impossible, once the chain has found such a world), so
/// that a world the policy rules out is never searched when one it allows was found.
///
/// Past `deadline` the chain stops moving and the worlds taken so far come back (at least
/// one). Uniform worlds when the game had bidding, which the replays do not redo.
pub fn known_worlds(
    known: &mut dyn KnownPolicy,
    state: &State,
    seat: Seat,
    n: usize,
    steps: usize,
    deadline: Deadline,
    rng: &mut SmallRng,
) -> Vec<State> {
    let start = state.resample_from_infostate(seat, &mut || rng.random::<f64>());
    let replayed = replay_with_known(&start, start.dealt_hands(), seat, known);
    let (Some((mut current, mut evidence)), false) = (replayed, state.config().bidding) else {
        return uniform_worlds(state, seat, n, deadline, rng);
    };
    let mut taken: Vec<(State, u32)> = Vec::with_capacity(n.min(4096));
    'chain: while taken.len() < n && (taken.is_empty() || !deadline.passed()) {
        for _ in 0..steps {
            if deadline.passed() && !taken.is_empty() {
                break 'chain;
            }
            let hands = match propose(&current, seat, rng) {
                Proposal::Stop => break, // the hidden hands are all known: one world
                Proposal::Skip => continue,
                Proposal::Hands(hands) => hands,
            };
            let Some((next, e)) = replay_with_known(&current, hands, seat, known) else { continue };
            let step = e.log_weight() - evidence.log_weight();
            if step >= 0.0 || rng.random::<f64>() < step.exp() {
                (current, evidence) = (next, e);
            }
        }
        taken.push((current.clone(), evidence.impossible));
    }
    let fewest = taken.iter().map(|&(_, i)| i).min().unwrap_or(0);
    taken.into_iter().filter(|&(_, i)| i == fewest).map(|(w, _)| w).collect()
}

/// One step of either chain.
enum Proposal {
    /// A hand the seat cannot see has no unplayed card left to swap.
    Stop,
    /// Two cards of one rank: the same world.
    Skip,
    /// The dealt hands with one unplayed card of each hidden hand swapped.
    Hands([CardSet; 3]),
}

fn propose(current: &State, seat: Seat, rng: &mut SmallRng) -> Proposal {
    // The two other seats in seat order, not turn order: a seed proposes the swaps it did.
    // Two other hands to swap between: a table of three (search is refused at a table of two).
    let [a, b] = match current.table().others(seat).collect::<Vec<_>>()[..] {
        [x, y] if x < y => [x, y],
        [x, y] => [y, x],
        _ => return Proposal::Stop,
    };
    let (Some(x), Some(y)) = (swappable(current, a, rng), swappable(current, b, rng)) else { return Proposal::Stop };
    if x.rank() == y.rank() {
        return Proposal::Skip;
    }
    let mut hands = current.dealt_hands();
    hands[a].remove(x);
    hands[a].insert(y);
    hands[b].remove(y);
    hands[b].insert(x);
    Proposal::Hands(hands)
}

/// Metropolis: a move from `current` to `next` mismatches is kept with probability
/// [`MISMATCH`]^(next − current), always when it adds none.
fn accept(next: u32, current: u32, rng: &mut SmallRng) -> bool {
    next <= current || rng.random::<f64>() < MISMATCH.powi((next - current) as i32)
}

/// A random card dealt to `seat` (not from the bottom) that it still holds, if any.
fn swappable(world: &State, seat: Seat, rng: &mut SmallRng) -> Option<Card> {
    let hand = world.hand(seat);
    let held: Vec<Card> = world.dealt_cards(seat).iter().filter(|c| hand.get(c.rank()) > 0).collect();
    // Of several cards of one rank, which physical card goes does not matter to the game.
    (!held.is_empty()).then(|| held[rng.random_range(0..held.len())])
}

/// For each world, the log-probability of the other seats' past plays: under a softmax of the
/// policy's Q at `temperature` (none when 0), except that with an opponent model the other
/// side's plays count by the model's mismatches instead.
fn log_likelihoods(
    policy: &mut dyn Policy,
    worlds: &[State],
    seat: Seat,
    temperature: f64,
    mut opponents: Option<&mut dyn OpponentModel>,
) -> Vec<f64> {
    let mut log_w = vec![0.0; worlds.len()];
    let modelled = opponents.is_some();
    // Every past decision the policy weighs, in every world.
    let mut asked: Vec<Asked> = Vec::new();
    for (w, world) in worlds.iter().enumerate() {
        // One replay: the other side's decisions go to the opponent model when there is one,
        // the other seats' to the policy's batch when it weighs them.
        let by_model = |s: Seat| modelled && !world.same_side(s, seat);
        let mut mismatches = 0;
        let asks = |s: Seat| s != seat && (by_model(s) || temperature > 0.0);
        replay(world, world.dealt_hands(), asks, |s, state, plays, taken| match lend(&mut opponents) {
            Some(model) if by_model(s) => mismatches += (model.pick(state, plays) != taken) as u32,
            _ => asked.push((w, state.clone(), plays.clone(), taken)),
        })
        .expect("a world replays");
        log_w[w] += mismatches as f64 * MISMATCH.ln();
    }
    with_q(policy, &asked, |w, taken, q| log_w[w] += log_softmax(q, taken, temperature));
    log_w
}

fn log_softmax(q: &[f32], i: usize, temperature: f64) -> f64 {
    let scaled: Vec<f64> = q.iter().map(|&v| v as f64 / temperature).collect();
    let top = scaled.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let sum: f64 = scaled.iter().map(|v| (v - top).exp()).sum();
    scaled[i] - top - sum.ln()
}
