"""The plot of an answer_ranking report (its report presentation names it): NRP per system, humans and each ranker."""

from __future__ import annotations

import matplotlib

from reports.plots import Plot, figure_sized, legend_below, literal, number_text


def nrp_plot(*, report: dict) -> Plot | None:
    """answer_ranking: mean NRP per (system, prompt) with ±1 sd bars over each single answer's NRP (faint dots),
    humans and each ranker side by side. None without systems."""
    systems = report["systems"]
    if not systems:
        return None
    sources = [("humans", "human_nrp")] + [(name, None) for name in report["judges"]]
    plot = Plot("nrp", figure_sized(8.0, 1.9 + 0.45 * len(systems) * max(1, len(sources)) ** 0.5))
    axes = plot.figure.subplots()
    colours = matplotlib.colormaps["tab10"]
    step = 0.8 / len(sources)
    names = [f"{row['system']} · {row['prompt']}" if row["prompt"] else row["system"] for row in systems]
    handles = []
    for index, (name, key) in enumerate(sources):
        colour, point = colours(index % 10), None
        for row_index, row in enumerate(systems):
            block = row[key] if key else row["judges_nrp"].get(name, {})
            mean, sd = block.get("mean"), block.get("sd")
            if mean is None:
                continue
            y = row_index - 0.4 + step * (index + 0.5)
            values = block.get("values") or []
            if values:  # every answer, faint, behind its mean: the spread the mean summarises
                dots = axes.scatter(values, [y] * len(values), s=9, color=colour, alpha=0.3, linewidths=0)
                plot.tooltip(dots, f"{names[row_index]}, {name}: {len(values)} answers, NRP "
                                   + ", ".join(f"{value:.2f}" for value in sorted(values)))
            # NRP lives in [0, 1]: a bar past either end would claim positions that do not exist.
            spread = [[min(sd or 0.0, mean)], [min(sd or 0.0, 1 - mean)]]
            axes.errorbar([mean], [y], xerr=spread, fmt="none", ecolor=colour, capsize=3, linewidth=1)
            point, = axes.plot([mean], [y], "o", color=colour, markersize=5, label=literal(name))
            plot.tooltip(point, f"{names[row_index]}, {name}: mean NRP {number_text(mean)}"
                                f"{f' ± {sd:.3f} sd' if sd is not None else ''} over {block.get('n', '?')} answers")
        if point is not None:  # one legend entry per source that has a point
            handles.append(point)
    axes.set_yticks(range(len(systems)))
    axes.set_yticklabels([literal(name) for name in names])
    axes.invert_yaxis()
    axes.set_xlim(-0.05, 1.05)
    axes.set_xlabel("NRP (1 = above every document): mean, ±1 sd cut at 0 and 1, and each answer (faint)")
    axes.set_title("Generated answers among the documents")
    axes.grid(True, axis="x", color="#e5e7eb", linewidth=0.6)
    if handles:
        legend_below(plot.figure, handles, [handle.get_label() for handle in handles], ncol=len(handles))
    return plot
