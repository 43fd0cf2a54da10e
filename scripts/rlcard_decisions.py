"""RLCard's rule agent's decisions, as DouZero's evaluation plays it, stored for the test of the
Rust `rlcard` agent (crates/ddz-agents/tests/rlcard.rs):

  .venv/bin/python scripts/rlcard_decisions.py OUT.jsonl [--games 700] [--seed 1]

Plays whole standard games (seat 0 the landlord, no bidding) between a mix of agents drawn per
seat and game: the Python RLCard agent itself, ddz's rule agent and ddz's random agent. At
every play decision of every seat, whoever plays it, the RLCard agent is asked on that seat's
view, through the same DouZero InfoSet and legal plays `scripts/douzero_bot.py rlcard` builds;
its answer is recorded as its play, or, where it drew at random (its fallback, and its
`except`), as the list of plays it drew from. One JSON line a game:

  {"hands": [20 cards, 17, 17], "bottom": "…", "plays": ["34567", "pass", …],
   "rlcard": ["34567", {"uniform": ["pass", "9", …]}, …]}

The Python agent's draws are seeded per game, so the file is the same on every run.
"""
import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import douzero_bot  # noqa: E402  (DouZero's InfoSet and legal plays, as the bot builds them)
from douzero.evaluation.rlcard_agent import RLCardAgent  # noqa: E402

import ddz  # noqa: E402

ROLES = douzero_bot.ROLES


def rlcard_decision(agent, request):
    """RLCard's agent at a native play request: (its move, the lists it drew from)."""
    info, mismatch = douzero_bot.infoset(json.loads(request))
    if mismatch:
        raise SystemExit(f"a history DouZero refuses: {mismatch}")
    drawn = []
    plain_choice = random.choice

    def recorded_choice(seq):
        drawn.append([douzero_bot.notation(m) for m in seq])
        return plain_choice(seq)

    random.choice = recorded_choice  # the agent calls random.choice through the module
    try:
        move = agent.act(info)
    finally:
        random.choice = plain_choice
    return douzero_bot.notation(move), drawn


def play_game(game, seed, kinds):
    """One game: `kinds` names each seat's agent. Returns its record."""
    random.seed(seed)
    state = game.new_dealt_state(seed)
    record = {"hands": [state.hand(s) for s in range(3)], "bottom": state.bottom(), "plays": [], "rlcard": []}
    agents = {r: RLCardAgent(r) for r in ROLES}
    others = {"rule": ddz.RuleAgent(), "random": ddz.RandomAgent(seed)}
    while not state.is_terminal():
        seat = state.current_player()
        view = state.view(seat)
        move, drawn = rlcard_decision(agents[view.role], view.to_json())
        record["rlcard"].append({"uniform": drawn[0]} if drawn else move)
        legal = {state.action_to_string(seat, a): a for a in state.legal_actions()}
        if kinds[seat] == "rlcard":
            # A play DouZero allows and ddz does not (the rocket as kickers): the first legal.
            action = legal.get(move, min(legal.values()))
        else:
            action = others[kinds[seat]].step(state)
        record["plays"].append(state.action_to_string(seat, action))
        state.apply_action(action)
    return record


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--games", type=int, default=700)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = ddz.Game()
    draw = random.Random(args.seed)
    decisions = uniform = 0
    with open(args.out + ".tmp", "w") as f:
        for g in range(args.games):
            kinds = [draw.choice(["rlcard", "rlcard", "rule", "random"]) for _ in range(3)]
            record = play_game(game, args.seed * 1_000_003 + g, kinds)
            decisions += len(record["rlcard"])
            uniform += sum(isinstance(d, dict) for d in record["rlcard"])
            f.write(json.dumps(record, separators=(",", ":")) + "\n")
    Path(args.out + ".tmp").replace(args.out)
    print(f"{args.games} games, {decisions} decisions, {uniform} of them drawn at random -> {args.out}")


if __name__ == "__main__":
    main()
