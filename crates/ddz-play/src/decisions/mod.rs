//! `ddz check-decisions`: key decisions that a sound player gets right, the third view of an
//! agent beside "no illegal plays" and "win rate on fixed deals".
//!
//! A situation is one seat's view — hand, bottom, the public plays so far — with the plays a
//! sound player makes (`good`) or must not make (`bad`), and a one-line reason:
//! `{"id","rule","seat","hand","bottom","history":[["landlord","3"],…],"good":[…],"bad":[…],"reason"}`.
//! The agent passes a situation when its play is among `good` (if any are listed) and not
//! among `bad`. Every situation is replayed through the engine when read: the history must be
//! legal and lead to the seat's turn with that hand, and every listed play must be legal there.
//! The built-in file (60 situations, six rules of play) is written by
//! `scripts/make_key_decisions.py`.

use crate::agents::{Agent, Fault, Turn, decide_turn};
use crate::cards::Counts;
use crate::game::{MoveList, Play, Role, View};
use crate::lines::{Line, split_lines};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The built-in situations.
pub const BUILT_IN: &str = include_str!("situations.jsonl");

/// A bad situation: the file, line and reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}:{line}: {reason}", file.display())]
pub struct SituationError {
    /// The situations file (`<built-in situations>` for the built-in ones).
    pub file: PathBuf,
    /// The 1-based line; 0 when the fault is the whole file (unreadable, or no situations).
    pub line: usize,
    /// What is wrong, naming the situation's id and field where there is one.
    pub reason: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SituationLine {
    id: String,
    rule: String,
    seat: String,
    hand: String,
    bottom: String,
    history: Vec<(String, String)>,
    #[serde(default)]
    good: Vec<String>,
    #[serde(default)]
    bad: Vec<String>,
    reason: String,
}

/// One checked situation, ready to put to an agent.
#[derive(Clone, Debug)]
pub struct Situation {
    /// A unique name, such as `win_now_lead-01`.
    pub id: String,
    /// The rule of play it tests, such as `win_now_lead`.
    pub rule: String,
    /// The seat to play.
    pub seat: Role,
    /// What the seat knows at its turn: its hand, the bottom and the history as given.
    pub view: View<'static>,
    /// Plays a sound player makes; when not empty, the agent must choose one of them.
    pub good: Vec<Play>,
    /// Plays a sound player must not make.
    pub bad: Vec<Play>,
    /// Why, in one line.
    pub reason: String,
}

/// What an agent did in one situation.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    /// The situation's id.
    pub id: String,
    /// The situation's rule of play.
    pub rule: String,
    /// The agent's play, as text.
    pub play: String,
    /// Whether the play was among the good ones (if any) and not among the bad.
    pub passed: bool,
    /// The situation's good plays, as text.
    pub good: Vec<String>,
    /// The situation's bad plays, as text.
    pub bad: Vec<String>,
    /// The situation's one-line reason.
    pub reason: String,
}

/// Pass counts of one rule.
#[derive(Clone, Debug, Serialize)]
pub struct RuleRate {
    /// The rule of play.
    pub rule: String,
    /// Situations of this rule that the agent passed.
    pub passed: usize,
    /// Situations of this rule.
    pub total: usize,
}

/// An agent's results over a file of situations.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The agent's name.
    pub agent: String,
    /// Situations passed.
    pub passed: usize,
    /// Situations put to the agent.
    pub total: usize,
    /// `passed / total`, from 0 to 1 (0 when there are none).
    pub rate: f64,
    /// Pass counts per rule, in the order the rules first appear.
    pub rules: Vec<RuleRate>,
    /// One verdict per situation, in file order.
    pub verdicts: Vec<Verdict>,
}

fn parse_play(text: &str, what: &str) -> Result<Play, String> {
    Play::parse(text).map_err(|e| format!("{what}: {e}"))
}

impl SituationLine {
    /// The situation, replayed and checked through the engine.
    fn check(self) -> Result<Situation, String> {
        let role = |s: &str, what: &str| Role::parse(s).ok_or_else(|| format!("{what}: unknown seat {s:?}"));
        let seat = role(&self.seat, "seat")?;
        let hand = Counts::parse(&self.hand).map_err(|e| format!("hand: {e}"))?;
        let bottom = Counts::parse(&self.bottom).map_err(|e| format!("bottom: {e}"))?;
        let history = self
            .history
            .iter()
            .enumerate()
            .map(|(k, (s, p))| {
                Ok((role(s, &format!("history {}", k + 1))?, parse_play(p, &format!("history {}", k + 1))?))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let view = View::playing(seat, hand, bottom, &history, None).map_err(|e| e.to_string())?;
        let legal = crate::bot::decision_plays(&view).map_err(|e| e.to_string())?;
        let listed = |plays: &[String], what: &str| -> Result<Vec<Play>, String> {
            plays
                .iter()
                .map(|p| {
                    let play = parse_play(p, what)?;
                    if legal.contains(&play) { Ok(play) } else { Err(format!("{what}: {p} is not a legal play here")) }
                })
                .collect()
        };
        let (good, bad) = (listed(&self.good, "good")?, listed(&self.bad, "bad")?);
        if good.is_empty() && bad.is_empty() {
            return Err("neither good nor bad plays are listed".into());
        }
        if let Some(p) = good.iter().find(|p| bad.contains(p)) {
            return Err(format!("{p} is listed as both good and bad"));
        }
        if good.is_empty() && legal.iter().all(|p| bad.contains(p)) {
            return Err("every legal play is bad".into());
        }
        Ok(Situation { id: self.id, rule: self.rule, seat, view, good, bad, reason: self.reason })
    }
}

/// Reads situations from JSONL text (`file` names it in errors); every line is checked.
pub fn parse_situations(text: &[u8], file: &Path) -> Result<Vec<Situation>, SituationError> {
    let mut out = Vec::new();
    for Line { number, text } in split_lines(text) {
        let fail = |reason: String| SituationError { file: file.to_path_buf(), line: number, reason };
        let text = text.map_err(|e| fail(e.to_string()))?;
        if text.trim().is_empty() {
            continue;
        }
        let line: SituationLine = serde_json::from_str(&text).map_err(|e| fail(format!("not a situation: {e}")))?;
        let id = line.id.clone();
        out.push(line.check().map_err(|e| fail(format!("{id}: {e}")))?);
    }
    if out.is_empty() {
        return Err(SituationError { file: file.to_path_buf(), line: 0, reason: "no situations".into() });
    }
    Ok(out)
}

/// The built-in situations, or those of `file`.
pub fn load(file: Option<&Path>) -> Result<Vec<Situation>, SituationError> {
    match file {
        None => parse_situations(BUILT_IN.as_bytes(), Path::new("<built-in situations>")),
        Some(f) => {
            let bytes = std::fs::read(f).map_err(|e| SituationError {
                file: f.to_path_buf(),
                line: 0,
                reason: e.to_string(),
            })?;
            parse_situations(&bytes, f)
        }
    }
}

/// Puts every situation to `agent`.
pub fn check(agent: &mut dyn Agent, situations: &[Situation]) -> Result<Report, Fault> {
    let names = |plays: &[Play]| plays.iter().map(Play::to_string).collect::<Vec<_>>();
    let mut verdicts = Vec::new();
    let mut legal = MoveList::new();
    for (k, s) in situations.iter().enumerate() {
        agent.reset(k as u64);
        s.view.legal_plays_into(&mut legal);
        let Some(turn) = Turn::new(&s.view, &legal) else {
            unreachable!("situation {}: `check` made every situation a decision of its seat", s.id)
        };
        let play = decide_turn(agent, turn)?.play;
        let passed = (s.good.is_empty() || s.good.contains(&play)) && !s.bad.contains(&play);
        verdicts.push(Verdict {
            id: s.id.clone(),
            rule: s.rule.clone(),
            play: play.to_string(),
            passed,
            good: names(&s.good),
            bad: names(&s.bad),
            reason: s.reason.clone(),
        });
    }
    let mut rules: Vec<RuleRate> = Vec::new();
    for v in &verdicts {
        match rules.iter_mut().find(|r| r.rule == v.rule) {
            Some(r) => {
                r.total += 1;
                r.passed += v.passed as usize;
            }
            None => rules.push(RuleRate { rule: v.rule.clone(), passed: v.passed as usize, total: 1 }),
        }
    }
    let passed = verdicts.iter().filter(|v| v.passed).count();
    let total = verdicts.len();
    Ok(Report { agent: agent.name(), passed, total, rate: passed as f64 / total.max(1) as f64, rules, verdicts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_situations_replay_and_cover_six_rules() {
        let s = load(None).unwrap();
        assert!(s.len() >= 60, "{}", s.len());
        let mut rules: Vec<&str> = s.iter().map(|x| x.rule.as_str()).collect();
        rules.dedup();
        assert_eq!(rules.len(), 6, "{rules:?}");
        let mut ids: Vec<&str> = s.iter().map(|x| x.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), s.len(), "ids are unique");
        for x in &s {
            assert_eq!(x.view.current_player().and_then(|p| x.view.role_of(p)), Some(x.seat), "{}", x.id);
        }
    }

    #[test]
    fn bad_situations_name_the_line_and_the_reason() {
        let good = BUILT_IN.lines().next().unwrap();
        let wrong_hand = good.replacen("\"hand\": \"", "\"hand\": \"3", 1);
        let text = format!("{good}\n{wrong_hand}\n");
        let e = parse_situations(text.as_bytes(), Path::new("s.jsonl")).unwrap_err();
        assert_eq!(e.line, 2, "{e}");
        assert!(e.to_string().starts_with("s.jsonl:2: win_now_lead-01: "), "{e}");
        let illegal = good.replacen("\"good\": [", "\"good\": [\"BR\", ", 1);
        let e = parse_situations(illegal.as_bytes(), Path::new("s.jsonl")).unwrap_err();
        assert!(e.reason.contains("good: BR is not a legal play here"), "{e}");
    }
}
