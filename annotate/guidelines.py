"""A campaign's guidelines, written in Markdown by its researchers, as HTML that is safe to put in a page.

Two layers, so that neither alone has to be right: markdown-it-py renders with raw HTML off (a `<script>` written in
the text comes out as text), and nh3 then keeps only the tags and attributes below, links only to http, https and
mailto addresses (no relative ones, no `javascript:`), each link with rel="noopener noreferrer nofollow". Images are
not kept: an annotator's page loads nothing from other sites.
"""

import nh3
from markdown_it import MarkdownIt

TAGS = {
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"style"}, "td": {"style"}}
URL_SCHEMES = {"http", "https", "mailto"}

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
    ["table", "strikethrough"])


def guidelines_html(text: str) -> str:
    """TEXT (Markdown) rendered and cleaned: HTML to mark safe in a template."""
    if not text or not text.strip():
        return ""
    return nh3.clean(
        _markdown.render(text), tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES, url_relative="deny",
        link_rel="noopener noreferrer nofollow", filter_style_properties={"text-align"},
    )
