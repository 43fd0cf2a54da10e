//! Round robin: every pair of agents on the same deals, both seatings; a WP/ADP matrix and an
//! Elo-scale rating per agent from a Bradley–Terry fit of the pairwise results.

use super::{EvalError, MatchReport, evaluate};
use crate::agents::AgentSpec;
use crate::game::Deal;
use serde::Serialize;

/// A round robin's result: pairwise WP and ADP, ratings, and every match.
#[derive(Debug, Serialize)]
pub struct League {
    /// The agents' specs, in the order of the rows and columns.
    pub agents: Vec<String>,
    /// wp[i][j]: WP of agent i against agent j (both seatings); NaN on the diagonal.
    pub wp: Vec<Vec<f64>>,
    /// `adp[i][j]`: ADP of agent i against agent j (both seatings); NaN on the diagonal.
    pub adp: Vec<Vec<f64>>,
    /// Elo-scale ratings (mean 1500).
    pub rating: Vec<f64>,
    /// Each pair's match, (0, 1), (0, 2), …, (1, 2), …, the first agent of each pair as A.
    pub matches: Vec<MatchReport>,
}

/// Plays every pair of `agents` on `deals` (both seatings) on `threads` threads, with a progress
/// bar; fewer than two agents is an error.
pub fn round_robin(agents: &[AgentSpec], deals: &[Deal], threads: usize) -> Result<League, EvalError> {
    let n = agents.len();
    if n < 2 {
        return Err(EvalError::LeagueTooSmall);
    }
    let progress = super::progress_bar((n * (n - 1) * deals.len()) as u64);
    let mut wp = vec![vec![f64::NAN; n]; n];
    let mut adp = vec![vec![f64::NAN; n]; n];
    let mut matches = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            let m = evaluate(&agents[i], &agents[j], deals, threads, &progress)?;
            wp[i][j] = m.overall.wp.mean;
            wp[j][i] = 1.0 - m.overall.wp.mean;
            adp[i][j] = m.overall.adp.mean;
            adp[j][i] = -m.overall.adp.mean;
            matches.push(m);
        }
    }
    let rating = bradley_terry(&wp);
    progress.finish_and_clear();
    Ok(League { agents: agents.iter().map(|a| a.to_string()).collect(), wp, adp, rating, matches })
}

/// Strengths s with P(i beats j) = s_i / (s_i + s_j), fitted by the MM iteration on the win
/// shares (a half game is added to each pair so that a clean sweep stays finite).
fn bradley_terry(wp: &[Vec<f64>]) -> Vec<f64> {
    let n = wp.len();
    let mut s = vec![1.0f64; n];
    for _ in 0..500 {
        let next: Vec<f64> = (0..n)
            .map(|i| {
                let wins: f64 = (0..n).filter(|&j| j != i).map(|j| wp[i][j] + 0.01).sum();
                let denom: f64 = (0..n).filter(|&j| j != i).map(|j| 1.02 / (s[i] + s[j])).sum();
                wins / denom
            })
            .collect();
        let mean_log = next.iter().map(|v| v.ln()).sum::<f64>() / n as f64;
        s = next.iter().map(|v| (v.ln() - mean_log).exp()).collect();
    }
    s.iter().map(|v| 1500.0 + 400.0 * v.log10()).collect()
}

impl League {
    /// The WP matrix as a Markdown table, each cell with its ADP, and a rating column.
    pub fn markdown(&self) -> String {
        let mut out = String::from("| WP (row vs column) |");
        for a in &self.agents {
            out.push_str(&format!(" {a} |"));
        }
        out.push_str(" rating |\n|---|");
        out.push_str(&"---:|".repeat(self.agents.len() + 1));
        out.push('\n');
        for (i, a) in self.agents.iter().enumerate() {
            out.push_str(&format!("| {a} |"));
            for j in 0..self.agents.len() {
                if i == j {
                    out.push_str(" — |");
                } else {
                    out.push_str(&format!(" {:.3} (ADP {:+.2}) |", self.wp[i][j], self.adp[i][j]));
                }
            }
            out.push_str(&format!(" {:.0} |\n", self.rating[i]));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratings_order_agents_by_strength() {
        let wp = vec![vec![f64::NAN, 0.9, 0.95], vec![0.1, f64::NAN, 0.6], vec![0.05, 0.4, f64::NAN]];
        let r = bradley_terry(&wp);
        assert!(r[0] > r[1] && r[1] > r[2], "{r:?}");
        assert!((r.iter().sum::<f64>() / 3.0 - 1500.0).abs() < 1e-6);
    }
}
