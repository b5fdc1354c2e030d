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
        tau = report["judges"][name]["system"]["kendall_tau_b"]
        label = name if tau is None else f"{name} (τb {tau:.3f})"
        axes.scatter(xs, ys, s=36, color=colours(index % 10), label=label, alpha=0.85, edgecolors="white", linewidths=0.5)
    low, high = min(values), max(values)
    pad = max(0.02, (high - low) * 0.08)
    low, high = max(-pad, low - pad), min(1.0 + pad, high + pad)  # keep points on 0 or 1 inside the frame
    axes.plot([low, high], [low, high], color="#888888", linestyle="--", linewidth=1, label="y = x")
    axes.set_xlim(low, high)
    axes.set_ylim(low, high)
    axes.set_aspect("equal")
    axes.set_xlabel("accuracy under human labels")
    axes.set_ylabel("accuracy under the judge")
    axes.set_title(f"System accuracy, {len(systems)} systems")
    axes.grid(True, color="#e5e7eb", linewidth=0.6)
    axes.legend(loc="lower right", fontsize=8, frameon=False)
    figure.tight_layout()
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    svg = buffer.getvalue()
    # Inline in HTML: drop the XML prologue and doctype, keep the <svg> element.
    return svg[svg.index("<svg") :]
