//! `ddz play` and `ddz serve`: people playing against agents, in the terminal or the browser.

use super::args::{PlayArgs, ServeArgs, agents_or_default};
use super::report::{self, Listening, PersonDeal};
use anyhow::{Context, Result, bail};
use ddz::game::Deal;
use std::io::IsTerminal;

/// The deal of a person's game under `rules` and the seed it came from.
fn person_deal(deal: Option<usize>, seed: Option<u64>, rules: ddz::game::Rules) -> Result<(Deal, u64)> {
    if let Some(n) = deal {
        let deals = ddz::game::DealSet::Dev.deals_for(rules);
        let d = deals.get(n).with_context(|| format!("--deal {n}: the set has deals 0 to {}", deals.len() - 1))?;
        return Ok((d.clone(), n as u64));
    }
    let seed = seed.unwrap_or_else(rand::random);
    Ok((ddz::game::generate_deals_for(rules, 1, seed).remove(0), seed))
}

/// One game in the terminal against two agents, logged.
pub fn play(args: PlayArgs) -> Result<()> {
    use ddz::play::{Session, parse_agents, parse_seat, terminal};
    let specs =
        parse_agents(agents_or_default(&args.agents, args.rules)).map_err(|e| anyhow::anyhow!("--agents: {e}"))?;
    let (deal, seed) = person_deal(args.deal, args.seed, args.rules)?;
    let seat = parse_seat(&args.seat, args.rules, seed).map_err(|e| anyhow::anyhow!("--seat: {e}"))?;
    let rules = ddz::play::rules(args.bidding, args.rules, seed);
    let mut session = Session::with_rules(&deal, seat, &specs, seed, "human:terminal", rules)
        .map_err(|e| anyhow::anyhow!("--agents: {e}"))?;
    report::show(&PersonDeal { deal: args.deal, seed }, false)?;
    let screen = terminal::Screen {
        colour: std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none(),
        interactive: std::io::stdin().is_terminal(),
    };
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    terminal::run(&mut session, &mut stdin.lock(), &mut stdout.lock(), &args.log_dir, screen)
        .with_context(|| format!("playing (logs in {})", args.log_dir.display()))?;
    Ok(())
}

/// The web page and its JSON API, until stopped.
pub fn serve(args: ServeArgs) -> Result<()> {
    use ddz::serve::ServeConfig;
    let given = agents_or_default(&args.agents, args.rules);
    let agents = ddz::play::parse_agents(given).map_err(|e| anyhow::anyhow!("--agents: {e}"))?;
    for spec in &agents {
        // Fail now, not at the first game.
        spec.check_rules(args.rules).map_err(|e| anyhow::anyhow!("--agents: {e}"))?;
        spec.build().with_context(|| format!("--agents: {spec}"))?;
    }
    const WEEK_MINUTES: f64 = 7.0 * 24.0 * 60.0;
    if !(args.idle_minutes > 0.0 && args.idle_minutes <= WEEK_MINUTES) {
        bail!("--idle-minutes must be above 0 and at most {WEEK_MINUTES} (a week), not {}", args.idle_minutes);
    }
    let mut config = ServeConfig::new(agents, args.log_dir.clone());
    config.max_games = args.max_games.max(1);
    config.starts_per_minute = args.starts_per_minute.max(1);
    config.idle = std::time::Duration::from_secs_f64(args.idle_minutes * 60.0);
    config.bidding = args.bidding;
    config.rules = args.rules;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the server runtime")?;
    let served = rt.block_on(async move {
        let addr = format!("{}:{}", args.host, args.port);
        let listener = tokio::net::TcpListener::bind(&addr).await.with_context(|| format!("listening on {addr}"))?;
        let address = listener.local_addr()?.to_string();
        report::show(&Listening { address, log_dir: args.log_dir }, false)?;
        ddz::serve::serve(listener, config).await.context("serving")
    });
    // An agent still thinking (a search with no `ms=`) does not hold up the stop: its game is
    // saved already, and its thread ends with the process.
    rt.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}
