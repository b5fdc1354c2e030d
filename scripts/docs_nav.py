"""MkDocs hook (mkdocs.yml's `hooks`): the navigation lists every page of docs/task-types/ and docs/formats/, those
mkdocs.yml names in its order, then any other page of those folders, sorted and titled by its file's name. So a new
task type (or import format) adds its page to the folder and nothing else: the site's navigation, and the docs test
that reads it (tests/project/test_docs.py), meet it."""

from pathlib import Path

FOLDERS = {"Task types": "task-types", "Import formats": "formats"}


def pages_listed(entries) -> set[str]:
    """The pages an mkdocs navigation (a list of titled entries, sections nested) names."""
    found = set()
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        found |= pages_listed(value) if isinstance(value, list) else {value}
    return found


def nav_completed(nav: list, docs_dir: Path) -> list:
    """NAV with the pages of FOLDERS' folders that it does not name appended to their sections."""
    listed = pages_listed(nav)
    for section in nav:
        if isinstance(section, dict) and next(iter(section)) in FOLDERS:
            title = next(iter(section))
            folder = FOLDERS[title]
            found = sorted(f"{folder}/{path.name}" for path in (docs_dir / folder).glob("*.md"))
            section[title].extend({Path(page).stem: page} for page in found if page not in listed)
    return nav


def on_config(config):
    config["nav"] = nav_completed(config["nav"], Path(config["docs_dir"]))
    return config
