"""The report's plots, the kit every task type's plots use: the Plot (SVG and print PNG), the figure, legend and
label-placement helpers, the human-vs-judge panels, and the plots of the verdict report (system accuracy, humans vs
each judge) and of every report (the labelling budget). A task type's own plots are in its package
(tasktypes/<name>/plots.py: NRP per system, runs by NDCG@10 and MAP, score CDFs, confusion heatmaps); its report
presentation (reports.presentation) names the plots its page shows.

Rendered on the server by matplotlib (Agg backend) through `Figure` directly, never pyplot's global state, so
concurrent requests cannot draw on each other's figure; the page inlines the SVG (no script, no CDN), and each plot
downloads as an SVG file or a 300 dpi PNG for a paper. What makes them fit for one:
- every point can be told apart: up to LABEL_LIMIT systems carry their name beside the point, and every point carries
  an SVG <title> (its system and values: a tooltip in a browser, and searchable text in the file);
- legends sit outside the axes (below them, in the figure's margin), never over data;
- a human-vs-judge scatter has one panel per judge on shared, equal axes with the y = x line of perfect agreement;
- axes are named with the measure (accuracy, AIS accuracy, NDCG@10, MAP, NRP).
"""

from __future__ import annotations

import html
import io
import math
import re
from dataclasses import dataclass, field
from typing import Any, cast

import matplotlib

matplotlib.use("Agg")  # no display on servers; must precede pyplot

from matplotlib.artist import Artist  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402

from reports.ppi import ppi_judges  # noqa: E402

# An SVG's ids must be unique within the page, and matplotlib's default salt is random.
matplotlib.rcParams["svg.hashsalt"] = "concord-agreement"
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: selectable, and searchable in tests

LABEL_LIMIT = 20  # systems per panel that get their name written beside the point; beyond, the <title> alone
PRINT_DPI = 300  # the PNG download's resolution: what journals ask of line art at the least
FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
LABEL_SIZE = 7  # points: small enough for 20 names in a panel, still legible in print
MARKER_AREA = 36  # points², matplotlib's `s`: a 6 pt marker
PERFECT = {"color": "#888888", "linestyle": "--", "linewidth": 1}  # the y = x line


def literal(text) -> str:
    """TEXT (a judge, system, prompt or tag name) for a matplotlib label, shown as it is: matplotlib reads text
    between two "$" as mathtext, so "a $x$" would be set as a formula and "$\\foo$" fail the whole page."""
    return str(text).replace("$", r"\$")


def number_text(value) -> str:
    return "—" if value is None else f"{value:.3f}"


@dataclass
class Plot:
    """A figure and the tooltips of its points: {SVG group id: text}, written into the SVG as <title> elements."""

    name: str  # its name in the download URL; prefixes its SVG ids, so two plots on one page never share one
    figure: Figure
    tooltips: dict[str, str] = field(default_factory=dict)

    def tooltip(self, artist, text: str) -> None:
        """Give ARTIST (one point, bar or line) an SVG <title> of TEXT."""
        gid = f"concord-{self.name}-{len(self.tooltips) + 1}"
        artist.set_gid(gid)
        self.tooltips[gid] = str(text)

    def svg(self, *, inline: bool = True) -> str:
        """The SVG: an <svg> element to inline in a page (INLINE), else the whole document with its XML prologue."""
        buffer = io.StringIO()
        self._settle()
        # tight: the legends outside the axes stay in the picture
        self.figure.savefig(buffer, format="svg", bbox_inches="tight")
        svg = re.sub(r'<g id="(concord-[\w-]+-\d+)">', self._titled, buffer.getvalue())
        return svg[svg.index("<svg"):] if inline else svg

    def _settle(self) -> None:
        """Lay the figure out once, then keep that layout: a save draws the figure twice (once to measure the tight
        bounding box), and constrained layout would otherwise be solved again at each draw, for the same result."""
        engine = self.figure.get_layout_engine()
        if isinstance(engine, ConstrainedLayoutEngine):
            engine.execute(self.figure)
            self.figure.set_layout_engine("none")

    def _titled(self, match: re.Match) -> str:
        text = self.tooltips.get(match.group(1))
        return match.group(0) if text is None else f"{match.group(0)}<title>{html.escape(text)}</title>"

    def png(self, *, dpi: int = PRINT_DPI) -> bytes:
        """The PNG at DPI (recorded in the file's pHYs chunk, so a typesetter places it at its print size)."""
        buffer = io.BytesIO()
        self._settle()
        self.figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", facecolor="white")
        return buffer.getvalue()

    def render(self, fmt: str) -> bytes:
        """The plot as a download in FMT, one of FORMATS."""
        return self.svg(inline=False).encode() if fmt == "svg" else self.png()


def figure_sized(width: float, height: float) -> Figure:
    # Constrained layout makes room for a legend placed "outside" the axes, and for long tick labels.
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)  # a renderer to measure the point labels with, before any saving
    return figure


PANEL = 3.1  # inches: the side of a square scatter panel


def panels_figure(rows: int, columns: int) -> Figure:
    """A figure for ROWS x COLUMNS square panels: each with its tick labels and axis names beside it, the whole
    with a title above and a legend below (so equal axes leave no empty bands)."""
    return figure_sized(0.3 + (PANEL + 0.8) * columns, 1.3 + PANEL * rows + 0.3 * (rows - 1))


def legend_below(figure: Figure, handles, labels, *, ncol: int) -> None:
    """One legend for the whole figure, under its axes (never over a point)."""
    figure.legend(handles, labels, loc="outside lower center", ncol=max(1, ncol), fontsize=8, frameon=False)


def grid_shape(count: int, columns: int = 3) -> tuple[int, int]:
    columns = min(columns, count)
    return math.ceil(count / columns), columns


def axis_limits(values: list[float]) -> tuple[float, float]:
    """Equal limits for both axes of a scatter of shares in [0, 1], padded so points on 0 or 1 stay inside."""
    low, high = min(values), max(values)
    pad = max(0.02, (high - low) * 0.08)
    return max(-pad, low - pad), min(1.0 + pad, high + pad)


# Label positions tried around a point, nearest first: (dx, dy) in points.
_DIRECTIONS = [(1, 0), (-1, 0), (0.7, 0.7), (0.7, -0.7), (-0.7, 0.7), (-0.7, -0.7), (0, 1), (0, -1)]
_DIRECTIONS += [(0.92, 0.38), (0.92, -0.38), (-0.92, 0.38), (-0.92, -0.38), (0.38, 0.92), (0.38, -0.92),
                (-0.38, 0.92), (-0.38, -0.92)]
_OFFSETS = [(round(dx * distance, 1), round(dy * distance, 1)) for distance in (4, 9, 15, 22, 30, 40, 52)
            for dx, dy in _DIRECTIONS[:8 if distance < 9 else None]]
_LEADER = 8  # points: a label this far from its point or further is tied to it by a line
_CLEARANCE = 3  # points kept free around every other point, so a label never sits nearer to a point not its own


# Boxes below are (x0, y0, x1, y1) tuples in display units: plain floats keep the search fast.
Box = tuple[float, float, float, float]


def _overlap(a: Box, b: Box) -> float:
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


def _crosses(p, q, r, s) -> bool:
    """Whether segments PQ and RS cross (points as (x, y))."""
    def turn(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return turn(p, q, r) * turn(p, q, s) < 0 and turn(r, s, p) * turn(r, s, q) < 0


def _through(p, q, box: Box) -> bool:
    """Whether segment PQ passes through BOX (Liang-Barsky clipping)."""
    low, high = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for step, room in ((-dx, p[0] - box[0]), (dx, box[2] - p[0]), (-dy, p[1] - box[1]), (dy, box[3] - p[1])):
        if step == 0:
            if room < 0:
                return False
        elif step < 0:
            low = max(low, room / step)
        else:
            high = min(high, room / step)
        if low > high:
            return False
    return True


def _centre(box: Box) -> tuple[float, float]:
    """Where a leader points: matplotlib draws it towards the label's centre, cut at the label's edge."""
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def label_points(figure: Figure, panels: list[tuple]) -> None:
    """Write each name beside its point where it covers no other point, label or leader line: PANELS are
    (axes, [(x, y, name)]) in data coordinates; a panel of more than LABEL_LIMIT points gets none (its points'
    <title>s name them). From matplotlib alone (no adjustText): greedy, hardest point first, then a second pass
    that moves each label again knowing where all the others went.

    Call it last, when everything else of the figure is in place: it settles the layout to measure the labels."""
    panels = [(axes, points) for axes, points in panels if 0 < len(points) <= LABEL_LIMIT]
    if not panels:
        return
    figure.draw_without_rendering()  # settle the layout: display positions are final from here on
    figure.set_layout_engine("none")  # and kept: the labels below are out of the layout, nothing else moves
    renderer = cast(FigureCanvasAgg, figure.canvas).get_renderer()  # the canvas panels_figure gave it
    scale = figure.dpi / 72  # points to display units
    radius = math.sqrt(MARKER_AREA) / 2 * scale + 1
    for axes, points in panels:
        sizes = []
        for _, _, name in points:
            probe = axes.text(0, 0, literal(name), fontsize=LABEL_SIZE)
            extent = probe.get_window_extent(renderer)
            probe.remove()
            sizes.append((extent.width + 2, extent.height + 2))  # a pixel's margin on every side
        centres = [tuple(map(float, centre)) for centre in axes.transData.transform([(x, y) for x, y, _ in points])]
        placed = _label_search(centres, sizes, frame=tuple(axes.get_window_extent(renderer).extents), scale=scale,
                               radius=radius)
        for (x, y, name), (dx, dy) in zip(points, placed, strict=True):
            far = math.hypot(dx, dy) >= _LEADER
            label = axes.annotate(
                literal(name), (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=LABEL_SIZE,
                color="#1f2937", ha="left" if dx > 0 else "right" if dx < 0 else "center",
                va="bottom" if dy > 0 else "top" if dy < 0 else "center",
                arrowprops={"arrowstyle": "-", "color": "#6b7280", "linewidth": 0.5, "shrinkA": 1,
                            "shrinkB": radius / scale} if far else None,
            )
            label.set_in_layout(False)  # the layout was settled around the axes; a label must not move them


def _label_search(centres: list, sizes: list, *, frame: Box, scale: float, radius: float) -> list[tuple]:
    """The offset (dx, dy), in points, of each label: CENTRES are the points and SIZES the labels' (width, height),
    in display units; FRAME the axes, which labels stay inside."""
    # What a leader line costs, as an overlap area: through another point it would tie the label to the wrong one
    # (the worst); across another leader it reads as a swap; through a label it is only harder to follow.
    through_point, crossing, through_label = (15 * scale) ** 2, (10 * scale) ** 2, (5 * scale) ** 2
    margin = radius + _CLEARANCE * scale
    markers = [(cx - radius, cy - radius, cx + radius, cy + radius) for cx, cy in centres]
    clear = [(cx - margin, cy - margin, cx + margin, cy + margin) for cx, cy in centres]
    boxes: dict[int, Box] = {}
    leaders: dict[int, tuple] = {}
    offsets: dict[int, tuple] = {}
    # The hardest first: long names among many near points.
    crowd = [sum(math.dist(centre, other) < 40 * scale for other in centres) for centre in centres]
    order = sorted(range(len(centres)), key=lambda i: -crowd[i] * sizes[i][0])
    for _ in range(2):
        for index in order:
            boxes.pop(index, None)
            leaders.pop(index, None)
            cx, cy = centres[index]
            width, height = sizes[index]
            labels, lines = list(boxes.values()), list(leaders.values())
            other_points = [box for n, box in enumerate(markers) if n != index]
            obstacles = labels + [markers[index]] + [box for n, box in enumerate(clear) if n != index]
            best: tuple[float, float, float, Box] | None = None
            for dx, dy in _OFFSETS:
                left = cx + dx * scale - (0 if dx > 0 else width if dx < 0 else width / 2)
                bottom = cy + dy * scale - (0 if dy > 0 else height if dy < 0 else height / 2)
                box = (left, bottom, left + width, bottom + height)
                cost = 10 * (width * height - _overlap(box, frame))  # keep labels inside the axes
                cost += sum(_overlap(box, other) for other in obstacles)
                cost += through_label * sum(_through(p, q, box) for p, q in lines)
                if math.hypot(dx, dy) >= _LEADER and (best is None or cost < best[0]):
                    end = _centre(box)
                    cost += through_point * sum(_through((cx, cy), end, other) for other in other_points)
                    cost += through_label * sum(_through((cx, cy), end, other) for other in labels)
                    cost += crossing * sum(_crosses((cx, cy), end, p, q) for p, q in lines)
                if best is None or cost < best[0]:
                    best = (cost, dx, dy, box)
                if cost == 0:
                    break
            assert best is not None  # _OFFSETS is not empty and its first offset is always taken
            _, dx, dy, box = best
            boxes[index], offsets[index] = box, (dx, dy)
            if math.hypot(dx, dy) >= _LEADER:
                leaders[index] = ((cx, cy), _centre(box))
    return [offsets[index] for index in range(len(centres))]


# How a scatter draws a point: filled in its judge's colour, hollow (a run with the bias tag), or hollow grey (a
# system the report left out of the correlation, e.g. too few outputs labelled by both sides).
STYLES: dict[str, dict[str, Any]] = {"filled": {"filled": True, "edge": None},
                                     "hollow": {"filled": False, "edge": None},
                                     "left out": {"filled": False, "edge": "#9ca3af"}}


def systems_left_out(system_block: dict) -> dict[str, str]:
    """{system: reason} of the systems the report left out of a judge's system-level correlation."""
    left = {}
    for entry in system_block.get("excluded") or []:
        if isinstance(entry, dict) and entry.get("system") is not None:
            left[str(entry["system"])] = str(entry.get("reason") or "left out")
    return left


def human_judge_panels(name: str, *, panels: list[dict], columns: int, measure_names: dict, title: str) -> Plot:
    """The plot NAME: one scatter per panel (a judge, or a judge and a measure), COLUMNS to a row: human value on x,
    the judge's on y, shared equal axes, the y = x line, each point's system as its label and tooltip.

    A panel: {"judge", "measure", "human" (what the humans gave: labels, qrels), "title", "colour",
    "points": [(system, x, y, style, note)], "legend": {style: label}}; a style is one of STYLES, a note (or None)
    ends the point's tooltip. MEASURE_NAMES names each measure on the axes."""
    rows, columns = grid_shape(len(panels), columns)
    plot = Plot(name, panels_figure(rows, columns))
    axes_list = plot.figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True).flatten()
    values = [v for panel in panels for _, x, y, _, _ in panel["points"] for v in (x, y)]
    low, high = axis_limits(values)
    handles: dict[object, Artist] = {}
    for axes, panel in zip(axes_list, panels, strict=False):
        judge, measure = panel["judge"], measure_names[panel["measure"]]
        line, = axes.plot([low, high], [low, high], **PERFECT, label="y = x (judge and humans agree)")
        handles.setdefault(line.get_label(), line)
        for system, x, y, style, note in sorted(panel["points"], key=lambda point: list(STYLES).index(point[3])):
            edge = STYLES[style]["edge"] or panel["colour"]
            point = axes.scatter([x], [y], s=MARKER_AREA, linewidths=1.2, edgecolors=edge, alpha=0.9, zorder=3,
                                 facecolors=panel["colour"] if STYLES[style]["filled"] else "none",
                                 label=literal(panel["legend"][style]))
            handles.setdefault(point.get_label(), point)
            plot.tooltip(point, f"{system}: {measure} {number_text(x)} under humans, {number_text(y)} under {judge}"
                                + (f"; {note}" if note else ""))
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
        axes.set_aspect("equal")
        axes.set_xlabel(f"{measure} under human {panel['human']}", fontsize=9)
        axes.set_ylabel(literal(f"{measure} under {judge}"), fontsize=9)
        axes.tick_params(labelleft=True, labelbottom=True, labelsize=8)
        axes.set_title(literal(panel["title"]), fontsize=9)
        axes.grid(True, color="#e5e7eb", linewidth=0.6)
    for axes in axes_list[len(panels):]:
        axes.set_visible(False)
    plot.figure.suptitle(literal(title), fontsize=10)
    legend_below(plot.figure, list(handles.values()), list(handles), ncol=min(len(handles), 3))
    label_points(plot.figure, [(axes, [(x, y, system) for system, x, y, _, _ in panel["points"]])
                                for axes, panel in zip(axes_list, panels, strict=False)])
    return plot


def system_accuracy_plot(*, report: dict, measure: str = "accuracy") -> Plot | None:
    """A verdict report (qa_correctness, ais): each system's MEASURE (what the axes call its accuracy) under the human
    labels (x) and under each judge (y), one panel per judge. None without systems with a human accuracy, or without
    judges."""
    systems = [row for row in report["systems"] if row["human"] is not None]
    if not systems or not report["judges"]:
        return None
    colours = matplotlib.colormaps["tab10"]
    panels = []
    for index, (name, block) in enumerate(report["judges"].items()):
        system = block.get("system") or {}
        left_out = systems_left_out(system)
        # x: the humans' score on the outputs compared with this judge (what the correlation uses), when given.
        points = [(row["system"], (row.get("human_by_judge") or {}).get(name, row["human"]), row["judges"][name],
                   "left out" if row["system"] in left_out else "filled",
                   f"left out of the correlation: {left_out[row['system']]}" if row["system"] in left_out else None)
                  for row in systems if row["judges"].get(name) is not None]
        if not points:
            continue
        figures = [f"{symbol} {system[key]:.3f}" for symbol, key in (("r", "pearson"), ("τb", "kendall_tau_b"))
                   if system.get(key) is not None]
        counted = len(points) - sum(point[3] == "left out" for point in points)
        over = f"{counted} of {len(points)} systems" if counted < len(points) else f"{len(points)} systems"
        summary = (f"{', '.join(figures)} over {over}" if figures and counted < len(points)
                   else f"{', '.join(figures)}; {over}" if figures else f"no r or τb; {over} counted")
        panels.append({"judge": name, "measure": "accuracy", "human": "labels", "points": points,
                       "colour": colours(index % 10),
                       "legend": {"filled": name, "left out": "left out of r and τb (coverage)"},
                       "title": f"{name} ({summary})"})
    if not panels:
        return None
    return human_judge_panels("systems", panels=panels, columns=3, measure_names={"accuracy": measure},
                               title=f"System {measure}, {len(systems)} systems: humans vs each judge")


def budget_plot(*, report: dict) -> Plot | None:
    """The labelling budget (report["budget"], stats.budget): one panel per headline statistic, the 95% interval's
    width against the human labels, each judge's observed widths (points), its fitted c / sqrt(n) curve (line), the
    labels it has now (a tick on its curve's start) and the target width (dashed). None without a row to draw."""
    block = report.get("budget") or {}
    rows = [row for row in block.get("rows", []) if row["curve"]]
    if not rows:
        return None
    titles = list(dict.fromkeys(row["title"] for row in rows))
    plot = Plot("budget", figure_sized(4.2 * len(titles) + 0.6, 4.4))
    axes_list = plot.figure.subplots(1, len(titles), squeeze=False)[0]
    judges = list(dict.fromkeys(row["judge"] for row in rows))
    colours = matplotlib.colormaps["tab10"]
    handles: dict[str, object] = {}
    for axes, title in zip(axes_list, titles, strict=True):
        for row in (row for row in rows if row["title"] == title):
            colour = colours(judges.index(row["judge"]) % 10)
            observed = [p for p in row["curve"] if p["width"] is not None]
            dots, = axes.plot([p["labels"] for p in observed], [p["width"] for p in observed], "o", color=colour,
                              markersize=5, label=literal(row["judge"]))
            plot.tooltip(dots, f"{row['judge']}, {title}: widths " + ", ".join(
                f"{p['width']:.3f} at {p['labels']} labels" for p in observed))
            handles.setdefault(row["judge"], dots)
            if row["fitted"]:
                line, = axes.plot([p["labels"] for p in row["fitted"]], [p["width"] for p in row["fitted"]], "-",
                                  color=colour, linewidth=1.2)
                needed = ("target met" if row["more_labels"] == 0 else
                          f"{row['more_labels']} more labels for width {row['target']:g}"
                          if row["more_labels"] is not None else row["why"] or "no estimate")
                plot.tooltip(line, f"{row['judge']}, {title}: fitted width = {row['fit']['c']:.3f} / sqrt(n); "
                                   f"{needed}")
        target = block["target_width"]
        line = axes.axhline(target, **PERFECT)
        handles.setdefault("target", line)
        axes.set_xscale("log")
        axes.set_xlabel("human labels (log scale)")
        axes.set_ylabel("width of the 95% interval")
        axes.set_title(literal(title), fontsize=9)
        axes.set_ylim(bottom=0)
        axes.grid(True, color="#e5e7eb", linewidth=0.6)
    labels = [literal(name) if name != "target" else f"target width {block['target_width']:g} (option budget_width)"
              for name in handles]
    plot.figure.suptitle("Labelling budget: interval width against human labels (points observed, lines fitted)",
                         fontsize=10)
    legend_below(plot.figure, list(handles.values()), labels, ncol=min(len(handles), 4))
    return plot




PPI_SIDES = (("combined", "humans + judge", "#1d4ed8", "o"), ("human", "humans alone", "#6b7280", "s"))


def ppi_plot(*, report: dict) -> Plot | None:
    """The humans and each judge together (report["ppi"], reports.ppi): one panel per measure and judge, each
    system's combined interval beside the humans-only one on the same labels and the judge's own figure (a cross),
    and in a check the all-human value (a dashed tick). None without the block."""
    block = report.get("ppi") or {}
    judges = ppi_judges(block)
    if not judges:
        return None
    several = len(block["measures"]) > 1
    rows, columns = grid_shape(len(judges), 2)
    systems = max(len(judge["systems"]) for _, _, judge in judges)
    plot = Plot("ppi", figure_sized(0.6 + 5.2 * columns, 1.4 + (0.3 * systems + 0.9) * rows))
    axes_grid = plot.figure.subplots(rows, columns, squeeze=False)
    handles: dict[str, object] = {}
    for index, (measure, name, judge) in enumerate(judges):
        axes = axes_grid[index // columns][index % columns]
        names = [row["system"] for row in judge["systems"]]
        for y, row in enumerate(judge["systems"]):
            for offset, (key, label, colour, marker) in zip((-0.15, 0.15), PPI_SIDES, strict=True):
                estimate = row[key]
                if estimate["value"] is None:
                    continue
                low, high = estimate["ci95"] or (estimate["value"], estimate["value"])
                bar = axes.errorbar([estimate["value"]], [y + offset], xerr=[[estimate["value"] - low],
                                    [high - estimate["value"]]], fmt=marker, color=colour, markersize=4,
                                    capsize=2, linewidth=1.2)
                plot.tooltip(bar.lines[0], f"{row['system']}, {name}, {label}: {estimate['value']:.3f} "
                                           f"[{low:.3f}, {high:.3f}], n = {estimate['n']}")
                handles.setdefault(label, bar.lines[0])
            if row["judge"] is not None:
                cross, = axes.plot([row["judge"]], [y], "x", color="#b45309", markersize=5)
                plot.tooltip(cross, f"{row['system']}: {name} alone {row['judge']:.3f}")
                handles.setdefault("judge alone", cross)
            if row.get("all_human") is not None:
                tick, = axes.plot([row["all_human"]] * 2, [y - 0.35, y + 0.35], **PERFECT)
                plot.tooltip(tick, f"{row['system']}: all the humans {row['all_human']:.3f}")
                handles.setdefault("all the humans", tick)
        axes.set_yticks(range(len(names)), [literal(system) for system in names], fontsize=LABEL_SIZE)
        axes.invert_yaxis()
        axes.set_xlabel(f"{measure['label']} (95% intervals)")
        labels = (f"check on {judge['check']['drawn']} {block['unit']}" if judge["check"] else
                  f"humans on {judge['labelled_units']} of {judge['units']} {block['unit']}")
        title = (f"{measure['label']}, " if several else "") + f"{name}: {labels}"
        axes.set_title(literal(title), fontsize=9)
        axes.grid(True, axis="x", color="#e5e7eb", linewidth=0.6)
    for index in range(len(judges), rows * columns):
        axes_grid[index // columns][index % columns].set_visible(False)
    plot.figure.suptitle("Humans and judges together: each system's score from both, beside the humans alone",
                         fontsize=10)
    legend_below(plot.figure, list(handles.values()), [literal(label) for label in handles], ncol=len(handles))
    return plot
