"""Plots a run's learning curve: WP against random and rule, as landlord and as farmers.

Usage: python plot_curve.py RUN/eval/curve.csv OUT.png   (called by `ddz eval --run`)
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    rows = list(csv.DictReader(open(sys.argv[1])))
    hours = [float(r["hours"]) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    lines = {"rule": "-", "random": ":"}
    colors = {"landlord": "tab:red", "farmers": "tab:blue"}
    opponents = [k[: -len("_landlord_wp")] for k in rows[0] if k.endswith("_landlord_wp")] if rows else []
    for opponent in opponents:
        for side in ("landlord", "farmers"):
            key = f"{opponent}_{side}_wp"
            ax.plot(hours, [float(r[key]) for r in rows], lines.get(opponent, "--"), color=colors[side],
                    marker="o", markersize=3, label=f"vs {opponent}, as {side}")
    deals = rows[-1]["deals"] if rows else "?"
    ax.set_xlabel("training time (hours)")
    ax.set_ylabel(f"win rate on {deals} fixed deals")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title("ddz DMC learning curve")
    fig.tight_layout()
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
