"""The system-accuracy scatter plot (human accuracy on x, each judge's on y), as inline SVG.

Rendered on the server by matplotlib (Agg backend, SVG output) through `Figure` directly, never
pyplot's global state, so concurrent requests cannot draw on each other's figure; the page needs
no script and no CDN.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # no display on servers; must precede pyplot

from matplotlib.figure import Figure  # noqa: E402

# An SVG's ids must be unique within the page, and matplotlib's default salt is random.
matplotlib.rcParams["svg.hashsalt"] = "concord-agreement"
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: selectable, and searchable in tests


def _literal(text) -> str:
    """TEXT (a judge, system, prompt or tag name) for a matplotlib label, shown as it is: matplotlib reads text
    between two "$" as mathtext, so "a $x$" would be set as a formula and "$\\foo$" fail the whole page."""
    return str(text).replace("$", r"\$")


def system_accuracy_svg(*, report: dict) -> str | None:
    """An SVG document (string) plotting per-system accuracy, humans vs each judge; None with no systems."""
    systems = [row for row in report["systems"] if row["human"] is not None]
    judges = list(report["judges"])
    if not systems or not judges:
        return None
    figure = Figure(figsize=(6.4, 5.2))
    axes = figure.subplots()
    values = [row["human"] for row in systems]
    colours = matplotlib.colormaps["tab10"]
    for index, name in enumerate(judges):
        points = [(row["human"], row["judges"].get(name)) for row in systems if row["judges"].get(name) is not None]
        if not points:
            continue
        xs, ys = zip(*points, strict=True)
        values.extend(ys)
        system = report["judges"][name]["system"]
        figures = [f"{symbol} {system[key]:.3f}" for symbol, key in (("r", "pearson"), ("τb", "kendall_tau_b"))
                   if system[key] is not None]
        label = f"{_literal(name)} ({', '.join(figures)})" if figures else _literal(name)
        axes.scatter(xs, ys, s=36, color=colours(index % 10), label=label, alpha=0.85, edgecolors="white", linewidths=0.5)
    low, high = min(values), max(values)
    pad = max(0.02, (high - low) * 0.08)
    low, high = max(-pad, low - pad), min(1.0 + pad, high + pad)  # keep points on 0 or 1 inside the frame
    axes.plot([low, high], [low, high], color="#888888", linestyle="--", linewidth=1, label="y = x")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    measure = "AIS accuracy" if report["task_type"] == "ais" else "accuracy"
    axes.set_xlabel(f"{measure} under human labels")
    axes.set_ylabel(f"{measure} under the judge")
    axes.set_title(f"System accuracy, {len(systems)} systems")
    axes.grid(True, color="#e5e7eb", linewidth=0.6)
    axes.legend(loc="lower right", fontsize=8, frameon=False)
    figure.tight_layout()
    return _svg(figure)


def nrp_svg(*, report: dict) -> str | None:
    """An SVG of mean NRP per (system, prompt) with ±1 sd bars, humans and each ranker side by side; None without systems."""
    systems = report["systems"]
    sources = [("humans", "human_nrp")] + [(name, None) for name in report["judges"]]
    if not systems:
        return None
    figure = Figure(figsize=(8.0, 1.6 + 0.45 * len(systems) * max(1, len(sources)) ** 0.5))
    axes = figure.subplots()
    colours = matplotlib.colormaps["tab10"]
    step = 0.8 / len(sources)
    for index, (name, key) in enumerate(sources):
        blocks = [row[key] if key else row["judges_nrp"].get(name, {}) for row in systems]
        points = [(y - 0.4 + step * (index + 0.5), block) for y, block in enumerate(blocks) if block.get("mean") is not None]
        if not points:
            continue
        ys = [y for y, _ in points]
        means = [block["mean"] for _, block in points]
        sds = [block["sd"] or 0.0 for _, block in points]
        # NRP lives in [0, 1]: a bar past either end would claim positions that do not exist.
        spread = [[min(sd, mean) for mean, sd in zip(means, sds)], [min(sd, 1 - mean) for mean, sd in zip(means, sds)]]
        axes.errorbar(means, ys, xerr=spread, fmt="o", color=colours(index % 10), label=_literal(name), capsize=3,
                      markersize=5)
    axes.set_yticks(range(len(systems)))
    axes.set_yticklabels([_literal(f"{row['system']} · {row['prompt']}" if row["prompt"] else row["system"])
                          for row in systems])
    axes.invert_yaxis()
    axes.set_xlim(-0.05, 1.05)
    axes.set_xlabel("mean NRP (1 = above every document, 0 = below all); bars: ±1 sd, cut at 0 and 1")
    axes.set_title("Generated answers among the documents")
    axes.grid(True, axis="x", color="#e5e7eb", linewidth=0.6)
    # Below the axes: inside, it would sit on the points near NRP 1, where good answers land.
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=len(sources), fontsize=8, frameon=False)
    figure.tight_layout()
    return _svg(figure)


def _svg(figure: Figure) -> str:
    """The figure as an inline <svg> element (no XML prologue or doctype); tight: legends outside stay in."""
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]


MEASURE_NAMES = {"ndcg_cut_10": "NDCG@10", "map": "MAP"}


def runs_scatter_svg(*, report: dict) -> str | None:
    """image_relevance: each run's NDCG@10 and MAP under the human qrels (x) and each judge's (y), one point per
    run; runs carrying the bias tag drawn hollow. None without runs or judges."""
    systems, judges, tag = report["systems"], list(report["judges"]), report.get("bias_tag")
    if not systems or not judges:
        return None
    figure = Figure(figsize=(9.6, 4.6))
    colours = matplotlib.colormaps["tab10"]
    for axes, measure in zip(figure.subplots(1, 2), MEASURE_NAMES, strict=True):
        for index, name in enumerate(judges):
            tau = report["judges"][name]["system"][measure]["kendall_tau_b"]
            for tagged in (False, True):
                points = [(row["human"][measure], row["judges"][name][measure]) for row in systems
                          if (tag in row["tags"]) == tagged and row["human"][measure] is not None
                          and row["judges"][name][measure] is not None]
                if not points:
                    continue
                xs, ys = zip(*points, strict=True)
                label = _literal((f"{name} (τb {tau:.3f})" if tau is not None else name) if not tagged
                                 else f"{name}, {tag}")
                axes.scatter(xs, ys, s=40, label=label, linewidths=1.4, edgecolors=colours(index % 10),
                             facecolors="none" if tagged else colours(index % 10), alpha=0.9)
        axes.set_xlabel(f"{MEASURE_NAMES[measure]} under human qrels")
        axes.set_ylabel(f"{MEASURE_NAMES[measure]} under the judge's qrels")
        axes.set_title(f"Runs by {MEASURE_NAMES[measure]}, {len(systems)} runs")
        axes.grid(True, color="#e5e7eb", linewidth=0.6)
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8, frameon=False)
    figure.tight_layout()
    return _svg(figure)


def scores_cdf_svg(*, report: dict) -> str | None:
    """image_relevance: each judge's raw scores as a CDF (scores scaled to [0, 1] per judge, so judges on other
    scales share the axis), with the human grades' cumulative shares as steps. None without scores."""
    cdfs = {name: block["cdf"] for name, block in report["judges"].items() if block.get("cdf")}
    if not cdfs:
        return None
    figure = Figure(figsize=(6.4, 4.2))
    axes = figure.subplots()
    colours = matplotlib.colormaps["tab10"]
    shares = [index / 100 for index in range(101)]
    for index, (name, cdf) in enumerate(cdfs.items()):
        low, high = cdf["quantiles"][0], cdf["quantiles"][-1]
        scaled = [(q - low) / (high - low) if high > low else 0.5 for q in cdf["quantiles"]]
        axes.plot(scaled, shares, color=colours(index % 10),
                  label=f"{_literal(name)} ({low:.3g} to {high:.3g}, n {cdf['n']})")
    grades = report["humans"].get("grades") or {}
    total = sum(grades.values())
    if total:
        cumulative = 0.0
        for grade in ("0", "1", "2"):
            cumulative += grades.get(grade, 0) / total
            axes.axhline(cumulative, color="#888888", linestyle=":", linewidth=1)
            axes.text(1.01, cumulative, f"humans ≤ {grade}", fontsize=7, va="center", color="#555555")
    axes.set_xlabel("score, scaled to the judge's range")
    axes.set_ylabel("share of images at or below")
    axes.set_title("Judges' scores (CDF) and the human grades")
    axes.grid(True, color="#e5e7eb", linewidth=0.6)
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1, fontsize=8, frameon=False)
    figure.tight_layout()
    return _svg(figure)
