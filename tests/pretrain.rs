//! Pretraining from logs, end to end: real files, real libtorch training, real processes.

use ddz::agents::{ModelAgent, RandomAgent};
use ddz::eval::head_to_head;
use ddz::game::generate_deals;
use ddz::logs::{GameLog, read_logs};
use ddz::model::load_network;
use ddz::pretrain::{PretrainConfig, pretrain};
use ddz::train::{self, Start, config::TrainConfig};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ddz-pretrain-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn shipped_logs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/rule_selfplay_2000.jsonl")
}

#[test]
#[ignore = "slow: end-to-end pretraining (scripts/test runs it)"]
fn pretraining_on_2000_rule_games_reaches_80_percent_and_warm_starts_rl() {
    let dir = scratch("main");
    let (games, bad) = read_logs(&shipped_logs(), false).unwrap();
    assert_eq!((games.len(), bad.len()), (2000, 0));
    let model = TrainConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/dmc.toml")).unwrap().model;
    let cfg = PretrainConfig {
        steps: 1500,
        lr: 3e-4,
        model: model.clone(),
        device: ddz::runtime::Device::Cpu,
        ..Default::default()
    };
    let s = pretrain(games, 0, &dir.join("pre"), &cfg, true).unwrap();
    eprintln!("{s:?}");
    assert!(s.best_val_top1 >= 0.80, "top-1 on held-out decisions: {}", s.best_val_top1);
    assert!(s.val_samples > 1000);

    // It beats uniformly random play clearly.
    let net = load_network(&s.checkpoint).unwrap();
    let mut agent = ModelAgent::new(net.network(), "pretrained");
    let (l, f) = head_to_head(&generate_deals(100, 4), &mut agent, &mut RandomAgent::new(3)).unwrap();
    assert!((l.wp.mean + f.wp.mean) / 2.0 > 0.8, "landlord {} farmers {}", l.wp, f.wp);

    // RL accepts it as a starting point.
    let mut rl = TrainConfig::default();
    rl.run.dir = dir.join("rl");
    rl.run.device = ddz::runtime::Device::Cpu;
    rl.actors.count = 1;
    rl.actors.games_in_flight = 8;
    rl.budget.max_games = 50;
    rl.model = model;
    let summary = train::train(rl, Start::Fresh { init_from: Some(s.checkpoint.clone()) }, true).unwrap();
    assert!(summary.games >= 50);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One of our games written as an RLCard-Showdown replay (suit letter + rank, RJ/BJ, "P").
fn as_showdown(log: &GameLog) -> serde_json::Value {
    let suits = ['S', 'H', 'D', 'C'];
    let mut used = std::collections::HashMap::<char, usize>::new();
    let mut card = |c: char| match c {
        'B' => "BJ".to_string(),
        'R' => "RJ".to_string(),
        c => {
            let k = used.entry(c).or_default();
            *k += 1;
            format!("{}{c}", suits[*k - 1])
        }
    };
    let l = log.landlord as usize;
    let mut hands: Vec<String> =
        log.hands.iter().map(|h| h.chars().map(&mut card).collect::<Vec<_>>().join(" ")).collect();
    let bottom: Vec<String> = log.bottom.as_ref().unwrap().chars().map(&mut card).collect();
    hands[l] = format!("{} {}", hands[l], bottom.join(" "));
    // Plays name cards by rank; any suit letter will do for the importer.
    let moves: Vec<serde_json::Value> = log
        .plays
        .iter()
        .map(|(s, p)| {
            let mv = if p == "pass" {
                "P".to_string()
            } else {
                p.chars()
                    .map(|c| {
                        if c == 'B' {
                            "BJ".into()
                        } else if c == 'R' {
                            "RJ".into()
                        } else {
                            format!("S{c}")
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            serde_json::json!({"playerIdx": s, "move": mv})
        })
        .collect();
    let info: Vec<serde_json::Value> =
        (0..3).map(|i| serde_json::json!({"index": i, "role": if i == l { "landlord" } else { "peasant" }})).collect();
    serde_json::json!({"initHands": hands, "playerInfo": info, "moveHistory": moves})
}

#[test]
fn import_and_check_name_file_line_move_and_reason() {
    let dir = scratch("import");
    let text = std::fs::read_to_string(shipped_logs()).unwrap();
    let logs: Vec<GameLog> = text.lines().take(3).map(|l| serde_json::from_str(l).unwrap()).collect();
    let good = dir.join("good.json");
    std::fs::write(&good, as_showdown(&logs[0]).to_string()).unwrap();
    let mut broken = as_showdown(&logs[1]);
    broken["moveHistory"][2]["move"] = serde_json::json!("S3 S3 S3 S3 S3");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, broken.to_string()).unwrap();
    let out = dir.join("imported.jsonl");
    let ddz = env!("CARGO_BIN_EXE_ddz");
    let (good_path, bad_path, out_path) = (good.to_str().unwrap(), bad.to_str().unwrap(), out.to_str().unwrap());
    let run = |args: &[&str]| Command::new(ddz).args(args).output().unwrap();
    let import = |extra: &[&str]| {
        let args = ["logs", "import", "--from", "rlcard-showdown", good_path, bad_path, "--out", out_path];
        Command::new(ddz).args(args).args(extra).output().unwrap()
    };
    let r = import(&[]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("bad.json") && err.contains("move 3"), "{err}");
    let r = import(&["--skip-invalid"]);
    assert!(r.status.success());
    assert!(
        String::from_utf8_lossy(&r.stdout).contains("imported 1 game(s)")
            && String::from_utf8_lossy(&r.stdout).contains("skipped 1")
    );
    let (games, _) = read_logs(&out, false).unwrap();
    assert_eq!(games.len(), 1);
    assert!(!games[0].1.bottom_known, "showdown replays do not record the bottom");
    assert_eq!(games[0].1.state.returns(), logs[0].replay().unwrap().state.returns());

    // A log with an illegal move: file, line, move and reason.
    let mut lines: Vec<String> = text.lines().take(3).map(String::from).collect();
    let mut log: GameLog = serde_json::from_str(&lines[1]).unwrap();
    log.plays[4].1 = "BR".into();
    lines[1] = serde_json::to_string(&log).unwrap();
    let file = dir.join("logs.jsonl");
    std::fs::write(&file, lines.join("\n")).unwrap();
    let r = run(&["logs", "check", file.to_str().unwrap()]);
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("logs.jsonl:2: move 5:"), "{err}");
    let r =
        run(&["pretrain", "--logs", file.to_str().unwrap(), "--out", dir.join("p").to_str().unwrap(), "--steps", "1"]);
    assert!(!r.status.success());
    assert!(String::from_utf8_lossy(&r.stderr).contains("--skip-invalid"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: a pretraining process (scripts/test runs it)"]
fn sigterm_during_pretraining_writes_the_best_model_so_far() {
    let dir = scratch("sigterm");
    let out = dir.join("pre");
    let child = Command::new(env!("CARGO_BIN_EXE_ddz"))
        .args(["pretrain", "--logs", shipped_logs().to_str().unwrap(), "--steps", "1000000", "--device", "cpu"])
        .args(["--config", Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/dmc.toml").to_str().unwrap()])
        .arg("--out")
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The TensorBoard folder appears when the training loop starts.
    let start = std::time::Instant::now();
    while !out.join("tb").is_dir() && start.elapsed().as_secs() < 120 {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let done = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert!(done.status.success(), "exit {:?}: {}", done.status, String::from_utf8_lossy(&done.stderr));
    assert!(stdout.contains("(interrupted)"), "{stdout}");
    load_network(&out.join("model.safetensors")).expect("the best model so far was written");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pretrain.json")).unwrap()).unwrap();
    assert!(summary["summary"]["best_val_loss"].as_f64().unwrap().is_finite(), "it was validated before stopping");
    std::fs::remove_dir_all(&dir).unwrap();
}
