"""A PettingZoo environment (the AEC API): the three seats of Dou Dizhu as three agents.

``ddz.pettingzoo.env(bidding=False, scoring="win_loss", render_mode=None, rules="standard")``
(with PettingZoo's order-enforcing wrapper) or ``raw_env(...)``:

- agents: ``"landlord"``, ``"landlord_down"``, ``"landlord_up"`` (seats 0, 1, 2; seat 0 is the
  landlord; under ``rules="two_player"`` ``"landlord"`` and ``"farmer"``). With ``bidding=True`` the roles are known only after the bids, so the agents are
  the seats, ``"seat_0"``, ``"seat_1"``, ``"seat_2"``, and a game starts with 1-2-3 bidding
  (seat 0 bids first; every seat passing ends the game with no points);
- observation of an agent: ``{"observation": float32[d], "action_mask": int8[n]}``, the
  seat's state features (``ddz.encode_state``; ``d = game.observation_tensor_size()``) and its
  legal actions (all zero when it is not the agent's turn);
- actions: ``Discrete(n)``, the same play ids as ``ddz.env.DouDizhuEnv`` and ``VecEnv``
  (pass = 0; ``ddz.legal_plays`` and ``State.action_to_string`` name them), ``n =
  game.num_plays()``; with bidding, ``n + b`` bids ``b`` (0 = pass, 1 to 3);
- ``rules="laizi"``: a wild rank is drawn with the deal (with bidding, once the landlord is
  known, from the environment's generator); the observation ends with it, one-hot over 3 to 2,
  and the 7,409,259 play ids are laizi's (docs/rules.md);
- rewards: 0 until the end, then each seat's return by the game's scoring (``"win_loss"``: ±1
  a side; ``"points"``: the game points);
- an illegal action raises ``ValueError`` naming it and the legal ones;
- ``render_mode="ansi"``: ``render()`` returns the table (every hand, the last plays) as text;
  ``"human"`` prints it.

Each reset deals ``Game.new_dealt_state(env.unwrapped.deal_seed)``, the seed drawn from
``reset(seed=…)``'s generator. The underlying ``ddz.State`` is ``env.unwrapped.state``: agents that take a State (``ddz.RuleAgent``)
can play from it; it shows every hand, so a learner should read only its observation.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from . import FIRST_BID, FIRST_PLAY, Game, State
from .env import roles_of

ROLES = ("landlord", "landlord_down", "landlord_up")
SEATS = ("seat_0", "seat_1", "seat_2")
BIDS = 4


def env(**kwargs) -> AECEnv:
    """``raw_env`` inside PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "ddz_v0", "is_parallelizable": False}

    def __init__(
        self,
        bidding: bool = False,
        scoring: str = "win_loss",
        render_mode: Optional[str] = None,
        rules: str = "standard",
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: one of {self.metadata['render_modes']} or None")
        self.game = Game(bidding=bidding, scoring=scoring, rules=rules)
        self.bidding = bidding
        self.render_mode = render_mode
        # The agents are the seats at the rules' table: three, or two under two_player.
        seats = self.game.num_players()
        self.possible_agents = list(SEATS[:seats] if bidding else roles_of(self.game))
        self.num_plays = self.game.num_plays()
        self.num_actions = self.num_plays + (BIDS if bidding else 0)
        shape = (self.game.observation_tensor_size(),)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.state: Optional[State] = None
        self.deal_seed = 0
        self.np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---- the AEC API ----

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        self.deal_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.state = self.game.new_dealt_state(self.deal_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_player()]

    def observe(self, agent: str) -> dict:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not self.state.is_terminal() and self.state.current_player() == seat:
            for a in self.state.legal_actions():
                mask[self._index(a)] = 1
        return {"observation": self.state.observation_tensor(seat), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        move = self._engine_action(action)
        self.state.apply_action(move)
        self._draw_chance()
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_terminal():
            returns = self.state.returns()
            self.rewards = {a: float(returns[i]) for i, a in enumerate(self.possible_agents)}
            self.terminations = {a: True for a in self.agents}
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self.possible_agents[self.state.current_player()]
        self._accumulate_rewards()

    def render(self) -> Optional[str]:
        if self.render_mode is None or self.state is None:
            return None
        s = self.state
        landlord = s.landlord()
        lines = []
        for seat, agent in enumerate(self.possible_agents):
            mark = " (landlord)" if self.bidding and landlord == seat else ""
            lines.append(f"{agent}{mark}: {s.hand(seat) or '-'}")
        recent = " | ".join(f"{self.possible_agents[p]} {play}" for p, play in s.plays()[-6:])
        lines.append(f"plays: {recent or '-'}")
        if s.is_terminal():
            lines.append(f"over: returns {s.returns()}")
        else:
            lines.append(f"to move: {self.possible_agents[s.current_player()]}")
        text = "\n".join(lines)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # ---- inside ----

    def _draw_chance(self) -> None:
        """Laizi with bidding: the wild rank is drawn once the bids end, from ``np_random``."""
        while self.state.is_chance_node():
            actions, probs = zip(*self.state.chance_outcomes())
            self.state.apply_action(int(self.np_random.choice(actions, p=np.array(probs) / sum(probs))))

    def _index(self, engine_action: int) -> int:
        """An engine action (``FIRST_PLAY + id`` or ``FIRST_BID + b``) as this env's action."""
        if engine_action >= FIRST_PLAY:
            return engine_action - FIRST_PLAY
        return self.num_plays + engine_action - FIRST_BID

    def _engine_action(self, action) -> int:
        try:
            a = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action {action!r} of {self.agent_selection}: an integer action id") from None
        legal = [self._index(x) for x in self.state.legal_actions()]
        if a not in legal:
            seat = self.state.current_player()
            names = [self.state.action_to_string(seat, x) for x in self.state.legal_actions()]
            shown = ", ".join(f"{i} ({n})" for i, n in list(zip(legal, names))[:20])
            more = f" and {len(legal) - 20} more" if len(legal) > 20 else ""
            raise ValueError(f"action {a} is not legal for {self.agent_selection} here; legal: {shown}{more}")
        return a - self.num_plays + FIRST_BID if a >= self.num_plays else FIRST_PLAY + a
