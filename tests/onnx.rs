//! `ddz export --onnx`: the exported graphs run in onnxruntime (PyPI, installed into the venv on
//! first use) and give the values of ddz's own forward pass, for every switch a network can have
//! and for the shipped networks of every rule set, on golden vectors `ddz export --golden` wrote.

mod common;

use ddz::nets::config::{HistoryEncoder, ModelConfig};
use ddz::nets::{BidNetwork, Weights};
use std::path::{Path, PathBuf};
use std::process::Command;

fn ddz(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_ddz")).args(args).output().unwrap();
    assert!(out.status.success(), "ddz {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// onnxruntime's verdict on each (graph, golden vectors) pair (scripts/onnx_check.py).
fn onnxruntime(pairs: &[(PathBuf, PathBuf)]) -> Vec<serde_json::Value> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    common::checkout_scripts("import onnxruntime, numpy", &["onnxruntime", "numpy"]);
    let mut cmd = Command::new(root.join(".venv/bin/python"));
    cmd.arg(root.join("scripts/onnx_check.py"));
    for (model, golden) in pairs {
        cmd.arg(model).arg(golden);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn assert_equal(verdicts: &[serde_json::Value], at_least: u64) {
    for v in verdicts {
        let (positions, same) = (v["positions"].as_u64().unwrap(), v["same_greedy"].as_u64().unwrap());
        assert!(positions >= at_least, "{v}");
        assert!(v["worst"].as_f64().unwrap() <= 1e-5, "{v}");
        assert_eq!(same, positions, "the greedy play of every position: {v}");
        assert_eq!(v["metadata"]["ddz_feature_layout"], ddz::nets::FEATURE_LAYOUT, "{v}");
    }
}

#[test]
#[ignore = "slow: installs onnxruntime into the venv (scripts/test runs it)"]
fn every_switch_exports_and_onnxruntime_computes_what_ddz_computes() {
    let dir = std::env::temp_dir().join(format!("ddz-onnx-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let small = ModelConfig { trunk: vec![16, 8], head: 8, head_hidden: vec![6], ..Default::default() };
    let configs = [
        ("flat", small.clone()),
        ("lstm", ModelConfig { history: HistoryEncoder::Lstm, history_size: 5, ..small.clone() }),
        ("hands-score", ModelConfig { hand_prediction: true, score_head: true, score_margin: 0.3, ..small.clone() }),
        ("first-layout", ModelConfig { inputs: ddz::encode::STATE_DIM_V1, head_hidden: vec![], ..small.clone() }),
        ("structure-oracle", ModelConfig { hand_structure: true, oracle: true, ..small.clone() }),
        ("laizi", ModelConfig { rules: ddz::game::Rules::Laizi, laizi_top: 12, ..small.clone() }),
        ("two-player", ModelConfig { rules: ddz::game::Rules::TwoPlayer, ..small.clone() }),
    ];
    let mut pairs = Vec::new();
    for (i, (name, config)) in configs.iter().enumerate() {
        let file = dir.join(format!("{name}.safetensors"));
        let mut weights = Weights::random(&config.tensor_shapes(), i as u64 + 1);
        for (n, _, data) in &mut weights.tensors {
            match n.as_str() {
                "score_margin" => data[0] = config.score_margin as f32,
                "laizi_top" => data[0] = config.laizi_top as f32,
                _ => {}
            }
        }
        weights.write(&file).unwrap();
        let (onnx, golden) = (dir.join(format!("{name}.onnx")), dir.join(format!("{name}.jsonl")));
        let (m, o, g) = (file.to_str().unwrap(), onnx.to_str().unwrap(), golden.to_str().unwrap());
        ddz(&["export", m, "--onnx", o, "--golden", g, "--positions", "200"]);
        pairs.push((onnx, golden));
    }
    // A per-role network: one graph a role, each checked on its role's positions.
    let per_role = ModelConfig { per_role: true, history: HistoryEncoder::Lstm, history_size: 4, ..small };
    let file = dir.join("per-role.safetensors");
    Weights::random(&per_role.tensor_shapes(), 9).write(&file).unwrap();
    let golden = dir.join("per-role.jsonl");
    let (m, o, g) = (file.to_str().unwrap(), dir.join("per-role.onnx"), golden.to_str().unwrap());
    ddz(&["export", m, "--onnx", o.to_str().unwrap(), "--golden", g, "--positions", "300"]);
    for role in ddz::game::Role::ALL {
        pairs.push((dir.join(format!("per-role.{}.onnx", role.name())), golden.clone()));
    }
    assert_equal(&onnxruntime(&pairs), 40);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "slow: installs onnxruntime into the venv (scripts/test runs it)"]
fn the_shipped_networks_of_every_rule_set_export_with_their_bidding_networks() {
    let dir = std::env::temp_dir().join(format!("ddz-onnx-shipped-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pairs = Vec::new();
    for model in ["ema-2h", "laizi-1h", "two-player-1h"] {
        let (onnx, golden) = (dir.join(format!("{model}.onnx")), dir.join(format!("{model}.jsonl")));
        let path = root.join("models").join(model);
        ddz(&[
            "export",
            path.to_str().unwrap(),
            "--onnx",
            onnx.to_str().unwrap(),
            "--golden",
            golden.to_str().unwrap(),
            "--positions",
            "1000",
        ]);
        pairs.push((onnx, golden));
    }
    assert_equal(&onnxruntime(&pairs), 1000);
    // The bidding network of the two-player network's folder, beside it.
    let bid = dir.join("two-player-1h.bid.onnx");
    assert!(bid.is_file(), "the folder's bidding network is exported too");
    let net = BidNetwork::load(&root.join("models/two-player-1h/bid.safetensors")).unwrap();
    let features: Vec<f32> = (0..40 * ddz::encode::BID_DIM).map(|i| (i % 7 == 0) as u8 as f32).collect();
    let want: Vec<f32> = net.q_values(&features).into_iter().flatten().collect();
    let code = format!(
        "import numpy as np, onnxruntime as ort, json, sys\n\
         s = ort.InferenceSession({:?}, providers=['CPUExecutionProvider'])\n\
         x = np.array(json.loads(sys.stdin.read()), np.float32).reshape(40, -1)\n\
         print(json.dumps(s.run(['q'], {{'bid_state': x}})[0].ravel().tolist()))",
        bid.to_str().unwrap()
    );
    let mut child = Command::new(root.join(".venv/bin/python"))
        .args(["-c", &code])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(serde_json::to_string(&features).unwrap().as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let got: Vec<f32> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got.len(), want.len());
    assert!(got.iter().zip(&want).all(|(a, b)| (a - b).abs() <= 1e-5), "{got:?} vs {want:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// docs/inference/golden/*.jsonl (`ddz export MODEL --golden FILE --positions 200 --seed 7`) is
/// the contract an outside program checks itself against: ddz must still encode and value each
/// position as the file says (features exactly, values within 1e-5, the same plays chosen).
#[test]
fn the_shipped_golden_vectors_are_what_ddz_computes_today() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for model in ["ema-2h", "laizi-1h", "two-player-1h"] {
        let file = root.join(format!("docs/inference/golden/{model}.jsonl"));
        let stored: Vec<ddz::export::Golden> =
            std::fs::read_to_string(&file).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let now = ddz::export::golden(&root.join("models").join(model), stored.len(), 7).unwrap();
        assert_eq!(stored.len(), 200, "{model}");
        for (k, (s, n)) in stored.iter().zip(&now).enumerate() {
            let at = format!("{model}, position {k}");
            assert_eq!(
                (&s.request, &s.legal, &s.state, &s.actions),
                (&n.request, &n.legal, &n.state, &n.actions),
                "{at}"
            );
            assert!(s.q.iter().zip(&n.q).all(|(a, b)| (a - b).abs() <= 1e-5), "{at}: Q");
            assert_eq!((s.choice, s.greedy), (n.choice, n.greedy), "{at}");
        }
    }
}
