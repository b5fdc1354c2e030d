"""How an import's summary is worded for graded items (the formats every graded type takes are tasktypes.graded.
formats')."""

from annotate.task_types.registry import task_type_get


def graded_lines(summary) -> list[str]:
    noun = task_type_get(summary.task_type).item_noun
    out = [
        f"campaign {summary.campaign}: imported {len(summary.files)} path(s) as {summary.format} "
        f"in {summary.seconds:.2f} s",
        f"created: {summary.topics_created} topics, {summary.items_created} {noun}s to grade, "
        f"{summary.system_outputs_created} run lines linked, {summary.human_judgments_created} grades, "
        f"{summary.units_created} units",
        *summary.format_lines(),
    ]
    out.append(f"campaign now: {summary.topics} topics, {summary.items} {noun}s, "
               f"{summary.items_with_human_verdict} with a human grade")
    for name, count, failed in summary.judge_rows():
        out.append(f"{noun}s judged by {name}: {count}" + (f" ({failed} failed)" if failed else ""))
    out.append(f"{noun}s left for assessors: {summary.items_left_for_humans}")
    return out
