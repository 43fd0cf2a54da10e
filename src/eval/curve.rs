//! Learning curves: every checkpoint of a run against fixed opponents (random and rule) on fixed
//! deals, written as `RUN/eval/curve.csv`, `curve.json`, TensorBoard scalars (`RUN/tb-eval`) and
//! a PNG plot (`RUN/eval/curve.png`). Checkpoints already in `curve.json` are not played again.

use super::{EvalError, evaluate};
use crate::agents::AgentSpec;
use crate::game::{Deal, default_deals};
use crate::run::{self, eval_dir};
use indicatif::ProgressBar;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// One checkpoint on the learning curve: where the run stood and its results on one deal set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CurvePoint {
    /// The checkpoint's learner step.
    pub step: u64,
    /// Frames learned by then.
    pub frames: u64,
    /// Finished games the learner had taken in by then.
    pub games: u64,
    /// Training time when the checkpoint was written.
    pub hours: f64,
    /// Deals played, each in both seatings.
    pub deals: usize,
    /// (WP as landlord, WP as farmers) against each opponent.
    pub vs_random: (f64, f64),
    /// (WP as landlord, WP as farmers) against the rule agent.
    pub vs_rule: (f64, f64),
    /// Further opponents (e.g. snapshots of another run): (name, landlord WP, farmers WP).
    #[serde(default)]
    pub vs_others: Vec<(String, f64, f64)>,
    /// Illegal answers over all these games, of both sides.
    pub illegal_plays: u32,
}

/// Evaluates the checkpoints of `run` not yet measured on these deals against these opponents,
/// and adds them to the curve files, which keep every point ever measured (also of checkpoints
/// since deleted, and on other deal sets). Returns the points of this deal set and opponents.
pub fn evaluate_run(
    run: &Path,
    deals: &[Deal],
    others: &[AgentSpec],
    threads: usize,
    mut progress: impl FnMut(&CurvePoint),
) -> Result<Vec<CurvePoint>, EvalError> {
    let mut points = read_curve(run)?;
    let same_others = |p: &CurvePoint| {
        p.vs_others.len() == others.len() && p.vs_others.iter().zip(others).all(|(o, spec)| spec.is_named(&o.0))
    };
    let same_set = |p: &CurvePoint| p.deals == deals.len() && same_others(p);
    let checkpoints = run::list(run)?;
    if checkpoints.is_empty() {
        return Err(run::RunError::None(run::checkpoints_dir(run)).into());
    }
    for dir in checkpoints {
        if crate::runtime::interrupted() {
            break; // what was measured so far is written below
        }
        let meta = run::read_meta(&dir)?;
        if points.iter().any(|p| p.step == meta.step && same_set(p)) {
            continue;
        }
        let point = evaluate_checkpoint(&dir, &meta, deals, others, threads)?;
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

/// One checkpoint against random, rule and `others`.
fn evaluate_checkpoint(
    dir: &Path,
    meta: &run::Meta,
    deals: &[Deal],
    others: &[AgentSpec],
    threads: usize,
) -> Result<CurvePoint, EvalError> {
    let me = AgentSpec::Checkpoint(dir.to_path_buf());
    let hidden = ProgressBar::hidden(); // evaluate_run reports each checkpoint instead
    let random = evaluate(&me, &AgentSpec::Random, deals, threads, &hidden)?;
    let rule = evaluate(&me, &AgentSpec::Rule, deals, threads, &hidden)?;
    let mut vs_others = Vec::new();
    let mut illegal = random.illegal_plays() + rule.illegal_plays();
    for o in others {
        let m = evaluate(&me, o, deals, threads, &hidden)?;
        illegal += m.illegal_plays();
        vs_others.push((o.to_string(), m.a_as_landlord.wp.mean, m.a_as_farmers.wp.mean));
    }
    Ok(CurvePoint {
        step: meta.step,
        frames: meta.frames,
        games: meta.games,
        hours: meta.elapsed_seconds / 3600.0,
        deals: deals.len(),
        vs_random: (random.a_as_landlord.wp.mean, random.a_as_farmers.wp.mean),
        vs_rule: (rule.a_as_landlord.wp.mean, rule.a_as_farmers.wp.mean),
        vs_others,
        illegal_plays: illegal,
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
            let deals: Vec<Deal> = default_deals().into_iter().take(n).collect();
            if let Err(e) = evaluate_run(&run, &deals, &[], 1, |_| {}) {
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
    let mut csv = String::from(
        "step,frames,games,hours,deals,illegal_plays,random_landlord_wp,random_farmers_wp,rule_landlord_wp,rule_farmers_wp",
    );
    let widest = points.iter().map(|p| p.vs_others.len()).max().unwrap_or(0);
    for k in 0..widest {
        csv.push_str(&format!(",other{k}_landlord_wp,other{k}_farmers_wp"));
    }
    csv.push('\n');
    for p in points {
        csv.push_str(&format!(
            "{},{},{},{:.4},{},{},{:.4},{:.4},{:.4},{:.4}",
            p.step,
            p.frames,
            p.games,
            p.hours,
            p.deals,
            p.illegal_plays,
            p.vs_random.0,
            p.vs_random.1,
            p.vs_rule.0,
            p.vs_rule.1
        ));
        for o in &p.vs_others {
            csv.push_str(&format!(",{:.4},{:.4}", o.1, o.2));
        }
        csv.push_str(&",,".repeat(widest - p.vs_others.len()));
        csv.push('\n');
    }
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, text)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| EvalError::Curve { path: path.clone(), reason: e.into() })
    };
    write("curve.csv", csv)?;
    let json = serde_json::to_string_pretty(points)
        .map_err(|e| EvalError::Curve { path: dir.join("curve.json"), reason: e.into() })?;
    write("curve.json", json)?;
    let mut tb = tensorboard_rs::summary_writer::SummaryWriter::new(run.join("tb-eval"));
    if let Some(p) = points.last() {
        let s = p.frames as usize;
        tb.add_scalar("wp_vs_random/landlord", p.vs_random.0 as f32, s);
        tb.add_scalar("wp_vs_random/farmers", p.vs_random.1 as f32, s);
        tb.add_scalar("wp_vs_rule/landlord", p.vs_rule.0 as f32, s);
        tb.add_scalar("wp_vs_rule/farmers", p.vs_rule.1 as f32, s);
        tb.flush();
    }
    Ok(())
}

/// Renders `RUN/eval/curve.csv` to `curve.png` with the project venv's matplotlib (installed
/// there on first use): the points measured on `deals` deals.
pub fn plot(run: &Path, deals: usize) -> Result<PathBuf, EvalError> {
    let csv = eval_dir(run).join("curve.csv");
    let png = eval_dir(run).join("curve.png");
    let deals = deals.to_string();
    let args = [csv.as_os_str(), png.as_os_str(), "--deals".as_ref(), deals.as_ref()];
    crate::run::run_plot_script("plot_curve.py", &args).map_err(EvalError::Plot)?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ModelConfig, QNet};

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
            run::save(&run, &QNet::cpu(&model, step), &meta, 10).unwrap();
        }
        let deals = crate::game::generate_deals(4, 1);
        assert_eq!(evaluate_run(&run, &deals[..3], &[], 1, |_| {}).unwrap().len(), 3);
        // The oldest checkpoint is rotated out; the next evaluation uses another deal set.
        std::fs::remove_dir_all(run::list(&run).unwrap()[0].clone()).unwrap();
        assert_eq!(evaluate_run(&run, &deals, &[], 1, |_| {}).unwrap().len(), 2);
        let csv = std::fs::read_to_string(eval_dir(&run).join("curve.csv")).unwrap();
        assert_eq!(csv.lines().count(), 1 + 5, "3 points on 3 deals and 2 on 4, none dropped:\n{csv}");
        assert_eq!(read_curve(&run).unwrap().len(), 5);
        // Measured points are not played again.
        let mut replayed = 0;
        evaluate_run(&run, &deals, &[], 1, |_| replayed += 1).unwrap();
        assert_eq!(replayed, 0);
        std::fs::remove_dir_all(&run).unwrap();
    }
}
