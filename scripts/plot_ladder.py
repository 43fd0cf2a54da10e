"""Plots a ladder's ratings with their 95% intervals, highest at the top.

    python plot_ladder.py RATINGS.csv OUT.png TITLE   (as `ddz ladder` calls it)
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> None:
    path, out, title = sys.argv[1], sys.argv[2], sys.argv[3]
    rows = list(csv.DictReader(open(path)))[::-1]
    names = [r["agent"] + (" *" if r["slow"] == "true" else "") for r in rows]
    rating = [float(r["rating"]) for r in rows]
    low = [float(r["rating"]) - float(r["low"]) for r in rows]
    high = [float(r["high"]) - float(r["rating"]) for r in rows]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.2))
    ax.errorbar(rating, range(len(rows)), xerr=[low, high], fmt="o", color="tab:blue", capsize=3)
    ax.set_yticks(range(len(rows)), names)
    ax.set_xlabel("rating (Bradley–Terry, Elo scale, mean 1500) with 95% interval")
    ax.set_title(title + ("  (* fewer deals)" if any(r["slow"] == "true" for r in rows) else ""))
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
