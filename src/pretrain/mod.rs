//! Supervised warm start from game logs: cross-entropy of the softmax over each decision's
//! legal plays, scored by the same Q network and head that RL trains, so RL starts from it.

pub mod logs;

use crate::encode::{ACTION_DIM, OFF_BOTTOM, PLANE, STATE_DIM, encode_action, encode_state};
use crate::game::{Action, ActionTable, MoveList, Play, State};
use crate::model::{ModelConfig, QNet, save_weights_file};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use logs::{GameLog, ReplayedGame};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use tch::{Kind, Tensor, nn, nn::OptimizerConfig};

/// One decision to imitate: the state before it, the legal plays and the one chosen.
#[derive(Clone)]
pub struct Sample {
    pub state: State,
    pub seat: u8,
    pub plays: Vec<Play>,
    pub chosen: usize,
    pub bottom_known: bool,
}

/// Every decision with a choice (two or more legal plays) of the given seats' roles, identical
/// (information state, play) pairs kept once. Returns the samples per game and how many
/// duplicates were dropped.
pub fn decisions(games: &[(GameLog, ReplayedGame)], roles: &[crate::game::Role], seen: &mut HashSet<u64>) -> (Vec<Vec<Sample>>, usize) {
    let table = ActionTable::get();
    let mut dropped = 0;
    let mut out = Vec::new();
    let mut plays = MoveList::new();
    for (_, game) in games {
        let fin = &game.state;
        let mut s = State::new(fin.config().clone());
        let mut samples = Vec::new();
        for action in fin.history() {
            if let Action::Play(id) = action {
                let seat = s.current_player().expect("a decision");
                s.legal_plays_into(&mut plays);
                let role_ok = s.role(seat).is_some_and(|r| roles.contains(&r));
                if role_ok && plays.len() > 1 {
                    let chosen_play = table.play(*id);
                    let mut h = std::collections::hash_map::DefaultHasher::new();
                    s.information_state_string(seat).hash(&mut h);
                    chosen_play.cards.hash(&mut h);
                    if seen.insert(h.finish()) {
                        let chosen = plays.iter().position(|p| p == chosen_play).expect("a replayed play is legal");
                        samples.push(Sample { state: s.clone(), seat, plays: plays.clone(), chosen, bottom_known: game.bottom_known });
                    } else {
                        dropped += 1;
                    }
                }
            }
            s.apply_action(*action).expect("a replayed history applies");
        }
        out.push(samples);
    }
    (out, dropped)
}

#[derive(Clone, Debug, Serialize)]
pub struct PretrainConfig {
    pub steps: u64,
    pub batch_size: usize,
    pub lr: f64,
    /// Share of games held out for validation.
    pub val_share: f64,
    /// Validate every this many steps.
    pub val_every: u64,
    /// Stop after this many validations without a better validation loss.
    pub patience: u32,
    pub seed: u64,
    pub model: ModelConfig,
    pub device: String,
}

impl Default for PretrainConfig {
    fn default() -> Self {
        PretrainConfig { steps: 3000, batch_size: 256, lr: 1e-4, val_share: 0.1, val_every: 100, patience: 5, seed: 1, model: ModelConfig::default(), device: "auto".into() }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct PretrainSummary {
    pub games: usize,
    pub skipped_games: usize,
    pub train_samples: usize,
    pub val_samples: usize,
    pub duplicates_dropped: usize,
    pub steps: u64,
    pub best_val_loss: f64,
    pub best_val_top1: f64,
    pub final_train_loss: f64,
    pub stopped_early: bool,
    pub checkpoint: PathBuf,
}

/// Encodes a batch: states [B, S], legal plays [N, A], owner [N], and each chosen play's index
/// within the flat list [B].
fn encode_batch(samples: &[&Sample]) -> (Vec<f32>, Vec<f32>, Vec<i64>, Vec<i64>, usize) {
    let mut states = vec![0.0f32; samples.len() * STATE_DIM];
    let total: usize = samples.iter().map(|s| s.plays.len()).sum();
    let mut actions = vec![0.0f32; total * ACTION_DIM];
    let mut owner = Vec::with_capacity(total);
    let mut positions = Vec::with_capacity(total);
    let mut widest = 0;
    let mut at = 0;
    for (b, s) in samples.iter().enumerate() {
        let row = &mut states[b * STATE_DIM..(b + 1) * STATE_DIM];
        encode_state(&s.state, s.seat, row);
        if !s.bottom_known {
            row[OFF_BOTTOM..OFF_BOTTOM + PLANE].fill(0.0); // the log did not record it
        }
        let hand = s.state.hand(s.seat);
        for (k, p) in s.plays.iter().enumerate() {
            encode_action(p, hand, &mut actions[at * ACTION_DIM..(at + 1) * ACTION_DIM]);
            owner.push(b as i64);
            positions.push(k as i64);
            at += 1;
        }
        widest = widest.max(s.plays.len());
    }
    (states, actions, owner, positions, widest)
}

/// Cross-entropy over each decision's legal plays and top-1 hits. Returns (loss, hits).
fn batch_loss(net: &QNet, samples: &[&Sample]) -> (Tensor, i64) {
    let dev = net.device();
    let (states, actions, owner, positions, widest) = encode_batch(samples);
    let b = samples.len() as i64;
    let w = widest as i64;
    let s = Tensor::from_slice(&states).view([b, STATE_DIM as i64]).to_device(dev);
    let a = Tensor::from_slice(&actions).view([owner.len() as i64, ACTION_DIM as i64]).to_device(dev);
    let o = Tensor::from_slice(&owner).to_device(dev);
    let q = net.forward(&s, &a, &o);
    // Scatter the scores into a [B, widest] table padded with a very low score, then softmax rows.
    let flat: Vec<i64> = owner.iter().zip(&positions).map(|(o, p)| o * w + p).collect();
    let flat = Tensor::from_slice(&flat).to_device(dev);
    let padded = Tensor::full([b * w], -1e9, (Kind::Float, dev)).index_put(&[Some(flat)], &q, false).view([b, w]);
    let logp = padded.log_softmax(1, Kind::Float);
    let target: Vec<i64> = samples.iter().map(|s| s.chosen as i64).collect();
    let target = Tensor::from_slice(&target).to_device(dev);
    let loss = -logp.gather(1, &target.unsqueeze(1), false).mean(Kind::Float);
    let hits = padded.argmax(1, false).eq_tensor(&target).sum(Kind::Int64).int64_value(&[]);
    (loss, hits)
}

fn evaluate(net: &QNet, samples: &[Sample]) -> (f64, f64) {
    if samples.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let (mut loss, mut hits) = (0.0, 0i64);
    tch::no_grad(|| {
        for chunk in samples.chunks(512) {
            let refs: Vec<&Sample> = chunk.iter().collect();
            let (l, h) = batch_loss(net, &refs);
            loss += l.double_value(&[]) * chunk.len() as f64;
            hits += h;
        }
    });
    (loss / samples.len() as f64, hits as f64 / samples.len() as f64)
}

/// Pretrains on `games`, writing `out/model.safetensors` (best validation loss), `out/tb` and
/// `out/pretrain.json`.
pub fn pretrain(games: Vec<(GameLog, ReplayedGame)>, skipped: usize, out: &Path, cfg: &PretrainConfig, quiet: bool) -> Result<PretrainSummary, String> {
    if games.is_empty() {
        return Err("no valid games to learn from".into());
    }
    cfg.model.validate()?;
    let device = crate::runtime::parse_device(&cfg.device)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    // Split by game, then take the decisions (deduplicated across both sets).
    let mut rng = SmallRng::seed_from_u64(cfg.seed);
    let mut order: Vec<usize> = (0..games.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    let n_val = ((games.len() as f64 * cfg.val_share).round() as usize).min(games.len().saturating_sub(1));
    let mut val_games = Vec::new();
    let mut train_games = Vec::new();
    for (k, g) in games.into_iter().enumerate() {
        if order[..n_val].contains(&k) { val_games.push(g) } else { train_games.push(g) }
    }
    let roles = crate::game::Role::ALL;
    let mut seen = HashSet::new();
    let (val, d1) = decisions(&val_games, &roles, &mut seen);
    let (train, d2) = decisions(&train_games, &roles, &mut seen);
    let val: Vec<Sample> = val.into_iter().flatten().collect();
    let train: Vec<Sample> = train.into_iter().flatten().collect();
    if train.is_empty() {
        return Err("the logs hold no decision with a choice".into());
    }

    tch::manual_seed(cfg.seed as i64); // reproducible initial weights
    let mut net = QNet::new(&cfg.model, device);
    let mut opt = nn::Adam::default().build(&net.vs, cfg.lr).map_err(|e| e.to_string())?;
    let mut tb = tensorboard_rs::summary_writer::SummaryWriter::new(out.join("tb"));
    let bar = ProgressBar::new(cfg.steps);
    bar.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} steps ({eta} left) {msg}").unwrap());
    if quiet || !std::io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    let mut best = (f64::INFINITY, 0.0, net.export(0));
    let mut since_best = 0;
    let mut last_loss = f64::NAN;
    let mut step = 0;
    let mut stopped_early = false;
    while step < cfg.steps {
        let batch: Vec<&Sample> = (0..cfg.batch_size).map(|_| &train[rng.random_range(0..train.len())]).collect();
        let (loss, _) = batch_loss(&net, &batch);
        opt.zero_grad();
        loss.backward();
        opt.step();
        step += 1;
        last_loss = loss.double_value(&[]);
        tb.add_scalar("pretrain/train_loss", last_loss as f32, step as usize);
        bar.inc(1);
        if step % cfg.val_every.max(1) == 0 || step == cfg.steps {
            let (vl, va) = if val.is_empty() { evaluate(&net, &train[..train.len().min(2048)]) } else { evaluate(&net, &val) };
            tb.add_scalar("pretrain/val_loss", vl as f32, step as usize);
            tb.add_scalar("pretrain/val_top1", va as f32, step as usize);
            bar.set_message(format!("train loss {last_loss:.3} | val loss {vl:.3} top-1 {va:.3}"));
            if vl < best.0 {
                best = (vl, va, net.export(step));
                since_best = 0;
            } else {
                since_best += 1;
                if since_best >= cfg.patience {
                    stopped_early = true;
                    break;
                }
            }
        }
    }
    bar.finish_and_clear();
    tb.flush();
    net.import(&best.2)?;
    let checkpoint = out.join("model.safetensors");
    save_weights_file(&net, &checkpoint).map_err(|e| e.to_string())?;
    let summary = PretrainSummary {
        games: train_games.len() + val_games.len(),
        skipped_games: skipped,
        train_samples: train.len(),
        val_samples: val.len(),
        duplicates_dropped: d1 + d2,
        steps: step,
        best_val_loss: best.0,
        best_val_top1: best.1,
        final_train_loss: last_loss,
        stopped_early,
        checkpoint,
    };
    let json = serde_json::json!({ "summary": summary, "config": cfg });
    std::fs::write(out.join("pretrain.json"), serde_json::to_string_pretty(&json).unwrap()).map_err(|e| e.to_string())?;
    Ok(summary)
}

/// Plays `games` games with `agent` in every seat on generated deals; returns their logs.
pub fn selfplay_logs(agent: &mut dyn crate::agents::Agent, games: usize, seed: u64, source: &str) -> Vec<GameLog> {
    crate::eval::generate_deals(games, seed)
        .iter()
        .enumerate()
        .map(|(i, deal)| {
            agent.reset(seed ^ i as u64);
            let mut s = State::new(Default::default());
            s.deal_hands(deal.hands, deal.bottom).expect("a generated deal");
            let mut plays = MoveList::new();
            while !s.is_terminal() {
                s.legal_plays_into(&mut plays);
                let k = agent.choose(&s, &plays).min(plays.len() - 1);
                s.apply_play(plays[k]).expect("a legal play");
            }
            GameLog::from_state(&s, source)
        })
        .collect()
}
