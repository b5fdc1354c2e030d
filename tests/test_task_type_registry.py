"""Each task type is one module (tasktypes/) registered in annotate.task_types; core code asks the registry and
never branches on a task type's name."""

import re
from pathlib import Path

import pytest
from django.template.loader import get_template
from django.utils.module_loading import import_string

from annotate.forms import CampaignOptionsForm
from annotate.models import TaskType
from annotate.services.campaigns import CampaignError, campaign_get_or_create, campaign_options_set
from annotate.task_types import (
    COMMON_OPTIONS,
    UNIT_ITEM,
    UNIT_TOPIC,
    UnknownTaskType,
    task_type_get,
    task_type_names,
)
from judges.families import families_for
from tasktypes.importers.service import ImportSummary, formats

ROOT = Path(__file__).resolve().parent.parent
CORE = ("accounts", "agreement", "annotate", "config", "judges", "reports", "stats")
# The one place a task type's name is a model choice (the database column's values).
CHOICES = ROOT / "annotate" / "models.py"

# A branch on a task type: a TaskType member, or a task type (a campaign's, a report's) compared with a literal.
BRANCHES = [
    re.compile(r"\bTaskType\.[A-Z_]+\b"),
    re.compile(r"""task_type["']?\]?\)?\s*(==|!=|\bnot in\b|\bin\b)\s*["'{(\[]"""),
    re.compile(r"""["'](%s)["']\s*(==|!=)|(==|!=)\s*["'](%s)["']""" % (("|".join(TaskType.values),) * 2)),
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


# The folders, bottom to top: each may import those below it, never those above. The statistics (stats/) are the
# bottom floor: no Django and no other folder of the project (test_the_statistics_import_no_django).
LAYERS = ["stats", "accounts", "annotate", "judges", "reports", "tasktypes", "agreement"]


def _imports(path: Path) -> set[str]:
    return set(re.findall(r"^\s*(?:from|import)\s+(\w+)", path.read_text(), re.MULTILINE))


def test_the_folders_import_one_way():
    upward = []
    for level, package in enumerate(LAYERS):
        above = set(LAYERS[level + 1:])
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts and _imports(path) & above:
                upward.append(f"{path.relative_to(ROOT)} imports {sorted(_imports(path) & above)}")
    assert upward == []


def test_the_statistics_import_no_django():
    found = [f"{path.relative_to(ROOT)} imports {sorted(_imports(path) & {'django', 'config'})}"
             for path in sorted((ROOT / "stats").rglob("*.py")) if _imports(path) & {"django", "config"}]
    assert found == []
    assert _imports(ROOT / "stats" / "budget.py") >= {"stats", "numpy"}  # the check reads the imports it should


def test_the_llm_family_and_its_local_backend_do_not_import_each_other():
    backend = (ROOT / "judges" / "llm" / "hf_backend.py").read_text()
    assert "judges.families.llm" not in backend


def test_every_task_type_is_registered_with_its_hooks():
    assert task_type_names() == ["qa_correctness", "answer_ranking", "ais", "image_relevance", "passage_relevance"]
    assert set(task_type_names()) == set(TaskType.values)
    for name in task_type_names():
        spec = task_type_get(name)
        assert spec.name == name and spec.unit in (UNIT_ITEM, UNIT_TOPIC)
        assert callable(import_string(spec.importer)) and callable(import_string(spec.report_builder))
        assert callable(getattr(ImportSummary, spec.import_lines))
        for template in spec.page:
            get_template(template)
        assert "judge-scores" in spec.import_formats and set(spec.format_help) <= set(spec.import_formats)
        assert families_for(name), name
        # Its options form: a field for every option it takes, the common ones included, and no other.
        assert issubclass(spec.options_form, CampaignOptionsForm), name
        assert set(spec.options_form.base_fields) == set(COMMON_OPTIONS) | set(spec.options), name
    assert task_type_get("answer_ranking").unit == UNIT_TOPIC
    assert task_type_get("ais").default_overlap == 3
    assert formats()["trec-run"] == {"answer_ranking", "image_relevance", "passage_relevance"}
    assert formats()["judge-qrels"] == {"image_relevance", "passage_relevance"}
    with pytest.raises(UnknownTaskType, match="unknown task type 'poll'; choose one of qa_correctness, "):
        task_type_get("poll")


@pytest.mark.django_db
def test_campaigns_take_the_unit_overlap_and_options_of_their_task_type():
    ais = campaign_get_or_create(slug="a", task_type="ais")
    qa = campaign_get_or_create(slug="q", task_type="qa_correctness")
    assert (ais.overlap, qa.overlap) == (3, 1)
    with pytest.raises(CampaignError, match="option ties: ties apply to answer_ranking campaigns"):
        campaign_options_set(campaign=qa, values={"ties": True})
    with pytest.raises(CampaignError, match="option bias_tag: bias_tag applies to image_relevance, passage_relevance campaigns"):
        campaign_options_set(campaign=ais, values={"bias_tag": "x"})
    assert campaign_options_set(campaign=qa, values={"small_sample": 12}).options == {"small_sample": 12}
    with pytest.raises(CampaignError, match="unknown task type 'poll'"):
        campaign_get_or_create(slug="p", task_type="poll")
