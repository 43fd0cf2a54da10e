"""Plots a search agent's win rate by budget (scripts/search_budget), against its own network or
against another opponent.

    python plot_budget.py OUT_DIR BUDGETS TEMPLATE [OPPONENT]
reads OUT_DIR/eval-B.json for each budget B, OUT_DIR/bench.json and, with an OPPONENT other than
the network, OUT_DIR/eval-network.json (the network alone against it); writes OUT_DIR/budget.png.
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, budgets, template = sys.argv[1], [b for b in sys.argv[2].split(",") if b], sys.argv[3]
    network_eval = f"{out}/eval-network.json"
    opponent = sys.argv[4] if len(sys.argv) > 4 and os.path.exists(network_eval) else None
    evals = [json.load(open(f"{out}/eval-{b}.json")) for b in budgets]
    bench = json.load(open(f"{out}/bench.json"))
    ms = {t["agent"]: t["median_ms"] for t in bench}
    x = [float(b) for b in budgets]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label, color in [
        ("overall", "both seatings", "black"),
        ("a_as_landlord", "as landlord", "tab:red"),
        ("a_as_farmers", "as farmers", "tab:blue"),
    ]:
        y = [e[key]["wp"]["mean"] for e in evals]
        ci = [e[key]["wp"]["ci95"] for e in evals]
        ax.errorbar(x, y, yerr=ci, marker="o", capsize=4, label=label, color=color)
    base = json.load(open(f"{out}/eval-{budgets[0]}.json"))
    for e, b in zip(evals, x):
        t = ms.get(e["a"])
        if t is not None:
            ax.annotate(f"{t:.0f} ms", (b, e["overall"]["wp"]["mean"]), textcoords="offset points", xytext=(6, -14))
    if opponent is None:
        ax.axhline(0.5, color="gray", linestyle=":", label="the network against itself (both seatings)")
    else:
        alone = json.load(open(network_eval))
        for key, label, color in [("a_as_landlord", "landlord", "tab:red"), ("a_as_farmers", "farmers", "tab:blue")]:
            wp = alone[key]["wp"]["mean"]
            ax.axhline(wp, color=color, linestyle=":", label=f"the network alone as {label} ({wp:.3f})")
    ax.set_xscale("log", base=2)
    ax.set_xticks(x)
    ax.set_xticklabels(budgets)
    ax.set_xlabel("budget B in " + template)
    ax.set_ylabel("win rate against its own network" if opponent is None else f"win rate against {opponent}")
    ax.set_title(f"{base['deals']} deals, both seatings, 95% CIs; median ms per decision on one thread")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{out}/budget.png", dpi=110)
    print(f"{out}/budget.png")


if __name__ == "__main__":
    main()
