"""The documentation site (docs/, mkdocs.yml): it builds with no warning (a warning is an error, as in scripts/docs),
every page the project promises is in its navigation, its pages load nothing from another host, and the app serves
it at /docs/ to anyone, signed in or not, without letting a path out of its folder.

The site is built once for the module, into a temporary folder (about 2 s)."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from django.test import override_settings
from django.urls import reverse

from annotate.task_types.registry import import_formats, task_type_names
from judges.families import FAMILIES
from tests.axe_support import OPEN_DETAILS, violations
from tests.sides import sqlite_run_only

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path("/tmp/docs-shots")
# The built site is files, served from DOCS_ROOT: the tests of it (they take the site fixture) run in one run only.
SITE_ONE_RUN = sqlite_run_only("the site is built and served from files, never from the database, broker or cache")
# Every statistic a report shows has its page (issue 30): definition, library, interval, reference.
STATISTICS = ("cohen-kappa", "fleiss-kappa", "krippendorff-alpha", "kendall-tau", "spearman", "pearson", "tau-ap",
              "rbo", "overlap-at-k", "ndcg", "map", "precision-at-10", "ndcg-at-20", "ndcg-at-100", "recall-at-100",
              "recall-at-1000", "judged-at-10", "compatibility", "accuracy", "em-f1", "nrp", "relative-delta",
              "system-tests", "arm-tests", "selected-samples", "disagreement", "budget-fit", "intervals")
PAGES = ("index.md", "getting-started.md", "demo.md", "annotating.md", "campaigns.md", "command-line.md",
         "answer_ranking.md", "judges.md", "judge-families.md", "model-endpoints.md", "reports.md",
         "stored-reports.md", "adjudication.md", "budget.md", "arms.md", "api.md", "archives.md",
         "configuration.md", "production.md", "security.md", "scaling.md", "reliability.md", "benchmarks.md",
         "tests.md", "task-types/index.md", "task-types/graded-report.md", "formats/index.md", "statistics/index.md")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(the built site's folder, the build's output): `mkdocs build --strict`, as scripts/docs runs it."""
    out = tmp_path_factory.mktemp("docs-site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", "mkdocs.yml", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    return out, build


def _nav() -> list[str]:
    """The pages of the site's navigation: mkdocs.yml's, completed by its hook (scripts/docs_nav.py) as a build is."""
    hook = importlib.util.spec_from_file_location("docs_nav", ROOT / "scripts" / "docs_nav.py")
    docs_nav = importlib.util.module_from_spec(hook)
    hook.loader.exec_module(docs_nav)
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    nav = docs_nav.nav_completed(config["nav"], ROOT / "docs")
    return [page for section in nav for page in docs_nav.pages_listed([section])]


def _format_pages() -> set[str]:
    """The page of each import format of the registry: formats/<name>.md, or, for a format only task types declare,
    the page of one of them when a heading of it names the format (a task type's own formats documented with it)."""
    pages = set()
    for name, types in import_formats().items():
        own = [f"task-types/{task_type}.md" for task_type in sorted(types)]
        headed = [page for page in own if (ROOT / "docs" / page).is_file()
                  and re.search(rf"^#+ .*`{re.escape(name)}`", (ROOT / "docs" / page).read_text(), re.MULTILINE)]
        pages.add(headed[0] if headed and not (ROOT / "docs" / "formats" / f"{name}.md").is_file()
                  else f"formats/{name}.md")
    return pages


@SITE_ONE_RUN
def test_the_site_builds_with_no_warning(site):
    out, build = site
    log = build.stdout + build.stderr
    assert build.returncode == 0, log
    assert not re.search(r"^\s*(WARNING|ERROR)\b", log, re.MULTILINE), log
    assert (out / "index.html").is_file() and (out / "getting-started" / "index.html").is_file()


def test_every_promised_page_is_in_the_navigation():
    """Every task type and import format of the registry, every judge family, every statistic and the running pages."""
    nav = _nav()
    assert len(nav) == len(set(nav)), "a page is in the navigation twice"
    expected = (
        {f"task-types/{name}.md" for name in task_type_names()}
        | _format_pages()
        | {f"statistics/{name}.md" for name in STATISTICS}
        | set(PAGES)
    )
    # What the registry holds, read from the packages on disk: every task type package and its formats are found.
    packages = {path.parent.name for path in (ROOT / "tasktypes").glob("*/spec.py") if "@register" in path.read_text()}
    assert len(packages) >= 6 and packages <= set(task_type_names()) and len(import_formats()) >= len(packages)
    assert sorted(expected - set(nav)) == []
    on_disk = {str(path.relative_to(ROOT / "docs")) for path in (ROOT / "docs").rglob("*.md")}
    assert sorted(on_disk - set(nav)) == [], "a page is in docs/ but not in the navigation"
    families = (ROOT / "docs" / "judge-families.md").read_text()
    assert [name for name in FAMILIES if f"`{name}`" not in families] == []
    for name in STATISTICS[:-1]:  # each statistic's page says how its interval is made and cites a source
        text = (ROOT / "docs" / "statistics" / f"{name}.md").read_text()
        assert "## Interval" in text and "## Reference" in text and re.search(r"\(\d{4}\)", text), name


@SITE_ONE_RUN
def test_no_page_loads_anything_from_another_host(site):
    """Scripts, styles, images and fonts are the site's own files (theme.font is off: no Google Fonts)."""
    out, _ = site
    outside = []
    for page in out.rglob("*.html"):
        for tag, url in re.findall(
            r"<(script|link|img|iframe|source)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", page.read_text()
        ):
            if urlsplit(url).netloc or url.startswith("//"):
                outside.append((str(page.relative_to(out)), tag, url))
    assert outside == []


@SITE_ONE_RUN
@pytest.mark.django_db
def test_docs_are_served_to_anyone_and_no_path_leaves_the_site(site, client, researcher, tmp_path):
    out, _ = site
    (out.parent / "secret.txt").write_text("not for the web")
    with override_settings(DOCS_ROOT=out):
        home = client.get(reverse("docs", kwargs={"path": ""}))
        assert home.status_code == 200 and b"<title>Concord</title>" in b"".join(home.streaming_content)
        page = client.get("/docs/getting-started/")
        assert page.status_code == 200 and b"createsuperuser" in b"".join(page.streaming_content)
        assert client.get("/docs/getting-started")["Location"] == "/docs/getting-started/"
        search = client.get("/docs/search/search_index.json")
        assert search.status_code == 200 and search["Content-Type"] == "application/json"
        for escape in ("/docs/../secret.txt", "/docs/%2e%2e/secret.txt", "/docs/..%2fsecret.txt",
                       f"/docs/{out.parent}/secret.txt", "/docs//etc/passwd", "/docs/../../manage.py"):
            answer = client.get(escape)
            assert answer.status_code == 404, escape
            assert b"not for the web" not in (
                b"".join(answer.streaming_content) if answer.streaming else answer.content
            )
        assert client.post("/docs/").status_code == 405
        client.force_login(researcher)  # signed in: the same pages
        assert client.get("/docs/api/").status_code == 200

    with override_settings(DOCS_ROOT=tmp_path / "not-built"):
        missing = client.get("/docs/")
        assert missing.status_code == 404 and b"./scripts/docs" in missing.content


def _docs_link(page) -> str | None:
    found = re.search(r'<a href="([^"]*)"[^>]*>Docs</a>', page.content.decode())
    return found and found.group(1)


@pytest.mark.django_db
def test_the_header_links_the_docs_on_every_page(client, researcher):
    assert _docs_link(client.get(reverse("login"))) == "/docs/"  # signed out too
    client.force_login(researcher)
    assert _docs_link(client.get(reverse("home"))) == "/docs/"
    with override_settings(DOCS_URL="https://docs.example.org/concord/"):  # production may host them elsewhere
        assert _docs_link(client.get(reverse("profile"))) == "https://docs.example.org/concord/"


@SITE_ONE_RUN
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_docs_in_chromium(site, researcher, login_page, live_server, browser):
    """The docs home served at /docs/ works under the app's security headers (its search runs its own scripts) and
    asks nothing of another host; the app's header links to it. Screenshots: /tmp/docs-shots."""
    out, _ = site
    SHOTS.mkdir(exist_ok=True)
    with override_settings(DOCS_ROOT=out):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        hosts, errors = set(), []
        page.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{live_server.url}/docs/")
        page.wait_for_load_state("networkidle")
        assert "Concord" in page.title()
        page.locator("label.md-search__icon, .md-search__input").first.click()
        page.locator("input.md-search__input").press_sequentially("createsuperuser")  # Material reads keystrokes
        # Material searches after each keystroke: the results of a prefix ("cr": 78 documents) show first, so the
        # test waits for the full word's, which name the page that says how to make the first account.
        page.locator(".md-search-result__meta", has_text="matching document").wait_for()
        page.locator(".md-search-result__item", has_text="Getting started").first.wait_for(timeout=10_000)
        assert "Getting started" in page.locator(".md-search-result").inner_text()
        page.keyboard.press("Escape")
        page.screenshot(path=str(SHOTS / "docs-home.png"))
        assert hosts == {urlsplit(live_server.url).netloc} and errors == []
        context.close()

        app = login_page(researcher.username)
        app.screenshot(path=str(SHOTS / "app-header.png"), clip={"x": 0, "y": 0, "width": 1280, "height": 200})
        app.get_by_role("link", name="Docs", exact=True).click()
        app.wait_for_load_state("networkidle")
        assert app.url == f"{live_server.url}/docs/" and app.locator("h1").first.inner_text().startswith("Concord")


# The manual's pages axe reads: the home page and two whose tables are wider than the page (each scrolls in a box that
# must take focus: docs/javascripts/scroll-regions.js). Every page of the site was read once (issue 54): those boxes
# were all it found, and the theme draws every page alike.
A11Y_PAGES = ("", "benchmarks/", "statistics/ppi/")


@SITE_ONE_RUN
@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_manual_meets_wcag_21_aa_as_axe_checks_it(site, live_server, browser):
    """WCAG 2.1 A and AA as axe-core checks them (tests/axe_support.py), with every <details> open."""
    out, _ = site
    found = []
    with override_settings(DOCS_ROOT=out):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        for path in A11Y_PAGES:
            page.goto(f"{live_server.url}/docs/{path}")
            page.evaluate(OPEN_DETAILS)
            found += violations(page)
        context.close()
    assert found == []


def test_no_file_keeps_a_merge_conflicts_markers():
    """A merge's conflict left in a page builds without a warning (the markers read as text and a rule), so it is
    looked for here: in every file git tracks."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    marked = []
    for name in filter(None, tracked.decode().split("\0")):
        path = ROOT / name
        if (
            path.suffix in {".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".woff2", ".gz", ".zip"}
            or not path.is_file()
        ):
            continue
        text = path.read_bytes()
        if re.search(rb"^(<{7}|>{7}) ", text, re.MULTILINE):
            marked.append(name)
    assert marked == []
