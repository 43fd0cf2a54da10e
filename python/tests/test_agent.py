"""ddz.Agent: every spec plays from Python, and a network's games equal ddz eval's."""

import json
import os
import subprocess
from pathlib import Path

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
