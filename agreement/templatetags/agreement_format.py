"""Numbers on the report page: three decimals, and a dash that says why when a statistic is undefined."""

from datetime import timedelta

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.timesince import timesince

register = template.Library()

UNDEFINED = "undefined on this data"


def _three(value) -> str:
    """VALUE to three decimals, without the "-0.000" that a bound a hair below zero would print."""
    text = f"{float(value):.3f}"
    return "0.000" if text == "-0.000" else text


@register.filter
def num3(value, why: str = UNDEFINED):
    """0.73457 -> "0.735"; None -> an em dash whose tooltip (title) gives WHY.

    "" is what the template engine gives for a lookup through a missing block (e.g. no human
    ceiling with one annotator): undefined as well.
    """
    if value is None or value == "":
        return format_html('<span class="undefined" title="{}">—</span>', why)
    return _three(value)


# An interval names what it resamples beside its bounds: "[0.412, 0.655] over topics". The unit comes with the
# interval: the document's "<key>_ci_over" (stats.uncertainty.put_interval records the noun it resampled), a topic
# summary's "ci_over", or, for a bare interval, the template's argument. Intervals that resample nothing name their
# method instead ("Wilson"; "t-based": irrCAC's variance, a t interval of a mean; "normal": a z interval of a fitted
# model's coefficient, the Bradley-Terry strengths of reports.ppi).
METHOD_NAMES = ("Wilson", "t-based", "normal")


def _over_html(over) -> str:
    """' over topics' (or ' Wilson') as a small span after an interval's bounds; nothing without a unit."""
    if not over:
        return ""
    return format_html(' <span class="ci-over">{}</span>', over if over in METHOD_NAMES else f"over {over}")


def _title(over) -> str:
    if not over:
        return "95% interval"
    return f"95% {over} interval" if over in METHOD_NAMES else f"95% interval, resampling {over}"


@register.filter
def ci95(summary) -> str:
    """A topic mean's interval as the page shows it: the bootstrap one ("bootstrap_ci95", within the statistic's
    range), "[0.500, 0.780] over topics" with the method in its tooltip; the t-based one only for documents that
    have no other; an em dash when there is no interval."""
    summary = summary or {}
    bootstrap = summary.get("bootstrap_ci95")
    interval = bootstrap or (None if "bootstrap_ci95" in summary else summary.get("ci95"))
    if not interval:
        if summary.get("ci_note") == "":  # the table's caption says why (ci_shared)
            return ""
        if summary.get("ci_note"):
            return format_html('<span class="ci-inline muted ci-note">no interval: {}</span>', summary["ci_note"])
        return format_html(
            '<span class="undefined" title="{}">—</span>', "undefined: fewer than two topics with a value"
        )
    method = summary.get("ci_method") or "t-based 95% interval"
    over = summary.get("ci_over") or (None if bootstrap or summary.get("ci_method") else "t-based")
    return format_html('<span class="ci-inline" title="{}">[{}, {}]{}</span>', method, _three(interval[0]),
                       _three(interval[1]), _over_html(over))


def _interval_html(bounds, note, *, inline: bool, over=None, digits: int = 3) -> str:
    tag, css = ("span", "ci-inline muted") if inline else ("div", "ci-under muted")
    if bounds:
        shown = _three if digits == 3 else (lambda value: f"{value:.{digits}f}")
        return format_html('<{} class="{}" title="{}">[{}, {}]{}</{}>', tag, css, _title(over), shown(bounds[0]),
                           shown(bounds[1]), _over_html(over), tag)
    if note:
        # Under a number in a table cell: the note's first clause ("too few runs to resample: 3"), the whole of it
        # on hover, so a column of notes stays as narrow as its numbers.
        shown = note if inline else note.split(" (an interval", 1)[0]
        return format_html('<{} class="{} ci-note" title="{}">no interval: {}</{}>', tag, css, note, shown, tag)
    return ""


@register.filter
def ci(block, key: str) -> str:
    """BLOCK's interval of the statistic KEY (BLOCK[KEY_ci95]) under its number with what it resampled
    (BLOCK[KEY_ci_over]), or, when it degenerated, why there is none (BLOCK[KEY_ci_note],
    stats.uncertainty.interval_checked); nothing when the statistic has neither."""
    block = block or {}
    return _interval_html(block.get(f"{key}_ci95"), block.get(f"{key}_ci_note"), inline=False,
                          over=block.get(f"{key}_ci_over"))


@register.filter
def ci_inline(block, key: str) -> str:
    """`ci` within a line of text."""
    block = block or {}
    return _interval_html(block.get(f"{key}_ci95"), block.get(f"{key}_ci_note"), inline=True,
                          over=block.get(f"{key}_ci_over"))


@register.filter
def interval(bounds, over: str = "") -> str:
    """[lo, hi] -> a small "[0.500, 0.780] over OVER" under the number it belongs to (OVER: what the interval
    resampled, "items", or its method, "Wilson"); nothing when there is none; a note in place of an interval whose
    resamples were all equal (zero width: no spread, not certainty)."""
    if not bounds:
        return ""
    if float(bounds[0]) == float(bounds[1]):
        return _interval_html(None, f"all resamples equal ({_three(bounds[0])}): no spread to show", inline=False)
    return _interval_html(bounds, None, inline=False, over=over)


def _notes(value, found: list) -> None:
    """Append (dict, note key, whether its interval is shown) for every "*ci_note" key under VALUE."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key.endswith("ci_note") and item:
                prefix = key[: -len("ci_note")]
                shown = value.get(f"{prefix}ci95") or (not prefix and value.get("bootstrap_ci95"))
                found.append((value, key, bool(shown)))
            else:
                _notes(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _notes(item, found)


def _copy(value):
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_copy(item) for item in value)
    return value


def _parts(rows, parts: str) -> list:
    """The parts of each row a table shows ("item,topic_mean": row["item"], row["topic_mean"]); every row whole
    without PARTS."""
    if not parts:
        return [rows]
    names = [name.strip() for name in parts.split(",")]
    return [row.get(name) for row in rows for name in names if isinstance(row, dict)]


@register.filter
def ci_shared(rows, parts: str = "") -> dict:
    """{"note", "rows"} for a table of ROWS: where every "no interval" note in the rows is the same one and it recurs
    (a 3-run campaign's run orders: "too few runs to resample: 3" in every cell), "note" says it once for the
    table's caption ("No interval: ...", or "No interval where a cell shows none: ..." when some cells have one) and
    "rows" is a copy with it taken out of the cells; otherwise "note" is None and "rows" are ROWS. Notes that differ
    stay in their cells. PARTS names the parts of a row the table shows, when a row carries more ("item,topic_mean":
    a judge's run orders are another table's)."""
    found: list = []
    _notes(_parts(rows, parts), found)
    notes = {block[key] for block, key, _ in found}
    if len(notes) != 1 or len(found) < 2:
        return {"note": None, "rows": rows}
    note = notes.pop()
    copied = _copy(rows)
    cleared: list = []
    _notes(_parts(copied, parts), cleared)
    for block, key, _ in cleared:
        block[key] = ""  # said in the caption: not in the cell, and no dash for "no interval" either (ci95)
    # "Where a cell shows none": any statistic of the rows with an interval of its own.
    some = any(shown for _, _, shown in found) or _any_interval(_parts(rows, parts))
    return {"note": f"{'No interval where a cell shows none' if some else 'No interval'}: {note}", "rows": copied}


def _any_interval(value) -> bool:
    if isinstance(value, dict):
        return any((key.endswith("ci95") and item) or _any_interval(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return any(_any_interval(item) for item in value)
    return False


@register.filter
def small_class(block) -> str:
    """The CSS class that greys a statistic computed on a small sample (the block's "small" flag)."""
    return "small-sample" if (block or {}).get("small") else ""


@register.filter
def points(difference) -> str:
    """A difference of two shares in percentage points, signed: "+2.7"; "" when undefined."""
    return "" if difference is None else f"{100 * difference:+.1f}"


@register.filter
def in_points(share) -> str:
    """A share (or a mean absolute difference of shares) in percentage points: "3.1"; "—" when undefined."""
    return "—" if share is None else f"{100 * share:.1f}"


@register.filter
def ci_points(block, key: str) -> str:
    """`ci` for a statistic the page shows in percentage points (in_points): its interval in points too."""
    block = block or {}
    bounds = block.get(f"{key}_ci95")
    return _interval_html([100 * bounds[0], 100 * bounds[1]] if bounds else None, block.get(f"{key}_ci_note"),
                          inline=False, over=block.get(f"{key}_ci_over"), digits=1)


@register.filter
def pvalue(p) -> str:
    """A p-value as a page prints it: three decimals, or "< 0.001"; "—" when undefined."""
    if p is None:
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


@register.filter
def built_ago(when) -> str:
    """How long ago a stored report was built: "just now" under a minute, else "3 minutes ago"."""
    if when is None:
        return ""
    if timezone.now() - when < timedelta(minutes=1):
        return "just now"
    return f"{timesince(when)} ago"
