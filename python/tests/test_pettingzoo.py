"""The PettingZoo environment: PettingZoo's own checks, and games that agree with the State API."""

import random

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo")
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import ddz  # noqa: E402
import ddz.pettingzoo as dp  # noqa: E402


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"scoring": "points"},
        {"bidding": True},
        # Two seats, two agents (an IndexError at every game's end when there were three).
        {"rules": "two_player"},
        {"rules": "two_player", "bidding": True},
    ],
)
def test_pettingzoos_api_and_seed_tests_pass(kwargs):
    api_test(dp.env(**kwargs), num_cycles=1000, verbose_progress=False)
    seed_test(lambda: dp.env(**kwargs), num_cycles=500)


def test_render_modes():
    render_test(lambda render_mode=None: dp.env(render_mode=render_mode))
    e = dp.env(render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert "landlord:" in text and "to move: landlord" in text
    with pytest.raises(ValueError, match="render_mode 'rgb_array'"):
        dp.env(render_mode="rgb_array")


def play_through_env(games):
    """Random landlord against rule farmers through the AEC loop: every game's plays and rewards."""
    e = dp.env()
    out = []
    for g in range(games):
        e.reset(seed=g)
        rng, rule, plays, rewards = random.Random(g), ddz.RuleAgent(), [], {}
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            if term or trunc:
                rewards[agent] = reward
                e.step(None)
                continue
            seat = dp.ROLES.index(agent)
            state = e.unwrapped.state
            assert np.array_equal(obs["observation"], ddz.encode_state(state, seat))
            if agent == "landlord":
                action = rng.choice(list(np.flatnonzero(obs["action_mask"])))
            else:
                action = rule.step(state) - ddz.FIRST_PLAY
            plays.append(int(action))
            e.step(action)
        out.append((e.unwrapped.deal_seed, plays, [rewards[a] for a in dp.ROLES]))
    return out


def test_a_thousand_random_vs_rule_games_agree_with_the_state_api():
    game = ddz.Game()
    through_env = play_through_env(1000)
    assert len({seed for seed, _, _ in through_env}) == 1000, "a new deal every game"
    for g, (deal_seed, plays, rewards) in enumerate(through_env):
        state, rng, rule, direct = game.new_dealt_state(deal_seed), random.Random(g), ddz.RuleAgent(), []
        while not state.is_terminal():
            if state.current_player() == 0:
                action = rng.choice([a - ddz.FIRST_PLAY for a in state.legal_actions()])
            else:
                action = rule.step(state) - ddz.FIRST_PLAY
            direct.append(action)
            state.apply_action(ddz.FIRST_PLAY + action)
        assert direct == plays, f"game {g}"
        assert rewards == state.returns(), f"game {g}"


def test_bidding_actions_come_after_the_plays_and_bad_actions_name_the_legal_ones():
    e = dp.env(bidding=True)
    e.reset(seed=5)
    assert e.agents == ["seat_0", "seat_1", "seat_2"] and e.agent_selection == "seat_0"
    mask = e.observe("seat_0")["action_mask"]
    assert list(np.flatnonzero(mask)) == [ddz.NUM_PLAYS + b for b in range(4)], "pass, 1, 2, 3"
    assert not e.observe("seat_1")["action_mask"].any(), "not seat_1's turn"
    with pytest.raises(ValueError, match=r"action 7 is not legal for seat_0 here; legal: 27472 \(bid pass\), 27473 \(bid 1\)"):
        e.step(7)
    with pytest.raises(ValueError, match="an integer action id"):
        e.step("three")
    for _ in range(3):  # every seat passes: the game ends without points
        e.step(ddz.NUM_PLAYS)
    assert all(e.terminations.values()) and all(r == 0.0 for r in e.rewards.values())
