//! Agents by name, as the command line and reports name them: `random`, `rule` or
//! `checkpoint:PATH` (a checkpoint folder, a `.safetensors` file, or a run folder: its newest
//! checkpoint).

use super::{Agent, ModelAgent, RandomAgent, RuleAgent};
use crate::model::WeightsError;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum AgentSpec {
    Random,
    Rule,
    Checkpoint(PathBuf),
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("unknown agent {0:?}: use random, rule or checkpoint:PATH")]
    Unknown(String),
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
            other => match other.strip_prefix("checkpoint:") {
                Some(path) if !path.is_empty() => Ok(AgentSpec::Checkpoint(PathBuf::from(path))),
                _ => Err(AgentError::Unknown(other.to_string())),
            },
        }
    }
}

impl std::fmt::Display for AgentSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AgentSpec::Random => write!(f, "random"),
            AgentSpec::Rule => write!(f, "rule"),
            AgentSpec::Checkpoint(p) => write!(f, "checkpoint:{}", p.display()),
        }
    }
}

impl AgentSpec {
    /// The agent, ready to play (a checkpoint's network is loaded on the CPU).
    pub fn build(&self) -> Result<Box<dyn Agent>, AgentError> {
        Ok(match self {
            AgentSpec::Random => Box::new(RandomAgent::new(0)),
            AgentSpec::Rule => Box::new(RuleAgent::new()),
            AgentSpec::Checkpoint(p) => {
                // A run folder stands for its newest checkpoint.
                let path = if crate::run::checkpoints_dir(p).is_dir() { crate::run::latest(p)? } else { p.clone() };
                let net = crate::model::load_network(&path)?;
                Box::new(ModelAgent::new(net, self.to_string()))
            }
        })
    }
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
    }
}
