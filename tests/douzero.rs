//! `douzero:DIR` against the real `douzero` package (1.1.0, installed from PyPI into the
//! project venv on first use): a checkpoint folder made with DouZero's own model code, games in
//! DouZero's own engine with its `DeepAgent`, and on every decision ddz's features (exactly),
//! Q values (within 1e-4) and choice (the same play) — then the agent in ddz's games, honest.

mod common;

use ddz::agents::{Agent, AgentSpec, Turn};
use ddz::cards::Counts;
use ddz::encode::douzero::{CARDS, Infoset, observe, write_cards};
use ddz::game::Role;
use ddz_nets::DouzeroNetwork;
use std::path::{Path, PathBuf};
use std::process::Command;

fn venv_python() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python")
}

/// DouZero's reference games into `out` (douzero installed into the venv first, if needed).
fn reference(out: &Path, games: u32, seed: u64) {
    let python = venv_python();
    let has = Command::new(&python).args(["-c", "import douzero.evaluation.deep_agent"]).status().unwrap().success();
    if !has {
        let pip =
            ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "douzero==1.1.0", "rlcard", "gitpython"];
        assert!(Command::new(&python).args(pip).status().unwrap().success(), "installing douzero");
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/douzero_reference.py");
    let run = Command::new(&python).arg(script).arg(out).args([games.to_string(), seed.to_string()]).output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

fn counts(text: &str) -> Counts {
    Counts::parse(text).unwrap()
}

fn ints(v: &serde_json::Value) -> Vec<f32> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap() as f32).collect()
}

fn row(cards: Counts) -> [f32; CARDS] {
    let mut r = [0.0; CARDS];
    write_cards(cards, &mut r);
    r
}

#[test]
fn douzero_agent_computes_what_douzeros_deep_agent_does() {
    let dir = std::env::temp_dir().join(format!("ddz-douzero-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // SAFETY: this test binary runs this one test, so no thread reads the environment meanwhile.
    unsafe { std::env::set_var("XDG_CACHE_HOME", dir.join("cache")) };
    reference(&dir, 60, 7);
    ddz::runtime::configure_threads(1);
    common::checkout_scripts("import torch", &[]); // the conversion to safetensors runs on it
    let converted = ddz::agents::douzero::converted_folder(&dir).unwrap();
    let cached: Vec<_> = std::fs::read_dir(dir.join("cache/ddz/douzero")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(cached, std::slice::from_ref(&converted), "converted into the cache, keyed by content");
    assert_eq!(
        ddz::agents::douzero::converted_folder(&converted).unwrap(),
        converted,
        "a converted folder is used as it is"
    );
    // The torch-free networks that play, checked against DouZero's own.
    let nets = Role::ALL
        .map(|role| DouzeroNetwork::load(role, &converted.join(format!("{}.safetensors", role.name()))).unwrap());
    let text = std::fs::read_to_string(dir.join("decisions.jsonl")).unwrap();
    let (mut decisions, mut worst) = (0, 0.0f32);
    for line in text.lines() {
        let d: serde_json::Value = serde_json::from_str(line).unwrap();
        let role = Role::parse(d["role"].as_str().unwrap()).unwrap();
        let moves = d["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (Role::parse(m[0].as_str().unwrap()).unwrap(), counts(m[1].as_str().unwrap())));
        let view = Infoset { role, hand: counts(d["hand"].as_str().unwrap()), moves: moves.collect() };
        let obs = observe(&view);
        let what = format!("decision {decisions}: {line:.300}");
        assert_eq!(obs.x_state, ints(&d["x_no_action"]), "x: {what}");
        assert_eq!(obs.z, ints(&d["z"]), "z: {what}");
        let legal: Vec<Counts> = d["legal"].as_array().unwrap().iter().map(|p| counts(p.as_str().unwrap())).collect();
        let chosen = d["chosen"].as_u64().unwrap() as usize;
        let chosen_row: Vec<f32> = obs.x_state.iter().copied().chain(row(legal[chosen])).collect();
        assert_eq!(chosen_row, ints(&d["chosen_row"]), "the chosen play's row: {what}");
        let rows: Vec<[f32; CARDS]> = legal.iter().map(|&c| row(c)).collect();
        let q = nets[role.index()].q_values(&obs, &rows);
        for (ours, theirs) in q.iter().zip(ints(&d["q"])) {
            worst = worst.max((ours - theirs).abs());
        }
        let ours = q.iter().enumerate().fold(0, |b, (k, &v)| if v > q[b] { k } else { b });
        assert_eq!(ours, chosen, "the same play: {what}");
        decisions += 1;
    }
    eprintln!("{decisions} decisions of DouZero's DeepAgent: features equal, Q within {worst:.2e}, same choices");
    assert!(decisions >= 2000, "{decisions} decisions");
    assert!(worst < 1e-4, "Q differs by {worst}");

    // The agent by its spec, in ddz's games: legal plays only, and it never reads a hidden card.
    let spec: AgentSpec = format!("douzero:{}", dir.display()).parse().unwrap();
    let mut agent = spec.build().unwrap();
    let vs_rule = |a: &AgentSpec| {
        let deals = ddz::game::generate_deals(10, 3);
        ddz::eval::evaluate(a, &AgentSpec::Rule, &deals, 1, &indicatif::ProgressBar::hidden()).unwrap()
    };
    let report = vs_rule(&spec);
    assert_eq!((report.illegal_plays(), report.overall.games), (0, 20));
    // DouZero's own DeepAgent through the adapter, on DouZero's own legal plays: the same games.
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/douzero_bot.py");
    let adapter: AgentSpec = format!("bot:{} {script} {}", venv_python().display(), dir.display()).parse().unwrap();
    let through = vs_rule(&adapter);
    assert_eq!((through.overall.wp.mean, through.overall.adp.mean), (report.overall.wp.mean, report.overall.adp.mean));
    assert_eq!(through.overall.rule_mismatches, 0);
    assert_honest(agent.as_mut());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// At decisions of random games, the agent given a state with other hidden hands (the same
/// information for its seat) makes the same play.
fn assert_honest(agent: &mut dyn Agent) {
    common::at_resampled_decisions(5, |real, other, plays| {
        assert_eq!(
            agent.choose(Turn::new(&real.view(real.current_player().unwrap()), plays).unwrap()),
            agent.choose(Turn::new(&other.view(other.current_player().unwrap()), plays).unwrap()),
            "the play must not depend on hidden hands"
        );
    });
}
