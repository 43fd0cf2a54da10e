//! The training configuration: `configs/dmc.toml`. Every key has a default; unknown keys are
//! rejected with their name.

use crate::game::{Rules, Scoring};
use crate::model::{LearnerSettings, ModelConfig, Optimizer};
use crate::runtime::Device;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A whole training configuration, one field per section of `configs/dmc.toml`; a missing
/// section or key takes its default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct TrainConfig {
    /// `extends = "dmc.toml"` (a path relative to this file): the config this one is written
    /// over, whose keys this file's replace. Resolved when the file is read: a loaded config
    /// never has one, and what a run saves is the whole result.
    #[serde(skip_serializing)]
    pub extends: Option<PathBuf>,
    /// `[run]`: run folder, seed and learner device.
    pub run: RunConfig,
    /// `[budget]`: where training stops.
    pub budget: BudgetConfig,
    /// `[reward]`: what each decision learns from the game's result.
    pub reward: RewardConfig,
    /// `[actors]`: the self-play threads and their exploration.
    pub actors: ActorConfig,
    /// `[pool]`: the frozen opponents and the share of self-play and rule games.
    pub pool: PoolConfig,
    /// `[learner]`: batch, optimiser and learning-rate schedule.
    pub learner: LearnerConfig,
    /// `[model]`: the Q network's shape and optional parts.
    pub model: ModelConfig,
    /// `[checkpoint]`: how often checkpoints are written and how many are kept.
    pub checkpoint: CheckpointConfig,
    /// `[log]`: TensorBoard and console scalars.
    pub log: LogConfig,
    /// `[eval]`: evaluation of checkpoints during training.
    pub eval: EvalConfig,
    /// `[broker]`: actors in other processes over Redis.
    pub broker: BrokerConfig,
    /// `[game]`: fixed landlord or bidding, and spring scoring.
    pub game: GameSection,
    /// `[auxiliary]`: how the training-only parts of the network learn.
    pub auxiliary: AuxiliaryConfig,
    /// `[curation]`: fewer of the deals the hand evaluator calls near-certain.
    pub curation: CurationConfig,
}

/// Deal curation ([`super::curation`]): near-certain deals, by the hand evaluator, are played
/// only in a share of cases.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CurationConfig {
    /// The hand evaluator's weights (`ddz evaluate-hands`); empty: no curation.
    pub evaluator: PathBuf,
    /// A deal is near-certain when the landlord's win chance is at least this, or at most one
    /// minus this; in [0.5, 1].
    pub certain: f64,
    /// Share of the near-certain deals still played, in [0, 1].
    pub keep: f64,
}

impl Default for CurationConfig {
    fn default() -> Self {
        CurationConfig { evaluator: PathBuf::new(), certain: 0.75, keep: 0.25 }
    }
}

/// How the training-only parts of a network learn: the oracle's withdrawal, the hidden-hand
/// head's loss and the score head's (switched on by `model.oracle`, `model.hand_prediction` and
/// `model.score_head`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AuxiliaryConfig {
    /// Frames over which the oracle's weight falls linearly from 1 to 0; from then on the
    /// network learns and acts on the seat's information alone.
    pub oracle_fade_frames: u64,
    /// Weight of the hidden-hand cross-entropy beside the Q loss.
    pub hand_loss_weight: f64,
    /// `joint`: the Q loss also shapes the hand prediction it reads; `detached`: the prediction
    /// enters the Q head without gradient, so only its own loss trains it (and, through it,
    /// the shared trunk).
    pub hand_gradient: HandGradient,
    /// Weight of the score head's squared error (in points²) beside the Q loss.
    pub points_loss_weight: f64,
}

/// Whether the Q loss flows back into the hidden-hand prediction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HandGradient {
    /// The Q loss also shapes the hand prediction it reads (`"joint"`).
    Joint,
    /// The prediction enters the Q head without gradient; only its own loss trains it
    /// (`"detached"`).
    Detached,
}

impl Default for AuxiliaryConfig {
    fn default() -> Self {
        AuxiliaryConfig {
            oracle_fade_frames: 30_000_000,
            hand_loss_weight: 0.25,
            hand_gradient: HandGradient::Joint,
            points_loss_weight: 0.25,
        }
    }
}

impl AuxiliaryConfig {
    /// The oracle's weight after `frames` learned frames: 1 at the start, 0 from
    /// `oracle_fade_frames` on.
    pub fn oracle_weight(&self, frames: u64) -> f64 {
        if frames >= self.oracle_fade_frames { 0.0 } else { 1.0 - frames as f64 / self.oracle_fade_frames as f64 }
    }
}

/// The game the actors play.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameSection {
    /// Start every game with 1–2–3 bidding (the first bidder drawn per game), and learn a
    /// bidding network beside the play network; off: seat 0 is always the landlord (DouZero's
    /// setup).
    pub bidding: bool,
    /// Bidding decisions per update of the bidding network.
    pub bid_batch_size: usize,
    /// Actors bid at random with this probability (else the bid with the highest Q).
    pub bid_epsilon: f64,
    /// Double the points of a spring or anti-spring (in score-mode rewards and bid labels), as
    /// `ddz eval --bidding`, `ddz play` and `ddz serve` count them.
    pub spring: bool,
    /// The rules: `standard`, or `laizi` (wild cards, docs/rules.md). A laizi run trains a laizi
    /// network (its plays carry the laizi features), which plays only laizi games.
    pub rules: Rules,
}

impl Default for GameSection {
    fn default() -> Self {
        GameSection { bidding: false, bid_batch_size: 64, bid_epsilon: 0.1, spring: true, rules: Rules::Standard }
    }
}

/// Actors in other processes over Redis (`ddz train --broker`, `ddz actor`); unused otherwise.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrokerConfig {
    /// Publish the weights to Redis every this many learner steps (in-process actors still get
    /// them every `learner.publish_every_steps`): each publication is the whole network.
    pub publish_every_steps: u64,
    /// Finished games the stream holds at most; actors wait while it is full (backpressure).
    pub stream_cap: u64,
}

impl Default for BrokerConfig {
    fn default() -> Self {
        BrokerConfig { publish_every_steps: 25, stream_cap: 1000 }
    }
}

/// Evaluation during training: after each periodic checkpoint, a background thread plays the
/// checkpoints not yet evaluated against random and rule (RUN/eval/curve.*, RUN/tb-eval).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EvalConfig {
    /// Deals of the built-in set to play (both seatings); 0 = off.
    pub deals: usize,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig { deals: 200 }
    }
}

/// Where the run lives, how its games are dealt and where the learner runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    /// Run folder: checkpoints, pool snapshots, TensorBoard events, the config used.
    pub dir: PathBuf,
    /// Run seed: game i is dealt from (seed, i).
    pub seed: u64,
    /// Learner device: "auto" (CUDA if available), "cpu", "cuda" or "cuda:N". Actors use the CPU.
    pub device: Device,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig { dir: PathBuf::from("runs/dmc"), seed: 1, device: Device::Auto }
    }
}

impl RunConfig {
    /// The name that stands for the run where a folder cannot (its Redis keys `ddz:NAME:*`,
    /// unless `ddz train --run` names it): the run folder's last component, or "dmc" for a
    /// folder path without one (`/`, `..`).
    pub fn name(&self) -> String {
        self.dir.file_name().map_or_else(|| "dmc".into(), |n| n.to_string_lossy().into_owned())
    }
}

/// Where to stop; 0 means no bound. With no bound at all, training runs until Ctrl-C.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
pub struct BudgetConfig {
    /// Stop after this many learned decisions (frames).
    pub max_frames: u64,
    /// Stop after this many finished games.
    pub max_games: u64,
    /// Stop after this many seconds of this session; must not be negative.
    pub max_seconds: f64,
}

/// What each decision learns from the game's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RewardConfig {
    /// "win_loss": ±1; "score": the game's points (bombs and rocket double), landlord twice.
    pub scoring: Scoring,
    /// Added to the winners' reward (0 = off).
    pub speed_bonus: f32,
    /// 1: every decision learns the side's final reward (Monte Carlo, as DMC does); below 1: a
    /// λ-return that mixes in the acting network's Q of the seat's later decisions.
    pub lambda: f32,
    /// The two farmers learn as one side: a farmer's λ-return mixes in the Q of the side's next
    /// decision, the teammate's included, instead of the seat's own next one (no effect at
    /// λ = 1, where every decision learns the side's final reward anyway).
    pub farmer_team: bool,
}

/// The most points a side can make in one game: the highest bid (3) × 2 for each of at most 13
/// bombs and the rocket × 2 for a spring × 2 for the landlord's share.
pub const MAX_POINTS: f32 = 3.0 * 16384.0 * 2.0 * 2.0;

impl RewardConfig {
    /// No label of a game played under this reward can be larger in magnitude: the reward's
    /// largest value with the speed bonus, twice over for the λ-return's share of the acting
    /// network's Q (which can overshoot the reward a little). Labels from outside (a Redis
    /// stream) beyond it are refused before they reach a batch.
    pub fn label_bound(&self) -> f32 {
        let reward = match self.scoring {
            Scoring::WinLoss => 1.0,
            Scoring::Score => MAX_POINTS,
        };
        2.0 * (reward + self.speed_bonus.abs())
    }
}

impl Default for RewardConfig {
    fn default() -> Self {
        RewardConfig { scoring: Scoring::WinLoss, speed_bonus: 0.0, lambda: 0.85, farmer_team: false }
    }
}

/// How actors pick their training plays: `"epsilon"` or `"softmax"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exploration {
    /// Uniformly random legal play with probability `epsilon`, else greedy.
    Epsilon,
    /// Softmax over Q with a temperature annealed from `temperature_start` to `temperature_end`.
    Softmax,
}

/// The actor threads that play the training games, and how they explore.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ActorConfig {
    /// Actor threads; 0 = one per core.
    pub count: usize,
    /// Games each actor plays at once; their decisions share one forward pass.
    pub games_in_flight: usize,
    /// How a training play is picked: epsilon-greedy or softmax over Q.
    pub exploration: Exploration,
    /// Epsilon-greedy: probability of a uniformly random legal play at frame 0, in [0, 1].
    pub epsilon: f64,
    /// Epsilon after `epsilon_anneal_frames`, in [0, 1].
    pub epsilon_end: f64,
    /// Frames over which epsilon falls linearly from `epsilon` to `epsilon_end` (0 = `epsilon`
    /// throughout).
    pub epsilon_anneal_frames: u64,
    /// Softmax temperature at frame 0; must be positive.
    pub temperature_start: f64,
    /// Softmax temperature after `temperature_anneal_frames`; must be positive.
    pub temperature_end: f64,
    /// Frames over which the temperature goes from start to end.
    pub temperature_anneal_frames: u64,
}

impl ActorConfig {
    /// The exploration probability after `frames` learned frames.
    pub fn epsilon_at(&self, frames: u64) -> f64 {
        if self.epsilon_anneal_frames == 0 {
            return self.epsilon;
        }
        if frames >= self.epsilon_anneal_frames {
            return self.epsilon_end;
        }
        let progress = frames as f64 / self.epsilon_anneal_frames as f64;
        self.epsilon + (self.epsilon_end - self.epsilon) * progress
    }
}

impl Default for ActorConfig {
    fn default() -> Self {
        ActorConfig {
            count: 0,
            games_in_flight: 32,
            exploration: Exploration::Epsilon,
            epsilon: 0.01,
            epsilon_end: 0.01,
            epsilon_anneal_frames: 0,
            temperature_start: 0.3,
            temperature_end: 0.05,
            temperature_anneal_frames: 20_000_000,
        }
    }
}

/// The pool of frozen snapshots the learning side plays against.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PoolConfig {
    /// Most snapshots kept (oldest, newest and evenly spread ones in between).
    pub size: usize,
    /// Add a snapshot every this many learner steps…
    pub snapshot_every_steps: u64,
    /// …or this many minutes, whichever comes first.
    pub snapshot_every_minutes: f64,
    /// Each actor draws a new frozen opponent after this many games.
    pub redraw_every_games: u64,
    /// Share of games with the current weights in every seat (all seats learn).
    pub self_play_share: f64,
    /// Share of games in which the side that does not learn is the rule agent instead of a
    /// snapshot. Off by default: evaluation against rule is only independent when rule is an
    /// opponent the agent never trained against.
    pub rule_share: f64,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            size: 6,
            snapshot_every_steps: 2_000,
            snapshot_every_minutes: 10.0,
            redraw_every_games: 500,
            self_play_share: 0.5,
            rule_share: 0.0,
        }
    }
}

/// How the learning rate falls from `learner.lr` to `learner.lr_end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LrSchedule {
    /// In a straight line (`"linear"`).
    Linear,
    /// Along half a cosine (`"cosine"`): slowly at first, fastest halfway, slowly at the end.
    Cosine,
}

/// The learner's updates: batch, optimiser, learning-rate schedule and threads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LearnerConfig {
    /// Frames per update; each frame is learned once.
    pub batch_size: usize,
    /// Learning rate at frame 0; must be positive.
    pub lr: f64,
    /// `"adam"` or `"rmsprop"`.
    pub optimizer: Optimizer,
    /// Gradient-norm clip, of each role's network on its own when per-role (0 = off).
    pub grad_clip: f64,
    /// Publish weights to the actors every this many steps.
    pub publish_every_steps: u64,
    /// Bounded channel from actors to learner, in finished games (backpressure).
    pub queue_games: usize,
    /// libtorch intra-op threads of the learner.
    pub threads: i32,
    /// Frames over which the learning rate falls from `lr` to `lr_end` (0 = constant `lr`).
    pub lr_decay_frames: u64,
    /// How it falls: `"linear"` or `"cosine"` (half a cosine: slowly at first and at the end).
    pub lr_schedule: LrSchedule,
    /// Learning rate from `lr_decay_frames` on; must be positive.
    pub lr_end: f64,
    /// Decay of an exponential moving average of the weights (Polyak averaging), updated after
    /// every step; each checkpoint's network is then the average (the learner's own weights
    /// beside it, for resuming); 0 = off, else below 1.
    pub ema: f64,
}

impl LearnerConfig {
    /// What the learner's update needs of this section.
    pub fn settings(&self, auxiliary: &AuxiliaryConfig) -> LearnerSettings {
        LearnerSettings {
            optimizer: self.optimizer,
            lr: self.lr,
            grad_clip: self.grad_clip,
            hand_loss_weight: auxiliary.hand_loss_weight,
            detach_hands: auxiliary.hand_gradient == HandGradient::Detached,
            points_loss_weight: auxiliary.points_loss_weight,
            ema: self.ema,
        }
    }

    /// The learning rate after `frames` learned frames.
    pub fn lr_at(&self, frames: u64) -> f64 {
        if self.lr_decay_frames == 0 {
            return self.lr;
        }
        if frames >= self.lr_decay_frames {
            return self.lr_end;
        }
        let t = frames as f64 / self.lr_decay_frames as f64;
        let fallen = match self.lr_schedule {
            LrSchedule::Linear => t,
            LrSchedule::Cosine => 0.5 * (1.0 - (std::f64::consts::PI * t).cos()),
        };
        self.lr + (self.lr_end - self.lr) * fallen
    }
}

impl Default for LearnerConfig {
    fn default() -> Self {
        LearnerConfig {
            batch_size: 256,
            lr: 3e-4,
            optimizer: Optimizer::Adam,
            grad_clip: 40.0,
            publish_every_steps: 1,
            queue_games: 256,
            threads: 1,
            lr_decay_frames: 120_000_000,
            lr_schedule: LrSchedule::Linear,
            lr_end: 3e-5,
            ema: 0.0,
        }
    }
}

/// How often checkpoints are written and how many are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckpointConfig {
    /// Minutes between periodic checkpoints; 0 = only at the end.
    pub every_minutes: f64,
    /// Checkpoints kept (older ones are deleted).
    pub keep_last: usize,
}

impl Default for CheckpointConfig {
    fn default() -> Self {
        CheckpointConfig { every_minutes: 5.0, keep_last: 3 }
    }
}

/// What training logs and how often.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogConfig {
    /// Write TensorBoard events to RUN/tb.
    pub tensorboard: bool,
    /// Write scalars every this many learner steps.
    pub every_steps: u64,
    /// Games in the moving-average win rate.
    pub win_rate_window: usize,
}

impl Default for LogConfig {
    fn default() -> Self {
        LogConfig { tensorboard: true, every_steps: 50, win_rate_window: 500 }
    }
}

/// Why a training configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config {path}: {source}")]
    Read {
        /// The config file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The text is not valid TOML for this config (including unknown keys).
    #[error("config {path}: {source}")]
    Parse {
        /// Where the text came from.
        path: PathBuf,
        /// The TOML error, with line and key.
        #[source]
        source: toml::de::Error,
    },
    /// The config parsed but a value is out of range.
    #[error("config {path}: {reason}")]
    Invalid {
        /// Where the text came from.
        path: PathBuf,
        /// What is wrong, naming the key.
        #[source]
        reason: Box<ConfigError>,
    },
    /// An `extends` that names no config this one can be written over.
    #[error("config {path}: extends: {reason}")]
    Extends {
        /// The file whose `extends` it is.
        path: PathBuf,
        /// Why it cannot be followed.
        reason: String,
    },
    /// The model's sizes are out of range.
    #[error(transparent)]
    Model(#[from] crate::model::ModelError),
    /// A value no run can use; the reason names the key.
    #[error("{0}")]
    Value(String),
    /// A `--set KEY=VALUE` names no key of the config or gives it a value of the wrong kind.
    #[error("--set {setting}: {reason}")]
    Setting {
        /// The setting as given.
        setting: String,
        /// Why the config does not take it.
        reason: String,
    },
}

/// The most configs one `extends` chain may hold: past it the chain is taken for a loop.
const MOST_BASES: usize = 16;

/// The table of the config `text` (read from `origin`) with the configs it `extends` merged
/// under it. Each file is first parsed alone, so that its errors carry its own lines; `chain`
/// holds the files being read, to refuse a loop.
fn resolve(text: &str, origin: &Path, chain: &mut Vec<PathBuf>) -> Result<toml::Table, ConfigError> {
    let parse_error = |source| ConfigError::Parse { path: origin.into(), source };
    let alone: TrainConfig = toml::from_str(text).map_err(parse_error)?;
    let mut table: toml::Table = toml::from_str(text).map_err(parse_error)?;
    table.remove("extends");
    let Some(base) = alone.extends else { return Ok(table) };
    let extends_error = |reason: String| ConfigError::Extends { path: origin.into(), reason };
    let base = origin.parent().unwrap_or(Path::new("")).join(base);
    let text =
        std::fs::read_to_string(&base).map_err(|e| extends_error(format!("cannot read {}: {e}", base.display())))?;
    let key = std::fs::canonicalize(&base).unwrap_or_else(|_| base.clone());
    chain.push(std::fs::canonicalize(origin).unwrap_or_else(|_| origin.to_path_buf()));
    if chain.contains(&key) || chain.len() >= MOST_BASES {
        let names: Vec<String> = chain.iter().chain([&key]).map(|p| p.display().to_string()).collect();
        return Err(extends_error(format!("a loop, or more than {MOST_BASES} configs deep: {}", names.join(" -> "))));
    }
    let mut merged = resolve(&text, &base, chain)?;
    merge(&mut merged, table);
    Ok(merged)
}

/// Writes `over` into `base`: a section's keys one by one, any other value whole.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(toml::Value::Table(section)), toml::Value::Table(keys)) => merge(section, keys),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// One config key set from the command line (`ddz train --set learner.lr=1e-3`), over what the
/// file says: ablations name the one value they change instead of copying the whole file.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    /// The `[section]` of the key.
    pub section: String,
    /// The key within it.
    pub key: String,
    /// The value: a TOML value (`1e-3`, `true`, `"x"`), or else the text as a string.
    pub value: toml::Value,
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}={}", self.section, self.key, self.value)
    }
}

impl std::str::FromStr for Setting {
    type Err = String;

    /// `section.key=value`; a value that is not TOML (`runs/x`, `cuda`) is taken as a string.
    fn from_str(s: &str) -> Result<Setting, String> {
        let Some((key, text)) = s.split_once('=') else {
            return Err(format!("{s:?} is not KEY=VALUE (e.g. learner.lr=1e-3)"));
        };
        let key = key.trim();
        let (section, key) = match key.split_once('.') {
            Some((section, name)) if !section.is_empty() && !name.is_empty() && !name.contains('.') => (section, name),
            _ => return Err(format!("key {key:?} is not section.key (e.g. learner.lr)")),
        };
        let text = text.trim();
        let value = match toml::from_str::<toml::Table>(&format!("v = {text}")) {
            Ok(mut table) if table.len() == 1 => table.remove("v").expect("the one key"),
            _ => toml::Value::String(text.to_string()),
        };
        Ok(Setting { section: section.to_string(), key: key.to_string(), value })
    }
}

impl Setting {
    /// Writes the value into the config's table, making the section if the file has none.
    fn apply(&self, table: &mut toml::Table) -> Result<(), ConfigError> {
        let entry = table.entry(&self.section).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let toml::Value::Table(section_table) = entry else {
            let reason = format!("{} is a value, not a [section]", self.section);
            return Err(ConfigError::Setting { setting: self.to_string(), reason });
        };
        section_table.insert(self.key.clone(), self.value.clone());
        Ok(())
    }
}

impl TrainConfig {
    /// Reads, parses and validates the config file at `path`.
    pub fn load(path: &Path) -> Result<TrainConfig, ConfigError> {
        TrainConfig::load_with(path, &[])
    }

    /// Reads the config file at `path`, sets the keys of `settings` over it, and validates.
    pub fn load_with(path: &Path, settings: &[Setting]) -> Result<TrainConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.into(), source })?;
        TrainConfig::parse_with(&text, path, settings)
    }

    /// Parses TOML; `origin` names the source in errors (the toml error carries line and key).
    pub fn parse(text: &str, origin: &Path) -> Result<TrainConfig, ConfigError> {
        TrainConfig::parse_with(text, origin, &[])
    }

    /// Parses TOML with `settings` set over it, each checked on its own so that an error names it.
    /// A file that `extends` another is read over it (the path relative to `origin`).
    pub fn parse_with(text: &str, origin: &Path, settings: &[Setting]) -> Result<TrainConfig, ConfigError> {
        let mut table = resolve(text, origin, &mut Vec::new())?;
        let merged = |e: toml::de::Error| ConfigError::Extends { path: origin.into(), reason: e.message().to_string() };
        let mut config: TrainConfig = toml::Value::Table(table.clone()).try_into().map_err(merged)?;
        for setting in settings {
            setting.apply(&mut table)?;
            config = toml::Value::Table(table.clone()).try_into().map_err(|e: toml::de::Error| {
                ConfigError::Setting { setting: setting.to_string(), reason: e.message().to_string() }
            })?;
        }
        // The network plays the run's rules: one key, `[game] rules`, says both.
        config.model.rules = config.game.rules;
        // A value out of range may come from the file or from a setting: the error says both.
        let source = match settings {
            [] => origin.to_path_buf(),
            _ => {
                let given: Vec<String> = settings.iter().map(|s| format!("--set {s}")).collect();
                PathBuf::from(format!("{} with {}", origin.display(), given.join(" ")))
            }
        };
        config.validate().map_err(|e| ConfigError::Invalid { path: source, reason: Box::new(e) })?;
        Ok(config)
    }

    /// The parts of a run that do not know laizi yet refuse it by name.
    fn validate_rules(&self) -> Result<(), ConfigError> {
        if self.model.rules != self.game.rules {
            let (m, g) = (self.model.rules, self.game.rules);
            return Err(ConfigError::Value(format!("the network plays {m} rules but [game] rules = \"{g}\"")));
        }
        let rules = self.game.rules;
        let unsupported = match rules {
            Rules::Standard => vec![],
            Rules::Laizi => vec![
                (self.model.prune, "model.prune (its hand decomposition knows no wild cards)"),
                (!self.curation.evaluator.as_os_str().is_empty(), "curation.evaluator (a standard-game evaluator)"),
            ],
            Rules::TwoPlayer => vec![
                (!self.curation.evaluator.as_os_str().is_empty(), "curation.evaluator (a standard-game evaluator)"),
                (self.model.oracle || self.model.hand_prediction, "the oracle and hand prediction (two other hands)"),
            ],
        };
        if let Some((_, what)) = unsupported.iter().find(|(on, _)| *on) {
            return Err(ConfigError::Value(format!("[game] rules = \"{rules}\" does not take {what} yet")));
        }
        Ok(())
    }

    /// Checks every value a run needs in range (and the model's sizes); the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.model.validate().map_err(crate::model::ModelError::from)?;
        self.validate_rules()?;
        if let Some((key, value)) = self.numbers().into_iter().find(|(_, v)| !v.is_finite()) {
            return Err(ConfigError::Value(format!("{key} is {value}: every number must be finite")));
        }
        // Counts, sizes, threads and times: the one limits table (no value reserves more than a
        // machine has, starts more threads than it can, or waits longer than a timer holds).
        for (name, value) in self.limited() {
            crate::limits::verify(name, value).map_err(|e| ConfigError::Value(e.to_string()))?;
        }
        let checks = [
            (self.learner.lr.is_nan() || self.learner.lr <= 0.0, "learner.lr must be positive"),
            (!(0.0..1.0).contains(&self.learner.ema), "learner.ema must be 0 (off) or in (0, 1)"),
            (self.learner.lr_end.is_nan() || self.learner.lr_end <= 0.0, "learner.lr_end must be positive"),
            (!(0.0..=1.0).contains(&self.reward.lambda), "reward.lambda must be in [0, 1]"),
            (!(0.0..=1.0).contains(&self.actors.epsilon), "actors.epsilon must be in [0, 1]"),
            (!(0.0..=1.0).contains(&self.actors.epsilon_end), "actors.epsilon_end must be in [0, 1]"),
            (!(0.5..=1.0).contains(&self.curation.certain), "curation.certain must be in [0.5, 1]"),
            (!(0.0..=1.0).contains(&self.curation.keep), "curation.keep must be in [0, 1]"),
            (
                self.game.bidding && !self.curation.evaluator.as_os_str().is_empty(),
                "curation.evaluator needs game.bidding = false (it judges the fixed landlord's 20 cards)",
            ),
            (!(0.0..=1.0).contains(&self.pool.self_play_share), "pool.self_play_share must be in [0, 1]"),
            (
                !(0.0..=1.0).contains(&self.pool.rule_share) || self.pool.self_play_share + self.pool.rule_share > 1.0,
                "pool.rule_share must be in [0, 1] and, with pool.self_play_share, add up to at most 1",
            ),
            (!(0.0..=1.0).contains(&self.game.bid_epsilon), "game.bid_epsilon must be in [0, 1]"),
            (
                self.actors.temperature_start <= 0.0 || self.actors.temperature_end <= 0.0,
                "temperatures must be positive",
            ),
            (self.learner.grad_clip < 0.0, "learner.grad_clip must be 0 (off) or positive"),
            (self.auxiliary.hand_loss_weight < 0.0, "auxiliary.hand_loss_weight must be 0 or positive"),
            (self.auxiliary.points_loss_weight < 0.0, "auxiliary.points_loss_weight must be 0 or positive"),
            (
                self.model.oracle && self.auxiliary.oracle_fade_frames == 0,
                "auxiliary.oracle_fade_frames must be at least 1 with model.oracle",
            ),
        ];
        match checks.iter().find(|(bad, _)| *bad) {
            Some((_, why)) => Err(ConfigError::Value(why.to_string())),
            None => Ok(()),
        }
    }

    /// Every key of the limits table, by its name there.
    fn limited(&self) -> Vec<(&'static str, crate::limits::Checked)> {
        vec![
            ("learner.batch_size", self.learner.batch_size.into()),
            ("learner.threads", self.learner.threads.into()),
            ("learner.queue_games", self.learner.queue_games.into()),
            ("learner.publish_every_steps", self.learner.publish_every_steps.into()),
            ("actors.count", self.actors.count.into()),
            ("actors.games_in_flight", self.actors.games_in_flight.into()),
            ("pool.size", self.pool.size.into()),
            ("pool.snapshot_every_steps", self.pool.snapshot_every_steps.into()),
            ("pool.redraw_every_games", self.pool.redraw_every_games.into()),
            ("broker.stream_cap", self.broker.stream_cap.into()),
            ("broker.publish_every_steps", self.broker.publish_every_steps.into()),
            ("game.bid_batch_size", self.game.bid_batch_size.into()),
            ("checkpoint.keep_last", self.checkpoint.keep_last.into()),
            ("log.every_steps", self.log.every_steps.into()),
            ("log.win_rate_window", self.log.win_rate_window.into()),
            ("eval.deals", self.eval.deals.into()),
            ("budget.max_seconds", self.budget.max_seconds.into()),
            ("checkpoint.every_minutes", self.checkpoint.every_minutes.into()),
            ("pool.snapshot_every_minutes", self.pool.snapshot_every_minutes.into()),
        ]
    }

    /// Every real-valued key, by name.
    fn numbers(&self) -> [(&'static str, f64); 20] {
        [
            ("budget.max_seconds", self.budget.max_seconds),
            ("reward.speed_bonus", self.reward.speed_bonus as f64),
            ("reward.lambda", self.reward.lambda as f64),
            ("actors.epsilon", self.actors.epsilon),
            ("actors.epsilon_end", self.actors.epsilon_end),
            ("actors.temperature_start", self.actors.temperature_start),
            ("actors.temperature_end", self.actors.temperature_end),
            ("pool.snapshot_every_minutes", self.pool.snapshot_every_minutes),
            ("pool.self_play_share", self.pool.self_play_share),
            ("pool.rule_share", self.pool.rule_share),
            ("learner.lr", self.learner.lr),
            ("learner.grad_clip", self.learner.grad_clip),
            ("learner.lr_end", self.learner.lr_end),
            ("learner.ema", self.learner.ema),
            ("checkpoint.every_minutes", self.checkpoint.every_minutes),
            ("game.bid_epsilon", self.game.bid_epsilon),
            ("auxiliary.hand_loss_weight", self.auxiliary.hand_loss_weight),
            ("auxiliary.points_loss_weight", self.auxiliary.points_loss_weight),
            ("curation.certain", self.curation.certain),
            ("curation.keep", self.curation.keep),
        ]
    }

    /// The whole config as TOML, every key set; it parses back to an equal config.
    pub fn to_toml(&self) -> String {
        toml::to_string_pretty(self).expect("a config always serialises")
    }

    /// After a warm start (a run from given weights, such as a pretrained network), explores by
    /// softmax over Q with the configured annealed temperature instead of epsilon-greedy, so
    /// that RL can leave pure imitation behind. Returns whether it switched: a start from
    /// random weights, a resumed run, or a config that asks for softmax already is left as it
    /// is (`ddz train --keep-exploration` does not ask).
    pub fn explore_for(&mut self, start: &super::Start) -> bool {
        let warm = matches!(start, super::Start::Fresh { init_from: Some(_) });
        let switch = warm && self.actors.exploration == Exploration::Epsilon;
        if switch {
            self.actors.exploration = Exploration::Softmax;
        }
        switch
    }

    /// Actor threads to start: `actors.count`, or one per available core when it is 0.
    pub fn actor_count(&self) -> usize {
        if self.actors.count > 0 {
            self.actors.count
        } else {
            std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_warm_start_explores_by_softmax_and_nothing_else_does() {
        use crate::train::Start;
        let warm = Start::Fresh { init_from: Some(PathBuf::from("models/pretrained")) };
        for (start, switches) in
            [(warm.clone(), true), (Start::Fresh { init_from: None }, false), (Start::Resume, false)]
        {
            let mut cfg = TrainConfig::default();
            assert_eq!(cfg.explore_for(&start), switches, "{start:?}");
            let expected = if switches { Exploration::Softmax } else { Exploration::Epsilon };
            assert_eq!(cfg.actors.exploration, expected, "{start:?}");
        }
        let mut softmax = TrainConfig::default();
        softmax.actors.exploration = Exploration::Softmax;
        assert!(!softmax.explore_for(&warm), "already softmax: nothing to switch");
        assert_eq!(softmax.actors.exploration, Exploration::Softmax);
    }

    #[test]
    fn a_run_is_named_by_its_folder() {
        let named = |dir: &str| RunConfig { dir: PathBuf::from(dir), ..RunConfig::default() }.name();
        assert_eq!(named("runs/dmc-rule-2h"), "dmc-rule-2h");
        assert_eq!(named("runs/exp1/"), "exp1");
        assert_eq!(named("/"), "dmc");
        assert_eq!(named(".."), "dmc");
    }

    #[test]
    fn learning_rate_falls_linearly_then_stays() {
        let mut l = LearnerConfig { lr: 3e-4, lr_end: 3e-5, lr_decay_frames: 0, ..LearnerConfig::default() };
        assert_eq!(l.lr_at(5_000_000), 3e-4, "no decay by default");
        l.lr_decay_frames = 1_000;
        assert_eq!(l.lr_at(0), 3e-4);
        assert!((l.lr_at(500) - 1.65e-4).abs() < 1e-12);
        assert_eq!(l.lr_at(1_000), 3e-5);
        assert_eq!(l.lr_at(9_000), 3e-5);
        l.lr_schedule = LrSchedule::Cosine;
        assert_eq!(l.lr_at(0), 3e-4);
        assert!((l.lr_at(500) - 1.65e-4).abs() < 1e-12, "halfway: the same as linear");
        assert!(l.lr_at(100) > 3e-4 - 0.03 * 2.7e-4, "slowly at first: {}", l.lr_at(100));
        assert!(l.lr_at(900) < 3e-5 + 0.03 * 2.7e-4, "slowly at the end: {}", l.lr_at(900));
        assert_eq!(l.lr_at(1_000), 3e-5);
    }

    #[test]
    fn epsilon_falls_linearly_then_stays() {
        let mut a = ActorConfig::default();
        assert_eq!(a.epsilon_at(50_000_000), 0.01, "constant by default");
        (a.epsilon, a.epsilon_end, a.epsilon_anneal_frames) = (0.1, 0.01, 1_000);
        assert_eq!(a.epsilon_at(0), 0.1);
        assert!((a.epsilon_at(500) - 0.055).abs() < 1e-12);
        assert_eq!(a.epsilon_at(1_000), 0.01);
        assert_eq!(a.epsilon_at(5_000), 0.01);
        let e = TrainConfig::parse("[actors]\nepsilon_end = 1.5\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(e.contains("actors.epsilon_end"), "{e}");
    }

    #[test]
    fn the_laizi_config_trains_a_laizi_network_and_refuses_what_it_cannot() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("configs/laizi.toml");
        let c = TrainConfig::load(&path).unwrap();
        assert_eq!((c.game.rules, c.model.rules), (Rules::Laizi, Rules::Laizi), "one key says both");
        assert!(c.model.action_layout().laizi);
        let standard = TrainConfig::load(&path.with_file_name("dmc.toml")).unwrap();
        let as_standard = c.to_toml().replace("\"laizi\"", "\"standard\"").replace("runs/laizi", "runs/dmc");
        assert_eq!(as_standard, standard.to_toml());
        let e = TrainConfig::parse("[game]\nrules = \"laizi\"\n[model]\nprune = true\n", Path::new("x.toml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not take model.prune"), "{e}");
        let e = TrainConfig::parse("[game]\nrules = \"laizy\"\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(e.contains("laizy"), "{e}");
    }

    #[test]
    fn shipped_config_parses_and_unknown_keys_are_named() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("configs/dmc.toml");
        let c = TrainConfig::load(&path).unwrap();
        assert_eq!(c.learner.batch_size, 256);
        let e = TrainConfig::parse("[learner]\nbatch_sise = 3\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(e.contains("batch_sise") && e.contains("x.toml"), "{e}");
        let e = TrainConfig::parse("[learner]\nlr = -1.0\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(e.contains("lr"), "{e}");
        let e = TrainConfig::parse("[pool]\nrule_share = 0.6\n", Path::new("x.toml")).unwrap_err().to_string();
        assert!(e.contains("rule_share"), "with the default self_play_share 0.5 the shares pass 1: {e}");
        assert!(TrainConfig::parse("[pool]\nrule_share = 0.5\n", Path::new("x.toml")).is_ok());
        for (text, key) in [
            ("[learner]\nlr = inf\n", "learner.lr"),
            ("[reward]\nspeed_bonus = nan\n", "reward.speed_bonus"),
            ("[learner]\ngrad_clip = nan\n", "learner.grad_clip"),
            ("[budget]\nmax_seconds = -5.0\n", "budget.max_seconds"),
        ] {
            let e = TrainConfig::parse(text, Path::new("x.toml")).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("x.toml"), "{text}: {e}");
        }
        assert!(matches!(TrainConfig::load(Path::new("/nonexistent.toml")), Err(ConfigError::Read { .. })));
        let round = TrainConfig::parse(&c.to_toml(), Path::new("round")).unwrap();
        assert_eq!(round, c);
    }

    #[test]
    fn a_setting_changes_its_one_key_and_a_wrong_one_is_named() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("configs/dmc.toml");
        let set = |s: &str| s.parse::<Setting>().unwrap();
        let shipped = TrainConfig::load(&path).unwrap();
        let c =
            TrainConfig::load_with(&path, &[set("learner.lr_decay_frames=23300000"), set("run.dir = runs/x")]).unwrap();
        let mut expected = shipped.clone();
        expected.learner.lr_decay_frames = 23_300_000;
        expected.run.dir = PathBuf::from("runs/x");
        assert_eq!(c, expected, "a TOML value, and text that is not TOML taken as a string");
        // A key the file leaves out, in a section the file leaves out.
        let c = TrainConfig::parse_with("", Path::new("x.toml"), &[set("learner.lr=1e-3")]).unwrap();
        assert_eq!(c.learner.lr, 1e-3);
        for (given, named) in [
            ("learner.lrr=1e-3", "lrr"),
            ("learner.batch_size=big", "batch_size=\"big\""),
            ("learner.lr=-1", "learner.lr"),
            ("laerner.lr=1e-3", "laerner"),
        ] {
            let e = TrainConfig::load_with(&path, &[set("run.seed=3"), set(given)]).unwrap_err().to_string();
            assert!(e.contains(named), "{given}: {e}");
        }
        let e = TrainConfig::load_with(&path, &[set("learner.batch_size=big")]).unwrap_err().to_string();
        assert!(e.starts_with("--set learner.batch_size=\"big\""), "names the setting: {e}");
        for bad in ["learner.lr", "lr=1e-3", "learner.=3", "a.b.c=1"] {
            assert!(bad.parse::<Setting>().is_err(), "{bad}");
        }
        let e = TrainConfig::parse_with("run = 3\n", Path::new("x.toml"), &[set("run.seed=1")]).unwrap_err();
        assert!(e.to_string().contains("x.toml"), "the file's own error first: {e}");
    }

    #[test]
    fn a_config_extends_another_and_its_errors_name_their_own_file_and_line() {
        let dir = std::env::temp_dir().join(format!("ddz-extends-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("ablation")).unwrap();
        let write = |name: &str, text: &str| {
            std::fs::write(dir.join(name), text).unwrap();
            dir.join(name)
        };
        write("base.toml", "[learner]\nlr = 5e-4\nbatch_size = 64\n[run]\nseed = 7\n");
        // Two levels, the path relative to each file; a key replaces its base's, the rest stay.
        write("ablation/mid.toml", "extends = \"../base.toml\"\n[learner]\nbatch_size = 128\n");
        let top = write("ablation/top.toml", "extends = \"mid.toml\"\n[run]\nseed = 9\n");
        let c = TrainConfig::load(&top).unwrap();
        assert_eq!((c.learner.lr, c.learner.batch_size, c.run.seed, c.extends.clone()), (5e-4, 128, 9, None));
        assert!(!c.to_toml().contains("extends"), "what a run saves is the whole result");
        let set = TrainConfig::load_with(&top, &["learner.lr=1e-4".parse().unwrap()]).unwrap();
        assert_eq!((set.learner.lr, set.learner.batch_size), (1e-4, 128), "--set goes over the merged config");
        // Errors: a bad key in the overlay, in its base, a missing base, a loop.
        let bad = write("bad.toml", "extends = \"base.toml\"\n[learner]\nlr = \"fast\"\n");
        let e = TrainConfig::load(&bad).unwrap_err().to_string();
        assert!(e.contains("bad.toml") && e.contains("line 3"), "{e}");
        write("broken.toml", "[learner]\nlearning = 1\n");
        let over_broken = write("over.toml", "extends = \"broken.toml\"\n");
        let e = TrainConfig::load(&over_broken).unwrap_err().to_string();
        assert!(e.contains("broken.toml") && e.contains("line 2") && e.contains("learning"), "{e}");
        let missing = write("missing.toml", "extends = \"nowhere.toml\"\n");
        let e = TrainConfig::load(&missing).unwrap_err().to_string();
        assert!(e.contains("missing.toml: extends: cannot read") && e.contains("nowhere.toml"), "{e}");
        write("a.toml", "extends = \"b.toml\"\n");
        let b = write("b.toml", "extends = \"a.toml\"\n");
        let e = TrainConfig::load(&b).unwrap_err().to_string();
        assert!(e.contains("extends: a loop") && e.contains("a.toml -> ") && e.ends_with("b.toml"), "{e}");
        let e = TrainConfig::load(&write("self.toml", "extends = \"self.toml\"\n")).unwrap_err().to_string();
        assert!(e.contains("extends: a loop"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn shipped_config_sets_every_key_in_its_section() {
        // configs/dmc.toml is the documentation of the keys: each one must appear there, set and
        // commented, under its own section.
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("configs/dmc.toml");
        let shipped: toml::Table = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let every: toml::Table = toml::from_str(&TrainConfig::default().to_toml()).unwrap();
        for (section, keys) in &every {
            let keys = keys.as_table().unwrap();
            let set = shipped.get(section).and_then(|t| t.as_table()).unwrap_or_else(|| panic!("[{section}] missing"));
            for key in keys.keys() {
                assert!(set.contains_key(key), "{section}.{key} is not in configs/dmc.toml");
            }
        }
    }

    #[test]
    fn sizes_no_machine_can_hold_are_named_before_anything_is_built() {
        for (text, named) in [
            ("[model]\ntrunk = [100000, 100000]", "100000 units: at most 65536"),
            ("[model]\ntrunk = [60000, 60000]", "weights"),
            ("[learner]\nbatch_size = 4000000000", "learner.batch_size = 4000000000: a whole number from 1 to"),
            ("[actors]\ngames_in_flight = 4000000000", "actors.games_in_flight = 4000000000: a whole number"),
            ("[pool]\nsize = 1000000", "pool.size = 1000000: a whole number from 1 to 1000"),
            ("[learner]\nthreads = 100000000", "learner.threads = 100000000: a whole number from 1 to 1024"),
        ] {
            let e = TrainConfig::parse(text, Path::new("big.toml")).unwrap_err().to_string();
            assert!(e.contains("big.toml") && e.contains(named), "{text}: {e}");
        }
    }
}
