#!/usr/bin/env python3
"""Bidders side by side, from `ddz eval --bidding --json` reports.

    scripts/plot_bidding.py OUT.png "network vs rule=REPORT.json" "evaluator vs rule=REPORT.json" ...

Each argument names a match "A vs B" and its report. Left: A's points a deal minus B's, with the
95% interval. Right: how often each bidder takes the landlord, and how often it then wins
(a bidder seen in several matches is drawn once per match).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(out, matches):
    reports = []
    for m in matches:
        label, _, path = m.partition("=")
        a, _, b = label.partition(" vs ")
        with open(path) as f:
            reports.append((label, a.strip(), b.strip(), json.load(f)))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    y = range(len(reports))
    diffs = [r["adp_a_minus_b"]["mean"] for *_, r in reports]
    cis = [r["adp_a_minus_b"]["ci95"] for *_, r in reports]
    left.errorbar(diffs, list(y), xerr=cis, fmt="o", capsize=4)
    left.axvline(0, color="grey", lw=0.8)
    left.set_yticks(list(y), [label for label, *_ in reports])
    left.invert_yaxis()
    left.set_xlabel("points a deal, A − B (95% CI)")
    left.set_title("same play network, different bidders")
    seen = set()
    for _, a, b, r in reports:
        for name, side in ((a, r["a"]), (b, r["b"])):
            key = (name, round(side["landlord_share"], 3))
            if key in seen or side["wp_as_landlord"] is None:
                continue
            seen.add(key)
            right.scatter(side["landlord_share"], side["wp_as_landlord"])
            right.annotate(name, (side["landlord_share"], side["wp_as_landlord"]),
                           textcoords="offset points", xytext=(5, 4), fontsize=8)
    right.set_xlabel("share of games as landlord")
    right.set_ylabel("WP as landlord")
    right.set_title("how often each bidder takes the landlord, and wins")
    right.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2:])
