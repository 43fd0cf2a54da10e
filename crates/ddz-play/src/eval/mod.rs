//! Evaluation on fixed deals: every deal played twice, A as landlord against B as farmers and
//! B as landlord against A as farmers, with 95% confidence intervals.
//!
//! WP is the share of games won. ADP is the average points per game of the agent's side: a
//! game is worth 2^(bombs + rockets played) per farmer, and the landlord wins or loses twice
//! that, so the winning side gains 2·2^(bombs + rockets) and the losing side loses as much
//! (no spring doubling, no bidding).

pub mod bidding;
pub mod content;
pub mod curve;
pub mod headroom;
pub mod ladder;
pub mod league;

use crate::agents::{Agent, AgentError, AgentSpec, Fault, SeatFault, Sides, play_out};
use crate::game::{Deal, GameConfig, Rules, Scoring, State, WildRank};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::IsTerminal;
use std::time::Instant;

/// Why an evaluation, league, ladder or learning curve could not be completed.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// An agent could not be built: an unknown spec, a bad setting or weights that do not load.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// A thread playing deals panicked.
    #[error("an evaluation thread panicked")]
    Panicked,
    /// A league or ladder was given fewer than two agents.
    #[error("a league needs at least two agents")]
    LeagueTooSmall,
    /// The deal set is empty.
    #[error("no deals to play")]
    NoDeals,
    /// A deal of another table than the rules' (three hands for a two-player game, or two).
    #[error("deal {deal} has {hands} hands: it is no deal of a {rules} game")]
    WrongDeal {
        /// The deal's number in the set, from 1.
        deal: usize,
        /// How many hands it deals.
        hands: usize,
        /// The rules of the evaluation.
        rules: Rules,
    },
    /// A run folder or checkpoint could not be read.
    #[error(transparent)]
    Run(#[from] crate::run::RunError),
    /// A learning-curve or ladder file could not be read, parsed or written.
    #[error("{path}: {reason}")]
    Curve {
        /// The file or folder.
        path: std::path::PathBuf,
        /// What went wrong.
        #[source]
        reason: crate::error::Cause,
    },
    /// A plot could not be drawn.
    #[error("no plot: {0}")]
    Plot(#[from] crate::scripts::ScriptsError),
    /// An agent could not answer (a `bot:` that crashed, timed out or answered nonsense).
    #[error("deal {deal} ({seating}): {reason}")]
    Fault {
        /// The deal's number in the set.
        deal: usize,
        /// Who was landlord and who farmers.
        seating: String,
        /// The agent's fault.
        #[source]
        reason: Fault,
    },
}

/// The rules of fixed-landlord evaluation, as reports state them.
pub const RULES: &str = "no bidding (seat 0 of each deal is the landlord), points: 1 × 2 per bomb or rocket, no spring doubling, landlord twice";
/// The same with springs and anti-springs doubled (`ddz eval --spring`).
pub const RULES_SPRING: &str = "no bidding (seat 0 of each deal is the landlord), points: 1 × 2 per bomb or rocket × 2 for a spring or anti-spring, landlord twice";
/// [`RULES`] under laizi.
pub const RULES_LAIZI: &str = "laizi (the wild rank drawn from each deal), no bidding (seat 0 of each deal is the landlord), points: 1 × 2 per bomb (soft ones too) or rocket, no spring doubling, landlord twice";
/// [`RULES_SPRING`] under laizi.
pub const RULES_LAIZI_SPRING: &str = "laizi (the wild rank drawn from each deal), no bidding (seat 0 of each deal is the landlord), points: 1 × 2 per bomb (soft ones too) or rocket × 2 for a spring or anti-spring, landlord twice";

/// [`RULES`] under the two-player rules.
pub const RULES_TWO_PLAYER: &str = "two-player (46 cards, 9 set aside), no bidding (seat 0 of each deal is the landlord), no cards conceded, points: 1 × 2 per bomb or rocket, no spring doubling";
/// [`RULES_SPRING`] under the two-player rules.
pub const RULES_TWO_PLAYER_SPRING: &str = "two-player (46 cards, 9 set aside), no bidding (seat 0 of each deal is the landlord), no cards conceded, points: 1 × 2 per bomb or rocket × 2 for a spring or anti-spring";

/// The outcome of one game from the landlord's side.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct GameOutcome {
    /// Whether the landlord's side won (false for a game left out by a rule mismatch).
    pub landlord_won: bool,
    /// The landlord side's points: ±2·2^(bombs + rockets).
    pub landlord_points: f64,
    /// Answers outside the legal list in this game, of both sides.
    pub illegal_plays: u32,
    /// Where an agent gave the game up (`on_error=forfeit`): whether it was the landlord's side.
    /// That side lost, for the stake of the game so far.
    pub forfeit_by_landlord: Option<bool>,
    /// A bot said the game left the rules it plays by: the game counts in neither WP nor ADP.
    pub rule_mismatch: bool,
}

/// Plays one deal: `landlord` in seat 0, `farmers` in seats 1 and 2. An agent's answer outside
/// the legal list counts as an illegal play (and the first legal play is made instead).
pub fn play_deal(deal: &Deal, landlord: &mut dyn Agent, farmers: &mut dyn Agent) -> Result<GameOutcome, SeatFault> {
    play_deal_under(Rules::Standard, deal, landlord, farmers, false)
}

/// [`play_deal`] under `rules` (a laizi deal's wild rank is [`laizi_wild`] of the deal),
/// doubling a spring or anti-spring when `spring` is set. A forfeit or a rule mismatch ends the
/// game with that outcome; an agent that failed is the error.
pub fn play_deal_under(
    rules: Rules,
    deal: &Deal,
    landlord: &mut dyn Agent,
    farmers: &mut dyn Agent,
    spring: bool,
) -> Result<GameOutcome, SeatFault> {
    let config = GameConfig { scoring: Scoring::Score, spring, rules, ..GameConfig::default() };
    let mut state = State::new(config);
    state.deal_hands(deal.hands, deal.bottom);
    if state.phase() == crate::game::Phase::Wild {
        state.apply_action(crate::game::Action::Wild(laizi_wild(deal)));
    }
    let outcome = |won: bool, points: f64, illegal: u32| GameOutcome {
        landlord_won: won,
        landlord_points: points,
        illegal_plays: illegal,
        forfeit_by_landlord: None,
        rule_mismatch: false,
    };
    let landlord_seat = state.config().landlord_seat; // no bidding: the rules name the landlord
    match play_out(&mut state, &mut Sides { landlord, farmers }, |_, _, _, _| {}) {
        Ok(illegal) => Ok(outcome(state.winner() == Some(landlord_seat), state.returns()[landlord_seat], illegal)),
        Err(SeatFault { seat, fault: Fault::Forfeit(_) }) => {
            // The landlord's stake against every farmer; no spring: the game is unfinished.
            let farmers = (state.table().len() - 1) as f64;
            let stake = farmers * ((state.base() as u64) << (state.bombs_played() + state.robs())) as f64;
            let by_landlord = seat == landlord_seat;
            let points = if by_landlord { -stake } else { stake };
            Ok(GameOutcome { forfeit_by_landlord: Some(by_landlord), ..outcome(!by_landlord, points, 0) })
        }
        Err(SeatFault { fault: Fault::Mismatch(_), .. }) => {
            Ok(GameOutcome { rule_mismatch: true, ..outcome(false, 0.0, 0) })
        }
        Err(failed) => Err(failed),
    }
}

/// A mean with the half-width of its 95% confidence interval (normal approximation).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Estimate {
    /// The sample mean.
    pub mean: f64,
    /// Half-width of the 95% confidence interval: 1.96 standard errors.
    pub ci95: f64,
}

impl Estimate {
    /// The mean of `values` and its interval; both NaN for no values, an interval of 0 for one.
    pub fn of(values: &[f64]) -> Estimate {
        let n = values.len() as f64;
        if values.is_empty() {
            return Estimate { mean: f64::NAN, ci95: f64::NAN };
        }
        let mean = values.iter().sum::<f64>() / n;
        let var = if n > 1.0 { values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        Estimate { mean, ci95: 1.96 * (var / n).sqrt() }
    }
}

impl std::fmt::Display for Estimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.3} ± {:.3}", self.mean, self.ci95)
    }
}

/// One seating's results, from A's side.
#[derive(Clone, Debug, Serialize)]
pub struct SeatingResult {
    /// Games counted in WP and ADP.
    pub games: usize,
    /// A's win probability: the share of games A's side won.
    pub wp: Estimate,
    /// A's average points per game (negative when it loses points).
    pub adp: Estimate,
    /// Illegal answers in these games, of both sides.
    pub illegal_plays: u32,
    /// Games A's side gave up (`on_error=forfeit`), counted as lost.
    #[serde(skip_serializing_if = "is_zero")]
    pub forfeits: u32,
    /// Games B's side gave up, counted as won by A.
    #[serde(skip_serializing_if = "is_zero")]
    pub opponent_forfeits: u32,
    /// Games a bot ended as outside its rules: in neither WP nor ADP (`games` leaves them out).
    #[serde(skip_serializing_if = "is_zero")]
    pub rule_mismatches: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The result of A against B on a deal set, both seatings (the report of `ddz eval`).
#[derive(Clone, Debug, Serialize)]
pub struct MatchReport {
    /// The rules the games were played under.
    pub rules: &'static str,
    /// Agent A's spec.
    pub a: String,
    /// Agent B's spec.
    pub b: String,
    /// Deals played, each twice.
    pub deals: usize,
    /// The games with A as landlord and B as farmers.
    pub a_as_landlord: SeatingResult,
    /// The games with B as landlord and A as farmers.
    pub a_as_farmers: SeatingResult,
    /// Both seatings together.
    pub overall: SeatingResult,
    /// Wall-clock time of the evaluation, in seconds.
    pub seconds: f64,
    /// Games played per second of wall-clock time.
    pub games_per_s: f64,
}

fn summarise(all: &[(GameOutcome, bool)]) -> SeatingResult {
    // (outcome, whether A was the landlord)
    let count = |f: &dyn Fn(&(GameOutcome, bool)) -> bool| all.iter().filter(|o| f(o)).count() as u32;
    let rule_mismatches = count(&|(g, _)| g.rule_mismatch);
    let forfeits = count(&|(g, a_land)| g.forfeit_by_landlord == Some(*a_land));
    let opponent_forfeits = count(&|(g, a_land)| g.forfeit_by_landlord == Some(!*a_land));
    let outcomes: Vec<(GameOutcome, bool)> = all.iter().filter(|(g, _)| !g.rule_mismatch).copied().collect();
    let wins: Vec<f64> = outcomes.iter().map(|(g, a_land)| if g.landlord_won == *a_land { 1.0 } else { 0.0 }).collect();
    let points: Vec<f64> =
        outcomes.iter().map(|(g, a_land)| if *a_land { g.landlord_points } else { -g.landlord_points }).collect();
    SeatingResult {
        games: outcomes.len(),
        wp: Estimate::of(&wins),
        adp: Estimate::of(&points),
        illegal_plays: outcomes.iter().map(|(g, _)| g.illegal_plays).sum(),
        forfeits,
        opponent_forfeits,
        rule_mismatches,
    }
}

/// A progress bar over `games` games for a terminal (hidden when stderr is not one).
pub fn progress_bar(games: u64) -> ProgressBar {
    let bar = ProgressBar::new(games);
    // The style is cosmetic: a template that did not parse would leave the default bar.
    if let Ok(style) = ProgressStyle::with_template(BAR_STYLE) {
        bar.set_style(style);
    }
    if !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

/// A against B on every deal, both seatings, on all cores; `progress` counts the games
/// (`ProgressBar::hidden()` for none). Agents are built once per thread and reset per deal, so
/// the results do not depend on the number of threads.
///
/// ```
/// use ddz_play::agents::AgentSpec;
/// use ddz_play::eval::evaluate;
/// use ddz_play::game::generate_deals;
/// use indicatif::ProgressBar;
///
/// let deals = generate_deals(50, 1);
/// let report = evaluate(&AgentSpec::Rule, &AgentSpec::Random, &deals, 2, &ProgressBar::hidden()).unwrap();
/// assert_eq!(report.overall.games, 100); // each deal in both seatings
/// assert!(report.overall.wp.mean > 0.5, "rule beats random: {}", report.markdown());
/// ```
pub fn evaluate(
    a: &AgentSpec,
    b: &AgentSpec,
    deals: &[Deal],
    threads: usize,
    progress: &ProgressBar,
) -> Result<MatchReport, EvalError> {
    evaluate_under(Rules::Standard, a, b, deals, threads, progress, false)
}

/// [`evaluate`] under `rules` (laizi: each deal's wild rank is [`laizi_wild`] of it), doubling
/// springs and anti-springs when `spring` is set.
pub fn evaluate_under(
    rules: Rules,
    a: &AgentSpec,
    b: &AgentSpec,
    deals: &[Deal],
    threads: usize,
    progress: &ProgressBar,
    spring: bool,
) -> Result<MatchReport, EvalError> {
    if deals.is_empty() {
        return Err(EvalError::NoDeals);
    }
    if let Some(k) = deals.iter().position(|d| d.table() != rules.table()) {
        return Err(EvalError::WrongDeal { deal: k + 1, hands: deals[k].table().len(), rules });
    }
    let start = Instant::now();
    let threads = threads.max(1).min(deals.len().max(1));
    let chunk = deals.len().div_ceil(threads).max(1);
    let results: Vec<Result<Vec<(GameOutcome, GameOutcome)>, EvalError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = deals
            .chunks(chunk)
            .enumerate()
            .map(|(c, part)| scope.spawn(move || play_chunk(rules, a, b, part, (c * chunk) as u64, progress, spring)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or(Err(EvalError::Panicked))).collect()
    });
    let mut landlord = Vec::new();
    let mut farmers = Vec::new();
    for r in results {
        for (first, second) in r? {
            landlord.push((first, true));
            farmers.push((second, false));
        }
    }
    let all: Vec<(GameOutcome, bool)> = landlord.iter().chain(&farmers).copied().collect();
    let seconds = start.elapsed().as_secs_f64();
    Ok(MatchReport {
        rules: match (rules, spring) {
            (Rules::Standard, false) => RULES,
            (Rules::Standard, true) => RULES_SPRING,
            (Rules::Laizi, false) => RULES_LAIZI,
            (Rules::Laizi, true) => RULES_LAIZI_SPRING,
            (Rules::TwoPlayer, false) => RULES_TWO_PLAYER,
            (Rules::TwoPlayer, true) => RULES_TWO_PLAYER_SPRING,
        },
        a: a.to_string(),
        b: b.to_string(),
        deals: deals.len(),
        a_as_landlord: summarise(&landlord),
        a_as_farmers: summarise(&farmers),
        overall: summarise(&all),
        seconds,
        games_per_s: all.len() as f64 / seconds.max(1e-9),
    })
}

/// Both seatings of each deal of `part`, whose first deal is deal number `first` of the set
/// (agents are reset by deal number, so the results do not depend on the split).
fn play_chunk(
    rules: Rules,
    a: &AgentSpec,
    b: &AgentSpec,
    part: &[Deal],
    first: u64,
    progress: &ProgressBar,
    spring: bool,
) -> Result<Vec<(GameOutcome, GameOutcome)>, EvalError> {
    let mut agent_a = a.build()?;
    let mut agent_b = b.build()?;
    let failed = |deal: u64, landlord: &AgentSpec, farmers: &AgentSpec, f: SeatFault| EvalError::Fault {
        deal: deal as usize,
        seating: format!("{landlord} as landlord, {farmers} as farmers"),
        reason: f.fault,
    };
    let games = part.iter().enumerate().map(|(k, deal)| {
        let seed = first + k as u64;
        agent_a.reset(seed * 2);
        agent_b.reset(seed * 2 + 1);
        let as_landlord = play_deal_under(rules, deal, agent_a.as_mut(), agent_b.as_mut(), spring)
            .map_err(|f| failed(seed, a, b, f))?;
        agent_a.reset(seed * 2 + 1);
        agent_b.reset(seed * 2);
        let as_farmers = play_deal_under(rules, deal, agent_b.as_mut(), agent_a.as_mut(), spring)
            .map_err(|f| failed(seed, b, a, f))?;
        progress.inc(2);
        Ok((as_landlord, as_farmers))
    });
    games.collect()
}

impl MatchReport {
    /// Illegal answers over all games, of both agents.
    pub fn illegal_plays(&self) -> u32 {
        self.overall.illegal_plays
    }

    /// A Markdown table (also readable in a terminal).
    pub fn markdown(&self) -> String {
        let row = |name: &str, r: &SeatingResult| {
            format!("| {name} | {} | {} | {} | {} |\n", r.games, r.wp, r.adp, r.illegal_plays)
        };
        format!(
            "**{}** vs **{}** on {} deals ({:.1} s, {:.0} games/s). Rules: {}.\n\n| seating (A = {}) | games | WP of A (95% CI) | ADP of A (95% CI) | illegal plays |\n|---|---:|---:|---:|---:|\n{}{}{}",
            self.a,
            self.b,
            self.deals,
            self.seconds,
            self.games_per_s,
            self.rules,
            self.a,
            row("A landlord, B farmers", &self.a_as_landlord),
            row("B landlord, A farmers", &self.a_as_farmers),
            row("both", &self.overall),
        ) + &self.faults_line()
    }

    /// A line on forfeits and rule mismatches, where there were any.
    fn faults_line(&self) -> String {
        let o = &self.overall;
        if o.forfeits + o.opponent_forfeits + o.rule_mismatches == 0 {
            return String::new();
        }
        format!(
            "\nForfeits (counted as lost): {} by A, {} by B. Rule mismatches (left out of WP and ADP): {}.\n",
            o.forfeits, o.opponent_forfeits, o.rule_mismatches
        )
    }
}

/// Kept for callers that hold agents rather than specs (which never fail to answer): A against
/// B on every deal, both seatings, in this thread: (A as landlord, A as farmers).
pub fn head_to_head(
    deals: &[Deal],
    a: &mut dyn Agent,
    b: &mut dyn Agent,
) -> Result<(SeatingResult, SeatingResult), SeatFault> {
    head_to_head_under(Rules::Standard, deals, a, b)
}

/// [`head_to_head`] under `rules`.
pub fn head_to_head_under(
    rules: Rules,
    deals: &[Deal],
    a: &mut dyn Agent,
    b: &mut dyn Agent,
) -> Result<(SeatingResult, SeatingResult), SeatFault> {
    let mut landlord = Vec::new();
    let mut farmers = Vec::new();
    for (i, deal) in deals.iter().enumerate() {
        a.reset(2 * i as u64);
        b.reset(2 * i as u64 + 1);
        landlord.push((play_deal_under(rules, deal, a, b, false)?, true));
        farmers.push((play_deal_under(rules, deal, b, a, false)?, false));
    }
    Ok((summarise(&landlord), summarise(&farmers)))
}

/// The wild rank a laizi evaluation plays `deal` with: the deal's own when its file fixes one,
/// else drawn from the deal's cards with a fixed seed, so both seatings and every run of a deal
/// set see the same one, and each of the 13 ranks comes up about equally often.
pub fn laizi_wild(deal: &Deal) -> WildRank {
    if let Some(fixed) = deal.wild {
        return fixed; // the deal file fixes it
    }
    let cards = deal.hands.iter().fold(deal.bottom.0, |acc, h| acc.rotate_left(17) ^ h.0);
    let draw = crate::seeds::of(cards, crate::seeds::Stream::WILD);
    WildRank::new((draw % 13) as u8).expect("0..13 are the wild ranks")
}

/// The look of the evaluation progress bar.
const BAR_STYLE: &str = "{bar:30} {pos}/{len} games ({eta} left)";

#[cfg(test)]
mod tests {
    #[test]
    fn the_bar_style_parses() {
        assert!(indicatif::ProgressStyle::with_template(super::BAR_STYLE).is_ok());
    }

    use super::*;
    use crate::game::generate_deals;

    #[test]
    fn a_deal_that_fixes_its_wild_rank_is_played_with_it() {
        let deals = generate_deals(40, 5);
        let drawn: std::collections::HashSet<u8> = deals.iter().map(|d| laizi_wild(d).rank()).collect();
        assert!(drawn.len() > 5, "the drawn ranks vary with the deal: {drawn:?}");
        for (k, deal) in deals.iter().enumerate() {
            let fixed = Deal { wild: WildRank::new((k % 13) as u8), ..deal.clone() };
            assert_eq!(laizi_wild(&fixed).rank(), (k % 13) as u8);
        }
    }

    #[test]
    fn spring_doubling_is_a_switch_that_only_changes_points() {
        let deals = generate_deals(300, 11);
        let hidden = ProgressBar::hidden();
        let off = evaluate(&AgentSpec::Rule, &AgentSpec::Random, &deals, 2, &hidden).unwrap();
        let on =
            evaluate_under(Rules::Standard, &AgentSpec::Rule, &AgentSpec::Random, &deals, 2, &hidden, true).unwrap();
        assert_eq!((off.rules, on.rules), (RULES, RULES_SPRING));
        assert_eq!(off.overall.wp.mean, on.overall.wp.mean, "the same games");
        // Rule nearly always wins; the few springs and anti-springs double its points.
        assert!(on.overall.adp.mean > off.overall.adp.mean, "{} vs {}", on.overall.adp, off.overall.adp);
    }

    #[test]
    fn two_player_games_on_two_player_deals_and_rule_beats_random_in_both_seats() {
        let deals = crate::game::generate_deals_for(Rules::TwoPlayer, 200, 4);
        let hidden = ProgressBar::hidden();
        let r =
            evaluate_under(Rules::TwoPlayer, &AgentSpec::Rule, &AgentSpec::Random, &deals, 2, &hidden, false).unwrap();
        assert_eq!((r.rules, r.overall.games, r.overall.illegal_plays), (RULES_TWO_PLAYER, 400, 0));
        assert!(r.a_as_landlord.wp.mean > 0.8 && r.a_as_farmers.wp.mean > 0.8, "{}", r.markdown());
        // A deal set of three hands is refused by name, not dealt.
        let e = evaluate_under(
            Rules::TwoPlayer,
            &AgentSpec::Rule,
            &AgentSpec::Random,
            &generate_deals(3, 1),
            1,
            &hidden,
            false,
        )
        .unwrap_err()
        .to_string();
        assert_eq!(e, "deal 1 has 3 hands: it is no deal of a two_player game");
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let deals = generate_deals(40, 3);
        let one = evaluate(&AgentSpec::Rule, &AgentSpec::Random, &deals, 1, &ProgressBar::hidden()).unwrap();
        let progress = progress_bar(80);
        let three = evaluate(&AgentSpec::Rule, &AgentSpec::Random, &deals, 3, &progress).unwrap();
        assert_eq!(progress.position(), 80, "the bar counts every game");
        assert_eq!(one.overall.wp.mean, three.overall.wp.mean);
        assert_eq!(one.overall.adp.mean, three.overall.adp.mean);
        assert_eq!(one.overall.games, 80);
        assert!(matches!(
            evaluate(&AgentSpec::Rule, &AgentSpec::Random, &[], 1, &ProgressBar::hidden()),
            Err(EvalError::NoDeals)
        ));
    }
}
