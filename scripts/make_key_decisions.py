#!/usr/bin/env python3
"""Writes ddz's key-decision situations (src/decisions/situations.jsonl) from rules of play.

Each situation is one seat's view — its hand, the bottom, the public plays so far — with the
plays a sound player makes (`good`) or must not make (`bad`) and a one-line reason. Six rules,
ten situations each, varied by a seeded generator:

- win_now_lead: the whole hand is one play: lead it.
- win_now_follow: the hand is one play that beats the play on the table: play it.
- feed_teammate: the teammate plays next with one card left: lead your lowest single.
- dont_overtake: the teammate's play holds and it has few cards left: pass.
- last_card: an opponent has one card left: never lead a single it might beat.
- keep_rocket: early in the game, do not spend the rocket on a small single.

The history before the decision is synthetic but legal: each seat sheds the cards it no longer
holds as singles that nobody answers, and the lead passes from seat to seat by a single beaten
by a higher one. `ddz check-decisions` replays every history through the engine and checks
that each listed play is legal. Usage: python3 scripts/make_key_decisions.py [OUT]
"""

import json
import random
import sys
from pathlib import Path

RANKS = "3456789TJQKA2BR"
ROLES = ("landlord", "landlord_down", "landlord_up")
START = (20, 17, 17)


def rank(c):
    return RANKS.index(c)


def cap(c):
    return 1 if c in "BR" else 4


def sort_cards(cards):
    return "".join(sorted(cards, key=rank))


def deck():
    return [c for c in RANKS for _ in range(cap(c))]


def take(pool, cards):
    """Removes `cards` from `pool` (a list); False if the pool lacks one."""
    for c in cards:
        if c not in pool:
            return False
        pool.remove(c)
    return True


def history_to(hands, seat, rival, rng):
    """A legal history from the deal to `seat`'s decision, or None when this draw does not work.

    `hands`: each seat's cards at the decision; `rival`: (seat, play) on the table, or None when
    `seat` leads. The lead goes round the seats 0, 1, 2 (then to the seat that makes the last
    lead); each sheds the cards it no longer holds as unanswered singles, and hands the lead on
    with its lowest card, beaten by the next seat's highest."""
    pool = deck()
    for h in hands:
        if not take(pool, h):
            return None
    if rival and not take(pool, rival[1]):
        return None
    rng.shuffle(pool)
    need = [START[s] - len(hands[s]) - (len(rival[1]) if rival and rival[0] == s else 0) for s in range(3)]
    if any(n < 0 for n in need) or sum(need) != len(pool):
        return None
    dumps = [sorted(pool[sum(need[:s]) : sum(need[: s + 1])], key=rank) for s in range(3)]
    start = [hands[s] + "".join(dumps[s]) + (rival[1] if rival and rival[0] == s else "") for s in range(3)]
    bottom = sort_cards(rng.sample(list(start[0]), 3))
    final = rival[0] if rival else seat
    route = [0, 1, 2] + ([final] if final != 2 else [])
    history = []
    for i, s in enumerate(route):
        if i > 0:
            frm = route[i - 1]
            if not dumps[frm] or not dumps[s] or rank(dumps[s][-1]) <= rank(dumps[frm][0]):
                return None
            low, high = dumps[frm].pop(0), dumps[s].pop()
            history.append((frm, low))
            t = (frm + 1) % 3
            while t != s:
                history.append((t, "pass"))
                t = (t + 1) % 3
            history += [(s, high), ((s + 1) % 3, "pass"), ((s + 2) % 3, "pass")]
        outs = sum(1 for j in range(i, len(route) - 1) if route[j] == s)
        ins = sum(1 for j in range(i + 1, len(route)) if route[j] == s)
        if len(dumps[s]) < outs + ins:
            return None
        shed = dumps[s][outs : len(dumps[s]) - ins]
        dumps[s] = dumps[s][:outs] + dumps[s][len(dumps[s]) - ins :]
        for card in shed:
            history += [(s, card), ((s + 1) % 3, "pass"), ((s + 2) % 3, "pass")]
    if any(dumps):
        return None
    if rival:
        history.append((rival[0], rival[1]))
        t = (rival[0] + 1) % 3
        while t != seat:
            history.append((t, "pass"))
            t = (t + 1) % 3
    return bottom, [[ROLES[t], p] for t, p in history]


def draw_hand(pool, n, rng, avoid=""):
    """`n` random cards from `pool` (removed from it), none of the ranks in `avoid`."""
    choices = [c for c in pool if c not in avoid]
    if len(choices) < n:
        return None
    picked = rng.sample(choices, n)
    take(pool, picked)
    return sort_cards(picked)


def single_plays(rng):
    """A random play of one of several types, as cards."""
    kind = rng.choice(["pair", "trio", "trio_solo", "trio_pair", "chain", "pair_chain", "bomb"])
    r = lambda lo, hi: RANKS[rng.randrange(lo, hi)]
    if kind == "pair":
        c = r(0, 13)
        return c * 2
    if kind == "trio":
        return r(0, 13) * 3
    if kind == "trio_solo":
        a, b = rng.sample(RANKS[:13], 2)
        return sort_cards(a * 3 + b)
    if kind == "trio_pair":
        a, b = rng.sample(RANKS[:13], 2)
        return sort_cards(a * 3 + b * 2)
    if kind == "chain":
        n = rng.randrange(5, 9)
        s = rng.randrange(0, 12 - n + 1)
        return RANKS[s : s + n]
    if kind == "pair_chain":
        n = 3
        s = rng.randrange(0, 12 - n + 1)
        return "".join(c * 2 for c in RANKS[s : s + n])
    return r(0, 13) * 4


def others(pool, seat, sizes, rng):
    hands = [None, None, None]
    for s in range(3):
        if s != seat:
            hands[s] = draw_hand(pool, sizes[s], rng)
    return hands


def win_now_lead(rng):
    seat = rng.randrange(3)
    play = single_plays(rng)
    pool = deck()
    take(pool, play)
    hands = others(pool, seat, [rng.randrange(4, 13) for _ in range(3)], rng)
    hands[seat] = play
    return seat, hands, None, [play], [], f"the whole hand {play} is one play: lead it and the game is won"


def beating(play, rng):
    """A play of the same type and length with a higher main rank, or None."""
    counts = {c: play.count(c) for c in set(play)}
    width = max(counts.values())
    core = sorted((c for c, n in counts.items() if n == width), key=rank)
    kick = sorted((c for c, n in counts.items() if n < width), key=rank)
    up = rng.randrange(1, 4)
    if rank(core[-1]) + up > (11 if len(core) > 1 else 12):
        return None
    new_core = [RANKS[rank(c) + up] for c in core]
    used = set(new_core)
    new_kick = []
    for c in kick:
        alt = [k for k in RANKS[:13] if k not in used]
        k = rng.choice(alt)
        used.add(k)
        new_kick.append(k * counts[c])
    return sort_cards("".join(c * width for c in new_core) + "".join(new_kick))


def win_now_follow(rng):
    seat = rng.randrange(3)
    opponents = [s for s in range(3) if (s == 0) != (seat == 0)]
    rival_seat = rng.choice(opponents)
    play = single_plays(rng)
    if play == play[0] * 4:
        play = play[:2]
    answer = beating(play, rng)
    if answer is None:
        return None
    pool = deck()
    if not take(pool, play) or not take(pool, answer):
        return None
    hands = others(pool, seat, [rng.randrange(4, 13) for _ in range(3)], rng)
    hands[seat] = answer
    reason = f"{answer} beats {play} and empties the hand: the game is won at once"
    return seat, hands, (rival_seat, play), [answer], [], reason


def feed_teammate(rng):
    seat, mate = 1, 2  # landlord_down leads; landlord_up plays right after it
    pool = deck()
    low = RANKS[rng.randrange(0, 5)]
    pair = RANKS[rng.randrange(6, 11)]
    mate_card = RANKS[rng.randrange(rank(low) + 3, 12)]
    if not take(pool, low + pair * 2 + mate_card):
        return None
    rest = draw_hand(pool, rng.randrange(3, 8), rng, avoid=RANKS[: rank(low) + 1] + pair)
    if rest is None:
        return None
    hand = sort_cards(low + pair * 2 + rest)
    hands = [draw_hand(pool, rng.randrange(5, 12), rng), hand, mate_card]
    pairs = sorted({c * 2 for c in hand if hand.count(c) >= 2}, key=lambda p: rank(p[0]))
    reason = "the teammate plays next with one card left: lead your lowest single so it can go out"
    return seat, hands, None, [low], pairs, reason


def dont_overtake(rng):
    mate = rng.choice([1, 2])
    seat = 3 - mate
    top = RANKS[rng.randrange(9, 12)]  # Q, K or A
    play = top * rng.choice([1, 2])
    pool = deck()
    if not take(pool, play):
        return None
    higher = RANKS[rank(top) + 1] * len(play)
    if not take(pool, higher):
        return None
    rest = draw_hand(pool, rng.randrange(4, 9), rng, avoid="BR")
    hand = sort_cards(higher + rest)
    mate_hand = draw_hand(pool, rng.randrange(1, 3), rng, avoid="2BR")
    landlord = draw_hand(pool, rng.randrange(6, 14), rng)
    hands = [landlord, None, None]
    hands[seat], hands[mate] = hand, mate_hand
    beats = sorted({p for p in (higher, RANKS[rank(top) + 1]) if len(p) == len(play)})
    reason = f"the teammate's {play} holds and it has {len(mate_hand)} card(s) left: do not take its trick"
    return seat, hands, (mate, play), ["pass"], beats, reason


def last_card(rng):
    seat = rng.randrange(3)
    foes = [s for s in range(3) if (s == 0) != (seat == 0)]
    short = rng.choice(foes)
    pool = deck()
    pair = RANKS[rng.randrange(0, 11)] * 2
    take(pool, pair)
    hand = sort_cards(pair + draw_hand(pool, rng.randrange(4, 9), rng))
    hands = [None, None, None]
    hands[seat] = hand
    for s in range(3):
        if s != seat:
            hands[s] = draw_hand(pool, 1 if s == short else rng.randrange(3, 10), rng)
    unseen_top = max(rank(c) for s in range(3) if s != seat for c in hands[s])
    bad = sorted({c for c in hand if rank(c) < unseen_top}, key=rank)
    if not bad:
        return None
    reason = f"the {ROLES[short]} has one card left: a single it might beat lets it go out"
    return seat, hands, None, [], bad, reason


def keep_rocket(rng):
    seat = rng.choice([1, 2])
    pool = deck()
    small = RANKS[rng.randrange(0, 6)]
    take(pool, small + "BR")
    higher = RANKS[rng.randrange(rank(small) + 1, 12)]
    if not take(pool, higher):
        return None
    hand = sort_cards("BR" + higher + draw_hand(pool, rng.randrange(10, 13), rng))
    hands = [None, None, None]
    hands[seat] = hand
    hands[0] = draw_hand(pool, rng.randrange(15, 19), rng)
    hands[3 - seat] = draw_hand(pool, rng.randrange(12, 16), rng)
    reason = f"early in the game, a small single ({small}) is not worth the rocket"
    return seat, hands, (0, small), [], ["BR"], reason


RULES = [win_now_lead, win_now_follow, feed_teammate, dont_overtake, last_card, keep_rocket]


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "src/decisions/situations.jsonl"
    rng = random.Random(20261130)
    lines = []
    for rule in RULES:
        made = 0
        while made < 10:
            drawn = rule(rng)
            if drawn is None or any(h is None for h in drawn[1]):
                continue
            seat, hands, rival, good, bad, reason = drawn
            built = history_to(hands, seat, rival, rng)
            if built is None:
                continue
            bottom, history = built
            made += 1
            lines.append(json.dumps({
                "id": f"{rule.__name__}-{made:02}",
                "rule": rule.__name__,
                "seat": ROLES[seat],
                "hand": hands[seat],
                "bottom": bottom,
                "history": history,
                "good": good,
                "bad": bad,
                "reason": reason,
            }, ensure_ascii=False))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} situations to {out}")


if __name__ == "__main__":
    main()
