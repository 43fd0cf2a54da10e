"""OpenSpiel's basic game checks on ddz's State API (written anew for ddz): random simulations
with every API call checked for consistency, chance outcomes, serialization round trips, and
the ResampleInfostateTest invariants. Every random draw is seeded."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ddz

GAMES = [
    ddz.Game(),
    ddz.Game(bidding=True),
    ddz.Game(scoring="points"),
    ddz.Game(bidding=True, scoring="points", spring=False, first_bidder=2),
]


def check_state(game: ddz.Game, state: ddz.State, rng: random.Random) -> None:
    """Every call at one state agrees with the others."""
    player = state.current_player()
    assert state.is_chance_node() == (player == ddz.CHANCE_PLAYER_ID)
    assert state.is_terminal() == (player == ddz.TERMINAL_PLAYER_ID)
    legal = state.legal_actions()
    assert legal == sorted(legal) and len(set(legal)) == len(legal)
    assert all(0 <= a < game.num_distinct_actions() for a in legal)
    mask = state.legal_actions_mask()
    assert mask.shape == (game.num_distinct_actions(),) and mask.dtype == np.uint8
    assert list(np.flatnonzero(mask)) == legal
    if state.is_terminal():
        assert legal == []
        return
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert sorted(a for a, _ in outcomes) == legal
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
        assert len(outcomes) <= game.max_chance_outcomes()
        return
    for other in range(3):
        if other != player:
            assert state.legal_actions(other) == []
    assert state.rewards() == [0.0, 0.0, 0.0]
    for p in range(3):
        assert state.information_state_tensor(p).shape == tuple(game.information_state_tensor_shape())
        assert state.observation_tensor(p).dtype == np.float32
        assert f"seat {p}" in state.information_state_string(p)
    for a in legal[:3]:
        assert game.string_to_action(state.action_to_string(player, a)) == a
        child = state.child(a)
        twin = state.clone()
        twin.apply_action(a)
        assert child.serialize() == twin.serialize() != state.serialize()
    illegal = next(a for a in range(game.num_distinct_actions()) if a not in set(legal))
    before = state.serialize()
    with pytest.raises(ValueError, match=f"action {illegal}"):
        state.apply_action(illegal)
    assert state.serialize() == before


def random_game(game: ddz.Game, rng: random.Random, check: bool = True) -> ddz.State:
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if check:
            check_state(game, state, rng)
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    check_state(game, state, rng)
    assert decisions <= game.max_game_length()
    return state


@pytest.mark.parametrize("game", GAMES, ids=repr)
def test_random_simulations_are_consistent(game):
    rng = random.Random(1)
    for _ in range(12):
        state = random_game(game, rng)
        returns = state.returns()
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
        assert state.rewards() == returns
        if state.landlord() is not None:  # a game nobody bid on has no contest
            landlord = state.landlord()
            farmers = [returns[p] for p in range(3) if p != landlord]
            assert farmers[0] == farmers[1] and np.sign(farmers[0]) == -np.sign(returns[landlord]) != 0
        restored = game.deserialize_state(state.serialize())
        assert restored.history() == state.history() and restored.returns() == returns


def test_serialization_round_trips_mid_game():
    rng = random.Random(2)
    game = ddz.Game(bidding=True)
    for _ in range(20):
        state = game.new_initial_state()
        stop = rng.randrange(60, 120)
        while not state.is_terminal() and len(state.history()) < stop:
            if state.is_chance_node():
                state.apply_action(rng.choice(state.legal_actions()))
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        restored = game.deserialize_state(state.serialize())
        assert restored.history() == state.history()
        assert restored.current_player() == state.current_player()
        for p in range(3):
            if not state.is_chance_node():
                assert restored.information_state_string(p) == state.information_state_string(p)
    with pytest.raises(ValueError, match="bad saved state|expected"):
        game.deserialize_state('{"config": 1}')


def test_resample_from_infostate_keeps_what_the_player_knows():
    rng = random.Random(3)
    sampler = random.Random(4).random
    for game in (ddz.Game(), ddz.Game(bidding=True)):
        for _ in range(8):
            state = game.new_initial_state()
            while not state.is_terminal():
                if not state.is_chance_node():
                    for p in range(3):
                        other = state.resample_from_infostate(p, sampler)
                        assert other.information_state_string(p) == state.information_state_string(p)
                        assert np.array_equal(other.information_state_tensor(p), state.information_state_tensor(p))
                        assert other.current_player() == state.current_player()
                        assert other.legal_actions(p) == state.legal_actions(p)
                state.apply_action(rng.choice(state.legal_actions()))
    dealt = ddz.Game().new_dealt_state(5)
    hidden = {dealt.resample_from_infostate(0, sampler).hand(1) for _ in range(5)}
    assert len(hidden) > 1, "other hands are dealt again"
    with pytest.raises(ValueError, match=r"not a float in \[0, 1\)"):
        dealt.resample_from_infostate(0, lambda: 2.0)
    with pytest.raises(ZeroDivisionError):
        dealt.resample_from_infostate(0, lambda: 1 / 0)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="scoring"):
        ddz.Game(scoring="chips")
    with pytest.raises(ValueError, match="landlord_seat"):
        ddz.Game(landlord_seat=3)
    state = ddz.Game().new_dealt_state(1)
    with pytest.raises(ValueError, match="not an action of this game"):
        state.apply_action(10**6)
    with pytest.raises(ValueError, match="the leader cannot pass"):
        state.apply_action(ddz.FIRST_PLAY)
    with pytest.raises(ValueError, match="player 7"):
        state.information_state_string(7)
    assert ddz.load_game("dou_dizhu", bidding=True).get_parameters()["bidding"] is True


def test_dealt_states_are_reproducible_and_agents_play_legally():
    game = ddz.Game()
    assert game.new_dealt_state(9).serialize() == game.new_dealt_state(9).serialize()
    assert game.new_dealt_state(9).serialize() != game.new_dealt_state(10).serialize()
    state = game.new_dealt_state(9)
    agents = [ddz.RuleAgent(), ddz.RandomAgent(1), ddz.RuleAgent()]
    while not state.is_terminal():
        action = agents[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert sorted(state.returns()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0])


def test_legal_plays_match_the_conformance_sample():
    sample = Path(__file__).resolve().parents[2] / "crates" / "ddz-engine" / "tests" / "data" / "legal_sample.jsonl"
    lines = sample.read_text().splitlines()
    assert len(lines) > 400
    for line in lines:
        case = json.loads(line)
        assert ddz.legal_plays(case["hand"], case["rival"]) == sorted(case["legal"]), case
    with pytest.raises(ValueError, match="unknown card"):
        ddz.legal_plays("33X")


def test_encoders_and_deal_files(tmp_path):
    state = ddz.Game().new_dealt_state(3)
    assert np.array_equal(ddz.encode_state(state, 1), state.information_state_tensor(1))
    features = ddz.encode_action("34567", "334567")
    assert features.shape == (ddz.ACTION_DIM,) and features.dtype == np.float32
    assert features.sum() > 0 and not np.array_equal(features, ddz.encode_action("34567", "34567"))
    with pytest.raises(ValueError, match="does not hold"):
        ddz.encode_action("33", "34567")
    deals = ddz.generate_deals(5, 11)
    path = tmp_path / "deals.jsonl"
    ddz.write_deals(path, deals)
    assert ddz.read_deals(path) == deals
    path.write_text('{"landlord": [1]}\n')
    with pytest.raises(ValueError, match="deals.jsonl:1"):
        ddz.read_deals(path)


def test_the_package_loads_no_libtorch():
    code = (
        "import sys, ddz, ddz.env\n"
        "maps = open('/proc/self/maps').read()\n"
        "print('torch' in sys.modules, 'libtorch' in maps, 'libc10' in maps)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=dict(os.environ))
    assert out.stdout.split() == ["False", "False", "False"], out.stdout + out.stderr


def test_a_seats_view_is_the_bot_request_and_redeals_to_itself():
    """`state.view(seat)`: the seat's own cards and the public record, written as the native bot
    protocol's request; the same for every state the seat cannot tell apart."""
    rng = random.Random(8)
    checked = 0
    for game in GAMES:
        state = game.new_dealt_state(rng.randrange(1 << 30))
        while not state.is_terminal():
            player = state.current_player()
            for seat in range(3):
                view = state.view(seat)
                assert view.seat == seat and view.hand == state.hand(seat)
                assert [view.cards_left(q) for q in range(3)] == [len(state.hand(q)) for q in range(3)]
                other = state.resample_from_infostate(seat, random.Random(rng.random()).random)
                assert other.view(seat) == view, "a resampled state looks the same to the seat"
                assert view.redeal(rng.randrange(1 << 30)).view(seat) == view
                if seat == player:
                    request = json.loads(view.to_json())
                    assert ("seat_index" in request) == (state.landlord() is None)
                    assert ddz.View.from_json(view.to_json()).to_json() == view.to_json()
                    legal = [state.action_to_string(player, a) for a in state.legal_actions()]
                    if state.landlord() is not None:
                        assert sorted(view.legal_plays()) == sorted(legal)
                checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 500
    with pytest.raises(ValueError, match="out of turn"):
        ddz.View.from_json(
            '{"seat":"landlord_down","hand":"5566778899TTJJQQK","bottom":"3BR","history":[["landlord_up","3"]]}'
        )
    with pytest.raises(ValueError, match="dealt"):
        ddz.Game().new_initial_state().view(0)
