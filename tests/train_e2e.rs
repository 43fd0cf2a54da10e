//! Real training end to end: a tiny network, real libtorch updates, real files.

mod common;

use ddz::agents::AgentSpec;
use ddz::agents::{ModelAgent, RandomAgent, Turn};
use ddz::checkpoint;
use ddz::eval::curve::BackgroundEval;
use ddz::eval::head_to_head;
use ddz::game::{Seat, generate_deals};
use ddz::model::QNet;
use ddz::run;
use ddz::train::{self, Start, StopReason, TrainError, Trainer, config::TrainConfig};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddz-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn tiny(dir: &Path) -> TrainConfig {
    let mut cfg = TrainConfig::parse(
        r#"
        [run]
        device = "cpu"
        seed = 3
        [actors]
        count = 1
        games_in_flight = 16
        epsilon = 0.05
        [learner]
        batch_size = 128
        lr = 0.001
        [model]
        trunk = [64]
        head = 32
        head_hidden = [32]
        [pool]
        snapshot_every_steps = 40
        redraw_every_games = 100
        [log]
        every_steps = 10
        "#,
        Path::new("tiny"),
    )
    .unwrap();
    cfg.run.dir = dir.to_path_buf();
    cfg
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn tiny_run_learns_to_beat_random_and_resumes() {
    let dir = scratch("e2e");
    let mut cfg = tiny(&dir);
    cfg.budget.max_games = 2500;
    // Monte Carlo labels, so that the loss measures the fit to fixed targets (λ-returns move
    // with the network's own Q, and their loss may rise while it learns).
    cfg.reward.lambda = 1.0;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert_eq!(s.stopped_by, StopReason::MaxGames);
    assert!(s.games >= 2500 && s.steps > 50, "{s:?}");
    assert!(s.late_loss < s.early_loss, "the loss falls: {} -> {}", s.early_loss, s.late_loss);
    assert!(dir.join("tb").read_dir().unwrap().next().is_some(), "TensorBoard events written");

    // The trained agent against uniformly random play, both seatings, fixed deals.
    let mut net = QNet::cpu(&cfg.model, 0);
    checkpoint::load(&s.checkpoint, &mut net).unwrap();
    let mut model = ModelAgent::new(net.network(), "trained");
    let deals = generate_deals(200, 99);
    let (as_landlord, as_farmers) = head_to_head(&deals, &mut model, &mut RandomAgent::new(5)).unwrap();
    let wp = (as_landlord.wp.mean + as_farmers.wp.mean) / 2.0;
    eprintln!("trained vs random: landlord {}, farmers {}", as_landlord.wp, as_farmers.wp);
    assert!(wp > 0.75, "clear margin over random: landlord {} farmers {}", as_landlord.wp, as_farmers.wp);
    assert_eq!(as_landlord.illegal_plays + as_farmers.illegal_plays, 0);

    // Resume continues the counters, deals and pool.
    let before = run::read_meta(&s.checkpoint).unwrap();
    let mut resumed = train::load_run_config(&dir).unwrap();
    resumed.budget.max_games = before.games + 300;
    let r = train::train(resumed, Start::Resume, true).unwrap();
    let after = run::read_meta(&r.checkpoint).unwrap();
    assert!(after.step > before.step && after.games >= before.games + 300 && after.frames > before.frames);
    assert!(after.next_game_index > before.next_game_index);
    assert!(!after.pool_steps.is_empty());
    assert!(run::list(&dir).unwrap().len() <= 3);
    // A run folder names its newest checkpoint.
    let spec: AgentSpec = format!("checkpoint:{}", dir.display()).parse().unwrap();
    assert!(spec.build().is_ok());

    // A fresh run refuses a folder that holds one.
    let again = train::train(tiny(&dir), Start::Fresh { init_from: None }, true);
    assert!(matches!(&again, Err(e @ TrainError::RunExists(_)) if e.to_string().contains("--resume")), "{again:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn corrupt_and_mismatched_checkpoints_are_clear_errors() {
    let dir = scratch("corrupt");
    let mut cfg = tiny(&dir);
    cfg.budget.max_games = 100;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    // Mismatched model.
    let mut other = cfg.clone();
    other.model.trunk = vec![32];
    let mut net = QNet::cpu(&other.model, 0);
    let e = checkpoint::load(&s.checkpoint, &mut net).unwrap_err().to_string();
    assert!(e.contains("meta.json") && e.contains("model"), "{e}");
    // Corrupt weights.
    let weights = s.checkpoint.join("model.safetensors");
    let bytes = std::fs::read(&weights).unwrap();
    std::fs::write(&weights, &bytes[..bytes.len() / 2]).unwrap();
    let mut resumed = train::load_run_config(&dir).unwrap();
    resumed.budget.max_games = 200;
    let e = train::train(resumed, Start::Resume, true).unwrap_err().to_string();
    assert!(e.contains("corrupt") && e.contains("model.safetensors"), "{e}");
    // Corrupt meta.
    std::fs::write(s.checkpoint.join("meta.json"), "{").unwrap();
    let e = run::read_meta(&s.checkpoint).unwrap_err().to_string();
    assert!(e.contains("meta.json") && e.contains("corrupt"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn evaluation_during_training_and_learning_curves() {
    let dir = scratch("curve");
    let mut cfg = tiny(&dir);
    cfg.checkpoint.every_minutes = 0.03;
    cfg.checkpoint.keep_last = 10;
    cfg.budget.max_seconds = 8.0;
    // The trainer hears of each checkpoint; the evaluation runs beside it, as `ddz train` does.
    let mut evaluation = BackgroundEval::new(&dir, 20);
    Trainer::new(cfg, Start::Fresh { init_from: None }, true)
        .unwrap()
        .on_checkpoint(move |_| evaluation.checkpoint_written())
        .run()
        .unwrap();
    let csv = std::fs::read_to_string(dir.join("eval/curve.csv")).expect("the trainer evaluated its checkpoints");
    assert!(csv.lines().count() >= 2, "{csv}");
    assert!(dir.join("tb-eval").is_dir());

    // `ddz eval --run` adds the rest, with a further opponent, and plots the curve.
    let deals = generate_deals(20, 1);
    let mut opponents = ddz::eval::curve::default_opponents();
    opponents.push("again=random".parse().unwrap());
    let points = ddz::eval::curve::evaluate_run(&dir, "seed-1", &deals, &opponents, 2, |_| {}).unwrap();
    assert_eq!(points.len(), run::list(&dir).unwrap().len());
    assert!(points.iter().all(|p| p.illegal_plays == 0 && p.vs.len() == 3));
    let wp = |p: &ddz::eval::curve::CurvePoint, label| p.against(label).map(|v| (v.landlord, v.farmers));
    assert!(points.iter().all(|p| wp(p, "again") == wp(p, "random")), "the same agent, the same results");
    common::checkout_scripts("import matplotlib", &["matplotlib"]);
    let png = ddz::eval::curve::plot(&dir, 20).unwrap();
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn per_role_networks_train_save_and_load_by_shape() {
    let dir = scratch("per-role");
    let mut cfg = tiny(&dir);
    cfg.model.per_role = true;
    cfg.budget.max_games = 2500;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.steps > 10, "{s:?}");
    // Every role's network was updated away from the initial weights (the pool's step 0).
    let mut start = QNet::cpu(&cfg.model, 0);
    ddz::model::load_weights_file(&mut start, &run::pool_file(&dir, 0)).unwrap();
    let trained = ddz::model::load_network(&s.checkpoint).unwrap();
    assert!(trained.config().per_role, "the loader recognises three networks by their names");
    let before = start.export(0).tensors;
    for role in ["landlord", "landlord_down", "landlord_up"] {
        let name = format!("{role}.q.weight");
        let find = |ts: &[(String, Vec<i64>, Vec<f32>)]| ts.iter().find(|t| t.0 == name).unwrap().2.clone();
        assert_ne!(find(&trained.export(0).tensors), find(&before), "{role} trained");
    }
    // Three networks that learned: a clear margin over random play. (Whether the loss falls over
    // so short a run is a coin toss for three small networks that each see a third of the
    // frames; the shared-network test checks the loss.)
    let mut model = ModelAgent::new(trained.network(), "per-role");
    let (l, f) = head_to_head(&generate_deals(200, 99), &mut model, &mut RandomAgent::new(5)).unwrap();
    let (l0, f0) = head_to_head(
        &generate_deals(200, 99),
        &mut ModelAgent::new(start.network(), "untrained"),
        &mut RandomAgent::new(5),
    )
    .unwrap();
    eprintln!("per-role vs random: landlord {}, farmers {}; untrained {} / {}", l.wp, f.wp, l0.wp, f0.wp);
    let (wp, wp0) = ((l.wp.mean + f.wp.mean) / 2.0, (l0.wp.mean + f0.wp.mean) / 2.0);
    assert!(
        wp > 0.75 && wp > wp0 + 0.1,
        "clear margin over random and over the untrained networks: {wp} against {wp0}"
    );
    assert_eq!(l.illegal_plays + f.illegal_plays, 0);
    // A shared network cannot load a per-role checkpoint: a clear mismatch.
    let mut shared = QNet::cpu(&tiny(&dir).model, 0);
    let e = checkpoint::load(&s.checkpoint, &mut shared).unwrap_err().to_string();
    assert!(e.contains("in the checkpoint") && e.contains("per_role: true"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn games_against_the_rule_agent_when_asked() {
    let rule_dir = scratch("rule-share");
    let mut cfg = tiny(&rule_dir);
    cfg.budget.max_games = 300;
    cfg.pool.self_play_share = 0.0;
    cfg.pool.rule_share = 1.0;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.games >= 300 && s.steps > 0, "{s:?}");
    assert_eq!((s.win_rate_vs_pool_landlord, s.win_rate_vs_pool_farmers), (None, None), "no game against a snapshot");
    let (l, f) = (s.win_rate_vs_rule_landlord.unwrap(), s.win_rate_vs_rule_farmers.unwrap());
    // The rule agent beats an untrained network most of the time, on either side.
    assert!(l < 0.5 && f < 0.5, "an untrained network against rule: landlord {l}, farmers {f}");

    // By default no game is played against rule.
    let dir = scratch("no-rule");
    let mut cfg = tiny(&dir);
    cfg.budget.max_games = 300;
    cfg.pool.self_play_share = 0.0;
    let s = train::train(cfg, Start::Fresh { init_from: None }, true).unwrap();
    assert_eq!((s.win_rate_vs_rule_landlord, s.win_rate_vs_rule_farmers), (None, None));
    assert!(s.win_rate_vs_pool_landlord.is_some() && s.win_rate_vs_pool_farmers.is_some());
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&rule_dir).unwrap();
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn every_kept_checkpoint_keeps_the_pool_snapshots_it_names() {
    // A full pool that drops snapshots between checkpoints: each kept checkpoint must still
    // find its snapshots, or a crash after it would leave a run that cannot resume.
    let dir = scratch("full-pool");
    let mut cfg = tiny(&dir);
    cfg.pool.size = 2;
    cfg.pool.snapshot_every_steps = 3;
    cfg.checkpoint.every_minutes = 0.005;
    cfg.checkpoint.keep_last = 3;
    cfg.budget.max_seconds = 4.0;
    train::train(cfg, Start::Fresh { init_from: None }, true).unwrap();
    let kept = run::list(&dir).unwrap();
    assert_eq!(kept.len(), 3);
    let mut named = std::collections::BTreeSet::new();
    for ck in &kept {
        for step in run::read_meta(ck).unwrap().pool_steps {
            assert!(run::pool_file(&dir, step).is_file(), "{} names snapshot {step}", ck.display());
            named.insert(step);
        }
    }
    let files = std::fs::read_dir(run::pool_dir(&dir)).unwrap().count();
    assert_eq!(files, named.len(), "snapshots no checkpoint names are deleted");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn resume_takes_no_budget_from_earlier_sessions_and_records_each_session() {
    let dir = scratch("sessions");
    let mut cfg = tiny(&dir);
    cfg.budget.max_games = 100;
    cfg.budget.max_seconds = 30.0;
    train::train(cfg, Start::Fresh { init_from: None }, true).unwrap();
    assert!(run::list(&dir).unwrap().len() >= 2, "a step-0 checkpoint, then the final one");
    let mut resumed = train::load_run_config(&dir).unwrap();
    assert_eq!(resumed.budget, Default::default(), "the first session's budget is not the next one's");
    resumed.budget.max_games = 200;
    resumed.run.seed = 9;
    train::train(resumed, Start::Resume, true).unwrap();
    let stored = TrainConfig::load(&run::config_file(&dir)).unwrap();
    assert_eq!(stored.run.seed, 9, "the seed given on resume is recorded");
    let sessions: Vec<serde_json::Value> = std::fs::read_to_string(run::sessions_file(&dir))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0]["budget"]["max_seconds"], 30.0);
    assert_eq!((sessions[1]["budget"]["max_games"].as_u64(), sessions[1]["seed"].as_u64()), (Some(200), Some(9)));
    assert!(sessions[1]["step"].as_u64().unwrap() > 0, "the second session starts where the first ended");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Q(bid 3) − Q(pass) of a bidding network for the first bidder's hand on `n` seeded deals, with
/// the rule bidder's strength of each hand.
fn bid_margins(net: &ddz::model::bidnet::BidNet, n: u64) -> Vec<(f32, f32)> {
    use ddz::encode::{BID_DIM, encode_bid_state};
    use ddz::game::{GameConfig, State};
    use rand::SeedableRng;
    (0..n)
        .map(|seed| {
            let mut s = State::new(GameConfig { bidding: true, ..GameConfig::default() });
            s.deal_random(&mut rand::rngs::SmallRng::seed_from_u64(9000 + seed));
            let mut f = [0.0f32; BID_DIM];
            encode_bid_state(&s, Seat::S0, &mut f);
            let q = net.q_values(&f)[0];
            (q[3] - q[0], ddz::agents::bid::hand_strength(s.hand(Seat::S0)))
        })
        .collect()
}

fn correlation(pairs: &[(f32, f32)]) -> f64 {
    let n = pairs.len() as f64;
    let (mx, my) = pairs.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + *x as f64 / n, b + *y as f64 / n));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in pairs {
        let (dx, dy) = (*x as f64 - mx, *y as f64 - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    sxy / (sxx * syy).sqrt().max(1e-12)
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn bidding_and_play_learn_together_and_resume() {
    let dir = scratch("bidding");
    let mut cfg = tiny(&dir);
    cfg.game.bidding = true;
    cfg.budget.max_games = 8_000;
    cfg.eval.deals = 0;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.games >= 8_000 && s.late_loss.is_finite());
    let newest = run::latest(&dir).unwrap();
    let net = ddz::model::bidnet::BidNet::load(&newest.join(run::BID_FILE)).unwrap();
    // Bidding 3 rather than passing pays with strong hands: the network learned as much from
    // the points of its games alone.
    let r = correlation(&bid_margins(&net, 300));
    eprintln!("correlation of Q(3) - Q(pass) with hand strength: {r:.3}");
    assert!(r > 0.3, "correlation of Q(3) - Q(pass) with hand strength: {r:.3}");
    // A resumed run goes on from the saved bidding network.
    let mut more = train::load_run_config(&dir).unwrap();
    more.budget.max_games = s.games + 2_000;
    let trainer = Trainer::new(more, Start::Resume, true).unwrap();
    let probe = bid_margins(trainer.bidding_network().expect("a bidding run"), 20);
    assert_eq!(probe, bid_margins(&net, 20), "restored exactly");
    let t = trainer.run().unwrap();
    assert!(t.games >= s.games + 2_000);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn schedules_a_farmer_team_and_deal_curation_each_learn_on_a_tiny_run() {
    use ddz::train::config::LrSchedule;
    let evaluator = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/hand-evaluator/model.safetensors");
    type Switch = fn(&mut TrainConfig, &Path);
    let variants: [(&str, Switch); 4] = [
        ("epsilon", |c, _| {
            (c.actors.epsilon, c.actors.epsilon_end, c.actors.epsilon_anneal_frames) = (0.2, 0.01, 40_000)
        }),
        ("cosine", |c, _| {
            (c.learner.lr_schedule, c.learner.lr_decay_frames, c.learner.lr_end) = (LrSchedule::Cosine, 60_000, 1e-4)
        }),
        ("team", |c, _| c.reward.farmer_team = true),
        ("curation", |c, e| (c.curation.evaluator, c.curation.certain) = (e.to_path_buf(), 0.7)),
    ];
    for (name, switch) in variants {
        let dir = scratch(&format!("switch-{name}"));
        let mut cfg = tiny(&dir);
        switch(&mut cfg, &evaluator);
        cfg.budget.max_games = 2500;
        let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
        assert_eq!(s.deals_skipped > 0, name == "curation", "{name}: {} deals skipped", s.deals_skipped);
        let mut net = QNet::cpu(&cfg.model, 0);
        checkpoint::load(&s.checkpoint, &mut net).unwrap();
        let mut model = ModelAgent::new(net.network(), name);
        let (l, f) = head_to_head(&generate_deals(200, 99), &mut model, &mut RandomAgent::new(5)).unwrap();
        eprintln!("{name} vs random: landlord {}, farmers {}", l.wp, f.wp);
        assert!((l.wp.mean + f.wp.mean) / 2.0 > 0.75, "{name}: a clear margin over random: {} / {}", l.wp, f.wp);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn hand_structure_and_pruning_each_learn_on_a_tiny_run() {
    type Switch = fn(&mut TrainConfig);
    let variants: [(&str, Switch); 2] = [
        ("structure", |c| c.model.hand_structure = true),
        ("prune", |c| (c.model.prune, c.model.prune_margin) = (true, 1)),
    ];
    for (name, switch) in variants {
        let dir = scratch(&format!("switch-{name}"));
        let mut cfg = tiny(&dir);
        switch(&mut cfg);
        cfg.budget.max_games = 2500;
        let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
        let trained = ddz::model::load_network(&s.checkpoint).unwrap();
        assert_eq!(trained.config(), &cfg.model, "{name}: the switch read back from the file");
        let mut model = ModelAgent::new(trained.network(), name);
        let (l, f) = head_to_head(&generate_deals(200, 99), &mut model, &mut RandomAgent::new(5)).unwrap();
        eprintln!("{name} vs random: landlord {}, farmers {}", l.wp, f.wp);
        assert!((l.wp.mean + f.wp.mean) / 2.0 > 0.75, "{name}: a clear margin over random: {} / {}", l.wp, f.wp);
        if name == "prune" {
            assert_eq!(choices_outside_the_pruned_plays(&mut model), 0, "the loaded network prunes");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// How many of the agent's choices over whole seeded games fall outside the plays that
/// pruning (margin 1) keeps, the agent being shown every legal play.
fn choices_outside_the_pruned_plays(model: &mut ModelAgent) -> usize {
    use ddz::agents::Agent;
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    let (mut outside, mut cut) = (0, 0);
    for _ in 0..20 {
        let mut state = ddz::game::State::new(Default::default());
        state.deal_random(&mut rng);
        while !state.is_terminal() {
            let mut plays = ddz::game::MoveList::new();
            state.legal_plays_into(&mut plays);
            let seat = state.current_player().unwrap();
            let mut kept = plays.clone();
            ddz::game::prune_plays(state.hand(seat), &mut kept, 1);
            cut += usize::from(kept.len() < plays.len());
            let play = plays[model.choose(Turn::new(&state.view(state.current_player().unwrap()), &plays).unwrap())];
            outside += usize::from(!kept.contains(&play));
            state.apply_play_unchecked(play);
        }
    }
    assert!(cut > 0, "pruning cut some decision");
    outside
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn oracle_hands_lstm_history_and_score_head_train_and_play_on_the_seats_information() {
    use ddz::agents::Agent;
    let dir = scratch("oracle-hands");
    let mut cfg = tiny(&dir);
    cfg.model.oracle = true;
    cfg.model.hand_prediction = true;
    cfg.model.history = ddz::model::HistoryEncoder::Lstm;
    cfg.model.history_size = 16;
    cfg.model.score_head = true;
    cfg.model.score_margin = 0.5;
    cfg.auxiliary.oracle_fade_frames = 30_000; // withdrawn well before the run ends
    cfg.budget.max_games = 2500;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.frames > 2 * 30_000, "the run went on after the oracle was withdrawn: {s:?}");
    let trained = ddz::model::load_network(&s.checkpoint).unwrap();
    assert_eq!(trained.config(), &cfg.model, "every switch read back from the file");
    let mut start = QNet::cpu(&cfg.model, 0);
    ddz::model::load_weights_file(&mut start, &run::pool_file(&dir, 0)).unwrap();
    let find = |net: &QNet, name: &str| net.export(0).tensors.into_iter().find(|t| t.0 == name).unwrap().2;
    for name in ["oracle_in.weight", "hands.weight", "hands_in.weight", "history.weight_ih_l0", "points.weight"] {
        assert_ne!(find(&trained, name), find(&start, name), "{name} learned");
    }
    let mut model = ModelAgent::new(trained.network(), "guided");
    let (l, f) = head_to_head(&generate_deals(200, 99), &mut model, &mut RandomAgent::new(5)).unwrap();
    eprintln!("oracle + hands + lstm + score head vs random: landlord {}, farmers {}", l.wp, f.wp);
    assert!((l.wp.mean + f.wp.mean) / 2.0 > 0.75, "a clear margin over random: {} / {}", l.wp, f.wp);

    // At play time the network reads the seat's information only: with the other two hands
    // dealt differently (the same information for the seat), every Q and choice is the same.
    // (The network is handed a view only; search asks it on full states, through `Policy`.)
    common::at_resampled_decisions(8, |real, other, plays| {
        use ddz::search::Policy;
        assert_eq!(Policy::q_values(&mut model, real, plays), Policy::q_values(&mut model, other, plays));
        let seat = real.current_player().unwrap();
        let (a, b) = (real.view(seat), other.view(seat));
        assert_eq!(model.choose(Turn::new(&a, plays).unwrap()), model.choose(Turn::new(&b, plays).unwrap()));
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn batches_that_stay_non_finite_stop_training_after_a_run_of_skips() {
    // A network whose weights are finite but so large that its Q overflows: every λ-return
    // label it makes, and so every batch, is non-finite. Each batch is skipped and counted;
    // a run of them stops training with the reason, without a checkpoint of broken weights.
    let dir = scratch("non-finite");
    let cfg = tiny(&dir);
    let mut huge = QNet::cpu(&cfg.model, 1);
    let mut weights = huge.export(0);
    for (_, _, data) in &mut weights.tensors {
        data.iter_mut().for_each(|w| *w = 1e30 * (*w + 0.01));
    }
    huge.import(&weights).unwrap();
    let file = dir.with_extension("safetensors");
    ddz::model::save_weights_file(&huge, &file).unwrap();
    let e = train::train(cfg, Start::Fresh { init_from: Some(file.clone()) }, true).unwrap_err();
    assert!(matches!(e, TrainError::NonFinite { step: 1, .. }), "{e}");
    assert!(e.to_string().contains(&format!("{} batches in a row", train::BAD_BATCHES_IN_A_ROW)), "{e}");
    let written: Vec<_> = run::list(&dir).unwrap().iter().map(|c| run::read_meta(c).unwrap().step).collect();
    assert!(written.iter().all(|&s| s == 0), "no checkpoint after a refused step: {written:?}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&file);
}

/// [`tiny`] under laizi: 2,000 games, Monte Carlo returns.
fn tiny_laizi(dir: &Path) -> TrainConfig {
    let mut cfg = tiny(dir);
    cfg.game.rules = ddz::game::Rules::Laizi;
    cfg.model.rules = ddz::game::Rules::Laizi;
    cfg.budget.max_games = 2000;
    cfg.reward.lambda = 1.0;
    cfg
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn a_laizi_run_scoring_only_its_top_plays_learns_and_keeps_the_switch() {
    use ddz::game::Rules;
    let dir = scratch("laizi-top");
    let mut cfg = tiny_laizi(&dir);
    cfg.model.laizi_top = 20;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.late_loss < s.early_loss, "the loss falls: {} -> {}", s.early_loss, s.late_loss);
    let net = ddz::model::load_network(&s.checkpoint).unwrap();
    assert_eq!((net.config().rules, net.config().laizi_top), (Rules::Laizi, 20), "the switch travels with the file");
    beats_random_under(Rules::Laizi, &generate_deals(150, 99), net, "laizi top-20");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn a_laizi_run_learns_laizi_and_its_network_plays_only_laizi() {
    use ddz::eval::head_to_head_under;
    use ddz::game::Rules;
    let dir = scratch("laizi");
    let cfg = tiny_laizi(&dir);
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.games >= 2000 && s.steps > 30, "{s:?}");
    assert!(s.late_loss < s.early_loss, "the loss falls: {} -> {}", s.early_loss, s.late_loss);

    // The file says laizi: its plays read the laizi block.
    let net = ddz::model::load_network(&s.checkpoint).unwrap();
    assert_eq!(net.config().rules, Rules::Laizi);
    let deals = generate_deals(150, 99);
    let mut model = beats_random_under(Rules::Laizi, &deals, net, "laizi");

    // In a standard game the laizi network refuses to guess.
    let err = head_to_head_under(Rules::Standard, &deals[..1], &mut model, &mut RandomAgent::new(5)).unwrap_err();
    assert!(
        err.to_string().contains("cannot play a game of standard rules: its network was trained for laizi rules"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn a_two_player_run_with_bidding_learns_and_its_network_plays_only_two_player_games() {
    use ddz::eval::head_to_head_under;
    use ddz::game::{Rules, generate_deals_for};
    let dir = scratch("two-player");
    let mut cfg = tiny(&dir);
    cfg.game.rules = Rules::TwoPlayer;
    cfg.model.rules = Rules::TwoPlayer;
    cfg.game.bidding = true;
    cfg.budget.max_games = 3000;
    cfg.reward.lambda = 1.0;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.games >= 3000 && s.steps > 30, "{s:?}");
    assert!(s.late_loss < s.early_loss, "the loss falls: {} -> {}", s.early_loss, s.late_loss);

    // The file says two-player, and a bidding network was saved beside it.
    let net = ddz::model::load_network(&s.checkpoint).unwrap();
    assert_eq!(net.config().rules, Rules::TwoPlayer);
    assert!(s.checkpoint.join(run::BID_FILE).is_file());
    let deals = generate_deals_for(Rules::TwoPlayer, 150, 99);
    let mut model = beats_random_under(Rules::TwoPlayer, &deals, net, "two-player");

    // In a standard game it refuses to guess, and a standard network in a two-player game.
    let standard = generate_deals(1, 99);
    let err = head_to_head_under(Rules::Standard, &standard, &mut model, &mut RandomAgent::new(5)).unwrap_err();
    assert!(
        err.to_string().contains("cannot play a game of standard rules: its network was trained for two_player rules"),
        "{err}"
    );
    let mut plain = ModelAgent::new(QNet::cpu(&ddz::model::ModelConfig::default(), 1).network(), "standard");
    let err = head_to_head_under(Rules::TwoPlayer, &deals[..1], &mut plain, &mut RandomAgent::new(5)).unwrap_err();
    assert!(err.to_string().contains("cannot play a game of two_player rules"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
#[ignore = "slow: end-to-end training (scripts/test runs it)"]
fn a_run_keeping_an_average_of_its_weights_saves_it_and_resumes_it() {
    let dir = scratch("ema");
    let mut cfg = tiny(&dir);
    cfg.budget.max_games = 1500;
    cfg.learner.ema = 0.99;
    let s = train::train(cfg.clone(), Start::Fresh { init_from: None }, true).unwrap();
    assert!(s.steps > 20, "{s:?}");
    // The checkpoint's network is the average; the learner's own weights are beside it.
    let (average, learner) = (s.checkpoint.join("model.safetensors"), s.checkpoint.join(run::LEARNER_FILE));
    let (raw, avg) = (ddz::model::load_network(&learner).unwrap(), ddz::model::load_network(&s.checkpoint).unwrap());
    assert_eq!(raw.config(), avg.config(), "the average is a network of the same shape");
    assert_ne!(raw.export(0).tensors, avg.export(0).tensors, "it lags the weights");
    // The average plays as an agent, and beats random as the weights do.
    let spec: AgentSpec = format!("checkpoint:{}", s.checkpoint.display()).parse().unwrap();
    let mut model = ModelAgent::new(avg.network(), "average");
    let (landlord, farmers) = head_to_head(&generate_deals(100, 99), &mut model, &mut RandomAgent::new(5)).unwrap();
    assert!((landlord.wp.mean + farmers.wp.mean) / 2.0 > 0.7, "{} {}", landlord.wp, farmers.wp);
    assert!(spec.build().is_ok());
    // Resuming carries the average on from the checkpoint's, not from the weights: a few steps
    // later it is still near the saved average, far nearer than the saved weights are.
    let mut resumed = train::load_run_config(&dir).unwrap();
    resumed.budget.max_games = s.games + 50;
    let r = train::train(resumed, Start::Resume, true).unwrap();
    let after = model_weights(&r.checkpoint);
    let (raw, avg) = (model_weights(&learner), model_weights(&average));
    let distance = |a: &[(String, Vec<i64>, Vec<f32>)], b: &[(String, Vec<i64>, Vec<f32>)]| -> f64 {
        let pairs = a.iter().zip(b).flat_map(|(x, y)| x.2.iter().zip(&y.2));
        pairs.map(|(p, q)| (*p as f64 - *q as f64).powi(2)).sum::<f64>().sqrt()
    };
    let (moved, gap) = (distance(&after, &avg), distance(&raw, &avg));
    assert!(moved > 0.0 && moved < 0.5 * gap, "moved {moved} from the saved average, which is {gap} from the weights");
    let none = tiny(&scratch("no-ema"));
    assert_eq!(none.learner.ema, 0.0, "off unless asked");
    let e = TrainConfig::parse("[learner]\nema = 1.0\n", Path::new("x.toml")).unwrap_err().to_string();
    assert!(e.contains("learner.ema must be 0 (off) or in (0, 1)"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `net` against random in games of `rules` on `deals`, both seatings: a margin over random and
/// no illegal play; the agent, for more games.
fn beats_random_under(rules: ddz::game::Rules, deals: &[ddz::game::Deal], net: QNet, name: &str) -> ModelAgent {
    let mut model = ModelAgent::new(net.network(), name);
    let (landlord, farmers) =
        ddz::eval::head_to_head_under(rules, deals, &mut model, &mut RandomAgent::new(5)).unwrap();
    let wp = (landlord.wp.mean + farmers.wp.mean) / 2.0;
    eprintln!("{name} network vs random, {rules} games: landlord {}, farmers {}", landlord.wp, farmers.wp);
    assert!(wp > 0.65, "a margin over random: landlord {} farmers {}", landlord.wp, farmers.wp);
    assert_eq!(landlord.illegal_plays + farmers.illegal_plays, 0);
    model
}

/// The weights of a checkpoint folder or weights file.
fn model_weights(dir: &Path) -> Vec<(String, Vec<i64>, Vec<f32>)> {
    ddz::model::load_network(dir).unwrap().export(0).tensors
}
