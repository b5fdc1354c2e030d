"""The ranking report's filters: an order as the page prints it."""

from django import template

register = template.Library()


@register.filter
def ranking_order(order, topic: str) -> str:
    """A human order (tie groups) or a judge's order (flat ids) as "a > b = c", labels without the "<qid>/" prefix."""
    from tasktypes.answer_ranking.report import order_text  # the ranking report's module imports scipy: only when shown

    return order_text(order, str(topic))
