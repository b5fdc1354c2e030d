"""axe-core in Chromium: the WCAG 2.1 A and AA violations of a page as Playwright shows it (issue 54).

axe-core is the version pinned in tests/a11y/package-lock.json, installed by scripts/install --test. The browser
tests that read pages with it: tests/project/test_browser_a11y.py (every page of the URL configuration a role may
open, the annotation page in each of its states) and tests/project/test_docs.py (the manual).
"""

from pathlib import Path

AXE = Path(__file__).resolve().parent / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
# Folded sections are read open: what they hide is the page's too.
OPEN_DETAILS = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"


def violations(page) -> list[str]:
    """axe-core's WCAG 2.1 A/AA violations on PAGE as it is now, a line each: the page, the rule, its impact and the
    first elements it names. axe is added to the page unless its browser context loads it in every page
    (context.add_init_script(path=AXE): cheaper where a context opens many pages)."""
    if not page.evaluate("() => typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}, "
                          "resultTypes: ['violations']})", TAGS)["violations"]
    return [f"{page.url}: {v['id']} ({v['impact']}, {len(v['nodes'])} elements: "
            f"{', '.join(str(node['target']) for node in v['nodes'][:3])})" for v in found]
