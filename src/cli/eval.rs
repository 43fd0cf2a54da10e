//! `ddz eval`, `ddz ladder`, `ddz replay`, `ddz check-decisions` and `ddz evaluate-hands`: how
//! strong agents are, and what they do.

use super::args::{EvalArgs, LadderArgs};
use super::report::{self, Curve, Decisions, Evaluation, Report, Text};
use anyhow::{Context, Result, bail};
use ddz::agents::{Agent, AgentSpec};
use ddz::game::{Deal, DealSource, Rules};
use std::path::Path;

/// Refuses (or, allowed, warns of) a deal set that repeats a deal.
fn distinct_deals(deals: &[Deal], source: &DealSource, allow: bool) -> Result<()> {
    let Some((first, again)) = ddz::game::first_repeat(deals) else { return Ok(()) };
    let what = format!(
        "{source}: deal {} is deal {} again; every deal counts as an independent sample, so repeats \
         narrow the 95% intervals without adding information",
        again + 1,
        first + 1
    );
    if !allow {
        bail!("{what}. Remove the repeats, or pass --allow-duplicates to play them anyway");
    }
    eprintln!("warning: {what} (--allow-duplicates)");
    Ok(())
}

/// The deals a command plays under `rules`: the set, its first `n`, refused if it repeats a
/// deal unless allowed.
fn load_deals(source: &DealSource, rules: Rules, n: Option<usize>, allow_duplicates: bool) -> Result<Vec<Deal>> {
    let mut deals = source.load_for(rules)?;
    if let Some(n) = n {
        deals.truncate(n);
    }
    distinct_deals(&deals, source, allow_duplicates)?;
    Ok(deals)
}

/// `--threads`, or every core.
pub fn threads_or_all(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

/// A match, a bidding match, a league, or every checkpoint of a run (`--run`).
pub fn eval(args: EvalArgs) -> Result<()> {
    // A run's checkpoints play the rules they were trained for, on that rules' deals.
    let rules = args.run.as_deref().map_or(args.rules, ddz::eval::curve::run_rules);
    let deals = load_deals(&args.deals, rules, args.n, args.allow_duplicates)?;
    let threads = threads_or_all(args.threads);
    for (flag, spec) in [("--a", &args.a), ("--b", &args.b)] {
        if let Some(spec) = spec {
            spec.check_rules(rules).with_context(|| flag.to_string())?;
        }
    }
    let (illegal, markdown, mut json) = if let Some(run) = &args.run {
        let opponents =
            if args.opponents.is_empty() { ddz::eval::curve::default_opponents() } else { args.opponents.clone() };
        return eval_run(run, &args.deals.to_string(), &deals, &opponents, threads);
    } else if let Some(agents) = &args.league {
        let league = ddz::eval::league::round_robin(agents, &deals, threads)?;
        let illegal: u32 = league.matches.iter().map(|m| m.illegal_plays()).sum();
        (illegal, league.markdown(), serde_json::to_value(&league)?)
    } else if args.bidding {
        let (a, b) = (args.a.as_ref().expect("clap requires --a"), args.b.as_ref().expect("clap requires --b"));
        let progress = ddz::eval::progress_bar(6 * deals.len() as u64);
        use ddz::eval::bidding::{Bidding, evaluate_bidding};
        let (a, b) = (Bidding { agent: a, bidder: &args.bidder_a }, Bidding { agent: b, bidder: &args.bidder_b });
        let report = evaluate_bidding(&a, &b, &deals, args.all_pass.into(), &progress)?;
        progress.finish_and_clear();
        (report.illegal, report.markdown(), serde_json::to_value(&report)?)
    } else {
        let (a, b) = (args.a.as_ref().expect("clap requires --a"), args.b.as_ref().expect("clap requires --b"));
        let progress = ddz::eval::progress_bar(2 * deals.len() as u64);
        let report = ddz::eval::evaluate_under(args.rules, a, b, &deals, threads, &progress, args.spring)?;
        progress.finish_and_clear();
        (report.illegal_plays(), report.markdown(), serde_json::to_value(&report)?)
    };
    // Every report names its deal set: `dev` for choosing, `test` for reporting.
    let set = format!("{} ({} deals)", args.deals, deals.len());
    let markdown = format!("Deal set: {set}.\n\n{markdown}");
    if let Some(fields) = json.as_object_mut() {
        fields.insert("deal_set".into(), serde_json::Value::String(set));
    }
    let evaluation = Evaluation { markdown, json };
    report::show(&evaluation, false)?;
    if let Some(path) = &args.json {
        ddz::files::write(path, evaluation.json()?).with_context(|| format!("writing {}", path.display()))?;
    }
    if let Some(path) = &args.markdown {
        ddz::files::write(path, &evaluation.markdown).with_context(|| format!("writing {}", path.display()))?;
    }
    if illegal > 0 {
        bail!("{illegal} illegal plays");
    }
    Ok(())
}

fn eval_run(
    run: &Path,
    deal_set: &str,
    deals: &[Deal],
    opponents: &[ddz::eval::ladder::Entry],
    threads: usize,
) -> Result<()> {
    ddz::process::stop_cleanly_on_signals("after the checkpoint being played");
    super::python::install_plotting();
    let points = ddz::eval::curve::evaluate_run(run, deal_set, deals, opponents, threads, |p| {
        let vs: Vec<String> =
            p.vs.iter().map(|v| format!("vs {} L {:.3} F {:.3}", v.opponent, v.landlord, v.farmers)).collect();
        eprintln!("step {:>8} ({:.2} h): {}", p.step, p.hours, vs.join(" | "))
    })?;
    let illegal_plays: u32 = points.iter().map(|p| p.illegal_plays).sum();
    let png = match ddz::eval::curve::plot(run, deals.len()) {
        Ok(png) => Some(png),
        Err(e) => {
            eprintln!("{e} (the curve is in {}/eval/curve.csv)", run.display());
            None
        }
    };
    report::show(&Curve { checkpoints: points.len(), deals: deals.len(), illegal_plays, png }, false)
}

/// The strength ladder: a roster round robin, resumed from `--out`.
pub fn ladder(args: LadderArgs) -> Result<()> {
    use ddz::eval::ladder::{DEFAULT_ROSTER, Entry, LadderConfig, TWO_PLAYER_ROSTER};
    super::python::install_plotting();
    let default = if args.rules == Rules::TwoPlayer { TWO_PLAYER_ROSTER } else { DEFAULT_ROSTER };
    let roster: Vec<Entry> =
        if args.agents.is_empty() { default.iter().map(|s| s.parse()).collect::<Result<_, _>>()? } else { args.agents };
    for entry in &roster {
        entry.spec.check_rules(args.rules).with_context(|| format!("--agents: {}", entry.label))?;
    }
    let deals = load_deals(&args.deals, args.rules, args.n, args.allow_duplicates)?;
    let config = LadderConfig {
        rules: args.rules,
        deal_set: args.deals.to_string(),
        slow_deals: args.slow_deals,
        threads: threads_or_all(args.threads),
        bidding: args.bidding,
        out: args.out,
    };
    let pairs = roster.len() * roster.len().saturating_sub(1) / 2;
    let bar = indicatif::ProgressBar::new(pairs as u64);
    bar.set_style(indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} pairings ({elapsed}) {msg}")?);
    if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let ladder = ddz::eval::ladder::run(&roster, &deals, &config, |done, _, last| {
        bar.set_position(done as u64);
        bar.set_message(last.to_string());
    })?;
    bar.finish_and_clear();
    let written = format!("ladder.md, ladder.json and ratings.csv in {}", config.out.display());
    match ladder.write(&config.out) {
        Ok(png) => eprintln!("wrote {}, {written}", png.display()),
        // The tables are written before the plot: without Python's matplotlib, they still are.
        Err(ddz::eval::EvalError::Plot(e)) => eprintln!("wrote {written}; no plot: {e}"),
        Err(e) => return Err(e.into()),
    }
    report::show(&ladder, false)
}

/// One deal move by move, with the candidates each agent weighed.
pub fn replay(deal: usize, agents: &[AgentSpec], deals: &DealSource) -> Result<()> {
    let deals = deals.load()?;
    let d = deals.get(deal).with_context(|| format!("deal {deal} is out of range (the set has {})", deals.len()))?;
    let built: Vec<Box<dyn Agent>> = agents.iter().map(|a| a.build()).collect::<Result<_, _>>()?;
    let mut three: [Box<dyn Agent>; 3] =
        built.try_into().map_err(|_| anyhow::anyhow!("--agents takes three agents"))?;
    let replayed = ddz::replay::replay(d, &mut three);
    report::show(&Text(replayed.text), false)?;
    match replayed.fault {
        // The game is told up to the decision; the exit status says it did not end.
        Some(fault) => bail!("deal {deal} was not played to its end: {fault}"),
        None => Ok(()),
    }
}

/// The key decisions put to each agent.
pub fn check_decisions(agents: &[AgentSpec], file: Option<&Path>, json: bool) -> Result<()> {
    let situations = ddz::decisions::load(file)?;
    let mut reports = Vec::new();
    for spec in agents {
        let mut agent = spec.build()?;
        reports.push(ddz::decisions::check(agent.as_mut(), &situations)?);
    }
    report::show(&Decisions(reports), json)
}

/// `ddz headroom`: both sides' best response against RLCard's agent on the deals.
pub fn headroom(deals: &DealSource, n: Option<usize>, nodes: u64, threads: Option<usize>, json: bool) -> Result<()> {
    let deals = load_deals(deals, Rules::Standard, n, false)?;
    let bar = indicatif::ProgressBar::new(2 * deals.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("headroom {bar:40} {pos}/{len} searches, {eta} left")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let sides = ddz::eval::headroom::against_rlcard(&deals, nodes, threads_or_all(threads), &|| bar.inc(1));
    bar.finish_and_clear();
    report::show(&report::Headroom { nodes, sides }, json)
}
