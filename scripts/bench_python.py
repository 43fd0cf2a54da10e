#!/usr/bin/env python3
"""ddz from Python against OpenSpiel's pyspiel and RLCard, timed in the same run on one core.

    scripts/bench_python [--seconds 3] [--runs 3] [--json FILE]

Each measurement is a fresh process pinned to CPU 0; the programs take turns, `runs` rounds,
and the medians are reported with their ratios. open_spiel and rlcard are installed into a
separate venv (.venv-bench) on first use, away from the project's venv.

- state_api: random games (deal, bidding, play) through ddz's State API, as pyspiel's below;
- pyspiel: the same loop over OpenSpiel's dou_dizhu;
- state_api_features: random games without bidding that also read, at every decision, the
  information-state tensor and the legal-action mask (what VecEnv returns);
- gym: episodes of ddz.env.DouDizhuEnv with random opponents and random legal learner actions;
- rlcard: games of RLCard's doudizhu environment, random legal actions in every seat;
- vecenv_mask / vecenv_ids: learner decisions/s of ddz.VecEnv(256, opponents="random") with
  features and masks (or candidate lists), the learner taking the first legal play;
- vecenv_selfplay_ids: the same in self-play (seat="all": every decision is the learner's);
- vecenv_rule_ids / vecenv_net_ids: VecEnv(256, legal="ids") with rule opponents, or with the
  default network (models/dmc-default-2h) as both opponents, in this process, asked for every
  round's waiting decisions at once; these report the opponents' decisions/s as well;
- agent_net: the State API loop with the same network as both farmers through
  ddz.Agent.act, in this process (the learner, the landlord, random);
- agent_net_process: the same through a `ddz bot` process (``ddz.Agent(spec, process=True)``),
  one request line per decision, as ddz.Agent played every network before it played them in
  this process; vecenv_net_process_ids: vecenv_net_ids with its opponents in such a process.

``--only a,b`` runs those measurements alone (their ratios only where both sides ran).
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench_reference import random_game  # the same loop drives both State APIs

ROOT = Path(__file__).resolve().parent.parent
BENCH_VENV = ROOT / ".venv-bench"
REFERENCES = ["open_spiel==2.0.2", "rlcard==1.2.0", "numpy<2"]
NETWORK = ROOT / "models" / "dmc-default-2h"  # the default network of play, serve and bot


def timed(seconds, one_game):
    """Runs `one_game` (returns its decisions) until `seconds` pass: games/s and decisions/s."""
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        decisions += one_game()
        games += 1
    elapsed = time.perf_counter() - start
    return {"games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed}


def worker_state_api(seconds, seed):
    import ddz

    game, rng = ddz.Game(bidding=True), random.Random(seed)
    return timed(seconds, lambda: random_game(game.new_initial_state(), rng))


def worker_pyspiel(seconds, seed):
    import pyspiel

    game, rng = pyspiel.load_game("dou_dizhu"), random.Random(seed)
    return timed(seconds, lambda: random_game(game.new_initial_state(), rng))


def worker_state_api_features(seconds, seed):
    import ddz

    game, rng = ddz.Game(), random.Random(seed)

    def one_game():
        state, decisions = game.new_dealt_state(rng.randrange(2**63)), 0
        while not state.is_terminal():
            state.information_state_tensor()
            state.legal_actions_mask()
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
        return decisions

    return timed(seconds, one_game)


def worker_gym(seconds, seed):
    import numpy as np

    from ddz.env import DouDizhuEnv

    env, rng = DouDizhuEnv(seat="landlord", opponents="random"), np.random.default_rng(seed)
    episodes = iter(range(1 << 62))

    def one_game():
        _, info = env.reset(seed=seed + next(episodes))
        done, steps = False, 0
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"].view(np.bool_)))))
            steps += 1
        return steps

    return timed(seconds, one_game)


def worker_rlcard(seconds, seed):
    import rlcard

    env, rng = rlcard.make("doudizhu", config={"seed": seed}), random.Random(seed)

    def one_game():
        state, _ = env.reset()
        decisions = 0
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"].keys())))
            decisions += 1
        return decisions

    return timed(seconds, one_game)


def vecenv(seconds, seed, legal, seat="landlord", opponents="random", binary=None):
    import numpy as np

    import ddz

    n = 256
    env = ddz.VecEnv(n, seed=seed, seat=seat, opponents=opponents, legal=legal, binary=binary)
    obs, plays, _ = env.reset()
    decisions, games, before = 0, 0, env.opponent_decisions
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        first = plays.argmax(axis=1) if legal == "mask" else plays[:, 0]
        obs, plays, _, dones, _ = env.step(first.astype(np.int64))
        decisions += n
        games += int(dones.sum())
    elapsed = time.perf_counter() - start
    opponent = (env.opponent_decisions - before) / elapsed
    return {"games_per_s": games / elapsed, "decisions_per_s": decisions / elapsed, "opponent_decisions_per_s": opponent}


def worker_agent_net(seconds, seed, process=False):
    """Games through the State API, the landlord random, both farmers ddz.Agent(network).act:
    one decision at a time (in this process, or one request line to a `ddz bot` process)."""
    import ddz

    game, rng = ddz.Game(), random.Random(seed)
    with ddz.Agent(f"checkpoint:{NETWORK}", process=process) as net:
        opponent = 0
        start, games, learner = time.perf_counter(), 0, 0
        while time.perf_counter() - start < seconds:
            state = game.new_dealt_state(rng.randrange(2**63))
            while not state.is_terminal():
                if state.current_player() == 0:
                    state.apply_action(rng.choice(state.legal_actions()))
                    learner += 1
                else:
                    state.apply_action(net.act(state))
                    opponent += 1
            games += 1
        elapsed = time.perf_counter() - start
    return {"games_per_s": games / elapsed, "decisions_per_s": learner / elapsed, "opponent_decisions_per_s": opponent / elapsed}


WORKERS = {
    "state_api": worker_state_api,
    "pyspiel": worker_pyspiel,
    "state_api_features": worker_state_api_features,
    "gym": worker_gym,
    "rlcard": worker_rlcard,
    "vecenv_mask": lambda s, seed: vecenv(s, seed, "mask"),
    "vecenv_ids": lambda s, seed: vecenv(s, seed, "ids"),
    "vecenv_selfplay_ids": lambda s, seed: vecenv(s, seed, "ids", seat="all"),
    "vecenv_rule_ids": lambda s, seed: vecenv(s, seed, "ids", opponents="rule"),
    "vecenv_net_ids": lambda s, seed: vecenv(s, seed, "ids", opponents=f"checkpoint:{NETWORK}"),
    "vecenv_net_process_ids": lambda s, seed: vecenv(
        s, seed, "ids", opponents=f"checkpoint:{NETWORK}", binary=str(ROOT / "target" / "release" / "ddz")
    ),
    "agent_net": worker_agent_net,
    "agent_net_process": lambda s, seed: worker_agent_net(s, seed, process=True),
}
IN_BENCH_VENV = {"pyspiel", "rlcard"}


def ensure_bench_venv():
    python = BENCH_VENV / "bin" / "python"
    if python.exists() and subprocess.run([python, "-c", "import pyspiel, rlcard"], capture_output=True).returncode == 0:
        return python
    print(f"installing {' '.join(REFERENCES)} into {BENCH_VENV} (first run only)", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", BENCH_VENV], check=True)
    pip = [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + REFERENCES, check=True)
    return python


def run_worker(name, seconds, seed, bench_python):
    python = bench_python if name in IN_BENCH_VENV else sys.executable
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run(
        [python, __file__, "--worker", name, "--seconds", str(seconds), "--seed", str(seed)],
        capture_output=True, text=True, env=env,
    )
    if out.returncode != 0:
        raise SystemExit(f"{name} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


RATIOS = {
    "state_api_over_pyspiel_games": (("state_api", "games_per_s"), ("pyspiel", "games_per_s")),
    "gym_over_rlcard_games": (("gym", "games_per_s"), ("rlcard", "games_per_s")),
    "vecenv_mask_over_state_api_decisions": (("vecenv_mask", "decisions_per_s"), ("state_api", "decisions_per_s")),
    "vecenv_ids_over_state_api_decisions": (("vecenv_ids", "decisions_per_s"), ("state_api", "decisions_per_s")),
    "vecenv_selfplay_ids_over_state_api_decisions": (
        ("vecenv_selfplay_ids", "decisions_per_s"),
        ("state_api", "decisions_per_s"),
    ),
    "vecenv_net_over_rule_opponent_decisions": (
        ("vecenv_net_ids", "opponent_decisions_per_s"),
        ("vecenv_rule_ids", "opponent_decisions_per_s"),
    ),
    "vecenv_net_over_agent_net_opponent_decisions": (
        ("vecenv_net_ids", "opponent_decisions_per_s"),
        ("agent_net", "opponent_decisions_per_s"),
    ),
    "vecenv_mask_over_state_api_features_decisions": (
        ("vecenv_mask", "decisions_per_s"),
        ("state_api_features", "decisions_per_s"),
    ),
    "agent_net_in_process_over_process_opponent_decisions": (
        ("agent_net", "opponent_decisions_per_s"),
        ("agent_net_process", "opponent_decisions_per_s"),
    ),
    "vecenv_net_in_process_over_process_opponent_decisions": (
        ("vecenv_net_ids", "opponent_decisions_per_s"),
        ("vecenv_net_process_ids", "opponent_decisions_per_s"),
    ),
}


def summarise(results):
    med = {k: {m: statistics.median(r[m] for r in runs) for m in runs[0]} for k, runs in results.items() if runs}
    ratios = {
        name: med[a][am] / med[b][bm] for name, ((a, am), (b, bm)) in RATIOS.items() if a in med and b in med
    }
    return med, ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    ap.add_argument("--runs", type=int, default=3, help="rounds; the medians are reported")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--only", help="comma-separated measurements to run (default: all)")
    ap.add_argument("--worker", choices=sorted(WORKERS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        os.sched_setaffinity(0, {0})
        print(json.dumps(WORKERS[args.worker](args.seconds, args.seed)))
        return
    names = args.only.split(",") if args.only else list(WORKERS)
    unknown = [n for n in names if n not in WORKERS]
    if unknown:
        raise SystemExit(f"--only: no measurement {unknown}; there are {sorted(WORKERS)}")
    bench_python = ensure_bench_venv() if IN_BENCH_VENV & set(names) else None
    results = {name: [] for name in names}
    for r in range(args.runs):
        for name in names:
            results[name].append(run_worker(name, args.seconds, args.seed + r, bench_python))
            print(f"run {r + 1}/{args.runs} {name}: {results[name][-1]}", file=sys.stderr)
    med, ratios = summarise(results)
    print(f"{'program':<20} {'games/s':>12} {'decisions/s':>14} {'opponents/s':>12}")
    for name, m in med.items():
        opp = f"{m['opponent_decisions_per_s']:>12,.0f}" if "opponent_decisions_per_s" in m else ""
        print(f"{name:<20} {m['games_per_s']:>12,.0f} {m['decisions_per_s']:>14,.0f} {opp}")
    for k, v in ratios.items():
        print(f"{k}: {v:.2f}x")
    if args.json:
        report = {"seconds": args.seconds, "runs": args.runs, "one_core": True, "medians": med, "ratios": ratios, "all": results}
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
