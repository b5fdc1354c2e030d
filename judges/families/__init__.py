"""The registry of judge families: name -> family. Adding a family = a module and one line here.

A family judges the task types its own `task_types` names, and those whose spec names it in `judge_families`
(annotate.task_types.TaskTypeSpec): a new task type can take up existing families without editing them.
"""

from annotate.task_types import UnknownTaskType, task_type_get, task_type_names
from judges.errors import JudgeConfigError
from judges.families.autoais import AutoAIS
from judges.families.base import ItemInput, JudgeFamily, Verdict
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

__all__ = ["FAMILIES", "SAMPLE_FAMILIES", "ItemInput", "JudgeFamily", "Verdict", "family_get", "family_check_task_type",
           "families_for"]


def _spec_families(task_type: str) -> tuple[str, ...]:
    """The families TASK_TYPE's spec lists in judge_families; none for a task type no module registered."""
    try:
        return tuple(task_type_get(task_type).judge_families)
    except UnknownTaskType:
        return ()


def _judges(family: JudgeFamily, task_type: str) -> bool:
    return task_type in family.task_types or family.name in _spec_families(task_type)


def families_for(task_type: str) -> list[str]:
    """The names of the families that can judge campaigns of TASK_TYPE, sorted."""
    return sorted(name for name, family in FAMILIES.items() if _judges(family, task_type))


def family_check_task_type(name: str, task_type: str) -> None:
    """JudgeConfigError unless family NAME can judge a TASK_TYPE campaign, naming the families that can."""
    family = family_get(name)
    if not _judges(family, task_type):
        usable = ", ".join(families_for(task_type)) or "none"
        judged = sorted({*family.task_types, *(other for other in task_type_names() if _judges(family, other))})
        raise JudgeConfigError(f"{name} judges {', '.join(judged)} campaigns, not {task_type}; "
                               f"families for {task_type}: {usable}")


def family_get(name: str) -> JudgeFamily:
    """The registered family NAME, or JudgeConfigError listing the ones there are."""
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(FAMILIES))
        if name == "external":
            raise JudgeConfigError("'external' judges hold imported verdicts and cannot be run") from None
        raise JudgeConfigError(f"unknown judge family {name!r} (available: {known})") from None
