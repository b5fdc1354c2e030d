"""WCAG 2.1 A and AA, as axe-core checks them (tests/a11y: the version pinned there, installed by scripts/install
--test), on every task type's pages built from its sample (tests/project/test_query_counts.campaign_from_sample): the
annotation page with a unit leased, the campaign page and the agreement report with every <details> opened. A
violation fails with its rule, its impact and the first elements it names (issue 54). On the annotation page every
control a key works also names its keys in aria-keyshortcuts."""

from pathlib import Path

import pytest

from annotate.task_types.registry import task_type_names
from tests.project.test_query_counts import campaign_from_sample
from tests.sides import sqlite_run_only

AXE = Path(__file__).resolve().parents[1] / "a11y" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


def violations(page) -> list[str]:
    """axe-core's WCAG 2.1 A/AA violations on PAGE as it is now, a line each."""
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", TAGS)["violations"]
    return [f"{page.url}: {v['id']} ({v['impact']}, {len(v['nodes'])} elements: "
            f"{', '.join(str(node['target']) for node in v['nodes'][:3])})" for v in found]


@pytest.mark.browser
@sqlite_run_only("what axe reads is the pages' markup and styles, the same on either database")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("task_type", task_type_names())
def test_every_task_types_pages_meet_wcag_21_aa_as_axe_checks_them(task_type, login_page, live_server, settings,
                                                                   tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    world = campaign_from_sample(task_type, topics=3, tag="a11y", media_root=settings.MEDIA_ROOT)
    slug = world["campaign"].slug
    found = []
    page = login_page(world["users"]["annotator"].username)
    page.goto(f"{live_server.url}/campaigns/{slug}/annotate/")
    page.wait_for_selector("#annotate-unit[data-ready]", state="attached")
    found += violations(page)
    # Every control a key works says its keys to assistive technology.
    said = page.evaluate("""() => Array.from(document.querySelectorAll(
        '#annotate-unit button[data-key], #annotate-unit input[data-key], #annotate-unit a[data-key]')).map(
        el => [el.getAttribute('data-key').trim(), el.getAttribute('aria-keyshortcuts')])""")
    assert said and all(keys == announced for keys, announced in said), said
    page = login_page(world["users"]["researcher"].username)
    for path in (f"/campaigns/{slug}/", f"/campaigns/{slug}/report/"):
        page.goto(f"{live_server.url}{path}")
        page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        found += violations(page)
    assert found == []
