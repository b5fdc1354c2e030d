"""The plots of a nugget report (its presentation names them): each run's headline score under the humans against
under each judge, with both intervals (one panel per judge, y = x drawn); and the distribution of the per-topic
Kendall tau between the two orders of the runs, one box per judge."""

from __future__ import annotations

import matplotlib

from reports.plots import (
    LABEL_LIMIT,
    LABEL_SIZE,
    PERFECT,
    Plot,
    axis_limits,
    figure_sized,
    grid_shape,
    literal,
    number_text,
    panels_figure,
)

HUMANS = "humans"
SCORE_WORDS = {"all_strict": "All (strict)", "vital_strict": "Vital (strict)", "all": "All", "vital": "Vital",
               "weighted": "Weighted"}


def runs_plot(*, report: dict) -> Plot | None:
    """Per judge a panel: each run at (its humans' mean, its judge's mean) of the headline score, with both 95%
    intervals over topics as bars. None without a judge or a run scored by both."""
    score = report["headline"]
    judges = [name for name in report["judges"]
              if any(row["sources"][HUMANS][score]["mean"] is not None
                     and row["sources"][name][score]["mean"] is not None for row in report["runs"]["rows"])]
    if not judges:
        return None
    rows, columns = grid_shape(len(judges), columns=2)
    plot = Plot("runs", panels_figure(rows, columns))
    grid = plot.figure.subplots(rows, columns, squeeze=False)
    values = [value for row in report["runs"]["rows"] for source in (HUMANS, *judges)
              for value in (row["sources"][source][score]["mean"], *(row["sources"][source][score]["ci95"] or ()))
              if value is not None]
    low, high = axis_limits(values)
    for index, name in enumerate(judges):
        axes = grid[index // columns][index % columns]
        axes.plot([low, high], [low, high], **PERFECT)
        shown = [row for row in report["runs"]["rows"] if row["sources"][HUMANS][score]["mean"] is not None
                 and row["sources"][name][score]["mean"] is not None]
        for row in shown:
            human, judge = row["sources"][HUMANS][score], row["sources"][name][score]
            x, y = human["mean"], judge["mean"]
            if human["ci95"]:
                axes.plot(human["ci95"], [y, y], "-", color="#9ca3af", linewidth=0.9)
            if judge["ci95"]:
                axes.plot([x, x], judge["ci95"], "-", color="#9ca3af", linewidth=0.9)
            point, = axes.plot([x], [y], "o", color="#1f77b4", markersize=5)
            plot.tooltip(point, f"{row['run']}: humans {number_text(x)} (n {human['n_topics']} topics), {name} "
                                f"{number_text(y)} (n {judge['n_topics']} topics)")
            if len(shown) <= LABEL_LIMIT:
                axes.annotate(literal(row["run"]), (x, y), xytext=(3, 3), textcoords="offset points",
                              fontsize=LABEL_SIZE)
        order = report["judges"][name]["runs"][score]
        tau = number_text(order["kendall_tau_b"])
        axes.set_title(f"{literal(name)}: Kendall τb {tau} (n {order['n_systems']} runs)", fontsize=9)
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
        axes.set_aspect("equal")
        axes.set_xlabel(f"{SCORE_WORDS.get(score, score)} score, humans")
        axes.set_ylabel(f"{SCORE_WORDS.get(score, score)} score, judge")
        axes.grid(True, color="#e5e7eb", linewidth=0.6)
    for index in range(len(judges), rows * columns):
        grid[index // columns][index % columns].set_visible(False)
    plot.figure.suptitle("Runs' mean scores over topics, with 95% intervals over topics", fontsize=9)
    return plot


def topic_tau_plot(*, report: dict) -> Plot | None:
    """Per judge, the per-topic Kendall tau between the runs' headline scores under the humans and under the judge:
    a box (quartiles, whiskers to 1.5 IQR) over the topics' points. None without a topic with a tau."""
    score = report["headline"]
    series = {name: [row for row in block["runs"][score]["per_topic"]["rows"] if row["kendall_tau_b"] is not None]
              for name, block in report["judges"].items()}
    series = {name: rows for name, rows in series.items() if rows}
    if not series:
        return None
    plot = Plot("topic-tau", figure_sized(6.4, 1.6 + 0.5 * len(series)))
    axes = plot.figure.subplots()
    names = list(series)
    axes.boxplot([[row["kendall_tau_b"] for row in series[name]] for name in names], orientation="horizontal",
                 widths=0.5, showfliers=False)
    colours = matplotlib.colormaps["tab10"]
    for index, name in enumerate(names):
        jitter = [(k % 7 - 3) * 0.03 for k in range(len(series[name]))]
        for row, offset in zip(series[name], jitter, strict=True):
            point, = axes.plot([row["kendall_tau_b"]], [index + 1 + offset], ".", color=colours(index % 10),
                               alpha=0.6)
            plot.tooltip(point, f"{row['topic']}: τb {number_text(row['kendall_tau_b'])} (n {row['n_runs']} runs)")
    axes.set_yticks(range(1, len(names) + 1), [literal(name) for name in names])
    axes.set_xlim(-1.05, 1.05)
    axes.axvline(0, color="#bbbbbb", linewidth=0.8)
    axes.set_xlabel(f"Kendall τb per topic, runs by {SCORE_WORDS.get(score, score)} score, judge vs humans")
    counts = ", ".join(f"{literal(name)} n {len(series[name])}" for name in names)
    axes.set_title(f"Per-topic agreement on the runs' order ({counts} topics)", fontsize=9)
    return plot
