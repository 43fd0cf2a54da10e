//! `ddz moves`: the legal-move generator over JSON lines, so it can be checked from outside.
//!
//! Each input line `{"hand":"3455778899KAA22R","rival":""}` gives one output line
//! `{"legal":[...]}` (plays in notation, sorted, `pass` included when legal). A bad line gets
//! `{"error":"line N: …"}` and the stream goes on.

use crate::cards::Counts;
use crate::game::{Play, legal_plays_vec};
use serde::Deserialize;
use std::io::{BufRead, Write};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    hand: String,
    #[serde(default)]
    rival: String,
}

/// Why a request line got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MovesError {
    #[error("bad request: {0}")]
    BadRequest(String),
    /// A field that does not parse: its name and why.
    #[error("{field}: {reason}")]
    Field { field: &'static str, reason: String },
}

/// The answer to one request line.
pub fn answer(line: &str) -> Result<Vec<String>, MovesError> {
    let req: Request = serde_json::from_str(line).map_err(|e| MovesError::BadRequest(e.to_string()))?;
    let field = |field, e: &dyn std::fmt::Display| MovesError::Field { field, reason: e.to_string() };
    let hand = Counts::parse(&req.hand).map_err(|e| field("hand", &e))?;
    let rival = match req.rival.trim() {
        "" | "pass" => None,
        text => Some(Play::parse(text).map_err(|e| field("rival", &e))?),
    };
    let mut legal: Vec<String> = legal_plays_vec(hand, rival.as_ref()).iter().map(|p| p.to_string()).collect();
    legal.sort();
    Ok(legal)
}

/// Serves requests until end of input. Returns the number of lines that were errors.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<usize> {
    let mut errors = 0;
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let reply = match answer(&line) {
            Ok(legal) => serde_json::json!({ "legal": legal }),
            Err(e) => {
                errors += 1;
                serde_json::json!({ "error": format!("line {}: {e}", n + 1) })
            }
        };
        writeln!(output, "{reply}")?;
    }
    output.flush()?;
    Ok(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_and_errors() {
        assert_eq!(answer(r#"{"hand":"345","rival":"2"}"#).unwrap(), ["pass"]);
        assert!(answer(r#"{"hand":"34x"}"#).unwrap_err().to_string().contains("unknown card"));
        assert!(answer(r#"{"hand":"3","rival":"34"}"#).unwrap_err().to_string().contains("not a valid play"));
        let mut out = Vec::new();
        let errors = serve("{\"hand\":\"33\"}\nnot json\n".as_bytes(), &mut out).unwrap();
        assert_eq!(errors, 1);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("{\"legal\":[\"3\",\"33\"]}\n{\"error\":\"line 2: bad request"), "{text}");
    }
}
