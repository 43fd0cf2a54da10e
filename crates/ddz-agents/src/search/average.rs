//! Scores averaged over sampled worlds: what PIMC and alpha-beta over drawn worlds both do with
//! the scores of their candidates, world by world.

/// Running sums of each candidate's score over the worlds scored so far.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldMeans {
    totals: Vec<f64>,
    worlds: usize,
}

impl WorldMeans {
    /// No world scored yet, for `candidates` candidates.
    pub fn new(candidates: usize) -> WorldMeans {
        WorldMeans { totals: vec![0.0; candidates], worlds: 0 }
    }

    /// Adds the candidates' scores (in order) summed over `worlds` more worlds.
    pub fn add(&mut self, scores: impl IntoIterator<Item = f64>, worlds: usize) {
        self.totals.iter_mut().zip(scores).for_each(|(t, s)| *t += s);
        self.worlds += worlds;
    }

    /// How many worlds have been scored.
    pub fn worlds(&self) -> usize {
        self.worlds
    }

    /// Each candidate's mean score; `None` when no world was scored.
    pub fn means(self) -> Option<Vec<f64>> {
        let worlds = self.worlds;
        (worlds > 0).then(|| self.totals.into_iter().map(|t| t / worlds as f64).collect())
    }
}
