"""One template check for every judge family (issue 29, item 4): placeholders are plain names from the option's
declared list, nothing else, for every string option of every registered family; filling never uses str.format."""

import re
import tracemalloc
from pathlib import Path

import pytest
from rest_framework.test import APIClient

from annotate.task_types.registry import task_types
from judges.errors import JudgeConfigError
from judges.families import family_config_validate, family_options
from judges.families.autoais import AutoAIS
from judges.identity import config_hash
from judges.models import Judge
from judges.services import judge_run_new_items_start
from judges.templates import template_check, template_fill
from tasktypes.llm_prompts import answer

# Every family on every task type that names it: a family's options are its own and those its campaign's task type
# gives it (its prompt, TaskTypeSpec.judge_prompt; its options, TaskTypeSpec.judge_options).
FAMILY_TYPES = sorted({(family, spec.name) for spec in task_types() for family in spec.judge_families})

ROOT = Path(__file__).resolve().parents[2]


def _hostile(name: str) -> list[str]:
    """What str.format would do and a judge template must not: pad to 300 MB, convert, walk an attribute, index,
    take a positional argument; and a brace that closes nothing."""
    return [f"{{{name}:>300000000}}", f"{{{name}!r}}", f"{{{name}.__class__}}", f"{{{name}[0]}}", "{}", f"{{{name}"]


def _string_options(name: str, task_type: str) -> dict:
    return {key: option for key, option in family_options(name, task_type).items() if str in option.types}


def _allowed_named(message: str, option) -> bool:
    if option.placeholders is None:
        return "takes no placeholder" in message
    return all("{" + name + "}" in message for name in option.placeholders)


@pytest.mark.parametrize(("name", "task_type"), FAMILY_TYPES)
def test_every_string_option_of_every_family_refuses_what_is_not_a_plain_placeholder(name, task_type):
    """Walks the registry, so a family added later is walked too: each string option, template or not, refuses
    a format spec, a conversion, an attribute, an index, `{}` and a lone brace, in the shared check (before the
    family's own checks), with a message naming the family, the option and the names it may use."""
    for key, option in _string_options(name, task_type).items():
        placeholder = option.placeholders[0] if option.placeholders else "x"
        for value in _hostile(placeholder):
            with pytest.raises(JudgeConfigError) as refused:
                family_config_validate(name, {key: value}, task_type=task_type)
            message = str(refused.value)
            assert message.startswith(f"{name}: {key} "), (key, value, message)
            assert _allowed_named(message, option), (key, value, message)


@pytest.mark.parametrize(("name", "task_type"), FAMILY_TYPES)
def test_each_family_declares_the_placeholders_its_templates_use(name, task_type):
    """Every default passes the shared check (a template option that forgot to declare its placeholders fails
    here), and each template takes every name it declares, as a plain placeholder beside literal braces."""
    for key, option in _string_options(name, task_type).items():
        if isinstance(option.default, str):
            template_check(option.default, family=name, option=key, allowed=option.placeholders)
        if option.placeholders:
            text = " ".join("{" + p + "}" for p in option.placeholders) + " {{literal}}"
            assert template_check(text, family=name, option=key, allowed=option.placeholders) == set(
                option.placeholders)


def test_the_walk_sees_the_templates_of_the_families():
    """The walk above is not vacuous: the registry's families declare their templates."""
    templates = {(name, key) for name, task_type in FAMILY_TYPES
                 for key, option in _string_options(name, task_type).items() if option.placeholders is not None}
    assert {("autoais", "template"), ("autoais", "seq2seq_prompt"), ("llm", "template"), ("llm", "output_format"),
            ("llm", "relevance_template"), ("vlm", "context_template"), ("vlm", "relevance_instruction"),
            ("vlm", "output_instruction")} <= templates


@pytest.mark.django_db
def test_a_28_character_autoais_template_is_refused_before_it_costs_memory(ais_campaign, researcher):
    """The finding: `{question:>300000000}` was formatted to check it, 300 MB in the web process per request.
    Now the request is a 400 naming the family, the option and its placeholders, no judge is made, and the
    request's Python allocations stay far below what the padding would take."""
    api = APIClient()
    api.force_authenticate(researcher)

    def start(config: dict):
        return api.post("/api/campaigns/ais/judge-runs/", {"judge": "padded", "family": "autoais", "config": config},
                        format="json")

    # The same request refused for another reason first, so that the traced one imports nothing (the URL conf
    # and the report code it reaches hold ~100 MB of modules).
    assert start({"threshold": 2.0}).status_code == 400
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        response = start({"template": "{question:>300000000} {answer}"})
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert response.status_code == 400, response.content
    assert response.json()["detail"] == (
        "autoais: template may use only plain named placeholders like {question}, not {question:>300000000} "
        "(no format spec (:), conversion (!), attribute (.), index ([ ]) or empty {}); its placeholders are "
        "{question}, {answer}")
    assert not Judge.objects.exists()
    assert peak < 10_000_000, f"the refused request allocated {peak / 1e6:.0f} MB"


def test_filling_refuses_what_the_check_refuses_without_formatting():
    """A template that reached a worker unchecked still costs nothing: template_fill never calls str.format."""
    tracemalloc.start()
    try:
        for template in _hostile("question"):
            with pytest.raises(JudgeConfigError):
                template_fill(template, question="", answer="")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    with pytest.raises(JudgeConfigError, match=r"not \{premise\}"):
        template_fill("{premise} {hypothesis}", hypothesis="h")


# Templates of kinds that passed the checks before this one (a bare `{name:}`, literal braces, any order, a field
# left out): each keeps its text, and a stored judge's configuration, hence its identity, is unchanged.
STORED = {
    "autoais": {"template": "Q: '{question}' -- A: {answer:} {{sic}}", "seq2seq_prompt": "{hypothesis} | {premise}"},
    "llm": {"template": "{candidate} / {question} / {gold_answers} {{x}}", "output_format": "Say {yes} or {no}.",
            "relevance_template": "{passage}\n{query}\n{scale}"},
    "vlm": {"context_template": "{section_title}: {section_context}", "relevance_instruction": "About {page_title}."},
}


# The task type each family's stored judge judges.
STORED_TYPES = {"autoais": "ais", "llm": "qa_correctness", "vlm": "image_relevance"}


@pytest.mark.parametrize("name", sorted(STORED))
def test_stored_templates_keep_their_text(name):
    options = family_options(name, STORED_TYPES[name])
    for key, text in STORED[name].items():
        template_check(text, family=name, option=key, allowed=options[key].placeholders)
        values = {p: f"<{p}>" for p in options[key].placeholders}
        assert template_fill(text, **values) == text.format(**values)


def test_a_stored_llm_judge_keeps_its_identity_and_its_prompt():
    stored = family_config_validate("llm", STORED["llm"], task_type="qa_correctness")
    again = family_config_validate("llm", stored, task_type="qa_correctness")
    assert again == stored
    assert config_hash(family="llm", config=again) == config_hash(family="llm", config=stored)
    messages = answer.messages_build(question="q", gold_answers=["g1", "g2"], candidate="c", config=stored)
    assert messages[0]["content"].endswith("Say yes or no.")
    assert messages[-1]["content"] == STORED["llm"]["template"].format(candidate="c", question="q",
                                                                       gold_answers="g1; g2")


@pytest.mark.django_db
def test_a_stored_judge_the_check_now_refuses_cannot_start_and_says_why(ais_campaign):
    """An autoais judge stored with a conversion, accepted before, keeps its row and its identity; a new run of it is
    refused with what to change (a queued batch fails its run with the same message, judges.tasks)."""
    config = {**AutoAIS().default_config, "template": "the answer to {question!r} is {answer!r}"}
    judge = Judge.objects.create(campaign=ais_campaign, name="old", family="autoais", config=config,
                                 config_hash=config_hash(family="autoais", config=config))
    with pytest.raises(JudgeConfigError, match=re.escape(
            "autoais: template may use only plain named placeholders like {question}, not {question!r}")):
        judge_run_new_items_start(judge=judge)
    judge.refresh_from_db()
    assert judge.config == config and judge.runs.count() == 0


def test_judge_code_fills_templates_only_through_template_fill():
    """str.format on a configured string is what cost 300 MB; judge families and backends never call it."""
    calls = [f"{path.relative_to(ROOT)}:{number}" for folder in ("judges/families", "judges/llm")
             for path in sorted((ROOT / folder).glob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), start=1) if re.search(r"\.format\(", line)]
    assert calls == []
