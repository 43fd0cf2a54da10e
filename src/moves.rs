//! `ddz moves`: the legal-move generator over JSON lines, so it can be checked from outside.
//!
//! Each input line `{"hand":"3455778899KAA22R","rival":""}` gives one output line
//! `{"legal":[...]}` (plays in notation, sorted, `pass` included when legal). A bad line gets
//! `{"error":"line N: …"}` and the stream goes on.

use crate::cards::Counts;
use crate::game::{Play, legal_plays_vec};
use crate::lines::{RequestError, serve_json_lines};
use serde::Deserialize;
use std::io::{BufRead, Write};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    hand: String,
    #[serde(default)]
    rival: String,
}

/// The answer to one request line.
pub fn answer(line: &str) -> Result<Vec<String>, RequestError> {
    let req: Request = serde_json::from_str(line)?;
    let hand = Counts::parse(&req.hand).map_err(|e| RequestError::field("hand", e))?;
    let rival = match req.rival.trim() {
        "" | "pass" => None,
        text => Some(Play::parse(text).map_err(|e| RequestError::field("rival", e))?),
    };
    // The hand and the play on the table come from one deck.
    if let Some(r) = &rival {
        let both = hand.plus(r.cards);
        if let Some(rank) = (0..15u8).find(|&k| both.get(k) > Counts::full_deck().get(k)) {
            let reason = format!(
                "hand {} and rival {} hold {} cards of rank {}; the deck has {}",
                hand,
                r.cards,
                both.get(rank),
                crate::cards::rank_char(rank),
                Counts::full_deck().get(rank)
            );
            return Err(RequestError::Malformed(reason));
        }
    }
    let mut legal: Vec<String> = legal_plays_vec(hand, rival.as_ref()).iter().map(|p| p.to_string()).collect();
    legal.sort();
    Ok(legal)
}

/// Serves requests until end of input. Returns the number of lines that were errors.
pub fn serve(input: impl BufRead, output: impl Write) -> std::io::Result<usize> {
    serve_json_lines(input, output, None, |line| answer(line).map(|legal| serde_json::json!({ "legal": legal })))
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
        assert!(five.contains("hold 5 cards of rank 3; the deck has 4"), "{five}");
        let jokers = answer(r#"{"hand":"BR","rival":"R"}"#).unwrap_err().to_string();
        assert!(jokers.contains("rank R"), "{jokers}");
        assert_eq!(answer(r#"{"hand":"3334","rival":"3"}"#).unwrap(), ["4", "pass"]);
        let mut out = Vec::new();
        let errors = serve(&b"{\"hand\":\"33\"}\nnot json\n\xff\n{\"hand\":\"3\"}\n\n"[..], &mut out).unwrap();
        assert_eq!(errors, 3);
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "{\"legal\":[\"3\",\"33\"]}");
        assert!(lines[1].starts_with("{\"error\":\"line 2: bad request"), "{text}");
        assert!(lines[2].starts_with("{\"error\":\"line 3: not UTF-8"), "bad bytes are one bad line: {text}");
        assert_eq!(lines[3], "{\"legal\":[\"3\"]}", "and the stream goes on");
        assert_eq!(lines[4], "{\"error\":\"line 5: empty request\"}", "an empty line is answered too");
        let mut out = Vec::new();
        serve(format!("{{\"hand\":\"{}\"}}\n", "x".repeat(1 << 20)).as_bytes(), &mut out).unwrap();
        assert!(out.len() < 1000, "a huge bad request is not echoed whole");
    }
}
