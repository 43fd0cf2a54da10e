"""DouZero's agents as a ddz bot: speaks ddz's native bot protocol (one JSON request a line on
stdin, one answer a line on stdout) with an agent of the `douzero` package (1.1.0, from PyPI):

  python3 scripts/douzero_bot.py rlcard     RLCard's rule agent, as DouZero's evaluation has it
  python3 scripts/douzero_bot.py random     DouZero's random agent
  python3 scripts/douzero_bot.py DIR        DouZero's DeepAgent on DIR's checkpoints: ROLE.ckpt
                                            or ROLE_weights_FRAMES.ckpt (the most frames), for
                                            landlord, landlord_up and landlord_down

so that `ddz eval --a X --b 'bot:python3 scripts/douzero_bot.py rlcard'` plays X against it.
Run by a Python without douzero, it installs douzero into the project's .venv (first use) and
runs itself there.

Each request is turned into DouZero's own InfoSet (the seat's hand, the plays so far, the cards
the other two still hold together, the bombs played) and DouZero's own code lists the legal
plays (its GameEnv.get_legal_card_play_actions), so the agent sees what it would see inside
DouZero. Its rules are not quite the standard set: it lets solo wings of an airplane, and the
kickers of four-with-two, include the rocket or three or four cards of one rank. Every answer
says `"rules": "douzero"`, so where the agent picks such a play ddz counts the game as a rule
mismatch; and where a play in the history is not a play in DouZero's rules, the answer is
`{"mismatch": …}`. DouZero has no bidding: a bid request is answered with an error.

The random choices (the random agent, RLCard's fallback) are seeded by the request, so the same
request always gets the same answer.
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"
PACKAGES = ["douzero==1.1.0", "rlcard", "gitpython"]

try:
    from douzero.env import move_detector as md
    from douzero.env.game import GameEnv, InfoSet, bombs
except ImportError:
    if Path(sys.prefix).resolve() == (ROOT / ".venv").resolve():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *PACKAGES],
                       check=True, stdout=sys.stderr)
        from douzero.env import move_detector as md
        from douzero.env.game import GameEnv, InfoSet, bombs
    else:
        if not VENV_PYTHON.exists():
            subprocess.run(["bash", str(ROOT / "scripts" / "setup.sh")], check=True, stdout=sys.stderr)
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), __file__, *sys.argv[1:]])

RANKS = {"3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10, "J": 11, "Q": 12,
         "K": 13, "A": 14, "2": 17, "B": 20, "R": 30}
NAMES = {v: k for k, v in RANKS.items()}
ROLES = ("landlord", "landlord_down", "landlord_up")  # in order of play
DECK = [r for r in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]


class BadRequest(Exception):
    pass


def cards(text, field):
    if text == "pass":
        return []
    try:
        return sorted(RANKS[c] for c in text)
    except KeyError as e:
        raise BadRequest(f"{field}: {text!r} has a card {e.args[0]!r} outside 3456789TJQKA2BR")


def notation(move):
    return "".join(NAMES[c] for c in sorted(move)) or "pass"


def legal_after(hand, sequence):
    """DouZero's legal plays for `hand` after the plays `sequence`, by its own code."""
    env = types.SimpleNamespace(info_sets={"me": types.SimpleNamespace(player_hand_cards=hand)},
                                acting_player_position="me", card_play_action_seq=sequence)
    return GameEnv.get_legal_card_play_actions(env)


def infoset(request):
    """DouZero's InfoSet for the seat of a native play request, as its GameEnv would fill it."""
    seat = request.get("seat")
    if seat not in ROLES:
        raise BadRequest(f"seat: {seat!r} is not landlord, landlord_down or landlord_up")
    hand = cards(request.get("hand", ""), "hand")
    history = []
    for k, entry in enumerate(request.get("history", [])):
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] in ROLES):
            raise BadRequest(f"history {k + 1}: {entry!r} is not [role, play]")
        history.append((entry[0], cards(entry[1], f"history {k + 1}")))
    sequence, played = [], {r: [] for r in ROLES}
    last_move = {r: [] for r in ROLES}
    bomb_num, last_pid = 0, "landlord"
    for k, (role, move) in enumerate(history):
        if ROLES[k % 3] != role:
            raise BadRequest(f"history {k + 1}: {role} out of turn")
        if move and move not in legal_after(list(move), sequence):
            kind = md.get_move_type(move)["type"]
            why = "is not a play" if kind == md.TYPE_15_WRONG else "does not follow the play before it"
            return None, f"{notation(move)} by {role} (history {k + 1}) {why} in DouZero's rules"
        sequence.append(move)
        played[role] = played[role] + move
        last_move[role] = move
        if move:
            last_pid = role
        if move in bombs:
            bomb_num += 1
    if ROLES[len(history) % 3] != seat:
        raise BadRequest(f"it is {ROLES[len(history) % 3]}'s turn, not {seat}'s")
    seen = sorted(hand + [c for r in ROLES for c in played[r]])
    others = list(DECK)
    for c in seen:
        if c not in others:
            raise BadRequest(f"hand and history hold more {NAMES[c]} than the deck")
        others.remove(c)
    info = InfoSet(seat)
    info.player_hand_cards = hand
    info.card_play_action_seq = sequence
    info.played_cards = played
    info.last_move_dict = last_move
    info.other_hand_cards = others
    left = {r: (20 if r == "landlord" else 17) - len(played[r]) for r in ROLES}
    left[seat] = len(hand)
    info.num_cards_left_dict = left
    info.bomb_num = bomb_num
    info.last_pid = last_pid
    info.three_landlord_cards = cards(request.get("bottom", ""), "bottom")
    info.legal_actions = legal_after(hand, sequence)
    rival = sequence[-1] if sequence and sequence[-1] else (sequence[-2] if len(sequence) >= 2 else [])
    info.last_move = rival
    info.last_two_moves = ([[], []] + [list(m) for m in sequence[-2:]])[-2:][::-1]
    info.all_handcards = None  # what a seat cannot see
    return info, None


def checkpoint_of(folder, role):
    """ROLE.ckpt, or the ROLE_weights_FRAMES.ckpt with the most frames (as douzero:DIR picks)."""
    best = None
    for f in folder.glob(role + "*.ckpt") if folder.is_dir() else []:
        rest = f.name[len(role):-len(".ckpt")]
        frames = 0 if rest == "" else int(rest[len("_weights_"):]) if rest.startswith("_weights_") and rest[len("_weights_"):].isdigit() else None
        if frames is not None and (best is None or frames > best[0]):
            best = (frames, f)
    return best and best[1]


def make_agents(kind):
    if kind == "rlcard":
        from douzero.evaluation.rlcard_agent import RLCardAgent
        return {r: RLCardAgent(r) for r in ROLES}
    if kind == "random":
        from douzero.evaluation.random_agent import RandomAgent
        return {r: RandomAgent() for r in ROLES}
    folder = Path(kind)
    files = {r: checkpoint_of(folder, r) for r in ROLES}
    missing = [r for r, f in files.items() if f is None]
    if missing:
        sys.exit(f"douzero_bot: {kind!r} is not rlcard, random or a folder of DouZero checkpoints "
                 f"(ROLE.ckpt or ROLE_weights_FRAMES.ckpt; none for {', '.join(missing)})")
    import torch
    torch.set_num_threads(1)
    from douzero.evaluation.deep_agent import DeepAgent
    return {r: DeepAgent(r, str(f)) for r, f in files.items()}


def answer(agents, line):
    try:
        request = json.loads(line)
    except json.JSONDecodeError as e:
        return {"error": f"not JSON: {e}"}
    if not isinstance(request, dict):
        return {"error": "a request is a JSON object"}
    if "seat_index" in request:
        return {"error": "DouZero's agents do not bid (bid with ddz's own bidder)"}
    try:
        info, mismatch = infoset(request)
    except BadRequest as e:
        return {"error": str(e)}
    if mismatch:
        return {"mismatch": mismatch}
    random.seed(int.from_bytes(hashlib.sha256(line.encode()).digest()[:8], "little"))
    move = agents[info.player_position].act(info)
    return {"play": notation(move), "rules": "douzero"}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: douzero_bot.py rlcard|random|DIR")
    agents = make_agents(sys.argv[1])
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(answer(agents, line.strip())), flush=True)


if __name__ == "__main__":
    main()
