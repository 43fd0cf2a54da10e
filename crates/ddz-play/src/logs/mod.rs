//! Game logs: our JSONL format, RLCard-Showdown import, and replay through the engine.
//!
//! Our format, one game a line:
//! `{"source":"synthetic:rule","hands":["<17 cards>","<17>","<17>"],"bottom":"<3 cards>",
//!   "landlord":0,"bids":[3],"plays":[[0,"34567"],[1,"pass"],…],"players":["human","rule","rule"]}`
//! Seats are 0, 1, 2 and play in that order round the table; the landlord (its seat) leads. The
//! hands are the 17 dealt cards; the bottom joins the landlord's hand. `bids` (in turn from
//! `first_bidder`, default 0; they must make `landlord` the landlord) and `players` (who played
//! each seat) are optional. When a source does not record the bottom (`"bottom": null`),
//! the landlord's hand holds all 20 cards. A laizi game adds `"wild":"7"`, its wild rank, and
//! writes a play that takes wild cards as its reading, `/`, and the ranks the wild cards stand
//! for (`[0,"5555/5"]`, as the bot protocol does). A two-player game adds `"rules":"two_player"`,
//! has two hands (of the 46 cards without 3s and 4s; the 9 set aside are not recorded) and, when
//! its landlord was fixed with cards conceded, `"conceded":K`.

use crate::cards::{Counts, rank_of_char};
use crate::game::laizi::ids::{parse_play_notation, play_notation};
use crate::game::{Action, GameConfig, Rules, Seat, State, WildRank};
use crate::lines::{Line, split_lines};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

mod text;
pub use text::parse_text_games;

/// One game in our log format (one JSON line; see the module docs).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameLog {
    /// Where the game came from, such as `synthetic:rule` or `rlcard-showdown`; empty if not
    /// given.
    #[serde(default)]
    pub source: String,
    /// Each seat's 17 dealt cards, in card notation (the landlord's 20 when `bottom` is `None`):
    /// three hands, or two in a two-player game.
    pub hands: Vec<String>,
    /// The 3 bottom cards, or `None` when the source does not record them.
    pub bottom: Option<String>,
    /// The landlord's seat, 0 to 2.
    pub landlord: u8,
    /// The bids in turn from `first_bidder` (0 = pass, else 1 to 3 points); empty when the
    /// source records no bidding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bids: Vec<u8>,
    /// The seat that bid first (with `bids`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub first_bidder: u8,
    /// Every play in order, as (seat, cards or `pass`), from the landlord's lead to the end.
    pub plays: Vec<(u8, String)>,
    /// Who played each seat (`human`, an agent spec), where the source records it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<String>,
    /// Laizi: the wild rank (`"7"`); absent in a standard game. A play with wild cards is then
    /// written as its reading and what the wild cards stand for (`5555/5`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wild: Option<String>,
    /// `two_player` for a two-player game; absent for the standard game and laizi (known by
    /// its `wild`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Rules>,
    /// Two-player without bidding: the cards conceded to the farmer (with bidding, the robs).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub conceded: u8,
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Where a log went wrong: file, line (none for a file that is one game), move (1-based) and
/// reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{}{}: {reason}", file.display(), line.map(|l| format!(":{l}")).unwrap_or_default(), move_no.map(|m| format!(": move {m}")).unwrap_or_default())]
pub struct LogError {
    /// The log file.
    pub file: PathBuf,
    /// The 1-based line of the game; `None` for a file that is one game or cannot be read.
    pub line: Option<usize>,
    /// The 1-based play that failed; `None` for a fault before the plays or of the whole game.
    pub move_no: Option<usize>,
    /// What is wrong.
    pub reason: String,
}

/// Why a game does not replay: the move (1-based) where there is one, and the reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{reason}", move_no.map(|m| format!("move {m}: ")).unwrap_or_default())]
pub struct ReplayError {
    /// The 1-based play that failed; `None` for a fault of the deal, the bids or the ending.
    pub move_no: Option<usize>,
    /// What is wrong.
    pub reason: String,
}

/// Why another format's game could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The text is not a game of that format, or holds a card it does not name.
    #[error("{0}")]
    Format(String),
    /// The game converted but does not replay through the engine.
    #[error(transparent)]
    Replay(#[from] ReplayError),
}

/// A log with its replay.
pub type Replayed = (GameLog, ReplayedGame);

/// A log replayed through the engine: the final state (its history holds every decision).
#[derive(Debug)]
pub struct ReplayedGame {
    /// The finished game, its history holding every bid and play.
    pub state: State,
    /// Whether the log recorded the bottom (if not, the encoder must not show one).
    pub bottom_known: bool,
}

fn parse_hand(text: &str, what: &str) -> Result<Counts, String> {
    Counts::parse(text).map_err(|e| format!("{what}: {e}"))
}

impl GameLog {
    /// Replays the log; every problem is a reason (with the move number where there is one).
    pub fn replay(&self) -> Result<ReplayedGame, ReplayError> {
        let err = |move_no: Option<usize>, reason: String| ReplayError { move_no, reason };
        let rules = self.rules_of().map_err(|r| err(None, r))?;
        let table = rules.table();
        let landlord = table.seat(self.landlord.into()).map_err(|e| err(None, format!("landlord: {e}")))?;
        if self.hands.len() != table.len() {
            let n = self.hands.len();
            return Err(err(None, format!("{n} hands, but a {rules} game deals {}", table.len())));
        }
        let (hands, bottom, bottom_known) = self.deal(rules, landlord.index())?;
        let wild =
            self.wild.as_deref().map(WildRank::parse).transpose().map_err(|e| err(None, format!("wild: {e}")))?;
        let mut state = self.dealt(landlord, hands, bottom, wild)?;
        for (k, (seat, text)) in self.plays.iter().enumerate() {
            let m = Some(k + 1);
            let Some(turn) = state.current_player() else {
                return Err(err(m, "a play after the end of the game".into()));
            };
            if *seat != turn.number() {
                return Err(err(m, format!("seat {seat} plays out of turn (seat {turn} was to play)")));
            }
            let play = parse_play_notation(text, wild).map_err(|e| err(m, e.to_string()))?;
            state.try_apply_play(play).map_err(|e| err(m, e.to_string()))?;
        }
        if !state.is_terminal() {
            return Err(err(None, format!("the game does not finish ({} plays)", self.plays.len())));
        }
        Ok(ReplayedGame { state, bottom_known })
    }

    /// The hands and bottom the log records, checked to be one deal of `rules`; the flag says
    /// whether the bottom was recorded (`l` is the landlord's seat index).
    fn deal(&self, rules: Rules, l: usize) -> Result<([Counts; 3], Counts, bool), ReplayError> {
        let err = |reason: String| ReplayError { move_no: None, reason };
        let table = rules.table();
        let mut hands = [Counts::EMPTY; 3];
        for (s, text) in self.hands.iter().enumerate() {
            hands[s] = parse_hand(text, &format!("hand of seat {s}")).map_err(err)?;
        }
        let (bottom, bottom_known) = match &self.bottom {
            Some(b) => (parse_hand(b, "bottom").map_err(err)?, true),
            None => {
                // The landlord's 20 cards are given whole; take its 3 lowest as a stand-in bottom
                // for dealing. The encoder is told the bottom is unknown.
                let mut b = Counts::EMPTY;
                for (r, n) in hands[l].iter() {
                    let k = n.min(3 - b.len() as u8);
                    b.add(r, k);
                    if b.len() == 3 {
                        break;
                    }
                }
                if hands[l].len() != 20 {
                    return Err(err(format!(
                        "without a bottom the landlord's hand must hold 20 cards, not {}",
                        hands[l].len()
                    )));
                }
                hands[l] = hands[l].minus(b);
                (b, false)
            }
        };
        for (s, h) in hands[..table.len()].iter().enumerate() {
            if h.len() != 17 {
                return Err(err(format!("seat {s} was dealt {} cards, not 17", h.len())));
            }
        }
        if bottom.len() != 3 {
            return Err(err(format!("the bottom has {} cards, not 3", bottom.len())));
        }
        let all = hands.iter().fold(bottom, |a, h| a.plus(*h));
        let deck = rules.deck_counts();
        // A two-player deal leaves 9 of its 46 cards set aside, unrecorded.
        let whole = match rules {
            Rules::TwoPlayer => all.is_subset_of(deck) && all.len() as usize == rules.dealt_to_seats() + 3,
            Rules::Standard | Rules::Laizi => all == deck,
        };
        if rules == Rules::TwoPlayer && (all.get(0) > 0 || all.get(1) > 0) {
            return Err(err("two-player games have no 3s or 4s".into()));
        }
        if !whole {
            let dup: Vec<String> = (0..15u8)
                .filter(|&r| all.get(r) > crate::cards::rank_capacity(r))
                .map(|r| crate::cards::rank_char(r).to_string())
                .collect();
            return Err(err(if dup.is_empty() {
                "the hands and bottom are not one deck".into()
            } else {
                format!("duplicated cards: {}", dup.join(" "))
            }));
        }
        Ok((hands, bottom, bottom_known))
    }

    /// The state after the deal, the bids (which must make the log's landlord the landlord)
    /// and, under laizi, the wild rank.
    fn dealt(
        &self,
        landlord: Seat,
        hands: [Counts; 3],
        bottom: Counts,
        wild: Option<WildRank>,
    ) -> Result<State, ReplayError> {
        let err = |reason: String| ReplayError { move_no: None, reason };
        let config = GameConfig {
            landlord_seat: landlord,
            bidding: !self.bids.is_empty(),
            // A bad number is refused before the first bid, in `replay_bids`.
            first_bidder: Seat::new(self.first_bidder).unwrap_or(Seat::S0),
            rules: self.rules_of().map_err(err)?,
            conceded: self.conceded,
            ..GameConfig::default()
        };
        config.check().map_err(|e| err(e.to_string()))?;
        let mut state = State::new(config);
        state.try_deal_counts(hands, bottom).map_err(|e| err(e.to_string()))?;
        self.replay_bids(&mut state)?;
        if let Some(w) = wild {
            state.try_apply_action(Action::Wild(w)).map_err(|e| err(format!("wild: {e}")))?;
        }
        Ok(state)
    }

    /// Applies the bids; they must make the log's landlord the landlord.
    fn replay_bids(&self, state: &mut State) -> Result<(), ReplayError> {
        let err = |reason: String| ReplayError { move_no: None, reason };
        if let Err(e) = state.table().seat(self.first_bidder.into()) {
            return Err(err(format!("first_bidder: {e}")));
        }
        for (k, &bid) in self.bids.iter().enumerate() {
            state.try_apply_bid(bid).map_err(|e| err(format!("bid {}: {e}", k + 1)))?;
        }
        match state.landlord() {
            _ if self.bids.is_empty() => Ok(()),
            Some(l) if l.number() == self.landlord => Ok(()),
            Some(l) => Err(err(format!("the bids make seat {l} the landlord, not seat {}", self.landlord))),
            None => Err(err(format!("the bids {:?} do not end the bidding with a landlord", self.bids))),
        }
    }

    /// The log of a game played in the engine (one stopped during the bidding names the fixed
    /// landlord seat of its rules, and does not replay).
    pub fn from_state(state: &State, source: &str) -> GameLog {
        let landlord = state.landlord().unwrap_or(state.config().landlord_seat);
        let config = state.config();
        GameLog {
            source: source.to_string(),
            hands: state.table().seats().iter().map(|&s| state.dealt_cards(s).counts().to_string()).collect(),
            bottom: Some(state.bottom().counts().to_string()),
            landlord: landlord.number(),
            bids: state.bids().to_vec(),
            first_bidder: if state.config().bidding { state.config().first_bidder.number() } else { 0 },
            plays: state.play_record().iter().map(|r| (r.seat.number(), play_notation(&r.play))).collect(),
            players: Vec::new(),
            wild: state.wild().map(|w| w.to_string()),
            rules: (config.rules == Rules::TwoPlayer).then_some(Rules::TwoPlayer),
            conceded: if config.bidding { 0 } else { config.conceded },
        }
    }

    /// The rules the log's game was played under: two-player when it says so, laizi when it
    /// has a wild rank, else standard.
    fn rules_of(&self) -> Result<Rules, String> {
        match (self.rules, &self.wild) {
            (None | Some(Rules::Standard), None) => Ok(Rules::Standard),
            (None | Some(Rules::Laizi), Some(_)) => Ok(Rules::Laizi),
            (Some(Rules::Laizi), None) => Err("rules: a laizi game names its wild rank".into()),
            (Some(Rules::TwoPlayer), None) => Ok(Rules::TwoPlayer),
            (Some(rules), Some(_)) => Err(format!("wild: {rules} games have no wild rank")),
        }
    }
}

/// Reads the games of `path`: our JSONL logs, or games typed as text ([`parse_text_games`])
/// when the file's first line that is not blank or a comment does not start with `{`. Every
/// game is checked to replay; the first bad one is the error.
pub fn read_games(path: &Path) -> Result<Vec<Replayed>, LogError> {
    let fail = |reason: String| LogError { file: path.to_path_buf(), line: None, move_no: None, reason };
    let bytes = std::fs::read(path).map_err(|e| fail(e.to_string()))?;
    let first = bytes.split(|&b| b == b'\n').map(|l| l.trim_ascii()).find(|l| !l.is_empty() && !l.starts_with(b"#"));
    if first.is_none_or(|l| l.starts_with(b"{")) {
        return read_logs(path, false).map(|(good, _)| good);
    }
    let text = String::from_utf8(bytes).map_err(|e| fail(format!("not UTF-8 text: {e}")))?;
    parse_text_games(&text, path)
}

/// Reads a log file. With `skip_invalid`, bad games are left out and returned as errors beside
/// the good ones; without it, the first bad game is the error.
pub fn read_logs(path: &Path, skip_invalid: bool) -> Result<(Vec<Replayed>, Vec<LogError>), LogError> {
    let fail = |line: Option<usize>, move_no: Option<usize>, reason: String| LogError {
        file: path.to_path_buf(),
        line,
        move_no,
        reason,
    };
    let bytes = std::fs::read(path).map_err(|e| fail(None, None, e.to_string()))?;
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for Line { number, text } in split_lines(&bytes) {
        if text.as_ref().is_ok_and(|t| t.trim().is_empty()) {
            continue;
        }
        let result = text
            .map_err(|e| fail(Some(number), None, e.to_string()))
            .and_then(|t| {
                serde_json::from_str::<GameLog>(&t)
                    .map_err(|e| fail(Some(number), None, format!("not a game log: {e}")))
            })
            .and_then(|log| log.replay().map(|g| (log, g)).map_err(|e| fail(Some(number), e.move_no, e.reason)));
        match result {
            Ok(g) => good.push(g),
            Err(e) if skip_invalid => bad.push(e),
            Err(e) => return Err(e),
        }
    }
    Ok((good, bad))
}

/// Imports other formats' games, one file each (`ddz logs import`), and replays each through
/// the engine to check it. With `skip_invalid`, a bad file is reported beside the good games;
/// without it, the first bad file is the error.
pub fn import_files(files: &[PathBuf], skip_invalid: bool) -> Result<(Vec<GameLog>, Vec<LogError>), LogError> {
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for file in files {
        let fail = |reason: String| LogError { file: file.clone(), line: None, move_no: None, reason };
        let result = std::fs::read_to_string(file).map_err(|e| fail(e.to_string())).and_then(|text| {
            let log = import_showdown(&text).map_err(|e| fail(e.to_string()))?;
            log.replay().map_err(|e| LogError { move_no: e.move_no, ..fail(e.reason) })?;
            Ok(log)
        });
        match result {
            Ok(log) => good.push(log),
            Err(e) if skip_invalid => bad.push(e),
            Err(e) => return Err(e),
        }
    }
    Ok((good, bad))
}

/// Our format: one game a line.
pub fn to_jsonl(logs: &[GameLog]) -> String {
    logs.iter().map(|l| serde_json::to_string(l).expect("a log serialises") + "\n").collect()
}

// ---- RLCard-Showdown ----

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShowdownReplay {
    init_hands: Vec<String>,
    player_info: Vec<ShowdownPlayer>,
    move_history: Vec<ShowdownMove>,
}

#[derive(Deserialize)]
struct ShowdownPlayer {
    index: u8,
    role: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShowdownMove {
    player_idx: u8,
    #[serde(rename = "move")]
    mv: String,
}

/// Showdown cards are a suit letter and a rank (`S2`, `HT`), or `BJ` / `RJ` for the jokers.
fn showdown_cards(text: &str) -> Result<String, String> {
    let mut out = String::new();
    for token in text.split_whitespace() {
        let rank = match token {
            "BJ" => 'B',
            "RJ" => 'R',
            t => {
                let mut chars = t.chars();
                match (chars.next(), chars.next(), chars.next()) {
                    (Some(suit), Some(rank), None) if "SHDC".contains(suit) => rank,
                    _ => return Err(format!("unknown card {t:?}")),
                }
            }
        };
        if rank_of_char(rank).is_none() {
            return Err(format!("unknown card {token:?}"));
        }
        out.push(rank);
    }
    Ok(out)
}

/// Converts one RLCard-Showdown replay (JSON text) to our format. The replay holds the
/// landlord's 20 cards without saying which 3 were the bottom, so the bottom is unknown.
pub fn import_showdown(text: &str) -> Result<GameLog, ImportError> {
    let format = ImportError::Format;
    let r: ShowdownReplay =
        serde_json::from_str(text).map_err(|e| format(format!("not an RLCard-Showdown replay: {e}")))?;
    if r.init_hands.len() != 3 {
        return Err(format(format!("{} initial hands, expected 3", r.init_hands.len())));
    }
    let landlord = r
        .player_info
        .iter()
        .find(|p| p.role == "landlord")
        .map(|p| p.index)
        .ok_or_else(|| format("no player has the role \"landlord\"".into()))?;
    let hands: Vec<String> =
        r.init_hands.iter().map(|h| showdown_cards(h)).collect::<Result<_, _>>().map_err(format)?;
    let plays = r
        .move_history
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let cards = if m.mv.trim() == "P" {
                "pass".to_string()
            } else {
                showdown_cards(&m.mv).map_err(|e| format!("move {}: {e}", k + 1))?
            };
            Ok((m.player_idx, cards))
        })
        .collect::<Result<Vec<_>, String>>()
        .map_err(format)?;
    Ok(GameLog {
        source: "rlcard-showdown".into(),
        hands,
        bottom: None,
        landlord,
        bids: Vec::new(),
        first_bidder: 0,
        plays,
        players: Vec::new(),
        wild: None,
        rules: None,
        conceded: 0,
    })
}

/// Plays `games` games with `agent` in every seat on generated deals; returns their logs and
/// how many of the agent's answers were illegal, or the fault of an agent that did not answer.
pub fn selfplay_logs(
    agent: &mut dyn crate::agents::Agent,
    games: usize,
    seed: u64,
    source: &str,
) -> Result<(Vec<GameLog>, u32), crate::agents::SeatFault> {
    let mut illegal = 0;
    let logs = crate::game::generate_deals(games, seed)
        .iter()
        .enumerate()
        .map(|(i, deal)| {
            agent.reset(seed ^ i as u64);
            let mut s = crate::game::State::new(Default::default());
            s.deal_hands_unchecked(deal.hands, deal.bottom); // a generated deal is valid
            illegal += crate::agents::play_out(&mut s, &mut crate::agents::Everyone(agent), |_, _, _, _| {})?;
            Ok(GameLog::from_state(&s, source))
        })
        .collect::<Result<_, _>>()?;
    Ok((logs, illegal))
}

#[cfg(test)]
mod tests {
    #[test]
    fn showdown_cards_of_any_characters_are_an_error_never_a_panic() {
        for token in ["é", "Sé", "éS", "🂡", "S", "SS3", "X3", "３"] {
            let e = super::showdown_cards(&format!("S3 {token} H4")).unwrap_err();
            assert!(e.contains(token), "{token}: {e}");
        }
        assert_eq!(super::showdown_cards("S3 HT BJ RJ").unwrap(), "3TBR");
    }

    use super::*;

    #[test]
    fn engine_games_round_trip_through_the_format() {
        use rand::SeedableRng;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
        let mut s = crate::game::new_initial_state();
        s.deal_random(&mut rng);
        let mut plays = Vec::new();
        while !s.is_terminal() {
            s.legal_plays_into(&mut plays);
            s.apply_play_unchecked(plays[plays.len() / 2]);
        }
        let log = GameLog::from_state(&s, "test");
        let text = serde_json::to_string(&log).unwrap();
        let back: GameLog = serde_json::from_str(&text).unwrap();
        let replayed = back.replay().unwrap();
        assert_eq!(replayed.state.returns(), s.returns());
        assert!(replayed.bottom_known);
    }

    #[test]
    fn games_with_bidding_replay_their_bids() {
        use crate::agents::{Everyone, RuleAgent, play_out};
        let config = GameConfig { bidding: true, first_bidder: Seat::S2, ..GameConfig::default() };
        let deal = crate::game::generate_deals(30, 4)
            .into_iter()
            .map(|d| {
                let mut s = State::new(config.clone());
                s.deal_hands(d.hands, d.bottom);
                play_out(&mut s, &mut Everyone(&mut RuleAgent::new()), |_, _, _, _| {}).unwrap();
                s
            })
            .find(|s| s.landlord().is_some() && s.bids().len() > 1)
            .expect("a deal someone bids on");
        let log = GameLog::from_state(&deal, "test");
        assert_eq!((log.first_bidder, log.bids.as_slice()), (2, deal.bids()));
        let back: GameLog = serde_json::from_str(&serde_json::to_string(&log).unwrap()).unwrap();
        let replayed = back.replay().unwrap().state;
        assert_eq!(
            (replayed.landlord(), replayed.winner(), replayed.bids()),
            (deal.landlord(), deal.winner(), deal.bids())
        );
        let mut wrong = log.clone();
        wrong.first_bidder = Seat::new(log.first_bidder).map_or(0, |s| crate::game::Table::THREE.next(s).number());
        let e = wrong.replay().unwrap_err().reason;
        assert!(e.contains("the landlord, not seat") || e.contains("out of turn") || e.contains("bid"), "{e}");
    }

    #[test]
    fn bad_bytes_in_a_log_file_are_one_bad_line() {
        let mut s = crate::game::new_initial_state();
        s.deal_random(&mut <rand::rngs::SmallRng as rand::SeedableRng>::seed_from_u64(4));
        let mut plays = Vec::new();
        while !s.is_terminal() {
            s.legal_plays_into(&mut plays);
            s.apply_play_unchecked(plays[0]);
        }
        let good = serde_json::to_string(&GameLog::from_state(&s, "test")).unwrap();
        let dir = std::env::temp_dir().join(format!("ddz-logs-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.jsonl");
        std::fs::write(&path, [good.as_bytes(), b"\n\xc3\x28\n", good.as_bytes(), b"\n"].concat()).unwrap();
        let e = read_logs(&path, false).unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.to_string().contains("games.jsonl:2: not UTF-8"), "{e}");
        let (ok, bad) = read_logs(&path, true).unwrap();
        assert_eq!((ok.len(), bad.len()), (2, 1), "the file goes on past the bad line");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn bad_logs_name_the_move_and_reason() {
        let base = GameLog {
            source: String::new(),
            hands: vec!["33334444555566667".into(), "77788889999TTTTJJ".into(), "JJQQQQKKKKAAAA222".into()],
            bottom: Some("2BR".into()),
            landlord: 0,
            bids: vec![],
            first_bidder: 0,
            plays: vec![(0, "3".into()), (1, "7".into()), (2, "Q".into())],
            players: vec![],
            wild: None,
            rules: None,
            conceded: 0,
        };
        assert!(base.replay().unwrap_err().reason.contains("does not finish"));
        let mut out_of_turn = base.clone();
        out_of_turn.plays = vec![(1, "7".into())];
        assert_eq!(out_of_turn.replay().unwrap_err().move_no, Some(1));
        let mut illegal = base.clone();
        illegal.plays = vec![(0, "3".into()), (1, "pass".into()), (2, "4".into())];
        let ReplayError { move_no: m, reason: r } = illegal.replay().unwrap_err();
        assert_eq!(m, Some(3));
        assert!(r.contains("does not hold"), "{r}");
        let mut dup = base.clone();
        dup.hands[0] = "33333444555566667".into();
        let r = dup.replay().unwrap_err().reason;
        assert!(r.contains("impossible cards") || r.contains("duplicated"), "{r}");
        let mut wrong_count = base;
        wrong_count.hands[1] = "7778888".into();
        assert!(wrong_count.replay().unwrap_err().reason.contains("cards, not 17"));
    }

    #[test]
    fn showdown_cards_convert() {
        assert_eq!(showdown_cards("S2 HT RJ BJ D3").unwrap(), "2TRB3");
        assert!(showdown_cards("X9").is_err());
    }
}
