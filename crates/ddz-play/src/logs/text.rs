//! Games typed as text, for a person to write down a game they played (`ddz review`): one
//! `key: value` a line, `#` starts a comment, a line `---` separates games.
//!
//! ```text
//! hands: 457789TJJQQQKKKA2 33444567899TTKAA2 335566789JJQA22BR   # seat 0, 1, 2
//! bottom: 6 8 T
//! landlord: 0
//! plays: 456789TJ pass pass T K pass A 2 pass pass
//! plays: …                  # more plays: the lines are one list
//! ```
//!
//! Keys: `hands` (each seat's 17 dealt cards, in seat order; two in a two-player game),
//! `bottom`, `landlord`, `plays` (in turn from the landlord's lead: who played each is the
//! turn order), and optionally `bids` (in turn from `first_bidder`), `first_bidder`, `wild`
//! (laizi), `rules` (`two_player`), `conceded`, `players` (who played each seat), `source`.
//! Cards are in card notation, spaces inside a hand or a play allowed only in `bottom`.

use super::{GameLog, LogError, Replayed};
use crate::game::Rules;
use std::path::Path;

/// The games of `text` (read from `file`, for errors), each checked to replay.
pub fn parse_text_games(text: &str, file: &Path) -> Result<Vec<Replayed>, LogError> {
    let mut games = Vec::new();
    let mut current: Option<(usize, GameLog)> = None;
    let fail =
        |line: usize, reason: String| LogError { file: file.to_path_buf(), line: Some(line), move_no: None, reason };
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content == "---" {
            games.extend(current.take());
            continue;
        }
        if content.is_empty() {
            continue;
        }
        let Some((key, value)) = content.split_once(':') else {
            let shown: String = content.chars().take(60).collect();
            let more = if shown.len() < content.len() { "…" } else { "" };
            return Err(fail(line, format!("{shown:?}{more} is not `key: value` (e.g. `plays: 34567 pass`)")));
        };
        let (_, log) = current.get_or_insert_with(|| (line, empty_log()));
        set(log, key.trim(), value.trim()).map_err(|reason| fail(line, reason))?;
    }
    games.extend(current.take());
    games.into_iter().map(|(line, log)| checked(log, line, file)).collect()
}

fn empty_log() -> GameLog {
    GameLog {
        source: "text".into(),
        hands: Vec::new(),
        bottom: None,
        landlord: 0,
        bids: Vec::new(),
        first_bidder: 0,
        plays: Vec::new(),
        players: Vec::new(),
        wild: None,
        rules: None,
        conceded: 0,
    }
}

/// A game must name its hands and replay to its end; the error names its first line.
fn checked(mut log: GameLog, line: usize, file: &Path) -> Result<Replayed, LogError> {
    let fail = |move_no: Option<usize>, reason: String| LogError {
        file: file.to_path_buf(),
        line: Some(line),
        move_no,
        reason,
    };
    if log.hands.is_empty() || log.plays.is_empty() {
        return Err(fail(None, "a game needs its `hands:` and its `plays:`".into()));
    }
    let seats = log.rules_of().map_err(|e| fail(None, e))?.table();
    // Who played each play is the turn order from the landlord's lead.
    let landlord = seats.seat(log.landlord.into()).map_err(|e| fail(None, format!("landlord: {e}")))?;
    for (k, (seat, _)) in log.plays.iter_mut().enumerate() {
        *seat = seats.after(landlord, k as u64).number();
    }
    let game = log.replay().map_err(|e| fail(e.move_no, e.reason))?;
    Ok((log, game))
}

fn number(key: &str, value: &str) -> Result<u8, String> {
    value.parse::<u8>().map_err(|_| format!("{key}: {value:?} is not a number from 0 to 255"))
}

/// Sets `key` of `log` from its text.
fn set(log: &mut GameLog, key: &str, value: &str) -> Result<(), String> {
    let words = || value.split_whitespace().map(str::to_string);
    match key {
        "hands" => log.hands = words().collect(),
        "bottom" => log.bottom = Some(value.split_whitespace().collect()),
        "landlord" => log.landlord = number(key, value)?,
        "first_bidder" => log.first_bidder = number(key, value)?,
        "conceded" => log.conceded = number(key, value)?,
        "bids" => log.bids = value.split_whitespace().map(|b| number(key, b)).collect::<Result<_, _>>()?,
        "plays" => log.plays.extend(words().map(|p| (0, p))),
        "players" => log.players = words().collect(),
        "wild" => log.wild = Some(value.to_string()),
        "source" => log.source = value.to_string(),
        "rules" => log.rules = Some(value.parse::<Rules>().map_err(|e| format!("rules: {e}"))?),
        other => {
            return Err(format!(
                "unknown key {other:?} (hands, bottom, landlord, plays, bids, first_bidder, wild, rules, conceded, players, source)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_game_is_the_log_it_was_typed_from_and_errors_name_the_line() {
        let shipped = include_str!("../../../../tests/data/rule_selfplay_2000.jsonl");
        let log: GameLog = serde_json::from_str(shipped.lines().next().unwrap()).unwrap();
        let plays: Vec<&str> = log.plays.iter().map(|(_, p)| p.as_str()).collect();
        let (first, rest) = plays.split_at(plays.len() / 2);
        let text = format!(
            "# typed\nhands: {}\nbottom: {}\nlandlord: {}\nplays: {}   # half\nplays: {}\n---\n",
            log.hands.join(" "),
            log.bottom.as_deref().unwrap(),
            log.landlord,
            first.join(" "),
            rest.join(" ")
        );
        let typed = parse_text_games(&format!("{text}{text}"), Path::new("game.txt")).unwrap();
        assert_eq!(typed.len(), 2);
        assert_eq!((typed[0].0.plays.clone(), typed[0].0.hands.clone()), (log.plays.clone(), log.hands.clone()));
        let at = |text: &str| parse_text_games(text, Path::new("game.txt")).unwrap_err().to_string();
        assert!(
            at("hands: 33\nfoo: 1\n").starts_with("game.txt:2: unknown key \"foo\""),
            "{}",
            at("hands: 33\nfoo: 1\n")
        );
        assert!(at("landlord: x\n").starts_with("game.txt:1: landlord: \"x\" is not a number"));
        assert!(at("just words\n").contains("is not `key: value`"));
        assert!(at("landlord: 0\n").contains("needs its `hands:` and its `plays:`"));
        let short = text.replace(&format!("plays: {}\n", rest.join(" ")), "");
        assert!(at(&short).contains("game.txt:2: the game does not finish"), "{}", at(&short));
        let wrong = text.replacen(&format!("plays: {}", first[0]), "plays: 2222", 1);
        assert!(at(&wrong).starts_with("game.txt:2: move 1:"), "{}", at(&wrong));
    }
}
