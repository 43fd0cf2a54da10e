"""ddz.Agent: every spec plays from Python, and a network's games equal ddz eval's."""

import json
import os
import random
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ddz

ROOT = Path(__file__).resolve().parents[2]
NET = "models/dmc-td-2h/model.safetensors"
BINARY = ROOT / "target" / "release" / "ddz"  # scripts/test's cargo tests build it first


def play(state, agents):
    """Plays `state` to the end, `agents[seat]` deciding for each seat; the number of decisions."""
    n = 0
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].act(state))
        n += 1
    return n


def test_a_networks_games_through_python_equal_ddz_eval_on_the_same_deals(tmp_path):
    os.chdir(ROOT)
    deals = ddz.generate_deals(500, 2026)
    path = tmp_path / "deals.jsonl"
    ddz.write_deals(path, deals)
    report = tmp_path / "eval.json"
    subprocess.run(
        [str(BINARY), "eval", "--a", f"checkpoint:{NET}", "--b", "rule", "--deals", str(path), "--json", str(report)],
        check=True,
        capture_output=True,
    )
    want = json.loads(report.read_text())
    game = ddz.Game(scoring="points", spring=False)  # as ddz eval counts points without --bidding
    with ddz.Agent(f"checkpoint:{NET}") as net:
        rule = ddz.Agent("rule")
        for side, agents in (("a_as_landlord", [net, rule, rule]), ("a_as_farmers", [rule, net, net])):
            wins, points = 0, 0.0
            for deal in deals:
                state = game.new_state_from_deal(deal)
                play(state, agents)
                mine = state.returns()[0] if side == "a_as_landlord" else -state.returns()[0]
                wins += mine > 0
                points += mine
            assert want[side]["games"] == len(deals)
            assert wins / len(deals) == pytest.approx(want[side]["wp"]["mean"], abs=1e-12), side
            assert points / len(deals) == pytest.approx(want[side]["adp"]["mean"], abs=1e-9), side


@pytest.mark.parametrize(
    "spec",
    [
        "random",
        "rule",
        f"checkpoint:{NET}",
        f"ismcts:{NET}?sims=20",
        f"pimc:{NET}?worlds=2&ms=50",
        f"alphabeta:{NET}?depth=1&worlds=2",
        f"auto:{NET}",
        "bot:target/release/ddz bot --agent rule",
    ],
)
def test_every_kind_of_spec_plays_a_game(spec):
    os.chdir(ROOT)
    state = ddz.Game().new_dealt_state(7)
    with ddz.Agent(spec, seed=3) as agent:
        rule = ddz.Agent("rule")
        assert play(state, [agent, rule, rule]) > 0
    assert sorted(state.returns()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0])


def test_bids_and_plays_in_a_bidding_game_and_errors_that_name_the_problem():
    os.chdir(ROOT)
    state = ddz.Game(bidding=True, first_bidder=1).new_dealt_state(4)
    with ddz.Agent("checkpoint:models/dmc-bid-1h") as agent:
        play(state, [agent, agent, agent])
        assert state.landlord() is not None or state.bids() == [0, 0, 0]
    with pytest.raises(ddz.AgentError, match="checkpoint /nope does not exist"):
        ddz.Agent("checkpoint:/nope")
    with pytest.raises(ValueError, match="a seat is to act"):
        ddz.Agent("rule").act(ddz.Game().new_initial_state())
    with pytest.raises(ddz.AgentError, match="not an executable file"):
        ddz.Agent("checkpoint:x", binary="/nonexistent/ddz")


def test_gymnasium_opponents_by_spec_play_as_the_agent_does():
    os.chdir(ROOT)
    from ddz.env import DouDizhuEnv

    env = DouDizhuEnv(seat="landlord", opponents=f"checkpoint:{NET}")
    rule = ddz.RuleAgent()
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        start = env.state.clone()
        done = False
        while not done:
            obs, reward, done, _, info = env.step(rule.step(env.state) - ddz.FIRST_PLAY)
        # The same deal with the network farmers driven directly: the same game.
        with ddz.Agent(f"checkpoint:{NET}") as net:
            play(start, [ddz.Agent("rule"), net, net])
        assert start.plays() == env.state.plays() and reward == start.returns()[0]
    with pytest.raises(ddz.AgentError, match="unknown agent \"rul\""):
        DouDizhuEnv(opponents="rul")


def positions(games: int, seed: int) -> list:
    """States at every decision of seeded random games."""
    game, rng, out = ddz.Game(), random.Random(seed), []
    for k in range(games):
        state = game.new_dealt_state(seed + k)
        while not state.is_terminal():
            out.append(state.clone())
            state.apply_action(rng.choice(state.legal_actions()))
    return out


@pytest.mark.parametrize("spec", ["rule", "random", f"checkpoint:{NET}", f"ismcts:{NET}?sims=8"])
def test_act_batch_answers_what_act_answers_state_by_state(spec):
    os.chdir(ROOT)
    states = positions(5, 11)
    with ddz.Agent(spec, seed=3) as one, ddz.Agent(spec, seed=3) as many:
        alone = [one.act(s) for s in states]
        batched = many.act_batch(states)
    assert batched == alone
    assert all(a in s.legal_actions() for a, s in zip(batched, states))
    assert len(set(batched)) > 20, "the answers are not all alike"


def test_a_network_opponent_inside_vec_env_plays_as_it_does_through_the_state_api():
    os.chdir(ROOT)
    n, seed, spec = 6, 90, f"checkpoint:{NET}"
    env = ddz.VecEnv(n, seed=seed, seat="landlord_down", opponents=spec, legal="ids")
    obs, ids, seats = env.reset()
    first_seed = seed + n  # the constructor dealt games seed..seed+n-1, reset the next n
    rng = np.random.default_rng(5)
    actions, seen, result = [[] for _ in range(n)], [[obs[i].copy()] for i in range(n)], [None] * n
    while any(r is None for r in result):
        states = env.states()
        for i in range(n):  # each row's State is the row's decision: the same plays
            legal = sorted(a - ddz.FIRST_PLAY for a in states[i].legal_actions())
            assert legal == sorted(int(x) for x in ids[i] if x >= 0)
        choice = np.array([rng.choice([int(x) for x in ids[i] if x >= 0]) for i in range(n)], dtype=np.int64)
        obs, ids, rewards, dones, _ = env.step(choice)
        for i in range(n):
            if result[i] is None:
                actions[i].append(int(choice[i]))
                if dones[i]:
                    result[i] = float(rewards[i])
                else:
                    seen[i].append(obs[i].copy())
    with ddz.Agent(spec) as net:
        for i in range(n):
            state, features = ddz.Game().new_dealt_state(first_seed + i), []
            for action in actions[i] + [None]:
                while not state.is_terminal() and state.current_player() != 1:
                    state.apply_action(net.act(state))
                if state.is_terminal():
                    break
                features.append(state.information_state_tensor(1))
                state.apply_action(ddz.FIRST_PLAY + action)
            assert state.returns()[1] == result[i]
            assert len(features) == len(seen[i]) and all(np.array_equal(a, b) for a, b in zip(features, seen[i]))


def test_a_network_can_be_the_learner_of_vec_env_through_act_batch():
    os.chdir(ROOT)
    env = ddz.VecEnv(16, seed=4, seat="landlord", opponents="rule", legal="ids")
    wins = games = 0
    with ddz.Agent(f"checkpoint:{NET}") as net:
        while games < 48:
            actions = np.array(net.act_batch(env.states()), dtype=np.int64) - ddz.FIRST_PLAY
            _, _, rewards, dones, _ = env.step(actions)
            games += int(dones.sum())
            wins += int((rewards[dones] > 0).sum())
    assert wins / games > 0.5, (wins, games)  # the network beats rule as landlord most of the time


def test_a_vec_env_whose_opponent_cannot_start_says_why():
    with pytest.raises(ddz.AgentError, match="no/such/model"):
        ddz.VecEnv(2, opponents="checkpoint:/no/such/model")
    with pytest.raises(ValueError, match="timeout"):
        ddz.VecEnv(2, opponents=f"checkpoint:{NET}", timeout=0)


def test_a_late_answer_is_dropped_not_taken_for_the_next_request():
    os.chdir(ROOT)
    states = positions(2, 31)[:2]
    spec = f"ismcts:{NET}?sims=300"  # slow enough to miss a 1 ms deadline, and deterministic
    with ddz.Agent(spec) as reference:
        want = [reference.act(s) for s in states]
    with ddz.Agent(spec, binary=str(BINARY)) as agent:
        agent.timeout = 0.001
        with pytest.raises(ddz.AgentError, match="no answer within"):
            agent.act(states[0])
        agent.timeout = 120.0
        assert [agent.act(states[1]), agent.act(states[0])] == [want[1], want[0]]
    with pytest.raises(ValueError, match=r"Agent\(timeout\) = 1e\+20: a number from 0.001 to 1e\+09"):
        ddz.Agent("rule", timeout=1e20)


def test_one_agent_answers_four_threads_each_its_own_request():
    import concurrent.futures

    os.chdir(ROOT)
    states = positions(4, 57)[:200]
    with ddz.Agent(f"checkpoint:{NET}") as agent:
        want = [agent.act(s) for s in states]
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            got = list(pool.map(agent.act, states))
    assert got == want


@pytest.mark.parametrize(
    "spec",
    [f"checkpoint:{NET}", f"ismcts:{NET}?sims=20", "checkpoint:models/dmc-bid-1h", "douzero:models/douzero-1h"],
)
def test_an_agent_in_this_process_answers_what_its_bot_process_answers(spec):
    os.chdir(ROOT)
    game = ddz.Game(bidding=spec.endswith("bid-1h"))
    states = []
    for seed in range(6):
        state = game.new_dealt_state(seed)
        while not state.is_terminal():
            states.append(state.clone())
            state.apply_action(ddz.RuleAgent().step(state) if state.landlord() is not None else
                               state.legal_actions()[-1])
    states = [s for s in states if len(s.legal_actions()) > 1][:60]
    with ddz.Agent(spec) as here, ddz.Agent(spec, binary=str(BINARY)) as there:
        assert here._native is not None and there._proc is not None
        assert [here.act(s) for s in states] == [there.act(s) for s in states]
        assert here.act_batch(states) == there.act_batch(states)


def test_no_torch_is_loaded_or_needed_to_play_a_network():
    """In a fresh interpreter where `import torch` fails, a network and a search agent play."""
    code = f"""
import sys
sys.modules["torch"] = None  # any import of torch now raises ImportError
import os, ddz
os.chdir({str(ROOT)!r})
state = ddz.Game().new_dealt_state(3)
with ddz.Agent("checkpoint:{NET}") as net, ddz.Agent("ismcts:{NET}?sims=10") as search:
    agents = [net, search, ddz.Agent("rule")]
    while not state.is_terminal():
        state.apply_action(agents[state.current_player()].act(state))
print(sorted(m for m, v in sys.modules.items() if v is not None and m.startswith(("torch", "tch"))), state.returns())
"""
    out = subprocess.run([os.sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("[] "), out
