"""A Gymnasium environment: the learner plays one seat of Dou Dizhu, agents the other two.

``DouDizhuEnv(seat="landlord", opponents="rule", scoring="win_loss", rules="standard")``,
registered as ``ddz/DouDizhu-v0``:

- observation: the learner seat's state features, ``float32[STATE_DIM]`` in [0, 1] (the layout
  is ``ddz.encode_state``'s, documented in the ddz README's engine docs; under laizi the wild
  rank follows, one-hot over 3 to 2: ``game.observation_tensor_size()`` floats);
- action: ``Discrete(game.num_plays())``, an id of the game's action table (pass = 0;
  ``NUM_PLAYS`` standard ids, 7,409,259 under laizi); the legal ones are
  ``info["action_mask"]`` (``int8``, one per id) and ``info["legal_ids"]`` (the list, small
  where the mask is not), and ``env.legal_plays()`` names them;
- ``rules``: ``"standard"`` or ``"laizi"`` (a wild rank drawn with each deal, docs/rules.md);
  laizi plays with wild cards are named ``reading/stands`` (``5555/5``);
- reward: 0 until the end, then the learner's return (±1, or points with ``scoring="points"``);
- ``seat``: ``"landlord"``, ``"landlord_down"``, ``"landlord_up"`` or ``"rotate"`` (the three
  in turn, one per episode); under ``rules="two_player"`` ``"landlord"``, ``"farmer"`` or
  ``"rotate"`` (the two in turn);
- ``opponents``: ``"rule"``, ``"random"``, any other agent spec (``"checkpoint:PATH"``,
  ``"ismcts:PATH?sims=100"``…, played by a ``ddz.Agent``), a ``ddz.Agent``, or a callable
  ``f(view) -> play`` where ``view`` is a dict of what that seat may see (``seat``, ``hand``,
  ``rival``, ``plays``, ``legal_plays``, ``legal_ids``, ``observation``) and ``play`` a play id
  or a play in notation;
- an illegal action ends the episode with ``illegal_reward`` and ``info["illegal_action"]``
  (``illegal_action="lose"``, the default, so that random-action checkers run), or raises
  ``ValueError`` (``illegal_action="raise"``);
- an opponent that fails inside ``step`` (a callable that raises, a ``ddz.AgentError``) leaves
  the game at the learner's decision, as before the step: the error goes to the caller, and the
  same ``step`` may be tried again (or ``reset`` called).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import gymnasium as gym
import numpy as np

from . import FIRST_PLAY, Agent, Game, RandomAgent, RuleAgent, State

ROLES = ("landlord", "landlord_down", "landlord_up")
TWO_PLAYER_ROLES = ("landlord", "farmer")


def roles_of(game: Game) -> tuple[str, ...]:
    """The roles at the game's table by seat (the landlord in seat 0): three, or two."""
    return ROLES if game.num_players() == 3 else TWO_PLAYER_ROLES

Opponent = Union[str, Agent, Callable[[dict], Union[int, str]]]


class DouDizhuEnv(gym.Env):
    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(
        self,
        seat: str = "landlord",
        opponents: Opponent = "rule",
        scoring: str = "win_loss",
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        render_mode: Optional[str] = None,
        rules: str = "standard",
    ) -> None:
        self.game = Game(scoring=scoring, rules=rules)
        self.roles = roles_of(self.game)
        if seat not in self.roles + ("rotate",):
            raise ValueError(f"seat {seat!r}: one of {self.roles} or 'rotate' under {rules} rules")
        if isinstance(opponents, str) and opponents not in ("rule", "random"):
            opponents = Agent(opponents)  # a spec: a network or search agent, in this process
        if not (opponents in ("rule", "random") or isinstance(opponents, Agent) or callable(opponents)):
            raise ValueError(f"opponents {opponents!r}: 'rule', 'random', an agent spec, a ddz.Agent or a callable")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action {illegal_action!r}: 'lose' or 'raise'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: one of {self.metadata['render_modes']}")
        self.seat_choice = seat
        self.opponents = opponents
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.num_plays = self.game.num_plays()
        shape = (self.game.observation_tensor_size(),)
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=shape, dtype=np.float32)
        self.action_space = gym.spaces.Discrete(self.num_plays)
        self.state: Optional[State] = None
        self.seat = 0
        self.episodes = 0
        self._agents: list = []
        self._done = True

    # ---- the Gymnasium API ----

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        deal_seed = int(self.np_random.integers(0, 2**63 - 1))
        rotate = self.seat_choice == "rotate"
        self.seat = self.episodes % len(self.roles) if rotate else self.roles.index(self.seat_choice)
        self.episodes += 1
        self.state = self.game.new_dealt_state(deal_seed)
        if self.opponents == "rule":
            self._agents = [RuleAgent() for _ in range(3)]
        elif self.opponents == "random":
            self._agents = [RandomAgent(deal_seed + k) for k in range(3)]
        self._play_opponents()
        self._done = False
        return self._observation(), self._info()

    def step(self, action):
        if self._done:
            raise RuntimeError("call reset() before step() (no episode, or it is over)")
        play = int(action)
        if play not in self._legal_ids():
            return self._illegal(play)
        before = self.state.clone()
        self.state.apply_action(FIRST_PLAY + play)
        try:
            self._play_opponents()
        except BaseException:
            # An opponent failed mid-turn: the game goes back to the learner's decision, so the
            # step can be tried again (never half a turn further, the learner's play then taken
            # for an opponent's).
            self.state = before
            raise
        done = self._done = self.state.is_terminal()
        reward = float(self.state.returns()[self.seat]) if done else 0.0
        return self._observation(), reward, done, False, self._info()

    def render(self):
        if self.state is None:
            return None
        text = self.state.observation_string(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    # ---- inside ----

    def _illegal(self, play: int):
        if self.illegal_action == "raise":
            raise ValueError(f"play id {play} is not legal here (legal: {self.legal_plays()})")
        info = self._info()
        info["illegal_action"] = play
        self._done = True  # the game stays as it was; the episode ends here
        return self._observation(), self.illegal_reward, True, False, info

    def _play_opponents(self) -> None:
        s = self.state
        while not s.is_terminal() and s.current_player() != self.seat:
            p = s.current_player()
            if isinstance(self.opponents, Agent):
                s.apply_action(self.opponents.act(s))  # it reads only what seat p may see
            elif callable(self.opponents):
                s.apply_action(self._callable_action(p))
            else:
                s.apply_action(self._agents[p].step(s))

    def _callable_action(self, p: int) -> int:
        s = self.state
        legal = [a - FIRST_PLAY for a in s.legal_actions()]
        view = {
            "seat": p,
            "hand": s.hand(p),
            "rival": s.rival(),
            "plays": s.plays(),
            "legal_ids": legal,
            "legal_plays": [s.action_to_string(p, FIRST_PLAY + a) for a in legal],
            "observation": s.observation_tensor(p),
        }
        choice = self.opponents(view)
        if isinstance(choice, str):
            choice = s.string_to_action(choice) - FIRST_PLAY
        if int(choice) not in legal:
            raise ValueError(f"the opponent in seat {p} chose {choice!r}, not a legal play id {legal}")
        return FIRST_PLAY + int(choice)

    def legal_plays(self) -> list:
        """The learner's legal plays in notation, in id order (what ``info["action_mask"]`` marks)."""
        if self.state is None or self.state.is_terminal():
            return []
        return [self.state.action_to_string(self.seat, a) for a in self.state.legal_actions()]

    def _mask(self) -> np.ndarray:
        return self.state.play_mask()

    def _legal_ids(self) -> list:
        """The learner's legal play ids, ascending (empty once the game is over)."""
        if self.state.is_terminal() or self.state.current_player() != self.seat:
            return []
        return [a - FIRST_PLAY for a in self.state.legal_actions()]

    def _observation(self) -> np.ndarray:
        return self.state.observation_tensor(self.seat)

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self._mask(),
            "legal_ids": self._legal_ids(),
            "seat": self.seat,
            "role": self.roles[self.seat],
        }
