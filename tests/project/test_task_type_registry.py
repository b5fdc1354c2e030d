"""Each task type is one package (tasktypes/<name>/) registered in annotate.task_types.registry; core code asks the
registry and never branches on a task type's name, its report's layout or a judge family's name; the folders import
one way, by real imports, with no file-level cycle."""

import ast
import re
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest
from django.template.loader import get_template

from annotate.forms import CampaignOptionsForm
from annotate.services.campaigns import CampaignError, campaign_get_or_create, campaign_options_set
from annotate.task_types.options import COMMON_OPTIONS
from annotate.task_types.registry import UnknownTaskType, task_type_get, task_type_names
from annotate.task_types.spec import UNIT_ITEM, UNIT_TOPIC
from interchange.importers.service import formats
from judges.families import FAMILIES, families_for

ROOT = Path(__file__).resolve().parents[2]
CORE = ("accounts", "agreement", "annotate", "config", "interchange", "judges", "reports", "stats")
# The one place a task type's name is a model choice (the database column's values).
CHOICES = ROOT / "annotate" / "models.py"

# A branch on a task type: a TaskType member, or a task type (a campaign's, a report's) compared with a literal.
BRANCHES = [
    re.compile(r"\bTaskType\.[A-Z_]+\b"),
    re.compile(r"""task_type["']?\]?\)?\s*(==|!=|\bnot in\b|\bin\b)\s*["'{(\[]"""),
    re.compile(r"""["'](%s)["']\s*(==|!=)|(==|!=)\s*["'](%s)["']""" % (("|".join(task_type_names()),) * 2)),
]


def _core_sources():
    for package in CORE:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts and path != CHOICES:
                yield path


def test_no_branch_on_a_task_type_outside_the_task_types_modules():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _core_sources()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if any(pattern.search(line) for pattern in BRANCHES)
    ]
    assert found == []


def test_the_check_finds_a_branch():
    lines = ['if campaign.task_type == TaskType.AIS:', 'if report["task_type"] == "image_relevance":',
             'if task_type in {"ais"}:', 'images = "image_relevance" == kind']
    assert all(any(pattern.search(line) for pattern in BRANCHES) for line in lines)


# A branch on a report's layout (its presentation shows it), or on a judge family's name (a family's attributes say
# what it does: judges.families.SAMPLE_FAMILIES, CUTTING_FAMILIES).
_NAMES = "|".join(re.escape(name) for name in FAMILIES)
LAYOUT_OR_FAMILY = [
    re.compile(r"""layout["']?\]?\)?\s*(==|!=|\bnot in\b|\bin\b)"""),
    re.compile(r"""(==|!=)\s*\w*(\.|\[["'])?layout\b"""),
    re.compile(r"""family\w*["']?\]?\)?\s*(==|!=|\bnot in\b|\bin\b)\s*[({\[]*\s*["'](%s)["']""" % _NAMES),
    re.compile(r"""["'](%s)["']\s*(==|!=|\bin\b)""" % _NAMES),
    re.compile(r"""family(__in)?\s*=\s*[("'\[{]+(%s)["']""" % _NAMES),
    re.compile(r"""\{%\s*(if|elif)\s+(not\s+)?(ranking|graded|ais|layout)\b"""),
]


def _core_templates():
    yield from sorted((ROOT / "templates").rglob("*.html"))


def test_no_branch_on_a_layout_or_a_family_name_in_the_core():
    sources = [*(path for path in _core_sources()), *_core_templates(),
               *(path for path in sorted((ROOT / "tasktypes").rglob("*.py")) if "migrations" not in path.parts)]
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sources
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if any(pattern.search(line) for pattern in LAYOUT_OR_FAMILY)
    ]
    assert found == []


def test_the_check_finds_a_layout_or_family_branch():
    lines = ['if report["layout"] == LAYOUT_GRADES:', 'graded = report.get("layout") == "grades"',
             'if spec.report_layout != "grades":', 'if judge.family == "llm":', 'if family == "autoais" else None',
             'any(j.family in ("clipscore", "vlm") for j in judges)', 'Judge.objects.filter(family="llm")',
             'judge__family__in=("llm",)', '{% if ranking %}', '{% elif graded %}', '{% if not ais %}']
    assert not any(pattern.search("for family in (ExactMatch(), TokenF1()):") for pattern in LAYOUT_OR_FAMILY)
    assert [line for line in lines if not any(pattern.search(line) for pattern in LAYOUT_OR_FAMILY)] == []


# The folders, bottom to top: each may import those below it, never those above. Real imports are held by
# import-linter's contracts (.importlinter, run by scripts/lint in CI: the floors, and stats/ without Django); a
# dotted string that names a module above is an import import-linter cannot see, so it is checked here.
LAYERS = ["stats", "accounts", "annotate", "judges", "reports", "interchange", "tasktypes", "agreement"]


# A dotted string naming a module of the project: import_string("reports.arms.arms_report_build") runs an import the
# folder check above would not see.
DOTTED = re.compile(r"^(%s)(\.\w+)+$" % "|".join(LAYERS))


def _dotted_strings(path: Path) -> set[str]:
    """The string constants of PATH that are whole dotted paths into the project's folders (docstrings left out)."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings and DOTTED.match(node.value)}


def test_no_dotted_string_names_a_folder_above():
    upward = []
    for level, package in enumerate(LAYERS):
        above = set(LAYERS[level + 1:])
        for path in sorted((ROOT / package).rglob("*.py")):
            named = {text for text in _dotted_strings(path) if text.split(".")[0] in above}
            if "migrations" not in path.parts and named:
                upward.append(f"{path.relative_to(ROOT)} names {sorted(named)}")
    assert upward == []


def test_import_string_is_used_nowhere():
    # Task types are found by autodiscovery (annotate.task_types.registry.autodiscover); specs hold methods.
    found = [str(path.relative_to(ROOT)) for package in (*LAYERS, "config") for path in (ROOT / package).rglob("*.py")
             if "import_string" in path.read_text()]
    assert found == []


def test_the_dotted_string_check_reads_strings_not_docstrings(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""Built by reports.arms.arms_report_build."""\nBUILDER = "reports.arms.arms_report_build"\n')
    assert _dotted_strings(module) == {"reports.arms.arms_report_build"}


def _module_imports() -> dict[str, set[str]]:
    """Module -> the project's modules it imports (at the top or inside a function), for every module of LAYERS and
    config; `from package import name` counts as importing package.name where that is a module."""
    modules = {}
    for package in (*LAYERS, "config"):
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" not in path.parts:
                parts = path.relative_to(ROOT).with_suffix("").parts
                modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, path in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        # A module's own package (its __init__) is not an import that makes a cycle with it.
        graph[module] = {found for found in map(resolve, targets)
                         if found and found != module and not module.startswith(found + ".")}
    return graph


def test_no_file_level_import_cycles():
    try:
        TopologicalSorter(_module_imports()).prepare()
        cycle = []
    except CycleError as error:
        cycle = error.args[1]
    assert cycle == []


def test_the_cycle_check_reads_imports_inside_functions():
    graph = _module_imports()
    assert "annotate.task_types.registry" in graph["annotate.models"]
    assert "reports.plots" in graph["agreement.plots"]  # imported inside report_plots


def test_the_llm_family_and_its_local_backend_do_not_import_each_other():
    backend = (ROOT / "judges" / "llm" / "hf_backend.py").read_text()
    assert "judges.families.llm" not in backend


def test_every_task_type_is_registered_with_its_hooks():
    # Every package of tasktypes/ whose spec registers a type is found by autodiscovery (none is listed here: a new
    # package is checked as soon as it exists).
    packages = {path.parent.name for path in (ROOT / "tasktypes").glob("*/spec.py") if "@register" in path.read_text()}
    assert len(packages) >= 6 and packages <= set(task_type_names())
    for name in task_type_names():
        spec = task_type_get(name)
        assert spec.name == name and spec.unit in (UNIT_ITEM, UNIT_TOPIC)
        for template in spec.page:
            get_template(template)
        assert "judge-scores" in spec.import_formats and all(fmt.help for fmt in spec.formats)
        assert families_for(name), name  # a family that runs on it
        # Its options form: a field for every option it takes, the common ones included, and no other.
        assert issubclass(spec.options_form, CampaignOptionsForm), name
        assert set(spec.options_form.base_fields) == set(COMMON_OPTIONS) | set(spec.options), name
    assert task_type_get("answer_ranking").unit == UNIT_TOPIC
    assert task_type_get("ais").default_overlap == 3
    assert formats()["trec-run"] == {"answer_ranking", "image_relevance", "passage_relevance"}
    assert formats()["judge-qrels"] == {"image_relevance", "passage_relevance"}
    with pytest.raises(UnknownTaskType, match="unknown task type 'poll'; choose one of ais, answer_ranking, "):
        task_type_get("poll")


@pytest.mark.django_db
def test_campaigns_take_the_unit_overlap_and_options_of_their_task_type():
    ais = campaign_get_or_create(slug="a", task_type="ais")
    qa = campaign_get_or_create(slug="q", task_type="qa_correctness")
    assert (ais.overlap, qa.overlap) == (3, 2)
    with pytest.raises(CampaignError, match="option ties: ties apply to answer_ranking campaigns"):
        campaign_options_set(campaign=qa, values={"ties": True})
    with pytest.raises(
        CampaignError, match="option bias_tag: bias_tag applies to image_relevance, passage_relevance campaigns"
    ):
        campaign_options_set(campaign=ais, values={"bias_tag": "x"})
    assert campaign_options_set(campaign=qa, values={"small_sample": 12}).options == {"small_sample": 12}
    with pytest.raises(CampaignError, match="unknown task type 'poll'"):
        campaign_get_or_create(slug="p", task_type="poll")
