//! Content hashes of what an evaluation plays: the deals, and each agent's spec with the files
//! it reads (weights, a checkpoint's settings, DouZero's checkpoints, a bot's script).
//!
//! Stored results (the ladder's pairings, a run's curve) are kept under these hashes, not under
//! names: a deal file rewritten under the same name, or other weights behind the same path, get
//! played again instead of the old figures being reported as current.

use crate::agents::AgentSpec;
use crate::game::Deal;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The hash of these deals, in order (hex).
pub fn of_deals(deals: &[Deal]) -> String {
    let mut hash = Sha256::new();
    for deal in deals {
        hash.update(deal.to_json().as_bytes());
        hash.update(b"\n");
    }
    hex(hash)
}

/// The hash of a text (hex): to key what several hashes make together.
pub fn of_text(text: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(text.as_bytes());
    hex(hash)
}

/// The hash of an agent: its full spec (knobs included) and the bytes of every file it reads.
/// A file that cannot be read is an error naming it (the agent could not play either).
pub fn of_agent(spec: &AgentSpec) -> Result<String, std::io::Error> {
    let mut hash = Sha256::new();
    hash.update(format!("{spec:?}").as_bytes());
    for file in files_of(spec)? {
        let bytes = std::fs::read(&file).map_err(|e| named(&file, e))?;
        hash.update(file.file_name().map(|n| n.as_encoded_bytes()).unwrap_or_default());
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    Ok(hex(hash))
}

/// The files an agent reads, in a fixed order: a weights file itself; a checkpoint folder's
/// files (a run folder's newest checkpoint); a DouZero folder's files; the files a bot's
/// command names (its script).
fn files_of(spec: &AgentSpec) -> Result<Vec<PathBuf>, std::io::Error> {
    let places: Vec<PathBuf> = match spec {
        AgentSpec::Douzero(dir) => vec![dir.clone()],
        AgentSpec::Bot(command, _) => command.split_whitespace().map(PathBuf::from).filter(|p| p.is_file()).collect(),
        other => other.network().map(Path::to_path_buf).into_iter().collect(),
    };
    let mut files = Vec::new();
    for place in places {
        if place.is_file() {
            files.push(place);
            continue;
        }
        let dir = match crate::run::latest(&place) {
            Ok(checkpoint) if crate::run::checkpoints_dir(&place).is_dir() => checkpoint,
            _ => place,
        };
        let mut inside: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| named(&dir, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        inside.sort();
        files.extend(inside);
    }
    Ok(files)
}

fn named(path: &Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

fn hex(hash: Sha256) -> String {
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_behind_the_same_name_changes_the_hash() {
        let dir = std::env::temp_dir().join(format!("ddz-content-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let weights = dir.join("model.safetensors");
        std::fs::write(&weights, b"one").unwrap();
        let spec: AgentSpec = format!("checkpoint:{}", weights.display()).parse().unwrap();
        let first = of_agent(&spec).unwrap();
        assert_eq!(of_agent(&spec).unwrap(), first, "the same content, the same hash");
        std::fs::write(&weights, b"two").unwrap();
        assert_ne!(of_agent(&spec).unwrap(), first);
        let folder: AgentSpec = format!("checkpoint:{}", dir.display()).parse().unwrap();
        let before = of_agent(&folder).unwrap();
        std::fs::write(dir.join("meta.json"), b"{}").unwrap();
        assert_ne!(of_agent(&folder).unwrap(), before, "a checkpoint folder's every file counts");
        let knobs: AgentSpec = format!("pimc:{}?worlds=3", weights.display()).parse().unwrap();
        assert_ne!(of_agent(&knobs).unwrap(), of_agent(&spec).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
        let e = of_agent(&spec).unwrap_err().to_string();
        assert!(e.contains("model.safetensors"), "{e}");

        let deals = crate::game::generate_deals(3, 1);
        assert_eq!(of_deals(&deals), of_deals(&crate::game::generate_deals(3, 1)));
        assert_ne!(of_deals(&deals), of_deals(&deals[..2]));
        assert_ne!(of_deals(&deals), of_deals(&crate::game::generate_deals(3, 2)));
    }
}
