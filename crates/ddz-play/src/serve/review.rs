//! The review page (`GET /review`) and its API: a finished game scored by a network
//! ([`crate::review`]), posted as a game log (`POST /api/review`) or one of the server's own
//! finished games (`POST /api/games/{id}/review`).

use super::ApiError;
use crate::agents::{Agent, AgentSpec};
use crate::game::Rules;
use crate::logs::GameLog;
use crate::review::{Review, Thresholds, default_reviewer, html, review};
use axum::http::StatusCode;
use serde::Serialize;
use std::sync::Mutex;

/// The page: paste or upload a game log, see its review.
pub const PAGE: &str = include_str!("review.html");

/// The largest body `POST /api/review` takes: a whole game's log is 1–3 KB.
pub const MAX_LOG_BYTES: usize = 64 * 1024;

/// Reviews computed at most at once; more requests wait for a turn.
const MOST_AT_ONCE: usize = 4;

/// A review and its page.
#[derive(Serialize)]
pub struct Reviewed {
    /// The review, as `ddz review --json` writes each game (schema `ddz.review/1`).
    pub review: Review,
    /// The review as a self-contained HTML page.
    pub html: String,
}

/// The server's reviewers: a network of each rule set, built on first use, kept when idle.
pub struct Reviewers {
    idle: Mutex<Vec<(Rules, Box<dyn Agent>)>>,
    turns: tokio::sync::Semaphore,
}

impl Reviewers {
    pub fn new() -> Reviewers {
        Reviewers { idle: Mutex::new(Vec::new()), turns: tokio::sync::Semaphore::new(MOST_AT_ONCE) }
    }

    /// The review of `log`, on the blocking pool when its turn comes.
    pub async fn review(&self, log: GameLog) -> Result<Reviewed, ApiError> {
        let bad = |reason: String| ApiError(StatusCode::BAD_REQUEST, reason);
        let game = log.replay().map_err(|e| bad(format!("the game does not replay: {e}")))?;
        let rules = game.state.config().rules;
        let _turn = super::turn(&self.turns).await?;
        let mut agent = self.take(rules)?;
        let failed = |why: String| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the review failed: {why}"));
        let (agent, reviewed) = tokio::task::spawn_blocking(move || {
            let reviewed = review(&log, &game, agent.as_mut(), Thresholds::default());
            (agent, reviewed)
        })
        .await
        .map_err(|e| failed(e.to_string()))?;
        self.idle.lock().unwrap_or_else(|e| e.into_inner()).push((rules, agent));
        let review = reviewed.map_err(|e| bad(e.to_string()))?;
        Ok(Reviewed { html: html::page(&review), review })
    }

    /// An idle reviewer of `rules`, or a new one.
    fn take(&self, rules: Rules) -> Result<Box<dyn Agent>, ApiError> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(k) = idle.iter().position(|(r, _)| *r == rules) {
            return Ok(idle.swap_remove(k).1);
        }
        drop(idle);
        let spec: AgentSpec = default_reviewer(rules)
            .parse()
            .map_err(|e: crate::agents::AgentError| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        spec.build().map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the reviewer {spec}: {e}")))
    }
}
