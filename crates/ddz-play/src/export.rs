//! `ddz export --onnx`: a network as an ONNX graph (opset 17), written from its safetensors with
//! no torch, for programs that embed ddz's agents with an ONNX runtime (docs/inference.md).
//!
//! The play network's graph takes `state` (float32 [states, STATE_DIM]: the seat's features),
//! `actions` (float32 [plays, action features]: each legal play's) and `owner` (int64 [plays]:
//! the row of `state` each play belongs to) and gives `q` (float32 [plays]) and, with a score
//! head, `points`. A per-role network is one graph per role (the caller picks the seat's). The
//! bidding network takes `bid_state` (float32 [decisions, BID_DIM]) and gives `q` [decisions, 4].
//! The metadata names the feature layout ([`FEATURE_LAYOUT`]), the rules and the margins that
//! the choice of a play needs.

use crate::agents::model::greedy;
use crate::agents::{Agent, ModelAgent, RandomAgent, RuleAgent, Turn};
use crate::game::{GameConfig, MoveList, Role, Rules, State, View};
use crate::nets::config::{HAND_CLASSES, HISTORY_ROUND, HistoryEncoder, ModelConfig};
use crate::nets::weights::{Weights, WeightsError, weights_file};
use crate::nets::{BIDS, FEATURE_LAYOUT, QNetwork};
use ddz_engine::encode::{BID_DIM, HIDDEN_RANKS, HISTORY_LEN, OFF_HISTORY, PLANE, STATE_DIM};
use onnx_protobuf::attribute_proto::AttributeType;
use onnx_protobuf::tensor_proto::DataType;
use onnx_protobuf::tensor_shape_proto::{Dimension, dimension};
use onnx_protobuf::{
    AttributeProto, GraphProto, Message, ModelProto, NodeProto, OperatorSetIdProto, StringStringEntryProto,
    TensorProto, TensorShapeProto, TypeProto, ValueInfoProto, type_proto,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The operator set the graphs use.
pub const OPSET: i64 = 17;
/// The ONNX IR version of opset 17.
const IR_VERSION: i64 = 8;

/// Why a network could not be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The weights do not load (the reason names the file and what is wrong).
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// Writing a file failed.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// Writes the network at `model` (a checkpoint folder or weights file) as ONNX: the play network
/// to `out` (one file per role for a per-role network, `NAME.ROLE.onnx`), and the folder's
/// bidding network to `NAME.bid.onnx` when it has one. Returns the files written.
pub fn export_onnx(model: &Path, out: &Path) -> Result<Vec<PathBuf>, ExportError> {
    let file = weights_file(model);
    let net = QNetwork::load(&file)?;
    let weights = Weights::read(&file)?;
    let config = net.config();
    let mut written = Vec::new();
    let stem = out.with_extension("");
    let towers: Vec<(String, Option<Role>)> = match config.per_role {
        false => vec![(String::new(), None)],
        true => Role::ALL.iter().map(|r| (format!("{}.", r.name()), Some(*r))).collect(),
    };
    for (prefix, role) in towers {
        let path = match role {
            None => out.to_path_buf(),
            Some(r) => stem.with_extension(format!("{}.onnx", r.name())),
        };
        write(&path, &q_graph(config, &weights, &prefix, role))?;
        written.push(path);
    }
    let bid = file.with_file_name(crate::run::BID_FILE);
    if bid.is_file() {
        crate::nets::BidNetwork::load(&bid)?; // checked as play checks it
        let path = stem.with_extension("bid.onnx");
        write(&path, &bid_graph(&Weights::read(&bid)?))?;
        written.push(path);
    }
    Ok(written)
}

fn write(path: &Path, model: &ModelProto) -> Result<(), ExportError> {
    let bytes = model
        .write_to_bytes()
        .map_err(|e| ExportError::Write { path: path.to_path_buf(), source: std::io::Error::other(e.to_string()) })?;
    crate::files::write(path, bytes).map_err(|source| ExportError::Write { path: path.to_path_buf(), source })
}

/// A graph under construction: its nodes and constant tensors, fresh names for values.
#[derive(Default)]
struct Builder {
    nodes: Vec<NodeProto>,
    constants: Vec<TensorProto>,
    count: usize,
}

impl Builder {
    fn name(&mut self, what: &str) -> String {
        self.count += 1;
        format!("{what}_{}", self.count)
    }

    fn floats(&mut self, what: &str, dims: &[i64], data: Vec<f32>) -> String {
        let name = self.name(what);
        let t = TensorProto {
            name: name.clone(),
            dims: dims.to_vec(),
            data_type: DataType::FLOAT as i32,
            float_data: data,
            ..Default::default()
        };
        self.constants.push(t);
        name
    }

    fn ints(&mut self, what: &str, data: &[i64]) -> String {
        let name = self.name(what);
        let t = TensorProto {
            name: name.clone(),
            dims: vec![data.len() as i64],
            data_type: DataType::INT64 as i32,
            int64_data: data.to_vec(),
            ..Default::default()
        };
        self.constants.push(t);
        name
    }

    fn node(&mut self, op: &str, inputs: &[&str], attributes: Vec<AttributeProto>) -> String {
        let out = self.name(&op.to_lowercase());
        self.nodes.push(NodeProto {
            op_type: op.into(),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            attribute: attributes,
            ..Default::default()
        });
        out
    }

    /// `x · Wᵀ + b` with libtorch's `NAME.weight` [out, in] (and `NAME.bias`) of `weights`.
    fn linear(&mut self, x: &str, weights: &Weights, name: &str, bias: bool) -> String {
        let tensor = |n: String| {
            let at = weights.tensors.binary_search_by(|(t, _, _)| t.as_str().cmp(&n)).expect("the network's tensor");
            (weights.tensors[at].1.clone(), weights.tensors[at].2.clone())
        };
        let (shape, w) = tensor(format!("{name}.weight"));
        let w = self.floats(name, &shape, w);
        let mut inputs = vec![x.to_string(), w];
        if bias {
            let (shape, b) = tensor(format!("{name}.bias"));
            inputs.push(self.floats(&format!("{name}_bias"), &shape, b));
        }
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        self.node("Gemm", &refs, vec![int("transB", 1)])
    }

    fn relu(&mut self, x: &str) -> String {
        self.node("Relu", &[x], vec![])
    }

    /// `x[:, from..to]`.
    fn columns(&mut self, x: &str, from: usize, to: usize) -> String {
        let (s, e, a) = (self.ints("start", &[from as i64]), self.ints("end", &[to as i64]), self.ints("axis", &[1]));
        self.node("Slice", &[x, &s, &e, &a], vec![])
    }

    fn reshape(&mut self, x: &str, shape: &[i64]) -> String {
        let s = self.ints("shape", shape);
        self.node("Reshape", &[x, &s], vec![])
    }

    fn finish(self, inputs: Vec<ValueInfoProto>, outputs: Vec<ValueInfoProto>, name: &str) -> GraphProto {
        GraphProto {
            name: name.into(),
            node: self.nodes,
            initializer: self.constants,
            input: inputs,
            output: outputs,
            ..Default::default()
        }
    }
}

fn int(name: &str, i: i64) -> AttributeProto {
    AttributeProto { name: name.into(), type_: AttributeType::INT.into(), i, ..Default::default() }
}

fn ints(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto { name: name.into(), type_: AttributeType::INTS.into(), ints: values.to_vec(), ..Default::default() }
}

/// A graph input or output: its name, element type and dimensions (a name for a free one).
fn value(name: &str, elem: DataType, dims: &[Result<i64, &str>]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: Some(match d {
                Ok(n) => dimension::Value::DimValue(*n),
                Err(p) => dimension::Value::DimParam(p.to_string()),
            }),
            ..Default::default()
        })
        .collect();
    let tensor = type_proto::Tensor {
        elem_type: elem as i32,
        shape: Some(TensorShapeProto { dim, ..Default::default() }).into(),
        ..Default::default()
    };
    ValueInfoProto {
        name: name.into(),
        type_: Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() }).into(),
        ..Default::default()
    }
}

fn model(graph: GraphProto, metadata: Vec<(&str, String)>) -> ModelProto {
    ModelProto {
        ir_version: IR_VERSION,
        producer_name: "ddz".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: OPSET, ..Default::default() }],
        graph: Some(graph).into(),
        metadata_props: metadata
            .into_iter()
            .map(|(key, value)| StringStringEntryProto { key: key.into(), value, ..Default::default() })
            .collect(),
        ..Default::default()
    }
}

/// The metadata every exported play network carries: what an outside program needs besides
/// the graph to choose a play as ddz does.
fn q_metadata(config: &ModelConfig, role: Option<Role>) -> Vec<(&'static str, String)> {
    let mut m = vec![
        ("ddz_feature_layout", FEATURE_LAYOUT.to_string()),
        ("ddz_network", "q".to_string()),
        ("ddz_rules", config.rules.to_string()),
        ("ddz_state_features", STATE_DIM.to_string()),
        ("ddz_state_features_read", config.inputs.to_string()),
        ("ddz_action_features", config.action_layout().dim().to_string()),
        ("ddz_hand_structure", config.hand_structure.to_string()),
        ("ddz_score_margin", if config.score_head { config.score_margin.to_string() } else { String::new() }),
        ("ddz_prune_margin", if config.prune { config.prune_margin.to_string() } else { String::new() }),
        ("ddz_laizi_top", config.laizi_top.to_string()),
    ];
    if let Some(r) = role {
        m.push(("ddz_role", r.name().to_string()));
    }
    m.retain(|(_, v)| !v.is_empty());
    m
}

/// One tower of the Q network (tensors `PREFIX…`) as a graph.
fn q_graph(config: &ModelConfig, weights: &Weights, prefix: &str, role: Option<Role>) -> ModelProto {
    let mut g = Builder::default();
    let p = |name: &str| format!("{prefix}{name}");
    let first = match config.history {
        HistoryEncoder::Flat if config.inputs == STATE_DIM => "state".to_string(),
        HistoryEncoder::Flat => g.columns("state", 0, config.inputs),
        HistoryEncoder::Lstm => lstm_inputs(&mut g, config, weights, prefix),
    };
    let mut h = g.linear(&first, weights, &p("trunk0"), true);
    h = g.relu(&h);
    for i in 1..config.trunk.len() {
        let next = g.linear(&h, weights, &p(&format!("trunk{i}")), true);
        h = g.relu(&next);
    }
    let mut s = g.linear(&h, weights, &p("head_state"), true);
    if config.hand_prediction {
        let logits = g.linear(&h, weights, &p("hands"), true);
        let by_rank = g.reshape(&logits, &[-1, HIDDEN_RANKS as i64, HAND_CLASSES]);
        let probs = g.node("Softmax", &[&by_rank], vec![int("axis", -1)]);
        let flat = g.reshape(&probs, &[-1, HIDDEN_RANKS as i64 * HAND_CLASSES]);
        let fed = g.linear(&flat, weights, &p("hands_in"), false);
        s = g.node("Add", &[&s, &fed], vec![]);
    }
    let own = g.node("Gather", &[&s, "owner"], vec![int("axis", 0)]);
    let plays = g.linear("actions", weights, &p("head_action"), false);
    let z = g.node("Add", &[&own, &plays], vec![]);
    let mut z = g.relu(&z);
    for i in 0..config.head_hidden.len() {
        let next = g.linear(&z, weights, &p(&format!("head{i}")), true);
        z = g.relu(&next);
    }
    let q = g.linear(&z, weights, &p("q"), true);
    let mut outputs = vec![("q", q)];
    if config.score_head {
        let points = g.linear(&z, weights, &p("points"), true);
        outputs.push(("points", points));
    }
    let mut output_info = Vec::new();
    for (name, column) in outputs {
        let shape = g.ints("shape", &[-1]);
        g.nodes.push(NodeProto {
            op_type: "Reshape".into(),
            input: vec![column, shape],
            output: vec![name.into()],
            ..Default::default()
        });
        output_info.push(value(name, DataType::FLOAT, &[Err("plays")]));
    }
    let inputs = vec![
        value("state", DataType::FLOAT, &[Err("states"), Ok(STATE_DIM as i64)]),
        value("actions", DataType::FLOAT, &[Err("plays"), Ok(config.action_layout().dim() as i64)]),
        value("owner", DataType::INT64, &[Err("plays")]),
    ];
    let name = role.map_or("ddz_q".to_string(), |r| format!("ddz_q_{}", r.name()));
    model(g.finish(inputs, output_info, &name), q_metadata(config, role))
}

/// The trunk's first input with the history read by the LSTM: the state's features before the
/// history block, those after it, and the LSTM's last output, as libtorch's network joins them.
fn lstm_inputs(g: &mut Builder, config: &ModelConfig, weights: &Weights, prefix: &str) -> String {
    let after = OFF_HISTORY + HISTORY_LEN * PLANE;
    let round = (HISTORY_ROUND * PLANE) as i64;
    let steps = (HISTORY_LEN / HISTORY_ROUND) as i64;
    let history = g.columns("state", OFF_HISTORY, after);
    let rounds = g.reshape(&history, &[-1, steps, round]);
    // The block holds the most recent play first; the rounds go in oldest first.
    let (s, e, a, st) =
        (g.ints("start", &[-1]), g.ints("end", &[i64::MIN]), g.ints("axis", &[1]), g.ints("step", &[-1]));
    let oldest_first = g.node("Slice", &[&rounds, &s, &e, &a, &st], vec![]);
    let time_major = g.node("Transpose", &[&oldest_first], vec![ints("perm", &[1, 0, 2])]);
    let h = config.history_size as usize;
    let tensor = |name: &str| weights.get(&format!("{prefix}history.{name}")).expect("the LSTM's tensors").to_vec();
    // libtorch orders the gates input, forget, cell, output; ONNX input, output, forget, cell.
    let reorder = |t: Vec<f32>| -> Vec<f32> {
        let block = t.len() / 4;
        [0, 3, 1, 2].iter().flat_map(|&k| t[k * block..(k + 1) * block].to_vec()).collect()
    };
    let w = g.floats("lstm_w", &[1, 4 * h as i64, round], reorder(tensor("weight_ih_l0")));
    let r = g.floats("lstm_r", &[1, 4 * h as i64, h as i64], reorder(tensor("weight_hh_l0")));
    let mut bias = reorder(tensor("bias_ih_l0"));
    bias.extend(reorder(tensor("bias_hh_l0")));
    let b = g.floats("lstm_b", &[1, 8 * h as i64], bias);
    let out = g.name("lstm_y_h");
    g.nodes.push(NodeProto {
        op_type: "LSTM".into(),
        input: vec![time_major, w, r, b],
        output: vec![String::new(), out.clone()],
        attribute: vec![int("hidden_size", h as i64)],
        ..Default::default()
    });
    let zero = g.ints("axis", &[0]);
    let last = g.node("Squeeze", &[&out, &zero], vec![]);
    let before = g.columns("state", 0, OFF_HISTORY);
    let rest = g.columns("state", after, config.inputs);
    g.node("Concat", &[&before, &rest, &last], vec![int("axis", 1)])
}

/// The bidding network as a graph: `bid_state` → `q` [decisions, 4].
fn bid_graph(weights: &Weights) -> ModelProto {
    let mut g = Builder::default();
    let h = g.linear("bid_state", weights, "bid0", true);
    let h = g.relu(&h);
    let h = g.linear(&h, weights, "bid1", true);
    let h = g.relu(&h);
    let q = g.linear(&h, weights, "bid_out", true);
    g.nodes.push(NodeProto {
        op_type: "Identity".into(),
        input: vec![q],
        output: vec!["q".into()],
        ..Default::default()
    });
    let inputs = vec![value("bid_state", DataType::FLOAT, &[Err("decisions"), Ok(BID_DIM as i64)])];
    let outputs = vec![value("q", DataType::FLOAT, &[Err("decisions"), Ok(BIDS as i64)])];
    let metadata = vec![("ddz_feature_layout", FEATURE_LAYOUT.to_string()), ("ddz_network", "bid".to_string())];
    model(g.finish(inputs, outputs, "ddz_bid"), metadata)
}

/// A decision of self-play: the seat's view and its legal plays.
pub type Decision = (View<'static>, MoveList);

/// Decisions with more than one legal play from self-play games under `rules` (the rule agent
/// and the random agent in turns, so that odd positions come too), `n` of them, seeded.
pub fn self_play_decisions(rules: Rules, n: usize, seed: u64) -> Vec<Decision> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (mut rule, mut random) = (RuleAgent::new(), RandomAgent::new(seed));
    let mut out = Vec::with_capacity(n);
    let mut plays = MoveList::new();
    let mut game = 0u64;
    while out.len() < n {
        let mut state = State::new(GameConfig { rules, ..GameConfig::default() });
        state.deal_random(&mut rng);
        while let Some(seat) = state.current_player() {
            state.legal_plays_into(&mut plays);
            let view = View::of(&state, seat);
            if plays.len() > 1 && out.len() < n {
                out.push((view.clone().into_owned(), plays.clone()));
            }
            let agent: &mut dyn Agent =
                if (game + seat.index() as u64).is_multiple_of(2) { &mut rule } else { &mut random };
            let turn = Turn::new(&view, &plays).expect("a decision has plays");
            let pick = agent.choose(turn).min(plays.len() - 1);
            state.apply_play_unchecked(plays[pick]);
        }
        game += 1;
    }
    out
}

/// One position of the golden vectors (`ddz export --golden`): what a seat sees, as the native
/// bot request, its legal plays, their features (the non-zero ones, by index), the network's
/// Q of each (and expected points, with a score head) and the play the network's agent makes.
/// A program that encodes positions and runs an exported network checks itself against these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Golden {
    /// The seat's view as a native bot request (docs/bots-and-logs.md).
    pub request: serde_json::Value,
    /// Every legal play, in the engine's order, in the bot protocol's notation.
    pub legal: Vec<String>,
    /// The state features that are not zero, as (index, value).
    pub state: Vec<(u32, f32)>,
    /// Each legal play's features that are not zero.
    pub actions: Vec<Vec<(u32, f32)>>,
    /// Q of each legal play.
    pub q: Vec<f32>,
    /// Expected points of each legal play, with a score head.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub points: Option<Vec<f32>>,
    /// The index in `legal` of the agent's play (with laizi's `laizi_top` or pruning, chosen
    /// among the plays it keeps).
    pub choice: usize,
    /// The greedy play over all of `legal` by `q` (and `points` within the margin).
    pub greedy: usize,
}

fn non_zero(v: &[f32]) -> Vec<(u32, f32)> {
    v.iter().enumerate().filter(|(_, x)| **x != 0.0).map(|(i, &x)| (i as u32, x)).collect()
}

/// The most legal plays of a golden position: a laizi lead can have thousands, whose features
/// would make a file of megabytes for one position.
pub const GOLDEN_MOST_PLAYS: usize = 200;

/// The golden vectors of the network at `model`: `n` self-play decisions of its rules from
/// `seed` (those with at most [`GOLDEN_MOST_PLAYS`] legal plays), each encoded, valued and
/// decided.
pub fn golden(model: &Path, n: usize, seed: u64) -> Result<Vec<Golden>, WeightsError> {
    let net = QNetwork::load(&weights_file(model))?;
    let config = net.config().clone();
    let margin = net.score_margin().unwrap_or(0.0);
    let mut agent = ModelAgent::new(net, "golden");
    let layout = config.action_layout();
    let mut out = Vec::with_capacity(n);
    let decisions = self_play_decisions(config.rules, 2 * n, seed);
    for (view, plays) in decisions.into_iter().filter(|(_, p)| p.len() <= GOLDEN_MOST_PLAYS).take(n) {
        let mut state = vec![0.0f32; STATE_DIM];
        ddz_engine::encode::encode_view(&view, &mut state);
        let mut rows = vec![0.0f32; plays.len() * layout.dim()];
        layout.encode_plays(&view, &plays, &mut rows);
        let actions: Vec<Vec<(u32, f32)>> = rows.chunks_exact(layout.dim()).map(non_zero).collect();
        let values = agent.values(&view, &plays);
        let greedy_pick = greedy(&values.q, values.points.as_deref(), margin);
        let choice = agent.choose(Turn::new(&view, &plays).expect("a decision has plays"));
        out.push(Golden {
            request: serde_json::to_value(&view).expect("a view writes as JSON"),
            legal: plays.iter().map(ddz_engine::game::laizi::ids::play_notation).collect(),
            state: non_zero(&state),
            actions,
            q: values.q,
            points: values.points,
            choice,
            greedy: greedy_pick,
        });
    }
    Ok(out)
}
