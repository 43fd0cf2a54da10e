"""The Gymnasium environment and the vectorized environment, checked against the State API."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import ddz
from ddz.env import DouDizhuEnv


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def test_the_environment_passes_gymnasiums_checker():
    check_env(DouDizhuEnv(), skip_render_check=True)
    check_env(gym.make("ddz/DouDizhu-v0", seat="landlord_up", opponents="random").unwrapped, skip_render_check=True)


@pytest.mark.parametrize("seat", ["landlord", "landlord_down", "landlord_up", "rotate"])
def test_whole_episodes_end_with_the_learners_return(seat):
    env = gym.make("ddz/DouDizhu-v0", seat=seat, scoring="points")
    rng = np.random.default_rng(0)
    seats = []
    for episode in range(6):
        obs, info = env.reset(seed=100 + episode)
        seats.append(info["seat"])
        assert obs.shape == (ddz.STATE_DIM,) and obs.dtype == np.float32
        done, reward = False, 0.0
        while not done:
            assert info["action_mask"].sum() == len(env.unwrapped.legal_plays()) > 0
            obs, reward, done, truncated, info = env.step(random_legal(info["action_mask"], rng))
            assert not truncated
        assert reward != 0 and abs(reward) in (1, 2, 4, 8, 16, 32)
    if seat == "rotate":
        assert seats == [0, 1, 2, 0, 1, 2]
    else:
        assert set(seats) == {("landlord", "landlord_down", "landlord_up").index(seat)}


def test_reset_with_a_seed_repeats_the_episode():
    env = DouDizhuEnv(opponents="random")
    a, _ = env.reset(seed=5)
    b, _ = env.reset(seed=5)
    assert np.array_equal(a, b)


def test_callable_opponents_see_their_own_seat_only():
    seen = []

    def lowest(view):
        seen.append(view)
        return view["legal_plays"][0] if view["rival"] is None else "pass"

    env = DouDizhuEnv(seat="landlord", opponents=lowest)
    obs, info = env.reset(seed=1)
    obs, reward, done, _, info = env.step(random_legal(info["action_mask"], np.random.default_rng(1)))
    assert seen and {v["seat"] for v in seen} <= {1, 2}
    assert all(set(v) == {"seat", "hand", "rival", "plays", "legal_ids", "legal_plays", "observation"} for v in seen)


def test_illegal_actions_lose_or_raise():
    env = DouDizhuEnv()
    _, info = env.reset(seed=2)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, done, _, info = env.step(illegal)
    assert (reward, done, info["illegal_action"]) == (-1.0, True, illegal)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env = DouDizhuEnv(illegal_action="raise")
    env.reset(seed=2)
    with pytest.raises(ValueError, match="not legal"):
        env.step(illegal)


def replay_with_the_state_api(seed: int, actions: list) -> tuple:
    """Game `seed` of a VecEnv (landlord learner, rule opponents) through the State API."""
    state = ddz.Game().new_dealt_state(seed)
    rule = ddz.RuleAgent()
    features, masks = [], []
    for action in actions + [None]:
        while not state.is_terminal() and state.current_player() != 0:
            state.apply_action(rule.step(state))
        if state.is_terminal():
            break
        features.append(state.information_state_tensor(0))
        masks.append(state.legal_actions_mask()[ddz.FIRST_PLAY:].astype(bool))
        if action is not None:
            state.apply_action(ddz.FIRST_PLAY + action)
    return features, masks, state.returns()[0]


def test_vec_env_equals_the_state_api_on_the_same_seeds():
    n, seed = 4, 70
    env = ddz.VecEnv(n, seed=seed)
    obs, mask, seats = env.reset()
    assert obs.shape == (n, ddz.STATE_DIM) and mask.shape == (n, ddz.NUM_PLAYS) and list(seats) == [0] * n
    first_seed = seed + n  # the constructor dealt games seed..seed+n-1, reset the next n
    rng = np.random.default_rng(3)
    actions = [[] for _ in range(n)]
    seen_obs = [[obs[i].copy()] for i in range(n)]
    seen_mask = [[mask[i].copy()] for i in range(n)]
    result = [None] * n
    while any(r is None for r in result):
        choice = np.array([random_legal(mask[i], rng) for i in range(n)], dtype=np.int64)
        obs, mask, rewards, dones, _ = env.step(choice)
        for i in range(n):
            if result[i] is not None:
                continue
            actions[i].append(int(choice[i]))
            if dones[i]:
                result[i] = float(rewards[i])
            else:
                seen_obs[i].append(obs[i].copy())
                seen_mask[i].append(mask[i].copy())
    for i in range(n):
        features, masks, ret = replay_with_the_state_api(first_seed + i, actions[i])
        assert ret == result[i]
        assert len(features) == len(seen_obs[i])
        assert all(np.array_equal(a, b) for a, b in zip(features, seen_obs[i]))
        assert all(np.array_equal(a, b) for a, b in zip(masks, seen_mask[i]))


def test_vec_env_rejects_illegal_actions_before_moving_any_game():
    env = ddz.VecEnv(2, seed=1)
    obs, mask, _ = env.reset()
    good = int(np.flatnonzero(mask[0])[0])
    bad = int(np.flatnonzero(~mask[1])[0])
    with pytest.raises(ValueError, match="game 1"):
        env.step(np.array([good, bad], dtype=np.int64))
    with pytest.raises(ValueError, match="2 games"):
        env.step(np.array([good], dtype=np.int64))
    again, _, _, _, _ = env.step(np.array([good, int(np.flatnonzero(mask[1])[0])], dtype=np.int64))
    assert again.shape == obs.shape
    with pytest.raises(ValueError, match="bidding"):
        ddz.VecEnv(1, game=ddz.Game(bidding=True))


def test_self_play_vec_env_makes_every_decision_of_the_state_api_game():
    n, seed = 3, 40
    env = ddz.VecEnv(n, seed=seed, seat="all", legal="ids")
    obs, ids, seats = env.reset()
    states = [ddz.Game().new_dealt_state(seed + n + i) for i in range(n)]
    rng = np.random.default_rng(5)
    finished = [False] * n
    while not all(finished):
        for i in range(n):
            if finished[i]:
                continue
            s = states[i]
            assert seats[i] == s.current_player()
            assert np.array_equal(obs[i], s.information_state_tensor())
            legal = sorted(a - ddz.FIRST_PLAY for a in s.legal_actions())
            assert sorted(x for x in ids[i] if x >= 0) == legal
        choice = np.array([int(rng.choice(ids[i][ids[i] >= 0])) for i in range(n)], dtype=np.int64)
        obs, ids, rewards, dones, seats = env.step(choice)
        assert rewards.shape == (n, 3)
        for i in range(n):
            if finished[i]:
                continue
            states[i].apply_action(ddz.FIRST_PLAY + int(choice[i]))
            assert dones[i] == states[i].is_terminal()
            if dones[i]:
                assert list(rewards[i]) == states[i].returns()
                finished[i] = True


def test_sizes_no_machine_can_hold_are_value_errors_not_aborts():
    # An abort would kill the user's interpreter: these are errors naming the limit.
    with pytest.raises(ValueError, match="from 0 to 10000000"):
        ddz.generate_deals(4_000_000_000, 1)
    with pytest.raises(ValueError, match="from 1 to 65536"):
        ddz.VecEnv(10_000_000)
    with pytest.raises(ValueError, match="from 1 to 65536"):
        ddz.VecEnv(0)
    assert len(ddz.generate_deals(3, 1)) == 3


def test_an_opponent_that_fails_mid_turn_leaves_the_game_at_the_learners_decision():
    def game_with(fail_at):
        """Plays one seeded episode as landlord_down; the opponent raises on its call `fail_at`
        (once), and the learner then retries the same step."""
        calls, rule = [0], ddz.RuleAgent()

        def opponent(view):
            calls[0] += 1
            if calls[0] == fail_at:
                raise RuntimeError("the opponent's process died")
            return view["legal_ids"][0] if view["seat"] == 0 else view["legal_ids"][-1]

        env = DouDizhuEnv(seat="landlord_down", opponents=opponent)
        env.reset(seed=8)
        failures, done = 0, False
        while not done:
            action = rule.step(env.state) - ddz.FIRST_PLAY
            before = (env.state.plays(), env.state.current_player())
            try:
                _, reward, done, _, _ = env.step(action)
            except RuntimeError:
                failures += 1
                assert (env.state.plays(), env.state.current_player()) == before
        return env.state.plays(), reward, failures

    plays, reward, failures = game_with(fail_at=None)
    assert failures == 0 and len(plays) > 6
    for fail_at in (2, 3, 5, 8):  # call 1 is in reset
        assert game_with(fail_at) == (plays, reward, 1)


def test_a_vec_env_whose_opponent_fails_in_step_is_left_as_before_the_step():
    import os
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    os.chdir(root)
    spec = "ismcts:models/dmc-td-2h/model.safetensors?sims=20000"  # far slower than the deadline
    # The deadline is a bot process's (binary=): an agent in this process answers when done.
    binary = str(root / "target" / "release" / "ddz")
    env = ddz.VecEnv(3, seed=2, seat="landlord", opponents=spec, legal="ids", timeout=0.05, binary=binary)
    before = [s.plays() for s in env.states()]
    actions = np.array([s.legal_actions()[0] - ddz.FIRST_PLAY for s in env.states()], dtype=np.int64)
    with pytest.raises(ddz.AgentError):
        env.step(actions)
    assert [s.plays() for s in env.states()] == before
    assert all(s.current_player() == 0 for s in env.states())
    assert env.opponent_decisions == 0


def test_every_python_argument_of_the_limits_table_is_checked():
    import math
    import os
    from pathlib import Path

    os.chdir(Path(__file__).resolve().parents[2])
    net = "checkpoint:models/dmc-td-2h/model.safetensors"
    readers = {
        "Agent(timeout)": lambda v: ddz.Agent("rule", timeout=v),
        "VecEnv(timeout)": lambda v: ddz.VecEnv(1, opponents=net, timeout=v),
        "VecEnv(n)": lambda v: ddz.VecEnv(v, legal="ids"),
        "generate_deals(n)": lambda v: ddz.generate_deals(v, 1),
    }
    table = [row for row in ddz.limits() if "(" in row[0]]
    assert {row[0] for row in table} == set(readers), "every Python argument of the table has a reader here"
    for name, least, most, whole in table:
        cheap_most = name != "generate_deals(n)"  # ten million deals as dicts: gigabytes
        inside = [least, least + 1] + ([most] if cheap_most else [])
        outside = [least - 1, most + 1, -1, 1e20, -1e20, math.nan, math.inf, 2**64] + ([0.5] if whole else [])
        for value in inside:
            value = int(value) if whole else value
            reader = readers[name](value)
            if hasattr(reader, "close"):
                reader.close()
        for value in outside:
            value = int(value) if whole and math.isfinite(value) and value == int(value) else value
            with pytest.raises((ValueError, TypeError, OverflowError)) as caught:
                readers[name](value)
            text = str(caught.value)
            if caught.type is ValueError:
                assert name in text and "from" in text, (name, value, text)
            else:  # pyo3 refuses a value its Rust type cannot hold: it names the argument
                assert name.split("(")[1].rstrip(")") in text, (name, value, text)
