//! `ddz bot`: a long-running player for other programs, one JSON request per line on stdin and
//! one JSON answer per line on stdout. A malformed or impossible request gets
//! `{"error": "…"}` and the process keeps serving.
//!
//! Native protocol: `{"seat":"landlord"|"landlord_down"|"landlord_up","hand":"…","bottom":"…",
//! "history":[["landlord","34567"],["landlord_down","pass"],…]}` (and `"bids":[…]` after
//! bidding) → `{"play":"…"}`; and a bid request `{"seat_index":0,"hand":"<17 cards>",
//! "bids":[…]}` (seat 0 bids first, `bids` the bids before ours) → `{"bid":n}` (0 = pass). A
//! request is a seat's [`View`] in its serde form: it is read as one, checked through the rules,
//! and the agent decides on it alone. Any request (or batch) may come with an id,
//! `{"id":…,"request":…}`, and its answer then does too: `{"id":…,"answer":…}`.
//! The Botzone form converts to and from the view in one module, `bot/botzone.rs`
//! ([`BotzoneSession`]).
//!
//! Botzone protocol (FightTheLandlord, keep-running): card ids 0–53 (id/4 = rank index 3..2,
//! 52 = black joker, 53 = red joker); a request `{"own":[…],"history":[[…],[…]],"publiccard":[…]}`
//! (the plays of the two players before us, `[]` for a pass) → `{"response":[ids]}` (`[]` to
//! pass) followed by the keep-running line. The first input may be the full
//! `{"requests":[…],"responses":[…]}` form; later ones are single requests. The bidding version
//! (FightTheLandlord2) starts with a bid request `{"own":[…17 ids],"bid":[…earlier bids]}` →
//! `{"response":n}`, and its first play request adds `landlord`, `pos` and `finalbid`.
//!
//! Laizi (native protocol only): a play request adds `"wild":"7"`, and a play that takes wild
//! cards, in the history and in the answer, is written as its reading, `/`, and the ranks its
//! wild cards stand for (`{"play":"5555/5"}`: a soft bomb of 5s, one 5 a wild card); plays
//! without wild cards are written as in the standard game.

mod botzone;

pub use botzone::BotzoneSession;

use crate::agents::{Agent, BidTurn, Query, Turn, ask, ask_many, legal_bid};
use crate::game::laizi::ids::play_notation;
use crate::game::{Play, Role, View, ViewError};
use crate::lines::{RequestError, brief, serve_json_lines};
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

impl From<ViewError> for BotError {
    fn from(e: ViewError) -> BotError {
        match e {
            ViewError::Json(reason) => BotError::Request(RequestError::Malformed(reason)),
            ViewError::Field { field, reason } => BotError::Request(RequestError::Field { field, reason }),
            ViewError::Impossible(reason) => BotError::Impossible(reason),
        }
    }
}

/// A native request: the seat's view, read and checked through the rules.
pub fn read_request(text: &str) -> Result<View<'static>, BotError> {
    Ok(View::from_json(text)?)
}

/// Answers one native request: `{"bid":n}` to a bid request (it has `seat_index`),
/// `{"play":"…"}` to a play request.
/// A line that is a JSON array of requests gets the array of their answers ([`answer_batch`]).
pub fn answer_native_json(agent: &mut dyn Agent, line: &str) -> Result<serde_json::Value, BotError> {
    if line.trim_start().starts_with('[') {
        return answer_batch(agent, line);
    }
    answer_view(agent, &read_request(line)?, request_seed(line))
}

/// The answer to a request's view: a bid while bidding, else a play.
fn answer_view(agent: &mut dyn Agent, view: &View<'_>, seed: u64) -> Result<serde_json::Value, BotError> {
    agent.reset(seed); // each answer is drawn from its request alone: the same request, the same answer
    if view.landlord().is_none() {
        return bid_for(agent, view).map(|bid| serde_json::json!({ "bid": bid }));
    }
    play_for(agent, view).map(|play| serde_json::json!({ "play": play_notation(&play) }))
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

/// A batch: a JSON array of requests → the array of their answers in order, each the answer
/// the request alone would get (its seed is drawn from its own text, so the same request gets
/// the same answer either way); one that cannot be answered gets `{"error":"request k: …"}` in
/// its place. The play requests go to the agent together: a network answers them in one
/// forward pass.
fn answer_batch(agent: &mut dyn Agent, line: &str) -> Result<serde_json::Value, BotError> {
    let items: Vec<Box<serde_json::value::RawValue>> = serde_json::from_str(line)?;
    crate::limits::check("protocol.batch_items", items.len() as u64)
        .map_err(|e| BotError::Impossible(e.to_string()))?;
    let mut answers: Vec<Result<serde_json::Value, BotError>> = Vec::with_capacity(items.len());
    let mut plays: Vec<(usize, View<'static>, Vec<Play>, u64)> = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let seed = request_seed(item.get());
        answers.push(match read_request(item.get()) {
            Ok(view) if view.landlord().is_none() => answer_view(agent, &view, seed),
            Ok(view) => decision_plays(&view).map(|legal| {
                plays.push((k, view, legal, seed));
                serde_json::Value::Null // answered below
            }),
            Err(e) => Err(e),
        });
    }
    let mut asked: Vec<(usize, &[Play], Query)> = Vec::with_capacity(plays.len());
    for (k, view, legal, seed) in &plays {
        match Turn::new(view, legal) {
            Some(turn) => asked.push((*k, legal.as_slice(), Query { turn, seed: *seed })),
            None => answers[*k] = Err(BotError::Impossible("the game is over".into())),
        }
    }
    let queries: Vec<Query> = asked.iter().map(|(_, _, q)| *q).collect();
    // Each request answered or refused on its own: one of other rules costs only its answer.
    for ((k, legal, _), pick) in asked.iter().zip(ask_many(agent, &queries)) {
        answers[*k] = pick.map_err(|f| BotError::Impossible(f.to_string())).map(|pick| {
            let play = legal.get(pick).copied().unwrap_or_else(|| illegal_answer(agent, legal));
            serde_json::json!({ "play": play_notation(&play) })
        });
    }
    let answer = |(k, a): (usize, Result<serde_json::Value, BotError>)| {
        a.unwrap_or_else(|e| serde_json::json!({ "error": format!("request {}: {}", k + 1, brief(&e.to_string())) }))
    };
    Ok(serde_json::Value::Array(answers.into_iter().enumerate().map(answer).collect()))
}

/// Answers a bid request with the agent's bid (0 = pass); the agent sees only its own cards.
pub fn answer_bid(agent: &mut dyn Agent, line: &str) -> Result<u8, BotError> {
    let view = read_request(line)?;
    agent.reset(request_seed(line));
    bid_for(agent, &view)
}

/// The agent's bid at a bid request's view.
fn bid_for(agent: &mut dyn Agent, view: &View<'_>) -> Result<u8, BotError> {
    let legal = view.legal_bids_vec();
    let turn = BidTurn::new(view, &legal).ok_or_else(|| BotError::Impossible("the bidding is already over".into()))?;
    Ok(legal_bid(agent.bid(turn), &legal).0)
}

/// A request's seed: the same request, the same answer (and the same draws of an agent that
/// draws).
pub fn request_seed(text: &str) -> u64 {
    crate::seeds::of_text(text)
}

/// Answers one native play request with the agent's play.
pub fn answer_native(agent: &mut dyn Agent, line: &str) -> Result<String, BotError> {
    let view = read_request(line)?;
    agent.reset(request_seed(line));
    Ok(play_for(agent, &view)?.to_string())
}

/// The legal plays of a play request's seat; an error unless it is that seat's turn.
pub fn decision_plays(view: &View<'_>) -> Result<Vec<Play>, BotError> {
    let name = |s| view.role_of(s).map_or("nobody", Role::name);
    match view.current_player() {
        _ if view.landlord().is_none() => Err(BotError::Impossible("the bidding is not over".into())),
        Some(s) if s == view.seat() => {
            let mut plays = Vec::new();
            view.legal_plays_into(&mut plays);
            Ok(plays)
        }
        Some(s) => Err(format!("it is {}'s turn, not {}'s", name(s), name(view.seat())).into()),
        None => Err(BotError::Impossible("the game is over".into())),
    }
}

/// The agent's play at a play request's view. An answer outside the legal plays is said on
/// stderr, and the first legal play (pass, when following) is made so that the game goes on.
fn play_for(agent: &mut dyn Agent, view: &View<'_>) -> Result<Play, BotError> {
    let plays = decision_plays(view)?;
    let turn = Turn::new(view, &plays).ok_or_else(|| BotError::Impossible("the game is over".into()))?;
    // `ask`: an agent that does not play the request's rules says so, and a panic inside it
    // becomes this request's error.
    let pick = ask(agent, turn).map_err(|f| BotError::Impossible(f.to_string()))?;
    Ok(plays.get(pick).copied().unwrap_or_else(|| illegal_answer(agent, &plays)))
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
        Protocol::Native => serve_json_lines(input, output, None, crate::limits::MOST_LINE_BYTES as usize, |line| {
            answer_native_line(agent, line)
        }),
        Protocol::Botzone => {
            let mut session = BotzoneSession::default();
            serve_json_lines(input, output, Some(KEEP_RUNNING), crate::limits::MOST_LINE_BYTES as usize, |line| {
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
