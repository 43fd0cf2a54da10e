//! `ddz moves`: the legal-move generator over JSON lines, so it can be checked from outside.
//!
//! Each input line `{"hand":"3455778899KAA22R","rival":""}` gives one output line
//! `{"legal":[...]}` (plays in notation, sorted, `pass` included when legal). A bad line gets
//! `{"error":"line N: …"}` and the stream goes on.
//!
//! With `--rules laizi` a line is `{"hand":"…","wild":"7","rival":{"cards":"…","as":"…"}}` (rival
//! left out when leading) and the answer lists each play as the cards it takes and the ranks they
//! stand for: `{"legal":[{"cards":"5557","as":"5555"},…]}`, pass as `{"cards":"","as":""}`.

use crate::cards::Counts;
use crate::game::laizi::{self, WildRank};
use crate::game::{Play, Rules, legal_plays_vec};
use crate::lines::{RequestError, serve_json_lines};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Write};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    hand: String,
    #[serde(default)]
    rival: String,
}

/// A laizi request: the hand, the wild rank and the play to beat.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LaiziRequest {
    hand: String,
    wild: String,
    #[serde(default)]
    rival: Option<LaiziPlay>,
}

/// A laizi play on the wire: the cards taken from the hand and the ranks they stand for.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaiziPlay {
    /// The cards taken, in rank order (wild cards at the wild rank); empty for a pass.
    pub cards: String,
    /// The standard play they stand for, in rank order; empty for a pass.
    #[serde(rename = "as")]
    pub reading: String,
}

impl LaiziPlay {
    fn of(play: &Play) -> LaiziPlay {
        if play.is_pass() {
            return LaiziPlay { cards: String::new(), reading: String::new() };
        }
        LaiziPlay { cards: play.cards.to_string(), reading: play.reading().to_string() }
    }
}

/// The answer to one request line of the standard game.
pub fn answer(line: &str) -> Result<Vec<String>, RequestError> {
    answer_under(Rules::Standard, line)
}

/// [`answer`] under `rules` without wild cards (standard or two-player: the deck differs).
fn answer_under(rules: Rules, line: &str) -> Result<Vec<String>, RequestError> {
    let req: Request = serde_json::from_str(line)?;
    let hand = Counts::parse(&req.hand).map_err(|e| RequestError::field("hand", e))?;
    let rival = match req.rival.trim() {
        "" | "pass" => None,
        text => Some(Play::parse(text).map_err(|e| RequestError::field("rival", e))?),
    };
    check_one_deck(rules, hand, rival.as_ref())?;
    let mut legal: Vec<String> = legal_plays_vec(hand, rival.as_ref()).iter().map(|p| p.to_string()).collect();
    legal.sort();
    Ok(legal)
}

/// The answer to one laizi request line, sorted by cards, then reading.
pub fn answer_laizi(line: &str) -> Result<Vec<LaiziPlay>, RequestError> {
    let req: LaiziRequest = serde_json::from_str(line)?;
    let hand = Counts::parse(&req.hand).map_err(|e| RequestError::field("hand", e))?;
    let wild = WildRank::parse(&req.wild).map_err(|e| RequestError::field("wild", e))?;
    let rival = match req.rival {
        None => None,
        Some(r) if r.cards.trim().is_empty() && r.reading.trim().is_empty() => None,
        Some(r) => {
            let cards = Counts::parse(&r.cards).map_err(|e| RequestError::field("rival.cards", e))?;
            let reading = Counts::parse(&r.reading).map_err(|e| RequestError::field("rival.as", e))?;
            Some(laizi::read_play(cards, reading, wild).map_err(|e| RequestError::field("rival", e))?)
        }
    };
    check_one_deck(Rules::Laizi, hand, rival.as_ref())?;
    let mut legal: Vec<LaiziPlay> =
        laizi::legal_plays_vec(hand, wild, rival.as_ref()).iter().map(LaiziPlay::of).collect();
    legal.sort();
    Ok(legal)
}

/// The hand and the play on the table come from one deck of `rules` (two-player's has no 3s
/// or 4s).
fn check_one_deck(rules: Rules, hand: Counts, rival: Option<&Play>) -> Result<(), RequestError> {
    let both = hand.plus(rival.map_or(Counts::EMPTY, |r| r.cards));
    let deck = rules.deck_counts();
    let Some(rank) = (0..15u8).find(|&k| both.get(k) > deck.get(k)) else { return Ok(()) };
    let cards = match rival {
        Some(r) => format!("hand {hand} and rival {} hold", r.cards),
        None => format!("hand {hand} holds"),
    };
    Err(RequestError::Malformed(format!(
        "{cards} {} cards of rank {}; the {rules} deck has {}",
        both.get(rank),
        crate::cards::rank_char(rank),
        deck.get(rank)
    )))
}

/// Serves requests of `rules` until end of input. Returns the number of lines that were errors.
pub fn serve(rules: Rules, input: impl BufRead, output: impl Write) -> std::io::Result<usize> {
    serve_json_lines(input, output, None, crate::limits::MOST_LINE_BYTES as usize, |line| match rules {
        Rules::Standard | Rules::TwoPlayer => {
            answer_under(rules, line).map(|legal| serde_json::json!({ "legal": legal }))
        }
        Rules::Laizi => answer_laizi(line).map(|legal| serde_json::json!({ "legal": legal })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_and_errors() {
        assert_eq!(answer(r#"{"hand":"345","rival":"2"}"#).unwrap(), ["pass"]);
        assert!(answer(r#"{"hand":"34x"}"#).unwrap_err().to_string().contains("unknown card"));
        assert!(answer(r#"{"hand":"3","rival":"34"}"#).unwrap_err().to_string().contains("not a valid play"));
        let five = answer(r#"{"hand":"3333","rival":"3"}"#).unwrap_err().to_string();
        assert!(five.contains("hold 5 cards of rank 3; the standard deck has 4"), "{five}");
        // Two-player's deck has no 3s or 4s (issue 64: they were listed).
        let two = |line: &str| answer_under(Rules::TwoPlayer, line).map_err(|e| e.to_string());
        assert_eq!(two(r#"{"hand":"556"}"#).unwrap(), ["5", "55", "6"]);
        let threes = two(r#"{"hand":"3355"}"#).unwrap_err();
        assert!(threes.contains("hand 3355 holds 2 cards of rank 3; the two_player deck has 0"), "{threes}");
        assert!(two(r#"{"hand":"55","rival":"4"}"#).unwrap_err().contains("rank 4"));
        let jokers = answer(r#"{"hand":"BR","rival":"R"}"#).unwrap_err().to_string();
        assert!(jokers.contains("rank R"), "{jokers}");
        assert_eq!(answer(r#"{"hand":"3334","rival":"3"}"#).unwrap(), ["4", "pass"]);
        let mut out = Vec::new();
        let errors =
            serve(Rules::Standard, &b"{\"hand\":\"33\"}\nnot json\n\xff\n{\"hand\":\"3\"}\n\n"[..], &mut out).unwrap();
        assert_eq!(errors, 3);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "{\"legal\":[\"3\",\"33\"]}");
        assert!(lines[1].starts_with("{\"error\":\"line 2: bad request"), "{text}");
        assert!(lines[2].starts_with("{\"error\":\"line 3: not UTF-8"), "bad bytes are one bad line: {text}");
        assert_eq!(lines[3], "{\"legal\":[\"3\"]}", "and the stream goes on");
        assert_eq!(lines[4], "{\"error\":\"line 5: empty request\"}", "an empty line is answered too");
        let mut out = Vec::new();
        serve(Rules::Standard, format!("{{\"hand\":\"{}\"}}\n", "x".repeat(1 << 20)).as_bytes(), &mut out).unwrap();
        assert!(out.len() < 1000, "a huge bad request is not echoed whole");
    }

    #[test]
    fn laizi_answers_cards_and_readings() {
        let plays = |line: &str| -> Vec<(String, String)> {
            answer_laizi(line).unwrap().into_iter().map(|p| (p.cards, p.reading)).collect()
        };
        let pair = |c: &str, r: &str| (c.to_string(), r.to_string());
        assert_eq!(plays(r#"{"hand":"57","wild":"7"}"#), [pair("5", "5"), pair("57", "55"), pair("7", "7")]);
        let follow = plays(r#"{"hand":"5557","wild":"7","rival":{"cards":"4447","as":"4444"}}"#);
        assert_eq!(follow, [pair("", ""), pair("5557", "5555")], "pass, then the higher soft bomb");
        let leading = plays(r#"{"hand":"57","wild":"7","rival":{"cards":"","as":""}}"#);
        assert_eq!(leading.len(), 3, "an empty rival is a lead");
        let err = |line: &str| answer_laizi(line).unwrap_err().to_string();
        assert!(err(r#"{"hand":"57","wild":"B"}"#).contains("wild: bad wild rank \"B\": a joker is never wild"));
        assert!(err(r#"{"hand":"55555","wild":"7"}"#).contains("hand: impossible cards"));
        let not_a_play = err(r#"{"hand":"57","wild":"7","rival":{"cards":"34","as":"34"}}"#);
        assert!(not_a_play.contains("rival: cards 34 read as 34 are not a play"), "{not_a_play}");
        assert!(err(r#"{"hand":"7777","wild":"7","rival":{"cards":"7","as":"7"}}"#).contains("the laizi deck has 4"));
        assert!(err(r#"{"hand":"5","wild":"7","rival":"5"}"#).starts_with("bad request"));
        let mut out = Vec::new();
        let errors =
            serve(Rules::Laizi, &b"{\"hand\":\"7\",\"wild\":\"7\"}\n{\"hand\":\"7\"}\n"[..], &mut out).unwrap();
        assert_eq!(errors, 1, "a line without the wild rank is an error");
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("{\"legal\":[{\"as\":\"7\",\"cards\":\"7\"}]}\n"), "{text}");
    }
}
