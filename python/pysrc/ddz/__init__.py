"""ddz: Dou Dizhu (斗地主) with a fast Rust engine.

The OpenSpiel-shaped API::

    import random, ddz
    game = ddz.Game()                      # bidding=False, scoring="win_loss"
    state = game.new_initial_state()       # a chance node: the deal, card by card
    rng = random.Random(0)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    print(state.returns())

Action integers: a card dealt is its id (0-53), a bid b is ``FIRST_BID + b`` (0 = pass), a play
is ``FIRST_PLAY +`` its id in the action table (``NUM_PLAYS`` ids, pass = 0). Player ids follow
OpenSpiel: ``CHANCE_PLAYER_ID`` (-1) at chance nodes, ``TERMINAL_PLAYER_ID`` (-4) at the end.

Laizi (wild cards, docs/rules.md): ``ddz.Game(rules="laizi")``. Once the landlord is known a
chance node draws the wild rank (13 outcomes, ``state.wild()``); the play ids are laizi's
(``game.num_plays()`` = 7,409,259), and a play that takes wild cards is written as its reading
and what the wild cards stand for (``5555/5``) by ``action_to_string``, ``plays()`` and
``legal_plays``. The state features end with the wild rank, one-hot.

Environments: ``ddz.env.DouDizhuEnv`` (Gymnasium, registered as ``ddz/DouDizhu-v0``),
``ddz.pettingzoo.env()`` (PettingZoo's AEC API, the three seats as agents; needs pettingzoo) and
``ddz.VecEnv`` (N games stepped in Rust per call). ``ddz.Agent(spec)`` plays any agent ddz
knows, in this process (networks through ddz's own forward pass, search, DouZero's networks).
The package never imports PyTorch and needs no libtorch.
"""

from ._ddz import (
    ACTION_DIM,
    CHANCE_PLAYER_ID,
    FEATURE_LAYOUT,
    FIRST_BID,
    FIRST_PLAY,
    NUM_DISTINCT_ACTIONS,
    NUM_PLAYS,
    STATE_DIM,
    TERMINAL_PLAYER_ID,
    Game,
    RandomAgent,
    RuleAgent,
    State,
    VecEnv,
    View,
    encode_action,
    encode_plays,
    encode_state,
    generate_deals,
    legal_plays,
    limits,
    read_deals,
    write_deals,
)
from .agent import Agent, AgentError

__all__ = [
    "ACTION_DIM",
    "Agent",
    "FEATURE_LAYOUT",
    "AgentError",
    "CHANCE_PLAYER_ID",
    "FIRST_BID",
    "FIRST_PLAY",
    "NUM_DISTINCT_ACTIONS",
    "NUM_PLAYS",
    "STATE_DIM",
    "TERMINAL_PLAYER_ID",
    "Game",
    "RandomAgent",
    "RuleAgent",
    "State",
    "VecEnv",
    "View",
    "encode_action",
    "encode_plays",
    "encode_state",
    "generate_deals",
    "legal_plays",
    "limits",
    "load_game",
    "read_deals",
    "write_deals",
]


def load_game(name: str = "ddz", **params) -> Game:
    """OpenSpiel's ``load_game``: ``load_game("ddz", bidding=True)`` is ``Game(bidding=True)``."""
    if name not in ("ddz", "dou_dizhu"):
        raise ValueError(f"unknown game {name!r}: this package has 'ddz' (alias 'dou_dizhu')")
    return Game(**params)


def _register() -> None:
    try:
        import gymnasium
    except ImportError:  # the environments need gymnasium; the engine does not
        return
    if "ddz/DouDizhu-v0" not in gymnasium.registry:
        gymnasium.register(id="ddz/DouDizhu-v0", entry_point="ddz.env:DouDizhuEnv")


_register()
