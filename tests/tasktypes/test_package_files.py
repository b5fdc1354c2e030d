"""A task type's files stay in its package and under its name: its static files are served under /static/<name>/
(two packages can never claim the same URL, and the old /static/js/rank.js is gone), its own template filters load
from its templatetags/ through the project's template engine, and the filters every report shares (agreement_format)
import no task type."""

import ast
from pathlib import Path

from django.contrib.staticfiles import finders
from django.template import engines

ROOT = Path(__file__).resolve().parents[2]


def test_every_static_file_of_a_task_type_sits_under_its_package_name():
    outside = [str(path.relative_to(ROOT)) for static in sorted((ROOT / "tasktypes").glob("*/static"))
               for path in static.rglob("*") if path.is_file()
               and path.relative_to(static).parts[0] != static.parent.name]
    assert outside == []


def test_the_types_styles_and_scripts_are_found_under_their_prefix():
    moved = ("answer_ranking/rank.js", "answer_ranking/rank.css", "ais/ais.css", "pairwise_preference/pairwise.css")
    for name in moved:
        assert finders.find(name), name
    assert finders.find("js/rank.js") is None and finders.find("css/rank.css") is None


def test_a_task_types_filters_load_from_its_package():
    template = engines["django"].from_string(
        '{% load ranking_format qa_format %}{{ order|ranking_order:"101" }} | {{ share|printed_percent }}')
    assert template.render({"order": [["101/a", "101/b"], ["101/c"]], "share": 0.5876}) == "a = b &gt; c | 58.8"


def test_the_shared_report_filters_import_no_task_type():
    source = ROOT / "agreement" / "templatetags" / "agreement_format.py"
    imported = {node.module if isinstance(node, ast.ImportFrom) else alias.name
                for node in ast.walk(ast.parse(source.read_text()))
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    assert not {name for name in imported if name and name.split(".")[0] == "tasktypes"}
