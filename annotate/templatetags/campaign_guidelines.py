"""{% campaign_guidelines campaign as guidelines %}: the campaign's current guidelines for a page to show (the
annotation pages' help, the campaign page), with `html` rendered safely (annotate.guidelines); None when it has none.
One query."""

from django import template
from django.utils.safestring import mark_safe

from annotate.guidelines import guidelines_html
from annotate.selectors.campaigns import guidelines_current

register = template.Library()


@register.simple_tag
def campaign_guidelines(campaign):
    current = guidelines_current(campaign=campaign)
    if current is None or not current.text.strip():
        return None
    current.html = mark_safe(guidelines_html(current.text))  # noqa: S308 - markdown without raw HTML, then nh3
    return current
