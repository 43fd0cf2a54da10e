//! What a Q network is, apart from any arithmetic: its layer sizes and switches
//! ([`ModelConfig`]), read back from a weights file's tensor names and shapes, and the names and
//! shapes of every tensor a network of a config holds ([`ModelConfig::tensor_shapes`]) — the
//! contract between the trainer (libtorch) and the torch-free forward pass of this crate.

use ddz_engine::encode::{ActionLayout, HIDDEN_RANKS, HISTORY_LEN, ORACLE_DIM, PLANE, STATE_DIM, STATE_DIM_V1};
use ddz_engine::game::{Role, Rules};
use serde::{Deserialize, Serialize};

/// The version of the feature layout the networks read (`ddz_engine::encode`'s tables): the
/// 1,339 state features (a network of the first layout reads their first 1,274) and the play
/// features with their hand-structure and laizi blocks. Saved in exported files, so that a
/// program that encodes positions itself can tell that it encodes what the network reads.
pub const FEATURE_LAYOUT: &str = "ddz-features-2";

/// What is wrong with a network's sizes or weights.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NetError {
    /// Layer sizes that no network can have, or a layout ddz does not read.
    #[error("{0}")]
    Invalid(String),
    /// Weights whose names or shapes do not fit the network.
    #[error("{0}")]
    Mismatch(String),
    /// Weights whose tensors do not fit the network's.
    #[error(transparent)]
    Shapes(#[from] ShapeMismatch),
}

/// Why weights do not fit a network: the first difference found, with both sides' values.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeMismatch {
    /// Another number of tensors.
    #[error("{given} tensors given, the network has {want}")]
    Count {
        /// Tensors in the weights.
        given: usize,
        /// Tensors the network has.
        want: usize,
    },
    /// Another tensor at this place of the sorted list.
    #[error("tensor {given} given where the network has {want}")]
    Name {
        /// The weights' tensor.
        given: String,
        /// The network's.
        want: String,
    },
    /// The same tensor in another shape.
    #[error("tensor {name}: shape {given:?} given, the network has {want:?}")]
    Shape {
        /// The tensor.
        name: String,
        /// Its shape in the weights.
        given: Vec<i64>,
        /// Its shape in the network.
        want: Vec<i64>,
    },
    /// A tensor whose values do not fill its shape.
    #[error("tensor {name}: {values} values for shape {shape:?}")]
    Values {
        /// The tensor.
        name: String,
        /// How many values it holds.
        values: usize,
        /// Its shape.
        shape: Vec<i64>,
    },
}

/// How the last plays (the state's history block) reach the trunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HistoryEncoder {
    /// Their planes are inputs of the trunk's first layer like every other feature.
    #[default]
    Flat,
    /// An LSTM reads them round by round, oldest first: five steps of three plays (a round of
    /// the three seats, in the same seat order every step, since passes are plays in the
    /// record), as DouZero's network does; its last output replaces the planes as the trunk's
    /// input, so the order of plays is structure the network need not learn from scratch.
    Lstm,
}

/// Plays per LSTM step: one round of the three seats.
pub const HISTORY_ROUND: usize = 3;

/// Layer sizes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ModelConfig {
    /// Hidden sizes of the state trunk.
    pub trunk: Vec<i64>,
    /// Width of the head's first (state + action) layer.
    pub head: i64,
    /// Hidden sizes of the head after that layer.
    pub head_hidden: Vec<i64>,
    /// One network per role (landlord, landlord_down, landlord_up) instead of a shared one.
    pub per_role: bool,
    /// Oracle guiding: the first layer also takes the two other hands during training, with a
    /// weight that falls to zero (`[auxiliary] oracle_fade_frames`); play never feeds them.
    pub oracle: bool,
    /// A head that predicts, from the seat's information only, how many cards of each rank
    /// each other seat holds, trained against the true hands; its prediction feeds the Q head.
    pub hand_prediction: bool,
    /// How the last 15 plays enter the trunk.
    pub history: HistoryEncoder,
    /// Width of the LSTM's state when `history = "lstm"`.
    pub history_size: i64,
    /// A second head beside Q (win and score together, as AlphaDou): the expected game points
    /// of each play. Greedy choice then takes the highest Q among the plays whose expected
    /// points are within `score_margin` of the best play's.
    pub score_head: bool,
    /// The margin in game points of that choice; saved with the weights, so that a network
    /// chooses at play time as it chose in training.
    pub score_margin: f64,
    /// The hand-structure block in each play's features (`encode::ActionLayout`): the fewest
    /// plays that empty the own hand after the play, and how many more that is than before.
    /// Read back from a file by the width of the action layer.
    pub hand_structure: bool,
    /// The network chooses only among plays within `prune_margin` of the hand's best
    /// decomposition (pass, bombs and rocket always kept), in training and at play time:
    /// saved with the weights, so that it plays with the candidates it learned on.
    pub prune: bool,
    /// The margin of that pruning, in plays (0: only plays on a best way out).
    pub prune_margin: u32,
    /// Laizi: the network scores at most this many plays of a decision (besides pass, bombs and
    /// the rocket), the best by a cheap count over hand decompositions
    /// (`game::laizi::top_plays`), in training and at play time; 0: every play. Saved with the
    /// weights, as the pruning margin is.
    pub laizi_top: u32,
    /// State features the network reads: `STATE_DIM`, or `STATE_DIM_V1` for a network saved
    /// before the later features were added. Not a config key: new networks read them all, and
    /// a saved network's width is read from its first layer.
    #[serde(skip)]
    pub inputs: usize,
    /// The rules the network plays: a laizi network's plays carry the laizi block. Not a config
    /// key: training takes it from `[game] rules`, and a saved network's from the width of its
    /// action layer.
    #[serde(skip)]
    pub rules: Rules,
}

impl Default for ModelConfig {
    fn default() -> Self {
        ModelConfig {
            trunk: vec![256, 256],
            head: 128,
            head_hidden: vec![64],
            per_role: false,
            oracle: false,
            hand_prediction: false,
            history: HistoryEncoder::Flat,
            history_size: 64,
            score_head: false,
            score_margin: 1.0,
            hand_structure: false,
            prune: false,
            prune_margin: 1,
            laizi_top: 0,
            inputs: STATE_DIM,
            rules: Rules::Standard,
        }
    }
}

impl ModelConfig {
    /// The layer sizes of a saved network, read from its tensor names and shapes.
    pub fn infer(shapes: &[(String, Vec<i64>)]) -> Result<ModelConfig, NetError> {
        let missing = |what: &str| NetError::Invalid(format!("no {what}: not a ddz Q network"));
        let dim =
            |name: &str, axis: usize| shapes.iter().find(|(n, _)| n == name).and_then(|(_, s)| s.get(axis).copied());
        let out_dim = |name: &str| dim(name, 0);
        // A per-role file names every tensor after its role; the landlord's tells the sizes.
        let landlord = format!("{}.", Role::Landlord.name());
        let per_role =
            out_dim("head_state.weight").is_none() && out_dim(&format!("{landlord}head_state.weight")).is_some();
        let prefix = if per_role { landlord } else { String::new() };
        let layers =
            |name: &str| -> Vec<i64> { (0..).map_while(|i| out_dim(&format!("{prefix}{name}{i}.weight"))).collect() };
        let history_size = dim(&format!("{prefix}history.weight_hh_l0"), 1);
        let first_width = dim(&format!("{prefix}trunk0.weight"), 1).ok_or_else(|| missing("trunk0.weight"))?;
        let action_width =
            dim(&format!("{prefix}head_action.weight"), 1).ok_or_else(|| missing("head_action.weight"))?;
        let layout = ActionLayout::of_width(action_width as usize).ok_or_else(|| {
            NetError::Invalid(format!("the network reads {action_width} features per play, which no ddz layout has"))
        })?;
        let config = ModelConfig {
            trunk: layers("trunk"),
            head: out_dim(&format!("{prefix}head_state.weight")).ok_or_else(|| missing("head_state.weight"))?,
            head_hidden: layers("head"),
            per_role,
            oracle: out_dim(&format!("{prefix}oracle_in.weight")).is_some(),
            hand_prediction: out_dim(&format!("{prefix}hands.weight")).is_some(),
            history: if history_size.is_some() { HistoryEncoder::Lstm } else { HistoryEncoder::Flat },
            history_size: history_size.unwrap_or(ModelConfig::default().history_size),
            score_head: out_dim(&format!("{prefix}points.weight")).is_some(),
            // The margin is a value, not a shape: the network reads it back with its weights.
            score_margin: ModelConfig::default().score_margin,
            hand_structure: layout.hand_structure,
            // Pruning is a value too; its margin's tensor says it is on.
            prune: shapes.iter().any(|(n, _)| n == "prune_margin"),
            prune_margin: ModelConfig::default().prune_margin,
            // A value too: its tensor says it is on, the weights give the number.
            laizi_top: u32::from(shapes.iter().any(|(n, _)| n == "laizi_top")),
            // With an LSTM the first layer reads its output in place of the history planes.
            inputs: match history_size {
                Some(h) => (first_width - h) as usize + HISTORY_LEN * PLANE,
                None => first_width as usize,
            },
            // A laizi network is known by its plays' width, a two-player one by its marker.
            rules: match (layout.laizi, shapes.iter().any(|(n, _)| n == TWO_PLAYER_MARK)) {
                (true, _) => Rules::Laizi,
                (false, true) => Rules::TwoPlayer,
                (false, false) => Rules::Standard,
            },
        };
        config.validate()?;
        Ok(config)
    }

    /// Checks the sizes before any tensor is allocated: positive layers, at most
    /// [`MOST_WIDTH`] units a layer and [`MOST_WEIGHTS`] in all, a margin from 0 to
    /// [`MAX_MARGIN`], and a state width ddz reads; the error names what is wrong.
    pub fn validate(&self) -> Result<(), NetError> {
        if self.trunk.is_empty() || self.trunk.iter().chain(&self.head_hidden).chain([&self.head]).any(|&n| n <= 0) {
            return Err(NetError::Invalid(
                "model sizes must be positive and the trunk needs at least one layer".into(),
            ));
        }
        // Checked before any tensor is allocated: an absurd size is an error, not an abort.
        let widths = self.trunk.iter().chain(&self.head_hidden).chain([&self.head, &self.history_size]);
        if let Some(n) = widths.copied().find(|&n| n > MOST_WIDTH) {
            return Err(NetError::Invalid(format!("a layer of {n} units: at most {MOST_WIDTH}")));
        }
        let weights = self.weights();
        if weights > MOST_WEIGHTS {
            return Err(NetError::Invalid(format!(
                "{weights} weights ({} MB a copy): at most {MOST_WEIGHTS}",
                weights * 4 / 1_000_000
            )));
        }
        if self.history == HistoryEncoder::Lstm && self.history_size <= 0 {
            return Err(NetError::Invalid(format!(
                "history_size = {}: the LSTM's width must be positive",
                self.history_size
            )));
        }
        if self.score_margin.is_nan() || !(0.0..=MAX_MARGIN).contains(&self.score_margin) {
            return Err(NetError::Invalid(format!(
                "score_margin = {}: a margin in game points from 0 to {MAX_MARGIN}",
                self.score_margin
            )));
        }
        if self.prune_margin > MAX_PRUNE_MARGIN {
            return Err(NetError::Invalid(format!(
                "prune_margin = {}: a margin in plays from 0 to {MAX_PRUNE_MARGIN}",
                self.prune_margin
            )));
        }
        if self.laizi_top > MAX_LAIZI_TOP {
            return Err(NetError::Invalid(format!(
                "laizi_top = {}: at most {MAX_LAIZI_TOP} plays a decision (0: every play)",
                self.laizi_top
            )));
        }
        if self.laizi_top > 0 && self.rules != Rules::Laizi {
            return Err(NetError::Invalid(format!(
                "laizi_top = {} cuts laizi's plays: set [game] rules = \"laizi\", or leave it 0",
                self.laizi_top
            )));
        }
        if self.inputs != STATE_DIM && self.inputs != STATE_DIM_V1 {
            return Err(NetError::Invalid(format!(
                "the network reads {} state features; ddz writes {STATE_DIM} ({STATE_DIM_V1} for networks from before the cards-left one-hot)",
                self.inputs
            )));
        }
        Ok(())
    }
}

/// The largest margin of the score head's choice (a landlord's points with several bombs; past
/// them every play is within the margin, and the choice is by Q alone).
pub const MAX_MARGIN: f64 = 1000.0;

/// The largest pruning margin: past it every play of a 20-card hand is kept.
pub const MAX_PRUNE_MARGIN: u32 = 20;

/// The largest `laizi_top`: past it the cut would keep nearly every play of a 20-card lead.
pub const MAX_LAIZI_TOP: u32 = 10_000;

/// The name of the untrained variable that marks a two-player network: its features are as
/// wide as a standard network's (encode's two-player rows), so its file says which it is.
pub const TWO_PLAYER_MARK: &str = "two_player";
/// The untrained variable that holds the score head's margin.
pub const SCORE_MARGIN: &str = "score_margin";
/// The untrained variable that holds the pruning margin.
pub const PRUNE_MARGIN: &str = "prune_margin";
/// The untrained variable that holds laizi's `laizi_top`.
pub const LAIZI_TOP: &str = "laizi_top";

/// Count classes of the hidden-hand head: a rank holds 0 to 4 cards in a hand.
pub const HAND_CLASSES: i64 = 5;

impl ModelConfig {
    /// How the network's play features are laid out.
    pub fn action_layout(&self) -> ActionLayout {
        ActionLayout { hand_structure: self.hand_structure, laizi: self.rules == Rules::Laizi }
    }
}

/// The widest layer a config may ask for.
pub const MOST_WIDTH: i64 = 65_536;
/// The most weights a network may have: 100 M (400 MB a copy; training keeps several: the
/// optimizer's moments, the actors' and the pool's copies).
pub const MOST_WEIGHTS: u128 = 100_000_000;

impl ModelConfig {
    /// How many weights (and biases) the network has, counted without building it; in u128, so
    /// that no config can overflow the count.
    pub fn weights(&self) -> u128 {
        let w = |n: i64| n.max(0) as u128;
        let linear = |inputs: u128, outputs: u128| inputs * outputs + outputs;
        let history = HISTORY_LEN as u128 * PLANE as u128;
        let (first_inputs, lstm) = match self.history {
            HistoryEncoder::Flat => (self.inputs as u128, 0),
            HistoryEncoder::Lstm => {
                let (x, h) = ((HISTORY_ROUND * PLANE) as u128, w(self.history_size));
                ((self.inputs as u128).saturating_sub(history) + h, 4 * h * (x + h) + 8 * h)
            }
        };
        let (first, last) = (self.trunk.first().map_or(0, |&n| w(n)), self.trunk.last().map_or(0, |&n| w(n)));
        let mut total = lstm + linear(first_inputs, first);
        total += self.trunk.windows(2).map(|p| linear(w(p[0]), w(p[1]))).sum::<u128>();
        total += linear(last, w(self.head)) + self.action_layout().dim() as u128 * w(self.head);
        if self.oracle {
            total += ORACLE_DIM as u128 * first;
        }
        if self.hand_prediction {
            let classes = HIDDEN_RANKS as u128 * HAND_CLASSES as u128;
            total += linear(last, classes) + classes * w(self.head);
        }
        let mut width = w(self.head);
        for &n in &self.head_hidden {
            total += linear(width, w(n));
            width = w(n);
        }
        total += linear(width, 1);
        if self.score_head {
            total += linear(width, 1);
        }
        let roles = if self.per_role { 3 } else { 1 };
        roles * total + self.score_head as u128 + self.prune as u128
    }
}

impl ModelConfig {
    /// Width of the trunk's first layer's input: the state features read, with the history
    /// planes replaced by the LSTM's output when there is one.
    pub fn first_inputs(&self) -> usize {
        match self.history {
            HistoryEncoder::Flat => self.inputs,
            HistoryEncoder::Lstm => self.inputs - HISTORY_LEN * PLANE + self.history_size as usize,
        }
    }

    /// The name prefix of each tower's tensors: `""` for a shared network, `"ROLE."` for each
    /// role's network in [`Role::ALL`] order.
    pub fn tower_prefixes(&self) -> Vec<String> {
        if self.per_role { Role::ALL.iter().map(|r| format!("{}.", r.name())).collect() } else { vec![String::new()] }
    }

    /// Every tensor a network of this config holds, as (name, shape), sorted by name: the names
    /// and shapes libtorch's network saves, and exactly what a weights file must hold.
    pub fn tensor_shapes(&self) -> Vec<(String, Vec<i64>)> {
        let mut out = Vec::new();
        for prefix in self.tower_prefixes() {
            let mut linear = |name: &str, inputs: i64, outputs: i64, bias: bool| {
                out.push((format!("{prefix}{name}.weight"), vec![outputs, inputs]));
                if bias {
                    out.push((format!("{prefix}{name}.bias"), vec![outputs]));
                }
            };
            let t0 = self.trunk[0];
            linear("trunk0", self.first_inputs() as i64, t0, true);
            if self.oracle {
                linear("oracle_in", ORACLE_DIM as i64, t0, false);
            }
            for (i, pair) in self.trunk.windows(2).enumerate() {
                linear(&format!("trunk{}", i + 1), pair[0], pair[1], true);
            }
            let last = *self.trunk.last().expect("a validated config has a trunk");
            linear("head_state", last, self.head, true);
            linear("head_action", self.action_layout().dim() as i64, self.head, false);
            if self.hand_prediction {
                let classes = HIDDEN_RANKS as i64 * HAND_CLASSES;
                linear("hands", last, classes, true);
                linear("hands_in", classes, self.head, false);
            }
            let mut width = self.head;
            for (i, &n) in self.head_hidden.iter().enumerate() {
                linear(&format!("head{i}"), width, n, true);
                width = n;
            }
            linear("q", width, 1, true);
            if self.score_head {
                linear("points", width, 1, true);
            }
            if self.history == HistoryEncoder::Lstm {
                let (x, h) = ((HISTORY_ROUND * PLANE) as i64, self.history_size);
                for (name, shape) in [("weight_ih_l0", vec![4 * h, x]), ("weight_hh_l0", vec![4 * h, h])] {
                    out.push((format!("{prefix}history.{name}"), shape));
                }
                for name in ["bias_ih_l0", "bias_hh_l0"] {
                    out.push((format!("{prefix}history.{name}"), vec![4 * h]));
                }
            }
        }
        let markers = [
            (SCORE_MARGIN, self.score_head),
            (PRUNE_MARGIN, self.prune),
            (LAIZI_TOP, self.laizi_top > 0),
            (TWO_PLAYER_MARK, self.rules == Rules::TwoPlayer),
        ];
        out.extend(markers.into_iter().filter(|(_, on)| *on).map(|(name, _)| (name.to_string(), vec![1])));
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}
