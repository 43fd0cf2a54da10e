//! `ddz evaluate-hands`: the hand evaluator, trained by Monte Carlo. Deal, play the game out
//! with one agent (a play network) in every seat, seat 0 the landlord, and label the landlord's
//! hand with the result: its 17 dealt cards (the bottom unknown, as when bidding) and its 20
//! with the bottom. The network learns the chance of winning and the expected points at stake 1
//! ([`crate::model::evaluator`]); held-out deals measure its calibration in deciles.

use crate::agents::{AgentError, AgentSpec, Everyone, play_out};
use crate::cards::Counts;
use crate::encode::{HAND_DIM, encode_hand};
use crate::game::{GameConfig, Scoring, State, generate_deals};
use crate::model::WeightsError;
use crate::model::evaluator::{HandNet, HandTrainer};
use indicatif::ProgressBar;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Why `ddz evaluate-hands` could not play, train or write the evaluator.
#[derive(Debug, thiserror::Error)]
pub enum HandsError {
    /// The agent that plays the games out would not build or failed mid-game.
    #[error(transparent)]
    Agent(#[from] AgentError),
    /// The evaluator's weights could not be saved.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// The evaluator's optimizer could not be built.
    #[error(transparent)]
    Learner(#[from] crate::model::LearnerError),
    /// A file or folder that could not be created, written or plotted.
    #[error("{path}: {reason}")]
    Io {
        /// The file or folder concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        reason: crate::error::Cause,
    },
    /// A setting out of range; the text names the setting and value.
    #[error("{0}")]
    Invalid(String),
    /// Training made the evaluator worse than it started: nothing is written.
    #[error(
        "training diverged: the loss on held-out training deals is {best}, the untrained evaluator's {untrained}; \
         nothing was written (try a lower --lr than {lr})"
    )]
    Diverged {
        /// The best loss reached on the early-stopping deals (may be NaN).
        best: f64,
        /// The loss of the untrained evaluator on the same deals.
        untrained: f64,
        /// The learning rate used.
        lr: f64,
    },
}

/// How the evaluator is trained.
#[derive(Clone, Debug, Serialize)]
pub struct HandsConfig {
    /// Games to play and label, at least 10 and at most [`crate::game::MOST_DEALS`].
    pub games: usize,
    /// Seed of the deals, of the network's initial weights and of the batch shuffling.
    pub seed: u64,
    /// The most passes over the training deals (training stops early after three without
    /// improvement); at least 1.
    pub epochs: usize,
    /// Hands per update; at least 1.
    pub batch_size: usize,
    /// Adam's learning rate; positive and finite.
    pub lr: f64,
    /// Share of the deals held out for calibration, above 0 and below 1.
    pub val_share: f64,
    /// Threads that play the games (0 counts as 1).
    pub threads: usize,
}

impl HandsConfig {
    /// Checks the settings before any game is played: the error names the setting and value.
    pub fn validate(&self) -> Result<(), HandsError> {
        let bad = |what: String| Err(HandsError::Invalid(what));
        if !(self.lr.is_finite() && self.lr > 0.0) {
            return bad(format!("lr {}: must be a positive finite number", self.lr));
        }
        if !(self.val_share > 0.0 && self.val_share < 1.0) {
            return bad(format!("val_share {}: must be above 0 and below 1", self.val_share));
        }
        if self.games > crate::game::MOST_DEALS {
            return bad(format!("games {}: at most {}", self.games, crate::game::MOST_DEALS));
        }
        if self.games < 10 || self.epochs == 0 || self.batch_size == 0 {
            return bad(format!(
                "{} games, {} epochs, batch {}: need at least 10 games, and epochs and batch at least 1",
                self.games, self.epochs, self.batch_size
            ));
        }
        Ok(())
    }
}

/// One game's label: the landlord's dealt 17 cards, the bottom, and how it went for it.
#[derive(Clone, Copy, Debug)]
pub struct Outcome {
    /// The landlord's 17 dealt cards, without the bottom.
    pub hand: Counts,
    /// The 3 bottom cards the landlord took.
    pub bottom: Counts,
    /// Whether the landlord won.
    pub won: bool,
    /// The landlord's points (bombs, rocket and spring doubling; stake 1).
    pub points: f32,
}

/// Plays `games` deals (from `seed`) with `agent` in every seat, on `threads` threads.
pub fn play_games(
    agent: &AgentSpec,
    games: usize,
    seed: u64,
    threads: usize,
    progress: &ProgressBar,
) -> Result<Vec<Outcome>, HandsError> {
    let deals = generate_deals(games, seed);
    let chunk = deals.len().div_ceil(threads.max(1)).max(1);
    let results: Vec<Result<Vec<Outcome>, AgentError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = deals
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut a = agent.build()?;
                    let config = GameConfig { scoring: Scoring::Score, spring: true, ..GameConfig::default() };
                    let mut out = Vec::with_capacity(part.len());
                    for deal in part {
                        let mut state = State::new(config.clone());
                        state.deal_hands_unchecked(deal.hands, deal.bottom); // a generated deal is valid
                        play_out(&mut state, &mut Everyone(a.as_mut()), |_, _, _, _| {})?;
                        let points = state.returns()[0] as f32;
                        out.push(Outcome {
                            hand: deal.hands[0].counts(),
                            bottom: deal.bottom.counts(),
                            won: points > 0.0,
                            points,
                        });
                        progress.inc(1);
                    }
                    Ok(out)
                })
            })
            .collect();
        // A game thread's panic goes on in this thread, with its own message.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    let mut all = Vec::with_capacity(games);
    for r in results {
        all.extend(r?);
    }
    Ok(all)
}

/// Predicted against observed in one tenth of the held-out hands (sorted by prediction).
#[derive(Clone, Debug, Serialize)]
pub struct Decile {
    /// The mean predicted win chance in this tenth.
    pub predicted: f64,
    /// The share of these hands that the landlord won.
    pub observed: f64,
    /// How many hands fell in this tenth.
    pub hands: usize,
}

/// What training the evaluator gave, as written to `out/report.json`.
#[derive(Clone, Debug, Serialize)]
pub struct HandsReport {
    /// The settings it was trained with.
    pub config: HandsConfig,
    /// The agent that played the games out, as given.
    pub agent: String,
    /// Training hands: two per training game (its 17-card and 20-card rows).
    pub train_hands: usize,
    /// Held-out hands: two per held-out game.
    pub val_hands: usize,
    /// The best loss on the early-stopping hands.
    pub final_loss: f64,
    /// Brier score of the predicted win chance on held-out hands (lower is better).
    pub brier: f64,
    /// Brier score of always predicting the training win rate, the baseline to beat.
    pub brier_constant: f64,
    /// Mean absolute error of the predicted points on held-out hands.
    pub points_mae: f64,
    /// Calibration of the 17-card predictions (bottom unknown), in deciles.
    pub deciles_17: Vec<Decile>,
    /// Calibration of the 20-card predictions (with the bottom), in deciles.
    pub deciles_20: Vec<Decile>,
    /// Where the trained weights were written.
    pub model: PathBuf,
}

/// Features and labels of outcomes: each gives a 17-card row and a 20-card row.
fn rows(outcomes: &[Outcome]) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut features = vec![0.0; outcomes.len() * 2 * HAND_DIM];
    let (mut wins, mut points) = (Vec::new(), Vec::new());
    for (i, o) in outcomes.iter().enumerate() {
        encode_hand(o.hand, None, &mut features[2 * i * HAND_DIM..(2 * i + 1) * HAND_DIM]);
        encode_hand(
            o.hand.plus(o.bottom),
            Some(o.bottom),
            &mut features[(2 * i + 1) * HAND_DIM..(2 * i + 2) * HAND_DIM],
        );
        for _ in 0..2 {
            wins.push(o.won as u8 as f32);
            points.push(o.points);
        }
    }
    (features, wins, points)
}

/// Trains the evaluator on `outcomes` (the last `val_share` held out) and writes
/// `out/model.safetensors`, `out/calibration.csv` and `out/report.json`.
pub fn train(outcomes: &[Outcome], agent: &str, cfg: &HandsConfig, out: &Path) -> Result<HandsReport, HandsError> {
    cfg.validate()?;
    let n_val = ((outcomes.len() as f64) * cfg.val_share).round() as usize;
    if outcomes.len() < 10 || n_val == 0 || n_val >= outcomes.len() || cfg.epochs == 0 || cfg.batch_size == 0 {
        return Err(HandsError::Invalid(format!(
            "{} games with val_share {}, {} epochs and batch {}: need at least 10 games, some held out, epochs and batch at least 1",
            outcomes.len(),
            cfg.val_share,
            cfg.epochs,
            cfg.batch_size
        )));
    }
    let io = |e: std::io::Error| HandsError::Io { path: out.to_path_buf(), reason: e.into() };
    std::fs::create_dir_all(out).map_err(io)?;
    let (train_set, val_set) = outcomes.split_at(outcomes.len() - n_val);
    // Early stopping watches the last tenth of the training deals, not the calibration deals.
    let (fit_set, stop_set) = train_set.split_at(train_set.len() - (train_set.len() / 10).max(1));
    let mut trainer = HandTrainer::new(cfg.seed, cfg.lr)?;
    let mut best = HandNet::cpu(cfg.seed);
    let (stop_f, stop_w, stop_p) = rows(stop_set);
    let untrained = trainer.loss(&stop_f, &stop_w, &stop_p);
    let final_loss = fit(&mut trainer, &mut best, fit_set, stop_set, cfg);
    if final_loss.is_nan() || final_loss >= untrained {
        return Err(HandsError::Diverged { best: final_loss, untrained, lr: cfg.lr });
    }
    let model = out.join("model.safetensors");
    best.save(&model)?;
    let base_rate = train_set.iter().filter(|o| o.won).count() as f64 / train_set.len() as f64;
    let report = measure(&best, val_set, base_rate, cfg, agent, train_set.len() * 2, final_loss, model);
    write_calibration(&report, &out.join("calibration.csv")).map_err(io)?;
    let json = serde_json::to_string_pretty(&report).map_err(|e| io(e.into()))?;
    crate::files::write(&out.join("report.json"), json).map_err(io)?;
    Ok(report)
}

/// Epochs of shuffled batches until the loss on `stop` has not improved for three epochs (or
/// `cfg.epochs` pass); `best` holds the weights of the best epoch. Returns that loss.
fn fit(trainer: &mut HandTrainer, best: &mut HandNet, fit: &[Outcome], stop: &[Outcome], cfg: &HandsConfig) -> f64 {
    let (features, wins, points) = rows(fit);
    let (stop_f, stop_w, stop_p) = rows(stop);
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let mut order: Vec<usize> = (0..wins.len()).collect();
    let (mut best_loss, mut stale) = (f64::INFINITY, 0);
    let (mut bf, mut bw, mut bp) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..cfg.epochs {
        order.shuffle(&mut rng);
        for batch in order.chunks(cfg.batch_size) {
            bf.clear();
            bw.clear();
            bp.clear();
            for &i in batch {
                bf.extend_from_slice(&features[i * HAND_DIM..(i + 1) * HAND_DIM]);
                bw.push(wins[i]);
                bp.push(points[i]);
            }
            trainer.step(&bf, &bw, &bp);
        }
        let loss = trainer.loss(&stop_f, &stop_w, &stop_p);
        if loss < best_loss {
            (best_loss, stale) = (loss, 0);
            trainer.keep(best);
        } else {
            stale += 1;
            if stale == 3 {
                break;
            }
        }
    }
    best_loss
}

#[allow(clippy::too_many_arguments)]
fn measure(
    net: &HandNet,
    val: &[Outcome],
    base_rate: f64,
    cfg: &HandsConfig,
    agent: &str,
    train_hands: usize,
    final_loss: f64,
    model: PathBuf,
) -> HandsReport {
    let (features, wins, points) = rows(val);
    let predicted = net.predict(&features);
    let n = wins.len() as f64;
    let brier = predicted.iter().zip(&wins).map(|(p, &w)| (p.win as f64 - w as f64).powi(2)).sum::<f64>() / n;
    let brier_constant = wins.iter().map(|&w| (base_rate - w as f64).powi(2)).sum::<f64>() / n;
    let points_mae = predicted.iter().zip(&points).map(|(p, &t)| (p.points as f64 - t as f64).abs()).sum::<f64>() / n;
    let pairs = |variant: usize| -> Vec<(f64, f64)> {
        (variant..wins.len()).step_by(2).map(|i| (predicted[i].win as f64, wins[i] as f64)).collect()
    };
    HandsReport {
        config: cfg.clone(),
        agent: agent.to_string(),
        train_hands,
        val_hands: wins.len(),
        final_loss,
        brier,
        brier_constant,
        points_mae,
        deciles_17: deciles(pairs(0)),
        deciles_20: deciles(pairs(1)),
        model,
    }
}

/// Sorts (predicted, observed) pairs by prediction and averages each tenth.
pub fn deciles(mut pairs: Vec<(f64, f64)>) -> Vec<Decile> {
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = pairs.len();
    (0..10)
        .map(|k| &pairs[k * n / 10..(k + 1) * n / 10])
        .filter(|part| !part.is_empty())
        .map(|part| {
            let m = part.len() as f64;
            Decile {
                predicted: part.iter().map(|p| p.0).sum::<f64>() / m,
                observed: part.iter().map(|p| p.1).sum::<f64>() / m,
                hands: part.len(),
            }
        })
        .collect()
}

/// Renders `out/calibration.csv` to `out/calibration.png` (matplotlib: [`crate::scripts`]).
pub fn plot(out: &Path) -> Result<PathBuf, HandsError> {
    let (csv, png) = (out.join("calibration.csv"), out.join("calibration.png"));
    crate::scripts::plot("plot_calibration.py", &[csv.as_os_str(), png.as_os_str()])
        .map_err(|e| HandsError::Io { path: png.clone(), reason: e.into() })?;
    Ok(png)
}

fn write_calibration(report: &HandsReport, path: &Path) -> std::io::Result<()> {
    let mut text = String::from("hand,decile,predicted,observed,hands\n");
    for (name, ds) in [("17", &report.deciles_17), ("20", &report.deciles_20)] {
        for (k, d) in ds.iter().enumerate() {
            text += &format!("{name},{},{:.4},{:.4},{}\n", k + 1, d.predicted, d.observed, d.hands);
        }
    }
    crate::run::write_atomically(path, &text).map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deciles_split_and_average() {
        let pairs: Vec<(f64, f64)> = (0..100).map(|i| (i as f64 / 100.0, (i % 2) as f64)).collect();
        let d = deciles(pairs);
        assert_eq!(d.len(), 10);
        assert!(d.iter().all(|x| x.hands == 10));
        assert!((d[0].predicted - 0.045).abs() < 1e-9 && (d[9].observed - 0.5).abs() < 1e-9);
    }

    #[test]
    fn bad_settings_are_named_and_a_diverging_evaluator_is_never_written() {
        crate::runtime::configure_threads(1);
        let cfg = HandsConfig { games: 300, seed: 3, epochs: 5, batch_size: 64, lr: 1e-3, val_share: 0.2, threads: 1 };
        for (bad, named) in [
            (HandsConfig { lr: f64::NAN, ..cfg.clone() }, "lr NaN"),
            (HandsConfig { lr: -1.0, ..cfg.clone() }, "lr -1"),
            (HandsConfig { val_share: f64::INFINITY, ..cfg.clone() }, "val_share inf"),
        ] {
            let e = bad.validate().unwrap_err().to_string();
            assert!(e.starts_with(named), "{e}");
        }
        let agent: AgentSpec = "random".parse().unwrap();
        let outcomes = play_games(&agent, cfg.games, cfg.seed, 1, &ProgressBar::hidden()).unwrap();
        let out = std::env::temp_dir().join(format!("ddz-hands-diverge-{}", std::process::id()));
        let e = train(&outcomes, "random", &HandsConfig { lr: 1e9, ..cfg.clone() }, &out).unwrap_err();
        assert!(matches!(e, HandsError::Diverged { .. }), "{e}");
        assert!(!out.join("model.safetensors").exists(), "nothing written");
        train(&outcomes, "random", &cfg, &out).unwrap();
        assert!(out.join("model.safetensors").exists());
        std::fs::remove_dir_all(&out).unwrap();
    }
}
