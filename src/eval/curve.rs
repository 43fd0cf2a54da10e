//! Learning curves: every checkpoint of a run against fixed opponents (random and rule) on fixed
//! deals, written as `RUN/eval/curve.csv`, `curve.json`, TensorBoard scalars (`RUN/tb-eval`) and
//! a PNG plot (`RUN/eval/curve.png`). Checkpoints already in `curve.json` are not played again.

use super::{AgentSpec, Deal, evaluate};
use crate::train::checkpoint;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CurvePoint {
    pub step: u64,
    pub frames: u64,
    pub games: u64,
    /// Training time when the checkpoint was written.
    pub hours: f64,
    pub deals: usize,
    /// (WP as landlord, WP as farmers) against each opponent.
    pub vs_random: (f64, f64),
    pub vs_rule: (f64, f64),
    /// Further opponents (e.g. snapshots of another run): (name, landlord WP, farmers WP).
    #[serde(default)]
    pub vs_others: Vec<(String, f64, f64)>,
    pub illegal_plays: u32,
}

fn eval_dir(run: &Path) -> PathBuf {
    run.join("eval")
}

/// Evaluates the checkpoints of `run` not yet in its curve; returns the whole curve.
pub fn evaluate_run(run: &Path, deals: &[Deal], others: &[AgentSpec], threads: usize, mut progress: impl FnMut(&CurvePoint)) -> Result<Vec<CurvePoint>, String> {
    let json_path = eval_dir(run).join("curve.json");
    let mut points: Vec<CurvePoint> = match std::fs::read_to_string(&json_path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json_path.display()))?,
        Err(_) => Vec::new(),
    };
    let other_names: Vec<String> = others.iter().map(|o| o.to_string()).collect();
    points.retain(|p| p.deals == deals.len() && p.vs_others.iter().map(|o| &o.0).eq(other_names.iter()));
    let checkpoints = checkpoint::list(run).map_err(|e| e.to_string())?;
    if checkpoints.is_empty() {
        return Err(format!("no checkpoints in {}", checkpoint::checkpoints_dir(run).display()));
    }
    for dir in checkpoints {
        let meta = checkpoint::read_meta(&dir).map_err(|e| e.to_string())?;
        if points.iter().any(|p| p.step == meta.step) {
            continue;
        }
        let me = AgentSpec::Checkpoint(dir.clone());
        let random = evaluate(&me, &AgentSpec::Random, deals, threads)?;
        let rule = evaluate(&me, &AgentSpec::Rule, deals, threads)?;
        let mut vs_others = Vec::new();
        let mut illegal = random.illegal_plays() + rule.illegal_plays();
        for (o, name) in others.iter().zip(&other_names) {
            let m = evaluate(&me, o, deals, threads)?;
            illegal += m.illegal_plays();
            vs_others.push((name.clone(), m.a_as_landlord.wp.mean, m.a_as_farmers.wp.mean));
        }
        let point = CurvePoint {
            step: meta.step,
            frames: meta.frames,
            games: meta.games,
            hours: meta.elapsed_seconds / 3600.0,
            deals: deals.len(),
            vs_random: (random.a_as_landlord.wp.mean, random.a_as_farmers.wp.mean),
            vs_rule: (rule.a_as_landlord.wp.mean, rule.a_as_farmers.wp.mean),
            vs_others,
            illegal_plays: illegal,
        };
        progress(&point);
        points.push(point);
        points.sort_by_key(|p| p.step);
        write_curve(run, &points)?;
    }
    write_curve(run, &points)?;
    Ok(points)
}

fn write_curve(run: &Path, points: &[CurvePoint]) -> Result<(), String> {
    let dir = eval_dir(run);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut csv = String::from("step,frames,games,hours,deals,illegal_plays,random_landlord_wp,random_farmers_wp,rule_landlord_wp,rule_farmers_wp");
    if let Some(p) = points.first() {
        for (k, _) in p.vs_others.iter().enumerate() {
            csv.push_str(&format!(",other{k}_landlord_wp,other{k}_farmers_wp"));
        }
    }
    csv.push('\n');
    for p in points {
        csv.push_str(&format!(
            "{},{},{},{:.4},{},{},{:.4},{:.4},{:.4},{:.4}",
            p.step, p.frames, p.games, p.hours, p.deals, p.illegal_plays, p.vs_random.0, p.vs_random.1, p.vs_rule.0, p.vs_rule.1
        ));
        for o in &p.vs_others {
            csv.push_str(&format!(",{:.4},{:.4}", o.1, o.2));
        }
        csv.push('\n');
    }
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, text).and_then(|_| std::fs::rename(&tmp, &path)).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("curve.csv", csv)?;
    write("curve.json", serde_json::to_string_pretty(points).unwrap())?;
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
/// there on first use).
pub fn plot(run: &Path) -> Result<PathBuf, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(".venv/bin/python");
    let script = root.join("scripts/plot_curve.py");
    let has = || std::process::Command::new(&python).args(["-c", "import matplotlib"]).output().is_ok_and(|o| o.status.success());
    if !has() {
        eprintln!("installing matplotlib into the project venv for plots (first use only)");
        let ok = std::process::Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "matplotlib"])
            .status()
            .is_ok_and(|s| s.success());
        if !ok || !has() {
            return Err("could not install matplotlib into the venv".into());
        }
    }
    let csv = eval_dir(run).join("curve.csv");
    let png = eval_dir(run).join("curve.png");
    let out = std::process::Command::new(&python).arg(&script).arg(&csv).arg(&png).output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("plotting failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(png)
}
