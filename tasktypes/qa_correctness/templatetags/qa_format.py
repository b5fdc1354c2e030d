"""The QA correctness report's filters: a share as the NQ-open 301 study printed it."""

from django import template

register = template.Library()


@register.filter
def printed_percent(value) -> str:
    """A share as the NQ-open 301 study printed it (tasktypes.qa_correctness.counting.study_percent): "58.8"; ""
    when undefined."""
    from tasktypes.qa_correctness.counting import study_percent  # the judge families' module: only when shown

    percent = study_percent(value)
    return "" if percent is None else f"{percent:.1f}"
