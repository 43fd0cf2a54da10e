"""An exported network plays from its ONNX file alone (docs/inference/play_onnx.py): onnxruntime,
numpy and the package's encoder make the plays ddz's own agent makes."""

import importlib.util
import os
import subprocess
from pathlib import Path

import pytest

import ddz

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "target" / "release" / "ddz"  # scripts/test's cargo tests build it first
ort = pytest.importorskip("onnxruntime")  # scripts/python.sh installs it


def example():
    spec = importlib.util.spec_from_file_location("play_onnx", ROOT / "docs" / "inference" / "play_onnx.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("model", ["ema-2h", "dmc-td-2h"])  # with and without hand structure
def test_the_onnx_example_plays_the_games_ddz_plays(tmp_path, model):
    os.chdir(ROOT)
    onnx = tmp_path / f"{model}.onnx"
    subprocess.run([str(BINARY), "export", f"models/{model}", "--onnx", str(onnx)], check=True, capture_output=True)
    play = example().play
    with ddz.Agent(f"checkpoint:models/{model}") as net:
        for seed in range(4):
            state, rule, want = ddz.Game().new_dealt_state(seed), ddz.RuleAgent(), []
            while not state.is_terminal():
                action = net.act(state) if state.current_player() == 0 else rule.step(state)
                want.append(action)
                state.apply_action(action)
            assert play(str(onnx), seed, verbose=False) == want, f"seed {seed}"


def test_the_package_encodes_the_plays_of_the_golden_vectors():
    """docs/inference/golden/*.jsonl: the package's encoder gives each position's features."""
    import json

    import numpy as np

    for name, structure in [("ema-2h", True), ("two-player-1h", True), ("laizi-1h", True)]:
        lines = (ROOT / "docs" / "inference" / "golden" / f"{name}.jsonl").read_text().splitlines()[:40]
        for line in lines:
            g = json.loads(line)
            state = ddz.View.from_json(json.dumps(g["request"])).redeal(0)
            features = ddz.encode_state(state, state.current_player())
            want = np.zeros(ddz.STATE_DIM, np.float32)
            for i, v in g["state"]:
                want[i] = v
            assert np.array_equal(features, want)
            plays = ddz.encode_plays(state, hand_structure=structure)
            legal = [state.action_to_string(a) for a in state.legal_actions()]
            assert sorted(legal) == sorted(g["legal"])
            for k, play in enumerate(g["legal"]):
                row = np.zeros(plays.shape[1], np.float32)
                for i, v in g["actions"][k]:
                    row[i] = v
                assert np.array_equal(plays[legal.index(play)], row), play
