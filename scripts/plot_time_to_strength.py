"""Time to strength: several runs' curves on one deal set against the same opponents.

    python scripts/plot_time_to_strength.py OUT.png [--deal-set test] [--md OUT.md]
        [--goal LABEL=WP ...] RUN_LABEL=RUN_DIR ...

Each RUN_DIR/eval/curve.json holds the points `ddz eval --run RUN_DIR --deals SET --opponents ...`
measured. For every opponent label found in the runs' points on that deal set, one panel: the
WP over both seatings (the mean of the WP as landlord and as farmers) against training time.
`--goal LABEL=WP` draws a goal line in the panel of opponent LABEL and adds a column of the
minutes each run took to reach it (its first checkpoint at or above it) to the Markdown table,
beside the WP of each run at 15, 30 and 45 minutes and at its end.
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def points(run_dir, deal_set):
    path = Path(run_dir) / "eval" / "curve.json"
    pts = [p for p in json.loads(path.read_text()) if p.get("deal_set", "dev") == deal_set]
    by_step = {}
    for p in pts:  # several opponent sets for one checkpoint: merge them
        merged = by_step.setdefault(p["step"], {"hours": p["hours"], "frames": p["frames"], "vs": {}})
        for v in p.get("vs", []):
            merged["vs"][v["opponent"]] = (v["landlord"], v["farmers"])
    return [by_step[s] for s in sorted(by_step)]


def wp(point, label):
    side = point["vs"].get(label)
    return None if side is None else (side[0] + side[1]) / 2


def at_minutes(pts, label, minutes):
    """The WP of the last checkpoint written by `minutes` of training (within 30 s after)."""
    before = [p for p in pts if p["hours"] * 60 <= minutes + 0.5 and wp(p, label) is not None]
    return wp(before[-1], label) if before else None


def reached(pts, label, goal):
    for p in pts:
        w = wp(p, label)
        if w is not None and w >= goal:
            return p["hours"] * 60
    return None


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        sys.exit(__doc__)
    out = argv[0]
    args = argv[1:]
    deal_set, md, goals, runs = "test", None, [], []
    while args:
        a = args.pop(0)
        if a == "--deal-set":
            deal_set = args.pop(0)
        elif a == "--md":
            md = args.pop(0)
        elif a == "--goal":
            label, value = args.pop(0).split("=", 1)
            goals.append((label, float(value)))
        else:
            label, path = a.split("=", 1)
            runs.append((label, path, points(path, deal_set)))
    if not runs or not any(pts for _, _, pts in runs):
        sys.exit(f"no curve points on deal set {deal_set!r} in the runs given\n{__doc__}")
    opponents = []
    for _, _, pts in runs:
        for p in pts:
            for label in p["vs"]:
                if label not in opponents:
                    opponents.append(label)
    fig, axes = plt.subplots(1, len(opponents), figsize=(6 * len(opponents), 5), dpi=110, squeeze=False)
    cmap = plt.get_cmap("tab10")
    for ax, opponent in zip(axes[0], opponents):
        for k, (label, _, pts) in enumerate(runs):
            xs = [p["hours"] * 60 for p in pts if wp(p, opponent) is not None]
            ys = [wp(p, opponent) for p in pts if wp(p, opponent) is not None]
            style = "-" if k < 10 else "--"
            ax.plot(xs, ys, style, color=cmap(k % 10), marker="o", markersize=3, label=label)
        for label, goal in goals:
            if label == opponent:
                ax.axhline(goal, color="grey", linewidth=0.8, linestyle=":")
        ax.set_xlabel("training time (minutes)")
        ax.set_ylabel(f"WP against {opponent}, both seatings ({deal_set} deals)")
        ax.grid(alpha=0.3)
        ax.set_title(f"against {opponent}")
    axes[0][0].legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    fig.savefig(out)
    if md:
        header = ["run", "frames"]
        for o in opponents:
            header += [f"vs {o} @15", "@30", "@45", "end"]
        header += [f"min to {g} vs {o}" for o, g in goals]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        fmt = lambda x: "—" if x is None else f"{x:.3f}"  # noqa: E731
        for label, _, pts in runs:
            row = [label, f"{pts[-1]['frames'] / 1e6:.1f} M" if pts else "—"]
            for o in opponents:
                row += [fmt(at_minutes(pts, o, m)) for m in (15, 30, 45)]
                row.append(fmt(wp(pts[-1], o)) if pts else "—")
            for o, g in goals:
                t = reached(pts, o, g)
                row.append("—" if t is None else f"{t:.0f}")
            lines.append("| " + " | ".join(row) + " |")
        Path(md).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
