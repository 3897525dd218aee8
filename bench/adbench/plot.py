"""Bar chart of gradient time / primal time per benchmark size and tool.

Usage: python3 plot.py RESULTS.tsv OUT.png [TITLE]

RESULTS.tsv is what `adbench --tsv` writes: bench, size, tool, primal_s,
grad_s, ratio. The y axis is logarithmic; the dashed segment over each
group is the issue's target for enz-rs (4 for GMM, 5 for BA and LSTM).
"""
import csv
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

TOOLS = [
    ("enzrs", "enz-rs", "#1f77b4"),
    ("enzyme", "Enzyme", "#ff7f0e"),
    ("adolc", "ADOL-C (tape + gradient)", "#d62728"),
    ("adolc_reeval", "ADOL-C (gradient on existing tape)", "#ff9896"),
    ("hand", "hand-written", "#2ca02c"),
    ("fd", "central FD", "#7f7f7f"),
]
TARGET = {"GMM": 4.0, "BA": 5.0, "LSTM": 5.0}


def main():
    path, out = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) > 3 else "gradient time / primal time"
    groups, ratio = [], {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            g = (row["bench"], row["size"])
            if g not in groups:
                groups.append(g)
            ratio[(g, row["tool"])] = float(row["ratio"])
    if not groups:
        sys.exit("plot.py: no results in " + path)

    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(groups)), 5.5))
    # only the tools that have a result (no empty slot for Enzyme when it
    # was not run)
    tools = [t for t in TOOLS if any(k[1] == t[0] for k in ratio)]
    width = 0.8 / len(tools)
    for t, (key, label, color) in enumerate(tools):
        xs, ys = [], []
        for i, g in enumerate(groups):
            if (g, key) in ratio:
                xs.append(i - 0.4 + (t + 0.5) * width)
                ys.append(ratio[(g, key)])
        if xs:
            bars = ax.bar(xs, ys, width, label=label, color=color)
            for b, y in zip(bars, ys):
                ax.annotate(
                    f"{y:.3g}",
                    (b.get_x() + b.get_width() / 2, y),
                    ha="center",
                    va="bottom",
                    fontsize=6,
                    rotation=90,
                    xytext=(0, 2),
                    textcoords="offset points",
                )
    for i, (bench, _) in enumerate(groups):
        tgt = TARGET.get(bench)
        if tgt:
            ax.hlines(tgt, i - 0.45, i + 0.45, colors="black", linestyles="dashed",
                      linewidth=1)
    ax.set_yscale("log")
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(
        [b + "\n" + "\n".join(textwrap.wrap(s, 14)) for b, s in groups], fontsize=8
    )
    ax.set_ylabel("gradient time / primal time (log scale)")
    ax.set_title(title + "  (dashed: enz-rs target)")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.005, 1.0))
    ax.grid(axis="y", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


if __name__ == "__main__":
    main()
