"""Plays ddz's network from its ONNX file against the rule agent: onnxruntime and numpy, with the
`ddz` package for the rules and the encoder (docs/inference.md, "Playing with only the ONNX file").

    scripts/ddz export models/ema-2h --onnx ema-2h.onnx
    python docs/inference/play_onnx.py ema-2h.onnx [SEED]

Prints each play and the returns; the network is the landlord (seat 0), the rule agent both
farmers.
"""
import sys

import numpy as np
import onnxruntime as ort

import ddz


class OnnxAgent:
    """A seat played by the exported network: greedy on its Q over the legal plays."""

    def __init__(self, path):
        self.session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        meta = self.session.get_modelmeta().custom_metadata_map
        if meta.get("ddz_feature_layout") != ddz.FEATURE_LAYOUT:
            raise ValueError(f"{path} reads features {meta.get('ddz_feature_layout')}, this ddz writes {ddz.FEATURE_LAYOUT}")
        self.hand_structure = meta["ddz_hand_structure"] == "true"
        self.margin = float(meta["ddz_score_margin"]) if "ddz_score_margin" in meta else None

    def act(self, state):
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        features = ddz.encode_state(state, state.current_player())[None, :]
        plays = ddz.encode_plays(state, hand_structure=self.hand_structure)
        owner = np.zeros(len(legal), np.int64)
        outputs = self.session.run(None, {"state": features, "actions": plays, "owner": owner})
        q = outputs[0]
        if self.margin is not None:  # with a score head: the best Q within the margin of the best points
            points = outputs[1]
            q = np.where(points >= points.max() - self.margin, q, -np.inf)
        return legal[int(np.argmax(q))]


def play(path, seed=1, verbose=True):
    """One game of `path`'s network as the landlord against two rule agents; the actions made."""
    state = ddz.Game().new_dealt_state(seed)
    seats = [OnnxAgent(path), ddz.RuleAgent(), ddz.RuleAgent()]
    actions = []
    while not state.is_terminal():
        seat = state.current_player()
        action = seats[seat].act(state) if seat == 0 else seats[seat].step(state)
        if verbose:
            print(f"seat {seat}: {state.action_to_string(action)}")
        actions.append(action)
        state.apply_action(action)
    if verbose:
        print("returns", state.returns())
    return actions


if __name__ == "__main__":
    play(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
