//! Agents by name, as the command line and reports name them: `random`, `rule`,
//! `checkpoint:PATH` (a checkpoint folder, a `.safetensors` file, or a run folder: its newest
//! checkpoint), or `pimc:PATH` with optional knobs
//! (`pimc:PATH?worlds=16&top=4&cards=20&max_nodes=200000`, the defaults): the network at PATH
//! with perfect-information Monte Carlo search in the endgame ([`super::pimc`]).

use super::{Agent, ModelAgent, PimcAgent, PimcSettings, RandomAgent, RuleAgent};
use crate::model::WeightsError;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    Random,
    Rule,
    Checkpoint(PathBuf),
    Pimc(PathBuf, PimcSettings),
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("unknown agent {0:?}: use random, rule, checkpoint:PATH or pimc:PATH[?worlds=N&top=N&cards=N&max_nodes=N]")]
    Unknown(String),
    #[error("agent {spec:?}: {reason}")]
    Setting { spec: String, reason: String },
    #[error(transparent)]
    Weights(#[from] WeightsError),
    #[error(transparent)]
    Run(#[from] crate::run::RunError),
}

impl std::str::FromStr for AgentSpec {
    type Err = AgentError;
    fn from_str(s: &str) -> Result<AgentSpec, AgentError> {
        match s.trim() {
            "random" => Ok(AgentSpec::Random),
            "rule" => Ok(AgentSpec::Rule),
            other => {
                if let Some(rest) = other.strip_prefix("pimc:") {
                    return pimc(other, rest);
                }
                match other.strip_prefix("checkpoint:") {
                    Some(path) if !path.is_empty() => Ok(AgentSpec::Checkpoint(PathBuf::from(path))),
                    _ => Err(AgentError::Unknown(other.to_string())),
                }
            }
        }
    }
}

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentSpec::Random => write!(f, "random"),
            AgentSpec::Rule => write!(f, "rule"),
            AgentSpec::Checkpoint(p) => write!(f, "checkpoint:{}", p.display()),
            AgentSpec::Pimc(p, s) => {
                write!(
                    f,
                    "pimc:{}?worlds={}&top={}&cards={}&max_nodes={}",
                    p.display(),
                    s.worlds,
                    s.top,
                    s.cards,
                    s.max_nodes
                )
            }
        }
    }
}

impl AgentSpec {
    /// The agent, ready to play (a checkpoint's network is loaded on the CPU).
    pub fn build(&self) -> Result<Box<dyn Agent>, AgentError> {
        Ok(match self {
            AgentSpec::Random => Box::new(RandomAgent::new(0)),
            AgentSpec::Rule => Box::new(RuleAgent::new()),
            AgentSpec::Checkpoint(p) => Box::new(network(p, self)?),
            AgentSpec::Pimc(p, settings) => Box::new(PimcAgent::new(network(p, self)?, *settings, self.to_string())),
        })
    }
}

/// The network agent of PATH; a run folder stands for its newest checkpoint.
fn network(path: &std::path::Path, spec: &AgentSpec) -> Result<ModelAgent, AgentError> {
    let file = if crate::run::checkpoints_dir(path).is_dir() { crate::run::latest(path)? } else { path.to_path_buf() };
    Ok(ModelAgent::new(crate::model::load_network(&file)?, spec.to_string()))
}

/// `pimc:PATH?key=value&…`: the knobs by name, each a whole number.
fn pimc(spec: &str, rest: &str) -> Result<AgentSpec, AgentError> {
    let setting = |reason: String| AgentError::Setting { spec: spec.to_string(), reason };
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    if path.is_empty() {
        return Err(setting("no network path".into()));
    }
    let mut s = PimcSettings::default();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').ok_or_else(|| setting(format!("{pair:?} is not key=value")))?;
        let n: u64 = value.parse().map_err(|_| setting(format!("{key}: {value:?} is not a whole number")))?;
        if n == 0 {
            return Err(setting(format!("{key} must be at least 1")));
        }
        match key {
            "worlds" => s.worlds = n as usize,
            "top" => s.top = n as usize,
            "cards" => s.cards = n.min(54) as u32,
            "max_nodes" => s.max_nodes = n,
            _ => return Err(setting(format!("unknown knob {key:?}: worlds, top, cards, max_nodes"))),
        }
    }
    Ok(AgentSpec::Pimc(PathBuf::from(path), s))
}

#[cfg(test)]
mod tests {
    use super::AgentSpec;

    #[test]
    fn specs_parse_and_print() {
        assert!("checkpoint:".parse::<AgentSpec>().is_err());
        assert!("rul".parse::<AgentSpec>().unwrap_err().to_string().contains("random, rule"));
        assert_eq!("checkpoint:x/y".parse::<AgentSpec>().unwrap(), AgentSpec::Checkpoint("x/y".into()));
        assert_eq!(" rule ".parse::<AgentSpec>().unwrap().to_string(), "rule");
        let pimc: AgentSpec = "pimc:m/x.safetensors?worlds=8&cards=15".parse().unwrap();
        assert_eq!(pimc.to_string(), "pimc:m/x.safetensors?worlds=8&top=4&cards=15&max_nodes=200000");
        assert_eq!(pimc.to_string().parse::<AgentSpec>().unwrap(), pimc, "the name round-trips");
        for bad in ["pimc:", "pimc:m?worlds=x", "pimc:m?depth=3", "pimc:m?top=0", "pimc:m?worlds"] {
            assert!(bad.parse::<AgentSpec>().is_err(), "{bad}");
        }
    }
}
