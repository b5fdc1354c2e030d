"""Numbers on the report page: three decimals, and a dash that says why when a statistic is undefined."""

from django import template
from django.utils.html import format_html

register = template.Library()

UNDEFINED = "undefined on this data"


@register.filter
def num3(value, why: str = UNDEFINED):
    """0.73457 -> "0.735"; None -> an em dash whose tooltip (title) gives WHY."""
    if value is None:
        return format_html('<span class="undefined" title="{}">—</span>', why)
    return f"{float(value):.3f}"
