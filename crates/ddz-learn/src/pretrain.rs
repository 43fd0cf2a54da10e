//! Supervised warm start from game logs: cross-entropy of the softmax over each decision's
//! legal plays, scored by the same Q network and head that RL trains, so RL starts from it.

use crate::encode::{ActionLayout, OFF_BOTTOM, PLANE, STATE_DIM, encode_state};
use crate::game::{Action, ActionTable, MoveList, Play, Seat, State};
use crate::logs::Replayed;
use crate::model::{ChoiceBatch, Imitation, LearnerError, ModelConfig, ModelError, WeightsError, save_weights_file};
use crate::runtime::Device;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use tensorboard_rs::summary_writer::SummaryWriter;

/// Why pretraining could not run or wrote no model.
#[derive(Debug, thiserror::Error)]
pub enum PretrainError {
    /// No game was given (the logs held no valid game).
    #[error("no valid games to learn from")]
    NoGames,
    /// The logs' games follow other rules than the network is built for.
    #[error(
        "the logs hold {logs} games but the config's network is for {model} rules: give --config a config with [game] rules = \"{logs}\" (configs/laizi.toml is laizi's, configs/dmc.toml standard)"
    )]
    Rules {
        /// The rules of the first game that differs.
        logs: crate::game::Rules,
        /// The rules of the config's network.
        model: crate::game::Rules,
    },
    /// No training decision has two or more legal plays (of `player`'s seats, with `player`).
    #[error("the logs hold no decision with a choice (by the player asked for, where one is)")]
    NoDecisions,
    /// A setting no pretraining can use: its name and why.
    #[error("{key}: {reason}")]
    Invalid {
        /// The setting's name, as in [`PretrainConfig`].
        key: &'static str,
        /// What is wrong with its value.
        reason: String,
    },
    /// The model config is invalid, or the best weights do not fit the network.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The network or its optimizer could not be built.
    #[error(transparent)]
    Learner(#[from] LearnerError),
    /// The model file could not be written.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// The output folder or `pretrain.json` could not be created or written.
    #[error("{path}: {source}")]
    Io {
        /// The output folder.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// Training made the network worse than it started, its loss stopped being a number, or
    /// its weights ran away.
    #[error("training diverged by step {step}: {reason}; no model was written (try a lower --lr than {lr})")]
    Diverged {
        /// Learner steps taken when training stopped.
        step: u64,
        /// What went wrong: the loss, the validation loss or the largest weight.
        reason: String,
        /// The learning rate used.
        lr: f64,
    },
}

/// How much worse than the untrained network the best validation loss may be before the run
/// counts as diverged: a run of a few steps may not have moved it at all.
const DIVERGED_MARGIN: f64 = 0.1;
/// Largest weight a network that learned may hold. Far above what training at a sane rate
/// makes (weights of order 1), far below where float32 activations overflow; a run at an absurd
/// rate can keep a finite, even falling, validation loss while its weights run away and its play
/// falls apart, so the loss alone does not tell.
const WEIGHT_LIMIT: f32 = 1e4;

/// Why a finished fit is no model to write, if it is not.
fn divergence(untrained: f64, best: &Best, last_loss: f64) -> Option<String> {
    if !last_loss.is_finite() {
        return Some(format!("the training loss became {last_loss}"));
    }
    if best.loss.is_nan() || best.loss > untrained * (1.0 + DIVERGED_MARGIN) {
        return Some(format!("best validation loss {}, the untrained network's {untrained}", best.loss));
    }
    // The largest magnitude, NaN above every number (total_cmp of absolute values).
    let (name, largest) = best
        .weights
        .tensors
        .iter()
        .filter_map(|(name, _, data)| data.iter().map(|w| w.abs()).max_by(f32::total_cmp).map(|m| (name, m)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    (largest.is_nan() || largest > WEIGHT_LIMIT)
        .then(|| format!("weight {name} reached {largest:e} (a trained network stays below {WEIGHT_LIMIT:e})"))
}

/// One decision to imitate: the state before it, the legal plays and the one chosen.
#[derive(Clone)]
pub struct Sample {
    /// The state before the decision.
    pub state: State,
    /// The seat that decided (0 to 2).
    pub seat: Seat,
    /// The legal plays, in the engine's order (two or more).
    pub plays: Vec<Play>,
    /// The index in `plays` of the play the log chose.
    pub chosen: usize,
    /// Whether the log recorded the bottom (if not, the encoded state leaves it out).
    pub bottom_known: bool,
}

/// Every decision with a choice (two or more legal plays) of the given seats' roles — and, with
/// `player`, only of the seats the log's `players` names so (`human`) — identical
/// (information state, play) pairs kept once. Returns the samples per game and how many
/// duplicates were dropped.
pub fn decisions(
    games: &[Replayed],
    roles: &[crate::game::Role],
    player: Option<&str>,
    seen: &mut HashSet<u64>,
) -> (Vec<Vec<Sample>>, usize) {
    let table = ActionTable::get();
    let mut dropped = 0;
    let mut out = Vec::new();
    let mut plays = MoveList::new();
    for (log, game) in games {
        let fin = &game.state;
        let mut s = State::new(fin.config().clone());
        let mut samples = Vec::new();
        for action in fin.history() {
            if let (Action::Play(id), Some(seat)) = (action, s.current_player()) {
                s.legal_plays_into(&mut plays);
                let role_ok = s.role(seat).is_some_and(|r| roles.contains(&r))
                    && player.is_none_or(|p| log.players.get(seat.index()).is_some_and(|q| q == p));
                if role_ok && plays.len() > 1 {
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    s.information_state_string(seat).hash(&mut h);
                    id.hash(&mut h); // under laizi the id names the reading too
                    if seen.insert(h.finish()) {
                        let chosen = plays.iter().position(|p| table.id(p) == *id).expect("a replayed play is legal");
                        samples.push(Sample {
                            state: s.clone(),
                            seat,
                            plays: plays.clone(),
                            chosen,
                            bottom_known: game.bottom_known,
                        });
                    } else {
                        dropped += 1;
                    }
                }
            }
            s.apply_action_unchecked(*action); // the history of a state the engine built
        }
        out.push(samples);
    }
    (out, dropped)
}

/// Settings of a supervised warm start; [`PretrainConfig::validate`] checks them.
#[derive(Clone, Debug, Serialize)]
pub struct PretrainConfig {
    /// Learner steps at most (at least 1; default 3000).
    pub steps: u64,
    /// Decisions per step, drawn at random from the training decisions (at least 1; default
    /// 256).
    pub batch_size: usize,
    /// Adam's learning rate (positive and finite; default 1e-4).
    pub lr: f64,
    /// Share of games held out for validation.
    pub val_share: f64,
    /// Validate every this many steps.
    pub val_every: u64,
    /// Stop after this many validations without a better validation loss.
    pub patience: u32,
    /// Seeds the validation split, the batches and the initial weights (default 1).
    pub seed: u64,
    /// The network to train; an RL run starting from the result must use the same.
    pub model: ModelConfig,
    /// Where the network computes (default `auto`).
    pub device: Device,
    /// Imitate only the seats this player played, by the logs' `players` (`human`: people's
    /// decisions, not the agents' they played against); `None`: every seat.
    pub player: Option<String>,
}

impl PretrainConfig {
    /// Checks every setting before any work: the error names the setting.
    pub fn validate(&self) -> Result<(), PretrainError> {
        let limited: [(&'static str, crate::limits::Checked); 4] = [
            ("steps", self.steps.into()),
            ("batch_size", self.batch_size.into()),
            ("val_every", self.val_every.into()),
            ("patience", self.patience.into()),
        ];
        for (key, value) in limited {
            crate::limits::verify(&format!("pretrain.{key}"), value).map_err(|e| PretrainError::Invalid {
                key,
                reason: format!("{} is out of range: {}", e.value, e.range),
            })?;
        }
        let checks: [(&'static str, bool, &str); 2] = [
            ("lr", !(self.lr.is_finite() && self.lr > 0.0), "must be a positive finite number"),
            ("val_share", !(0.0..1.0).contains(&self.val_share), "must be at least 0 and below 1"),
        ];
        if let Some((key, _, why)) = checks.iter().find(|(_, bad, _)| *bad) {
            let value = match *key {
                "lr" => self.lr.to_string(),
                "val_share" => self.val_share.to_string(),
                _ => String::new(),
            };
            let reason = if value.is_empty() { why.to_string() } else { format!("{value} {why}") };
            return Err(PretrainError::Invalid { key, reason });
        }
        self.model.validate().map_err(crate::model::ModelError::from)?;
        Ok(())
    }
}

impl Default for PretrainConfig {
    fn default() -> Self {
        PretrainConfig {
            steps: 3000,
            batch_size: 256,
            lr: 1e-4,
            val_share: 0.1,
            val_every: 100,
            patience: 5,
            seed: 1,
            model: ModelConfig::default(),
            device: Device::Auto,
            player: None,
        }
    }
}

/// What a pretraining run did; also written to `pretrain.json`.
#[derive(Clone, Debug, Serialize)]
pub struct PretrainSummary {
    /// Games learned from, training and validation together.
    pub games: usize,
    /// Invalid games the log reader left out.
    pub skipped_games: usize,
    /// Training decisions.
    pub train_samples: usize,
    /// Validation decisions (from the held-out games).
    pub val_samples: usize,
    /// Decisions dropped as repeats of an (information state, play) pair already taken.
    pub duplicates_dropped: usize,
    /// Learner steps taken.
    pub steps: u64,
    /// The lowest validation loss measured: that of the model written.
    pub best_val_loss: f64,
    /// The share (0 to 1) of validation decisions whose best-scored play was the one chosen, for
    /// the model written.
    pub best_val_top1: f64,
    /// No game was held out (too few games for `val_share`): the "validation" figures were
    /// measured on training decisions.
    pub validated_on_training_data: bool,
    /// The loss of the last training batch.
    pub final_train_loss: f64,
    /// Stopped after `patience` validations without a better validation loss.
    pub stopped_early: bool,
    /// Stopped by Ctrl-C or SIGTERM (the best model so far was written).
    pub interrupted: bool,
    /// The model written (`out/model.safetensors`).
    pub checkpoint: PathBuf,
}

/// Encodes decisions for the network: their states (the bottom left out where the log did not
/// record it), all their legal plays, and the chosen ones.
fn encode_batch(samples: &[&Sample], layout: ActionLayout) -> ChoiceBatch {
    let total: usize = samples.iter().map(|s| s.plays.len()).sum();
    let width = layout.dim();
    let mut batch = ChoiceBatch {
        states: vec![0.0f32; samples.len() * STATE_DIM],
        actions: vec![0.0f32; total * width],
        owner: Vec::with_capacity(total),
        positions: Vec::with_capacity(total),
        chosen: samples.iter().map(|s| s.chosen as i64).collect(),
        widest: samples.iter().map(|s| s.plays.len()).max().unwrap_or(0),
    };
    let mut at = 0;
    for (b, s) in samples.iter().enumerate() {
        let row = &mut batch.states[b * STATE_DIM..(b + 1) * STATE_DIM];
        encode_state(&s.state, s.seat, row);
        if !s.bottom_known {
            row[OFF_BOTTOM..OFF_BOTTOM + PLANE].fill(0.0); // the log did not record it
        }
        let context = layout.context(&s.state.view(s.seat));
        for (k, p) in s.plays.iter().enumerate() {
            layout.encode(p, &context, &mut batch.actions[at * width..(at + 1) * width]);
            batch.owner.push(b as i64);
            batch.positions.push(k as i64);
            at += 1;
        }
    }
    batch
}

/// Mean loss and top-1 accuracy over `samples`, without learning.
fn evaluate(trainer: &Imitation, samples: &[Sample]) -> (f64, f64) {
    if samples.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let (mut loss, mut hits) = (0.0, 0i64);
    for chunk in samples.chunks(512) {
        let refs: Vec<&Sample> = chunk.iter().collect();
        let (l, h) = trainer.score(&encode_batch(&refs, trainer.net.config().action_layout()));
        loss += l * chunk.len() as f64;
        hits += h;
    }
    (loss / samples.len() as f64, hits as f64 / samples.len() as f64)
}

/// The games split into (validation, training) at random by `cfg.seed`, a `val_share` of them
/// held out (always leaving one to train on).
fn split_games(games: Vec<Replayed>, cfg: &PretrainConfig, rng: &mut SmallRng) -> (Vec<Replayed>, Vec<Replayed>) {
    let mut order: Vec<usize> = (0..games.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let n_val = ((games.len() as f64 * cfg.val_share).round() as usize).min(games.len().saturating_sub(1));
    let held_out: HashSet<usize> = order[..n_val].iter().copied().collect();
    let (mut val, mut train) = (Vec::new(), Vec::new());
    for (k, g) in games.into_iter().enumerate() {
        if held_out.contains(&k) { val.push(g) } else { train.push(g) }
    }
    (val, train)
}

/// The best validation result so far and how many validations ago it was.
struct Best {
    loss: f64,
    top1: f64,
    weights: crate::model::Weights,
    since: u32,
}

/// What the training loop did.
struct Fit {
    steps: u64,
    best: Best,
    last_loss: f64,
    stopped_early: bool,
    interrupted: bool,
}

/// Pretrains on `games`, writing `out/model.safetensors` (best validation loss), `out/tb` and
/// `out/pretrain.json`.
pub fn pretrain(
    games: Vec<Replayed>,
    skipped: usize,
    out: &Path,
    cfg: &PretrainConfig,
    quiet: bool,
) -> Result<PretrainSummary, PretrainError> {
    cfg.validate()?;
    if games.is_empty() {
        return Err(PretrainError::NoGames);
    }
    let model = cfg.model.rules;
    if let Some((_, g)) = games.iter().find(|(_, g)| g.state.config().rules != model) {
        return Err(PretrainError::Rules { logs: g.state.config().rules, model });
    }
    let io = |source: std::io::Error| PretrainError::Io { path: out.to_path_buf(), source };
    std::fs::create_dir_all(out).map_err(io)?;
    // Split by game, then take the decisions (deduplicated across both sets).
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let (val_games, train_games) = split_games(games, cfg, &mut rng);
    let roles = crate::game::Role::ALL;
    let mut seen = HashSet::new();
    let player = cfg.player.as_deref();
    let (val, d1) = decisions(&val_games, &roles, player, &mut seen);
    let (train, d2) = decisions(&train_games, &roles, player, &mut seen);
    let val: Vec<Sample> = val.into_iter().flatten().collect();
    let train: Vec<Sample> = train.into_iter().flatten().collect();
    if train.is_empty() {
        return Err(PretrainError::NoDecisions);
    }
    let mut trainer = Imitation::new(&cfg.model, cfg.device, cfg.lr, cfg.seed)?;
    crate::process::stop_cleanly_on_signals("after saving the best model so far");
    let untrained = validation(&trainer, &train, &val).0;
    let Fit { steps, best, last_loss, stopped_early, interrupted } =
        fit(&mut trainer, &train, &val, cfg, &mut rng, out, quiet);
    if let Some(reason) = divergence(untrained, &best, last_loss).filter(|_| steps > 0) {
        return Err(PretrainError::Diverged { step: steps, reason, lr: cfg.lr });
    }
    trainer.net.import(&best.weights)?;
    let checkpoint = out.join("model.safetensors");
    save_weights_file(&trainer.net, &checkpoint)?;
    let summary = PretrainSummary {
        games: train_games.len() + val_games.len(),
        skipped_games: skipped,
        train_samples: train.len(),
        val_samples: val.len(),
        duplicates_dropped: d1 + d2,
        steps,
        best_val_loss: best.loss,
        best_val_top1: best.top1,
        validated_on_training_data: val.is_empty(),
        final_train_loss: last_loss,
        stopped_early,
        interrupted,
        checkpoint,
    };
    let json = serde_json::json!({ "summary": summary, "config": cfg });
    let report = serde_json::to_string_pretty(&json).map_err(|e| io(e.into()))?;
    crate::files::write(&out.join("pretrain.json"), report).map_err(io)?;
    Ok(summary)
}

/// The training loop: random batches of `train`, validation every `val_every` steps, early
/// stop after `patience` validations without a better loss.
fn fit(
    trainer: &mut Imitation,
    train: &[Sample],
    val: &[Sample],
    cfg: &PretrainConfig,
    rng: &mut SmallRng,
    out: &Path,
    quiet: bool,
) -> Fit {
    let mut tb = SummaryWriter::new(out.join("tb"));
    let bar = progress_bar(cfg.steps, quiet);
    let mut best = Best { loss: f64::INFINITY, top1: 0.0, weights: trainer.net.export(0), since: 0 };
    let (mut step, mut last_loss, mut stopped_early) = (0, f64::NAN, false);
    loop {
        let interrupted = crate::process::interrupted();
        // Validate on schedule, at the end, and when interrupted, so the model written is the
        // best one measured.
        let due = step > 0 && (step % cfg.val_every.max(1) == 0 || step == cfg.steps || interrupted);
        if due {
            let (vl, va) = validation(trainer, train, val);
            tb.add_scalar("pretrain/val_loss", vl as f32, step as usize);
            tb.add_scalar("pretrain/val_top1", va as f32, step as usize);
            bar.set_message(format!("train loss {last_loss:.3} | val loss {vl:.3} top-1 {va:.3}"));
            if vl < best.loss {
                best = Best { loss: vl, top1: va, weights: trainer.net.export(step), since: 0 };
            } else {
                best.since += 1;
                stopped_early = best.since >= cfg.patience;
            }
        }
        if step >= cfg.steps || interrupted || stopped_early {
            break;
        }
        let batch: Vec<&Sample> = (0..cfg.batch_size).map(|_| &train[rng.random_range(0..train.len())]).collect();
        last_loss = trainer.step(&encode_batch(&batch, trainer.net.config().action_layout()));
        step += 1;
        if !last_loss.is_finite() {
            break; // diverged: the caller says so, and writes nothing
        }
        tb.add_scalar("pretrain/train_loss", last_loss as f32, step as usize);
        bar.inc(1);
    }
    bar.finish_and_clear();
    tb.flush();
    Fit { steps: step, best, last_loss, stopped_early, interrupted: crate::process::interrupted() }
}

/// Loss and top-1 accuracy on the validation decisions (on at most 2,048 training decisions
/// when none were held out).
fn validation(trainer: &Imitation, train: &[Sample], val: &[Sample]) -> (f64, f64) {
    if val.is_empty() { evaluate(trainer, &train[..train.len().min(2048)]) } else { evaluate(trainer, val) }
}

fn progress_bar(steps: u64, quiet: bool) -> ProgressBar {
    let bar = ProgressBar::new(steps);
    // The style is cosmetic: a template that did not parse would leave the default bar.
    if let Ok(style) = ProgressStyle::with_template(BAR_STYLE) {
        bar.set_style(style);
    }
    if quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

/// The look of the pretraining progress bar.
const BAR_STYLE: &str = "{bar:30} {pos}/{len} steps ({eta} left) {msg}";

#[cfg(test)]
mod tests {
    #[test]
    fn the_bar_style_parses() {
        assert!(indicatif::ProgressStyle::with_template(super::BAR_STYLE).is_ok());
    }

    use super::*;

    #[test]
    fn bad_settings_are_named_before_any_work() {
        let out = std::env::temp_dir().join(format!("ddz-pretrain-settings-{}", std::process::id()));
        let base = PretrainConfig { device: Device::Cpu, ..Default::default() };
        let cases = [
            (PretrainConfig { batch_size: 0, ..base.clone() }, "batch_size"),
            (PretrainConfig { lr: -1.0, ..base.clone() }, "lr: -1"),
            (PretrainConfig { lr: f64::NAN, ..base.clone() }, "lr: NaN"),
            (PretrainConfig { val_share: 2.0, ..base.clone() }, "val_share: 2"),
            (PretrainConfig { val_share: -1.0, ..base.clone() }, "val_share: -1"),
            (PretrainConfig { val_share: f64::NAN, ..base.clone() }, "val_share: NaN"),
            (PretrainConfig { steps: 0, ..base.clone() }, "steps"),
        ];
        for (cfg, named) in cases {
            let e = pretrain(Vec::new(), 0, &out, &cfg, true).unwrap_err();
            assert!(matches!(e, PretrainError::Invalid { .. }) && e.to_string().starts_with(named), "{e}");
        }
        assert!(matches!(pretrain(Vec::new(), 0, &out, &base, true), Err(PretrainError::NoGames)));
        assert!(!out.exists(), "nothing was written");
    }

    #[test]
    fn validation_on_training_data_is_said() {
        let logs = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/data/rule_selfplay_2000.jsonl");
        let (mut games, _) = crate::logs::read_logs(&logs, false).unwrap();
        games.truncate(3);
        let out = std::env::temp_dir().join(format!("ddz-pretrain-val-{}", std::process::id()));
        let model = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        let cfg = PretrainConfig {
            steps: 2,
            batch_size: 8,
            val_share: 0.1,
            model,
            device: Device::Cpu,
            ..Default::default()
        };
        let s = pretrain(games, 0, &out, &cfg, true).unwrap();
        assert_eq!(s.val_samples, 0, "0.1 of 3 games rounds to none held out");
        assert!(s.validated_on_training_data);
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("pretrain.json")).unwrap()).unwrap();
        assert_eq!(written["summary"]["validated_on_training_data"], true);
        std::fs::remove_dir_all(&out).unwrap();
    }

    #[test]
    fn a_diverging_run_is_an_error_and_writes_no_model() {
        let logs = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("tests/data/rule_selfplay_2000.jsonl");
        let read = || crate::logs::read_logs(&logs, false).unwrap().0.into_iter().take(40).collect::<Vec<_>>();
        let out = std::env::temp_dir().join(format!("ddz-pretrain-diverge-{}", std::process::id()));
        let model = ModelConfig { trunk: vec![16], head: 8, head_hidden: vec![], ..Default::default() };
        let cfg = PretrainConfig {
            steps: 60,
            batch_size: 32,
            val_every: 20,
            lr: 1e9,
            model,
            device: Device::Cpu,
            ..Default::default()
        };
        let e = pretrain(read(), 0, &out, &cfg, true).unwrap_err();
        assert!(matches!(e, PretrainError::Diverged { .. }) && e.to_string().contains("lower --lr"), "{e}");
        assert!(!out.join("model.safetensors").exists(), "no model was written");
        let fine = pretrain(read(), 0, &out, &PretrainConfig { lr: 1e-3, ..cfg }, true).unwrap();
        assert!(out.join("model.safetensors").exists() && fine.best_val_loss.is_finite());
        std::fs::remove_dir_all(&out).unwrap();
    }
}
