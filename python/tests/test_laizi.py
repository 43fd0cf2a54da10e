"""Laizi from Python: ddz.Game(rules="laizi") with its wild-rank chance node, action integers,
masks, resampling, views, the helpers, the agents and the environments."""

import json
import os
import random
from pathlib import Path

import numpy as np
import pytest

import ddz
from ddz.env import DouDizhuEnv

ROOT = Path(__file__).resolve().parents[2]
LAIZI_NET = "checkpoint:models/laizi-1h/model.safetensors"
NUM_LAIZI_PLAYS = 7_409_259


def test_the_game_names_its_rules_and_sizes():
    game = ddz.Game(rules="laizi")
    assert game.rules == "laizi" and ddz.Game().rules == "standard"
    assert game.num_plays() == NUM_LAIZI_PLAYS and ddz.Game().num_plays() == ddz.NUM_PLAYS
    assert game.num_distinct_actions() == ddz.FIRST_PLAY + NUM_LAIZI_PLAYS + 13
    assert game.information_state_tensor_shape() == [ddz.STATE_DIM + 13]
    assert game.max_chance_nodes_in_history() == ddz.Game().max_chance_nodes_in_history() + 1
    assert game.get_parameters()["rules"] == "laizi" and game.get_parameters()["soft_bomb_multiplier"] == 2
    assert "rules='laizi'" in repr(game) and "rules" not in repr(ddz.Game())
    with pytest.raises(ValueError, match="unknown rules"):
        ddz.Game(rules="wild")
    with pytest.raises(ValueError, match="soft_bomb_multiplier 0"):
        ddz.Game(rules="laizi", soft_bomb_multiplier=0)


@pytest.mark.parametrize("bidding", [False, True])
def test_random_games_draw_the_wild_rank_as_a_chance_node_and_play_to_the_end(bidding):
    game = ddz.Game(rules="laizi", bidding=bidding)
    with_wilds = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                if outcomes[0][0] >= ddz.FIRST_PLAY:  # the wild rank, once the landlord is known
                    assert len(outcomes) == 13
                    assert state.wild() is None and abs(sum(p for _, p in outcomes) - 1) < 1e-9
                    assert state.landlord() is not None
                actions, probs = zip(*outcomes)
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            legal = state.legal_actions()
            mask = state.legal_actions_mask()
            assert mask.shape == (game.num_distinct_actions(),) and mask.sum() == len(legal)
            assert all(mask[a] for a in legal)
            if state.legal_actions()[0] >= ddz.FIRST_PLAY:
                assert state.wild() is not None
                play_mask = state.play_mask()
                assert play_mask.shape == (NUM_LAIZI_PLAYS,) and play_mask.sum() == len(legal)
            for a in legal:  # every action's string names it back
                assert state.string_to_action(state.action_to_string(a)) == a
            state.apply_action(rng.choice(legal))
        plays = [p for _, p in state.plays()]
        with_wilds += any("/" in p for p in plays)
        if state.landlord() is not None:  # win/loss: ±1, the farmers alike, the landlord opposite
            r = state.returns()
            farmers = [r[s] for s in range(3) if s != state.landlord()]
            assert farmers[0] == farmers[1] == -r[state.landlord()] and abs(farmers[0]) == 1
        replay = game.new_initial_state()
        for a in state.history():
            replay.apply_action(a)
        assert replay.returns() == state.returns() and replay.wild() == state.wild()
        assert game.deserialize_state(state.serialize()).history() == state.history()
    assert with_wilds > 10, "random play uses wild cards in most games"


def test_an_illegal_laizi_action_is_a_value_error_and_changes_nothing():
    state = ddz.Game(rules="laizi").new_dealt_state(4)
    before = state.serialize()
    illegal = next(a for a in range(ddz.FIRST_PLAY, ddz.FIRST_PLAY + 50_000) if a not in state.legal_actions())
    with pytest.raises(ValueError, match=f"action {illegal}"):
        state.apply_action(illegal)
    with pytest.raises(ValueError, match="not an action of this game"):
        state.apply_action(ddz.Game(rules="laizi").num_distinct_actions())
    assert state.serialize() == before


def test_the_features_end_with_the_wild_rank_one_hot():
    state = ddz.Game(rules="laizi").new_dealt_state(9)
    wild = "3456789TJQKA2".index(state.wild())
    x = state.information_state_tensor(0)
    assert x.shape == (ddz.STATE_DIM + 13,) and x.dtype == np.float32
    assert list(np.flatnonzero(x[-13:])) == [wild]
    assert np.array_equal(x[: ddz.STATE_DIM], ddz.encode_state(state, 0))
    assert f"wild {state.wild()}" in state.observation_string(0)


def test_resampling_keeps_the_wild_rank_and_what_the_seat_saw():
    game = ddz.Game(rules="laizi")
    rng = random.Random(1)
    state = game.new_dealt_state(21)
    for _ in range(12):
        state.apply_action(rng.choice(state.legal_actions()))
    seat = state.current_player()
    hands = set()
    for k in range(8):
        world = state.resample_from_infostate(seat, random.Random(k).random)
        assert world.wild() == state.wild() and world.hand(seat) == state.hand(seat)
        assert world.plays() == state.plays() and world.legal_actions() == state.legal_actions()
        assert world.information_state_string(seat) == state.information_state_string(seat)
        hands.add(world.hand((seat + 1) % 3))
        view = state.view(seat)
        assert view.redeal(k).wild() == state.wild()
    assert len(hands) > 1, "the hidden hands are dealt again"


def test_a_view_carries_the_wild_rank_through_the_bot_protocol():
    game = ddz.Game(rules="laizi")
    rng = random.Random(3)
    for seed in range(20):
        state = game.new_dealt_state(seed)
        while not state.is_terminal():
            seat = state.current_player()
            view = state.view(seat)
            request = json.loads(view.to_json())
            assert request["wild"] == state.wild() == view.wild
            back = ddz.View.from_json(view.to_json())
            assert back == view and back.legal_plays() == view.legal_plays()
            legal = [state.action_to_string(a) for a in state.legal_actions()]
            assert sorted(legal) == sorted(view.legal_plays())
            state.apply_action(rng.choice(state.legal_actions()))


def test_legal_plays_of_a_hand_read_wild_cards():
    plays = ddz.legal_plays("5557", wild="7")
    # 5557 with 7s wild: a soft bomb of 5s, or a trio of 5s with the 7 as itself.
    assert {"5555/5", "5557/7", "555/5", "55", "7/7"} <= set(plays)
    assert "5557" not in plays
    assert ddz.legal_plays("5557") == sorted(["5", "55", "555", "5557", "7"])
    # A soft bomb beats a soft bomb of a lower rank, never a hard bomb (rule 5).
    assert ddz.legal_plays("5557", rival="4444/4", wild="7") == ["5555/5", "pass"]
    assert ddz.legal_plays("5557", rival="4444", wild="7") == ["pass"]
    with pytest.raises(ValueError, match="wild"):
        ddz.legal_plays("5557", wild="B")
    with pytest.raises(ValueError, match="rival"):
        ddz.legal_plays("5557", rival="7777/7", wild="7")  # with 7s wild, every 7 is a wild card


def test_the_rule_and_random_agents_play_laizi_games():
    game = ddz.Game(rules="laizi", scoring="points")
    for seed in range(10):
        state = game.new_dealt_state(seed)
        agents = [ddz.RuleAgent(), ddz.RandomAgent(seed), ddz.RuleAgent()]
        while not state.is_terminal():
            state.apply_action(agents[state.current_player()].step(state))
        assert sum(state.returns()) == 0.0 and max(state.returns()) > 0


def test_the_laizi_network_plays_through_the_bot_protocol():
    binary = ROOT / "target" / "release" / "ddz"  # scripts/test's cargo tests build it first
    os.chdir(ROOT)
    net = ddz.Agent(LAIZI_NET, binary=str(binary))
    try:
        game = ddz.Game(rules="laizi")
        wild_answers = 0
        for seed in range(6):
            state = game.new_dealt_state(seed)
            rule = ddz.RuleAgent()
            while not state.is_terminal():
                seat = state.current_player()
                action = net.act(state) if seat != 1 else rule.step(state)
                wild_answers += seat != 1 and "/" in state.action_to_string(action)
                state.apply_action(action)
        assert wild_answers > 0, "the network plays wild cards, named with their reading"
    finally:
        net.close()
    with pytest.raises(ddz.AgentError, match="standard rules"):
        standard = ddz.Agent("checkpoint:models/dmc-td-2h/model.safetensors", binary=str(binary))
        try:
            standard.act(ddz.Game(rules="laizi").new_dealt_state(0))
        finally:
            standard.close()


def test_the_gymnasium_environment_plays_laizi():
    env = DouDizhuEnv(rules="laizi", seat="rotate", opponents="rule")
    assert env.action_space.n == NUM_LAIZI_PLAYS and env.observation_space.shape == (ddz.STATE_DIM + 13,)
    rng = random.Random(0)
    for episode in range(6):
        obs, info = env.reset(seed=episode)
        assert obs.shape == env.observation_space.shape and env.observation_space.contains(obs)
        done = False
        while not done:
            legal = info["legal_ids"]
            assert info["action_mask"].sum() == len(legal) > 0
            obs, reward, done, _, info = env.step(rng.choice(legal))
        assert reward in (-1.0, 1.0)
    env.reset(seed=7)
    _, reward, done, _, info = env.step(NUM_LAIZI_PLAYS - 1)  # a laizi id no hand plays
    assert done and reward == -1.0 and info["illegal_action"] == NUM_LAIZI_PLAYS - 1


def test_the_pettingzoo_environment_plays_laizi_with_bidding():
    pytest.importorskip("pettingzoo")
    from ddz import pettingzoo as dp

    env = dp.env(rules="laizi", bidding=True)
    rng = random.Random(2)
    bids_then_plays = 0
    for episode in range(4):
        env.reset(seed=episode)
        n = env.unwrapped.num_plays
        assert n == NUM_LAIZI_PLAYS
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            assert obs["observation"].shape == (ddz.STATE_DIM + 13,)
            if legal.min() >= n:  # bidding: no wild rank yet
                assert env.unwrapped.state.wild() is None
            else:
                bids_then_plays += env.unwrapped.state.wild() is not None
            env.step(int(rng.choice(legal)))
    assert bids_then_plays > 0


def test_vec_env_says_it_plays_the_standard_rules():
    with pytest.raises(ValueError, match="DouDizhuEnv"):
        ddz.VecEnv(2, game=ddz.Game(rules="laizi"))


def test_a_deal_file_may_fix_the_wild_rank(tmp_path):
    deals = ddz.generate_deals(3, 5)
    assert all("wild" not in d for d in deals)
    deals[1]["wild"] = "Q"
    path = tmp_path / "deals.jsonl"
    ddz.write_deals(path, deals)
    back = ddz.read_deals(path)
    assert back == deals and '"wild":"Q"' in path.read_text().splitlines()[1]
    game = ddz.Game(rules="laizi")
    assert game.new_state_from_deal(back[1]).wild() == "Q"
    unfixed = game.new_state_from_deal(back[0])
    assert unfixed.is_chance_node() and len(unfixed.chance_outcomes()) == 13
    assert ddz.Game().new_state_from_deal(back[1]).wild() is None  # a standard game ignores it
    deals[2]["wild"] = "R"
    with pytest.raises(ValueError, match="wild"):
        ddz.write_deals(path, deals)
