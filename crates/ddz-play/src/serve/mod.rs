//! `ddz serve`: one web page where a person plays against two agents, over a small JSON API.
//!
//! - `GET /`: the page (HTML, CSS and JS in the binary; no build step, no CDN).
//! - `POST /api/games` `{"seat":"random"|"landlord"|…, "deal":N?}` → `201 {"id","view","agent_plays"}`
//! - `GET /api/games/{id}` → `{"id","view"}`
//! - `POST /api/games/{id}/play` `{"play":"33"}` (with bidding, first `{"play":"bid 2"}` or
//!   `{"play":"pass"}`; under laizi `{"play":"5557 as 5555"}` chooses a reading, and the view
//!   lists the plays that need one in `readings`) → `{"id","view","agent_plays"}`
//! - `POST /api/games/{id}/hint` → `{"hints":[{"play","q"}]}`
//! - `POST /api/advise` a position as one seat sees it → the legal plays ranked ([`advise`])
//! - `GET /review`: the review page; `POST /api/review` a finished game's log, or
//!   `POST /api/games/{id}/review` one of the server's finished games → `{"review","html"}`
//!   ([`crate::review`])
//! - `GET /api/openapi.json`: the OpenAPI description of these routes
//!
//! The `view` of an answer holds only what the person's seat may see ([`crate::play::Screen`]). Every error is
//! a 4xx (or 503) JSON `{"error":"…"}`, also for a wrong method or an over-long URL. Game ids
//! are 128 random bits; idle games expire (an unfinished one is saved as such); live games,
//! finished ones kept for their last view, new games per client and minute, and request bodies
//! are bounded, so memory stays bounded.

mod advise;
mod deadline;
mod review;

pub use deadline::WRITE_TIME;

use crate::agents::AgentSpec;
use crate::game::{Deal, DealSet, Seat, generate_deals_for};
use crate::play::{Event, PlayView, Screen, Session, parse_seat};
use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path as UrlPath, State as Shared};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
// Aliased: the stop flag is a watch channel.
use tokio::sync::watch as stop_flag;

const PAGE: &str = include_str!("page.html");
/// The page's body tag, which names the rules it draws.
const PAGE_RULES: &str = "<body data-rules=\"standard\">";
/// The OpenAPI description of the JSON API (a test checks it against the routes).
pub const OPENAPI: &str = include_str!("openapi.json");

/// A line on stderr that never panics: `eprintln!` panics when the write fails, and on a full
/// disk stderr (redirected to a file there) fails just when a save failure is being reported.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// What the server plays and how far it lets itself grow.
#[derive(Clone, Debug)]
pub struct ServeConfig {
    /// The agents of the two seats the person does not take, in seat order; they also advise.
    pub agents: [AgentSpec; 2],
    /// Where game logs go: finished games to `games.jsonl`, unfinished ones to
    /// `unfinished.jsonl`.
    pub log_dir: PathBuf,
    /// Live games at most; a new game beyond it is refused (503) until one ends or expires.
    /// Finished games are kept for their last view only while there is room.
    pub max_games: usize,
    /// New games one client (IP address) may start in a minute; beyond it, 429.
    pub starts_per_minute: usize,
    /// A game untouched this long is dropped (saved as unfinished if it was).
    pub idle: Duration,
    /// The largest request body accepted.
    pub max_body: usize,
    /// Games start with 1-2-3 bidding (a bid is posted to `/play` as `{"play":"bid 2"}`).
    pub bidding: bool,
    /// The rules of every game: standard or laizi (the view then has `wild`, and a play may
    /// be posted with its reading, `{"play":"5557 as 5555"}`).
    pub rules: crate::game::Rules,
}

impl ServeConfig {
    /// `agents` logging to `log_dir`, with the defaults: 256 live games, 30 new games per client
    /// and minute, 30 minutes idle, request bodies of 4096 bytes, no bidding.
    pub fn new(agents: [AgentSpec; 2], log_dir: PathBuf) -> ServeConfig {
        ServeConfig {
            agents,
            log_dir,
            max_games: 256,
            starts_per_minute: 30,
            idle: Duration::from_secs(30 * 60),
            max_body: 4096,
            bidding: false,
            rules: crate::game::Rules::Standard,
        }
    }
}

struct Game {
    session: Arc<Mutex<Session>>,
    last_used: Instant,
    /// Finished and its log written (or its writing failed and was said): it holds no slot.
    saved: bool,
}

struct App {
    config: ServeConfig,
    games: Mutex<HashMap<String, Game>>,
    /// When each client started its games of the last minute.
    starts: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    deals: Vec<Deal>,
    advisors: advise::Advisors,
    reviewers: review::Reviewers,
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
    routes(config).0
}

fn routes(config: ServeConfig) -> (Router, Arc<App>) {
    let max_body = config.max_body;
    let advisors = advise::Advisors::new(config.agents.clone());
    let deals = DealSet::Dev.deals_for(config.rules);
    // The page draws the table of the server's rules (two seats or three, bids or calls).
    let page: Arc<str> = PAGE.replace(PAGE_RULES, &format!("<body data-rules=\"{}\">", config.rules)).into();
    let app = Arc::new(App {
        advisors,
        reviewers: review::Reviewers::new(),
        config,
        games: Mutex::new(HashMap::new()),
        starts: Mutex::new(HashMap::new()),
        deals,
    });
    let state = app.clone();
    let sweeper = app.clone();
    tokio::spawn(async move { sweep_forever(sweeper).await });
    let router = Router::new()
        .route(
            "/",
            get(move || {
                let page = page.clone();
                async move { Html(page.to_string()) }
            }),
        )
        .route("/api/games", post(start))
        .route("/api/games/{id}", get(show))
        .route("/api/games/{id}/play", post(play))
        .route("/api/games/{id}/hint", post(hint))
        .route("/api/advise", post(advice))
        .route("/review", get(|| async { Html(review::PAGE) }))
        .route("/api/review", post(review_log).layer(DefaultBodyLimit::max(review::MAX_LOG_BYTES)))
        .route("/api/games/{id}/review", post(review_game))
        .route(
            "/api/openapi.json",
            get(|| async { ([(axum::http::header::CONTENT_TYPE, "application/json")], OPENAPI) }),
        )
        .fallback(|| async { ApiError(StatusCode::NOT_FOUND, "no such page or API route".into()) })
        .method_not_allowed_fallback(|method: axum::http::Method, uri: axum::http::Uri| async move {
            ApiError(StatusCode::METHOD_NOT_ALLOWED, format!("{method} is not a method of {}", uri.path()))
        })
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn(refuse_long_urls))
        .layer(axum::middleware::from_fn(bound_request_time));
    (router.with_state(state), app)
}

/// The longest URL answered: every route's URL is far shorter.
const MAX_URL: usize = 2048;

/// A URL past [`MAX_URL`] gets 414 with a JSON body, as every error does. (URLs too long for
/// the HTTP layer itself, hundreds of kilobytes, never reach this.)
async fn refuse_long_urls(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let length = request.uri().to_string().len();
    if length > MAX_URL {
        let reason = format!("the URL is {length} bytes long; at most {MAX_URL} are answered");
        return ApiError(StatusCode::URI_TOO_LONG, reason).into_response();
    }
    next.run(request).await
}

/// How long a client may take to send a request's headers, and how long a kept-alive
/// connection may sit idle before its next request: past it the server closes the connection.
pub const HEADER_TIME: Duration = Duration::from_secs(10);

/// How long one request may take, its body and the agents' answer included (408 past it).
pub const REQUEST_TIME: Duration = Duration::from_secs(60);

/// How long a stopping server waits for the answers being written before it cuts the
/// connections still open.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// Serves until SIGINT or SIGTERM, then writes the games still in play to
/// `unfinished.jsonl`, so that stopping the server loses no one's game.
///
/// Every connection is bounded in time whatever the client does: its headers (and the wait
/// for the next request on a kept-alive connection) within [`HEADER_TIME`], each request
/// within [`REQUEST_TIME`], and a client that takes no byte of its answers for [`WRITE_TIME`]
/// is cut. On a signal the server stops accepting, lets the answers being written finish for
/// at most [`STOP_GRACE`], then cuts what is left and saves the games: agents think on a copy
/// of their game, so a save never waits for one.
pub async fn serve(listener: tokio::net::TcpListener, config: ServeConfig) -> std::io::Result<()> {
    let (router, app) = routes(config);
    let (stopping, stop_seen) = stop_flag::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let stop = stop_signal();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    connections.spawn(connection(stream, peer, router.clone(), stop_seen.clone()));
                }
                // Out of file descriptors, say: wait a little rather than spin.
                Err(e) => {
                    say!("ddz serve: could not accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let _ = stopping.send(true);
    let open = connections.len();
    let drained = tokio::time::timeout(STOP_GRACE, async { while connections.join_next().await.is_some() {} }).await;
    if drained.is_err() {
        say!("ddz serve: {} of {open} connection(s) still open after {STOP_GRACE:?}; cut", connections.len());
        connections.abort_all();
    }
    let saved = tokio::task::spawn_blocking(move || save_all_unfinished(&app)).await.unwrap_or(0);
    say!("ddz serve: stopped; {saved} game(s) in play saved as unfinished");
    Ok(())
}

/// One client connection: HTTP/1.1 with the header deadline, the client's address handed to
/// the routes (it bounds how many games it may start a minute), closed gracefully (after the
/// answer being written) once the server is stopping.
async fn connection(
    stream: tokio::net::TcpStream,
    peer: SocketAddr,
    router: Router,
    mut stopping: stop_flag::Receiver<bool>,
) {
    use tower::ServiceExt as _;
    let service = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
        let mut request = request.map(axum::body::Body::new);
        request.extensions_mut().insert(ConnectInfo(peer));
        router.clone().oneshot(request)
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_TIME)
        .serve_connection(hyper_util::rt::TokioIo::new(deadline::WriteDeadline::new(stream)), service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stopping.wait_for(|&stop| stop) => conn.as_mut().graceful_shutdown(),
    }
    let _ = conn.await;
}

/// A request that takes longer than [`REQUEST_TIME`] (a body sent a byte at a time, say) gets
/// 408 and its connection is closed.
async fn bound_request_time(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    match tokio::time::timeout(REQUEST_TIME, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            let reason = format!("the request took more than {} s", REQUEST_TIME.as_secs());
            let mut response = ApiError(StatusCode::REQUEST_TIMEOUT, reason).into_response();
            let close = axum::http::HeaderValue::from_static("close");
            response.headers_mut().insert(axum::http::header::CONNECTION, close);
            response
        }
    }
}

async fn stop_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let terminated = async {
        match term.as_mut() {
            Some(t) => {
                t.recv().await;
            }
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = terminated => {}
    }
}

/// Saves every game not saved yet (all unfinished: a finished one saves when it ends).
fn save_all_unfinished(app: &App) -> usize {
    let games: Vec<Game> = app.games().drain().map(|(_, g)| g).collect();
    let mut saved = 0;
    for game in games.into_iter().filter(|g| !g.saved) {
        match lock(&game.session).save(&app.config.log_dir) {
            Ok(_) => saved += 1,
            Err(e) => say!("ddz serve: could not save a game in {}: {e}", app.config.log_dir.display()),
        }
    }
    saved
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
    /// The game's id, for its routes (32 hex digits).
    pub id: String,
    /// What the person's seat may see now.
    pub view: Screen,
    /// The agents' plays since the person's last play, in order.
    pub agent_plays: Vec<PlayView>,
    /// Once the game is over: whether its log was written (false: the server could not write
    /// it, and said why on its stderr).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub saved: Option<bool>,
}

#[derive(Serialize)]
struct Hint {
    play: String,
    /// Laizi: what the cards stand for, when wild cards make them another play.
    #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
    reading: Option<String>,
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
            Event::Play(r) => Some(PlayView::of(r.seat, &r.play)),
            Event::Bid { seat, bid } => Some(PlayView { seat, play: format!("bid {bid}"), reading: None }),
            Event::Redeal | Event::Wild(_) => None, // the view shows the wild rank
        })
        .collect()
}

async fn start(
    Shared(app): Shared<Arc<App>>,
    ConnectInfo(client): ConnectInfo<SocketAddr>,
    body: Result<Json<StartBody>, JsonRejection>,
) -> Response {
    let body = match body {
        Ok(Json(b)) => b,
        Err(e) => return ApiError::from(e).into_response(),
    };
    if let Err(e) = count_start(&app, client.ip()) {
        return e.into_response();
    }
    match start_game(app, body).await {
        Ok(reply) => (StatusCode::CREATED, reply).into_response(),
        Err(e) => e.into_response(),
    }
}

async fn start_game(app: Arc<App>, body: StartBody) -> ApiResult<GameReply> {
    // Deal N is played from seed N, as `ddz play --deal N`: the same deal, the same game.
    let seed: u64 = body.deal.map_or_else(rand::random, |n| n as u64);
    let deal = match body.deal {
        Some(n) => app.deals.get(n).cloned().ok_or_else(|| {
            ApiError(StatusCode::BAD_REQUEST, format!("deal {n} does not exist: use 0 to {}", app.deals.len() - 1))
        })?,
        None => generate_deals_for(app.config.rules, 1, seed).remove(0),
    };
    let seat = parse_seat(body.seat.as_deref().unwrap_or("random"), app.config.rules, seed)
        .map_err(|e| ApiError(StatusCode::BAD_REQUEST, e.to_string()))?;
    make_room(&app)?;
    let agents = app.config.agents.clone();
    let rules = crate::play::rules(app.config.bidding, app.config.rules, seed);
    let session = blocking(move || {
        Session::with_rules(&deal, seat, &agents, seed, "human:web", rules)
            .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
    })
    .await?;
    let id = format!("{:032x}", rand::random::<u128>());
    let session = Arc::new(Mutex::new(session));
    {
        // In the table before the agents' first plays: a stop while they think saves it.
        let mut games = app.games();
        admit(&mut games, app.config.max_games)?;
        games.insert(id.clone(), Game { session: session.clone(), last_used: Instant::now(), saved: false });
    }
    let (view, agent_plays) = blocking(move || {
        let plays = play_agents_unlocked(&session);
        Ok((lock(&session).screen(), plays))
    })
    .await?;
    Ok(Json(GameReply { id, view, agent_plays: plays_view(agent_plays), saved: None }))
}

/// The agents' plays until the person's turn, each agent thinking on a copy of the game with
/// the session unlocked: a stop, a sweep or a look at the game never waits for an agent.
fn play_agents_unlocked(session: &Mutex<Session>) -> Vec<Event> {
    let mut made = Vec::new();
    loop {
        let Some(turn) = lock(session).next_agent_turn(&mut made) else { break };
        let answer = turn.think();
        lock(session).apply_agent_answer(answer, &mut made);
    }
    made
}

/// Counts a new game of `client`, or refuses it (429) past its games of the last minute.
fn count_start(app: &App, client: IpAddr) -> Result<(), ApiError> {
    let mut starts = lock(&app.starts);
    let minute = Duration::from_secs(60);
    starts.retain(|_, times| {
        times.retain(|t| t.elapsed() < minute);
        !times.is_empty()
    });
    let times = starts.entry(client).or_default();
    let most = app.config.starts_per_minute.max(1);
    if times.len() >= most {
        return Err(ApiError(
            StatusCode::TOO_MANY_REQUESTS,
            format!("{client} started {most} games in the last minute, the most one client may; try again shortly"),
        ));
    }
    times.push_back(Instant::now());
    Ok(())
}

/// Makes room for one more live game in `games`: finished games (kept for their last view)
/// go first, oldest first; live ones are never dropped. Refuses when `most` are being played.
fn admit(games: &mut HashMap<String, Game>, most: usize) -> Result<(), ApiError> {
    let live = games.values().filter(|g| !g.saved).count();
    if live >= most {
        return Err(ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{live} games are being played, the most this server allows; try again later"),
        ));
    }
    // Fewer live games than `most` leaves a finished one to drop while the total is `most`.
    while games.len() >= most {
        let oldest = games.iter().filter(|(_, g)| g.saved).min_by_key(|(_, g)| g.last_used).map(|(id, _)| id.clone());
        let Some(oldest) = oldest else { break };
        games.remove(&oldest);
    }
    Ok(())
}

/// Drops expired games, then makes room for one more, or says the server is full.
fn make_room(app: &App) -> Result<(), ApiError> {
    sweep(app);
    admit(&mut app.games(), app.config.max_games)
}

/// The session of a live game, marked as used now.
fn session_of(app: &App, id: &str) -> Result<Arc<Mutex<Session>>, ApiError> {
    let mut games = app.games();
    let game = games.get_mut(id).ok_or_else(|| {
        ApiError(StatusCode::NOT_FOUND, format!("unknown game {id:?} (finished long ago, or never started)"))
    })?;
    game.last_used = Instant::now();
    Ok(game.session.clone())
}

async fn show(Shared(app): Shared<Arc<App>>, UrlPath(id): UrlPath<String>) -> ApiResult<GameReply> {
    let session = session_of(&app, &id)?;
    let view = blocking(move || Ok(lock(&session).screen())).await?;
    Ok(Json(GameReply { id, view, agent_plays: Vec::new(), saved: None }))
}

async fn play(
    Shared(app): Shared<Arc<App>>,
    UrlPath(id): UrlPath<String>,
    body: Result<Json<PlayBody>, JsonRejection>,
) -> ApiResult<GameReply> {
    let Json(body) = body?;
    let session = session_of(&app, &id)?;
    let (view, plays, over) = blocking(move || {
        lock(&session).act_human(&body.play).map_err(|reason| ApiError(StatusCode::BAD_REQUEST, reason.0))?;
        let plays = play_agents_unlocked(&session);
        let s = lock(&session);
        Ok((s.screen(), plays, s.is_over()))
    })
    .await?;
    let saved = if over { Some(save_once(&app, &id)) } else { None };
    Ok(Json(GameReply { id, view, agent_plays: plays_view(plays), saved }))
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
    let hint = |(p, q): (crate::game::Play, f32)| {
        let view = PlayView::of(Seat::S0, &p);
        Hint { play: view.play, reading: view.reading, q }
    };
    Ok(Json(Hints { hints: hints.into_iter().map(hint).collect() }))
}

async fn advice(
    Shared(app): Shared<Arc<App>>,
    body: Result<Json<serde_json::Value>, JsonRejection>,
) -> ApiResult<advise::Advice> {
    let Json(body) = body?;
    Ok(Json(app.advisors.advise(body).await?))
}

async fn review_log(
    Shared(app): Shared<Arc<App>>,
    body: Result<Json<crate::logs::GameLog>, JsonRejection>,
) -> ApiResult<review::Reviewed> {
    let Json(log) = body?;
    Ok(Json(app.reviewers.review(log).await?))
}

async fn review_game(Shared(app): Shared<Arc<App>>, UrlPath(id): UrlPath<String>) -> ApiResult<review::Reviewed> {
    let session = session_of(&app, &id)?;
    let log = blocking(move || {
        let s = lock(&session);
        if !s.is_over() {
            return Err(ApiError(StatusCode::CONFLICT, "no review: the game is not over".into()));
        }
        Ok(s.log())
    })
    .await?;
    Ok(Json(app.reviewers.review(log).await?))
}

/// A lock the server holds only to read or replace whole values (a session's move, a game's
/// entry, a client's start times), so what it guards stays valid when a handler panicked
/// holding it: the poisoned lock is taken as it is.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl App {
    fn games(&self) -> std::sync::MutexGuard<'_, HashMap<String, Game>> {
        lock(&self.games)
    }
}

/// How long a request waits for a turn to think (advice, a review) before it is refused (503).
const TURN_WAIT: Duration = Duration::from_secs(10);

/// A turn of `turns`, the bound on how many requests think at once, waited for at most
/// [`TURN_WAIT`].
async fn turn(turns: &tokio::sync::Semaphore) -> Result<tokio::sync::SemaphorePermit<'_>, ApiError> {
    tokio::time::timeout(TURN_WAIT, turns.acquire())
        .await
        .map_err(|_| ApiError(StatusCode::SERVICE_UNAVAILABLE, format!("busy: no turn within {TURN_WAIT:?}")))?
        .map_err(|_| ApiError(StatusCode::SERVICE_UNAVAILABLE, "the server is stopping".into()))
}

/// Agents think on the blocking pool, never on the threads that answer requests.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, ApiError> + Send + 'static) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the game failed: {e}")))?
}

/// Saves a finished game's log once, which frees its slot; whether the log was written.
fn save_once(app: &App, id: &str) -> bool {
    let session = {
        let mut games = app.games();
        match games.get_mut(id) {
            Some(g) if !g.saved => {
                g.saved = true;
                g.session.clone()
            }
            _ => return true, // saved by the request that finished it
        }
    };
    match lock(&session).save(&app.config.log_dir) {
        Ok(_) => true,
        Err(e) => {
            say!("ddz serve: could not save game {id} in {}: {e}", app.config.log_dir.display());
            false
        }
    }
}

/// Drops games idle past the limit, saving the unfinished ones as such.
fn sweep(app: &App) {
    let expired: Vec<Game> = {
        let mut games = app.games();
        let idle = app.config.idle;
        let ids: Vec<String> =
            games.iter().filter(|(_, g)| g.last_used.elapsed() >= idle).map(|(k, _)| k.clone()).collect();
        ids.iter().filter_map(|id| games.remove(id)).collect()
    };
    for game in expired.into_iter().filter(|g| !g.saved) {
        if let Err(e) = lock(&game.session).save(&app.config.log_dir) {
            say!("ddz serve: could not save an expired game in {}: {e}", app.config.log_dir.display());
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
