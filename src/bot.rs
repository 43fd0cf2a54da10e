//! `ddz bot`: a long-running player for other programs, one JSON request per line on stdin and
//! one JSON answer per line on stdout. A malformed or impossible request gets
//! `{"error": "…"}` and the process keeps serving.
//!
//! Native protocol: `{"seat":"landlord"|"landlord_down"|"landlord_up","hand":"…","bottom":"…",
//! "history":[["landlord","34567"],["landlord_down","pass"],…]}` → `{"play":"…"}`; and a bid
//! request `{"seat_index":0,"hand":"<17 cards>","bids":[…]}` (seat 0 bids first, `bids` the
//! bids before ours) → `{"bid":n}` (0 = pass). Any request (or batch) may come with an id,
//! `{"id":…,"request":…}`, and its answer then does too: `{"id":…,"answer":…}`.
//!
//! Botzone protocol (FightTheLandlord, keep-running): card ids 0–53 (id/4 = rank index 3..2,
//! 52 = black joker, 53 = red joker); a request `{"own":[…],"history":[[…],[…]],"publiccard":[…]}`
//! (the plays of the two players before us, `[]` for a pass) → `{"response":[ids]}` (`[]` to
//! pass) followed by the keep-running line. The first input may be the full
//! `{"requests":[…],"responses":[…]}` form; later ones are single requests. The bidding version
//! (FightTheLandlord2) starts with a bid request `{"own":[…17 ids],"bid":[…earlier bids]}` →
//! `{"response":n}`, and its first play request adds `landlord`, `pos` and `finalbid`.

use crate::agents::bot_client::{BidRequest, PlayRequest as NativeRequest};
use crate::agents::{Agent, BidTurn, Query, Turn, decide, legal_bid};
use crate::cards::{Card, CardSet, Counts, NUM_RANKS};
use crate::game::{Play, Role, Seat, State};
use crate::lines::{RequestError, brief, serve_json_lines};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::Deserialize;
use std::io::{BufRead, Write};

/// The line a Botzone keep-running bot prints after each answer, asking to be kept running.
pub const KEEP_RUNNING: &str = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<";

/// Why a request got `{"error": …}` instead of a play.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    /// Not a request of the protocol, or a field that does not parse.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// Well-formed, but no game is like that (cards that do not add up, plays out of turn…).
    #[error("{0}")]
    Impossible(String),
    /// The Botzone session's requests and our answers do not line up.
    #[error("{0}")]
    Session(String),
}

impl From<serde_json::Error> for BotError {
    fn from(e: serde_json::Error) -> BotError {
        BotError::Request(RequestError::Json(e))
    }
}

impl From<String> for BotError {
    fn from(reason: String) -> BotError {
        BotError::Impossible(reason)
    }
}

/// The seat of `role` in the states the bot builds: default rules, so the landlord sits in the
/// rules' landlord seat and the farmers follow it in turn order.
fn seat_of(role: Role) -> Seat {
    crate::game::GameConfig::default().landlord_seat.after(role.index() as u64)
}

/// Cards a role starts the play phase with.
fn start_size(role: Role) -> u32 {
    if role == Role::Landlord { 20 } else { 17 }
}

fn rank_max(a: Counts, b: Counts) -> Counts {
    (0..NUM_RANKS as u8).fold(Counts::EMPTY, |c, r| c.with(r, a.get(r).max(b.get(r))))
}

/// Builds a game state that `me` cannot tell from the real one: its hand, the bottom and the
/// public plays as given; the other players' hidden cards dealt at random (seeded).
pub fn state_from_view(
    me: Role,
    hand: Counts,
    bottom: Counts,
    history: &[(Role, Play)],
    seed: u64,
) -> Result<State, BotError> {
    let start = starting_hands(me, hand, bottom, history, seed)?;
    // Each seat is dealt its role's start; the landlord's 17 dealt cards are its 20 less the bottom.
    let dealt = crate::game::by_seat(|s| {
        let role = Role::of_seat(s, seat_of(Role::Landlord));
        if role == Role::Landlord { start[role.index()].minus(bottom) } else { start[role.index()] }
    });
    let mut state = State::new(Default::default());
    state.try_deal_counts(dealt, bottom).map_err(|e| e.to_string())?;
    for (k, (role, play)) in history.iter().enumerate() {
        let turn = state.current_player().ok_or_else(|| format!("play {}: the game is already over", k + 1))?;
        if turn != seat_of(*role) {
            let who = state.role(turn).map_or("nobody", Role::name);
            return Err(format!("play {} ({} by {}): out of turn, {who} was to play", k + 1, play, role.name()).into());
        }
        state.try_apply_play(*play).map_err(|e| format!("play {} ({} by {}): {e}", k + 1, play, role.name()))?;
    }
    match state.current_player() {
        Some(s) if s == seat_of(me) => Ok(state),
        Some(s) => {
            Err(format!("it is {}'s turn, not {}'s", state.role(s).map_or("nobody", Role::name), me.name()).into())
        }
        None => Err(BotError::Impossible("the game is over".into())),
    }
}

/// The cards each role started the play phase with: `me`'s as given, the others' what they
/// played (and the bottom, for the landlord) topped up at random from the unseen cards.
fn starting_hands(
    me: Role,
    hand: Counts,
    bottom: Counts,
    history: &[(Role, Play)],
    seed: u64,
) -> Result<[Counts; 3], String> {
    if bottom.len() != 3 {
        return Err(format!("bottom {bottom} has {} cards, expected 3", bottom.len()));
    }
    let played =
        |role: Role| history.iter().filter(|(r, _)| *r == role).fold(Counts::EMPTY, |c, (_, p)| c.plus(p.cards));
    let deck = Counts::full_deck();
    let mine = hand.plus(played(me));
    if !mine.is_subset_of(deck) {
        return Err(format!("hand {hand} plus the plays of {} is more than the deck holds", me.name()));
    }
    if mine.len() != start_size(me) {
        return Err(format!(
            "{} must have started with {} cards, but hand {hand} and its plays make {}",
            me.name(),
            start_size(me),
            mine.len()
        ));
    }
    if me == Role::Landlord && !bottom.is_subset_of(mine) {
        return Err(format!("the landlord's cards do not include the bottom {bottom}"));
    }
    // What each other role certainly started with: what it played (and the bottom, for the landlord).
    let mut start = [Counts::EMPTY; 3];
    start[me.index()] = mine;
    let others: Vec<Role> = Role::ALL.into_iter().filter(|r| *r != me).collect();
    for &q in &others {
        start[q.index()] = if q == Role::Landlord { rank_max(played(q), bottom) } else { played(q) };
    }
    let known = start.iter().fold(Counts::EMPTY, |c, s| c.plus(*s));
    if !known.is_subset_of(deck) {
        return Err("the hand, bottom and plays hold more cards of some rank than the deck".into());
    }
    let mut pool: Vec<u8> = deck.minus(known).iter().flat_map(|(r, n)| std::iter::repeat_n(r, n as usize)).collect();
    let mut rng = SmallRng::seed_from_u64(seed);
    for i in (1..pool.len()).rev() {
        pool.swap(i, rng.random_range(0..=i));
    }
    let mut next = pool.into_iter();
    for &q in &others {
        let have = start[q.index()].len();
        let need =
            start_size(q).checked_sub(have).ok_or_else(|| format!("{} played more cards than it held", q.name()))?;
        for r in next.by_ref().take(need as usize) {
            start[q.index()].add(r, 1);
        }
        if start[q.index()].len() != start_size(q) {
            return Err("the cards do not add up to a deal".into());
        }
    }
    Ok(start)
}

/// Answers one native request: `{"bid":n}` to a bid request (it has `seat_index`),
/// `{"play":"…"}` to a play request.
/// A line that is a JSON array of requests gets the array of their answers ([`answer_batch`]).
pub fn answer_native_json(agent: &mut dyn Agent, line: &str) -> Result<serde_json::Value, BotError> {
    if line.trim_start().starts_with('[') {
        return answer_batch(agent, line);
    }
    match parse_request(line)? {
        Request::Bid(req) => {
            bid_request(agent, req, crate::seeds::of_text(line)).map(|bid| serde_json::json!({ "bid": bid }))
        }
        Request::Play(req) => {
            play_request(agent, req, crate::seeds::of_text(line)).map(|play| serde_json::json!({ "play": play }))
        }
    }
}

/// A request with an id: `{"id":…,"request":…}` (a request or a batch). Its answer carries the
/// id back, so a client that gave up on a late answer can tell it from the next one.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tagged<'a> {
    id: serde_json::Value,
    #[serde(borrow)]
    request: &'a serde_json::value::RawValue,
}

/// One line of the native protocol: a request or a batch ([`answer_native_json`]), or either
/// with an id (`{"id":…,"request":…}` → `{"id":…,"answer":…}` or `{"id":…,"error":"…"}`).
/// The request inside is answered from its own text, so the id changes no answer.
fn answer_native_line(agent: &mut dyn Agent, line: &str) -> Result<serde_json::Value, BotError> {
    let tagged = match line.trim_start().starts_with('{') {
        true => serde_json::from_str::<Tagged>(line).ok(),
        false => None,
    };
    let Some(Tagged { id, request }) = tagged else {
        return answer_native_json(agent, line);
    };
    Ok(match answer_native_json(agent, request.get()) {
        Ok(answer) => serde_json::json!({ "id": id, "answer": answer }),
        Err(e) => serde_json::json!({ "id": id, "error": brief(&e.to_string()) }),
    })
}

enum Request {
    Bid(BidRequest),
    Play(NativeRequest),
}

/// A request of the native protocol, told by its keys (parsed once: the kind of request is a
/// key of the object, not text found in the line).
fn parse_request(text: &str) -> Result<Request, BotError> {
    request_of(serde_json::from_str(text)?)
}

/// The request a parsed JSON value is: a bid request has `seat_index`.
fn request_of(value: serde_json::Value) -> Result<Request, BotError> {
    if value.get("seat_index").is_some() {
        return Ok(Request::Bid(serde_json::from_value(value)?));
    }
    Ok(Request::Play(serde_json::from_value(value)?))
}

/// A batch: a JSON array of requests → the array of their answers in order, each the answer
/// the request alone would get (its seed is drawn from its own text, so the same request gets
/// the same answer either way); one that cannot be answered gets `{"error":"request k: …"}` in
/// its place. The play requests go to the agent together: a network answers them in one
/// forward pass.
fn answer_batch(agent: &mut dyn Agent, line: &str) -> Result<serde_json::Value, BotError> {
    let items: Vec<Box<serde_json::value::RawValue>> = serde_json::from_str(line)?;
    let mut answers: Vec<Result<serde_json::Value, BotError>> = Vec::with_capacity(items.len());
    let mut plays: Vec<(usize, State, Vec<Play>, u64)> = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let (text, seed) = (item.get(), crate::seeds::of_text(item.get()));
        answers.push(match parse_request(text) {
            Ok(Request::Bid(req)) => bid_request(agent, req, seed).map(|bid| serde_json::json!({ "bid": bid })),
            Ok(Request::Play(req)) => play_state(req, seed).map(|state| {
                let mut legal = Vec::new();
                state.legal_plays_into(&mut legal);
                plays.push((k, state, legal, seed));
                serde_json::Value::Null // answered below
            }),
            Err(e) => Err(e),
        });
    }
    let queries: Vec<Query> = plays
        .iter()
        .map(|(_, state, plays, seed)| {
            let turn = Turn::new(state, plays).ok_or_else(|| BotError::Impossible("the game is over".into()))?;
            Ok(Query { turn, seed: *seed })
        })
        .collect::<Result<_, BotError>>()?;
    let picks = agent.try_choose_many(&queries).map_err(|f| BotError::Impossible(f.to_string()))?;
    for ((k, _, legal, _), pick) in plays.iter().zip(picks) {
        let play = legal.get(pick).copied().unwrap_or_else(|| illegal_answer(agent, legal));
        answers[*k] = Ok(serde_json::json!({ "play": play.to_string() }));
    }
    let answer = |(k, a): (usize, Result<serde_json::Value, BotError>)| {
        a.unwrap_or_else(|e| serde_json::json!({ "error": format!("request {}: {}", k + 1, brief(&e.to_string())) }))
    };
    Ok(serde_json::Value::Array(answers.into_iter().enumerate().map(answer).collect()))
}

/// Answers a bid request with the agent's bid (0 = pass). The other hands are dealt at random
/// (seeded by the request); the agent sees only its own.
pub fn answer_bid(agent: &mut dyn Agent, line: &str) -> Result<u8, BotError> {
    let req: BidRequest = serde_json::from_str(line)?;
    bid_request(agent, req, crate::seeds::of_text(line))
}

fn bid_request(agent: &mut dyn Agent, req: BidRequest, seed: u64) -> Result<u8, BotError> {
    let hand = Counts::parse(&req.hand).map_err(|e| field("hand", e.to_string()))?;
    bid_for(agent, req.seat_index, hand, &req.bids, seed)
}

/// The agent's bid in seat `seat_index` of the bidding order with `hand`, after `bids`.
fn bid_for(agent: &mut dyn Agent, seat_index: u8, hand: Counts, bids: &[u8], seed: u64) -> Result<u8, BotError> {
    let state = bid_state(seat_index, hand, bids, seed)?;
    agent.reset(seed);
    let legal = state.legal_bids_vec();
    let turn = BidTurn::new(&state, &legal).ok_or_else(|| BotError::Impossible("no seat to bid".into()))?;
    Ok(legal_bid(agent.bid(turn), &legal).0)
}

/// The bidding position of seat `seat_index` with `hand` after `bids`, the other hands dealt
/// at random from `seed`.
fn bid_state(seat_index: u8, hand: Counts, bids: &[u8], seed: u64) -> Result<State, BotError> {
    // The state below bids from the rules' first bidder, so the place in the order names the seat.
    let Some(seat) =
        Seat::new(seat_index).map(|k| crate::game::GameConfig::default().first_bidder.after(k.index() as u64))
    else {
        return Err(field("seat_index", format!("{seat_index} is not 0, 1 or 2")));
    };
    if bids.len() != seat_index as usize {
        let n = bids.len();
        return Err(field("bids", format!("{n} bids so far, but seat {seat_index} bids after {seat_index} of them")));
    }
    if hand.len() != 17 {
        return Err(field("hand", format!("{} cards, not the 17 dealt", hand.len())));
    }
    let mut state = bidding_state(seat, hand, seed)?;
    for (k, &bid) in bids.iter().enumerate() {
        state.try_apply_bid(bid).map_err(|e| field("bids", format!("bid {}: {e}", k + 1)))?;
    }
    if state.legal_bids_vec().is_empty() {
        return Err(BotError::Impossible("the bidding is already over".into()));
    }
    Ok(state)
}

/// The position a native request (play or bid, told by its keys) describes, as its seat sees
/// it: the seat's cards and the public record as given, the hidden cards dealt at random from
/// `seed`. What `ddz serve`'s advice answers from.
pub fn native_position(value: serde_json::Value, seed: u64) -> Result<State, BotError> {
    match request_of(value)? {
        Request::Bid(req) => {
            let hand = Counts::parse(&req.hand).map_err(|e| field("hand", e.to_string()))?;
            bid_state(req.seat_index, hand, &req.bids, seed)
        }
        Request::Play(req) => play_state(req, seed),
    }
}

/// A request's seed: the same request, the same hidden cards and the same answer.
pub fn request_seed(text: &str) -> u64 {
    crate::seeds::of_text(text)
}

/// A state at the start of bidding where `seat` holds `hand` and the other cards are dealt at
/// random.
fn bidding_state(seat: Seat, hand: Counts, seed: u64) -> Result<State, BotError> {
    let rest = Counts::full_deck().minus(hand);
    if !hand.is_subset_of(Counts::full_deck()) {
        return Err(BotError::Impossible(format!("hand {hand} holds more of a rank than the deck")));
    }
    let mut pool: Vec<u8> = rest.iter().flat_map(|(r, n)| std::iter::repeat_n(r, n as usize)).collect();
    pool.shuffle(&mut SmallRng::seed_from_u64(seed));
    let mut hands = [Counts::EMPTY; 3];
    hands[seat] = hand;
    let mut cards = pool.into_iter();
    // In seat order, not turn order: the hidden hands a seed deals stay what they were.
    for s in Seat::ALL.into_iter().filter(|&s| s != seat) {
        for r in cards.by_ref().take(17) {
            hands[s].add(r, 1);
        }
    }
    let bottom = cards.fold(Counts::EMPTY, |c, r| c.with(r, c.get(r) + 1));
    let mut state = State::new(crate::game::GameConfig { bidding: true, ..Default::default() });
    state.try_deal_counts(hands, bottom).map_err(|e| BotError::Impossible(e.to_string()))?;
    Ok(state)
}

/// Answers one native request with the agent's play.
pub fn answer_native(agent: &mut dyn Agent, line: &str) -> Result<String, BotError> {
    let req: NativeRequest = serde_json::from_str(line)?;
    play_request(agent, req, crate::seeds::of_text(line))
}

/// The play for a parsed native request; `seed` draws the hidden cards and the agent's draws.
fn play_request(agent: &mut dyn Agent, req: NativeRequest, seed: u64) -> Result<String, BotError> {
    let state = play_state(req, seed)?;
    // Each answer is drawn from its request alone: the same request, the same answer.
    agent.reset(seed);
    Ok(choose(agent, &state).to_string())
}

/// The play position of a parsed native request, the hidden cards dealt from `seed`.
fn play_state(req: NativeRequest, seed: u64) -> Result<State, BotError> {
    let field = |field: String, e: &dyn std::fmt::Display| BotError::from(RequestError::field(field, e));
    let role = |name: &str, s: &str| {
        Role::parse(s).ok_or_else(|| {
            field(name.into(), &format!("unknown seat {s:?}: use landlord, landlord_down or landlord_up"))
        })
    };
    let me = role("seat", &req.seat)?;
    let hand = Counts::parse(&req.hand).map_err(|e| field("hand".into(), &e))?;
    let bottom = Counts::parse(&req.bottom).map_err(|e| field("bottom".into(), &e))?;
    let history = req
        .history
        .iter()
        .enumerate()
        .map(|(k, (s, p))| {
            let name = format!("history {}", k + 1);
            Ok((role(&name, s)?, Play::parse(p).map_err(|e| field(name, &e))?))
        })
        .collect::<Result<Vec<_>, BotError>>()?;
    state_from_view(me, hand, bottom, &history, seed)
}

/// The agent's play. An answer outside the legal plays is said on stderr, and the first legal
/// play (pass, when following) is made so that the game goes on.
fn choose(agent: &mut dyn Agent, state: &State) -> Play {
    let mut plays = Vec::new();
    state.legal_plays_into(&mut plays);
    let decision = decide(agent, state, &plays);
    if decision.illegal {
        return illegal_answer(agent, &plays);
    }
    decision.play
}

/// What an answer outside the legal plays becomes: the first legal play (pass, when
/// following), said on stderr, so that the game goes on.
fn illegal_answer(agent: &dyn Agent, plays: &[Play]) -> Play {
    eprintln!(
        "ddz bot: {} answered outside the {} legal plays; played {} instead",
        agent.name(),
        plays.len(),
        plays[0]
    );
    plays[0]
}

/// A Botzone game in progress: what the previous requests and our answers said.
#[derive(Clone, Default)]
pub struct BotzoneSession {
    own: Vec<u32>,
    public: Vec<u32>,
    /// Each turn's two previous plays, and our answers.
    turns: Vec<[Vec<u32>; 2]>,
    answers: Vec<Vec<u32>>,
    /// The bidding version (FightTheLandlord2): our role from `landlord` and `pos`.
    role: Option<Role>,
}

/// A request of either version. A bid request (the bidding version) has `own` and `bid` (the
/// bids before ours); a play request has `history`, and the first one `own` and `publiccard`
/// (and, in the bidding version, `landlord`, `pos` and `finalbid`).
#[derive(Deserialize)]
struct BotzoneRequest {
    #[serde(default)]
    own: Option<Vec<u32>>,
    #[serde(default)]
    history: Option<[Vec<u32>; 2]>,
    #[serde(default)]
    publiccard: Option<Vec<u32>>,
    #[serde(default)]
    bid: Option<Vec<u8>>,
    #[serde(default)]
    landlord: Option<u8>,
    #[serde(default)]
    pos: Option<u8>,
    #[serde(default)]
    finalbid: Option<u8>,
}

impl BotzoneRequest {
    fn is_bid(&self) -> bool {
        self.bid.is_some() && self.history.is_none()
    }
}

fn ids_to_counts(ids: &[u32]) -> Result<Counts, String> {
    // Reasons only: the callers say which field.
    let set: CardSet = ids.iter().map(|&i| Card::from_id(i).map_err(|e| e.to_string())).collect::<Result<_, _>>()?;
    if set.len() as usize != ids.len() {
        return Err(format!("card ids {ids:?} repeat a card"));
    }
    Ok(set.counts())
}

impl BotzoneSession {
    /// Our role: as the bidding version says, or from the first request (the landlord opens
    /// with no history; landlord_down sees only the landlord's play; landlord_up sees two).
    fn role(&self) -> Role {
        if let Some(role) = self.role {
            return role;
        }
        match &self.turns[0] {
            [a, b] if a.is_empty() && b.is_empty() => Role::Landlord,
            [a, _] if a.is_empty() => Role::LandlordDown,
            _ => Role::LandlordUp,
        }
    }

    /// Takes one input line (full or single request); returns the answer's card ids. A
    /// rejected request leaves the session as it was.
    pub fn answer(&mut self, agent: &mut dyn Agent, line: &str) -> Result<Vec<u32>, BotError> {
        let before = self.clone();
        let answer = self.answer_request(agent, line);
        if answer.is_err() {
            *self = before;
        }
        answer
    }

    /// Answers a line of either version: `{"response": bid}` to a bid request, `{"response": [ids]}`
    /// to a play request.
    pub fn respond(&mut self, agent: &mut dyn Agent, line: &str) -> Result<serde_json::Value, BotError> {
        if let Some(bid) = botzone_bid_request(line)? {
            let (own, bids) = bid;
            return answer_botzone_bid(agent, &own, &bids, crate::seeds::of_text(line)).map(serde_json::Value::from);
        }
        self.answer(agent, line).map(serde_json::Value::from)
    }

    fn answer_request(&mut self, agent: &mut dyn Agent, line: &str) -> Result<Vec<u32>, BotError> {
        self.take_request(line)?;
        if self.answers.len() + 1 != self.turns.len() {
            return Err(BotError::Session(format!(
                "{} requests but {} responses: one answer is owed per earlier request",
                self.turns.len(),
                self.answers.len()
            )));
        }
        let me = self.role();
        self.check_ids(me)?;
        let mut own = ids_to_counts(&self.own).map_err(|e| field("own", e))?;
        let bottom = ids_to_counts(&self.public).map_err(|e| field("publiccard", e))?;
        if me == Role::Landlord && own.len() == 17 {
            own = own.plus(bottom); // some versions send the landlord's 17 without the bottom
        }
        let history = self.public_history(me)?;
        let played_by_me = history.iter().filter(|(r, _)| *r == me).fold(Counts::EMPTY, |c, (_, p)| c.plus(p.cards));
        if !played_by_me.is_subset_of(own) {
            return Err(BotError::Impossible("our answers hold cards we never had".into()));
        }
        let state = state_from_view(me, own.minus(played_by_me), bottom, &history, crate::seeds::of_text(line))?;
        agent.reset(crate::seeds::of_text(line)); // the same request, the same answer
        let ids = self.card_ids(me, choose(agent, &state));
        self.answers.push(ids.clone());
        Ok(ids)
    }

    /// Records a request: the full form starts the session anew, a single one adds a turn.
    fn take_request(&mut self, line: &str) -> Result<(), BotError> {
        let bad = |what: &str, e: serde_json::Error| BotError::from(RequestError::Malformed(format!("{what}{e}")));
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| bad("", e))?;
        if let Some(requests) = value.get("requests") {
            let requests: Vec<BotzoneRequest> =
                serde_json::from_value(requests.clone()).map_err(|e| bad("requests: ", e))?;
            let responses: Vec<serde_json::Value> = match value.get("responses") {
                Some(r) => serde_json::from_value(r.clone()).map_err(|e| bad("responses: ", e))?,
                None => Vec::new(),
            };
            // The bidding version's bid request and its answer come first; the play turns follow.
            let skip = requests.iter().take_while(|r| r.is_bid()).count();
            *self = BotzoneSession::default();
            for req in requests.into_iter().skip(skip) {
                self.take_play(req)?;
            }
            self.answers = responses
                .into_iter()
                .skip(skip)
                .map(|r| serde_json::from_value(r).map_err(|e| bad("responses: ", e)))
                .collect::<Result<_, _>>()?;
        } else {
            let req: BotzoneRequest = serde_json::from_value(value).map_err(|e| bad("request: ", e))?;
            self.take_play(req)?;
        }
        Ok(())
    }

    /// A play request: the first one sets our cards (and role, in the bidding version).
    fn take_play(&mut self, req: BotzoneRequest) -> Result<(), BotError> {
        let history = req
            .history
            .ok_or_else(|| BotError::from(RequestError::Malformed("request: missing field `history`".into())))?;
        if self.turns.is_empty() {
            let missing = |f: &str| {
                BotError::from(RequestError::Malformed(format!("request: the first play request needs `{f}`")))
            };
            self.own = req.own.ok_or_else(|| missing("own"))?;
            self.public = req.publiccard.ok_or_else(|| missing("publiccard"))?;
            self.role = match (req.landlord.map(Seat::try_from), req.pos.map(Seat::try_from)) {
                (Some(Ok(l)), Some(Ok(p))) => Some(Role::of_seat(p, l)),
                (None, None) => None,
                _ => return Err(field("landlord", "landlord and pos must both be given, each 0, 1 or 2".into())),
            };
            if let Some(b) = req.finalbid.filter(|b| !(1..=3).contains(b)) {
                return Err(field("finalbid", format!("{b} is not 1, 2 or 3")));
            }
        }
        self.turns.push(history);
        Ok(())
    }

    /// Physical cards are in one place only: a farmer holds no bottom card, and no card of
    /// ours (nor, for the landlord, of the bottom) is played by another player, nor any card
    /// twice. Counts alone cannot see these: they are the ids' facts.
    fn check_ids(&self, me: Role) -> Result<(), BotError> {
        let ours: std::collections::HashSet<u32> = match me {
            Role::Landlord => self.own.iter().chain(&self.public).copied().collect(),
            _ => self.own.iter().copied().collect(),
        };
        if me != Role::Landlord
            && let Some(id) = self.public.iter().find(|id| ours.contains(id))
        {
            return Err(BotError::Impossible(format!(
                "card id {id} is in both own and publiccard: the bottom goes to the landlord, not to a farmer"
            )));
        }
        if me == Role::Landlord {
            // The landlord's own is its 20 cards, the bottom among them, or the 17 dealt
            // without it (some versions send those); anything else splits the bottom.
            let whole = self.own.len() == 20;
            if let Some(id) = self.public.iter().find(|id| self.own.contains(id) != whole) {
                return Err(BotError::Impossible(match whole {
                    true => {
                        format!("card id {id} of publiccard is not in own: the landlord's 20 cards hold the bottom")
                    }
                    false => format!("card id {id} is in both own (the 17 dealt) and publiccard"),
                }));
            }
        }
        let bottom: std::collections::HashSet<u32> = self.public.iter().copied().collect();
        let before = [me.next(), me.prev()];
        let mut played: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
        for (t, pair) in self.turns.iter().enumerate() {
            for (k, ids) in pair.iter().enumerate() {
                let by = before[k % 2];
                if let Some(id) = ids.iter().find(|id| by != Role::Landlord && bottom.contains(id)) {
                    return Err(BotError::Impossible(format!(
                        "turn {}: card id {id} is a bottom card (publiccard), played by {} (a farmer)",
                        t + 1,
                        by.name()
                    )));
                }
            }
            for &id in pair.iter().flatten() {
                if ours.contains(&id) {
                    return Err(BotError::Impossible(format!(
                        "turn {}: card id {id} is played by another player but is ours (own{})",
                        t + 1,
                        if me == Role::Landlord { " or publiccard" } else { "" }
                    )));
                }
                if let Some(first) = played.insert(id, t + 1) {
                    return Err(BotError::Impossible(format!(
                        "turn {}: card id {id} was already played in turn {first}",
                        t + 1
                    )));
                }
            }
        }
        Ok(())
    }

    /// The public record in play order, our answers included; the plays before the landlord's
    /// first lead are skipped.
    fn public_history(&self, me: Role) -> Result<Vec<(Role, Play)>, BotError> {
        let before = [me.next(), me.prev()];
        let play_of = |ids: &[u32], what: String| -> Result<Play, BotError> {
            let cards = ids_to_counts(ids).map_err(|e| BotError::from(RequestError::field(what.clone(), e)))?;
            crate::game::classify(cards).ok_or_else(|| BotError::Impossible(format!("{what}: {cards} is not a play")))
        };
        let mut history: Vec<(Role, Play)> = Vec::new();
        for (t, pair) in self.turns.iter().enumerate() {
            for (k, ids) in pair.iter().enumerate() {
                let role = before[k];
                if t == 0 && role.index() > me.index() {
                    continue; // that player has not played yet on our first turn
                }
                history.push((role, play_of(ids, format!("turn {}", t + 1))?));
            }
            if let Some(answer) = self.answers.get(t) {
                history.push((me, play_of(answer, format!("our answer {}", t + 1))?));
            }
        }
        Ok(history)
    }

    /// Physical cards for `play`: any of our remaining ids of each rank.
    fn card_ids(&self, me: Role, play: Play) -> Vec<u32> {
        let bottom: &[u32] = if me == Role::Landlord && self.own.len() == 17 { &self.public } else { &[] };
        let mut remaining: Vec<u32> = self.own.iter().chain(bottom).copied().collect();
        for answer in &self.answers {
            remaining.retain(|id| !answer.contains(id));
        }
        let mut ids = Vec::new();
        for (r, n) in play.cards.iter() {
            let of_rank = remaining.iter().copied().filter(|&id| Card::from_id(id).map(|c| c.rank()) == Ok(r));
            ids.extend(of_rank.take(n as usize));
        }
        ids
    }
}

/// Our 17 card ids and the bids before ours.
type BidRequestIds = (Vec<u32>, Vec<u8>);

/// A Botzone bid request's cards and earlier bids, if the line is one (a single request with `bid`
/// and no `history`, or a full form whose last request is).
fn botzone_bid_request(line: &str) -> Result<Option<BidRequestIds>, BotError> {
    let value: serde_json::Value = serde_json::from_str(line)?;
    let last = match value.get("requests") {
        Some(requests) => requests.as_array().and_then(|r| r.last()).cloned().unwrap_or_default(),
        None => value,
    };
    match serde_json::from_value::<BotzoneRequest>(last) {
        Ok(req) if req.is_bid() => {
            let own =
                req.own.ok_or_else(|| BotError::from(RequestError::Malformed("a bid request needs `own`".into())))?;
            Ok(Some((own, req.bid.unwrap_or_default())))
        }
        _ => Ok(None),
    }
}

/// The agent's bid on its 17 cards after the `bids` before it.
fn answer_botzone_bid(agent: &mut dyn Agent, own: &[u32], bids: &[u8], seed: u64) -> Result<u8, BotError> {
    let hand = ids_to_counts(own).map_err(|e| field("own", e))?;
    if bids.len() > 2 {
        return Err(field("bid", format!("{} bids before ours: at most 2", bids.len())));
    }
    bid_for(agent, bids.len() as u8, hand, bids, seed)
}

fn field(name: &str, reason: String) -> BotError {
    RequestError::field(name, reason).into()
}

/// Which request format `ddz bot` serves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// ddz's own JSON requests (seat, hand, bottom, history; or a bid request).
    Native,
    /// Botzone's FightTheLandlord (and bidding FightTheLandlord2) requests, card ids 0 to 53,
    /// in keep-running mode.
    Botzone,
}

/// Serves requests until end of input; a bad line (bad bytes and empty lines included) gets
/// `{"error":"line N: …"}` and the next line is served. Returns how many lines were errors.
pub fn serve(
    agent: &mut dyn Agent,
    protocol: Protocol,
    input: impl BufRead,
    output: impl Write,
) -> std::io::Result<usize> {
    match protocol {
        Protocol::Native => serve_json_lines(input, output, None, |line| answer_native_line(agent, line)),
        Protocol::Botzone => {
            let mut session = BotzoneSession::default();
            serve_json_lines(input, output, Some(KEEP_RUNNING), |line| {
                session.respond(agent, line).map(|answer| serde_json::json!({ "response": answer }))
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::RuleAgent;

    #[test]
    fn a_request_with_an_id_gets_its_answer_under_that_id_and_the_same_answer() {
        let mut agent = RuleAgent::new();
        let play = r#"{"seat":"landlord","hand":"3445566778899TTJJQBR","bottom":"3BR","history":[]}"#;
        let bare = answer_native_line(&mut agent, play).unwrap();
        let tagged = answer_native_line(&mut agent, &format!(r#"{{"id":17,"request":{play}}}"#)).unwrap();
        assert_eq!(tagged, serde_json::json!({ "id": 17, "answer": bare }));
        let batch = answer_native_line(&mut agent, &format!(r#"{{"id":"b","request":[{play}]}}"#)).unwrap();
        assert_eq!(batch, serde_json::json!({ "id": "b", "answer": [bare] }));
        let bad = answer_native_line(
            &mut agent,
            r#"{"id":[1],"request":{"seat":"king","hand":"3","bottom":"3BR","history":[]}}"#,
        )
        .unwrap();
        assert_eq!(bad["id"], serde_json::json!([1]));
        assert!(bad["error"].as_str().unwrap().contains("king"), "{bad}");
    }

    #[test]
    fn bid_requests_get_bids_and_bad_ones_say_why() {
        let mut agent = RuleAgent::new();
        let strong = r#"{"seat_index":1,"hand":"BR22223456789TJQK","bids":[1]}"#;
        assert_eq!(answer_native_json(&mut agent, strong).unwrap(), serde_json::json!({"bid": 3}));
        let weak = r#"{"seat_index":0,"hand":"33445566899JJQKKA","bids":[]}"#;
        assert_eq!(answer_native_json(&mut agent, weak).unwrap(), serde_json::json!({"bid": 0}));
        let early = r#"{"seat_index":2,"hand":"33445566899JJQKKA","bids":[1]}"#;
        assert!(answer_native_json(&mut agent, early).unwrap_err().to_string().contains("bids:"));
        let over = r#"{"seat_index":1,"hand":"33445566899JJQKKA","bids":[3]}"#;
        let e = answer_native_json(&mut agent, over).unwrap_err().to_string();
        assert!(e.contains("already over") || e.contains("phase Play"), "{e}");
    }

    #[test]
    fn the_botzone_bidding_version_bids_then_plays_its_role() {
        let mut agent = RuleAgent::new();
        let deal = &crate::game::generate_deals(1, 6)[0];
        let ids = |set: CardSet| set.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
        let strong: Vec<u32> = CardSet::parse("BR22223456789TJQK").unwrap().iter().map(|c| c.id() as u32).collect();
        let mut session = BotzoneSession::default();
        let bid = serde_json::json!({"own": strong, "bid": [1]}).to_string();
        assert_eq!(session.respond(&mut agent, &bid).unwrap(), serde_json::json!(3));
        // We sit at pos 0 and seat 1 is the landlord: we play right before it (landlord_up), after
        // the landlord and landlord_down. The landlord led its lowest card; landlord_down passed.
        let landlord = deal.hands[1].union(deal.bottom);
        let lowest = landlord.iter().next().unwrap();
        let first = serde_json::json!({
            "own": ids(deal.hands[0]), "publiccard": ids(deal.bottom), "landlord": 1, "pos": 0, "finalbid": 2,
            "history": [[lowest.id()], []]
        });
        let full = serde_json::json!({"requests": [{"own": ids(deal.hands[0]), "bid": []}, first], "responses": [2]});
        let mut session = BotzoneSession::default();
        let answer = session.respond(&mut agent, &full.to_string()).unwrap();
        let played: Vec<u32> = serde_json::from_value(answer).unwrap();
        assert!(played.iter().all(|id| ids(deal.hands[0]).contains(id)), "{played:?}");
        assert_eq!(session.role(), Role::LandlordUp);
        let bad = serde_json::json!({"requests": [{"own": ids(deal.hands[0]), "bid": []},
            {"own": ids(deal.hands[0]), "publiccard": ids(deal.bottom), "landlord": 1, "history": [[], []]}],
            "responses": [0]});
        assert!(
            BotzoneSession::default().respond(&mut agent, &bad.to_string()).unwrap_err().to_string().contains("pos")
        );
    }

    #[test]
    fn physically_impossible_card_ids_are_errors_naming_them() {
        let mut agent = RuleAgent::new();
        let deal = &crate::game::generate_deals(1, 4)[0];
        let ids = |set: CardSet| set.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
        let (farmer, bottom, landlord) = (ids(deal.hands[1]), ids(deal.bottom), ids(deal.hands[0]));
        let mut ask = |own: &[u32], history: [&[u32]; 2]| {
            let line = serde_json::json!({"own": own, "publiccard": bottom, "history": history}).to_string();
            BotzoneSession::default().answer(&mut agent, &line).map_err(|e| e.to_string())
        };
        // landlord_down, after the landlord's lead of one of its cards: fine.
        let lead = [landlord[0]];
        ask(&farmer, [&[], &lead]).unwrap();
        // The landlord "led" a card that is in our own hand.
        let e = ask(&farmer, [&[], &[farmer[3]]]).unwrap_err();
        assert!(e.contains(&format!("card id {} is played by another player but is ours", farmer[3])), "{e}");
        // A farmer whose own hand holds a bottom card.
        let mut with_bottom = farmer.clone();
        with_bottom[0] = bottom[0];
        let e = ask(&with_bottom, [&[], &lead]).unwrap_err();
        assert!(e.contains(&format!("card id {} is in both own and publiccard", bottom[0])), "{e}");
        // landlord_up: both others played, one of them a card the other already played.
        let up = ids(deal.hands[2]);
        let e = ask(&up, [&lead, &lead]).unwrap_err();
        assert!(e.contains(&format!("card id {} was already played", lead[0])), "{e}");
        // landlord_up: our teammate (landlord_down) played a bottom card.
        let e = ask(&up, [&lead, &[bottom[1]]]).unwrap_err();
        assert!(e.contains(&format!("card id {} is a bottom card (publiccard), played by landlord_down", bottom[1])));
        // The landlord: 20 ids that leave out a bottom card, 17 that hold one.
        let mut twenty = landlord.clone();
        twenty.extend(&farmer[..3]);
        let e = ask(&twenty, [&[], &[]]).unwrap_err();
        assert!(e.contains(&format!("card id {} of publiccard is not in own", bottom[0])), "{e}");
        let mut seventeen = landlord.clone();
        seventeen[5] = bottom[2];
        let e = ask(&seventeen, [&[], &[]]).unwrap_err();
        assert!(e.contains(&format!("card id {} is in both own (the 17 dealt) and publiccard", bottom[2])), "{e}");
        // Both forms of the landlord's hand are fine.
        ask(&landlord, [&[], &[]]).unwrap();
        ask(&ids(deal.hands[0].union(deal.bottom)), [&[], &[]]).unwrap();
    }

    #[test]
    fn a_rejected_botzone_request_leaves_the_session_as_it_was() {
        let mut agent = RuleAgent::new();
        let deal = &crate::game::generate_deals(1, 3)[0];
        let ids = |set: CardSet| set.iter().map(|c| c.id() as u32).collect::<Vec<u32>>();
        let own = ids(deal.hands[0].union(deal.bottom));
        let mut twice = own.clone();
        twice[1] = twice[0]; // a card held twice: rejected after the request was read
        let request = |own: &[u32]| {
            serde_json::json!({"own": own, "history": [[], []], "publiccard": ids(deal.bottom)}).to_string()
        };
        let mut session = BotzoneSession::default();
        assert!(session.answer(&mut agent, &request(&twice)).unwrap_err().to_string().contains("repeat"));
        let ids = session.answer(&mut agent, &request(&own)).expect("the next valid request is answered");
        assert!(!ids.is_empty(), "the landlord leads");
        let mut out = Vec::new();
        let input = [&b"\xff\n"[..], request(&own).as_bytes(), b"\n"].concat();
        serve(&mut agent, Protocol::Botzone, &input[..], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("line 1: not UTF-8") && lines[1] == KEEP_RUNNING, "{text}");
        assert!(lines[2].starts_with("{\"response\":["), "bad bytes are one bad line: {text}");
    }

    #[test]
    fn native_requests_and_errors() {
        let mut agent = RuleAgent::new();
        let lead = r#"{"seat":"landlord","hand":"33456789TJQKA22BRR","bottom":"3BR","history":[]}"#;
        assert!(answer_native(&mut agent, lead).unwrap_err().to_string().contains("hand"), "two red jokers");
        let lead = r#"{"seat":"landlord","hand":"33344567789TJQKA22BR","bottom":"3BR","history":[]}"#;
        let play = answer_native(&mut agent, lead).unwrap();
        assert!(Play::parse(&play).is_ok());
        let follow =
            r#"{"seat":"landlord_down","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord","3"]]}"#;
        let play = answer_native(&mut agent, follow).unwrap();
        assert!(play == "pass" || Play::parse(&play).unwrap().beats(&Play::parse("3").unwrap()));
        let out_of_turn =
            r#"{"seat":"landlord_down","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord_up","3"]]}"#;
        assert!(answer_native(&mut agent, out_of_turn).unwrap_err().to_string().contains("out of turn"));
        let illegal = r#"{"seat":"landlord_up","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord","3"],["landlord_down","33"]]}"#;
        assert!(answer_native(&mut agent, illegal).is_err());
    }

    #[test]
    fn the_same_request_gets_the_same_answer_from_an_agent_that_draws() {
        // A random agent draws every answer: its draws come from the request alone, never from
        // what it answered before (a bot must be reproducible answer by answer).
        let mut agent = crate::agents::RandomAgent::new(1);
        let lead = r#"{"seat":"landlord","hand":"33344567789TJQKA22BR","bottom":"3BR","history":[]}"#;
        let first: Vec<String> = (0..5).map(|_| answer_native(&mut agent, lead).unwrap()).collect();
        assert!(first.iter().all(|p| p == &first[0]), "{first:?}");
        let other = r#"{"seat":"landlord","hand":"33344567789TJQKA22BR","bottom":"3BR","history":[] }"#;
        let answers: std::collections::HashSet<String> = (0..20)
            .map(|k| answer_native(&mut agent, &other.replace(" }", &format!("{} }}", " ".repeat(k)))).unwrap())
            .collect();
        assert!(answers.len() > 1, "different requests draw differently: {answers:?}");
        let bid = r#"{"seat_index":0,"hand":"33344567789TJQKA2","bids":[]}"#;
        let bids: Vec<u8> = (0..5).map(|_| answer_bid(&mut agent, bid).unwrap()).collect();
        assert!(bids.iter().all(|b| *b == bids[0]), "{bids:?}");
    }

    #[test]
    fn a_batch_line_gets_each_request_the_answer_it_gets_alone() {
        // A drawing agent: each answer's draws come from its request's own text, in a batch too.
        let mut agent = crate::agents::RandomAgent::new(1);
        let lead = r#"{"seat":"landlord","hand":"33344567789TJQKA22BR","bottom":"3BR","history":[]}"#;
        let follow =
            r#"{"seat":"landlord_down","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord","3"]]}"#;
        let bid = r#"{"seat_index":0,"hand":"33344567789TJQKA2","bids":[]}"#;
        let bad = r#"{"seat":"nobody","hand":"3","bottom":"3BR","history":[]}"#;
        let line = format!("[{lead}, {bid},{bad} , {follow}]");
        let answers = answer_native_json(&mut agent, &line).unwrap();
        let answers = answers.as_array().unwrap();
        assert_eq!(answers.len(), 4);
        assert_eq!(answers[0], answer_native_json(&mut agent, lead).unwrap());
        assert_eq!(answers[1], answer_native_json(&mut agent, bid).unwrap());
        let e = answers[2]["error"].as_str().unwrap();
        assert!(e.starts_with("request 3: ") && e.contains("unknown seat"), "{e}");
        assert_eq!(answers[3], answer_native_json(&mut agent, follow).unwrap());
        assert_eq!(answer_native_json(&mut agent, " []").unwrap(), serde_json::json!([]));
        assert!(answer_native_json(&mut agent, "[1,").unwrap_err().to_string().starts_with("bad request"));
        let e = answer_native_json(&mut agent, "[1]").unwrap();
        assert!(e[0]["error"].as_str().unwrap().starts_with("request 1: bad request"), "{e}");
    }

    #[test]
    fn a_request_is_told_by_its_keys_not_by_text_inside_it() {
        let mut agent = RuleAgent::new();
        // A play request whose seat names the bid request's key: a play request still.
        let play = r#"{"seat":"seat_index","hand":"3","bottom":"3BR","history":[]}"#;
        let e = answer_native_json(&mut agent, play).unwrap_err().to_string();
        assert!(e.contains("unknown seat"), "{e}");
        let bid = r#"{"hand":"33344567789TJQKA2","bids":[],"seat_index":0}"#;
        assert!(answer_native_json(&mut agent, bid).unwrap().get("bid").is_some());
    }
}
