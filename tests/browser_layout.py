"""Where things lie on an annotation page, by the boxes Chromium laid out: the judging panel pinned to the window's
bottom edge (static/css/annotate.css, static/js/unit.js) must never cover what the annotator reads.

SIZES are the windows the pages are checked at: a laptop's 1280x900 and a short 1280x760 (a browser with toolbars).
"""

SIZES = [{"width": 1280, "height": 900}, {"width": 1280, "height": 760}]
PINNED = ".annotate-card > .verdicts, .annotate-card > .ais-form"


def size_id(size: dict) -> str:
    return f"{size['width']}x{size['height']}"


def hidden_fields(page, fields, panel=PINNED) -> dict:
    """The FIELDS (CSS selectors of what the annotator must read) that are not in full view: off the window, or
    overlapping the PANEL's box. Maps each to its box and the panel's, as (x, top, right, bottom) in CSS px."""
    height = page.viewport_size["height"]

    def edges(selector):
        box = page.locator(selector).first.bounding_box()
        return tuple(round(v, 1) for v in (box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]))

    p_left, p_top, p_right, p_bottom = edges(panel)
    assert p_top >= 0 and p_bottom <= height, ("the panel is not on screen", (p_left, p_top, p_right, p_bottom))
    hidden = {}
    for field in fields:
        left, top, right, bottom = edges(field)
        overlaps = top < p_bottom and bottom > p_top and left < p_right and right > p_left
        if top < 0 or bottom > height or overlaps:
            hidden[field] = ((left, top, right, bottom), (p_left, p_top, p_right, p_bottom))
    return hidden
