"""Plots learning curves: win rate over training time.

One run (as `ddz eval --run` calls it):
    python plot_curve.py RUN/eval/curve.csv OUT.png [--deals N]
    -> WP against every opponent in the file, as landlord and as farmers (only the points
       measured on N deals, when given: the file keeps every deal set measured).
Several runs, against the rule agent (e.g. from scratch vs from a pretrained checkpoint):
    python plot_curve.py --compare OUT.png LABEL=RUN/eval/curve.csv LABEL=RUN2/eval/curve.csv
    Optional, right after OUT.png: --target LANDLORD FARMERS draws a goal line for each side;
    --mean draws one line per run, the mean of its WP as landlord and as farmers (for many runs).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SIDE_COLORS = {"landlord": "tab:red", "farmers": "tab:blue"}


def value(row, key):
    """A cell as a number; an empty cell (an opponent this point was not played against) is NaN."""
    return float(row[key]) if row.get(key) else float("nan")


def read(path):
    rows = list(csv.DictReader(open(path)))
    return rows, [float(r["hours"]) for r in rows]


def finish(ax, fig, title, deals, out, ylim=(0, 1), legend_below=False):
    ax.set_xlabel("training time (hours)")
    ax.set_ylabel(f"win rate on {deals} fixed deals")
    ax.set_ylim(*ylim)
    ax.grid(alpha=0.3)
    if legend_below:  # many curves: a legend inside would hide some of them
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2, fontsize=7)
    else:
        ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out)


def one_run(path, out, deals=None):
    rows, hours = read(path)
    if deals is not None:
        kept = [(r, h) for r, h in zip(rows, hours) if r["deals"] == deals]
        rows, hours = [r for r, _ in kept], [h for _, h in kept]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    line_styles = {"rule": "-", "random": ":"}
    opponents = [k[: -len("_landlord_wp")] for k in rows[0] if k.endswith("_landlord_wp")] if rows else []
    for opponent in opponents:
        for side in ("landlord", "farmers"):
            key = f"{opponent}_{side}_wp"
            ax.plot(hours, [value(r, key) for r in rows], line_styles.get(opponent, "--"), color=SIDE_COLORS[side],
                    marker="o", markersize=3, label=f"vs {opponent}, as {side}")
    finish(ax, fig, "ddz DMC learning curve", rows[-1]["deals"] if rows else "?", out)


def compare(out, specs):
    fig, ax = plt.subplots(figsize=(8, 6), dpi=110)
    if specs and specs[0] == "--target":
        for side, goal in zip(("landlord", "farmers"), specs[1:3]):
            ax.axhline(float(goal), color=SIDE_COLORS[side], linewidth=0.8, alpha=0.6, label=f"target as {side}")
        specs = specs[3:]
    mean = bool(specs) and specs[0] == "--mean"
    specs = specs[1:] if mean else specs
    styles = ["-", "--", "-.", ":"]
    deals = "?"
    for k, spec in enumerate(specs):
        label, path = spec.split("=", 1)
        rows, hours = read(path)
        deals = rows[-1]["deals"] if rows else deals
        if mean:
            wp = [(float(r["rule_landlord_wp"]) + float(r["rule_farmers_wp"])) / 2 for r in rows]
            ax.plot(hours, wp, styles[k // 10 % len(styles)], color=plt.get_cmap("tab10")(k % 10), marker="o",
                    markersize=3, label=f"{label}: vs rule, mean of both sides")
            continue
        for side in ("landlord", "farmers"):
            ax.plot(hours, [float(r[f"rule_{side}_wp"]) for r in rows], styles[k % len(styles)], color=SIDE_COLORS[side],
                    marker="o", markersize=3, label=f"{label}: vs rule, as {side}")
    # Only rule curves here, all well above 0.4 after the first minutes: zoom in so that runs
    # a few points apart can be told apart.
    title = "DMC against the rule agent: " + " vs ".join(s.split("=", 1)[0] for s in specs)
    finish(ax, fig, title if len(title) <= 80 else "DMC against the rule agent", deals, out, ylim=(0.4, 1), legend_below=True)


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3:])
    else:
        deals = sys.argv[sys.argv.index("--deals") + 1] if "--deals" in sys.argv else None
        one_run(sys.argv[1], sys.argv[2], deals)
