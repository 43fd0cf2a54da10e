//! `ddz headroom`: the most any agent can win against RLCard's rule agent on a deal set, the
//! clairvoyant best response of each side ([`crate::search::best_response`]) with every hand
//! open and the agent's every decision known (its random choices as chance nodes). A deal
//! whose search passes the node budget is counted apart, so the figure is an interval: its
//! unfinished deals counted lost, and counted won.

use crate::agents::RlcardAgent;
use crate::game::{Deal, Role};
use crate::search::solver::Position;
use crate::search::{BestResponse, Side};
use serde::Serialize;

/// One side's headroom over a deal set.
#[derive(Clone, Debug, Serialize)]
pub struct SideHeadroom {
    /// `landlord` or `farmers`.
    pub side: &'static str,
    /// Deals searched.
    pub deals: usize,
    /// Deals whose search finished within the budget.
    pub finished: usize,
    /// The mean best-response win chance over the finished deals.
    pub mean_finished: f64,
    /// The headroom with every unfinished deal counted lost: a lower bound on the true one.
    pub low: f64,
    /// With every unfinished deal counted won: an upper bound.
    pub high: f64,
    /// Each deal's win chance, `None` where the search did not finish.
    pub per_deal: Vec<Option<f64>>,
}

/// The headroom of both sides against RLCard's agent on `deals` (seat 0 the landlord, as
/// `ddz eval` seats a deal), each deal's search within `max_nodes` positions, on `threads`
/// threads; `progress` is called after each deal.
pub fn against_rlcard(
    deals: &[Deal],
    max_nodes: u64,
    threads: usize,
    progress: &(dyn Fn() + Sync),
) -> Vec<SideHeadroom> {
    [Side::Landlord, Side::Farmers]
        .into_iter()
        .map(|side| side_headroom(deals, side, max_nodes, threads, progress))
        .collect()
}

fn side_headroom(
    deals: &[Deal],
    side: Side,
    max_nodes: u64,
    threads: usize,
    progress: &(dyn Fn() + Sync),
) -> SideHeadroom {
    let chunk = deals.len().div_ceil(threads.max(1)).max(1);
    let per_deal: Vec<Option<f64>> = std::thread::scope(|s| {
        let workers: Vec<_> = deals
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut policy = RlcardAgent::new(0);
                    let mut search = BestResponse::new(&mut policy, side);
                    part.iter()
                        .map(|deal| {
                            let chance = start(deal).and_then(|pos| search.win_chance_within(&pos, max_nodes));
                            progress();
                            chance
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let finished: Vec<f64> = per_deal.iter().flatten().copied().collect();
    let (n, sum) = (per_deal.len().max(1) as f64, finished.iter().sum::<f64>());
    SideHeadroom {
        side: side.name(),
        deals: per_deal.len(),
        finished: finished.len(),
        mean_finished: if finished.is_empty() { 0.0 } else { sum / finished.len() as f64 },
        low: sum / n,
        high: (sum + (per_deal.len() - finished.len()) as f64) / n,
        per_deal,
    }
}

/// A deal's first position: the landlord (the deal's first hand, with the bottom) to lead
/// (`None` for a deal of another table, which has no such position).
fn start(deal: &Deal) -> Option<Position> {
    let hands = [deal.hands[0].counts().plus(deal.bottom.counts()), deal.hands[1].counts(), deal.hands[2].counts()];
    Position::new(hands.map(Some), Role::Landlord, None).ok()
}
