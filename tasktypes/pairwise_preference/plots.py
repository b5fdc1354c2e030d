"""The plots of a pairwise_preference report (its presentation names them): the systems' Bradley-Terry scores with
their intervals under the humans and under each judge, and the humans' win-rate matrix as a heatmap."""

from __future__ import annotations

import matplotlib
from matplotlib.patches import Rectangle

from reports.plots import Plot, figure_sized, legend_below, literal, number_text
from stats.preference import SCOPE_PROMPT

# More systems than this make a plot of every one unreadable; the tables and the CSV hold them all.
PLOTTED_SYSTEMS = 60


def _plotted(humans: dict) -> bool:
    """Whether a plot of every system is drawn: scores fitted over all prompts (not per prompt's pool), few enough."""
    return humans.get("scope") != SCOPE_PROMPT and 2 <= len(humans["systems"]) <= PLOTTED_SYSTEMS


def _sources(report: dict) -> dict[str, dict]:
    return {"humans": report["scores"]["humans"],
            **{name: block["scores"] for name, block in report["judges"].items()}}


def scores_plot(*, report: dict) -> Plot | None:
    """Each system's score (a point) and its 95% interval (a bar) under the humans and under each judge, the systems
    in the humans' order, best at the top. None without a score, for scores per prompt's pool or past
    PLOTTED_SYSTEMS systems."""
    humans = report["scores"]["humans"]
    systems = humans["systems"]
    if not _plotted(humans):
        return None
    sources = {name: block for name, block in _sources(report).items()
               if any(block["scores"].get(system) is not None for system in systems)}
    if not systems or not sources:
        return None
    plot = Plot("scores", figure_sized(6.4, 1.4 + 0.42 * len(systems) * max(1, len(sources)) ** 0.5))
    axes = plot.figure.subplots()
    colours = matplotlib.colormaps["tab10"]
    step = 0.7 / max(1, len(sources))
    handles, labels = [], []
    for index, (name, block) in enumerate(sources.items()):
        for row, system in enumerate(systems):
            score = block["scores"].get(system)
            if score is None:
                continue
            y = len(systems) - 1 - row + (index - (len(sources) - 1) / 2) * step
            interval = block["scores_ci95"].get(system)
            if interval is not None:
                bar, = axes.plot(interval, [y, y], "-", color=colours(index % 10), linewidth=1.6)
                plot.tooltip(bar, f"{system} under {name}: 95% interval {number_text(interval[0])} to "
                                  f"{number_text(interval[1])}")
            point, = axes.plot([score], [y], "o", color=colours(index % 10), markersize=5)
            plot.tooltip(point, f"{system} under {name}: {number_text(score)} (n {block['n_comparisons']} "
                                f"verdicts over {block['n_prompts']} prompts)")
            if name not in labels:
                handles.append(point)
                labels.append(name)
    axes.set_yticks(range(len(systems)), [literal(system) for system in reversed(systems)])
    axes.axvline(0, color="#bbbbbb", linewidth=0.8)
    axes.set_xlabel("Bradley-Terry score (log-strength, mean 0)")
    axes.grid(True, axis="x", color="#e5e7eb", linewidth=0.6)
    axes.set_title(f"System scores, {len(systems)} systems, with 95% intervals over prompts", fontsize=9)
    legend_below(plot.figure, handles, [literal(label) for label in labels], ncol=min(4, len(labels)))
    return plot


def win_rates_plot(*, report: dict) -> Plot | None:
    """The humans' win-rate matrix: row system's share of its comparisons with the column system (ties half), as a
    heatmap in the humans' order; blank where two systems never met. None with fewer than two systems,
    for scores per prompt's pool or past PLOTTED_SYSTEMS systems."""
    humans = report["scores"]["humans"]
    systems = humans["systems"]
    if not _plotted(humans) or not humans["n_comparisons"]:
        return None
    size = len(systems)
    rates = [[humans["win_rates"][row].get(column) if row != column else None for column in systems]
             for row in systems]
    side = min(9.0, 2.2 + 0.55 * size)
    plot = Plot("win-rates", figure_sized(side + 1.2, side))
    axes = plot.figure.subplots()
    shown = [[float("nan") if rate is None else rate for rate in row] for row in rates]
    image = axes.imshow(shown, cmap="RdBu", vmin=0.0, vmax=1.0)
    frame = axes.add_patch(Rectangle((-0.5, -0.5), size, size, fill=False, linewidth=0))
    plot.tooltip(frame, "rows: the system, columns: its opponent; the share of their comparisons the row system won "
                        "under the humans (a tie counts half)")
    for r in range(size):
        for c in range(size):
            if rates[r][c] is not None and size <= 15:
                axes.text(c, r, f"{rates[r][c]:.2f}", ha="center", va="center", fontsize=7,
                          color="white" if abs(rates[r][c] - 0.5) > 0.3 else "#111111")
    names = [literal(system) for system in systems]
    axes.set_xticks(range(size), names, rotation=45, ha="right")
    axes.set_yticks(range(size), names)
    axes.set_xlabel("opponent")
    axes.set_ylabel("system")
    axes.set_title(f"Humans' win rates ({humans['n_comparisons']} verdicts)", fontsize=9)
    plot.figure.colorbar(image, ax=axes, shrink=0.8, label="share won")
    return plot
