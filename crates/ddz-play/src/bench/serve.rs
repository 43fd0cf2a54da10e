//! `ddz bench serve`: the web server under load, over real HTTP on 127.0.0.1.
//!
//! It starts `ddz serve`'s router on a free port in this process, then (1) plays games one at a
//! time, timing each play request — the person's play and both agents' replies — (2) plays
//! many games at once, each by its own client thread, to the end, and (3) asks `/api/advise`
//! about positions of random games, from one client and then from [`ADVICE_CLIENTS`] at once.
//! The person's plays are random legal plays (seeded). Nothing may be lost: every game must reach its result and every one must
//! be in the log file, replaying through the engine. Bounded in games and in time.

use super::{BenchError, median, p90};
use crate::agents::AgentSpec;
use crate::cards::Counts;
use crate::game::{MoveList, Play, Role, legal_plays};
use crate::logs::read_logs;
use crate::serve::ServeConfig;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// What was measured.
#[derive(Debug, Clone, Serialize)]
pub struct ServeReport {
    /// The server's two agents, as specs (the first also advises).
    pub agents: [String; 2],
    /// Games played one at a time for the latency.
    pub latency_games: usize,
    /// Play requests timed in those games.
    pub latency_plays: usize,
    /// Median time of those play requests, in milliseconds.
    pub median_ms: f64,
    /// 90th percentile of those times, in milliseconds.
    pub p90_ms: f64,
    /// Games played at once.
    pub concurrent_games: usize,
    /// Of those, the games that reached their result without an error.
    pub concurrent_finished: usize,
    /// Wall time of the games played at once, in seconds.
    pub concurrent_seconds: f64,
    /// Median time of a play request in the games played at once, in milliseconds.
    pub concurrent_median_ms: f64,
    /// 90th percentile of those times, in milliseconds.
    pub concurrent_p90_ms: f64,
    /// Games in the log file, and how many of them replay to the end.
    pub logged: usize,
    /// Logged games that replay through the engine to the end.
    pub replayed: usize,
    /// Every game finished and logged.
    pub nothing_lost: bool,
    /// `/api/advise` answers (the first agent advising), one client at a time.
    pub advice_requests: usize,
    /// Median time of an advice request, in milliseconds.
    pub advice_median_ms: f64,
    /// 90th percentile of those times, in milliseconds.
    pub advice_p90_ms: f64,
    /// The same positions asked by [`ADVICE_CLIENTS`] clients at once.
    pub advice_concurrent_median_ms: f64,
    /// 90th percentile of the advice times with the clients at once, in milliseconds.
    pub advice_concurrent_p90_ms: f64,
}

/// Clients asking for advice at once in the bench's third phase.
pub const ADVICE_CLIENTS: usize = 64;

/// Play requests of the native protocol at positions of random games (seeded), each a decision
/// with a choice.
fn advice_positions(n: usize, seed: u64) -> Vec<String> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(n);
    let mut plays = MoveList::new();
    while out.len() < n {
        let mut state = crate::game::State::new(Default::default());
        state.deal_random(&mut rng);
        let stop = rng.random_range(0..40);
        for _ in 0..stop {
            if state.is_terminal() {
                break;
            }
            state.legal_plays_into(&mut plays);
            state.apply_play_unchecked(plays[rng.random_range(0..plays.len())]);
        }
        state.legal_plays_into(&mut plays);
        if let Some(seat) = state.current_player().filter(|_| !plays.is_empty()) {
            let request = crate::game::View::of(&state, seat);
            out.push(serde_json::to_string(&request).expect("a request serialises"));
        }
    }
    out
}

/// The time of each advice request in `requests`, or what went wrong.
fn ask_advice(base: &str, requests: &[String]) -> Result<Vec<f64>, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into();
    let url = format!("{base}/api/advise");
    let mut times = Vec::with_capacity(requests.len());
    for body in requests {
        let start = Instant::now();
        let mut reply = agent
            .post(&url)
            .header("Content-Type", "application/json")
            .send(body.as_str())
            .map_err(|e| format!("POST {url}: {e}"))?;
        let status = reply.status();
        let value = reply.body_mut().read_json::<Value>().map_err(|e| format!("POST {url}: {e}"))?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
        if !status.is_success() || value["play"].as_str().is_none() {
            return Err(format!("POST {url} {body}: {status}: {value}"));
        }
    }
    Ok(times)
}

/// One client's game: the time of each play request, or what went wrong.
fn client_game(base: &str, seat: &str, seed: u64, deadline: Instant) -> Result<Vec<f64>, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(60)))
        .http_status_as_error(false)
        .build()
        .into();
    let post = |url: String, body: Value| -> Result<Value, String> {
        let mut reply = agent.post(&url).send_json(body).map_err(|e| format!("POST {url}: {e}"))?;
        let status = reply.status();
        let value = reply.body_mut().read_json::<Value>().map_err(|e| format!("POST {url}: {e}"))?;
        if status.is_success() { Ok(value) } else { Err(format!("POST {url}: {status}: {}", value["error"])) }
    };
    let mut game = post(format!("{base}/api/games"), json!({ "seat": seat }))?;
    let id = game["id"].as_str().ok_or("no game id")?.to_string();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut times = Vec::new();
    while game["view"]["result"].is_null() {
        if Instant::now() > deadline {
            return Err(format!("game {id} ran past the time limit"));
        }
        let play = random_legal(&game["view"], &mut rng)?;
        let start = Instant::now();
        game = post(format!("{base}/api/games/{id}/play"), json!({ "play": play.to_string() }))?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(times)
}

/// A random legal play of the person, from the cards and the play to beat the view shows.
fn random_legal(view: &Value, rng: &mut SmallRng) -> Result<Play, String> {
    let hand: String = view["hand"].as_array().ok_or("no hand")?.iter().filter_map(|c| c["rank"].as_str()).collect();
    let hand = Counts::parse(&hand).map_err(|e| e.to_string())?;
    let rival = match view["rival"]["play"].as_str() {
        Some(p) => Some(Play::parse(p).map_err(|e| e.to_string())?),
        None => None,
    };
    let mut plays = MoveList::new();
    legal_plays(hand, rival.as_ref(), &mut plays);
    Ok(plays[rng.random_range(0..plays.len())])
}

/// Runs the server in this process and both phases against it; `log_dir` receives the logs.
pub fn bench_serve(
    agents: &[AgentSpec; 2],
    latency_games: usize,
    concurrent: usize,
    seed: u64,
    limit: Duration,
    log_dir: &Path,
) -> Result<ServeReport, BenchError> {
    let deadline = Instant::now() + limit;
    let _ = std::fs::remove_file(log_dir.join("games.jsonl"));
    let mut config = ServeConfig::new(agents.clone(), log_dir.to_path_buf());
    config.max_games = latency_games + concurrent.max(1);
    config.starts_per_minute = config.max_games; // one client starts them all
    let base = start_server(config)?;
    let mut latency = Vec::new();
    for k in 0..latency_games {
        let times = client_game(&base, Role::ALL[k % Role::ALL.len()].name(), seed + k as u64, deadline)
            .map_err(BenchError::Serve)?;
        latency.extend(times);
    }
    let started = Instant::now();
    let results: Vec<Result<Vec<f64>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..concurrent)
            .map(|k| {
                let base = &base;
                scope.spawn(move || {
                    client_game(base, Role::ALL[k % Role::ALL.len()].name(), seed + 1000 + k as u64, deadline)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err("a client panicked".into()))).collect()
    });
    let concurrent_seconds = started.elapsed().as_secs_f64();
    for e in results.iter().filter_map(|r| r.as_ref().err()) {
        eprintln!("ddz bench serve: {e}");
    }
    let finished = results.iter().filter(|r| r.is_ok()).count();
    let times: Vec<f64> = results.into_iter().filter_map(Result::ok).flatten().collect();
    let (logged, replayed) = count_logs(&log_dir.join("games.jsonl"));
    let games = latency_games + concurrent;
    let positions = advice_positions(ADVICE_CLIENTS * 4, crate::seeds::of(seed, crate::seeds::Stream::ADVICE));
    let advice = ask_advice(&base, &positions).map_err(BenchError::Serve)?;
    let advice_concurrent: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = positions.chunks(4).map(|part| scope.spawn(|| ask_advice(&base, part))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a client panicked".into())))
            .collect::<Result<Vec<_>, _>>()
    })
    .map_err(BenchError::Serve)?
    .into_iter()
    .flatten()
    .collect();
    Ok(ServeReport {
        agents: [agents[0].to_string(), agents[1].to_string()],
        latency_games,
        latency_plays: latency.len(),
        median_ms: median(latency.clone()),
        p90_ms: p90(latency),
        concurrent_games: concurrent,
        concurrent_finished: finished,
        concurrent_seconds,
        concurrent_median_ms: median(times.clone()),
        concurrent_p90_ms: p90(times),
        logged,
        replayed,
        nothing_lost: finished == concurrent && logged == games && replayed == games,
        advice_requests: advice.len(),
        advice_median_ms: median(advice.clone()),
        advice_p90_ms: p90(advice),
        advice_concurrent_median_ms: median(advice_concurrent.clone()),
        advice_concurrent_p90_ms: p90(advice_concurrent),
    })
}

/// Games in the log file and how many replay (a log is written when its game ends, so the file
/// is complete once every client has its result).
fn count_logs(file: &Path) -> (usize, usize) {
    read_logs(file, true).map_or((0, 0), |(good, bad)| (good.len() + bad.len(), good.len()))
}

/// Serves on a free port of 127.0.0.1 from a background runtime; returns the base URL.
fn start_server(config: ServeConfig) -> Result<String, BenchError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| BenchError::Serve(format!("starting a runtime: {e}")))?;
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .map_err(|e| BenchError::Serve(format!("binding 127.0.0.1: {e}")))?;
    let addr = listener.local_addr().map_err(|e| BenchError::Serve(e.to_string()))?;
    std::thread::spawn(move || rt.block_on(crate::serve::serve(listener, config)));
    Ok(format!("http://{addr}"))
}
