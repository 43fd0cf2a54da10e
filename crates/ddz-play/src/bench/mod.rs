//! `ddz bench`: speed, measured by medians of several runs; the benches of training (`ddz
//! bench train`, `wire`, `inference`) are `ddz_learn::bench`'s.
//!
//! `ddz bench engine`: how fast the engine plays random games and generates moves, on one
//! thread. A run plays complete random games — deal, then uniformly random legal plays to the
//! end through the one game loop, move generation included — or calls the generator on 20-card
//! leads (the largest hands, where it does the most work).
//!
//! `ddz bench agents`: milliseconds per decision of agents (search agents above all) on one
//! thread, on the same positions, the first agent being the reference of the ratios.
//!
//! `ddz bench serve`: the web server's answer time and many games at once ([`serve`]).
//!
//! Engine can time a reference (OpenSpiel's engine) in the same runs ([`Reference`]).

pub mod serve;

use crate::agents::{Everyone, RandomAgent, play_out};
use crate::cards::Counts;
use crate::game::{GameConfig, MoveList, Rules, State, WildRank, legal_plays};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Why a bench could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The reference's script is not there.
    #[error("the reference needs {0}")]
    Missing(PathBuf),
    /// The interpreter is not set or lacks the reference's packages.
    #[error(transparent)]
    Scripts(#[from] crate::scripts::ScriptsError),
    /// The reference could not be run, or printed no JSON line with the value asked for.
    #[error("the reference failed: {0}")]
    Reference(String),
    /// `--seconds` was not positive or `--runs` was 0.
    #[error("--seconds must be positive and --runs at least 1")]
    Budget,
    /// An agent could not be built.
    #[error(transparent)]
    Agent(#[from] crate::agents::AgentError),
    /// An agent refused a position (one of rules it does not play) or failed on it.
    #[error(transparent)]
    Refused(#[from] crate::agents::Fault),
    /// The web server bench failed: starting the server, or a request of a client.
    #[error("the web server bench: {0}")]
    Serve(String),
}

/// One run of the engine bench (or the medians of several).
#[derive(Debug, Clone, Serialize)]
pub struct EngineRun {
    /// Complete random games played per second.
    pub games_per_s: f64,
    /// Decisions made per second in those games.
    pub decisions_per_s: f64,
    /// Move-generator calls per second on 20-card leads.
    pub lead20_calls_per_s: f64,
    /// Legal plays per such call, on average.
    pub lead20_plays_per_call: f64,
    /// [`crate::game::min_plays`] calls per second on the same 20-card hands.
    pub min_plays20_calls_per_s: f64,
    /// Legal plays per decision in the random games, on average.
    pub plays_per_decision: f64,
    /// The most legal plays of any decision in the random games.
    pub most_plays: f64,
}

/// The engine bench's result: every run, their medians and the reference's, when timed.
#[derive(Debug, Clone, Serialize)]
pub struct EngineReport {
    /// Each run's figures, in order.
    pub runs: Vec<EngineRun>,
    /// The median of each figure over the runs, each taken on its own.
    pub median: EngineRun,
    /// How long each measurement of a run lasted, in seconds.
    pub seconds_per_run: f64,
    /// OpenSpiel's dou_dizhu random games/s per run, when asked for (`--reference`).
    pub reference_games_per_s: Vec<f64>,
    /// median(our games/s ÷ reference games/s) over the runs.
    pub speedup_vs_reference: Option<f64>,
}

/// What a reference program needs: its script and the packages its interpreter must have.
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    /// The script's name in the scripts folder.
    pub script: &'static str,
    /// Python that succeeds when the packages are there.
    pub import_check: &'static str,
    /// The packages, as pip names them.
    pub packages: &'static [&'static str],
}

/// OpenSpiel's C++ dou_dizhu driven from Python (random games).
pub const OPENSPIEL: Needs =
    Needs { script: "bench_reference.py", import_check: "import pyspiel", packages: &["open_spiel==2.0.2"] };

/// DouZero's own DMC trainer on the CPU (2 actors, OMP_NUM_THREADS=1).
pub const DOUZERO: Needs = Needs {
    script: "bench_douzero.py",
    import_check: "import douzero.dmc",
    packages: &["douzero==1.1.0", "rlcard", "gitpython"],
};

/// A reference program run with the configured interpreter ([`crate::scripts`]): a Python
/// script that prints one JSON line.
pub struct Reference {
    python: std::path::PathBuf,
    script: std::path::PathBuf,
}

impl Reference {
    /// The reference `needs` describes, when the interpreter has its packages (the CLI installs
    /// them on first use).
    pub fn prepare(needs: Needs) -> Result<Reference, BenchError> {
        let scripts = crate::scripts::configured()?;
        let script = scripts.script(needs.script);
        if !script.exists() {
            return Err(BenchError::Missing(script));
        }
        scripts.require(needs.import_check, needs.packages, "the reference bench")?;
        Ok(Reference { python: scripts.python().to_path_buf(), script })
    }

    /// Runs the script with `args` and reads `key` from its JSON line.
    pub fn measure(&self, args: &[String], key: &str) -> Result<f64, BenchError> {
        let failed = |why: String| BenchError::Reference(why);
        let out = std::process::Command::new(&self.python)
            .arg(&self.script)
            .args(args)
            .output()
            .map_err(|e| failed(format!("running it: {e}")))?;
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| failed(format!("its output: {e}: {}", String::from_utf8_lossy(&out.stderr))))?;
        v[key].as_f64().ok_or_else(|| failed(v.to_string()))
    }

    /// Random games per second over `seconds` (OpenSpiel).
    pub fn games_per_s(&self, seconds: f64, seed: u64) -> Result<f64, BenchError> {
        self.measure(&[seconds.to_string(), seed.to_string()], "games_per_s")
    }
}

/// The median of `v` (the mean of the middle two for an even count); panics when `v` is empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Random games played for a time: how many, their decisions and legal plays.
#[derive(Debug, Clone, Copy, Default)]
pub struct RandomGames {
    /// Games played to the end.
    pub games: u64,
    /// Decisions made in them.
    pub decisions: u64,
    /// Legal plays summed over the decisions.
    pub plays: u64,
    /// The most legal plays of one decision.
    pub most_plays: usize,
    /// Seconds they took.
    pub seconds: f64,
}

/// Plays random games under `rules` (the landlord fixed) for `budget`.
pub fn random_games(budget: Duration, seed: u64, rules: Rules) -> RandomGames {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut random = RandomAgent::new(crate::seeds::of(seed, crate::seeds::Stream::SECOND));
    let mut out = RandomGames::default();
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            let mut s = State::new(GameConfig { rules, ..GameConfig::default() });
            s.deal_random(&mut rng);
            let _ = play_out(&mut s, &mut Everyone(&mut random), |_, _, turn, _| {
                out.decisions += 1;
                out.plays += turn.plays.len() as u64;
                out.most_plays = out.most_plays.max(turn.plays.len());
            }); // random always answers
            out.games += 1;
        }
        if start.elapsed() >= budget {
            out.seconds = start.elapsed().as_secs_f64();
            return out;
        }
    }
}

/// 1024 landlord hands of 20 cards from seeded random deals, with the wild rank under laizi.
fn landlord_hands(seed: u64, rules: Rules) -> Vec<(Counts, Option<WildRank>)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    (0..1024)
        .map(|_| {
            let mut s = State::new(GameConfig { rules, ..GameConfig::default() });
            s.deal_random(&mut rng);
            (s.hand(s.landlord().expect("no bidding: the landlord is fixed")), s.wild())
        })
        .collect()
}

/// Calls [`crate::game::min_plays`] on 20-card hands for `budget`; returns (calls, seconds).
pub fn min_plays20(budget: Duration, seed: u64) -> (u64, f64) {
    let hands: Vec<Counts> = landlord_hands(seed, Rules::Standard).into_iter().map(|(h, _)| h).collect();
    let (mut calls, mut sum) = (0u64, 0u64);
    let start = Instant::now();
    loop {
        // The sum keeps the calls from being optimised away.
        sum += hands.iter().map(|h| crate::game::min_plays(*h) as u64).sum::<u64>();
        calls += hands.len() as u64;
        if start.elapsed() >= budget {
            std::hint::black_box(sum);
            return (calls, start.elapsed().as_secs_f64());
        }
    }
}

/// Calls the generator on 20-card lead hands for `budget`; returns (calls, plays, seconds).
pub fn lead20_generation(budget: Duration, seed: u64, rules: Rules) -> (u64, u64, f64) {
    let hands = landlord_hands(seed, rules);
    let mut moves = MoveList::with_capacity(8192);
    let (mut calls, mut plays) = (0u64, 0u64);
    let start = Instant::now();
    loop {
        for &(hand, wild) in &hands {
            match wild {
                Some(w) => crate::game::laizi::legal_plays(hand, w, None, &mut moves),
                None => legal_plays(hand, None, &mut moves),
            }
            plays += moves.len() as u64;
        }
        calls += hands.len() as u64;
        if start.elapsed() >= budget {
            return (calls, plays, start.elapsed().as_secs_f64());
        }
    }
}

/// Runs the engine benchmark under `rules`: `runs` runs of `seconds_per_run` seconds for each
/// measurement, each run followed by one of the reference when it is given (so both see the
/// same machine).
pub fn bench_engine(
    seconds_per_run: f64,
    runs: usize,
    seed: u64,
    rules: Rules,
    reference: Option<&Reference>,
) -> Result<EngineReport, BenchError> {
    let budget = Duration::from_secs_f64(seconds_per_run);
    let mut reference_games_per_s = Vec::new();
    let runs: Vec<EngineRun> = (0..runs.max(1))
        .map(|i| {
            if let Some(r) = reference {
                reference_games_per_s.push(r.games_per_s(seconds_per_run, seed + i as u64)?);
            }
            let games = random_games(budget, seed + i as u64, rules);
            let (calls, plays, t2) = lead20_generation(budget, seed + 1000 + i as u64, rules);
            let (min_calls, t3) = min_plays20(budget, seed + 1000 + i as u64);
            Ok(EngineRun {
                games_per_s: games.games as f64 / games.seconds,
                decisions_per_s: games.decisions as f64 / games.seconds,
                lead20_calls_per_s: calls as f64 / t2,
                lead20_plays_per_call: plays as f64 / calls as f64,
                min_plays20_calls_per_s: min_calls as f64 / t3,
                plays_per_decision: games.plays as f64 / games.decisions.max(1) as f64,
                most_plays: games.most_plays as f64,
            })
        })
        .collect::<Result<_, BenchError>>()?;
    let pick = |f: fn(&EngineRun) -> f64| median(runs.iter().map(f).collect());
    let medians = EngineRun {
        games_per_s: pick(|r| r.games_per_s),
        decisions_per_s: pick(|r| r.decisions_per_s),
        lead20_calls_per_s: pick(|r| r.lead20_calls_per_s),
        lead20_plays_per_call: pick(|r| r.lead20_plays_per_call),
        min_plays20_calls_per_s: pick(|r| r.min_plays20_calls_per_s),
        plays_per_decision: pick(|r| r.plays_per_decision),
        most_plays: pick(|r| r.most_plays),
    };
    let speedup_vs_reference = (!reference_games_per_s.is_empty())
        .then(|| median(runs.iter().zip(&reference_games_per_s).map(|(r, x)| r.games_per_s / x).collect()));
    Ok(EngineReport { runs, median: medians, seconds_per_run, reference_games_per_s, speedup_vs_reference })
}

/// Solver speed at one size: positions with `cards` cards left in all (or the nearest fewer).
#[derive(Debug, Clone, Serialize)]
pub struct SolveSize {
    /// The size asked for: cards left in all three hands, at most.
    pub cards: u32,
    /// Positions timed (fewer than asked when the games gave too few).
    pub positions: usize,
    /// Positions solved within the node budget; the others count as unsolved.
    pub solved: usize,
    /// Median solving time of the solved positions, in milliseconds (NaN when none was solved).
    pub median_ms: f64,
    /// 90th percentile of those times, in milliseconds (NaN when none was solved).
    pub p90_ms: f64,
    /// Median nodes searched per solved position (NaN when none was solved).
    pub median_nodes: f64,
    /// All nodes over all solving time.
    pub nodes_per_s: f64,
}

/// Open-hand positions from rule self-play games: for each game, the first decision at which at
/// most `cards` cards are left in all three hands.
pub fn solver_positions(cards: u32, n: usize, seed: u64) -> Vec<crate::search::Position> {
    let mut rule = crate::agents::RuleAgent::new();
    let mut out = Vec::new();
    for deal in crate::game::generate_deals(n * 100, seed ^ cards as u64) {
        let mut state = State::new(GameConfig::default());
        state.deal_hands_unchecked(deal.hands, deal.bottom); // a generated deal is valid
        let mut found = None;
        let _ = play_out(&mut state, &mut Everyone(&mut rule), |_, s, _, _| {
            let left: u32 = crate::game::Seat::ALL.iter().map(|&seat| s.hand(seat).len()).sum();
            if found.is_none() && left <= cards {
                found = crate::search::Position::of_state(s);
            }
        });
        out.extend(found);
        if out.len() == n {
            break;
        }
    }
    out
}

/// The exact solver on one core, from scratch for each position (a fresh table), at each size.
pub fn bench_solve(sizes: &[u32], n: usize, seed: u64, max_nodes: u64) -> Vec<SolveSize> {
    sizes
        .iter()
        .map(|&cards| {
            let positions = solver_positions(cards, n, seed);
            let (mut ms, mut nodes, mut total_nodes, mut total_s) = (Vec::new(), Vec::new(), 0u64, 0.0);
            for pos in &positions {
                let mut solver = crate::search::Solver::new();
                let start = Instant::now();
                let solved = solver.solve_within(pos, max_nodes);
                let seconds = start.elapsed().as_secs_f64();
                if let Some(s) = solved {
                    ms.push(seconds * 1000.0);
                    nodes.push(s.nodes as f64);
                    total_nodes += s.nodes;
                    total_s += seconds;
                }
            }
            SolveSize {
                cards,
                positions: positions.len(),
                solved: ms.len(),
                median_ms: if ms.is_empty() { f64::NAN } else { median(ms.clone()) },
                p90_ms: p90(ms),
                median_nodes: if nodes.is_empty() { f64::NAN } else { median(nodes) },
                nodes_per_s: total_nodes as f64 / total_s.max(1e-9),
            }
        })
        .collect()
}

/// Decisions from rule self-play games (a tenth of the moves random, for variety): one per
/// game, at a uniformly drawn turn with more than one legal play.
pub fn decision_positions(n: usize, seed: u64) -> Vec<State> {
    use rand::RngExt;
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut rule = crate::agents::RuleAgent::new();
    let mut out = Vec::new();
    let mut plays = MoveList::new();
    for deal in crate::game::generate_deals(n, seed) {
        let mut state = State::new(GameConfig::default());
        state.deal_hands_unchecked(deal.hands, deal.bottom); // a generated deal is valid
        let mut choices = Vec::new();
        while !state.is_terminal() {
            state.legal_plays_into(&mut plays);
            if plays.len() > 1 {
                choices.push(state.clone());
            }
            let pick = if rng.random_range(0..10) == 0 {
                rng.random_range(0..plays.len())
            } else {
                crate::agents::decide(&mut rule, &state, &plays).index
            };
            state.apply_play_unchecked(plays[pick]);
        }
        out.push(choices.swap_remove(rng.random_range(0..choices.len())));
    }
    out
}

/// One agent's time per decision.
#[derive(Clone, Debug, Serialize)]
pub struct AgentTiming {
    /// The agent's spec, as written.
    pub agent: String,
    /// Decisions timed (one per position).
    pub decisions: usize,
    /// Median time per decision, in milliseconds.
    pub median_ms: f64,
    /// 90th percentile of the time per decision, in milliseconds.
    pub p90_ms: f64,
    /// Mean time per decision, in milliseconds.
    pub mean_ms: f64,
    /// Median over the first agent's median.
    pub ratio_to_first: f64,
}

/// Times each agent's decision at each position (the caller sets one thread).
pub fn bench_agents(
    specs: &[crate::agents::AgentSpec],
    positions: &[State],
    progress: &indicatif::ProgressBar,
) -> Result<Vec<AgentTiming>, BenchError> {
    let mut out: Vec<AgentTiming> = Vec::new();
    let mut plays = MoveList::new();
    for spec in specs {
        let mut agent = spec.build()?;
        let mut ms = Vec::new();
        for (i, state) in positions.iter().enumerate() {
            state.legal_plays_into(&mut plays);
            agent.reset(i as u64);
            let Some(seat) = state.current_player() else { continue };
            let view = crate::game::View::of(state, seat);
            let start = Instant::now();
            let Some(turn) = crate::agents::Turn::new(&view, &plays) else { continue };
            std::hint::black_box(crate::agents::ask(agent.as_mut(), turn)?);
            ms.push(start.elapsed().as_secs_f64() * 1000.0);
            progress.inc(1);
        }
        let mean_ms = ms.iter().sum::<f64>() / ms.len().max(1) as f64;
        let median_ms = median(ms.clone());
        let ratio_to_first = out.first().map_or(1.0, |first| median_ms / first.median_ms);
        out.push(AgentTiming {
            agent: spec.to_string(),
            decisions: ms.len(),
            median_ms,
            p90_ms: p90(ms),
            mean_ms,
            ratio_to_first,
        });
    }
    Ok(out)
}

/// The 90th percentile (NaN for none).
pub fn p90(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(((v.len() as f64 * 0.9).ceil() as usize).saturating_sub(1)).copied().unwrap_or(f64::NAN)
}

#[cfg(test)]
mod tests {
    #[test]
    fn solver_positions_come_from_real_games() {
        let positions = super::solver_positions(10, 5, 1);
        assert_eq!(positions.len(), 5);
        assert!(positions.iter().all(|p| p.hands.iter().map(|h| h.len()).sum::<u32>() <= 10));
        let sizes = super::bench_solve(&[8], 3, 1, 0);
        assert_eq!((sizes[0].positions, sizes[0].solved), (3, 3));
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(super::median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(super::median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
