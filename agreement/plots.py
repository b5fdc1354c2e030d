"""The report's plots: system accuracy (humans vs each judge), NRP per system, runs by NDCG@10 and MAP, score CDFs,
confusion heatmaps.

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
from collections.abc import Callable
from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")  # no display on servers; must precede pyplot

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

from annotate.task_types import LAYOUT_ATTRIBUTION, LAYOUT_GRADES, LAYOUT_RANKING  # noqa: E402

# An SVG's ids must be unique within the page, and matplotlib's default salt is random.
matplotlib.rcParams["svg.hashsalt"] = "concord-agreement"
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: selectable, and searchable in tests

LABEL_LIMIT = 20  # systems per panel that get their name written beside the point; beyond, the <title> alone
PRINT_DPI = 300  # the PNG download's resolution: what journals ask of line art at the least
FORMATS = {"svg": "image/svg+xml", "png": "image/png"}
LABEL_SIZE = 7  # points: small enough for 20 names in a panel, still legible in print
MARKER_AREA = 36  # points², matplotlib's `s`: a 6 pt marker
PERFECT = {"color": "#888888", "linestyle": "--", "linewidth": 1}  # the y = x line


def _literal(text) -> str:
    """TEXT (a judge, system, prompt or tag name) for a matplotlib label, shown as it is: matplotlib reads text
    between two "$" as mathtext, so "a $x$" would be set as a formula and "$\\foo$" fail the whole page."""
    return str(text).replace("$", r"\$")


def _num(value) -> str:
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


def _figure(width: float, height: float) -> Figure:
    # Constrained layout makes room for a legend placed "outside" the axes, and for long tick labels.
    figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)  # a renderer to measure the point labels with, before any saving
    return figure


PANEL = 3.1  # inches: the side of a square scatter panel


def _panels_figure(rows: int, columns: int) -> Figure:
    """A figure for ROWS x COLUMNS square panels: each with its tick labels and axis names beside it, the whole
    with a title above and a legend below (so equal axes leave no empty bands)."""
    return _figure(0.3 + (PANEL + 0.8) * columns, 1.3 + PANEL * rows + 0.3 * (rows - 1))


def _legend_below(figure: Figure, handles, labels, *, ncol: int) -> None:
    """One legend for the whole figure, under its axes (never over a point)."""
    figure.legend(handles, labels, loc="outside lower center", ncol=max(1, ncol), fontsize=8, frameon=False)


def _grid(count: int, columns: int = 3) -> tuple[int, int]:
    columns = min(columns, count)
    return math.ceil(count / columns), columns


def _limits(values: list[float]) -> tuple[float, float]:
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


def _label_points(figure: Figure, panels: list[tuple]) -> None:
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
    renderer = figure.canvas.get_renderer()
    scale = figure.dpi / 72  # points to display units
    radius = math.sqrt(MARKER_AREA) / 2 * scale + 1
    for axes, points in panels:
        sizes = []
        for _, _, name in points:
            probe = axes.text(0, 0, _literal(name), fontsize=LABEL_SIZE)
            extent = probe.get_window_extent(renderer)
            probe.remove()
            sizes.append((extent.width + 2, extent.height + 2))  # a pixel's margin on every side
        centres = [tuple(map(float, centre)) for centre in axes.transData.transform([(x, y) for x, y, _ in points])]
        placed = _label_search(centres, sizes, frame=tuple(axes.get_window_extent(renderer).extents), scale=scale,
                               radius=radius)
        for (x, y, name), (dx, dy) in zip(points, placed, strict=True):
            far = math.hypot(dx, dy) >= _LEADER
            label = axes.annotate(
                _literal(name), (x, y), xytext=(dx, dy), textcoords="offset points", fontsize=LABEL_SIZE,
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
            best = None
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
            _, dx, dy, box = best
            boxes[index], offsets[index] = box, (dx, dy)
            if math.hypot(dx, dy) >= _LEADER:
                leaders[index] = ((cx, cy), _centre(box))
    return [offsets[index] for index in range(len(centres))]


# How a scatter draws a point: filled in its judge's colour, hollow (a run with the bias tag), or hollow grey (a
# system the report left out of the correlation, e.g. too few outputs labelled by both sides).
STYLES = {"filled": {"filled": True, "edge": None}, "hollow": {"filled": False, "edge": None},
          "left out": {"filled": False, "edge": "#9ca3af"}}


def _left_out(system_block: dict) -> dict[str, str]:
    """{system: reason} of the systems the report left out of a judge's system-level correlation."""
    left = {}
    for entry in system_block.get("excluded") or []:
        if isinstance(entry, dict) and entry.get("system") is not None:
            left[str(entry["system"])] = str(entry.get("reason") or "left out")
    return left


def _human_judge_panels(name: str, *, panels: list[dict], columns: int, measure_names: dict, title: str) -> Plot:
    """The plot NAME: one scatter per panel (a judge, or a judge and a measure), COLUMNS to a row: human value on x,
    the judge's on y, shared equal axes, the y = x line, each point's system as its label and tooltip.

    A panel: {"judge", "measure", "human" (what the humans gave: labels, qrels), "title", "colour",
    "points": [(system, x, y, style, note)], "legend": {style: label}}; a style is one of STYLES, a note (or None)
    ends the point's tooltip. MEASURE_NAMES names each measure on the axes."""
    rows, columns = _grid(len(panels), columns)
    plot = Plot(name, _panels_figure(rows, columns))
    axes_list = plot.figure.subplots(rows, columns, squeeze=False, sharex=True, sharey=True).flatten()
    values = [v for panel in panels for _, x, y, _, _ in panel["points"] for v in (x, y)]
    low, high = _limits(values)
    handles = {}
    for axes, panel in zip(axes_list, panels, strict=False):
        judge, measure = panel["judge"], measure_names[panel["measure"]]
        line, = axes.plot([low, high], [low, high], **PERFECT, label="y = x (judge and humans agree)")
        handles.setdefault(line.get_label(), line)
        for system, x, y, style, note in sorted(panel["points"], key=lambda point: list(STYLES).index(point[3])):
            edge = STYLES[style]["edge"] or panel["colour"]
            point = axes.scatter([x], [y], s=MARKER_AREA, linewidths=1.2, edgecolors=edge, alpha=0.9, zorder=3,
                                 facecolors=panel["colour"] if STYLES[style]["filled"] else "none",
                                 label=_literal(panel["legend"][style]))
            handles.setdefault(point.get_label(), point)
            plot.tooltip(point, f"{system}: {measure} {_num(x)} under humans, {_num(y)} under {judge}"
                                + (f"; {note}" if note else ""))
        axes.set_xlim(low, high)
        axes.set_ylim(low, high)
        axes.set_aspect("equal")
        axes.set_xlabel(f"{measure} under human {panel['human']}", fontsize=9)
        axes.set_ylabel(_literal(f"{measure} under {judge}"), fontsize=9)
        axes.tick_params(labelleft=True, labelbottom=True, labelsize=8)
        axes.set_title(_literal(panel["title"]), fontsize=9)
        axes.grid(True, color="#e5e7eb", linewidth=0.6)
    for axes in axes_list[len(panels):]:
        axes.set_visible(False)
    plot.figure.suptitle(_literal(title), fontsize=10)
    _legend_below(plot.figure, list(handles.values()), list(handles), ncol=min(len(handles), 3))
    _label_points(plot.figure, [(axes, [(x, y, system) for system, x, y, _, _ in panel["points"]])
                                for axes, panel in zip(axes_list, panels, strict=False)])
    return plot


def system_accuracy_plot(*, report: dict) -> Plot | None:
    """qa_correctness and ais: each system's accuracy under the human labels (x) and under each judge (y), one
    panel per judge. None without systems with a human accuracy, or without judges."""
    systems = [row for row in report["systems"] if row["human"] is not None]
    if not systems or not report["judges"]:
        return None
    measure = "AIS accuracy" if report["layout"] == LAYOUT_ATTRIBUTION else "accuracy"
    colours = matplotlib.colormaps["tab10"]
    panels = []
    for index, (name, block) in enumerate(report["judges"].items()):
        system = block.get("system") or {}
        left_out = _left_out(system)
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
    return _human_judge_panels("systems", panels=panels, columns=3, measure_names={"accuracy": measure},
                               title=f"System {measure}, {len(systems)} systems: humans vs each judge")


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
                           "title": f"Runs by {measure_name}, {name} (τb {_num(tau)}; {len(points)} runs)"})
    if not panels:
        return None
    return _human_judge_panels("runs", panels=panels, columns=len(MEASURE_NAMES), measure_names=MEASURE_NAMES,
                               title=f"Runs by NDCG@10 and MAP, {len(systems)} runs: human qrels vs each judge's"
                               + (f" (hollow: tagged {tag})" if tag else ""))


def nrp_plot(*, report: dict) -> Plot | None:
    """answer_ranking: mean NRP per (system, prompt) with ±1 sd bars over each single answer's NRP (faint dots),
    humans and each ranker side by side. None without systems."""
    systems = report["systems"]
    if not systems:
        return None
    sources = [("humans", "human_nrp")] + [(name, None) for name in report["judges"]]
    plot = Plot("nrp", _figure(8.0, 1.9 + 0.45 * len(systems) * max(1, len(sources)) ** 0.5))
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
            point, = axes.plot([mean], [y], "o", color=colour, markersize=5, label=_literal(name))
            plot.tooltip(point, f"{names[row_index]}, {name}: mean NRP {_num(mean)}"
                                f"{f' ± {sd:.3f} sd' if sd is not None else ''} over {block.get('n', '?')} answers")
        if point is not None:  # one legend entry per source that has a point
            handles.append(point)
    axes.set_yticks(range(len(systems)))
    axes.set_yticklabels([_literal(name) for name in names])
    axes.invert_yaxis()
    axes.set_xlim(-0.05, 1.05)
    axes.set_xlabel("NRP (1 = above every document): mean, ±1 sd cut at 0 and 1, and each answer (faint)")
    axes.set_title("Generated answers among the documents")
    axes.grid(True, axis="x", color="#e5e7eb", linewidth=0.6)
    if handles:
        _legend_below(plot.figure, handles, [handle.get_label() for handle in handles], ncol=len(handles))
    return plot


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
    rows, columns = _grid(len(cdfs), columns=2)
    plot = Plot("cdf", _figure(0.6 + 4.0 * columns, 1.2 + 3.0 * rows))
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
            axes.text(1.01, cumulative, f"humans ≤ {_literal(grade)}", fontsize=7, va="center", color="#555555",
                      transform=axes.get_yaxis_transform())
        axes.set_title(f"{_literal(name)} (n {cdf['n']})", fontsize=9)
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
    rows, columns = _grid(len(matrices), columns=3)
    plot = Plot("confusion", _figure(0.6 + 3.3 * columns, 1.3 + 3.1 * rows))
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
        axes.set_xlabel(f"{_literal(name)}'s grade")
        axes.set_ylabel("human consensus grade")
        axes.set_title(f"{_literal(name)} (n {sum(totals)})", fontsize=9)
    for axes in axes_list[len(matrices):]:
        axes.set_visible(False)
    if image is not None:
        plot.figure.colorbar(image, ax=list(axes_list[:len(matrices)]), shrink=0.8, label="share of the human grade's items")
    legend = ", ".join(f"{entry['grade']} {_literal(entry['name'])}" for entry in scale)
    plot.figure.suptitle("Judges' grades against the human consensus" + (f" (grades: {legend})" if legend else ""),
                         fontsize=10)
    return plot


def budget_plot(*, report: dict) -> Plot | None:
    """The labelling budget (report["budget"], stats.budget): one panel per headline statistic, the 95% interval's
    width against the human labels, each judge's observed widths (points), its fitted c / sqrt(n) curve (line), the
    labels it has now (a tick on its curve's start) and the target width (dashed). None without a row to draw."""
    block = report.get("budget") or {}
    rows = [row for row in block.get("rows", []) if row["curve"]]
    if not rows:
        return None
    titles = list(dict.fromkeys(row["title"] for row in rows))
    plot = Plot("budget", _figure(4.2 * len(titles) + 0.6, 4.4))
    axes_list = plot.figure.subplots(1, len(titles), squeeze=False)[0]
    judges = list(dict.fromkeys(row["judge"] for row in rows))
    colours = matplotlib.colormaps["tab10"]
    handles: dict[str, object] = {}
    for axes, title in zip(axes_list, titles, strict=True):
        for row in (row for row in rows if row["title"] == title):
            colour = colours(judges.index(row["judge"]) % 10)
            observed = [p for p in row["curve"] if p["width"] is not None]
            dots, = axes.plot([p["labels"] for p in observed], [p["width"] for p in observed], "o", color=colour,
                              markersize=5, label=_literal(row["judge"]))
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
        axes.set_title(_literal(title), fontsize=9)
        axes.set_ylim(bottom=0)
        axes.grid(True, color="#e5e7eb", linewidth=0.6)
    labels = [_literal(name) if name != "target" else f"target width {block['target_width']:g} (option budget_width)"
              for name in handles]
    plot.figure.suptitle("Labelling budget: interval width against human labels (points observed, lines fitted)",
                         fontsize=10)
    _legend_below(plot.figure, list(handles.values()), labels, ncol=min(len(handles), 4))
    return plot


PLOTS: dict[str, Callable[..., Plot | None]] = {
    "systems": system_accuracy_plot, "nrp": nrp_plot, "runs": runs_scatter_plot, "cdf": scores_cdf_plot,
    "confusion": confusion_plot, "budget": budget_plot,
}
# The plots each report shows, in page order; a task type not named here has the system accuracy scatter.
REPORT_PLOTS = {LAYOUT_RANKING: ("nrp",), LAYOUT_GRADES: ("runs", "cdf", "confusion")}


def report_plot_names(*, report: dict) -> tuple[str, ...]:
    """The names of the plots REPORT's page shows (where they have data), in page order; the budget plot last, for
    every layout."""
    return (*REPORT_PLOTS.get(report["layout"], ("systems",)), "budget")


def report_plot(*, report: dict, name: str) -> Plot | None:
    """The plot NAME of REPORT; None where the report has no such plot or no data for it."""
    if name not in report_plot_names(report=report):
        return None
    return PLOTS[name](report=report)


def _svg_of(plot: Plot | None) -> str | None:
    return plot.svg() if plot else None


def system_accuracy_svg(*, report: dict) -> str | None:
    """The system accuracy scatter as an inline <svg> element; None with no systems or judges."""
    return _svg_of(system_accuracy_plot(report=report))


def nrp_svg(*, report: dict) -> str | None:
    """The NRP plot as an inline <svg> element; None without systems."""
    return _svg_of(nrp_plot(report=report))


def runs_scatter_svg(*, report: dict) -> str | None:
    """The runs scatter as an inline <svg> element; None without runs or judges."""
    return _svg_of(runs_scatter_plot(report=report))


def scores_cdf_svg(*, report: dict) -> str | None:
    """The scores CDF as an inline <svg> element; None without scores."""
    return _svg_of(scores_cdf_plot(report=report))
