//! `ddz bench inference`: the torch-free forward pass against libtorch's on the same network
//! and the same positions, in the same run, on one thread.
//!
//! - Per decision, as an agent decides (`ddz bench agents` times the same): encode the view and
//!   the legal plays, value them, choose. The two paths run the very same agent code
//!   ([`ModelAgent`] over either network), alternating position by position, so that drift of
//!   the machine falls on both.
//! - Per batch of decisions, as the trainer's actors ask (their features already encoded): the
//!   forward pass alone, decisions per second at each batch size, the two paths in turn over
//!   all batches, run after run.
//! - The cost of building the torch-free network from published weights (what an actor pays at
//!   each publish).
//! - The hidden layers' kernels, each way on each shape: the measurements behind
//!   `ddz_nets::kernels`' choice.

use super::median;
use crate::agents::ModelAgent;
use crate::encode::STATE_DIM;
use crate::game::Rules;
use crate::inference::{Decision, self_play_decisions};
use crate::model::{QNet, WeightsError};
use ddz_nets::kernels::{Kernel, Linear};
use ddz_nets::{QNetwork, QValues};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// One path's time per decision.
#[derive(Clone, Debug, Serialize)]
pub struct PathTiming {
    /// `libtorch` or `ddz-nets`.
    pub path: String,
    /// Median microseconds per decision.
    pub median_us: f64,
    /// 90th percentile.
    pub p90_us: f64,
    /// Mean.
    pub mean_us: f64,
}

/// Decisions per second of both paths' forward pass at one batch size.
#[derive(Clone, Debug, Serialize)]
pub struct BatchTiming {
    /// Decisions in a batch.
    pub decisions: usize,
    /// Their legal plays, on average per batch.
    pub plays: f64,
    /// libtorch's decisions per second (median of the runs).
    pub torch_per_s: f64,
    /// The torch-free path's.
    pub nets_per_s: f64,
    /// nets over torch.
    pub ratio: f64,
}

/// One dense layer's time by each way of computing it, at one number of rows.
#[derive(Clone, Debug, Serialize)]
pub struct KernelTiming {
    /// Inputs × outputs of the layer.
    pub shape: (usize, usize),
    /// Rows of inputs (half of each row's inputs zero, as after a ReLU).
    pub rows: usize,
    /// Microseconds by the sparse loop.
    pub sparse_us: f64,
    /// By the blocked kernel.
    pub blocked_us: f64,
    /// By `matrixmultiply`'s sgemm.
    pub sgemm_us: f64,
}

/// What `ddz bench inference` measured.
#[derive(Clone, Debug, Serialize)]
pub struct InferenceReport {
    /// The network's weights file.
    pub model: PathBuf,
    /// Its rules (the positions are self-play decisions of them).
    pub rules: Rules,
    /// Decisions timed.
    pub decisions: usize,
    /// Their legal plays on average.
    pub mean_plays: f64,
    /// The build of the kernels the CPU runs (`Fma` or `Plain`).
    pub kernel: String,
    /// libtorch, then the torch-free path, per decision.
    pub per_decision: Vec<PathTiming>,
    /// libtorch's median over the torch-free path's: how many times faster it decides.
    pub speedup: f64,
    /// Both paths at the actors' batch sizes.
    pub batches: Vec<BatchTiming>,
    /// Median milliseconds to build the torch-free network from exported weights.
    pub build_ms: f64,
    /// The hidden layers of the shipped networks by each kernel: what [`Linear::rows`] chooses
    /// from (`ddz_nets::kernels`).
    pub kernels: Vec<KernelTiming>,
}

/// The layer shapes of the kernel table: the default network's trunk, head and head hidden
/// layers, and DouZero's dense layers.
pub const KERNEL_SHAPES: [(usize, usize); 4] = [(256, 256), (256, 128), (128, 64), (512, 512)];
/// Its row counts: one decision's state to a batch's plays.
pub const KERNEL_ROWS: [usize; 6] = [1, 4, 8, 16, 64, 600];

/// Times each kernel on each shape at each row count (median of enough repetitions to take
/// about 5 ms each); weights and inputs are fixed patterns, half the inputs zero.
pub fn kernel_timings() -> Vec<KernelTiming> {
    let kernel = Kernel::detect();
    let mut out = Vec::new();
    for (ins, outs) in KERNEL_SHAPES {
        let weight: Vec<f32> = (0..ins * outs).map(|i| (i % 97) as f32 / 97.0 - 0.5).collect();
        let layer = Linear::from_torch(&weight, ins, outs, Some(&vec![0.1; outs]));
        for rows in KERNEL_ROWS {
            let x: Vec<f32> = (0..rows * ins).map(|i| if i % 2 == 0 { 0.0 } else { (i % 13) as f32 / 13.0 }).collect();
            let mut y = vec![0.0f32; rows * outs];
            let reps = (2_000_000 / (rows * ins * outs)).clamp(3, 10_000);
            let mut time = |f: &mut dyn FnMut(&mut [f32])| {
                let runs: Vec<f64> = (0..5)
                    .map(|_| {
                        let start = Instant::now();
                        for _ in 0..reps {
                            f(&mut y);
                        }
                        start.elapsed().as_secs_f64() * 1e6 / reps as f64
                    })
                    .collect();
                median(runs)
            };
            let sparse_us = time(&mut |y| layer.sparse(kernel, &x, ins, rows, false, y));
            let blocked_us = time(&mut |y| layer.blocked(kernel, &x, rows, y));
            let sgemm_us = time(&mut |y| layer.dense(&x, rows, y));
            out.push(KernelTiming { shape: (ins, outs), rows, sparse_us, blocked_us, sgemm_us });
        }
    }
    out
}

/// Batch sizes of the throughput rows: one decision to a full actor's games in flight.
pub const BATCHES: [usize; 4] = [1, 4, 16, 64];

/// Times both paths of the network at `path` on `decisions` self-play decisions from `seed`,
/// the batches `runs` times each (the caller sets one thread).
pub fn bench_inference(path: &Path, decisions: usize, runs: usize, seed: u64) -> Result<InferenceReport, WeightsError> {
    let file = ddz_nets::weights::weights_file(path);
    let mut torch = ModelAgent::new(crate::model::load_network(&file)?, "libtorch");
    let mut nets = ModelAgent::new(QNetwork::load(&file)?, "ddz-nets");
    let rules = nets.net.config().rules;
    let positions = self_play_decisions(rules, decisions, seed);
    // Warm both (first calls allocate and fault pages in).
    for (view, plays) in positions.iter().take(20) {
        torch.greedy(view, plays);
        nets.greedy(view, plays);
    }
    let (mut t, mut n) = (Vec::new(), Vec::new());
    for (view, plays) in &positions {
        let start = Instant::now();
        std::hint::black_box(torch.greedy(view, plays));
        t.push(start.elapsed().as_secs_f64() * 1e6);
        let start = Instant::now();
        std::hint::black_box(nets.greedy(view, plays));
        n.push(start.elapsed().as_secs_f64() * 1e6);
    }
    let timing = |path: &str, us: Vec<f64>| PathTiming {
        path: path.into(),
        mean_us: us.iter().sum::<f64>() / us.len().max(1) as f64,
        median_us: median(us.clone()),
        p90_us: super::p90(us),
    };
    let per_decision = vec![timing("libtorch", t), timing("ddz-nets", n)];
    let speedup = per_decision[0].median_us / per_decision[1].median_us;
    let batches = BATCHES.iter().map(|&b| batch_timing(&torch.net, &nets.net, &positions, b, runs)).collect();
    let weights = torch.net.export(1);
    let builds: Vec<f64> = (0..20)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(QNetwork::with_config(nets.net.config(), &weights).expect("its own weights"));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    Ok(InferenceReport {
        model: file,
        rules,
        decisions: positions.len(),
        mean_plays: positions.iter().map(|(_, p)| p.len()).sum::<usize>() as f64 / positions.len().max(1) as f64,
        kernel: format!("{:?}", ddz_nets::kernels::Kernel::detect()),
        per_decision,
        speedup,
        batches,
        build_ms: median(builds),
        kernels: kernel_timings(),
    })
}

/// Both forward passes over the positions cut into batches of `size` decisions (features
/// encoded beforehand, as the actors have them), each path over all of them in turn (an actor
/// runs one path, its caches its own), `runs` times; decisions per second, medians.
fn batch_timing(torch: &QNet, nets: &QNetwork, positions: &[Decision], size: usize, runs: usize) -> BatchTiming {
    let layout = nets.config().action_layout();
    let width = layout.dim();
    let batches: Vec<(Vec<f32>, Vec<f32>, Vec<i64>)> = positions
        .chunks_exact(size)
        .map(|chunk| {
            let mut states = vec![0.0f32; chunk.len() * STATE_DIM];
            let (mut actions, mut owner) = (Vec::new(), Vec::new());
            for (k, (view, plays)) in chunk.iter().enumerate() {
                crate::encode::encode_view(view, &mut states[k * STATE_DIM..(k + 1) * STATE_DIM]);
                let context = layout.context(view);
                for p in plays.iter() {
                    let at = actions.len();
                    actions.resize(at + width, 0.0);
                    layout.encode(p, &context, &mut actions[at..]);
                    owner.push(k as i64);
                }
            }
            (states, actions, owner)
        })
        .collect();
    let decisions = (batches.len() * size) as f64;
    let (mut t, mut n) = (Vec::new(), Vec::new());
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        for (s, a, o) in &batches {
            std::hint::black_box(QValues::values(torch, s, a, o));
        }
        t.push(decisions / start.elapsed().as_secs_f64());
        let start = Instant::now();
        for (s, a, o) in &batches {
            std::hint::black_box(nets.values(s, a, o));
        }
        n.push(decisions / start.elapsed().as_secs_f64());
    }
    let (torch_per_s, nets_per_s) = (median(t), median(n));
    BatchTiming {
        decisions: size,
        plays: batches.iter().map(|b| b.2.len()).sum::<usize>() as f64 / batches.len().max(1) as f64,
        torch_per_s,
        nets_per_s,
        ratio: nets_per_s / torch_per_s,
    }
}
