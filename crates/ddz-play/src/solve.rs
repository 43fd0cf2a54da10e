//! `ddz solve`: the exact open-hand solver over JSON lines.
//!
//! Each input line gives a position with every hand known:
//! `{"hands":{"landlord":"…","landlord_down":"…","landlord_up":"…"},"to_move":"landlord",
//! "rival":{"seat":"landlord_up","play":"33"}}` (`rival` left out when the player to move leads;
//! two hands for a two-player puzzle). The answer is one line:
//! `{"value":1,"winning_plays":["…"],"line":["…",…],"nodes":N,"ms":T}`, where `value` is 1 when
//! the side to move wins with perfect play and -1 when it loses, `winning_plays` are its plays
//! that win, and `line` is a game of perfect play from the position to the end (each side plays
//! a winning play when it has one). A bad line gets `{"error":"line N: …"}` and the stream goes on.

use crate::cards::Counts;
use crate::game::{Play, Role};
use crate::lines::{RequestError, serve_json_lines};
use crate::search::{Position, Solver};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::time::Instant;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    hands: BTreeMap<String, String>,
    to_move: String,
    #[serde(default)]
    rival: Option<Rival>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Rival {
    seat: String,
    play: String,
}

/// Why a request line got no answer.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// Not a request of the protocol.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// A well-formed request for a position no game can reach.
    #[error(transparent)]
    Position(#[from] crate::search::PositionError),
    /// The node budget (`--max-nodes`) ran out before the position was solved.
    #[error("gave up after {0} positions (raise --max-nodes, or ask about a smaller position)")]
    TooBig(u64),
    /// The time budget (`--ms`) ran out: an exact solver has no half answer to give.
    #[error("no answer within {0} ms (raise --ms, or ask about a smaller position)")]
    TooSlow(u64),
}

fn seat(field: &str, name: &str) -> Result<Role, SolveError> {
    let unknown = || format!("unknown seat {name:?}: use landlord, landlord_down or landlord_up");
    Role::parse(name).ok_or_else(|| RequestError::field(field, unknown()).into())
}

/// The position a request describes, checked.
pub fn position(line: &str) -> Result<Position, SolveError> {
    let req: Request = serde_json::from_str(line).map_err(RequestError::from)?;
    let mut hands: [Option<Counts>; 3] = [None; 3];
    for (name, cards) in &req.hands {
        let s = seat("hands", name)?;
        let field = format!("hands.{name}");
        hands[s.index()] = Some(Counts::parse(cards).map_err(|e| RequestError::field(field, e))?);
    }
    let rival = match &req.rival {
        None => None,
        Some(r) => {
            let play = Play::parse(&r.play).map_err(|e| RequestError::field("rival.play", e))?;
            Some((play, seat("rival.seat", &r.seat)?))
        }
    };
    Ok(Position::new(hands, seat("to_move", &req.to_move)?, rival)?)
}

/// Solves one request line, giving up after `max_nodes` positions or `ms` milliseconds
/// (0 = never).
pub fn answer(solver: &mut Solver, line: &str, max_nodes: u64, ms: u64) -> Result<serde_json::Value, SolveError> {
    let pos = position(line)?;
    let start = Instant::now();
    solver.set_deadline((ms > 0).then(|| start + std::time::Duration::from_millis(ms)));
    let solved = solver.solve_within(&pos, max_nodes);
    let late = solver.past_deadline();
    solver.set_deadline(None);
    let s = solved.ok_or(if late { SolveError::TooSlow(ms) } else { SolveError::TooBig(max_nodes) })?;
    Ok(serde_json::json!({
        "value": if s.wins { 1 } else { -1 },
        "winning_plays": s.winning_plays.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        "line": s.line.iter().map(|(_, p)| p.to_string()).collect::<Vec<_>>(),
        "nodes": s.nodes,
        "ms": start.elapsed().as_secs_f64() * 1000.0,
    }))
}

/// Serves requests until end of input, each within `max_nodes` positions and `ms`
/// milliseconds (0 = no limit); returns how many lines were errors.
pub fn serve(input: impl BufRead, output: impl Write, max_nodes: u64, ms: u64) -> std::io::Result<usize> {
    let mut solver = Solver::new();
    serve_json_lines(input, output, None, crate::limits::MOST_LINE_BYTES as usize, |line| {
        answer(&mut solver, line, max_nodes, ms)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_solved_or_named() {
        let mut solver = Solver::new();
        // The landlord holds 2, 2 and 3 against a single 4 and a single 5.
        let won = r#"{"hands":{"landlord":"223","landlord_down":"4","landlord_up":"5"},"to_move":"landlord"}"#;
        let a = answer(&mut solver, won, 0, 0).unwrap();
        assert_eq!(a["value"], 1, "{a}");
        let mut winning: Vec<String> = serde_json::from_value(a["winning_plays"].clone()).unwrap();
        winning.sort();
        assert_eq!(winning, ["2", "22"], "leading the 3 lets a farmer go out");
        assert_eq!(a["line"], serde_json::json!(["22", "pass", "pass", "3"]), "the largest winning play first");
        // A farmer follows a 3 with a 2 and goes out: the farmers win.
        let follow = r#"{"hands":{"landlord":"AA","landlord_down":"2"},"to_move":"landlord_down","rival":{"seat":"landlord","play":"3"}}"#;
        assert_eq!(answer(&mut solver, follow, 0, 0).unwrap()["value"], 1);
        for (bad, named) in [
            (r#"{"hands":{"landlord":"3333","landlord_up":"3"},"to_move":"landlord"}"#, "more cards than one deck"),
            (
                r#"{"hands":{"landlord":"3","landlord_up":"4"},"to_move":"landlord","rival":{"seat":"landlord","play":"5"}}"#,
                "cannot be the play to beat",
            ),
            (r#"{"hands":{"lord":"3","landlord_up":"4"},"to_move":"landlord"}"#, "hands: unknown seat"),
            (r#"{"hands":{"landlord":"3x"},"to_move":"landlord"}"#, "hands.landlord"),
        ] {
            let e = answer(&mut solver, bad, 0, 0).unwrap_err().to_string();
            assert!(e.contains(named), "{bad}: {e}");
        }
        let mut out = Vec::new();
        serve(&[won.as_bytes(), b"\n\xff\n", won.as_bytes(), b"\n"].concat()[..], &mut out, 0, 0).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].contains("line 2: not UTF-8") && lines[2].contains("\"value\":1"), "{text}");
        let deal = r#"{"hands":{"landlord":"33445566778899TTJJ","landlord_down":"QQKKAA22BR3456789TJ","landlord_up":"QKA2"},"to_move":"landlord"}"#;
        assert!(matches!(answer(&mut solver, deal, 1000, 0), Err(SolveError::TooBig(1000))));
    }
}
