//! `POST /api/advise`: a position as one seat sees it in, the legal plays ranked out.
//!
//! The body is a request of the native bot protocol (a play request `{"seat","hand","bottom",
//! "history"}`, with `"wild"` under laizi, or a bid request `{"seat_index","hand","bids"}`,
//! docs/bots-and-logs.md), plus an
//! optional `"agent"`: 0 or 1, which of the server's two `--agents` advises (default 0). Agents
//! are the server's own, never named by the client: a spec such as `bot:CMD` would run a
//! command. The request is the seat's view (`View`): the agent is handed nothing else, so
//! advice never depends on cards the seat cannot see.

use super::ApiError;
use crate::agents::{Agent, AgentSpec, BidTurn, Turn};
use crate::bot::{BotError, decision_plays, request_seed};
use crate::game::View;
use crate::game::laizi::ids::play_notation;
use axum::http::StatusCode;
use serde::Serialize;
use std::sync::Mutex;

/// Advice being computed at most at once; more requests wait for a turn.
pub const MOST_AT_ONCE: usize = 8;

/// The server's advisors: its two agent specs, built agents waiting for a request, and the
/// turns that bound how many think at once.
pub struct Advisors {
    specs: [AgentSpec; 2],
    idle: Mutex<[Vec<Box<dyn Agent>>; 2]>,
    turns: tokio::sync::Semaphore,
}

/// One legal play with the agent's value of it (a network's Q, a search's value) and, for a
/// search, its visits; plays come best first.
#[derive(Serialize)]
pub struct Ranked {
    pub play: String,
    pub value: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub visits: Option<u32>,
}

/// The answer: the play (or bid) the agent makes, and the legal choices.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Advice {
    Play { agent: String, play: String, plays: Vec<Ranked> },
    Bid { agent: String, bid: u8, bids: Vec<u8> },
}

impl Advisors {
    pub fn new(specs: [AgentSpec; 2]) -> Advisors {
        Advisors { specs, idle: Mutex::new([Vec::new(), Vec::new()]), turns: tokio::sync::Semaphore::new(MOST_AT_ONCE) }
    }

    /// The advice for `body`, computed on the blocking pool when its turn comes.
    pub async fn advise(&self, body: serde_json::Value) -> Result<Advice, ApiError> {
        let (which, request) = split_agent(body)?;
        let seed = request_seed(&request.to_string());
        let bad = |e: BotError| ApiError(StatusCode::BAD_REQUEST, e.to_string());
        let view = View::from_value(request).map_err(|e| bad(e.into()))?;
        let _turn = super::turn(&self.turns).await?;
        let mut agent = self.take(which)?;
        let answered = tokio::task::spawn_blocking(move || {
            agent.reset(seed);
            // A panic anywhere in the agent (its bid, its values) is the server's fault: 500.
            let advice = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| advise(agent.as_mut(), &view)));
            advice.map(|advice| (agent, advice)).map_err(|panic| crate::agents::panic_text(&*panic).to_string())
        })
        .await;
        let failed = |why: String| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the advice failed: {why}"));
        match answered.map_err(|e| failed(e.to_string()))? {
            Ok((agent, advice)) => {
                self.give_back(which, agent);
                advice.map_err(bad)
            }
            Err(why) => {
                // The agent, whose state the panic may have left broken, is replaced by a new
                // one: the pool keeps its advisor.
                if let Ok(fresh) = self.specs[which].build() {
                    self.give_back(which, fresh);
                }
                Err(failed(why))
            }
        }
    }

    fn give_back(&self, which: usize, agent: Box<dyn Agent>) {
        self.idle.lock().unwrap_or_else(|e| e.into_inner())[which].push(agent);
    }

    /// An idle agent of spec `which`, or a new one.
    fn take(&self, which: usize) -> Result<Box<dyn Agent>, ApiError> {
        if let Some(agent) = self.idle.lock().unwrap_or_else(|e| e.into_inner())[which].pop() {
            return Ok(agent);
        }
        self.specs[which].build().map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    }
}

/// The request without its `"agent"` key, and which agent that key names.
fn split_agent(body: serde_json::Value) -> Result<(usize, serde_json::Value), ApiError> {
    let bad = |reason: String| ApiError(StatusCode::BAD_REQUEST, reason);
    let serde_json::Value::Object(mut fields) = body else {
        return Err(bad("the body must be a JSON object: a play or bid request".into()));
    };
    let which = match fields.remove("agent") {
        None => 0,
        Some(v) => match v.as_u64() {
            Some(n @ (0 | 1)) => n as usize,
            _ => return Err(bad(format!("agent: {v} is not 0 or 1 (the first or second of the server's --agents)"))),
        },
    };
    Ok((which, serde_json::Value::Object(fields)))
}

/// The agent's choice at the seat's `view` and its ranking of the legal choices.
fn advise(agent: &mut dyn Agent, view: &View<'_>) -> Result<Advice, BotError> {
    let name = agent.name();
    if view.landlord().is_none() {
        let bids = view.legal_bids_vec();
        let turn = BidTurn::new(view, &bids).ok_or_else(|| BotError::Impossible("the bidding is over".into()))?;
        let (bid, _) = crate::agents::legal_bid(agent.bid(turn), &bids);
        return Ok(Advice::Bid { agent: name, bid, bids });
    }
    let plays = decision_plays(view)?;
    let turn = Turn::new(view, &plays).ok_or_else(|| BotError::Impossible("the game is over".into()))?;
    // `ask`: an agent asked about a game of rules it does not play says so, and a panic inside
    // it becomes this request's error.
    let pick = crate::agents::ask(agent, turn).map_err(|f| BotError::Impossible(f.to_string()))?;
    let chosen = plays.get(pick).copied().unwrap_or(plays[0]);
    // After the decision: a search agent hands back the values of the search it just made.
    let values = agent.candidates(turn);
    let mut ranked: Vec<Ranked> = plays
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let c = values.as_ref().and_then(|v| v.get(i));
            Ranked { play: play_notation(p), value: c.map(|c| c.value), visits: c.and_then(|c| c.visits) }
        })
        .collect();
    if values.is_some() {
        ranked.sort_by(|a, b| b.value.partial_cmp(&a.value).unwrap_or(std::cmp::Ordering::Equal));
    }
    Ok(Advice::Play { agent: name, play: play_notation(&chosen), plays: ranked })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::BidTurn;

    /// Panics at every bid: a stand-in for an agent with a bug.
    struct PanicsAtBids;
    impl Agent for PanicsAtBids {
        fn name(&self) -> String {
            "panics".into()
        }
        fn choose(&mut self, _turn: Turn<'_>) -> usize {
            0
        }
        fn bid(&mut self, _turn: BidTurn<'_>) -> u8 {
            panic!("a bug in the bidding")
        }
    }

    #[tokio::test]
    async fn an_agent_that_panics_gets_500_and_is_replaced_by_a_new_one() {
        let advisors = Advisors::new(["rule".parse().unwrap(), "rule".parse().unwrap()]);
        advisors.idle.lock().unwrap()[0].push(Box::new(PanicsAtBids));
        let request = || serde_json::json!({"seat_index": 0, "hand": "3455667789TJQKA2R", "bids": []});
        let failed = advisors.advise(request()).await.err().expect("a panic is an error");
        assert_eq!(failed.0, StatusCode::INTERNAL_SERVER_ERROR);
        assert!(failed.1.contains("a bug in the bidding"), "{}", failed.1);
        // The pool keeps an advisor: a new agent of the server's spec, not the broken one.
        let idle: Vec<String> = advisors.idle.lock().unwrap()[0].iter().map(|a| a.name()).collect();
        assert_eq!(idle, ["rule"]);
        let advice = advisors.advise(request()).await.unwrap_or_else(|e| panic!("{}", e.1));
        assert!(matches!(advice, Advice::Bid { ref agent, .. } if agent == "rule"));
        assert_eq!(advisors.idle.lock().unwrap()[0].len(), 1, "and kept for the next");
    }
}
