"""Numbers on the report page: three decimals, and a dash that says why when a statistic is undefined."""

from django import template
from django.utils.html import format_html

from agreement.report_ranking import order_text

register = template.Library()

UNDEFINED = "undefined on this data"


@register.filter
def num3(value, why: str = UNDEFINED):
    """0.73457 -> "0.735"; None -> an em dash whose tooltip (title) gives WHY.

    "" is what the template engine gives for a lookup through a missing block (e.g. no human
    ceiling with one annotator): undefined as well.
    """
    if value is None or value == "":
        return format_html('<span class="undefined" title="{}">—</span>', why)
    return f"{float(value):.3f}"


@register.filter
def ranking_order(order, topic: str) -> str:
    """A human order (tie groups) or a judge's order (flat ids) as "a > b = c", labels without the "<qid>/" prefix."""
    return order_text(order, str(topic))


@register.filter
def ci95(summary) -> str:
    """{"mean", "ci95": [lo, hi], "n"} -> "[0.500, 0.780]"; an em dash when there is no interval."""
    interval = (summary or {}).get("ci95")
    if not interval:
        return format_html('<span class="undefined" title="{}">—</span>', "undefined: fewer than two topics with a value")
    return f"[{float(interval[0]):.3f}, {float(interval[1]):.3f}]"
