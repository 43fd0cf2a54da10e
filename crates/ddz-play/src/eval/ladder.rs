//! The ladder: a fixed roster played round robin on one deal set (the `test` deals for
//! reported figures), both seatings; a WP/ADP matrix with 95% intervals and a rating per agent
//! with its interval, fitted to every game.
//!
//! Each pairing is kept in the output folder as soon as it is played (written atomically), so
//! a ladder that is stopped resumes where it was: a pairing is played again only when its
//! agents or deals changed, by content (hashes of the deals, and of each agent's spec and the
//! files it reads: [`super::content`]), not only by name. A slow agent (search) plays only the first
//! `slow_deals` deals; its pairings say how many they played, and its intervals are wider.

use super::bidding::{AllPass, Bidding, BiddingReport, evaluate_bidding};
use super::{EvalError, MatchReport, evaluate_under};
use crate::agents::AgentSpec;
use crate::agents::bidder::BidderSpec;
use crate::game::Deal;
use crate::game::Rules;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One rung: a short label for tables and the agent it stands for.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The name tables and pairing files use.
    pub label: String,
    /// The agent.
    pub spec: AgentSpec,
    /// Plays only the first `slow_deals` deals of the set.
    pub slow: bool,
}

impl std::str::FromStr for Entry {
    type Err = crate::agents::AgentError;
    /// `LABEL=SPEC` or just SPEC (then the label is the spec's name).
    fn from_str(s: &str) -> Result<Entry, Self::Err> {
        let (label, spec) = match s.split_once('=') {
            Some((label, spec)) if !label.contains([':', '?', ' ', '/']) => (label.trim().to_string(), spec),
            _ => (String::new(), s),
        };
        let spec: AgentSpec = spec.parse()?;
        let label = if label.is_empty() { spec.to_string() } else { label };
        let slow = is_search(&spec);
        Ok(Entry { label, spec, slow })
    }
}

/// Search agents spend a hundred times a network's time on a decision.
fn is_search(spec: &AgentSpec) -> bool {
    matches!(
        spec,
        AgentSpec::Pimc(..)
            | AgentSpec::Ismcts(..)
            | AgentSpec::AlphaBeta(..)
            | AgentSpec::Auto(..)
            | AgentSpec::Cheat(..)
    )
}

/// The default roster, as `ddz ladder` plays it without `--agents`: the simple agents, RLCard's
/// rule agent (in this process: `rlcard`), our reference DouZero (its networks played natively),
/// our main networks (the ablations' networks stay out), and the default search agent.
pub const DEFAULT_ROSTER: &[&str] = &[
    "random",
    "rule",
    "rlcard",
    "douzero-1h=douzero:models/douzero-1h",
    "dmc-1h=checkpoint:models/dmc-1h/model.safetensors",
    "dmc-2h=checkpoint:models/dmc-2h/model.safetensors",
    "dmc-v2-1h=checkpoint:models/dmc-v2-1h/model.safetensors",
    "dmc-bid-1h=checkpoint:models/dmc-bid-1h/model.safetensors",
    "dmc-td-2h=checkpoint:models/dmc-td-2h/model.safetensors",
    "dmc-rule-2h=checkpoint:models/dmc-rule-2h/model.safetensors",
    "dmc-default-2h=checkpoint:models/dmc-default-2h/model.safetensors",
    "ema-30m=checkpoint:models/ema-30m/model.safetensors",
    "ema-2h=checkpoint:models/ema-2h/model.safetensors",
    "auto=auto:models/dmc-rule-2h/model.safetensors",
];

/// The default roster of a two-player ladder (`ddz ladder --rules two_player`): the simple
/// agents and the shipped two-player network (the outside opponents play three-seat games).
pub const TWO_PLAYER_ROSTER: &[&str] =
    &["random", "rule", "two-player-1h=checkpoint:models/two-player-1h/model.safetensors"];

/// What the ladder plays on and where it keeps its results.
pub struct LadderConfig {
    /// The rules of every game: standard, or two-player (fixed landlord; not with bidding).
    pub rules: Rules,
    /// The deal set's name, as reports state it (`test`, `dev` or a file).
    pub deal_set: String,
    /// Deals a slow agent's pairings play (a prefix of the set).
    pub slow_deals: usize,
    /// Threads of each fixed-landlord pairing (pairings with bidding play in one thread).
    pub threads: usize,
    /// The whole game with bidding: every deal in all six seatings (each agent alone against
    /// two copies of the other in each seat), as `ddz eval --bidding` plays it.
    pub bidding: bool,
    /// The folder of the pairings, the report and the plot.
    pub out: PathBuf,
}

/// A played pairing as it is kept on disk.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Kept {
    a: String,
    b: String,
    deal_set: String,
    deals: usize,
    /// With bidding: `report` is a `ddz eval --bidding` report.
    #[serde(default)]
    bidding: bool,
    /// Content hashes ([`super::content`]) of A, B and the deals played: a pairing is kept
    /// only while all three are the same. Empty in files written before they were recorded:
    /// such a file is taken by its names once and stamped with today's hashes.
    #[serde(default)]
    a_hash: String,
    #[serde(default)]
    b_hash: String,
    #[serde(default)]
    deals_hash: String,
    /// A's wins and the games counted (forfeits count, rule mismatches do not).
    wins: u32,
    games: u32,
    report: serde_json::Value,
}

/// One cell of the matrix, from the row's side.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    /// Deals the pairing played.
    pub deals: usize,
    /// Games counted in WP (forfeits count, rule mismatches do not; with bidding, the
    /// contested games).
    pub games: u32,
    /// The row's wins among `games`.
    pub wins: u32,
    /// The row's WP: `wins` / `games` (NaN without games).
    pub wp: f64,
    /// Half-width of the 95% interval of `wp`.
    pub wp_ci95: f64,
    /// WP of the row's agent as landlord.
    pub wp_landlord: f64,
    /// Half-width of the 95% interval of `wp_landlord`.
    pub wp_landlord_ci95: f64,
    /// WP of the row's agent as farmers.
    pub wp_farmers: f64,
    /// Half-width of the 95% interval of `wp_farmers`.
    pub wp_farmers_ci95: f64,
    /// The row's average points per game.
    pub adp: f64,
    /// Half-width of the 95% interval of `adp`.
    pub adp_ci95: f64,
    /// Games left out because a bot said they left its rules (0 with bidding).
    pub rule_mismatches: u32,
    /// Games the row's agent gave up, counted as lost (0 with bidding).
    pub forfeits: u32,
}

/// A rating with its 95% interval (Elo scale, mean 1500).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Rating {
    /// The fitted rating.
    pub rating: f64,
    /// Lower end of the 95% interval (2.5% bootstrap quantile).
    pub low: f64,
    /// Upper end of the 95% interval (97.5% bootstrap quantile).
    pub high: f64,
}

/// A played ladder: the roster, the matrix of pairings and the ratings, in roster order.
#[derive(Debug, Serialize)]
pub struct Ladder {
    /// The deal set's name, as reports state it.
    pub deal_set: String,
    /// Deals in the set (what the pairings of agents that are not slow play).
    pub deals: usize,
    /// Deals the pairings of a slow agent play (at most `deals`).
    pub slow_deals: usize,
    /// Each agent's label.
    pub labels: Vec<String>,
    /// Each agent's spec.
    pub specs: Vec<String>,
    /// Whether each agent is slow (plays only the first `slow_deals` deals).
    pub slow: Vec<bool>,
    /// `cells[i][j]`: agent i against agent j; None on the diagonal.
    pub cells: Vec<Vec<Option<Cell>>>,
    /// Each agent's rating, fitted to every game.
    pub ratings: Vec<Rating>,
    /// The rules the games were played under.
    pub rules: &'static str,
    /// Whether the games were played with bidding (all six seatings).
    pub bidding: bool,
}

fn pair_file(out: &Path, a: &Entry, b: &Entry) -> PathBuf {
    let clean =
        |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect::<String>();
    out.join("pairs").join(format!("{}--{}.json", clean(&a.label), clean(&b.label)))
}

/// Plays every pairing not yet kept in `config.out`, then fits the ratings. `progress` sees
/// (pairings done, pairings in all, the pairing just played).
pub fn run(
    roster: &[Entry],
    deals: &[Deal],
    config: &LadderConfig,
    mut progress: impl FnMut(usize, usize, &str),
) -> Result<Ladder, EvalError> {
    let n = roster.len();
    if n < 2 {
        return Err(EvalError::LeagueTooSmall);
    }
    if deals.is_empty() {
        return Err(EvalError::NoDeals);
    }
    // A rating says how strong a player is that sees what its seat sees; one that sees every
    // hand is measured against others with `ddz eval`, beside the ladder, never in it.
    for entry in roster {
        entry.spec.clone().refuse_cheat("the ladder (its ratings)")?;
    }
    let io = |path: &Path, e: crate::error::Cause| EvalError::Curve { path: path.to_path_buf(), reason: e };
    let pairs_dir = config.out.join("pairs");
    std::fs::create_dir_all(&pairs_dir).map_err(|e| io(&pairs_dir, e.into()))?;
    let hashes: Vec<String> = roster
        .iter()
        .map(|e| {
            super::content::of_agent(&e.spec)
                .map_err(|e| EvalError::Curve { path: config.out.clone(), reason: e.into() })
        })
        .collect::<Result<_, _>>()?;
    // The two deal prefixes pairings play, each hashed once.
    let all_deals = super::content::of_deals(deals);
    let slow_deals = super::content::of_deals(&deals[..config.slow_deals.min(deals.len())]);
    let mut cells: Vec<Vec<Option<Cell>>> = vec![vec![None; n]; n];
    let total = n * (n - 1) / 2;
    let mut done = 0;
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (&roster[i], &roster[j]);
            let count = if a.slow || b.slow { config.slow_deals.min(deals.len()) } else { deals.len() };
            let deals_hash = if count == deals.len() { &all_deals } else { &slow_deals };
            let hashes = [hashes[i].as_str(), hashes[j].as_str(), deals_hash.as_str()];
            let kept = pairing(a, b, &deals[..count], hashes, config)?;
            let (ab, ba) = if kept.bidding { cells_of_bidding(&kept) } else { cells_of(&kept) };
            cells[i][j] = Some(ab);
            cells[j][i] = Some(ba);
            done += 1;
            progress(done, total, &format!("{} vs {}", a.label, b.label));
        }
    }
    let ratings = fit_ratings(&cells);
    Ok(Ladder {
        deal_set: config.deal_set.clone(),
        deals: deals.len(),
        slow_deals: config.slow_deals.min(deals.len()),
        labels: roster.iter().map(|e| e.label.clone()).collect(),
        specs: roster.iter().map(|e| e.spec.to_string()).collect(),
        slow: roster.iter().map(|e| e.slow).collect(),
        cells,
        ratings,
        rules: match (config.bidding, config.rules) {
            (true, _) => BIDDING_RULES,
            (false, Rules::TwoPlayer) => super::RULES_TWO_PLAYER,
            (false, _) => super::RULES,
        },
        bidding: config.bidding,
    })
}

/// The pairing of `a` and `b` on `deals`: as kept in `config.out` while its names, deals and
/// content hashes (`[a, b, deals]`) are the same, else played and kept. A file kept before
/// hashes were recorded is taken by its names and stamped with today's.
fn pairing(a: &Entry, b: &Entry, deals: &[Deal], hashes: [&str; 3], config: &LadderConfig) -> Result<Kept, EvalError> {
    let file = pair_file(&config.out, a, b);
    let io = |e: crate::error::Cause| EvalError::Curve { path: file.clone(), reason: e };
    let kept = std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str::<Kept>(&t).ok()).filter(|k| {
        a.spec.is_named(&k.a)
            && b.spec.is_named(&k.b)
            && k.deal_set == config.deal_set
            && k.deals == deals.len()
            && k.bidding == config.bidding
            && [&k.a_hash, &k.b_hash, &k.deals_hash]
                .iter()
                .zip(hashes)
                .all(|(kept, now)| kept.is_empty() || *kept == now)
    });
    let mut k = match kept {
        Some(k) if !k.deals_hash.is_empty() => return Ok(k),
        Some(k) => k,
        None => {
            let hidden = indicatif::ProgressBar::hidden();
            if config.bidding {
                let (x, y) = (bidding_of(&a.spec), bidding_of(&b.spec));
                let report = evaluate_bidding(&x, &y, deals, AllPass::Redeal, &hidden)?;
                keep_bidding(&report, &config.deal_set, &a.spec, &b.spec)
            } else {
                let report = evaluate_under(config.rules, &a.spec, &b.spec, deals, config.threads, &hidden, false)?;
                keep(&report, &config.deal_set)
            }
            .map_err(|e| io(e.into()))?
        }
    };
    [k.a_hash, k.b_hash, k.deals_hash] = hashes.map(String::from);
    let text = serde_json::to_string_pretty(&k).map_err(|e| io(e.into()))?;
    crate::run::write_atomically(&file, &text).map_err(|e| io(e.into()))?;
    Ok(k)
}

/// The rules of a ladder with bidding, as its report states them.
const BIDDING_RULES: &str = "with bidding, each agent alone against two of the other in every seat (all six seatings of a \
     deal); bidding 1-2-3, all pass = dealt again; points: bid × 2 per bomb or rocket × 2 for a spring, landlord twice; \
     bot: agents bid with the rule bidder";

/// Who bids for an agent on a ladder with bidding: its own bidding, except for outside programs
/// (DouZero's agents do not bid), which bid with the rule bidder.
fn bidding_of(spec: &AgentSpec) -> Bidding<'_> {
    static RULE: BidderSpec = BidderSpec::Rule;
    static OWN: BidderSpec = BidderSpec::Own;
    Bidding { agent: spec, bidder: if matches!(spec, AgentSpec::Bot(..)) { &RULE } else { &OWN } }
}

fn keep_bidding(
    report: &BiddingReport,
    deal_set: &str,
    a: &AgentSpec,
    b: &AgentSpec,
) -> Result<Kept, serde_json::Error> {
    let (x, y) = (&report.a, &report.b);
    Ok(Kept {
        a: a.to_string(),
        b: b.to_string(),
        deal_set: deal_set.to_string(),
        deals: report.deals,
        bidding: true,
        a_hash: String::new(),
        b_hash: String::new(),
        deals_hash: String::new(),
        // A wins the contested games it won alone, and those B lost alone.
        wins: (x.won + y.contested - y.won) as u32,
        games: (x.contested + y.contested) as u32,
        report: serde_json::to_value(report)?,
    })
}

/// A with-bidding pairing's cells: WP over the contested games of both agents' lone seats; the
/// WP per role and the ADP are those of each agent's own lone games.
fn cells_of_bidding(k: &Kept) -> (Cell, Cell) {
    let ci = |p: f64, n: f64| if n > 0.0 { 1.96 * (p * (1.0 - p) / n).sqrt() } else { f64::NAN };
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    let side = |key: &str, wins: u32| {
        let s = &k.report[key];
        let (contested, as_landlord) = (num(&s["contested"]), num(&s["contested_as_landlord"]));
        let (landlord, farmer) = (num(&s["wp_as_landlord"]), num(&s["wp_as_farmer"]));
        let wp = if k.games > 0 { wins as f64 / k.games as f64 } else { f64::NAN };
        Cell {
            deals: k.deals,
            games: k.games,
            wins,
            wp,
            wp_ci95: ci(wp, k.games as f64),
            wp_landlord: landlord,
            wp_landlord_ci95: ci(landlord, as_landlord),
            wp_farmers: farmer,
            wp_farmers_ci95: ci(farmer, contested - as_landlord),
            adp: num(&s["adp"]["mean"]),
            adp_ci95: num(&s["adp"]["ci95"]),
            rule_mismatches: 0,
            forfeits: 0,
        }
    };
    (side("a", k.wins), side("b", k.games - k.wins))
}

fn keep(report: &MatchReport, deal_set: &str) -> Result<Kept, serde_json::Error> {
    let o = &report.overall;
    Ok(Kept {
        a: report.a.clone(),
        b: report.b.clone(),
        deal_set: deal_set.to_string(),
        deals: report.deals,
        bidding: false,
        a_hash: String::new(),
        b_hash: String::new(),
        deals_hash: String::new(),
        wins: (o.wp.mean * o.games as f64).round() as u32,
        games: o.games as u32,
        report: serde_json::to_value(report)?,
    })
}

/// The pairing's cell from A's side and from B's.
fn cells_of(k: &Kept) -> (Cell, Cell) {
    let overall = &k.report["overall"];
    let num = |v: &serde_json::Value| v.as_f64().unwrap_or(f64::NAN);
    let count = |key: &str| overall[key].as_u64().unwrap_or(0) as u32;
    let (wp_ci, adp, adp_ci) =
        (num(&overall["wp"]["ci95"]), num(&overall["adp"]["mean"]), num(&overall["adp"]["ci95"]));
    let wp = if k.games > 0 { k.wins as f64 / k.games as f64 } else { f64::NAN };
    let seat = |key: &str| (num(&k.report[key]["wp"]["mean"]), num(&k.report[key]["wp"]["ci95"]));
    let (landlord, farmers) = (seat("a_as_landlord"), seat("a_as_farmers"));
    // B's landlord games are A's farmer games, and the other way round.
    let cell = |wins: u32, wp: f64, adp: f64, forfeits: u32, seats: [(f64, f64); 2]| Cell {
        deals: k.deals,
        games: k.games,
        wins,
        wp,
        wp_ci95: wp_ci,
        wp_landlord: seats[0].0,
        wp_landlord_ci95: seats[0].1,
        wp_farmers: seats[1].0,
        wp_farmers_ci95: seats[1].1,
        adp,
        adp_ci95: adp_ci,
        rule_mismatches: count("rule_mismatches"),
        forfeits,
    };
    let mirrored = [(1.0 - farmers.0, farmers.1), (1.0 - landlord.0, landlord.1)];
    (
        cell(k.wins, wp, adp, count("forfeits"), [landlord, farmers]),
        cell(k.games - k.wins, 1.0 - wp, -adp, count("opponent_forfeits"), mirrored),
    )
}

/// Bradley–Terry strengths fitted to the games (wins[i][j] of i against j, games[i][j]) by the
/// MM iteration, as Elo-scale ratings with mean 1500. Half a win is added to each side of each
/// pairing so that a clean sweep stays finite.
fn bradley_terry(wins: &[Vec<f64>], games: &[Vec<f64>]) -> Vec<f64> {
    let n = wins.len();
    let mut s = vec![1.0f64; n];
    for _ in 0..1000 {
        let next: Vec<f64> = (0..n)
            .map(|i| {
                let played = |j: usize| j != i && games[i][j] > 0.0;
                let w: f64 = (0..n).filter(|&j| played(j)).map(|j| wins[i][j] + 0.5).sum();
                let d: f64 = (0..n).filter(|&j| played(j)).map(|j| (games[i][j] + 1.0) / (s[i] + s[j])).sum();
                if d > 0.0 { w / d } else { s[i] }
            })
            .collect();
        let mean_log = next.iter().map(|v| v.ln()).sum::<f64>() / n as f64;
        s = next.iter().map(|v| (v.ln() - mean_log).exp()).collect();
    }
    s.iter().map(|v| 1500.0 + 400.0 * v.log10()).collect()
}

/// Ratings with 95% intervals from a parametric bootstrap: each pairing's wins redrawn from
/// its own win share and game count (seeded), refitted 400 times.
fn fit_ratings(cells: &[Vec<Option<Cell>>]) -> Vec<Rating> {
    let n = cells.len();
    let grid = |f: &dyn Fn(&Cell) -> f64| -> Vec<Vec<f64>> {
        (0..n).map(|i| (0..n).map(|j| cells[i][j].as_ref().map_or(0.0, f)).collect()).collect()
    };
    let (wins, games) = (grid(&|c| c.wins as f64), grid(&|c| c.games as f64));
    let point = bradley_terry(&wins, &games);
    let mut rng = StdRng::seed_from_u64(0x1ADD3);
    let mut draws: Vec<Vec<f64>> = vec![Vec::new(); n];
    for _ in 0..400 {
        let mut w = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in i + 1..n {
                let (g, p) = (games[i][j] as u32, if games[i][j] > 0.0 { wins[i][j] / games[i][j] } else { 0.5 });
                let k = (0..g).filter(|_| rng.random::<f64>() < p).count() as f64;
                (w[i][j], w[j][i]) = (k, games[i][j] - k);
            }
        }
        for (i, r) in bradley_terry(&w, &games).into_iter().enumerate() {
            draws[i].push(r);
        }
    }
    point
        .into_iter()
        .zip(draws)
        .map(|(rating, mut d)| {
            d.sort_by(f64::total_cmp);
            Rating { rating, low: d[d.len() * 25 / 1000], high: d[d.len() * 975 / 1000 - 1] }
        })
        .collect()
}

impl Ladder {
    /// The agents from the highest rating down.
    pub fn order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.labels.len()).collect();
        order.sort_by(|&a, &b| self.ratings[b].rating.total_cmp(&self.ratings[a].rating));
        order
    }

    /// The report as Markdown: ratings from the highest down, the WP matrix, faults and the
    /// agents' specs.
    pub fn markdown(&self) -> String {
        let order = self.order();
        let slow = if self.slow.contains(&true) {
            format!("; the pairings of agents marked * play the first {} only", self.slow_deals)
        } else {
            String::new()
        };
        let seatings = if self.bidding { "all six seatings with bidding" } else { "both seatings" };
        let mut out =
            format!("Deal set: {} ({} deals, {seatings}{slow}). Rules: {}.\n\n", self.deal_set, self.deals, self.rules);
        out.push_str("| rank | agent | rating (95% CI) | mean WP |\n|---:|---|---:|---:|\n");
        for (rank, &i) in order.iter().enumerate() {
            let r = &self.ratings[i];
            let wps: Vec<f64> = self.cells[i].iter().flatten().map(|c| c.wp).collect();
            let mean = wps.iter().sum::<f64>() / wps.len().max(1) as f64;
            let star = if self.slow[i] { "*" } else { "" };
            out.push_str(&format!(
                "| {} | {}{star} | {:.0} ({:.0}–{:.0}) | {mean:.3} |\n",
                rank + 1,
                self.labels[i],
                r.rating,
                r.low,
                r.high
            ));
        }
        out.push_str(&format!("\nWP of the row against the column (± 95% CI), {seatings}:\n\n| |"));
        for &j in &order {
            out.push_str(&format!(" {} |", self.labels[j]));
        }
        out.push_str("\n|---|");
        out.push_str(&"---:|".repeat(order.len()));
        out.push('\n');
        for &i in &order {
            out.push_str(&format!("| {} |", self.labels[i]));
            for &j in &order {
                match &self.cells[i][j] {
                    None => out.push_str(" — |"),
                    Some(c) => out.push_str(&format!(" {:.3} ± {:.3} |", c.wp, c.wp_ci95)),
                }
            }
            out.push('\n');
        }
        let faults: Vec<String> = order
            .iter()
            .flat_map(|&i| order.iter().map(move |&j| (i, j)))
            .filter(|&(i, j)| i < j)
            .filter_map(|(i, j)| {
                let c = self.cells[i][j].as_ref()?;
                let back = self.cells[j][i].as_ref()?;
                (c.rule_mismatches + c.forfeits + back.forfeits > 0).then(|| {
                    format!(
                        "{} vs {}: {} rule mismatches, forfeits {} / {}",
                        self.labels[i], self.labels[j], c.rule_mismatches, c.forfeits, back.forfeits
                    )
                })
            })
            .collect();
        if !faults.is_empty() {
            out.push_str(&format!(
                "\nGames left out as rule mismatches (DouZero's rules differ) and forfeits: {}.\n",
                faults.join("; ")
            ));
        }
        out.push_str("\nAgents:\n\n");
        for i in 0..self.labels.len() {
            out.push_str(&format!("- {}: `{}`\n", self.labels[i], self.specs[i]));
        }
        out
    }

    /// Writes `ladder.json`, `ladder.md` and `ratings.csv` into `out`, and `ladder.png` (the
    /// venv's matplotlib); returns the plot's path.
    pub fn write(&self, out: &Path) -> Result<PathBuf, EvalError> {
        let io = |path: &Path, e: crate::error::Cause| EvalError::Curve { path: path.to_path_buf(), reason: e };
        let json = out.join("ladder.json");
        let text = serde_json::to_string_pretty(self).map_err(|e| io(&json, e.into()))?;
        crate::run::write_atomically(&json, &text).map_err(|e| io(&json, e.into()))?;
        let md = out.join("ladder.md");
        crate::run::write_atomically(&md, &self.markdown()).map_err(|e| io(&md, e.into()))?;
        let csv = out.join("ratings.csv");
        let mut text = String::from("agent,rating,low,high,slow\n");
        for &i in &self.order() {
            let r = &self.ratings[i];
            text.push_str(&format!("{},{:.1},{:.1},{:.1},{}\n", self.labels[i], r.rating, r.low, r.high, self.slow[i]));
        }
        crate::run::write_atomically(&csv, &text).map_err(|e| io(&csv, e.into()))?;
        let png = out.join("ladder.png");
        let title = format!("ddz ladder on {} deals", self.deal_set);
        let args: [&std::ffi::OsStr; 3] = [csv.as_os_str(), png.as_os_str(), title.as_ref()];
        crate::scripts::plot("plot_ladder.py", &args).map_err(EvalError::Plot)?;
        Ok(png)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_follow_the_games_and_intervals_hold_them() {
        // a beats b 70%, b beats c 70%, a beats c 85%, over 400 games each.
        let cell = |wins: u32| {
            Some(Cell {
                deals: 200,
                games: 400,
                wins,
                wp: wins as f64 / 400.0,
                wp_ci95: 0.0,
                wp_landlord: 0.0,
                wp_landlord_ci95: 0.0,
                wp_farmers: 0.0,
                wp_farmers_ci95: 0.0,
                adp: 0.0,
                adp_ci95: 0.0,
                rule_mismatches: 0,
                forfeits: 0,
            })
        };
        let cells =
            vec![vec![None, cell(280), cell(340)], vec![cell(120), None, cell(280)], vec![cell(60), cell(120), None]];
        let r = fit_ratings(&cells);
        assert!(r[0].rating > r[1].rating && r[1].rating > r[2].rating, "{r:?}");
        assert!((r.iter().map(|x| x.rating).sum::<f64>() / 3.0 - 1500.0).abs() < 1e-6);
        for x in &r {
            assert!(x.low < x.rating && x.rating < x.high && x.high - x.low < 150.0, "{x:?}");
        }
        // 70% is about 147 Elo points.
        assert!((r[0].rating - r[1].rating - 147.0).abs() < 40.0, "{r:?}");
    }

    #[test]
    fn entries_take_a_label_and_search_agents_are_slow() {
        let e: Entry = "rlcard=bot:python3 x.py rlcard".parse().unwrap();
        assert_eq!((e.label.as_str(), e.slow), ("rlcard", false));
        let e: Entry = "auto:m.safetensors".parse().unwrap();
        assert!(e.slow && e.label.starts_with("auto:m.safetensors"));
        let e: Entry = "ismcts:m?sims=5".parse().unwrap();
        assert!(e.slow, "a knob's = is not a label");
        for spec in DEFAULT_ROSTER {
            spec.parse::<Entry>().unwrap();
        }
    }
}
