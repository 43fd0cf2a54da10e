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
    styles = {
        "rule_landlord_wp": ("vs rule, as landlord", "tab:red", "-"),
        "rule_farmers_wp": ("vs rule, as farmers", "tab:blue", "-"),
        "random_landlord_wp": ("vs random, as landlord", "tab:red", ":"),
        "random_farmers_wp": ("vs random, as farmers", "tab:blue", ":"),
    }
    for key, (label, color, line) in styles.items():
        ax.plot(hours, [float(r[key]) for r in rows], line, color=color, marker="o", markersize=3, label=label)
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
