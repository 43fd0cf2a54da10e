//! `ddz serve`: one web page where a person plays against two agents, over a small JSON API.
//!
//! - `GET /`: the page (HTML, CSS and JS in the binary; no build step, no CDN).
//! - `POST /api/games` `{"seat":"random"|"landlord"|…, "deal":N?}` → `201 {"id","view","agent_plays"}`
//! - `GET /api/games/{id}` → `{"id","view"}`
//! - `POST /api/games/{id}/play` `{"play":"33"}` (with bidding, first `{"play":"bid 2"}` or
//!   `{"play":"pass"}`) → `{"id","view","agent_plays"}`
//! - `POST /api/games/{id}/hint` → `{"hints":[{"play","q"}]}`
//!
//! The view holds only what the person's seat may see ([`crate::play::View`]). Every error is
//! a 4xx JSON `{"error":"…"}`. Game ids are 128 random bits; idle games expire (an unfinished
//! one is saved as such); live games and request bodies are bounded, so memory stays bounded.

use crate::agents::AgentSpec;
use crate::game::{Deal, default_deals, generate_deals};
use crate::play::{Event, Session, View, parse_seat};
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, State as Shared};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PAGE: &str = include_str!("page.html");

/// What the server plays and how far it lets itself grow.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    pub agents: [AgentSpec; 2],
    pub log_dir: PathBuf,
    /// Live games at most; a new game beyond it is refused (503) until one expires.
    pub max_games: usize,
    /// A game untouched this long is dropped (saved as unfinished if it was).
    pub idle: Duration,
    /// The largest request body accepted.
    pub max_body: usize,
    /// Games start with 1-2-3 bidding (a bid is posted to `/play` as `{"play":"bid 2"}`).
    pub bidding: bool,
}

impl ServeConfig {
    pub fn new(agents: [AgentSpec; 2], log_dir: PathBuf) -> ServeConfig {
        ServeConfig {
            agents,
            log_dir,
            max_games: 256,
            idle: Duration::from_secs(30 * 60),
            max_body: 4096,
            bidding: false,
        }
    }
}

struct Game {
    session: Arc<Mutex<Session>>,
    last_used: Instant,
    saved: bool,
}

struct App {
    config: ServeConfig,
    games: Mutex<HashMap<String, Game>>,
    deals: Vec<Deal>,
}

/// An API error: a 4xx status and the reason.
#[derive(Debug)]
pub struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(serde_json::json!({ "error": self.1 }))).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> ApiError {
        ApiError(r.status(), format!("bad request body: {}", r.body_text()))
    }
}

type ApiResult<T> = Result<Json<T>, ApiError>;

/// The router with its state; `serve` runs it, tests and the bench can too.
pub fn router(config: ServeConfig) -> Router {
    let max_body = config.max_body;
    let app = Arc::new(App { config, games: Mutex::new(HashMap::new()), deals: default_deals() });
    let sweeper = app.clone();
    tokio::spawn(async move { sweep_forever(sweeper).await });
    Router::new()
        .route("/", get(|| async { Html(PAGE) }))
        .route("/api/games", post(start))
        .route("/api/games/{id}", get(show))
        .route("/api/games/{id}/play", post(play))
        .route("/api/games/{id}/hint", post(hint))
        .fallback(|| async { ApiError(StatusCode::NOT_FOUND, "no such page or API route".into()) })
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(app)
}

/// Serves until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, config: ServeConfig) -> std::io::Result<()> {
    axum::serve(listener, router(config)).await
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct StartBody {
    #[serde(default)]
    seat: Option<String>,
    /// A deal of the built-in evaluation set; default: a fresh random deal.
    #[serde(default)]
    deal: Option<usize>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlayBody {
    play: String,
}

/// A game as the page receives it.
#[derive(Serialize)]
pub struct GameReply {
    pub id: String,
    pub view: View,
    /// The agents' plays since the person's last play, in order.
    pub agent_plays: Vec<PlayView>,
}

#[derive(Serialize)]
pub struct PlayView {
    pub seat: u8,
    pub play: String,
}

#[derive(Serialize)]
struct Hint {
    play: String,
    q: f32,
}

#[derive(Serialize)]
struct Hints {
    hints: Vec<Hint>,
}

/// The agents' plays (and bids, as `bid N`) for the page.
fn plays_view(events: Vec<Event>) -> Vec<PlayView> {
    events
        .into_iter()
        .filter_map(|e| match e {
            Event::Play(r) => Some(PlayView { seat: r.seat, play: r.play.to_string() }),
            Event::Bid { seat, bid } => Some(PlayView { seat, play: format!("bid {bid}") }),
            Event::Redeal => None,
        })
        .collect()
}

async fn start(Shared(app): Shared<Arc<App>>, body: Result<Json<StartBody>, JsonRejection>) -> Response {
    let body = match body {
        Ok(Json(b)) => b,
        Err(e) => return ApiError::from(e).into_response(),
    };
    match start_game(app, body).await {
        Ok(reply) => (StatusCode::CREATED, reply).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn start_game(app: Arc<App>, body: StartBody) -> ApiResult<GameReply> {
    let seed: u64 = rand::random();
    let deal = match body.deal {
        Some(n) => app.deals.get(n).cloned().ok_or_else(|| {
            ApiError(StatusCode::BAD_REQUEST, format!("deal {n} does not exist: use 0 to {}", app.deals.len() - 1))
        })?,
        None => generate_deals(1, seed).remove(0),
    };
    let seat =
        parse_seat(body.seat.as_deref().unwrap_or("random"), seed).map_err(|e| ApiError(StatusCode::BAD_REQUEST, e))?;
    make_room(&app)?;
    let agents = app.config.agents.clone();
    let rules = crate::play::rules(app.config.bidding, seed);
    let (session, agent_plays) = blocking(move || {
        let mut session = Session::with_rules(&deal, seat, &agents, seed, "human:web", rules)
            .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
        let plays = session.play_agents();
        Ok((session, plays))
    })
    .await?;
    let id = format!("{:032x}", rand::random::<u128>());
    let view = session.view();
    let mut games = app.games.lock().expect("the games lock");
    if games.len() >= app.config.max_games {
        return Err(full(&app));
    }
    games.insert(id.clone(), Game { session: Arc::new(Mutex::new(session)), last_used: Instant::now(), saved: false });
    Ok(Json(GameReply { id, view, agent_plays: plays_view(agent_plays) }))
}

fn full(app: &App) -> ApiError {
    let n = app.config.max_games;
    ApiError(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("{n} games are being played, the most this server allows; try again later"),
    )
}

/// Drops expired games to make room for one more, or says the server is full.
fn make_room(app: &App) -> Result<(), ApiError> {
    sweep(app);
    if app.games.lock().expect("the games lock").len() >= app.config.max_games { Err(full(app)) } else { Ok(()) }
}

/// The session of a live game, marked as used now.
fn session_of(app: &App, id: &str) -> Result<Arc<Mutex<Session>>, ApiError> {
    let mut games = app.games.lock().expect("the games lock");
    let game = games.get_mut(id).ok_or_else(|| {
        ApiError(StatusCode::NOT_FOUND, format!("unknown game {id:?} (finished long ago, or never started)"))
    })?;
    game.last_used = Instant::now();
    Ok(game.session.clone())
}

async fn show(Shared(app): Shared<Arc<App>>, UrlPath(id): UrlPath<String>) -> ApiResult<GameReply> {
    let session = session_of(&app, &id)?;
    let view = blocking(move || Ok(lock(&session).view())).await?;
    Ok(Json(GameReply { id, view, agent_plays: Vec::new() }))
}

async fn play(
    Shared(app): Shared<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<PlayBody>, JsonRejection>,
) -> ApiResult<GameReply> {
    let Json(body) = body?;
    let session = session_of(&app, &id)?;
    let (view, plays, over) = blocking(move || {
        let mut s = lock(&session);
        s.act_human(&body.play).map_err(|reason| ApiError(StatusCode::BAD_REQUEST, reason))?;
        let plays = s.play_agents();
        Ok((s.view(), plays, s.is_over()))
    })
    .await?;
    if over {
        save_once(&app, &id);
    }
    Ok(Json(GameReply { id, view, agent_plays: plays_view(plays) }))
}

async fn hint(Shared(app): Shared<Arc<App>>, UrlPath(id): UrlPath<String>) -> ApiResult<Hints> {
    let session = session_of(&app, &id)?;
    let hints = blocking(move || {
        let mut s = lock(&session);
        if !s.awaits_human() {
            return Err(ApiError(StatusCode::CONFLICT, "no hint: it is not your turn".into()));
        }
        s.hints().ok_or_else(|| ApiError(StatusCode::CONFLICT, "no hint: neither agent has a network".into()))
    })
    .await?;
    Ok(Json(Hints { hints: hints.into_iter().map(|(p, q)| Hint { play: p.to_string(), q }).collect() }))
}

fn lock(session: &Mutex<Session>) -> std::sync::MutexGuard<'_, Session> {
    session.lock().unwrap_or_else(|e| e.into_inner())
}

/// Agents think on the blocking pool, never on the threads that answer requests.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the game failed: {e}")))?
}

/// Saves a finished game's log once.
fn save_once(app: &App, id: &str) {
    let session = {
        let mut games = app.games.lock().expect("the games lock");
        match games.get_mut(id) {
            Some(g) if !g.saved => {
                g.saved = true;
                g.session.clone()
            }
            _ => return,
        }
    };
    if let Err(e) = lock(&session).save(&app.config.log_dir) {
        eprintln!("ddz serve: could not save game {id} in {}: {e}", app.config.log_dir.display());
    }
}

/// Drops games idle past the limit, saving the unfinished ones as such.
fn sweep(app: &App) {
    let expired: Vec<Game> = {
        let mut games = app.games.lock().expect("the games lock");
        let idle = app.config.idle;
        let ids: Vec<String> =
            games.iter().filter(|(_, g)| g.last_used.elapsed() >= idle).map(|(k, _)| k.clone()).collect();
        ids.iter().filter_map(|id| games.remove(id)).collect()
    };
    for game in expired.into_iter().filter(|g| !g.saved) {
        if let Err(e) = lock(&game.session).save(&app.config.log_dir) {
            eprintln!("ddz serve: could not save an expired game in {}: {e}", app.config.log_dir.display());
        }
    }
}

async fn sweep_forever(app: Arc<App>) {
    let period = (app.config.idle / 4).clamp(Duration::from_millis(100), Duration::from_secs(60));
    loop {
        tokio::time::sleep(period).await;
        let app = app.clone();
        let _ = tokio::task::spawn_blocking(move || sweep(&app)).await;
    }
}
