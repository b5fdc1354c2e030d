"""Numbers on the report page: three decimals, and a dash that says why when a statistic is undefined."""

from datetime import timedelta

from django import template
from django.utils import timezone
from django.utils.timesince import timesince
from django.utils.html import format_html


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


@register.filter
def ranking_order(order, topic: str) -> str:
    """A human order (tie groups) or a judge's order (flat ids) as "a > b = c", labels without the "<qid>/" prefix."""
    from tasktypes.answer_ranking.report import order_text  # the ranking report's module imports scipy: only when shown

    return order_text(order, str(topic))


@register.filter
def ci95(summary) -> str:
    """A topic mean's interval as the page shows it: the bootstrap one ("bootstrap_ci95", within the statistic's
    range), "[0.500, 0.780]" with the method in its tooltip; the t-based one only for documents that have no
    other; an em dash when there is no interval."""
    summary = summary or {}
    interval = summary.get("bootstrap_ci95") or (None if "bootstrap_ci95" in summary else summary.get("ci95"))
    if not interval:
        if summary.get("ci_note"):
            return format_html('<span class="ci-inline muted ci-note">no interval: {}</span>', summary["ci_note"])
        return format_html('<span class="undefined" title="{}">—</span>', "undefined: fewer than two topics with a value")
    method = summary.get("ci_method") or "t-based 95% interval"
    return format_html('<span class="ci-inline" title="{}">[{}, {}]</span>', method, _three(interval[0]),
                       _three(interval[1]))


def _interval_html(bounds, note, *, inline: bool, digits: int = 3) -> str:
    tag, css = ("span", "ci-inline muted") if inline else ("div", "ci-under muted")
    if bounds:
        shown = _three if digits == 3 else (lambda value: f"{value:.{digits}f}")
        return format_html('<{} class="{}" title="95% interval">[{}, {}]</{}>', tag, css, shown(bounds[0]),
                           shown(bounds[1]), tag)
    if note:
        # Under a number in a table cell: the note's first clause ("too few runs to resample: 3"), the whole of it
        # on hover, so a column of notes stays as narrow as its numbers.
        shown = note if inline else note.split(" (an interval", 1)[0]
        return format_html('<{} class="{} ci-note" title="{}">no interval: {}</{}>', tag, css, note, shown, tag)
    return ""


@register.filter
def ci(block, key: str) -> str:
    """BLOCK's interval of the statistic KEY (BLOCK[KEY_ci95]) under its number, or, when it degenerated, why there
    is none (BLOCK[KEY_ci_note], stats.uncertainty.interval_checked); nothing when the statistic has neither."""
    block = block or {}
    return _interval_html(block.get(f"{key}_ci95"), block.get(f"{key}_ci_note"), inline=False)


@register.filter
def ci_inline(block, key: str) -> str:
    """`ci` within a line of text."""
    block = block or {}
    return _interval_html(block.get(f"{key}_ci95"), block.get(f"{key}_ci_note"), inline=True)


@register.filter
def interval(bounds) -> str:
    """[lo, hi] -> a small "[0.500, 0.780]" under the number it belongs to; nothing when there is none; a note in
    place of an interval whose resamples were all equal (zero width: no spread, not certainty)."""
    if not bounds:
        return ""
    if float(bounds[0]) == float(bounds[1]):
        return _interval_html(None, f"all resamples equal ({_three(bounds[0])}): no spread to show", inline=False)
    return format_html('<div class="ci-under muted" title="95% interval">[{}, {}]</div>', _three(bounds[0]),
                       _three(bounds[1]))


@register.filter
def small_class(block) -> str:
    """The CSS class that greys a statistic computed on a small sample (the block's "small" flag)."""
    return "small-sample" if (block or {}).get("small") else ""


@register.filter
def printed_percent(value) -> str:
    """A share as the NQ-open 301 study printed it (tasktypes.qa_correctness.counting.study_percent): "58.8"; ""
    when undefined."""
    from tasktypes.qa_correctness.counting import study_percent

    percent = study_percent(value)
    return "" if percent is None else f"{percent:.1f}"


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
                          inline=False, digits=1)


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
