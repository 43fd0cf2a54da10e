//! `ddz logs`, `ddz deals` and `ddz export`: the game log and deal files other commands read,
//! and networks written for other programs.

use super::args::LogsWhat;
use super::report::{self, Checked, Imported, Synthetic};
use anyhow::{Context, Result, bail};
use std::path::Path;

/// Imports, writes or checks game logs.
pub fn logs(what: LogsWhat) -> Result<()> {
    use ddz::logs;
    match what {
        LogsWhat::Import { from: _, files, out, skip_invalid } => {
            let (good, bad) = logs::import_files(&files, skip_invalid)
                .map_err(|e| anyhow::anyhow!("{e} (use --skip-invalid to leave such games out)"))?;
            for e in &bad {
                eprintln!("skipped {e}");
            }
            ddz::files::write(&out, logs::to_jsonl(&good)).with_context(|| format!("writing {}", out.display()))?;
            report::show(&Imported { games: good.len(), out, skipped: bad.len() }, false)?;
        }
        LogsWhat::Selfplay { agent, games, seed, out } => {
            const MOST: usize = 1_000_000; // about 1 KB a game log, held until written
            if games > MOST {
                bail!("--games {games}: at most {MOST} games a file (make more files with other --seed)");
            }
            let mut a = agent.build()?;
            let (games, illegal) = ddz::logs::selfplay_logs(a.as_mut(), games, seed, &format!("synthetic:{agent}"))?;
            ddz::files::write(&out, logs::to_jsonl(&games)).with_context(|| format!("writing {}", out.display()))?;
            report::show(&Synthetic { games: games.len(), agent: agent.to_string(), out }, false)?;
            if illegal > 0 {
                bail!("{agent} gave {illegal} illegal answers (the first legal play was made instead)");
            }
        }
        LogsWhat::Check { file } => {
            let (good, bad) = logs::read_logs(&file, true)?;
            for e in &bad {
                eprintln!("{e}");
            }
            report::show(&Checked { file, valid: good.len(), invalid: bad.len() }, false)?;
            if !bad.is_empty() {
                bail!("{} invalid game(s)", bad.len());
            }
        }
    }
    Ok(())
}

/// Writes `n` deals drawn from `seed` to `out`.
pub fn deals(n: usize, seed: u64, out: &Path) -> Result<()> {
    if n > ddz::game::MOST_DEALS {
        bail!("--n {n}: at most {} deals a file (make more files with other --seed)", ddz::game::MOST_DEALS);
    }
    ddz::game::write_deals(out, &ddz::game::generate_deals(n, seed))
        .with_context(|| format!("writing {}", out.display()))?;
    eprintln!("wrote {n} deals (seed {seed}) to {}", out.display());
    Ok(())
}

/// Writes `model` as ONNX and its golden vectors, as asked.
pub fn export(model: &Path, onnx: Option<&Path>, golden: Option<&Path>, positions: usize, seed: u64) -> Result<()> {
    let mut files = Vec::new();
    if let Some(out) = onnx {
        files.extend(ddz::export::export_onnx(model, out)?);
    }
    if let Some(out) = golden {
        let vectors = ddz::export::golden(model, positions, seed)?;
        let mut text = String::new();
        for g in &vectors {
            text.push_str(&serde_json::to_string(g)?);
            text.push('\n');
        }
        ddz::files::write(out, text).with_context(|| format!("writing {}", out.display()))?;
        files.push(out.to_path_buf());
    }
    report::show(&report::Exported { files }, false)
}
