//! The `ddz` binary as a user runs it: real processes, real pipes.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

fn ddz() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ddz"))
}

#[test]
fn moves_agrees_with_the_conformance_sample() {
    let sample = std::fs::read_to_string(common::conformance_dir().join("legal_sample.jsonl")).unwrap();
    let mut input = String::new();
    let mut wanted = Vec::new();
    for line in sample.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        input.push_str(&serde_json::json!({"hand": v["hand"], "rival": v["rival"]}).to_string());
        input.push('\n');
        let mut legal: Vec<String> =
            v["legal"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().into()).collect();
        legal.sort();
        wanted.push(legal);
    }
    input.push_str("{\"hand\":\"33X\"}\n");
    let mut child =
        ddz().arg("moves").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), wanted.len() + 1);
    for (i, want) in wanted.iter().enumerate() {
        let got: Vec<String> =
            lines[i]["legal"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().into()).collect();
        assert_eq!(&got, want, "line {}", i + 1);
    }
    let err = lines.last().unwrap()["error"].as_str().unwrap();
    assert!(err.contains("line 405") && err.contains("unknown card character 'X'"), "{err}");
}

#[test]
fn laizi_moves_answer_with_readings_through_the_binary() {
    let input = concat!(
        r#"{"hand":"5557","wild":"7","rival":{"cards":"4447","as":"4444"}}"#,
        "\n",
        r#"{"hand":"3567Q","wild":"Q"}"#,
        "\n",
        r#"{"hand":"55","wild":"B"}"#,
        "\n"
    );
    let mut child = ddz()
        .args(["moves", "--rules", "laizi"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines[0], serde_json::json!({"legal": [{"cards": "", "as": ""}, {"cards": "5557", "as": "5555"}]}));
    let chain = serde_json::json!({"cards": "3567Q", "as": "34567"});
    assert!(lines[1]["legal"].as_array().unwrap().contains(&chain), "the wild Q fills the chain's gap: {text}");
    assert!(lines[2]["error"].as_str().unwrap().contains("a joker is never wild"), "{text}");
    let bad = ddz().args(["moves", "--rules", "laizy"]).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected one of: standard, laizi"));
}

#[test]
fn info_proves_the_libtorch_link() {
    let out = ddz().args(["info", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["libtorch_version"].as_str().unwrap().starts_with("2.13.0"), "{v}");
    assert_eq!(v["intra_op_threads"], 1);
    assert!(v["link_check"].as_str().unwrap().contains("= 54 "));
}

#[test]
fn bench_engine_reports_json() {
    let out = ddz().args(["bench", "engine", "--seconds", "0.4", "--runs", "2", "--json"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    assert!(v["median"]["games_per_s"].as_f64().unwrap() > 0.0);
}

#[test]
#[ignore = "slow: a training process (scripts/test runs it)"]
fn train_stops_cleanly_on_ctrl_c_and_sigterm_with_a_checkpoint() {
    let dir = std::env::temp_dir().join(format!("ddz-sigint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("tiny.toml");
    std::fs::write(&config, "[actors]\ncount = 1\ngames_in_flight = 8\n[model]\ntrunk = [32]\nhead = 16\nhead_hidden = []\n[learner]\nbatch_size = 64\n").unwrap();
    for signal in ["INT", "TERM"] {
        let run = dir.join(format!("run-{signal}"));
        let child = ddz()
            .args(["train", "--config"])
            .arg(&config)
            .arg("--run-dir")
            .arg(&run)
            .args(["--device", "cpu", "--set", "learner.lr_end=2e-5"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait until it is learning (the first pool snapshot exists), then interrupt.
        let start = std::time::Instant::now();
        while !run.join("pool").is_dir() && start.elapsed().as_secs() < 60 {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        std::thread::sleep(std::time::Duration::from_secs(2));
        let status = Command::new("kill").args([&format!("-{signal}"), &child.id().to_string()]).status().unwrap();
        assert!(status.success());
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "SIG{signal}: exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("stopped by interrupted"), "SIG{signal}: {stdout}");
        let checkpoints: Vec<_> = run.join("checkpoints").read_dir().unwrap().collect();
        assert!(!checkpoints.is_empty(), "SIG{signal}: a checkpoint was written");
        let stored = ddz::train::load_run_config(&run).unwrap();
        assert_eq!(stored.learner.lr_end, 2e-5, "the run's config.toml records --set");
    }
    // Unknown config keys are named.
    std::fs::write(&config, "[learner]\nbatchsize = 3\n").unwrap();
    let out = ddz().args(["train", "--config"]).arg(&config).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("batchsize"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: installs TensorBoard into the venv on first use (scripts/test runs it)"]
fn tensorboard_is_installed_on_first_use() {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/tensorboard");
    let out = Command::new("bash").arg(&script).arg("--version_tb").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let version = String::from_utf8_lossy(&out.stdout);
    assert!(version.trim().split('.').count() >= 2, "a version number: {version}");
}

#[test]
fn search_agents_work_from_the_command_line() {
    // ISMCTS in replay: each of its decisions lists candidates with their visits.
    let out = ddz()
        .args(["replay", "--deal", "3", "--agents", "ismcts:rule?sims=60,rule,alphabeta:heuristic"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("visits)"), "{text}");
    assert!(text.contains("goes out"), "{text}");
    // A game an agent left unfinished (a bot that exits without answering) is told up to
    // there, and the exit status says it did not end.
    let out = ddz().args(["replay", "--deal", "3", "--agents", "rule,bot:true,rule"]).output().unwrap();
    let (text, error) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("landlord_down gave no answer; the game ends here"), "{text}");
    assert!(error.contains("deal 3 was not played to its end: seat 1"), "{error}");
    // In evaluation, with a clear error for a bad knob.
    let out = ddz()
        .args(["eval", "--a", "alphabeta:heuristic?depth=1&worlds=2", "--b", "random", "--n", "4"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = ddz().args(["eval", "--a", "ismcts:rule?sims=zero", "--b", "random"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("sims: \"zero\" is not a whole number"));
    // Timing on one thread, as JSON.
    let out = ddz()
        .args(["bench", "agents", "--agents", "rule,ismcts:rule?sims=20", "--positions", "5", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let timings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(timings.as_array().unwrap().len(), 2);
    assert_eq!(timings[1]["decisions"], 5);
    assert!(timings[1]["median_ms"].as_f64().unwrap() > 0.0);
}

#[test]
fn check_decisions_gives_verdicts_and_rates_and_names_bad_lines() {
    let out = ddz().args(["check-decisions", "--agent", "rule,random", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reports: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (rule, random) = (&reports[0], &reports[1]);
    assert_eq!(rule["total"], 60);
    assert_eq!(rule["rules"].as_array().unwrap().len(), 6);
    assert!(rule["passed"].as_u64().unwrap() >= 50, "{}", rule["passed"]);
    assert!(random["passed"].as_u64().unwrap() < rule["passed"].as_u64().unwrap(), "the check tells agents apart");
    let failed = random["verdicts"].as_array().unwrap().iter().find(|v| v["passed"] == false).unwrap();
    assert!(!failed["reason"].as_str().unwrap().is_empty());

    let dir = std::env::temp_dir().join(format!("ddz-decisions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("situations.jsonl");
    let builtin = include_str!("../crates/ddz-play/src/decisions/situations.jsonl");
    let first = builtin.lines().next().unwrap();
    let out_of_turn = first.replacen("\"seat\": \"", "\"seat\": \"x", 1);
    std::fs::write(&file, format!("{first}\n{out_of_turn}\n")).unwrap();
    let out = ddz().args(["check-decisions", "--file", file.to_str().unwrap()]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("situations.jsonl:2: win_now_lead-01: seat: unknown seat"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn evaluate_hands_trains_a_calibrated_evaluator_that_bids() {
    let dir = std::env::temp_dir().join(format!("ddz-hands-{}", std::process::id()));
    let out = ddz()
        .args(["evaluate-hands", "--agent", "rule", "--games", "3000", "--epochs", "30", "--threads", "2"])
        .args(["--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let (brier, constant) = (report["brier"].as_f64().unwrap(), report["brier_constant"].as_f64().unwrap());
    assert!(brier < constant, "the evaluator beats the base rate on held-out deals: {brier} vs {constant}");
    let deciles = report["deciles_20"].as_array().unwrap();
    assert_eq!(deciles.len(), 10);
    let (low, high) = (&deciles[0], &deciles[9]);
    assert!(high["observed"].as_f64().unwrap() > low["observed"].as_f64().unwrap() + 0.2, "{deciles:?}");
    assert_eq!(std::fs::read_to_string(dir.join("calibration.csv")).unwrap().lines().count(), 21);

    // The evaluator bids for an agent in a match with bidding.
    let bidder = format!("evaluator:{}?t1=0.55&t2=0.65&t3=0.75", dir.display());
    let out = ddz()
        .args(["eval", "--a", "rule", "--b", "rule", "--bidding", "--bidder-a", &bidder, "--n", "30", "--json"])
        .arg(dir.join("match.json"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("match.json")).unwrap()).unwrap();
    assert!(m["a"]["agent"].as_str().unwrap().contains("bidding by evaluator:"), "{m}");
    assert_eq!(m["a"]["games"], 90);
    let bad_bidder = ["eval", "--a", "rule", "--b", "rule", "--bidding", "--bidder-a", "evaluator:/nonexistent"];
    let bad = ddz().args(bad_bidder).output().unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("does not exist"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn redis_passwords_stay_out_of_error_messages() {
    // Port 1 on the loopback: nothing listens, so both fail at their first connection.
    let url = "redis://:s3cret@127.0.0.1:1/";
    let actor = ddz().args(["actor", "--broker", url, "--run", "x", "--quiet"]).output().unwrap();
    let dir = std::env::temp_dir().join(format!("ddz-mask-{}", std::process::id()));
    let learner = ddz().args(["train", "--broker", url, "--max-games", "1", "--run-dir"]).arg(&dir).output().unwrap();
    for (who, out) in [("actor", actor), ("learner", learner)] {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{who}: {err}");
        assert!(err.contains("redis://:***@127.0.0.1:1/") && !err.contains("s3cret"), "{who}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_deal_file_with_repeats_is_refused_unless_allowed() {
    let dir = std::env::temp_dir().join(format!("ddz-repeats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("deals.jsonl");
    let deals = ddz::game::generate_deals(3, 7);
    let lines: Vec<String> = [&deals[0], &deals[1], &deals[2], &deals[1]].iter().map(|d| d.to_json()).collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let eval = |extra: &[&str]| {
        ddz().args(["eval", "--a", "random", "--b", "rule", "--deals"]).arg(&file).args(extra).output().unwrap()
    };
    let refused = eval(&[]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{err}");
    assert!(err.contains("deal 4 is deal 2 again") && err.contains("--allow-duplicates"), "{err}");
    let allowed = eval(&["--allow-duplicates"]);
    let err = String::from_utf8_lossy(&allowed.stderr);
    assert!(allowed.status.success() && err.contains("warning: ") && err.contains("deal 4 is deal 2"), "{err}");
    assert!(eval(&["--n", "3"]).status.success(), "the first three are distinct");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn counts_no_machine_can_hold_are_errors_naming_the_limit() {
    let dir = std::env::temp_dir().join(format!("ddz-counts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("x.jsonl");
    let out = out.to_str().unwrap();
    for (args, named) in [
        (vec!["deals", "--n", "18446744073709551615", "--out", out], "at most 10000000 deals"),
        (vec!["logs", "selfplay", "--agent", "rule", "--games", "4000000000", "--out", out], "at most 1000000 games"),
        (vec!["evaluate-hands", "--games", "4000000000", "--out", out], "at most 10000000"),
        (vec!["eval", "--a", "pimc:models/dmc-rule-2h?worlds=4000000000", "--b", "rule"], "worlds = 4000000000"),
    ] {
        let o = ddz().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && err.contains(named), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_cheat_plays_in_evaluation_only_and_is_named_for_it() {
    let net = "cheat:models/dmc-default-2h/model.safetensors?top=2&cards=12";
    // Evaluation plays it, under the name that says what it is.
    let out = ddz().args(["eval", "--a", net, "--b", "rule", "--n", "2", "--threads", "1"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("cheat:"), "{}", String::from_utf8_lossy(&out.stdout));
    // Where a person or a program faces it, and in the ladder's ratings, it is refused.
    for args in [
        vec!["bot", "--agent", net],
        vec!["play", "--agents", net, "--deal", "1"],
        vec!["serve", "--agents", net, "--port", "0"],
        vec!["ladder", "--agents", &format!("rule,c={net}"), "--n", "2", "--out", "/nonexistent/ladder"],
    ] {
        let out = ddz().args(&args).stdin(Stdio::null()).output().unwrap();
        assert!(!out.status.success(), "{args:?} must refuse a cheat");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("sees every hand"), "{args:?}: {err}");
    }
}

#[test]
fn output_files_are_written_whole_or_not_at_all_when_the_disk_fills() {
    // A file-size limit stands in for a full disk: the write past 16 KB fails (SIGXFSZ ignored,
    // so the process sees the error instead of dying of the signal).
    let dir = std::env::temp_dir().join(format!("ddz-fullish-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_ddz");
    for (name, args) in
        [("deals.jsonl", "deals --n 1000 --out"), ("logs.jsonl", "logs selfplay --agent random --games 200 --out")]
    {
        let path = dir.join(name);
        std::fs::write(&path, "the old file\n").unwrap();
        let script = format!("trap '' XFSZ; ulimit -f 16; exec {bin} {args} {}", path.display());
        let o = Command::new("bash").args(["-c", &script]).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{name}: the write cannot have succeeded: {err}");
        assert!(err.contains(&path.display().to_string()), "{name}: the error names the file: {err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "the old file\n", "{name}: the old file stays whole");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(left.len(), 1, "{name}: no temporary file is left: {left:?}");
        std::fs::remove_file(&path).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unix_socket_passwords_stay_out_of_error_messages() {
    for url in ["redis+unix:///nonexistent/ddz.sock?db=0&pass=s3cret", "unix:///nonexistent/ddz.sock?password=s3cret"] {
        let out = ddz().args(["actor", "--broker", url, "--run", "x", "--quiet"]).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{url}: {err}");
        assert!(err.contains("/nonexistent/ddz.sock") && !err.contains("s3cret"), "{url}: {err}");
    }
}

#[test]
fn sizes_threads_and_times_beyond_the_limits_table_are_errors_naming_them() {
    let dir = std::env::temp_dir().join(format!("ddz-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("threads.toml");
    std::fs::write(&config, "[learner]\nthreads = 100000000\n").unwrap();
    let logs = dir.join("logs.jsonl");
    let made = ddz().args(["logs", "selfplay", "--games", "2", "--out"]).arg(&logs).output().unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec!["pretrain".into(), "--logs".into(), logs.clone().into(), "--batch-size".into(), "4000000000".into()],
            "batch_size: 4000000000 is out of range: a whole number from 1 to 65536",
        ),
        (
            vec!["train".into(), "--config".into(), config.clone().into(), "--run-dir".into(), dir.join("run").into()],
            "learner.threads = 100000000: a whole number from 1 to 1024",
        ),
        (
            vec![
                "eval".into(),
                "--a".into(),
                "rule".into(),
                "--b".into(),
                "random".into(),
                "--threads".into(),
                "100000000".into(),
            ],
            "--threads = 100000000: a whole number from 1 to 1024",
        ),
        (
            vec!["train".into(), "--config".into(), "configs/dmc.toml".into(), "--actors".into(), "5000".into()],
            "actors.count = 5000: a whole number from 0 to 1024",
        ),
    ];
    for (args, named) in cases {
        let out = ddz().current_dir(env!("CARGO_MANIFEST_DIR")).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(matches!(out.status.code(), Some(1 | 2)), "{args:?}: {:?} {stderr}", out.status);
        assert!(stderr.contains(named), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_shipped_config_resolves_and_print_config_shows_the_whole_result() {
    let mut configs: Vec<std::path::PathBuf> = Vec::new();
    for dir in ["configs", "configs/ablation"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                configs.push(path);
            }
        }
    }
    for config in &configs {
        let out = ddz().args(["train", "--print-config", "--config"]).arg(config).output().unwrap();
        assert!(out.status.success(), "{}: {}", config.display(), String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("[curation]") && !text.contains("extends"), "{}: {text}", config.display());
    }
    // laizi.toml over dmc.toml, then --set and a flag over both: the keys of each layer.
    let out = ddz()
        .args(["train", "--print-config", "--config", "configs/laizi.toml", "--set", "learner.lr=5e-4"])
        .args(["--seed", "11"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    assert_eq!(table["game"]["rules"].as_str(), Some("laizi"), "from laizi.toml");
    assert_eq!(table["learner"]["ema"].as_float(), Some(0.9999), "from dmc.toml");
    assert_eq!(table["learner"]["lr"].as_float(), Some(5e-4), "from --set");
    assert_eq!(table["run"]["seed"].as_integer(), Some(11), "from --seed");
    assert_eq!(table["run"]["dir"].as_str(), Some("runs/laizi"));
}
