"""The registry of judge families: name -> family. Adding a family = a module and one line here.

Which families judge a task type is said once, in its spec's `judge_families` (annotate.task_types.spec.
TaskTypeSpec): a new task type takes up existing families without editing them.
"""

from annotate.task_types.registry import UnknownTaskType, task_type_get, task_type_names
from judges.errors import JudgeConfigError
from judges.families.autoais import AutoAIS
from judges.families.base import (
    EXTERNAL_FAMILY,
    ItemInput,
    JudgeFamily,
    JudgePrompt,
    Option,
    Verdict,
)
from judges.families.bm25 import BM25
from judges.families.clipscore import CLIPScore
from judges.families.cross_encoder import CrossEncoder
from judges.families.dense import Dense
from judges.families.em import ExactMatch
from judges.families.f1 import TokenF1
from judges.families.llm import LLMJudge
from judges.families.monot5 import MonoT5
from judges.families.vlm import VLMJudge

FAMILIES: dict[str, JudgeFamily] = {
    family.name: family
    for family in (
        ExactMatch(),
        TokenF1(),
        BM25(),
        Dense(),
        MonoT5(),
        CrossEncoder(),
        AutoAIS(),
        CLIPScore(),
        LLMJudge(),
        VLMJudge(),
    )
}

# Families that generate text samples (cached one row per judge, item and sample; tokens and cost counted).
SAMPLE_FAMILIES = frozenset(name for name, family in FAMILIES.items() if getattr(family, "uses_samples", False))
# Families whose model's input limit may cut an item's text (the report counts the cuts).
CUTTING_FAMILIES = frozenset(name for name, family in FAMILIES.items() if family.cuts_long_inputs)

__all__ = ["CUTTING_FAMILIES", "EXTERNAL_FAMILY", "FAMILIES", "SAMPLE_FAMILIES", "ItemInput", "JudgeFamily",
           "JudgePrompt", "Verdict", "family_get", "family_check_task_type", "family_config_validate", "family_options",
           "family_prompt", "families_for"]


def families_for(task_type: str) -> list[str]:
    """The names of the families that can judge campaigns of TASK_TYPE (its spec's judge_families), sorted; none for
    a task type no package registered."""
    try:
        return sorted(task_type_get(task_type).judge_families)
    except UnknownTaskType:
        return []


def family_check_task_type(name: str, task_type: str) -> None:
    """JudgeConfigError unless family NAME can judge a TASK_TYPE campaign, naming the families that can."""
    family_get(name)
    if name not in families_for(task_type):
        usable = ", ".join(families_for(task_type)) or "none"
        judged = sorted(other for other in task_type_names() if name in families_for(other))
        raise JudgeConfigError(f"{name} judges {', '.join(judged)} campaigns, not {task_type}; "
                               f"families for {task_type}: {usable}")


def family_get(name: str) -> JudgeFamily:
    """The registered family NAME, or JudgeConfigError listing the ones there are."""
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(FAMILIES))
        if name == EXTERNAL_FAMILY:
            raise JudgeConfigError(f"'{EXTERNAL_FAMILY}' judges hold imported verdicts and cannot be run") from None
        raise JudgeConfigError(f"unknown judge family {name!r} (available: {known})") from None


def _task_type_options(name: str, task_type: str) -> dict[str, Option]:
    try:
        return task_type_get(task_type).judge_options(name)
    except UnknownTaskType:
        return {}


def family_prompt(name: str, task_type: str) -> JudgePrompt | None:
    """The prompt a TASK_TYPE campaign gives family NAME (TaskTypeSpec.judge_prompt), for a family that uses one
    (JudgeFamily.uses_prompt); None for any other family, or a task type no package registered."""
    if not family_get(name).uses_prompt:
        return None
    try:
        return task_type_get(task_type).judge_prompt(name)
    except UnknownTaskType:
        return None


def family_options(name: str, task_type: str) -> dict[str, Option]:
    """Family NAME's options on a TASK_TYPE campaign: its own, its prompt's and those the task type adds to them
    (TaskTypeSpec.judge_prompt: an llm judge's instruction; TaskTypeSpec.judge_options: a pairwise judge's tie
    margin)."""
    prompt = family_prompt(name, task_type)
    prompt_options = prompt.all_options() if prompt else {}
    return {**family_get(name).options, **prompt_options, **_task_type_options(name, task_type)}


def family_config_validate(name: str, config, *, task_type: str) -> dict:
    """CONFIG of a family NAME judge on a TASK_TYPE campaign, complete (defaults filled in, the task type's prompt and
    options included), or JudgeConfigError naming what is wrong."""
    family = family_get(name)
    complete = family.validate_config(config, extra_options=_task_type_options(name, task_type),
                                      prompt=family_prompt(name, task_type))
    try:
        problem = task_type_get(task_type).judge_config_problem(name, complete)
    except UnknownTaskType:
        problem = None
    if problem:
        raise JudgeConfigError(f"{name}: {problem}")
    return complete
