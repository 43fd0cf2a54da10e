"""Every agent ddz knows, from Python: ``ddz.Agent(spec)``.

``Agent("rule")`` and ``Agent("random", seed=1)`` are the engine's agents. Every other spec
(``checkpoint:PATH``, ``ismcts:PATH?sims=400``, ``pimc:…``, ``alphabeta:…``, ``auto:…``,
``douzero:DIR``, ``bot:CMD``; ``ddz eval --help`` lists them) is built in this process by the
Rust extension: networks decide through ddz's own forward pass, so neither PyTorch nor libtorch
is loaded, and nothing but this package is needed. Each decision is a request of the native bot
protocol (docs/bots-and-logs.md) built from what the seat to act may see: its hand, the bottom,
the public plays and bids. The agent deals the hidden hands at random for itself where it
searches, so no agent reads a card its seat cannot see, and it answers a request exactly as
``ddz bot --agent SPEC`` would (its draws are seeded by the request).

``agent.act(state)`` returns the action integer to apply (``state.apply_action``): a play
(``FIRST_PLAY + id``) or, in a bidding game, a bid (``FIRST_BID + b``). An agent may be called
from several threads: one decision at a time, with the GIL released while it decides.

``Agent(spec, process=True)`` (or ``binary=``) runs the agent in a ``ddz bot --agent SPEC``
process instead, which this object starts and owns; ``close()`` (or a ``with`` block) stops it.
Each request then carries an id that its answer echoes, so an answer that comes after its
``timeout`` is dropped, never taken for the next request's. The binary is ``binary=``, else
``$DDZ_BIN``, else this checkout's ``target/release/ddz`` (an editable install, as
``scripts/python.sh`` makes), else ``ddz`` on ``PATH``.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

from . import FIRST_BID, RandomAgent, RuleAgent, State, limits
from ._ddz import NativeAgent

# The most requests one batch line may hold (the limits table's ``protocol.batch_items``).
_BATCH_ITEMS = int(next(most for name, _, most, _ in limits() if name == "protocol.batch_items"))


class AgentError(RuntimeError):
    """An agent that could not answer (a bad spec, a file that does not load, an agent process
    that died), or answered something that is not a legal action."""


def check_limit(name: str, value) -> None:
    """``value`` against the range of ``name`` in ddz's limits table (``ddz.limits()``): a
    ``ValueError`` naming both and the range, as the Rust side words it."""
    least, most, whole = next((lo, hi, w) for n, lo, hi, w in limits() if n == name)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and least <= value <= most
    if not ok or (whole and value != int(value)):
        kind = "a whole number" if whole else "a number"
        raise ValueError(f"{name} = {value!r}: {kind} from {least:g} to {most:g}")


def find_binary(binary: Optional[str] = None) -> str:
    """The ddz binary an agent process runs (see the module's docs for the order)."""
    candidates = [binary, os.environ.get("DDZ_BIN")]
    checkout = Path(__file__).resolve().parents[3] / "target" / "release" / "ddz"
    candidates += [str(checkout) if checkout.is_file() else None, shutil.which("ddz")]
    for c in candidates:
        if c:
            if not (os.path.isfile(c) and os.access(c, os.X_OK)):
                raise AgentError(f"ddz binary {c!r}: not an executable file")
            return c
    raise AgentError(
        "no ddz binary: build it (scripts/ddz --help builds target/release/ddz), "
        "set DDZ_BIN, or pass binary=…"
    )


class Agent:
    """An agent by its ddz spec; ``act(state)`` gives the action of the seat to act."""

    def __init__(
        self,
        spec: str,
        *,
        seed: int = 0,
        binary: Optional[str] = None,
        timeout: float = 120.0,
        process: bool = False,
    ):
        check_limit("Agent(timeout)", timeout)
        self.spec = spec
        self.timeout = timeout
        self._local = None
        self._native = None
        self._proc: Optional[subprocess.Popen] = None
        if spec == "rule":
            self._local = RuleAgent()
        elif spec == "random":
            self._local = RandomAgent(seed)
        elif process or binary is not None:
            self._start(find_binary(binary))
        else:
            try:
                self._native = NativeAgent(spec)
            except ValueError as e:
                raise AgentError(f"{self}: {e}") from None

    # ---- the agent ----

    def act(self, state: State) -> int:
        """The action integer the agent chooses for the seat to act in ``state``."""
        if state.is_terminal() or state.is_chance_node():
            raise ValueError("act() needs a state where a seat is to act (not a chance or terminal node)")
        if self._local is not None:
            return self._local.step(state)
        request = self._request(state)
        answer = self._ask(request)
        return self._action(state, request, answer)

    def act_batch(self, states) -> list:
        """``act`` for many states at once (e.g. ``VecEnv.states()``), in order: a process agent
        gets them all in one request line and a network answers them in one forward pass. Each
        answer is the one ``act`` gives for that state."""
        states = list(states)
        for state in states:
            if state.is_terminal() or state.is_chance_node():
                raise ValueError("act_batch() needs states where a seat is to act (no chance or terminal node)")
        if self._local is not None:
            return [self._local.step(state) for state in states]
        if not states:
            return []
        requests = [self._request(state) for state in states]
        answers: list = []
        for at in range(0, len(requests), _BATCH_ITEMS):  # a line holds the protocol's batch at most
            part = requests[at : at + _BATCH_ITEMS]
            answered = self._ask(part)
            if not isinstance(answered, list) or len(answered) != len(part):
                raise AgentError(f"{self}: answered {str(answered)[:300]} to a batch of {len(part)} requests")
            answers.extend(answered)
        return [self._action(s, r, self._checked(a, r)) for s, r, a in zip(states, requests, answers)]

    def close(self) -> None:
        """Stops the agent's process (nothing for the agents in this process)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        self._stderr.close()

    def __enter__(self) -> "Agent":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"Agent({self.spec!r})"

    # ---- the process ----

    def _start(self, binary: str) -> None:
        self._stderr = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(
            [binary, "bot", "--agent", self.spec],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            # Errors are for people: the reason, without a Rust backtrace.
            env={**os.environ, "RUST_BACKTRACE": "0", "RUST_LIB_BACKTRACE": "0"},
            text=True,
            bufsize=1,
        )
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._lock = threading.Lock()
        self._next_id = 0
        threading.Thread(target=self._read, args=(self._proc.stdout, self._lines), daemon=True).start()
        # A request that is not one: a live bot answers it with an error, so a bad spec or a
        # missing file fails here, with the bot's reason, rather than at the first decision.
        try:
            self._ask({})
        except AgentError as e:
            if "ended" in str(e) or "no answer" in str(e):
                self.close()
                raise

    @staticmethod
    def _read(stream, lines: "queue.Queue[Optional[str]]") -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    def _stderr_tail(self) -> str:
        self._stderr.seek(0)
        text = self._stderr.read().decode("utf-8", "replace").strip()
        return text[-2000:] or "(nothing on stderr)"

    def _ask(self, request):
        """The agent's answer to ``request``. In this process: the extension's answer. In a
        process: sent under a fresh id, then the answer with that id is awaited; answers to
        requests given up on (timed out) are dropped as they arrive. One request at a time: other
        threads wait for the agent (up to ``timeout``), so answers never cross."""
        if self._native is not None:
            try:
                return self._checked(json.loads(self._native.answer(json.dumps(request))), request)
            except RuntimeError as e:
                raise AgentError(f"{self}: {e} (request {json.dumps(request)[:300]})") from None
        if not self._lock.acquire(timeout=self.timeout):
            raise AgentError(f"{self}: busy with another thread's request for {self.timeout} s")
        try:
            return self._ask_locked(request)
        finally:
            self._lock.release()

    def _ask_locked(self, request):
        if self._proc is None:
            raise AgentError(f"{self}: closed")
        self._next_id += 1
        ident = self._next_id
        line = json.dumps(request)
        deadline = time.monotonic() + self.timeout
        try:
            self._proc.stdin.write(json.dumps({"id": ident, "request": request}) + "\n")
            self._proc.stdin.flush()
            while True:
                answer = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
                if answer is None:
                    break
                try:
                    reply = json.loads(answer)
                except json.JSONDecodeError:
                    raise AgentError(f"{self}: answered {answer.strip()!r} (not JSON) to {line}") from None
                if not isinstance(reply, dict) or "id" not in reply:
                    raise AgentError(f"{self}: answered {answer.strip()[:300]!r} without the request's id to {line}")
                if reply["id"] == ident:
                    break
                if not (isinstance(reply["id"], int) and reply["id"] < ident):
                    raise AgentError(f"{self}: answered id {reply['id']!r} while waiting for {ident}")
                # A late answer to a request given up on: dropped.
        except queue.Empty:
            raise AgentError(f"{self}: no answer within {self.timeout} s to {line}") from None
        except OSError:
            answer = None
        if answer is None:
            raise AgentError(f"{self}: the bot process ended; its stderr: {self._stderr_tail()}")
        if "error" in reply:
            return self._checked(reply, request)
        return self._checked(reply.get("answer"), request)

    def _checked(self, reply, request):
        """The answer to ``request``, unless it is the bot's error."""
        if isinstance(reply, dict) and "error" in reply:
            raise AgentError(f"{self}: {reply['error']} (request {json.dumps(request)[:300]})")
        return reply

    # ---- requests and answers ----

    def _request(self, state: State) -> dict:
        # The seat's view is the protocol's request, written by the engine itself.
        return json.loads(state.view(state.current_player()).to_json())

    def _action(self, state: State, request: dict, answer: dict) -> int:
        if "seat_index" in request:
            if not isinstance(answer.get("bid"), int):
                raise AgentError(f"{self}: answered {answer} to the bid request {json.dumps(request)}")
            action = FIRST_BID + answer["bid"]
        else:
            if not isinstance(answer.get("play"), str):
                raise AgentError(f"{self}: answered {answer} to the play request {json.dumps(request)}")
            try:
                action = state.string_to_action(answer["play"])
            except ValueError as e:
                raise AgentError(f"{self}: answered {answer['play']!r}, not a play: {e}") from None
        if action not in state.legal_actions():
            raise AgentError(f"{self}: answered {answer}, not legal here (request {json.dumps(request)})")
        return action
