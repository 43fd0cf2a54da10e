//! Actor threads: self-play against frozen snapshots, several games at once so that their
//! decisions share one forward pass.
//!
//! In each game either every seat plays the current weights (a `self_play_share` of games), or
//! one side does — the landlord or the farmers, alternately by game index — against a frozen
//! snapshot drawn from the pool, or (a `rule_share` of games, none by default) against the rule
//! agent. Only the current-weights seats learn; they explore, the frozen seats play greedily.
//!
//! An [`Actor`] repeats four named steps: [`Actor::sync_weights`], [`Actor::refill`] (new games
//! in empty slots), [`Actor::decide`] (every game's current player, one batched forward pass
//! per network) and [`Actor::advance`] (apply the plays, label and ship finished games).

use super::config::{Exploration, TrainConfig};
use super::curation::Curator;
use super::pool::Pool;
use super::trajectory::{BidFrame, Decision, label, points};
use crate::agents::{RuleAgent, decide, model::greedy};
use crate::encode::{BID_DIM, HiddenHands, ORACLE_DIM, STATE_DIM, encode_bid_state, encode_state};
use crate::game::laizi::top_plays;
use crate::game::{GameConfig, MoveList, Phase, Seat, State, prune_plays};
use crate::model::{Frame, Weights};
use crate::seeds::{self, Stream};
use crossbeam_channel::Sender;
use ddz_nets::{BidNetwork, QNetwork};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// What the learner shares with the actors.
pub struct Shared {
    /// The newest published weights, and the bidding network's (when games start with bids).
    pub weights: Mutex<(Arc<Weights>, Option<Arc<Weights>>)>,
    /// The version of the newest published weights; an actor reloads when it differs from its own.
    pub version: AtomicU64,
    /// The frozen snapshots actors draw their opponents from.
    pub pool: RwLock<Pool>,
    /// Set to make the actors stop, each after the round of play it is in.
    pub stop: AtomicBool,
    /// Index of the next game to deal (deal seed = (run seed, index)).
    pub next_game: AtomicU64,
    /// Frames learned so far (anneals the softmax temperature).
    pub frames: AtomicU64,
    /// Deals skipped by curation in this session ([`super::curation`]).
    pub skipped_deals: AtomicU64,
}

impl Shared {
    /// What actors start from: the first weights, the pool, the index of the first game and
    /// the frames learned so far.
    pub fn new(weights: Weights, bid: Option<Weights>, pool: Pool, next_game: u64, frames: u64) -> Shared {
        Shared {
            version: AtomicU64::new(weights.version),
            weights: Mutex::new((Arc::new(weights), bid.map(Arc::new))),
            pool: RwLock::new(pool),
            stop: AtomicBool::new(false),
            next_game: AtomicU64::new(next_game),
            frames: AtomicU64::new(frames),
            skipped_deals: AtomicU64::new(0),
        }
    }

    /// Makes `weights` (and the bidding network's `bid`) the newest, for actors to take in at
    /// their next sync.
    pub fn publish(&self, weights: Weights, bid: Option<Weights>) {
        let version = weights.version;
        *self.weights.lock().unwrap_or_else(PoisonError::into_inner) = (Arc::new(weights), bid.map(Arc::new));
        self.version.store(version, Ordering::Release);
    }

    /// The newest published weights and the bidding network's.
    pub fn newest(&self) -> (Arc<Weights>, Option<Arc<Weights>>) {
        self.weights.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// The pool, to read. Writers replace whole entries (or the whole pool), so a pool whose
    /// writer panicked is still a valid one: a poisoned lock is read through, here and in
    /// [`Shared::pool_mut`], as for the weights, which are only ever replaced whole.
    pub fn pool(&self) -> RwLockReadGuard<'_, Pool> {
        self.pool.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The pool, to change.
    pub fn pool_mut(&self) -> RwLockWriteGuard<'_, Pool> {
        self.pool.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Which side learns in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Learning {
    /// Every seat plays the current weights and learns.
    AllSeats,
    /// Only the landlord learns; the farmers are the opponent.
    Landlord,
    /// Only the two farmers learn; the landlord is the opponent.
    Farmers,
}

/// A finished game as the learner sees it.
#[derive(Debug)]
pub struct GameMsg {
    /// The learning seats' decisions, labelled.
    pub frames: Vec<Frame>,
    /// Which side learned in the game.
    pub learning: Learning,
    /// The side that did not learn was the rule agent.
    pub vs_rule: bool,
    /// The landlord won the game.
    pub landlord_won: bool,
    /// The game's bidding decisions, labelled (empty without bidding).
    pub bids: Vec<BidFrame>,
    /// The version of the learner's weights the learning seats played with when it ended.
    pub version: u64,
    /// The game's index in the run (its deal seed is `seeds::nth(run seed, index)`).
    pub index: u64,
}

/// Who plays the seats that do not learn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opponent {
    /// A frozen snapshot, by its pool step.
    Snapshot(u64),
    Rule,
}

/// A game in flight.
struct Slot {
    index: u64,
    state: State,
    learning: Learning,
    /// Unused when all seats learn.
    opponent: Opponent,
    decisions: Vec<Decision>,
    /// The current player's legal plays, and the index of the one it chose.
    plays: MoveList,
    chosen: Option<usize>,
    /// The bidding decisions so far (seat, features, bid), and the bid chosen now.
    bids: Vec<(Seat, Vec<f32>, u8)>,
    bid: Option<u8>,
}

impl Slot {
    fn bidding(&self) -> bool {
        self.state.phase() == Phase::Bid
    }

    fn seat(&self) -> Seat {
        self.state.current_player().expect("a game in flight has a player to move")
    }

    /// The network that decides for the current player; only for seats the rule agent does
    /// not play.
    fn net_key(&self) -> NetKey {
        match (self.seat_learns(self.seat()), self.opponent) {
            (true, _) => None,
            (false, Opponent::Snapshot(step)) => Some(step),
            (false, Opponent::Rule) => unreachable!("the rule agent chose before the forward passes"),
        }
    }

    fn seat_learns(&self, seat: Seat) -> bool {
        let landlord = self.state.landlord() == Some(seat);
        match self.learning {
            Learning::AllSeats => true,
            Learning::Landlord => landlord,
            Learning::Farmers => !landlord,
        }
    }
}

/// Which network decides: the learner's (`None`) or a frozen snapshot (its pool step).
type NetKey = Option<u64>;

/// Feature buffers of one batched forward pass, reused across passes.
#[derive(Default)]
struct Encoded {
    states: Vec<f32>,
    actions: Vec<f32>,
    owner: Vec<i64>,
    /// The slots in the batch, in state order.
    members: Vec<usize>,
    /// Each member's hidden hands, and their oracle planes when the network reads them.
    hidden: Vec<HiddenHands>,
    oracle: Vec<f32>,
}

/// A frozen snapshot in use: its pool step, the frames it had learned (its oracle's weight)
/// and its network.
struct Frozen {
    step: u64,
    frames: u64,
    net: QNetwork,
}

/// One actor thread's games in flight ([`TrainConfig`]'s `actors.games_in_flight`), its
/// networks and its opponents.
pub struct Actor {
    cfg: Arc<TrainConfig>,
    shared: Arc<Shared>,
    game_config: GameConfig,
    rng: SmallRng,
    /// The learning network as last published, in the torch-free forward pass (faster than
    /// libtorch at every batch size the actors have: docs/inference.md).
    net: QNetwork,
    /// The bidding network, when games start with bids.
    bid_net: Option<BidNetwork>,
    version: u64,
    /// Frozen nets; at most the current opponent and the previous one in use.
    frozen: Vec<Frozen>,
    opponent: u64,
    games_since_draw: u64,
    rule: RuleAgent,
    /// Skips some near-certain deals (`[curation]`).
    curator: Option<Curator>,
    slots: Vec<Slot>,
    batch: Encoded,
}

impl Actor {
    /// Actor number `id` of a run; its exploration draws are seeded by the run seed, the id and
    /// the game index it starts at.
    pub fn new(id: usize, cfg: Arc<TrainConfig>, shared: Arc<Shared>) -> Actor {
        let start_index = shared.next_game.load(Ordering::Relaxed);
        Actor {
            game_config: GameConfig {
                scoring: cfg.reward.scoring,
                bidding: cfg.game.bidding,
                spring: cfg.game.spring,
                rules: cfg.game.rules,
                ..GameConfig::default()
            },
            rng: SmallRng::seed_from_u64(seeds::nth(
                seeds::of(cfg.run.seed, Stream::ACTORS),
                start_index + id as u64 * 7919,
            )),
            // Zeros until the first sync takes the published weights (a validated config).
            net: QNetwork::zeros(&cfg.model).expect("the run's model config was validated"),
            bid_net: cfg.game.bidding.then(BidNetwork::zeros),
            version: u64::MAX,
            frozen: Vec::new(),
            opponent: 0,
            games_since_draw: u64::MAX,
            rule: RuleAgent::new(),
            curator: None,
            slots: Vec::new(),
            batch: Encoded::default(),
            cfg,
            shared,
        }
    }

    /// The actor with deal curation (`None`: every deal is played).
    pub fn with_curator(mut self, curator: Option<Curator>) -> Actor {
        self.curator = curator;
        self
    }

    /// Plays until `shared.stop` is set or the learner hangs up.
    pub fn run(mut self, tx: Sender<GameMsg>) {
        crate::runtime::configure_threads(1);
        while !self.shared.stop.load(Ordering::Relaxed) {
            self.sync_weights();
            self.refill();
            self.decide();
            for game in self.advance() {
                if tx.send(game).is_err() {
                    return; // the learner is gone
                }
            }
        }
    }

    /// Takes the newest published weights, when there are newer ones.
    pub fn sync_weights(&mut self) {
        if self.shared.version.load(Ordering::Acquire) != self.version {
            // What is published was checked where it came in (the learner's own export, or
            // [`crate::model::Weights::fits`] in `ddz actor`); should it still not fit, the
            // actor keeps the weights it has rather than stop playing.
            let (w, bid) = self.shared.newest();
            let imported = self.net.update(&w).and_then(|()| match (self.bid_net.as_mut(), bid) {
                (Some(net), Some(bid)) => BidNetwork::from_weights(&bid).map(|b| *net = b),
                _ => Ok(()),
            });
            if let Err(why) = imported {
                eprintln!("ddz: an actor kept its weights: version {} does not fit: {why}", w.version);
            }
            self.version = w.version;
        }
    }

    /// Fills empty slots with new games, redrawing the frozen opponent when due.
    pub fn refill(&mut self) {
        while self.slots.len() < self.cfg.actors.games_in_flight {
            if self.games_since_draw >= self.cfg.pool.redraw_every_games {
                self.draw_opponent();
            }
            let slot = self.new_game();
            self.slots.push(slot);
            self.games_since_draw += 1;
        }
        let (opponent, slots) = (self.opponent, &self.slots);
        self.frozen.retain(|f| {
            f.step == opponent
                || slots.iter().any(|sl| sl.learning != Learning::AllSeats && sl.opponent == Opponent::Snapshot(f.step))
        });
    }

    fn draw_opponent(&mut self) {
        let pool = self.shared.pool();
        let entry = pool.sample(self.rng.random::<f64>()).expect("the pool always holds a snapshot");
        self.opponent = entry.step;
        if !self.frozen.iter().any(|f| f.step == entry.step) {
            let net = QNetwork::with_config(&self.cfg.model, &entry.weights).unwrap_or_else(|why| {
                // Checked on arrival too; a snapshot that still does not fit is played by the
                // current weights instead (the opponent is then self-play-like, never a crash).
                eprintln!("ddz: an actor skipped pool snapshot {}: {why}", entry.step);
                self.net.clone()
            });
            self.frozen.push(Frozen { step: entry.step, frames: entry.frames, net });
        }
        self.games_since_draw = 0;
    }

    /// The next game of the run: its deal, which side learns and against whom.
    fn new_game(&mut self) -> Slot {
        let pool = &self.cfg.pool;
        let (index, state) = loop {
            let index = self.shared.next_game.fetch_add(1, Ordering::Relaxed);
            // With bidding, the first bidder goes round with the game index.
            let first_bidder = self.game_config.rules.table().after(Seat::S0, index);
            let mut state = State::new(GameConfig { first_bidder, ..self.game_config.clone() });
            state.deal_random(&mut SmallRng::seed_from_u64(seeds::nth(self.cfg.run.seed, index)));
            let skip = self.curator.as_mut().is_some_and(|c| c.skips(&state, &mut self.rng));
            if !skip {
                break (index, state);
            }
            self.shared.skipped_deals.fetch_add(1, Ordering::Relaxed);
        };
        let u = self.rng.random::<f64>();
        let learning = if u < pool.self_play_share {
            Learning::AllSeats
        } else if index.is_multiple_of(2) {
            Learning::Landlord
        } else {
            Learning::Farmers
        };
        let opponent = if u >= pool.self_play_share && u < pool.self_play_share + pool.rule_share {
            Opponent::Rule
        } else {
            Opponent::Snapshot(self.opponent)
        };
        let (decisions, plays, bids) = (Vec::new(), MoveList::new(), Vec::new());
        Slot { index, state, learning, opponent, decisions, plays, chosen: None, bids, bid: None }
    }

    /// Every game's current player chooses: forced plays and the rule agent's seats at once,
    /// the rest in one batched forward pass per network.
    pub fn decide(&mut self) {
        self.decide_bids();
        for slot in self.slots.iter_mut().filter(|s| !s.bidding()) {
            slot.state.legal_plays_into(&mut slot.plays);
            let seat = slot.seat();
            let by_rule = !slot.seat_learns(seat) && slot.opponent == Opponent::Rule;
            if self.cfg.model.prune && !by_rule {
                // Every network of the actor prunes as the learning one (one model config).
                prune_plays(slot.state.hand(seat), &mut slot.plays, self.cfg.model.prune_margin);
            }
            if let (k @ 1.., Some(wild), false) = (self.cfg.model.laizi_top, slot.state.wild(), by_rule) {
                top_plays(slot.state.hand(seat), wild, &mut slot.plays, k as usize);
            }
            slot.chosen = if slot.plays.len() == 1 {
                Some(0)
            } else if by_rule {
                Some(decide(&mut self.rule, &slot.state, &slot.plays).index)
            } else {
                None
            };
        }
        let mut keys: Vec<NetKey> = Vec::new();
        for slot in self.slots.iter().filter(|s| s.chosen.is_none() && !s.bidding()) {
            if !keys.contains(&slot.net_key()) {
                keys.push(slot.net_key());
            }
        }
        for key in keys {
            self.forward(key);
        }
    }

    /// Every game in its bidding: one batched pass of the bidding network; a bid at random
    /// with probability `game.bid_epsilon`.
    fn decide_bids(&mut self) {
        let Some(net) = self.bid_net.as_ref() else { return };
        let members: Vec<usize> = (0..self.slots.len()).filter(|&i| self.slots[i].bidding()).collect();
        if members.is_empty() {
            return;
        }
        let mut features = vec![0.0f32; members.len() * BID_DIM];
        for (k, &i) in members.iter().enumerate() {
            let slot = &self.slots[i];
            encode_bid_state(&slot.state, slot.seat(), &mut features[k * BID_DIM..(k + 1) * BID_DIM]);
        }
        let q = net.q_values(&features);
        for (k, &i) in members.iter().enumerate() {
            let slot = &mut self.slots[i];
            let legal = slot.state.legal_bids_vec();
            let bid = if self.rng.random::<f64>() < self.cfg.game.bid_epsilon {
                legal[self.rng.random_range(0..legal.len())]
            } else {
                BidNetwork::best(&q[k], &legal)
            };
            slot.bid = Some(bid);
            slot.bids.push((slot.seat(), features[k * BID_DIM..(k + 1) * BID_DIM].to_vec(), bid));
        }
    }

    /// One batched pass of network `key` over the games it decides; a learned decision keeps
    /// the features just encoded rather than encoding them again.
    fn forward(&mut self, key: NetKey) {
        let frames = match key {
            None => self.shared.frames.load(Ordering::Relaxed),
            Some(step) => self.frozen(step).frames,
        };
        let weight = if self.cfg.model.oracle { self.cfg.auxiliary.oracle_weight(frames) } else { 0.0 };
        self.encode_batch(key, weight > 0.0);
        let net = match key {
            None => &self.net,
            Some(step) => &self.frozen(step).net,
        };
        let b = &self.batch;
        let oracle = (weight > 0.0).then_some((b.oracle.as_slice(), weight));
        let values = net.values_guided(&b.states, &b.actions, &b.owner, oracle);
        let margin = net.score_margin().unwrap_or(0.0);
        let width = net.config().action_layout().dim();
        let mut offset = 0;
        for (k, &i) in self.batch.members.iter().enumerate() {
            let slot = &mut self.slots[i];
            let part = offset..offset + slot.plays.len();
            let (qs, points) = (&values.q[part.clone()], values.points.as_ref().map(|p| &p[part]));
            let pick = match key {
                None => explore(qs, points, margin, &self.cfg, &self.shared, &mut self.rng),
                Some(_) => greedy(qs, points, margin),
            };
            slot.chosen = Some(pick);
            if key.is_none() {
                let row = offset + pick;
                slot.decisions.push(Decision {
                    seat: slot.seat(),
                    state: self.batch.states[k * STATE_DIM..(k + 1) * STATE_DIM].to_vec(),
                    action: self.batch.actions[row * width..(row + 1) * width].to_vec(),
                    q: Some(qs[pick]),
                    points: points.map(|p| p[pick]),
                    hidden: self.batch.hidden[k],
                });
            }
            offset += slot.plays.len();
        }
    }

    /// The frozen net of pool step `step`, which the actor drew.
    fn frozen(&self, step: u64) -> &Frozen {
        self.frozen.iter().find(|f| f.step == step).expect("a drawn snapshot")
    }

    /// Encodes the undecided games that network `key` decides into `self.batch`, with the
    /// oracle's planes when it reads them.
    fn encode_batch(&mut self, key: NetKey, oracle: bool) {
        let b = &mut self.batch;
        b.states.clear();
        b.actions.clear();
        b.owner.clear();
        b.members.clear();
        b.hidden.clear();
        b.oracle.clear();
        for (i, slot) in self.slots.iter().enumerate() {
            if slot.chosen.is_some() || slot.bidding() || slot.net_key() != key {
                continue;
            }
            let (seat, k) = (slot.seat(), b.members.len());
            b.members.push(i);
            let at = b.states.len();
            b.states.resize(at + STATE_DIM, 0.0);
            encode_state(&slot.state, seat, &mut b.states[at..]);
            let hidden = HiddenHands::of(&slot.state, seat);
            b.hidden.push(hidden);
            if oracle {
                let at = b.oracle.len();
                b.oracle.resize(at + ORACLE_DIM, 0.0);
                hidden.write_oracle(&mut b.oracle[at..]);
            }
            let layout = self.cfg.model.action_layout();
            let context = layout.context(&slot.state.view(seat));
            for p in slot.plays.iter() {
                let at = b.actions.len();
                b.actions.resize(at + layout.dim(), 0.0);
                layout.encode(p, &context, &mut b.actions[at..]);
                b.owner.push(k as i64);
            }
        }
    }

    /// Applies every game's chosen play; returns the games that ended, labelled, and frees
    /// their slots. A learning seat's forced play (no choice) is recorded here.
    pub fn advance(&mut self) -> Vec<GameMsg> {
        let mut finished = Vec::new();
        let mut i = 0;
        while i < self.slots.len() {
            let slot = &mut self.slots[i];
            if let Some(bid) = slot.bid.take() {
                slot.state.apply_bid_unchecked(bid); // taken from the legal bids
                // Laizi: the wild rank is drawn once the bidding has made a landlord, seeded by
                // the game as its deal is.
                if slot.state.phase() == Phase::Wild {
                    let wild_seed = seeds::of(seeds::nth(self.cfg.run.seed, slot.index), Stream::WILD);
                    slot.state.draw_wild(&mut SmallRng::seed_from_u64(wild_seed));
                }
                if slot.state.is_terminal() {
                    finished.push(self.finish(i)); // every seat passed
                } else {
                    i += 1;
                }
                continue;
            }
            let play = slot.plays[slot.chosen.take().expect("decide() chose for every game")];
            let seat = slot.seat();
            if slot.seat_learns(seat) && slot.plays.len() == 1 {
                let mut state = vec![0.0; STATE_DIM];
                encode_state(&slot.state, seat, &mut state);
                let layout = self.cfg.model.action_layout();
                let mut action = vec![0.0; layout.dim()];
                layout.encode(&play, &layout.context(&slot.state.view(seat)), &mut action);
                let hidden = HiddenHands::of(&slot.state, seat);
                slot.decisions.push(Decision { seat, state, action, q: None, points: None, hidden });
            }
            slot.state.apply_play_unchecked(play); // taken from the legal plays
            if slot.state.is_terminal() {
                finished.push(self.finish(i));
                continue;
            }
            i += 1;
        }
        finished
    }

    /// Takes the finished game out of slot `i` and labels its decisions.
    fn finish(&mut self, i: usize) -> GameMsg {
        let done = self.slots.swap_remove(i);
        let landlord_won = done.state.winner() == done.state.landlord();
        let vs_rule = done.learning != Learning::AllSeats && done.opponent == Opponent::Rule;
        let frames = label(done.decisions, &done.state, &self.cfg.reward);
        let bids = done
            .bids
            .into_iter()
            .map(|(seat, features, bid)| BidFrame { features, bid, target: points(&done.state, seat) })
            .collect();
        GameMsg {
            bids,
            frames,
            learning: done.learning,
            vs_rule,
            landlord_won,
            version: self.version,
            index: done.index,
        }
    }
}

/// The learning seat's choice: ε-greedy (greedy as [`greedy`], with the score head's points
/// when the network has one) or softmax over Q.
fn explore(
    q: &[f32],
    points: Option<&[f32]>,
    margin: f32,
    cfg: &TrainConfig,
    shared: &Shared,
    rng: &mut SmallRng,
) -> usize {
    match cfg.actors.exploration {
        Exploration::Epsilon => {
            if rng.random::<f64>() < cfg.actors.epsilon_at(shared.frames.load(Ordering::Relaxed)) {
                rng.random_range(0..q.len())
            } else {
                greedy(q, points, margin)
            }
        }
        Exploration::Softmax => {
            let a = &cfg.actors;
            let progress =
                (shared.frames.load(Ordering::Relaxed) as f64 / a.temperature_anneal_frames.max(1) as f64).min(1.0);
            let t = a.temperature_start + (a.temperature_end - a.temperature_start) * progress;
            let max = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let weights: Vec<f64> = q.iter().map(|&x| (((x - max) as f64) / t).exp()).collect();
            let total: f64 = weights.iter().sum();
            let mut u = rng.random::<f64>() * total;
            for (i, w) in weights.iter().enumerate() {
                u -= w;
                if u <= 0.0 {
                    return i;
                }
            }
            q.len() - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::bidnet::BidNet;
    use crate::model::{ModelConfig, QNet};
    use crate::train::pool::PoolEntry;

    fn actor(rule_share: f64, bidding: bool) -> Actor {
        let mut cfg = TrainConfig {
            model: ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() },
            ..Default::default()
        };
        cfg.actors.games_in_flight = 5;
        cfg.pool.self_play_share = 0.0;
        cfg.pool.rule_share = rule_share;
        cfg.game.bidding = bidding;
        let net = QNet::cpu(&cfg.model, 4);
        let mut pool = Pool::new(2);
        pool.add(PoolEntry { step: 0, frames: 0, weights: Arc::new(net.export(0)) });
        let bid = bidding.then(|| BidNet::cpu(5).export(0));
        let shared = Arc::new(Shared::new(net.export(0), bid, pool, 0, 0));
        Actor::new(0, Arc::new(cfg), shared)
    }

    #[test]
    fn with_bidding_every_bid_is_labelled_with_its_sides_points() {
        let mut a = actor(0.0, true);
        a.sync_weights();
        let mut finished = Vec::new();
        while finished.len() < 60 {
            a.refill();
            a.decide();
            finished.extend(a.advance());
        }
        let (mut contested, mut all_passed) = (0, 0);
        for g in &finished {
            assert!(!g.bids.is_empty() && g.bids.len() <= 3);
            assert!(g.bids.iter().all(|b| b.bid <= 3 && b.features.len() == BID_DIM));
            if g.frames.is_empty() {
                all_passed += 1;
                assert!(g.bids.iter().all(|b| b.bid == 0 && b.target == 0.0), "all passed: zero points");
            } else {
                contested += 1;
                // Points are whole stakes: ±bid × 2^k, the landlord's doubled.
                assert!(g.bids.iter().all(|b| b.target != 0.0 && b.target.fract() == 0.0));
                // Three bids: three seats, the landlord's points against both farmers'.
                if g.bids.len() == 3 {
                    assert_eq!(g.bids.iter().map(|b| b.target).sum::<f32>(), 0.0);
                }
            }
        }
        assert!(contested > 30, "{contested} contested, {all_passed} all passed");
    }

    #[test]
    fn steps_refill_decide_and_advance_until_games_end_labelled() {
        for rule_share in [0.0, 1.0] {
            let mut a = actor(rule_share, false);
            Arc::get_mut(&mut a.cfg).expect("the test's own config").reward.lambda = 1.0; // labels ±1
            a.sync_weights();
            let mut finished = Vec::new();
            for _ in 0..400 {
                a.refill();
                assert_eq!(a.slots.len(), 5);
                a.decide();
                assert!(
                    a.slots.iter().all(|s| s.chosen.is_some_and(|c| c < s.plays.len())),
                    "every game chose a legal play"
                );
                finished.extend(a.advance());
            }
            assert!(finished.len() >= 5, "{} games ended", finished.len());
            for g in &finished {
                assert_ne!(g.learning, Learning::AllSeats);
                assert_eq!(g.vs_rule, rule_share == 1.0);
                assert!(!g.frames.is_empty() && g.frames.iter().all(|f| f.target == 1.0 || f.target == -1.0));
                // The learning side's frames carry its own result.
                let won = g.landlord_won == (g.learning == Learning::Landlord);
                assert!(g.frames.iter().all(|f| (f.target > 0.0) == won));
            }
            assert_eq!(a.shared.next_game.load(Ordering::Relaxed), finished.len() as u64 + 5);
        }
    }
}
