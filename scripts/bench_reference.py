"""Reference for `ddz bench engine --reference`: OpenSpiel's C++ dou_dizhu driven from Python.

Plays uniformly random games (chance nodes by their outcome probabilities, then uniformly
random legal actions) for a time budget and prints one JSON line: {"games_per_s": …}.
Usage: python bench_reference.py SECONDS SEED
"""
import json
import random
import sys
import time


def random_game(state, rng) -> int:
    """Plays an OpenSpiel-style state to the end (chance nodes by their probabilities, then
    uniformly random legal actions); returns the players' decisions. scripts/bench_python.py
    drives ddz's State API with the same loop."""
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions


def main() -> None:
    import pyspiel

    seconds = float(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    game = pyspiel.load_game("dou_dizhu")
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        decisions += random_game(game.new_initial_state(), rng)
        games += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed}))


if __name__ == "__main__":
    main()
