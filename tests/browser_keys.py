"""Pressing keys on an annotation page as a person does: once the unit on screen takes keys.

static/js/unit.js ignores a key that comes while a request for the unit is in flight, or before the unit just swapped
in has been on screen for a moment (a second key 30 ms after the first was meant for the unit before); it marks the
unit data-ready when it takes keys. A test that presses keys as fast as a program can waits for that mark first.
"""

READY = "#annotate-unit[data-ready]"


def press(page, key):
    page.wait_for_selector(READY, state="attached")
    page.keyboard.press(key)
