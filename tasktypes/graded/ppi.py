"""Humans and each judge together on a graded campaign's runs (reports.ppi): per measure (NDCG@10, P@10 and the mean
grade of the first 10 documents), a run's value on a topic is its per-query measure under the humans' grades and
under the judge's, the topic the unit (a
query's documents are graded together, and the measure is one number a query). A topic is labelled where the humans
graded every pooled item of it: a topic graded in part would score the rest as unjudged, not relevant. The active and
stratified plans spend labels on the topics whose items the campaign's other judges grade differently from this one
(no other judge: the uniform plan). A judge read on one part of a development split has no block: its part's topics
are not a sample drawn by any plan. docs/statistics/ppi.md.
"""

from __future__ import annotations

from reports.ppi import (
    Measure,
    Recorded,
    Units,
    committees,
    disagreement_by_topic,
    measure_block,
    ppi_options,
    ppi_section,
)
from reports.selectors import JudgeScores
from stats import retrieval

MEASURES = (Measure("ndcg_cut_10", "NDCG@10"), Measure("p_10", "P@10"))
MEAN_GRADE = "mean_grade_10"  # the mean grade of a run's first 10 documents (stats.retrieval.mean_grade_per_topic)


def labelled_topics(human_grade: dict[int, int], items: dict[int, tuple[str, str]]) -> set[str]:
    """The topics every pooled item of which has a human grade (HUMAN_GRADE: item -> grade; ITEMS: item -> (topic,
    doc))."""
    topics = {topic for topic, _ in items.values()}
    return topics - {topic for item, (topic, _) in items.items() if item not in human_grade}


def graded_ppi(*, judges: list[JudgeScores], judge_labels: list[tuple[str, str, dict[int, str]]],
               human_grade: dict[int, int], items: dict[int, tuple[str, str]],
               per_topic_human: dict[str, dict[str, dict[str, float]]],
               per_topic_judges: dict[str, dict[str, dict[str, dict[str, float]]]], options: dict,
               qrels: dict[str | None, dict[str, dict[str, int]]], runs: dict[str, dict], levels: list[int],
               plan: tuple[str, list[list]] | None = None) -> dict | None:
    """The report's `ppi` block (reports.ppi.ppi_section) of a graded campaign: per measure of MEASURES and judge, its
    runs' values by topic under the humans' consensus grades (PER_TOPIC_HUMAN: run -> measure -> topic -> value), on
    the labelled topics only, and under the judge's (PER_TOPIC_JUDGES: judge -> the same); then each run's mean grade
    of its first 10 documents on the grades of LEVELS, from QRELS (None: the humans' consensus; a judge's name: its
    grades) and RUNS (name -> {"run": topic -> doc -> score}); JUDGE_LABELS: (name, family, {item: its grade}) for
    the active plan's committee."""
    per_topic_human = {run: {**by_measure, MEAN_GRADE: retrieval.mean_grade_per_topic(
        qrels[None], runs[run]["run"], levels=levels)} for run, by_measure in per_topic_human.items()}
    per_topic_judges = {name: {run: {**by_measure, MEAN_GRADE: retrieval.mean_grade_per_topic(
        qrels[name], runs[run]["run"], levels=levels)} for run, by_measure in by_run.items()}
        for name, by_run in per_topic_judges.items() if name in qrels}
    measures = (*MEASURES, Measure(MEAN_GRADE, "mean grade@10", (0.0, float(max(levels)))))
    settings = ppi_options(options)
    recorded = Recorded.of(plan, by_id=False)
    labelled = labelled_topics(human_grade, items)
    topic_of = {item: topic for item, (topic, _) in items.items()}
    grades = {name: labels for name, _, labels in judge_labels}
    found = committees(grades)
    whole = [judge.name for judge in judges if judge.part is None]
    errors = {name: disagreement_by_topic(grades[name], found[name], topic_of) for name in whole}
    sections = []
    for measure in measures:
        blocks = {}
        for name in whole:
            values = {run: ({topic: value for topic, value in per_topic_human[run][measure.key].items()
                             if topic in labelled}, by_measure[measure.key])
                      for run, by_measure in per_topic_judges[name].items()}
            block = measure_block(Units.from_values(values, errors[name]), options=settings, measure=measure,
                                  recorded=recorded)
            if block is not None:
                blocks[name] = block
        sections.append((measure, blocks))
    return ppi_section(sections, options=options, unit_one="topic")
