"""Two-player Dou Dizhu from Python: ddz.Game(rules="two_player") with two seats, the 46-card
deck, calling and robbing, conceded cards, masks, resampling and views."""

import json
import random

import pytest

import ddz

NO_THREES_OR_FOURS = set(range(8))  # card ids 0-7 are the 3s and 4s


def play_out(state, rng):
    """Random legal actions, chance nodes by their probabilities, to the end."""
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def test_the_game_has_two_players_and_names_its_settings():
    game = ddz.Game(rules="two_player", conceded=2)
    assert game.num_players() == 2 and ddz.Game().num_players() == 3
    assert game.rules == "two_player" and game.num_plays() == ddz.NUM_PLAYS
    assert game.max_chance_nodes_in_history() == 46
    params = game.get_parameters()
    assert (params["conceded"], params["max_robs"]) == (2, 4)
    assert "rules='two_player', conceded=2, max_robs=4" in repr(game)
    state = game.new_initial_state()
    assert state.num_players() == 2 and len(state.chance_outcomes()) == 46
    assert {a for a, _ in state.chance_outcomes()}.isdisjoint(NO_THREES_OR_FOURS)
    with pytest.raises(ValueError, match="landlord_seat = 2"):
        ddz.Game(rules="two_player", landlord_seat=2)
    with pytest.raises(ValueError, match="only two-player games concede"):
        ddz.Game(conceded=1)
    with pytest.raises(ValueError, match="conceded = 17"):
        ddz.Game(rules="two_player", conceded=17)


@pytest.mark.parametrize("bidding", [False, True])
def test_random_games_play_to_the_end_with_masks_and_two_returns(bidding):
    game = ddz.Game(rules="two_player", bidding=bidding, scoring="points")
    played = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
                continue
            player = state.current_player()
            assert player in (0, 1)
            legal = state.legal_actions()
            mask = state.legal_actions_mask()
            assert mask.sum() == len(legal) and all(mask[a] for a in legal)
            if legal[0] < ddz.FIRST_PLAY:  # bidding: pass, or call / rob
                assert legal == [ddz.FIRST_BID, ddz.FIRST_BID + 1]
            else:
                assert state.play_mask().sum() == len(legal)
                assert "3" not in state.hand(player) and "4" not in state.hand(player)
            assert state.information_state_tensor().shape == (ddz.STATE_DIM,)
            state.apply_action(rng.choice(legal))
        returns = state.returns()
        assert len(returns) == 2 and sum(returns) == 0
        if state.landlord() is not None:
            played += 1
            landlord = state.landlord()
            farmer = 1 - landlord
            if returns[farmer] > 0:  # the farmer won: at or below the conceded cards
                assert len(state.hand(farmer)) <= state.conceded() and state.hand(landlord) != ""
            else:
                assert state.hand(landlord) == ""
            assert state.conceded() == (state.robs() if bidding else 0)
        replay = game.deserialize_state(state.serialize())
        assert replay.returns() == returns and replay.history() == state.history()
    assert played > 20


def test_players_are_the_games_seats_and_the_set_aside_is_in_no_view():
    game = ddz.Game(rules="two_player", conceded=3)
    state = game.new_dealt_state(7)
    assert state.current_player() == 0 and state.conceded() == 3
    with pytest.raises(ValueError, match="seat 2 is not a seat of this game"):
        state.hand(2)
    with pytest.raises(ValueError, match="player 2"):
        state.information_state_tensor(2)
    held = len(state.hand(0)) + len(state.hand(1)) - 3  # the landlord holds the bottom too
    assert held == 34 and len(state.bottom()) == 3, "9 of the 46 cards are in no hand"
    view = state.view(1)
    assert (view.role, view.rules, view.conceded, view.cards_left(0)) == ("farmer", "two_player", 3, 20)
    request = json.loads(view.to_json())
    assert request["rules"] == "two_player" and request["conceded"] == 3 and request["seat"] == "farmer"
    assert ddz.View.from_json(view.to_json()) == view
    with pytest.raises(ValueError, match="player 2"):
        view.cards_left(2)


def test_resampling_keeps_what_a_seat_knows_and_redeals_the_rest():
    game = ddz.Game(rules="two_player", bidding=True)
    rng = random.Random(3)
    changed = 0
    for seed in range(20):
        state = game.new_dealt_state(seed)
        while not state.is_terminal():
            player = state.current_player()
            for seat in (0, 1):
                world = state.resample_from_infostate(seat, random.Random(seed * 100 + seat).random)
                assert world.information_state_string(seat) == state.information_state_string(seat)
                assert world.hand(seat) == state.hand(seat)
                changed += world.hand(1 - seat) != state.hand(1 - seat)
                assert world.num_players() == 2
            state.apply_action(rng.choice(state.legal_actions()))
            assert player in (0, 1)
    assert changed > 100


def test_deals_of_two_hands_seat_the_landlord_where_asked():
    deals = ddz.generate_deals(3, 5, rules="two_player")
    assert set(deals[0]) == {"landlord", "farmer", "bottom"}
    ids = set(deals[0]["landlord"]) | set(deals[0]["farmer"]) | set(deals[0]["bottom"])
    assert len(ids) == 37 and ids.isdisjoint(NO_THREES_OR_FOURS)
    game = ddz.Game(rules="two_player", landlord_seat=1)
    state = game.new_state_from_deal(deals[0])
    assert state.landlord() == 1 and state.current_player() == 1
    assert len(state.hand(1)) == 20 and len(state.hand(0)) == 17
    with pytest.raises(ValueError, match="no deal of a two_player game"):
        game.new_state_from_deal(ddz.generate_deals(1, 5)[0])
    with pytest.raises(ValueError, match="no deal of a standard game"):
        ddz.Game().new_state_from_deal(deals[0])


def test_the_rule_agent_plays_both_seats_to_the_end():
    game = ddz.Game(rules="two_player", conceded=1)
    agent = ddz.RuleAgent()
    for seed in range(10):
        state = game.new_dealt_state(seed)
        while not state.is_terminal():
            state.apply_action(agent.step(state))
        assert len(state.returns()) == 2


def test_the_gym_env_rotates_over_the_two_seats_and_refuses_a_third():
    from ddz.env import DouDizhuEnv

    env = DouDizhuEnv(rules="two_player", seat="rotate")
    roles = []
    for episode in range(5):
        obs, info = env.reset(seed=episode)
        roles.append(info["role"])
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(info["legal_ids"][0])
            done = terminated or truncated
    assert roles == ["landlord", "farmer", "landlord", "farmer", "landlord"]
    with pytest.raises(ValueError, match="landlord_up.*'landlord', 'farmer'"):
        DouDizhuEnv(rules="two_player", seat="landlord_up")
