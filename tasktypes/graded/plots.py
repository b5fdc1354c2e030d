"""The plots of a graded relevance report (its report presentation names them): runs by NDCG@10 and MAP under the
human qrels and each judge's, the judges' score CDFs by human grade, and each judge's confusion with the humans."""

from __future__ import annotations

import matplotlib
from matplotlib.patches import Rectangle

from reports.plots import Plot, figure_sized, grid_shape, human_judge_panels, literal, number_text

# The runs scatter's measures: the two the published comparisons plot (P@10 is in the report and its tables).
MEASURE_NAMES = {"ndcg_cut_10": "NDCG@10", "map": "MAP"}

def runs_scatter_plot(*, report: dict) -> Plot | None:
    """Graded relevance: each run's NDCG@10 and MAP under the human qrels (x) and each judge's (y), one row of panels
    per judge; runs carrying the bias tag drawn hollow. None without runs or judges."""
    systems, tag = report["systems"], report.get("bias_tag")
    if not systems or not report["judges"]:
        return None
    colours = matplotlib.colormaps["tab10"]
    panels = []
    for index, (name, block) in enumerate(report["judges"].items()):
        for measure, measure_name in MEASURE_NAMES.items():
            points = [(row["system"], row["human"][measure], row["judges"][name][measure],
                       "hollow" if tag in row["tags"] else "filled", f"tagged {tag}" if tag in row["tags"] else None)
                      for row in systems if row["human"].get(measure) is not None
                      and (row["judges"].get(name) or {}).get(measure) is not None]
            if not points:
                continue
            tau = ((block.get("system") or {}).get(measure) or {}).get("kendall_tau_b")
            panels.append({"judge": name, "measure": measure, "human": "qrels", "points": points,
                           "colour": colours(index % 10), "legend": {"filled": name, "hollow": f"{name}, {tag}"},
                           "title": f"Runs by {measure_name}, {name} (τb {number_text(tau)}; {len(points)} runs)"})
    if not panels:
        return None
    return human_judge_panels("runs", panels=panels, columns=len(MEASURE_NAMES), measure_names=MEASURE_NAMES,
                               title=f"Runs by NDCG@10 and MAP, {len(systems)} runs: human qrels vs each judge's"
                               + (f" (hollow: tagged {tag})" if tag else ""))

def _grade_order(grade) -> tuple:
    """Grades "0", "1", "2", ... in numeric order ("10" after "9"); any other name after them."""
    text = str(grade)
    return (0, int(text), text) if text.lstrip("-").isdigit() else (1, 0, text)

def scores_cdf_plot(*, report: dict) -> Plot | None:
    """Graded relevance: each judge's raw scores as a CDF, one panel per judge on its own score axis (judges score on
    other scales: a shared, rescaled axis would hide where their scores lie), with the human grades' cumulative
    shares as dotted levels. None without scores."""
    cdfs = {name: block["cdf"] for name, block in report["judges"].items() if block.get("cdf")}
    if not cdfs:
        return None
    rows, columns = grid_shape(len(cdfs), columns=2)
    plot = Plot("cdf", figure_sized(0.6 + 4.0 * columns, 1.2 + 3.0 * rows))
    axes_list = plot.figure.subplots(rows, columns, squeeze=False).ravel()
    colours = matplotlib.colormaps["tab10"]
    shares = [index / 100 for index in range(101)]
    grades = report["humans"].get("grades") or {}
    total = sum(grades.values())
    for index, (axes, (name, cdf)) in enumerate(zip(axes_list, cdfs.items())):
        low, high = cdf["quantiles"][0], cdf["quantiles"][-1]
        line, = axes.plot(cdf["quantiles"], shares, color=colours(index % 10), drawstyle="steps-post")
        plot.tooltip(line, f"{name}: {cdf['n']} scores from {low:.3g} to {high:.3g}")
        cumulative = 0.0
        for grade in sorted(grades, key=_grade_order) if total else ():
            cumulative += grades[grade] / total
            axes.axhline(cumulative, color="#888888", linestyle=":", linewidth=1)
            axes.text(1.01, cumulative, f"humans ≤ {literal(grade)}", fontsize=7, va="center", color="#555555",
                      transform=axes.get_yaxis_transform())
        axes.set_title(f"{literal(name)} (n {cdf['n']})", fontsize=9)
        axes.set_xlabel("raw score")
        axes.set_ylabel(f"share of {report.get('item_noun', 'item')}s at or below")
        axes.set_ylim(-0.02, 1.02)
        axes.grid(True, color="#e5e7eb", linewidth=0.6)
    for axes in axes_list[len(cdfs):]:
        axes.set_visible(False)
    plot.figure.suptitle("Judges' raw scores (CDF) and the human grades' cumulative shares", fontsize=10)
    return plot

def confusion_plot(*, report: dict) -> Plot | None:
    """Graded relevance: each judge's grades against the human consensus as a heatmap, one panel per judge; each
    cell gives its count and is shaded by its share of the row (the human grade), so a row's mass shows where the
    judge put that grade's items. None without a judge with a confusion matrix."""
    matrices = {name: block["item"]["confusion"] for name, block in report["judges"].items()
                if (block.get("item") or {}).get("confusion")}
    if not matrices:
        return None
    scale = report.get("scale") or []
    rows, columns = grid_shape(len(matrices), columns=3)
    plot = Plot("confusion", figure_sized(0.6 + 3.3 * columns, 1.3 + 3.1 * rows))
    axes_list = plot.figure.subplots(rows, columns, squeeze=False).ravel()
    image = None
    for axes, (name, matrix) in zip(axes_list, matrices.items()):
        size = len(matrix)
        totals = [sum(row) for row in matrix]
        shares = [[cell / totals[r] if totals[r] else 0.0 for cell in row] for r, row in enumerate(matrix)]
        image = axes.imshow(shares, cmap="Blues", vmin=0.0, vmax=1.0)
        # An SVG image takes no <title>: an unfilled frame over the panel carries the tooltip.
        frame = axes.add_patch(Rectangle((-0.5, -0.5), size, size, fill=False, linewidth=0))
        plot.tooltip(frame, f"{name}: rows are the human consensus grade, columns the judge's; "
                            + "; ".join(f"human {r}: " + ", ".join(str(cell) for cell in row)
                                        for r, row in enumerate(matrix)))
        for r in range(size):
            for c in range(size):
                axes.text(c, r, str(matrix[r][c]), ha="center", va="center", fontsize=8,
                          color="white" if shares[r][c] > 0.6 else "#111111")
        grades = [str(entry["grade"]) for entry in scale] if len(scale) == size else [str(i) for i in range(size)]
        axes.set_xticks(range(size), grades)
        axes.set_yticks(range(size), grades)
        axes.set_xlabel(f"{literal(name)}'s grade")
        axes.set_ylabel("human consensus grade")
        axes.set_title(f"{literal(name)} (n {sum(totals)})", fontsize=9)
    for axes in axes_list[len(matrices):]:
        axes.set_visible(False)
    if image is not None:
        plot.figure.colorbar(
            image, ax=list(axes_list[: len(matrices)]), shrink=0.8, label="share of the human grade's items"
        )
    legend = ", ".join(f"{entry['grade']} {literal(entry['name'])}" for entry in scale)
    plot.figure.suptitle("Judges' grades against the human consensus" + (f" (grades: {legend})" if legend else ""),
                         fontsize=10)
    return plot
