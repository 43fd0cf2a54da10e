//! Learning curves: every checkpoint of a run against fixed opponents (by default random and
//! rule; `ddz eval --run RUN --opponents …` takes any) on fixed deals, written as
//! `RUN/eval/curve.csv`, `curve.json`, TensorBoard scalars (`RUN/tb-eval`) and a PNG plot
//! (`RUN/eval/curve.png`). Checkpoints already in `curve.json` on the same deal set against the
//! same opponents are not played again.

use super::ladder::Entry;
use super::{EvalError, content};
use crate::agents::AgentSpec;
use crate::game::{Deal, DealSet, Rules};
use crate::run::{self, eval_dir};
use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// One checkpoint on the learning curve: where the run stood and its results on one deal set.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(from = "StoredPoint")]
pub struct CurvePoint {
    /// The checkpoint's learner step.
    pub step: u64,
    /// Frames learned by then.
    pub frames: u64,
    /// Finished games the learner had taken in by then.
    pub games: u64,
    /// Training time when the checkpoint was written.
    pub hours: f64,
    /// The deal set's name (`dev`, `test` or a file).
    pub deal_set: String,
    /// Deals played, each in both seatings.
    pub deals: usize,
    /// Each opponent, in the order asked: its label, the WP as landlord and as farmers.
    pub vs: Vec<Versus>,
    /// Illegal answers over all these games, of both sides.
    pub illegal_plays: u32,
    /// The content hash of what was played (the checkpoint's files, the opponents, the deals:
    /// [`super::content`]); a point is measured again when it changes. Empty for points
    /// measured before it was recorded (taken by their names once, then stamped).
    pub content: String,
}

/// A checkpoint's result against one opponent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Versus {
    /// The opponent's label (`random`, `rule`, or as given: `LABEL=AGENT`, else the agent's name).
    pub opponent: String,
    /// WP as landlord.
    pub landlord: f64,
    /// WP as farmers.
    pub farmers: f64,
}

impl CurvePoint {
    /// The result against the opponent labelled `label`, if it was played.
    pub fn against(&self, label: &str) -> Option<&Versus> {
        self.vs.iter().find(|v| v.opponent == label)
    }
}

/// A point as `curve.json` holds it: today's form, or the earlier one (random and rule always,
/// further opponents apart, every deal set `dev`).
#[derive(Deserialize)]
struct StoredPoint {
    step: u64,
    frames: u64,
    games: u64,
    hours: f64,
    #[serde(default = "dev")]
    deal_set: String,
    deals: usize,
    #[serde(default)]
    vs: Vec<Versus>,
    #[serde(default)]
    vs_random: Option<(f64, f64)>,
    #[serde(default)]
    vs_rule: Option<(f64, f64)>,
    #[serde(default)]
    vs_others: Vec<(String, f64, f64)>,
    illegal_plays: u32,
    #[serde(default)]
    content: String,
}

fn dev() -> String {
    "dev".into()
}

impl From<StoredPoint> for CurvePoint {
    fn from(p: StoredPoint) -> CurvePoint {
        let mut vs = p.vs;
        let earlier = [("random".to_string(), p.vs_random), ("rule".to_string(), p.vs_rule)];
        let earlier = earlier.into_iter().filter_map(|(name, wp)| wp.map(|(l, f)| (name, l, f)));
        for (opponent, landlord, farmers) in earlier.chain(p.vs_others) {
            vs.push(Versus { opponent, landlord, farmers });
        }
        let (step, frames, games, hours, deal_set, deals) = (p.step, p.frames, p.games, p.hours, p.deal_set, p.deals);
        let (illegal_plays, content) = (p.illegal_plays, p.content);
        CurvePoint { step, frames, games, hours, deal_set, deals, vs, illegal_plays, content }
    }
}

/// The opponents of a curve when none are given: random and rule.
pub fn default_opponents() -> Vec<Entry> {
    vec![
        Entry { label: "random".into(), spec: AgentSpec::Random, slow: false },
        Entry { label: "rule".into(), spec: AgentSpec::Rule, slow: false },
    ]
}

/// Evaluates the checkpoints of `run` not yet measured on these deals (named `deal_set`) against
/// these opponents, and adds them to the curve files, which keep every point ever measured
/// (also of checkpoints since deleted, and on other deal sets). Returns the points of this deal
/// set and opponents.
pub fn evaluate_run(
    run: &Path,
    deal_set: &str,
    deals: &[Deal],
    opponents: &[Entry],
    threads: usize,
    mut progress: impl FnMut(&CurvePoint),
) -> Result<Vec<CurvePoint>, EvalError> {
    let mut points = read_curve(run)?;
    let same_opponents = |p: &CurvePoint| {
        p.vs.len() == opponents.len()
            && p.vs.iter().zip(opponents).all(|(v, o)| v.opponent == o.label || o.spec.is_named(&v.opponent))
    };
    let same_set = |p: &CurvePoint| p.deal_set == deal_set && p.deals == deals.len() && same_opponents(p);
    let checkpoints = run::list(run)?;
    if checkpoints.is_empty() {
        return Err(run::RunError::None(run::checkpoints_dir(run)).into());
    }
    let hash_error = |e: std::io::Error| EvalError::Curve { path: run.to_path_buf(), reason: e.into() };
    let mut played = content::of_deals(deals);
    for o in opponents {
        played += &content::of_agent(&o.spec).map_err(hash_error)?;
    }
    for dir in checkpoints {
        if crate::process::interrupted() {
            break; // what was measured so far is written below
        }
        let meta = run::read_meta(&dir)?;
        let me = content::of_agent(&AgentSpec::Checkpoint(dir.clone())).map_err(hash_error)?;
        let key = content::of_text(&(me + &played));
        let same_point = |p: &CurvePoint| p.step == meta.step && same_set(p);
        if let Some(p) = points.iter_mut().find(|p| same_point(p) && (p.content.is_empty() || p.content == key)) {
            p.content = key; // stamps a point measured before hashes were kept
            continue;
        }
        points.retain(|p| !same_point(p)); // measured on what has changed since
        let mut point = evaluate_checkpoint(&dir, &meta, deals, opponents, threads)?;
        point.content = key;
        point.deal_set = deal_set.to_string();
        progress(&point);
        points.push(point);
        points.sort_by_key(|p| (p.step, p.deals));
        write_curve(run, &points)?;
    }
    write_curve(run, &points)?;
    Ok(points.into_iter().filter(same_set).collect())
}

/// The curve recorded so far (none yet: empty).
fn read_curve(run: &Path) -> Result<Vec<CurvePoint>, EvalError> {
    let path = eval_dir(run).join("curve.json");
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| EvalError::Curve { path, reason: e.into() }),
        Err(_) => Ok(Vec::new()),
    }
}

/// The rules a run's networks play, as its latest checkpoint says (standard when it has none
/// that loads: the evaluation then says what is wrong with it).
pub fn run_rules(run: &Path) -> Rules {
    run::latest(run)
        .ok()
        .and_then(|dir| ddz_nets::QNetwork::load(&dir).ok())
        .map_or(Rules::Standard, |net| net.config().rules)
}

/// One checkpoint against each of `opponents`.
fn evaluate_checkpoint(
    dir: &Path,
    meta: &run::Meta,
    deals: &[Deal],
    opponents: &[Entry],
    threads: usize,
) -> Result<CurvePoint, EvalError> {
    let me = AgentSpec::Checkpoint(dir.to_path_buf());
    let hidden = ProgressBar::hidden(); // evaluate_run reports each checkpoint instead
    let mut vs = Vec::new();
    let mut illegal = 0;
    // A variant run's checkpoints play its games: the network's file says which rules.
    let rules = ddz_nets::QNetwork::load(dir).map_or(Rules::Standard, |net| net.config().rules);
    for o in opponents {
        let m = crate::eval::evaluate_under(rules, &me, &o.spec, deals, threads, &hidden, false)?;
        illegal += m.illegal_plays();
        vs.push(Versus {
            opponent: o.label.clone(),
            landlord: m.a_as_landlord.wp.mean,
            farmers: m.a_as_farmers.wp.mean,
        });
    }
    Ok(CurvePoint {
        step: meta.step,
        frames: meta.frames,
        games: meta.games,
        hours: meta.elapsed_seconds / 3600.0,
        deal_set: String::new(),
        deals: deals.len(),
        vs,
        illegal_plays: illegal,
        content: String::new(),
    })
}

/// Evaluation while a run trains: after each checkpoint ([`BackgroundEval::checkpoint_written`],
/// which the command hands to the trainer), the checkpoints not yet on the curve are played
/// against random and rule on the first `deals` of the built-in set, in a thread of their own,
/// unless the previous round is still playing. Dropping it waits for the round in progress.
pub struct BackgroundEval {
    run: PathBuf,
    deals: usize,
    worker: Option<JoinHandle<()>>,
}

impl BackgroundEval {
    /// Evaluation of `run` on the first `deals` deals of the built-in set; with 0, it never plays.
    pub fn new(run: &Path, deals: usize) -> BackgroundEval {
        BackgroundEval { run: run.to_path_buf(), deals, worker: None }
    }

    /// Starts a round on the checkpoints not yet on the curve, unless the previous round is
    /// still playing; errors are said on stderr, never returned.
    pub fn checkpoint_written(&mut self) {
        if self.deals == 0 || self.worker.as_ref().is_some_and(|w| !w.is_finished()) {
            return;
        }
        let (run, n) = (self.run.clone(), self.deals);
        self.worker = Some(std::thread::spawn(move || {
            let deals: Vec<Deal> = DealSet::Dev.deals_for(run_rules(&run)).into_iter().take(n).collect();
            if let Err(e) = evaluate_run(&run, "dev", &deals, &default_opponents(), 1, |_| {}) {
                eprintln!("evaluation during training: {e}");
            }
        }));
    }
}

impl Drop for BackgroundEval {
    fn drop(&mut self) {
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

fn write_curve(run: &Path, points: &[CurvePoint]) -> Result<(), EvalError> {
    let dir = eval_dir(run);
    std::fs::create_dir_all(&dir).map_err(|e| EvalError::Curve { path: dir.clone(), reason: e.into() })?;
    // A column pair per opponent ever played, in the order first met.
    let mut labels: Vec<&str> = Vec::new();
    for v in points.iter().flat_map(|p| &p.vs) {
        if !labels.contains(&v.opponent.as_str()) {
            labels.push(&v.opponent);
        }
    }
    let mut csv = String::from("step,frames,games,hours,deal_set,deals,illegal_plays");
    for label in &labels {
        let column = label.replace([',', '"', '\n'], " ");
        csv.push_str(&format!(",{column}_landlord_wp,{column}_farmers_wp"));
    }
    csv.push('\n');
    for p in points {
        let set = p.deal_set.replace([',', '"', '\n'], " ");
        csv.push_str(&format!(
            "{},{},{},{:.4},{set},{},{}",
            p.step, p.frames, p.games, p.hours, p.deals, p.illegal_plays
        ));
        for label in &labels {
            match p.against(label) {
                Some(v) => csv.push_str(&format!(",{:.4},{:.4}", v.landlord, v.farmers)),
                None => csv.push_str(",,"),
            }
        }
        csv.push('\n');
    }
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        crate::files::write(&path, text).map_err(|e| EvalError::Curve { path: path.clone(), reason: e.into() })
    };
    write("curve.csv", csv)?;
    let json = serde_json::to_string_pretty(points)
        .map_err(|e| EvalError::Curve { path: dir.join("curve.json"), reason: e.into() })?;
    write("curve.json", json)?;
    let mut tb = tensorboard_rs::summary_writer::SummaryWriter::new(run.join("tb-eval"));
    if let Some(p) = points.last() {
        let s = p.frames as usize;
        for v in &p.vs {
            tb.add_scalar(&format!("wp_vs_{}/landlord", v.opponent), v.landlord as f32, s);
            tb.add_scalar(&format!("wp_vs_{}/farmers", v.opponent), v.farmers as f32, s);
        }
        tb.flush();
    }
    Ok(())
}

/// Renders `RUN/eval/curve.csv` to `curve.png` with matplotlib ([`crate::scripts`]): the points
/// measured on `deals` deals.
pub fn plot(run: &Path, deals: usize) -> Result<PathBuf, EvalError> {
    let csv = eval_dir(run).join("curve.csv");
    let png = eval_dir(run).join("curve.png");
    let deals = deals.to_string();
    let args = [csv.as_os_str(), png.as_os_str(), "--deals".as_ref(), deals.as_ref()];
    crate::scripts::plot("plot_curve.py", &args).map_err(EvalError::Plot)?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ddz_nets::{ModelConfig, Weights};

    #[test]
    fn the_curve_keeps_every_point_ever_measured() {
        let run = std::env::temp_dir().join(format!("ddz-curve-history-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&run);
        let model = ModelConfig { trunk: vec![8], head: 4, head_hidden: vec![], ..Default::default() };
        for step in [10u64, 20, 30] {
            let meta = run::Meta {
                format: run::META_FORMAT,
                step,
                frames: step * 100,
                games: step,
                elapsed_seconds: step as f64,
                next_game_index: step,
                pool_steps: vec![],
                model: model.clone(),
            };
            // A checkpoint as the trainer writes one: the weights and meta.json in its folder.
            let dir = run::checkpoints_dir(&run).join(format!("step-{step:09}"));
            std::fs::create_dir_all(&dir).unwrap();
            Weights::random(&model.tensor_shapes(), step).write(&dir.join("model.safetensors")).unwrap();
            std::fs::write(dir.join("meta.json"), serde_json::to_string(&meta).unwrap()).unwrap();
        }
        let deals = crate::game::generate_deals(4, 1);
        let both = default_opponents();
        assert_eq!(evaluate_run(&run, "dev", &deals[..3], &both, 1, |_| {}).unwrap().len(), 3);
        // The oldest checkpoint is rotated out; the next evaluation uses another deal set.
        std::fs::remove_dir_all(run::list(&run).unwrap()[0].clone()).unwrap();
        assert_eq!(evaluate_run(&run, "dev", &deals, &both, 1, |_| {}).unwrap().len(), 2);
        let csv = std::fs::read_to_string(eval_dir(&run).join("curve.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1 + 5, "3 points on 3 deals and 2 on 4, none dropped:\n{csv}");
        assert_eq!(read_curve(&run).unwrap().len(), 5);
        // Measured points are not played again.
        let mut replayed = 0;
        evaluate_run(&run, "dev", &deals, &both, 1, |_| replayed += 1).unwrap();
        assert_eq!(replayed, 0);
        // Other deals under the same name and size: measured again, in place of the old points.
        let other = crate::game::generate_deals(4, 2);
        assert_eq!(evaluate_run(&run, "dev", &other, &both, 1, |_| replayed += 1).unwrap().len(), 2);
        assert_eq!((replayed, read_curve(&run).unwrap().len()), (2, 5));
        evaluate_run(&run, "dev", &other, &both, 1, |_| replayed += 1).unwrap();
        assert_eq!(replayed, 2, "and then kept");
        evaluate_run(&run, "dev", &deals, &both, 1, |_| replayed += 1).unwrap();
        replayed = 0;
        // Another deal set of the same size, or other opponents, are new points; the rule
        // agent alone under its own label is the same opponent as before.
        evaluate_run(&run, "test", &deals, &both, 1, |_| replayed += 1).unwrap();
        assert_eq!(replayed, 2);
        let rule: Vec<Entry> = vec!["top=rule".parse().unwrap()];
        let points = evaluate_run(&run, "dev", &deals, &rule, 1, |_| replayed += 1).unwrap();
        assert_eq!((replayed, points.len()), (4, 2));
        let p = &points[0];
        assert_eq!(p.vs.len(), 1);
        let earlier =
            read_curve(&run).unwrap().into_iter().find(|q| q.step == p.step && q.vs.len() == 2 && q.deals == 4);
        assert_eq!(p.against("top").map(|v| v.landlord), earlier.unwrap().against("rule").map(|v| v.landlord));
        let csv = std::fs::read_to_string(eval_dir(&run).join("curve.csv")).unwrap();
        let header = csv.lines().next().unwrap();
        assert!(
            header.ends_with(
                "random_landlord_wp,random_farmers_wp,rule_landlord_wp,rule_farmers_wp,top_landlord_wp,top_farmers_wp"
            ),
            "{header}"
        );
        std::fs::remove_dir_all(&run).unwrap();
    }

    #[test]
    fn points_of_the_earlier_form_read_as_opponents() {
        let text = r#"[{"step":5,"frames":50,"games":2,"hours":0.1,"deals":200,"vs_random":[0.9,0.8],
            "vs_rule":[0.6,0.5],"vs_others":[["checkpoint:x",0.4,0.3]],"illegal_plays":0}]"#;
        let points: Vec<CurvePoint> = serde_json::from_str(text).unwrap();
        let p = &points[0];
        assert_eq!(p.deal_set, "dev");
        let names: Vec<&str> = p.vs.iter().map(|v| v.opponent.as_str()).collect();
        assert_eq!(names, ["random", "rule", "checkpoint:x"]);
        assert_eq!(p.against("rule").unwrap().farmers, 0.5);
        let again: Vec<CurvePoint> = serde_json::from_str(&serde_json::to_string(&points).unwrap()).unwrap();
        assert_eq!(again[0].vs, p.vs, "today's form reads back");
    }
}
