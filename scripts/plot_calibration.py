"""Calibration of the hand evaluator: predicted against observed landlord win rate, in deciles of
held-out hands (written by `ddz evaluate-hands` as calibration.csv).

Usage: python plot_calibration.py CALIBRATION_CSV OUT_PNG
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main() -> None:
    rows = list(csv.DictReader(open(sys.argv[1])))
    fig, ax = plt.subplots(figsize=(5.5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfect calibration")
    for hand, label, marker in (("17", "17 cards (bottom unknown)", "o"), ("20", "20 cards (with the bottom)", "s")):
        pts = [(float(r["predicted"]), float(r["observed"])) for r in rows if r["hand"] == hand]
        ax.plot([p for p, _ in pts], [o for _, o in pts], marker=marker, label=label)
    ax.set_xlabel("predicted win chance of the landlord (decile mean)")
    ax.set_ylabel("observed win rate on held-out deals")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    ax.set_title("Hand evaluator calibration")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
