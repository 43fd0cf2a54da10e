//! `ddz review`: every play of a finished game scored by a network, as a player reads a
//! chess engine's review — the play made, the reviewer's best, the win chance each gives, the
//! chance lost, a verdict; the landlord's chance after every play; and each seat's accuracy.
//!
//! The reviewer sees what the seat saw: each decision is put to it as that seat's [`View`], so
//! a verdict never rests on cards the player could not see. Its values are the network's Q of
//! each legal play in win/loss terms (−1 to 1), shown as a win chance, `(Q + 1) / 2`.
//! Bids are shown but not reviewed (the play networks value plays, not bids).

use crate::agents::{Agent, Turn};
use crate::game::laizi::ids::play_notation;
use crate::game::{Action, ActionTable, MoveList, Rules, Seat, State, View};
use crate::logs::{GameLog, ReplayedGame};
use serde::Serialize;

pub mod html;

/// The version of the JSON a review writes (`docs/review.md` documents it).
pub const SCHEMA: &str = "ddz.review/1";

/// The network that reviews a game of `rules` when none is named: the strongest shipped.
pub fn default_reviewer(rules: Rules) -> &'static str {
    match rules {
        Rules::Standard => "checkpoint:models/ema-2h/model.safetensors",
        Rules::Laizi => "checkpoint:models/laizi-1h/model.safetensors",
        Rules::TwoPlayer => "checkpoint:models/two-player-1h/model.safetensors",
    }
}

/// Where the verdicts change, as win chance lost (0 to 1): below `inaccuracy` a play is good,
/// from `blunder` on a blunder.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Thresholds {
    /// Chance lost from which a play is an inaccuracy.
    pub inaccuracy: f64,
    /// From which it is a mistake.
    pub mistake: f64,
    /// From which it is a blunder.
    pub blunder: f64,
}

impl Default for Thresholds {
    /// 3, 7 and 15 points of win chance.
    fn default() -> Thresholds {
        Thresholds { inaccuracy: 0.03, mistake: 0.07, blunder: 0.15 }
    }
}

/// Thresholds that do not rise from 0 to 1.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("thresholds {0:?}: three win-chance losses, rising, between 0 and 1 (e.g. 0.03,0.07,0.15)")]
pub struct ThresholdsError(pub String);

impl std::str::FromStr for Thresholds {
    type Err = ThresholdsError;

    /// `inaccuracy,mistake,blunder`, e.g. `0.03,0.07,0.15`.
    fn from_str(text: &str) -> Result<Thresholds, ThresholdsError> {
        let bad = || ThresholdsError(text.to_string());
        let numbers: Vec<f64> =
            text.split(',').map(|t| t.trim().parse::<f64>()).collect::<Result<_, _>>().map_err(|_| bad())?;
        match numbers[..] {
            [a, b, c] if 0.0 < a && a < b && b < c && c <= 1.0 => {
                Ok(Thresholds { inaccuracy: a, mistake: b, blunder: c })
            }
            _ => Err(bad()),
        }
    }
}

/// What a play was, by the chance it lost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The only legal play: nothing to review.
    Forced,
    /// The reviewer's best play.
    Best,
    /// Another play, losing less than the inaccuracy threshold.
    Good,
    /// Losing from the inaccuracy threshold.
    Inaccuracy,
    /// Losing from the mistake threshold.
    Mistake,
    /// Losing from the blunder threshold.
    Blunder,
}

impl Verdict {
    /// Every verdict, in order of the chance lost.
    pub const ALL: [Verdict; 6] =
        [Verdict::Forced, Verdict::Best, Verdict::Good, Verdict::Inaccuracy, Verdict::Mistake, Verdict::Blunder];

    /// The verdict of a play that lost `loss` of win chance, `best` when it was the best play.
    pub fn of(loss: f64, best: bool, thresholds: &Thresholds) -> Verdict {
        match loss {
            _ if best => Verdict::Best,
            l if l >= thresholds.blunder => Verdict::Blunder,
            l if l >= thresholds.mistake => Verdict::Mistake,
            l if l >= thresholds.inaccuracy => Verdict::Inaccuracy,
            _ => Verdict::Good,
        }
    }

    /// Its name, as the JSON writes it.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Forced => "forced",
            Verdict::Best => "best",
            Verdict::Good => "good",
            Verdict::Inaccuracy => "inaccuracy",
            Verdict::Mistake => "mistake",
            Verdict::Blunder => "blunder",
        }
    }
}

/// A play and the win chance the reviewer gives it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Valued {
    /// The play in the log's notation (`pass`, `33`, under laizi `5555/5`).
    pub play: String,
    /// The reviewer's win chance for the player's side after it, 0 to 1.
    pub win: f64,
}

/// One play decision, reviewed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Decision {
    /// The play's number in the game, from 1 (the landlord's lead).
    pub move_no: usize,
    /// The seat that played.
    pub seat: Seat,
    /// Its role: `landlord`, `landlord_down`, `landlord_up` (`farmer` at a table of two).
    pub role: &'static str,
    /// The cards it held before the play.
    pub hand: String,
    /// The legal plays it had.
    pub legal: usize,
    /// The play made.
    pub played: Valued,
    /// The reviewer's best play (the play made, when it was).
    pub best: Valued,
    /// The reviewer's three best plays.
    pub top: Vec<Valued>,
    /// Win chance lost by the play made: `best.win - played.win`, 0 or more.
    pub loss: f64,
    /// The deeper check of a flagged play (`--deep`): both plays scored by a search.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deep: Option<DeepCheck>,
    /// A legal play won the game at once (its win chance is then 1, not the network's): one
    /// that did not is a blunder whatever the chance lost.
    pub win_at_once: bool,
    /// The verdict of the loss.
    pub verdict: Verdict,
}

/// One seat's review over the game.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeatReview {
    /// The seat.
    pub seat: Seat,
    /// Its role.
    pub role: &'static str,
    /// Who played it, where the log says.
    pub player: Option<String>,
    /// Decisions with a choice (forced plays left out).
    pub decisions: usize,
    /// Win chance lost over those decisions, in all.
    pub total_loss: f64,
    /// Accuracy: the share of those decisions that were best or good, in percent (100 with
    /// no decision).
    pub accuracy: f64,
    /// How many decisions got each verdict, forced ones included.
    pub verdicts: Vec<(Verdict, usize)>,
}

/// A whole game, reviewed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Review {
    /// [`SCHEMA`].
    pub schema: &'static str,
    /// The rules of the game.
    pub rules: Rules,
    /// The reviewing agent's name.
    pub reviewer: String,
    /// Where the log says the game came from.
    pub source: String,
    /// Each seat's dealt cards (the landlord's with the bottom cards).
    pub hands: Vec<String>,
    /// The landlord's seat.
    pub landlord: u8,
    /// Whether the landlord won.
    pub landlord_won: bool,
    /// The thresholds of the verdicts.
    pub thresholds: Thresholds,
    /// The landlord's win chance by the reviewer: before the first play, after each play, and
    /// the result at the end (1 or 0).
    pub curve: Vec<f64>,
    /// Every play decision, in order.
    pub decisions: Vec<Decision>,
    /// Each seat's figures.
    pub seats: Vec<SeatReview>,
}

/// Why a game could not be reviewed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReviewError {
    /// The reviewer does not play the game's rules.
    #[error("the reviewer {reviewer} cannot review a {rules} game: {reason}")]
    Rules {
        /// The reviewer's name.
        reviewer: String,
        /// The game's rules.
        rules: Rules,
        /// Why.
        reason: String,
    },
    /// The reviewer values no plays (a rule or random agent): it cannot score a decision.
    #[error("{0} gives no values to plays: review with a network (checkpoint:PATH)")]
    NoValues(String),
    /// The game did not end.
    #[error("the game did not end (an unfinished log): a review needs its result")]
    Unfinished,
    /// A deeper check was asked for a game its search does not play.
    #[error("--deep: the search plays the standard game only, not {0}")]
    Deep(Rules),
}

/// The win chance of a Q in win/loss terms.
fn chance(q: f32) -> f64 {
    ((f64::from(q) + 1.0) / 2.0).clamp(0.0, 1.0)
}

/// Reviews the replayed game `game` of `log` with `reviewer`, a network agent.
pub fn review(
    log: &GameLog,
    game: &ReplayedGame,
    reviewer: &mut dyn Agent,
    thresholds: Thresholds,
) -> Result<Review, ReviewError> {
    let end = &game.state;
    let rules = end.config().rules;
    reviewer.plays_rules(rules).map_err(|e| ReviewError::Rules {
        reviewer: reviewer.name(),
        rules,
        reason: e.reason,
    })?;
    let (Some(landlord), Some(winner)) = (end.landlord(), end.winner()) else { return Err(ReviewError::Unfinished) };
    let landlord_won = winner == landlord;
    let table = end.table();
    let mut state = State::new(end.config().clone());
    let mut decisions = Vec::new();
    let mut curve = Vec::new();
    let mut hands = Vec::new();
    for action in end.history() {
        if let (Action::Play(id), Some(seat)) = (action, state.current_player()) {
            if hands.is_empty() {
                // The landlord's lead: dealt, bid, the wild rank drawn.
                hands = table.seats().iter().map(|&s| state.hand(s).to_string()).collect();
            }
            let decision = judge(&state, seat, *id, decisions.len() + 1, reviewer, &thresholds)?;
            let mover_is_landlord = Some(seat) == state.landlord();
            if curve.is_empty() {
                curve.push(if mover_is_landlord { decision.best.win } else { 1.0 - decision.best.win });
            }
            curve.push(if mover_is_landlord { decision.played.win } else { 1.0 - decision.played.win });
            decisions.push(decision);
        }
        state.apply_action_unchecked(*action); // the history of a state the engine built
    }
    // The last play ends the game: the curve ends on the result, not on the reviewer's guess.
    if let Some(last) = curve.last_mut() {
        *last = if landlord_won { 1.0 } else { 0.0 };
    }
    let seats = table.seats().iter().map(|&s| seat_review(end, s, log, &decisions)).collect();
    Ok(Review {
        schema: SCHEMA,
        rules,
        reviewer: reviewer.name(),
        source: log.source.clone(),
        hands,
        landlord: landlord.index() as u8,
        landlord_won,
        thresholds,
        curve,
        decisions,
        seats,
    })
}

/// The decision of `seat` at `state`, which played `id`: its plays valued from the seat's view.
fn judge(
    state: &State,
    seat: Seat,
    id: crate::game::ActionId,
    move_no: usize,
    reviewer: &mut dyn Agent,
    thresholds: &Thresholds,
) -> Result<Decision, ReviewError> {
    let mut plays = MoveList::new();
    state.legal_plays_into(&mut plays);
    let table = ActionTable::get();
    let chosen = plays.iter().position(|p| table.id(p) == id).expect("a replayed play is legal");
    let view = View::of(state, seat);
    let turn = Turn::new(&view, &plays).expect("a seat to play, with its legal plays");
    let values = reviewer.candidates(turn).ok_or_else(|| ReviewError::NoValues(reviewer.name()))?;
    let wins = winning_plays(state, seat, &plays);
    // A play that wins at once is a certain win, whatever the network estimates.
    let win: Vec<f64> = values
        .iter()
        .zip(&wins)
        .map(|(c, &wins)| {
            if wins {
                1.0
            } else if c.value.is_nan() {
                0.0
            } else {
                chance(c.value)
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..plays.len()).collect();
    order.sort_by(|&a, &b| win[b].total_cmp(&win[a]));
    let valued = |k: usize| Valued { play: play_notation(&plays[k]), win: win[k] };
    let best = order[0];
    let loss = (win[best] - win[chosen]).max(0.0);
    let win_at_once = wins.iter().any(|&w| w);
    let verdict = match () {
        _ if plays.len() == 1 => Verdict::Forced,
        _ if win_at_once && !wins[chosen] => Verdict::Blunder,
        _ => Verdict::of(loss, win[chosen] >= win[best], thresholds),
    };
    Ok(Decision {
        move_no,
        seat,
        role: state.role(seat).map_or("nobody", |r| r.name_at(state.table())),
        hand: state.hand(seat).to_string(),
        legal: plays.len(),
        played: valued(chosen),
        best: valued(best),
        top: order.iter().take(3).map(|&k| valued(k)).collect(),
        loss,
        deep: None,
        win_at_once,
        verdict,
    })
}

/// Which of `plays` end the game at once with `seat`'s side winning (an empty hand; in a
/// two-player game, the farmer's target reached): the engine says, on a copy of the state.
fn winning_plays(state: &State, seat: Seat, plays: &[crate::game::Play]) -> Vec<bool> {
    let side = |s: Seat| Some(s) == state.landlord();
    plays
        .iter()
        .map(|&p| {
            let mut after = state.clone();
            after.apply_play_unchecked(p);
            after.winner().is_some_and(|w| side(w) == side(seat))
        })
        .collect()
}

fn seat_review(end: &State, seat: Seat, log: &GameLog, decisions: &[Decision]) -> SeatReview {
    let own: Vec<&Decision> = decisions.iter().filter(|d| d.seat == seat).collect();
    let chosen: Vec<&&Decision> = own.iter().filter(|d| d.verdict != Verdict::Forced).collect();
    let fine = chosen.iter().filter(|d| matches!(d.verdict, Verdict::Best | Verdict::Good)).count();
    let accuracy = if chosen.is_empty() { 100.0 } else { 100.0 * fine as f64 / chosen.len() as f64 };
    SeatReview {
        seat,
        role: end.role(seat).map_or("nobody", |r| r.name_at(end.table())),
        player: log.players.get(seat.index()).cloned(),
        decisions: chosen.len(),
        total_loss: chosen.iter().map(|d| d.loss).sum(),
        accuracy,
        verdicts: Verdict::ALL.iter().map(|&v| (v, own.iter().filter(|d| d.verdict == v).count())).collect(),
    }
}

/// One player's figures over many reviewed games (`ddz review --summary`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerSummary {
    /// The player, as the logs name it (`seat N` where they do not).
    pub player: String,
    /// Games in which it played.
    pub games: usize,
    /// Its decisions with a choice.
    pub decisions: usize,
    /// Mean win chance lost a decision.
    pub mean_loss: f64,
    /// Half the width of the 95% interval of the mean loss (normal approximation).
    pub mean_loss_ci: f64,
    /// Share of its decisions that were best or good, in percent.
    pub accuracy: f64,
    /// Half the width of the 95% interval of the accuracy.
    pub accuracy_ci: f64,
}

/// Each player's figures over `reviews`, by name, in order of first appearance.
pub fn summarize(reviews: &[Review]) -> Vec<PlayerSummary> {
    // Per player: games, and each decision's loss and whether it was best or good.
    let mut players: Vec<(String, usize, Vec<f64>, Vec<f64>)> = Vec::new();
    for r in reviews {
        for s in &r.seats {
            let name = s.player.clone().unwrap_or_else(|| format!("seat {}", s.seat.index()));
            let k = match players.iter().position(|p| p.0 == name) {
                Some(k) => k,
                None => {
                    players.push((name, 0, Vec::new(), Vec::new()));
                    players.len() - 1
                }
            };
            players[k].1 += 1;
            for d in r.decisions.iter().filter(|d| d.seat == s.seat && d.verdict != Verdict::Forced) {
                players[k].2.push(d.loss);
                players[k].3.push(if matches!(d.verdict, Verdict::Best | Verdict::Good) { 1.0 } else { 0.0 });
            }
        }
    }
    players
        .into_iter()
        .map(|(player, games, losses, fine)| {
            let (mean_loss, mean_loss_ci) = mean_and_ci(&losses);
            let (share, share_ci) = mean_and_ci(&fine);
            PlayerSummary {
                player,
                games,
                decisions: losses.len(),
                mean_loss,
                mean_loss_ci,
                accuracy: 100.0 * share,
                accuracy_ci: 100.0 * share_ci,
            }
        })
        .collect()
}

/// The mean of `xs` and half its 95% interval (1.96 standard errors); 0s without data.
fn mean_and_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n;
    let var = if xs.len() > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, 1.96 * (var / n).sqrt())
}

/// The play made and the best play of a flagged decision, scored by a search in worlds drawn
/// from what the seat knew (PIMC: each world played out to the end), so that a flagged
/// blunder is not only the network's own blind spot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeepCheck {
    /// The search's win chance of the play made.
    pub played: f64,
    /// The search's win chance of the reviewer's best play.
    pub best: f64,
}

/// Checks again, with `search` over `policy`, each decision of `review` whose verdict is a
/// mistake or a blunder; `seed` draws the worlds (the same seed, the same figures). Only the
/// standard game: the search knows no other rules yet.
pub fn deepen(
    review: &mut Review,
    game: &ReplayedGame,
    policy: &mut dyn crate::search::policy::Policy,
    search: &crate::search::pimc::PimcSearch,
    seed: u64,
) -> Result<(), ReviewError> {
    use rand::SeedableRng;
    if review.rules != Rules::Standard {
        return Err(ReviewError::Deep(review.rules));
    }
    let end = &game.state;
    let mut state = State::new(end.config().clone());
    let mut move_no = 0;
    let mut plays = MoveList::new();
    for action in end.history() {
        if let (Action::Play(_), Some(seat)) = (action, state.current_player()) {
            move_no += 1;
            let d = &mut review.decisions[move_no - 1];
            if matches!(d.verdict, Verdict::Mistake | Verdict::Blunder) {
                state.legal_plays_into(&mut plays);
                let pick = |notation: &str| plays.iter().copied().find(|p| play_notation(p) == notation);
                if let (Some(played), Some(best)) = (pick(&d.played.play), pick(&d.best.play)) {
                    let mut rng = rand::rngs::SmallRng::seed_from_u64(crate::seeds::nth(seed, move_no as u64));
                    let scores = search.scores(policy, None, &state, seat, &[played, best], &mut rng);
                    let chance = |s: f64| ((s + 1.0) / 2.0).clamp(0.0, 1.0);
                    d.deep = Some(DeepCheck { played: chance(scores[0]), best: chance(scores[1]) });
                }
            }
        }
        state.apply_action_unchecked(*action);
    }
    Ok(())
}

/// One bin of a calibration table: the decisions whose play the reviewer gave a win chance in
/// `[low, high)`, and how often the player's side then won.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationBin {
    /// The bin's lowest win chance.
    pub low: f64,
    /// Its highest (1 is in the last bin).
    pub high: f64,
    /// Decisions in it.
    pub decisions: usize,
    /// The mean win chance the reviewer gave their plays.
    pub predicted: f64,
    /// The share of them whose side won the game.
    pub observed: f64,
    /// Half the width of the 95% interval of the share (decisions of one game are not
    /// independent: read it as a lower bound).
    pub observed_ci: f64,
}

/// How well the reviewer's win chances match results over `reviews`: ten bins of the chance
/// it gave each play made (forced ones included), with the share of those plays' sides that
/// won. Plays that won the game at once are left out (their chance is 1 by rule).
pub fn calibration(reviews: &[Review]) -> Vec<CalibrationBin> {
    const BINS: usize = 10;
    let mut bins: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); BINS];
    for r in reviews {
        for d in r.decisions.iter().filter(|d| !(d.win_at_once && d.played.win >= 1.0)) {
            let won = (d.role == "landlord") == r.landlord_won;
            let k = ((d.played.win * BINS as f64) as usize).min(BINS - 1);
            bins[k].0.push(d.played.win);
            bins[k].1.push(if won { 1.0 } else { 0.0 });
        }
    }
    bins.into_iter()
        .enumerate()
        .map(|(k, (predicted, won))| {
            let (observed, observed_ci) = mean_and_ci(&won);
            CalibrationBin {
                low: k as f64 / BINS as f64,
                high: (k + 1) as f64 / BINS as f64,
                decisions: won.len(),
                predicted: mean_and_ci(&predicted).0,
                observed,
                observed_ci,
            }
        })
        .collect()
}
