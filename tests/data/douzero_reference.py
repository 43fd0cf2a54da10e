"""DouZero's own answers, for tests/douzero.rs: makes a DouZero checkpoint folder with
DouZero's model code (freshly initialised from SEED and saved as its trainer saves weights,
`POSITION_weights_0.ckpt`), then plays GAMES games on random deals in DouZero's GameEnv with its
DeepAgent on those files in every seat, and writes every decision with more than one legal play
to OUT/decisions.jsonl: the seat's role, hand and the moves so far, DouZero's legal plays, its
features (x without the play, z, the chosen play's x row), its Q values and its choice.

    python douzero_reference.py OUT GAMES SEED
"""
import json
import os
import sys

import numpy as np
import torch
from douzero.dmc.models import Model
from douzero.env.env import deck, get_obs
from douzero.env.game import GameEnv
from douzero.evaluation.deep_agent import DeepAgent

NAMES = {3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T", 11: "J", 12: "Q", 13: "K",
         14: "A", 17: "2", 20: "B", 30: "R"}
ORDER = ("landlord", "landlord_down", "landlord_up")


def notation(move):
    return "".join(NAMES[c] for c in sorted(move)) or "pass"


class Recorder:
    """DouZero's DeepAgent, with each decision it makes written down."""

    def __init__(self, agent, out):
        self.agent, self.out = agent, out

    def act(self, infoset):
        choice = self.agent.act(infoset)
        legal = infoset.legal_actions
        if len(legal) > 1:
            obs = get_obs(infoset)
            with torch.no_grad():
                q = self.agent.model.forward(torch.from_numpy(obs["z_batch"]).float(),
                                             torch.from_numpy(obs["x_batch"]).float(), return_value=True)["values"]
            q = q.flatten().tolist()
            k = legal.index(choice)
            seq = infoset.card_play_action_seq
            self.out.write(json.dumps({
                "role": infoset.player_position,
                "hand": notation(infoset.player_hand_cards),
                "moves": [[ORDER[i % 3], notation(m)] for i, m in enumerate(seq)],
                "legal": [notation(m) for m in legal],
                "x_no_action": obs["x_no_action"].astype(int).tolist(),
                "z": obs["z"].astype(int).flatten().tolist(),
                "chosen_row": obs["x_batch"][k].astype(int).tolist(),
                "q": q,
                "chosen": k,
            }) + "\n")
        return choice


def main() -> None:
    out, games, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    model = Model(device="cpu")
    for position in ORDER:
        torch.save(model.get_model(position).state_dict(), os.path.join(out, f"{position}_weights_0.ckpt"))
    rng = np.random.RandomState(seed)
    with open(os.path.join(out, "decisions.jsonl"), "w") as f:
        players = {p: Recorder(DeepAgent(p, os.path.join(out, f"{p}_weights_0.ckpt")), f) for p in ORDER}
        env = GameEnv(players)
        for _ in range(games):
            cards = deck.copy()
            rng.shuffle(cards)
            env.card_play_init({"landlord": sorted(cards[:20]), "landlord_up": sorted(cards[20:37]),
                                "landlord_down": sorted(cards[37:54]), "three_landlord_cards": sorted(cards[17:20])})
            while not env.game_over:
                env.step()
            env.reset()


if __name__ == "__main__":
    main()
