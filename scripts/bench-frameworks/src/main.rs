//! The forward pass of one flat-history network (trunk, state head, play head, hidden head
//! layers, Q) three ways on the same inputs: ddz-nets (what ddz plays with), candle-core (the
//! same layers as candle tensor products) and tract (running the ONNX graph `ddz export` wrote).
//! Inputs are the golden positions' features; each path is checked against ddz-nets' Q first.
//! Prints microseconds per decision (medians of 5 runs over every position) one decision a call
//! and 16 a call, as JSON lines.

use candle_core::{DType, Device, Tensor};
use ddz_nets::QNetwork;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;
use tract_onnx::prelude::Tensor as TractTensor;
use tract_onnx::prelude::*;

/// One golden position's inputs, dense.
struct Position {
    state: Vec<f32>,
    actions: Vec<f32>,
    plays: usize,
}

fn positions(golden: &Path, state_dim: usize, action_dim: usize) -> Vec<Position> {
    let dense = |pairs: &serde_json::Value, n: usize| {
        let mut v = vec![0.0f32; n];
        for p in pairs.as_array().unwrap() {
            v[p[0].as_u64().unwrap() as usize] = p[1].as_f64().unwrap() as f32;
        }
        v
    };
    std::fs::read_to_string(golden)
        .unwrap()
        .lines()
        .map(|line| {
            let g: serde_json::Value = serde_json::from_str(line).unwrap();
            let rows = g["actions"].as_array().unwrap();
            let actions = rows.iter().flat_map(|r| dense(r, action_dim)).collect();
            Position { state: dense(&g["state"], state_dim), actions, plays: rows.len() }
        })
        .collect()
}

/// A batch of decisions: states stacked, plays stacked, each play's state row.
struct Batch {
    states: Vec<f32>,
    actions: Vec<f32>,
    owner: Vec<i64>,
    n_states: usize,
}

fn batches(positions: &[Position], size: usize) -> Vec<Batch> {
    positions
        .chunks(size)
        .map(|chunk| {
            let mut b = Batch { states: Vec::new(), actions: Vec::new(), owner: Vec::new(), n_states: chunk.len() };
            for (k, p) in chunk.iter().enumerate() {
                b.states.extend_from_slice(&p.state);
                b.actions.extend_from_slice(&p.actions);
                b.owner.extend(std::iter::repeat_n(k as i64, p.plays));
            }
            b
        })
        .collect()
}

/// The network as candle tensors: (weight transposed, bias) by layer name.
struct Candle {
    layers: HashMap<String, (Tensor, Option<Tensor>)>,
    head_hidden: usize,
}

impl Candle {
    fn load(file: &Path, head_hidden: usize) -> Candle {
        let tensors = candle_core::safetensors::load(file, &Device::Cpu).unwrap();
        let mut layers = HashMap::new();
        for (name, t) in &tensors {
            if let Some(layer) = name.strip_suffix(".weight") {
                let bias = tensors.get(&format!("{layer}.bias")).cloned();
                layers.insert(layer.to_string(), (t.t().unwrap().contiguous().unwrap(), bias));
            }
        }
        Candle { layers, head_hidden }
    }
    fn linear(&self, x: &Tensor, name: &str) -> Tensor {
        let (w, b) = &self.layers[name];
        let y = x.matmul(w).unwrap();
        match b {
            Some(b) => y.broadcast_add(b).unwrap(),
            None => y,
        }
    }
    fn q(&self, batch: &Batch, state_dim: usize, action_dim: usize) -> Vec<f32> {
        let dev = Device::Cpu;
        let states = Tensor::from_slice(&batch.states, (batch.n_states, state_dim), &dev).unwrap();
        let plays = batch.owner.len();
        let actions = Tensor::from_slice(&batch.actions, (plays, action_dim), &dev).unwrap();
        let owner: Vec<u32> = batch.owner.iter().map(|&o| o as u32).collect();
        let owner = Tensor::from_slice(&owner, plays, &dev).unwrap();
        let mut h = self.linear(&states, "trunk0").relu().unwrap();
        h = self.linear(&h, "trunk1").relu().unwrap();
        let s = self.linear(&h, "head_state").index_select(&owner, 0).unwrap();
        let mut z = (s + self.linear(&actions, "head_action")).unwrap().relu().unwrap();
        for i in 0..self.head_hidden {
            z = self.linear(&z, &format!("head{i}")).relu().unwrap();
        }
        self.linear(&z, "q").flatten_all().unwrap().to_dtype(DType::F32).unwrap().to_vec1().unwrap()
    }
}

type Tract = SimplePlan<TypedFact, Box<dyn TypedOp>, Graph<TypedFact, Box<dyn TypedOp>>>;

/// The graph optimized for `states` decisions a call and, when given, `plays` plays (else the
/// plays' count stays free): tract runs best with every shape fixed before the run.
fn tract_plan(onnx: &Path, states: usize, plays: Option<(usize, usize)>, state_dim: usize) -> Tract {
    let fact = InferenceFact::dt_shape(f32::datum_type(), tvec!(states, state_dim));
    let mut model = tract_onnx::onnx().model_for_path(onnx).unwrap().with_input_fact(0, fact).unwrap();
    if let Some((plays, action_dim)) = plays {
        let actions = InferenceFact::dt_shape(f32::datum_type(), tvec!(plays, action_dim));
        let owner = InferenceFact::dt_shape(i64::datum_type(), tvec!(plays));
        model = model.with_input_fact(1, actions).unwrap().with_input_fact(2, owner).unwrap();
    }
    model.into_optimized().unwrap().into_runnable().unwrap()
}

/// A plan's run state, kept from call to call as a program would keep it.
type TractState = SimpleState<TypedFact, Box<dyn TypedOp>, Graph<TypedFact, Box<dyn TypedOp>>, Tract>;

fn tract_q(plan: &mut TractState, batch: &Batch, state_dim: usize, action_dim: usize) -> Vec<f32> {
    let plays = batch.owner.len();
    let states = tract_ndarray::Array2::from_shape_vec((batch.n_states, state_dim), batch.states.clone()).unwrap();
    let actions = tract_ndarray::Array2::from_shape_vec((plays, action_dim), batch.actions.clone()).unwrap();
    let owner = tract_ndarray::Array1::from_vec(batch.owner.clone());
    let out = plan
        .run(tvec!(
            TractTensor::from(states).into(),
            TractTensor::from(actions).into(),
            TractTensor::from(owner).into()
        ))
        .unwrap();
    out[0].to_array_view::<f32>().unwrap().iter().copied().collect()
}

/// Median over 5 runs of the mean microseconds per decision of `f` over every batch.
fn time(batches: &[Batch], mut f: impl FnMut(&Batch) -> Vec<f32>) -> f64 {
    let decisions: usize = batches.iter().map(|b| b.n_states).sum();
    for b in batches.iter().take(20) {
        std::hint::black_box(f(b)); // warm up
    }
    let mut runs: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            for b in batches {
                std::hint::black_box(f(b));
            }
            start.elapsed().as_secs_f64() * 1e6 / decisions as f64
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    runs[2]
}

fn worst(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, model, onnx, golden] = &args[..] else {
        panic!("usage: bench-frameworks MODEL_DIR MODEL.onnx GOLDEN.jsonl")
    };
    let file = Path::new(model).join("model.safetensors");
    let net = QNetwork::load(&file).unwrap();
    let config = net.config().clone();
    assert!(!config.per_role && !config.hand_prediction && !config.score_head, "a flat network only");
    let (state_dim, action_dim) = (ddz_engine::encode::STATE_DIM, config.action_layout().dim());
    let positions = positions(Path::new(golden), state_dim, action_dim);
    let candle = Candle::load(&file, config.head_hidden.len());
    let mean_plays = positions.iter().map(|p| p.plays).sum::<usize>() as f64 / positions.len() as f64;
    for size in [1, 16] {
        let batches: Vec<Batch> = batches(&positions, size).into_iter().filter(|b| b.n_states == size).collect();
        let mut plan: TractState = SimpleState::new(tract_plan(Path::new(onnx), size, None, state_dim)).unwrap();
        // One plan a play count, built before timing: tract at its best, at a memory cost.
        let mut fixed: HashMap<usize, TractState> = HashMap::new();
        for b in &batches {
            fixed.entry(b.owner.len()).or_insert_with(|| {
                let p = tract_plan(Path::new(onnx), size, Some((b.owner.len(), action_dim)), state_dim);
                SimpleState::new(p).unwrap()
            });
        }
        let ddz = |b: &Batch| net.values(&b.states, &b.actions, &b.owner).q;
        let (mut d_candle, mut d_tract, mut d_fixed) = (0.0f32, 0.0f32, 0.0f32);
        for b in &batches {
            let reference = ddz(b);
            d_candle = d_candle.max(worst(&reference, &candle.q(b, state_dim, action_dim)));
            d_tract = d_tract.max(worst(&reference, &tract_q(&mut plan, b, state_dim, action_dim)));
            let p = fixed.get_mut(&b.owner.len()).unwrap();
            d_fixed = d_fixed.max(worst(&reference, &tract_q(p, b, state_dim, action_dim)));
        }
        let us_ddz = time(&batches, ddz);
        let us_candle = time(&batches, |b| candle.q(b, state_dim, action_dim));
        let us_tract = time(&batches, |b| tract_q(&mut plan, b, state_dim, action_dim));
        let us_fixed = time(&batches, |b| tract_q(fixed.get_mut(&b.owner.len()).unwrap(), b, state_dim, action_dim));
        println!(
            "{}",
            serde_json::json!({
                "model": model, "decisions_a_call": size, "positions": positions.len(), "mean_plays": mean_plays,
                "us_per_decision": {"ddz_nets": us_ddz, "candle_core": us_candle, "tract": us_tract, "tract_fixed_shapes": us_fixed},
                "worst_abs_diff_from_ddz_nets": {"candle_core": d_candle, "tract": d_tract, "tract_fixed_shapes": d_fixed},
            })
        );
    }
}
