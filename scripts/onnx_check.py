"""Runs exported ddz networks in onnxruntime against their golden vectors (`ddz export`).

    python onnx_check.py MODEL.onnx GOLDEN.jsonl [MODEL.onnx GOLDEN.jsonl ...]

For each pair, every golden position's features (rebuilt from their non-zero entries) go through
the ONNX graph; prints one JSON line per pair: the positions, the largest absolute difference of
any Q (and expected points) from the golden value, how many greedy choices (the highest Q, or
with a score head the highest Q within the margin of the best points) equal the golden greedy
play, and the graph's metadata. A per-role network's files each take the positions of their
role. Needs numpy and onnxruntime only.
"""
import json
import sys

import numpy as np
import onnxruntime as ort

ROLES = {"landlord": 0, "landlord_down": 1, "landlord_up": 2}
OFF_ROLE = 1264  # the role one-hot in the state features (crates/ddz-engine/src/encode/mod.rs)


def greedy(q, points, margin):
    if points is None:
        return int(np.argmax(q))
    floor = points.max() - margin
    allowed = np.where(points >= floor, q, -np.inf)
    return int(np.argmax(allowed))


def check(model_path, golden_path):
    session = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    meta = session.get_modelmeta().custom_metadata_map
    state_dim, action_dim = int(meta["ddz_state_features"]), int(meta["ddz_action_features"])
    outputs = [o.name for o in session.get_outputs()]
    margin = float(meta.get("ddz_score_margin", "0"))
    role = meta.get("ddz_role")
    positions, worst, same = 0, 0.0, 0
    for line in open(golden_path):
        g = json.loads(line)
        state = np.zeros((1, state_dim), np.float32)
        for i, v in g["state"]:
            state[0, i] = v
        if role is not None and int(np.argmax(state[0, OFF_ROLE:OFF_ROLE + 3])) != ROLES[role]:
            continue
        actions = np.zeros((len(g["legal"]), action_dim), np.float32)
        for k, row in enumerate(g["actions"]):
            for i, v in row:
                actions[k, i] = v
        owner = np.zeros(len(g["legal"]), np.int64)
        got = dict(zip(outputs, session.run(outputs, {"state": state, "actions": actions, "owner": owner})))
        worst = max(worst, float(np.abs(got["q"] - np.array(g["q"], np.float32)).max()))
        points = None
        if "points" in got:
            points = got["points"]
            worst = max(worst, float(np.abs(points - np.array(g["points"], np.float32)).max()))
        same += int(greedy(got["q"], points, margin) == g["greedy"])
        positions += 1
    return {"model": model_path, "positions": positions, "worst": worst, "same_greedy": same, "metadata": meta}


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        raise SystemExit(__doc__)
    for model, golden in zip(args[::2], args[1::2]):
        print(json.dumps(check(model, golden)))


if __name__ == "__main__":
    main()
