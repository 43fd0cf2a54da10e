//! The pool of frozen opponents: snapshots of the learner from different stages.

use crate::model::Weights;
use std::sync::Arc;

/// One frozen snapshot of the learner.
#[derive(Clone, Debug)]
pub struct PoolEntry {
    /// Learner step at which the snapshot was taken (its name).
    pub step: u64,
    /// Frames the learner had learned when the snapshot was taken (0 where unknown).
    pub frames: u64,
    /// The snapshot's network weights.
    pub weights: Arc<Weights>,
}

/// Frozen snapshots sorted by step, at most `capacity` of them.
#[derive(Debug, Default)]
pub struct Pool {
    entries: Vec<PoolEntry>,
    capacity: usize,
}

impl Pool {
    /// An empty pool holding at most `capacity` snapshots (at least 1).
    pub fn new(capacity: usize) -> Pool {
        Pool { entries: Vec::new(), capacity: capacity.max(1) }
    }
    /// Snapshots in the pool.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// The pool holds no snapshot.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// The snapshots, oldest step first.
    pub fn entries(&self) -> &[PoolEntry] {
        &self.entries
    }

    /// Adds a snapshot. When full, drops the inner snapshot whose removal leaves the steps most
    /// evenly spread; the oldest and the newest always stay. Returns the dropped one.
    pub fn add(&mut self, entry: PoolEntry) -> Option<PoolEntry> {
        self.entries.push(entry);
        self.entries.sort_by_key(|e| e.step);
        if self.entries.len() <= self.capacity {
            return None;
        }
        let e = &self.entries;
        // With no inner snapshot (two entries or fewer) the oldest goes.
        let drop = (1..e.len().saturating_sub(1)).min_by_key(|&i| e[i + 1].step - e[i - 1].step).unwrap_or(0);
        Some(self.entries.remove(drop))
    }

    /// Uniform draw; `u` in [0, 1).
    pub fn sample(&self, u: f64) -> Option<&PoolEntry> {
        if self.entries.is_empty() {
            return None;
        }
        let i = ((u * self.entries.len() as f64) as usize).min(self.entries.len() - 1);
        Some(&self.entries[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(step: u64) -> PoolEntry {
        PoolEntry { step, frames: step * 10, weights: Arc::new(Weights { version: step, tensors: vec![] }) }
    }

    #[test]
    fn keeps_oldest_newest_and_spread() {
        let mut pool = Pool::new(4);
        for step in [0, 10, 20, 30] {
            assert!(pool.add(entry(step)).is_none());
        }
        let dropped = pool.add(entry(35)).unwrap();
        assert_eq!(dropped.step, 30, "30 sat closest between its neighbours");
        let steps: Vec<u64> = pool.entries().iter().map(|e| e.step).collect();
        assert_eq!(steps, [0, 10, 20, 35]);
        for s in 36..100 {
            pool.add(entry(s));
        }
        assert_eq!(pool.len(), 4);
        assert_eq!(pool.entries()[0].step, 0);
        assert_eq!(pool.entries()[3].step, 99, "always a recent snapshot");
    }

    #[test]
    fn sampling_is_uniform() {
        let mut pool = Pool::new(5);
        for s in 0..5 {
            pool.add(entry(s));
        }
        let mut counts = [0usize; 5];
        for k in 0..5000 {
            let u = (k as f64 + 0.5) / 5000.0;
            counts[pool.sample(u).unwrap().step as usize] += 1;
        }
        assert!(counts.iter().all(|&c| c == 1000), "{counts:?}");
        assert!(Pool::new(3).sample(0.5).is_none());
    }
}
