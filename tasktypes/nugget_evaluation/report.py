"""The nugget_evaluation report (docs/task-types/nugget_evaluation.md): how the assessors agree on the assignment marks
and each judge with them (Cohen's kappa over the three marks and over supported or not), each run's scores under the
humans and under each judge (scores.py) with intervals over topics, how a judge orders the runs against the humans
(Kendall, Spearman, Pearson, the runs that swap, the per-topic Kendall tau), the same for each combination of whose
nuggets and whose marks (a judge marking the frozen lists, a judge marking a judge's lists: its verdicts' raw names the
list, judging.py's nuggets_from) with how much the run order moves when only the nuggets change (sensitivity), and
what the assessors made of the lists they started from (creation). Every figure carries its n and, where one can be
drawn, a 95% interval.

Reads the campaign in six queries whatever its size (_read); the statistics are numpy over a topic's answers at once.
Only each topic's current round counts: its answers whose round is the version of the topic's frozen list, and the
marks made against that version; a judge marking against a judge's list is read on the same answers, against the list
that judge wrote for the topic (its current verdict on the topic's nuggets item).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from annotate.ids import json_text
from annotate.models import HumanJudgment, Item, JudgmentKind, Topic
from judges.models import Judge, ModelJudgment
from stats import batch_stats, resampling
from stats.correlation import kendall_tau_b, pearson, spearman
from stats.retrieval import swapped_pairs
from stats.system_order import system_correlation_intervals
from stats.uncertainty import (
    bootstrap_method,
    cluster_mean_interval,
    interval_checked,
    put_interval,
    put_order_intervals,
    spread,
    topic_mean_summary,
)
from tasktypes.nugget_evaluation.layout import (
    ANSWER_KIND,
    NUGGETS_KIND,
    ORIGIN_ADDED,
    ORIGIN_EDITED,
    ORIGIN_KEPT,
    SOURCE_JUDGE,
    VITAL,
    topic_list,
)
from tasktypes.nugget_evaluation.scores import (
    HEADLINE,
    SCORES,
    UNMARKED,
    answer_scores,
    marks_codes,
    run_means,
    run_topic_sums,
)

HUMANS = "humans"
# Whose nuggets a judge marks against: the topics' frozen lists, or a judge's ("judge:<name>", judging.nuggets_from).
FROZEN = "frozen"
THREE, BINARY = "three", "binary"
LEVELS = {THREE: 3, BINARY: 2}
# Support against the rest (partial support counted as not supported, as the strict scores count it).
_BINARY_MAP = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
KAPPA_METHOD = (f"Cohen's kappa over nugget marks pooled over answers (scikit-learn's definition, from the summed "
                f"contingency table); per topic {bootstrap_method('answers of the topic')}, overall "
                f"{bootstrap_method('topics')}")
REFERENCE_RULE = ("each nugget's human mark on an answer is the adjudicator's where the answer was adjudicated, else "
                  "the most frequent of its assessors' current marks; among tied marks, that of the earliest "
                  "judgment among them")
RUNS_METHOD = f"a run's mean over topics of an answer's score, {bootstrap_method('topics')}"
ORDER_METHOD = (f"Kendall's tau-b, Spearman's rho and Pearson's r between the runs' mean scores under the humans and "
                f"under the judge, both on the answers that both marked, {bootstrap_method('topics')} (every run's "
                f"score recomputed on each draw)")
COMBINATIONS_METHOD = ("each judge's run scores (its nuggets: the frozen lists or a judge's; its marks) against the "
                       "humans' (the frozen lists, the humans' marks): " + ORDER_METHOD)
SENSITIVITY_METHOD = (f"Kendall's tau-b, Spearman's rho and Pearson's r between the runs' mean scores under two "
                      f"judges of one family that mark against different lists, on the answers both marked, "
                      f"{bootstrap_method('topics')} (every run's score recomputed on each draw)")


@dataclass
class TopicData:
    """One topic's current round: its nuggets, its answers (their item ids and runs), the humans' and judges' marks
    as codes (answers x nuggets, UNMARKED where none)."""

    external_id: str
    version: int
    order: list[str]
    vital: np.ndarray
    items: list[int] = field(default_factory=list)
    runs: list[int] = field(default_factory=list)
    # answer index -> [(annotator, codes)] in the order the judgments were made
    humans: dict[int, list[tuple[str, np.ndarray]]] = field(default_factory=dict)
    # answer index -> the adjudicated codes (the current adjudication), which the humans' mark takes
    adjudicated: dict[int, np.ndarray] = field(default_factory=dict)
    judges: dict[str, np.ndarray] = field(default_factory=dict)
    source: str = ""  # where the frozen list came from (layout.py's SOURCE_*)
    # other list's source -> the person's match of the frozen list with it (matching.py), on this version
    matches: dict[str, dict] = field(default_factory=dict)
    # writer judge -> (its list's nugget ids, which are vital): the lists judges wrote for the topic
    written: dict[str, tuple[list[str], np.ndarray]] = field(default_factory=dict)
    # judge -> (codes answers x nuggets of the list it marks against, which of those are vital)
    listed: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)


@dataclass
class NuggetData:
    topics: list[TopicData] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    judges: dict[str, str] = field(default_factory=dict)  # name -> family
    judge_counts: dict[str, dict[str, int]] = field(default_factory=dict)  # name -> verdicts, failed rows, marks
    judge_lists: dict[str, str] = field(default_factory=dict)  # name -> the judge's list it marks against
    annotators: set[str] = field(default_factory=set)
    creations: list[tuple[str, str, dict]] = field(default_factory=list)  # (topic, annotator, value)


def _read(campaign) -> NuggetData:
    """The campaign's current round in six queries: topics, answers, judges, judge verdicts (on answers, and on
    nuggets items: the lists judges wrote), assignment and creation judgments."""
    data = NuggetData()
    topics: dict[int, TopicData] = {}
    for pk, external_id, nuggets, matches in Topic.objects.filter(campaign=campaign).order_by(
            "external_id").values_list("id", "external_id", "data__nuggets", "data__matches"):
        frozen = topic_list({"nuggets": nuggets})
        if frozen is None:
            continue
        order = [str(nugget["id"]) for nugget in frozen["nuggets"]]
        vital = np.array([nugget.get("importance") == VITAL for nugget in frozen["nuggets"]], dtype=bool)
        topics[pk] = TopicData(external_id=external_id, version=int(frozen["version"]), order=order, vital=vital,
                               source=str(frozen.get("source") or ""),
                               matches={source: match for source, match in (matches or {}).items()
                                        if isinstance(match, dict) and match.get("version") == int(frozen["version"])
                                        and isinstance(match.get("pairs"), dict)})
    runs: dict[str, int] = {}
    where: dict[int, tuple[TopicData, int]] = {}  # item -> (its topic, its answer index there)
    rows = (Item.objects.filter(campaign=campaign, kind=ANSWER_KIND).order_by("id")
            .values_list("id", "topic_id", json_text("data__run"), json_text("data__round")))
    for pk, topic_id, run, round_ in rows:
        topic = topics.get(topic_id)
        if topic is None or int(round_ or 1) != topic.version:
            continue
        where[pk] = (topic, len(topic.items))
        topic.items.append(pk)
        topic.runs.append(runs.setdefault(run or "", len(runs)))
    data.runs = list(runs)
    data.judges = dict(Judge.objects.filter(campaign=campaign).order_by("name").values_list("name", "family"))
    data.judge_counts = {name: {"verdicts": 0, "failed_verdicts": 0, "failed_marks": 0, "unread_verdicts": 0}
                         for name in data.judges}
    verdicts = (ModelJudgment.objects.filter(judge__campaign=campaign, item__kind__in=(ANSWER_KIND, NUGGETS_KIND))
                .values_list("judge__name", "item_id", "item__topic_id", "item__kind", "failed", "raw"))
    # (judge, topic, answer index, the list it names, marks): read once every judge's lists are
    against_lists: list[tuple[str, TopicData, int, str, dict]] = []
    for name, item, topic_id, kind, failed, raw in verdicts:
        if kind == NUGGETS_KIND:
            _written_put(topics.get(topic_id), name, failed, raw)
            continue
        found = where.get(item)
        if found is None:
            continue
        counts = data.judge_counts[name]
        if failed:
            counts["failed_verdicts"] += 1
            continue
        parsed = _parsed(raw)
        topic, index = found
        if parsed.get("version", topic.version) != topic.version:
            continue
        counts["verdicts"] += 1
        marks: dict = parsed["marks"] if isinstance(parsed.get("marks"), dict) else {}
        # A nugget the judge's reply did not settle is failed: no mark.
        for nugget in parsed.get("failed") or {}:
            marks.pop(nugget, None)
        counts["failed_marks"] += len(parsed.get("failed") or {})
        if "list" in parsed:
            against_lists.append((name, topic, index, str(parsed["list"]), marks))
            continue
        matrix = topic.judges.get(name)
        if matrix is None:
            matrix = topic.judges[name] = np.full((len(topic.items), len(topic.order)), UNMARKED, dtype=np.int8)
        matrix[index] = marks_codes(topic.order, marks)
    _against_lists_put(data, against_lists)
    judgments = (HumanJudgment.objects.filter(unit__campaign=campaign, is_current=True, unit__item__kind=ANSWER_KIND,
                                              kind__in=(JudgmentKind.ANNOTATION, JudgmentKind.ADJUDICATION))
                 .order_by("created_at", "id").values_list("unit__item_id", "annotator__username", "value", "kind"))
    for item, annotator, value, kind in judgments:
        found = where.get(item)
        if found is None or not isinstance(value, dict) or not isinstance(value.get("marks"), dict):
            continue
        topic, index = found
        if value.get("version") != topic.version:
            continue
        if kind == JudgmentKind.ADJUDICATION:  # the last current one: a unit has one
            topic.adjudicated[index] = marks_codes(topic.order, value["marks"])
            continue
        data.annotators.add(annotator)
        topic.humans.setdefault(index, []).append((annotator, marks_codes(topic.order, value["marks"])))
    creations = (HumanJudgment.objects.filter(unit__campaign=campaign, kind=JudgmentKind.ANNOTATION, is_current=True,
                                              unit__item__kind=NUGGETS_KIND)
                 .order_by("unit__topic__external_id", "created_at", "id")
                 .values_list("unit__topic__external_id", "annotator__username", "value"))
    data.creations = [(topic, annotator, value) for topic, annotator, value in creations if isinstance(value, dict)]
    data.topics = [topic for topic in topics.values() if topic.items]
    return data


def _written_put(topic: TopicData | None, name: str, failed: bool, raw: str) -> None:
    """Keep the list judge NAME wrote for TOPIC (its verdict on the topic's nuggets item) when it can be read."""
    nuggets = _parsed(raw).get("nuggets") if topic is not None and not failed else None
    if not isinstance(nuggets, list) or not nuggets or not all(isinstance(n, dict) and "id" in n for n in nuggets):
        return
    topic.written[name] = ([str(nugget["id"]) for nugget in nuggets],
                           np.array([nugget.get("importance") == VITAL for nugget in nuggets], dtype=bool))


def _against_lists_put(data: NuggetData, against: list[tuple[str, TopicData, int, str, dict]]) -> None:
    """The marks of judges marking against a judge's list, as codes over that list on each topic. A judge marks
    against one list (nuggets_from is part of its identity): the first one its verdicts name; a verdict whose list
    the report cannot find (another source, a list since failed or gone) is not read."""
    for name, topic, index, source, marks in against:
        chosen = data.judge_lists.setdefault(name, source)
        written = topic.written.get(source[len(SOURCE_JUDGE):]) if source.startswith(SOURCE_JUDGE) else None
        if source != chosen or written is None:
            data.judge_counts[name]["verdicts"] -= 1
            data.judge_counts[name]["unread_verdicts"] += 1
            continue
        order, vital = written
        if name not in topic.listed:
            topic.listed[name] = (np.full((len(topic.items), len(order)), UNMARKED, dtype=np.int8), vital)
        topic.listed[name][0][index] = marks_codes(order, marks)


def _parsed(raw: str) -> dict:
    try:
        parsed = json.loads(raw or "{}")
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def reference_codes(marks: list[np.ndarray]) -> np.ndarray:
    """The human mark of each nugget from the assessors' MARKS (their codes, in the order the judgments were made):
    the most frequent mark; among tied marks, the earliest judgment's among them (REFERENCE_RULE); UNMARKED where
    no assessor marked the nugget."""
    stacked = np.stack(marks).astype(np.int64)
    if len(marks) == 1:
        return stacked[0].astype(np.int8)
    counts = np.stack([(stacked == code).sum(axis=0) for code in range(3)], axis=1)  # nuggets x 3
    best = counts == counts.max(axis=1, keepdims=True)
    chosen = np.full(stacked.shape[1], UNMARKED, dtype=np.int64)
    for row in stacked:  # earliest first: the first whose mark is among the most frequent
        take = (chosen == UNMARKED) & (row >= 0) & best[np.arange(len(row)), np.maximum(row, 0)]
        chosen[take] = row[take]
    chosen[counts.sum(axis=1) == 0] = UNMARKED
    return chosen.astype(np.int8)


def _answer_tables(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Per answer (rows of FIRST and SECOND, codes answers x nuggets) its 3 x 3 contingency table of the nuggets both
    marked, flattened: (answers, 9), FIRST's mark by row."""
    both = (first >= 0) & (second >= 0)
    answer = np.broadcast_to(np.arange(first.shape[0])[:, np.newaxis], first.shape)
    cell = answer[both] * 9 + first[both].astype(np.int64) * 3 + second[both].astype(np.int64)
    return np.bincount(cell, minlength=first.shape[0] * 9).reshape(first.shape[0], 9).astype(float)


def _binary(tables: np.ndarray) -> np.ndarray:
    """3 x 3 tables (rows, 9) as support-or-not 2 x 2 tables (rows, 4)."""
    square = tables.reshape(-1, 3, 3)
    return np.einsum("ia,nij,jb->nab", _BINARY_MAP, square, _BINARY_MAP).reshape(len(tables), 4)


def _kappa_statistic(levels: int):
    def statistic(sums: np.ndarray) -> list[np.ndarray]:
        drawn = sums.reshape(-1, levels, levels)
        return [batch_stats.kappa_of_tables(drawn), batch_stats.agreement_of_tables(drawn)]

    return statistic


def _finite(value) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def _kappa_figures(tables: np.ndarray, *, levels: int, units: str) -> dict:
    """Cohen's kappa and the agreement rate of the summed TABLES (one row per unit: an answer or a topic), with their
    intervals resampling those units."""
    total = tables.sum(axis=0)
    n = int(total.sum())
    square = total.reshape(1, levels, levels)
    block = {"n": n,
             "cohen_kappa": _finite(batch_stats.kappa_of_tables(square)[0]) if n >= 2 else None,
             "accuracy": _finite(batch_stats.agreement_of_tables(square)[0]) if n else None}
    used = tables[tables.sum(axis=1) > 0]
    intervals = (resampling.sum_bootstrap(used, _kappa_statistic(levels)) if len(used) >= 2 else [None, None])
    for key, interval in zip(("cohen_kappa", "accuracy"), intervals, strict=True):
        put_interval(block, key, interval, units=len(used), noun=units)
    return block


def _kappa_block(per_answer: list[np.ndarray], topics: list[TopicData]) -> dict:
    """Agreement over PER_ANSWER (per topic: its answers' 3 x 3 tables): over the three marks and over supported or
    not, overall (intervals over topics) and per topic (intervals over its answers)."""
    block: dict = {}
    for variant, levels in LEVELS.items():
        tables = [t if variant == THREE else _binary(t) for t in per_answer]
        per_topic = []
        for topic, answers in zip(topics, tables, strict=True):
            if answers.sum() == 0:
                continue
            figures = _kappa_figures(answers, levels=levels, units="answers")
            per_topic.append({"topic": topic.external_id, "n_answers": int((answers.sum(axis=1) > 0).sum()),
                              **figures})
        topic_tables = np.array([answers.sum(axis=0) for answers in tables]) if tables else np.zeros((0, levels ** 2))
        overall = _kappa_figures(topic_tables, levels=levels, units="topics")
        overall["n_answers"] = sum(row["n_answers"] for row in per_topic)
        overall["n_topics"] = len(per_topic)
        overall["table"] = topic_tables.sum(axis=0).reshape(levels, levels).astype(int).tolist() if tables else []
        block[variant] = {**overall, "per_topic": per_topic}
    return block


def _assessor_tables(topic: TopicData) -> np.ndarray:
    """The topic's answers' tables over every pair of assessors who marked the same answer."""
    tables = np.zeros((len(topic.items), 9))
    for index, marks in topic.humans.items():
        for i in range(len(marks)):
            for j in range(i + 1, len(marks)):
                tables[index] += _answer_tables(marks[i][1][np.newaxis], marks[j][1][np.newaxis])[0]
    return tables


def _source_scores(codes_by_topic: list[np.ndarray], topics: list[TopicData]) -> dict[str, np.ndarray]:
    """Every answer's scores (concatenated over TOPICS in order) from the codes of each topic's answers."""
    parts = [answer_scores(codes, topic.vital) for codes, topic in zip(codes_by_topic, topics, strict=True)]
    return {name: np.concatenate([part[name] for part in parts]) if parts else np.zeros(0) for name in SCORES}


def _listed_scores(name: str, topics: list[TopicData]) -> dict[str, np.ndarray]:
    """Every answer's scores under judge NAME's marks against the judge's list it names (undefined on a topic where
    that list is not found)."""
    parts = []
    for topic in topics:
        codes, vital = topic.listed.get(name, (np.full((len(topic.items), 0), UNMARKED, dtype=np.int8),
                                               np.zeros(0, dtype=bool)))
        parts.append(answer_scores(codes, vital))
    return {score: np.concatenate([part[score] for part in parts]) if parts else np.zeros(0) for score in SCORES}


def _value(x) -> float | None:
    return None if x is None or not np.isfinite(x) else float(x)


def _runs_block(scores: dict[str, np.ndarray], runs: np.ndarray, topics: np.ndarray, *, n_runs: int,
                n_topics: int) -> dict[str, dict]:
    """score -> {"mean", "ci95", "n_topics"} lists over the runs (rows of the runs table)."""
    out = {}
    for name in SCORES:
        sums, counts = run_topic_sums(scores[name], runs, topics, n_runs=n_runs, n_topics=n_topics)
        means, intervals, covered = run_means(sums, counts)
        shown = [interval_checked(interval, value=mean, units=units, noun="topics")
                 for mean, interval, units in zip(means, intervals, covered, strict=True)]
        out[name] = {"mean": means, "ci95": [interval for interval, _ in shown],
                     "ci_note": [note for _, note in shown], "n_topics": covered}
    return out


def _order_block(human: np.ndarray, judge: np.ndarray, runs: np.ndarray, topics: np.ndarray, names: list[str], *,
                 n_topics: int, topic_names: list[str]) -> dict:
    """How the judge orders the runs against the humans on one score (HUMAN and JUDGE: every answer's), on the
    answers both scored: correlations with intervals over topics, the runs that swap, the per-topic Kendall tau."""
    both = np.isfinite(human) & np.isfinite(judge)
    h_sums, counts = run_topic_sums(np.where(both, human, np.nan), runs, topics, n_runs=len(names), n_topics=n_topics)
    j_sums, _ = run_topic_sums(np.where(both, judge, np.nan), runs, topics, n_runs=len(names), n_topics=n_topics)
    present = counts.sum(axis=1) > 0
    keep = np.flatnonzero(present)
    h_mean = h_sums[keep].sum(axis=1) / counts[keep].sum(axis=1)
    j_mean = j_sums[keep].sum(axis=1) / counts[keep].sum(axis=1)
    used_topics = int((counts[keep].sum(axis=0) > 0).sum())
    block: dict = {"n_systems": len(keep), "n_topics": used_topics, "n_answers": int(both.sum()),
                   "kendall_tau_b": kendall_tau_b(h_mean, j_mean) if len(keep) >= 2 else None,
                   "spearman": spearman(h_mean, j_mean) if len(keep) >= 2 else None,
                   "pearson": pearson(h_mean, j_mean) if len(keep) >= 2 else None,
                   "method": ORDER_METHOD}
    topic_cols = counts[keep].sum(axis=0) > 0
    intervals = (system_correlation_intervals(h_sums[keep][:, topic_cols], j_sums[keep][:, topic_cols],
                                              counts[keep][:, topic_cols]) if len(keep) >= 2 else {})
    put_order_intervals(block, intervals, ("kendall_tau_b", "spearman", "pearson"), systems=len(keep),
                        topics=used_topics, systems_word="runs")
    swapped = swapped_pairs({names[r]: float(v) for r, v in zip(keep, h_mean, strict=True)},
                            {names[r]: float(v) for r, v in zip(keep, j_mean, strict=True)})
    block.update(swapped)
    # Per topic: the runs' human and judge scores there, ordered against each other.
    rows: list[dict] = []
    for t in range(n_topics):
        here = counts[:, t] > 0
        if here.sum() < 2:
            continue
        x, y = h_sums[here, t] / counts[here, t], j_sums[here, t] / counts[here, t]
        rows.append({"topic": topic_names[t], "n_runs": int(here.sum()), "kendall_tau_b": kendall_tau_b(x, y)})
    taus: list[float | None] = [row["kendall_tau_b"] for row in rows]
    defined = np.array([tau for tau in taus if tau is not None], dtype=float)
    summary = {**spread(taus), **topic_mean_summary(taus)}
    summary["quartiles"] = [float(q) for q in np.percentile(defined, [25, 50, 75])] if defined.size else None
    block["per_topic"] = {"rows": rows, "summary": summary}
    return block


def _order_compact(block: dict, *, method: str) -> dict:
    """An order block (_order_block's) without its per-topic rows: the correlations with n and intervals, the runs
    that swap and the per-topic tau's summary."""
    return {**{key: value for key, value in block.items() if key != "per_topic"},
            "per_topic": block["per_topic"]["summary"], "method": method}


def _nuggets_words(nuggets: str, name: str) -> str:
    if nuggets == FROZEN:
        return "the frozen lists"
    writer = nuggets[len(SOURCE_JUDGE):]
    return f"{writer}'s lists (its own)" if writer == name else f"{writer}'s lists"


def _combinations_block(judges: dict[str, dict], scores: dict[str, dict[str, np.ndarray]], topics: list[TopicData],
                        orders: dict) -> dict:
    """The humans' run scores (the frozen lists, the humans' marks) against each judge's (its nuggets, its marks),
    by condition; and, for two judges of one family marking against different lists, how the runs' order moves
    with whose nuggets are used. ORDERS: the arguments _order_block takes beside the two scorings."""
    marking = {name: block for name, block in judges.items() if block["verdicts"]}
    rows = [{"judge": name, "family": block["family"], "nuggets": block["nuggets"],
             "nuggets_words": _nuggets_words(block["nuggets"], name), "marks": name,
             "condition": "frozen nuggets, judge marks" if block["nuggets"] == FROZEN else "judge nuggets, judge marks",
             "runs": {score: _order_compact(block["runs"][score], method=COMBINATIONS_METHOD) for score in SCORES}}
            for name, block in marking.items()]
    sensitivity = []
    for first, second in combinations(marking, 2):
        a, b = marking[first], marking[second]
        if a["family"] != b["family"] or a["nuggets"] == b["nuggets"]:
            continue
        if b["nuggets"] == FROZEN:  # the frozen lists' judge first
            (first, a), (second, b) = (second, b), (first, a)
        runs = {score: _order_compact(_order_block(scores[first][score], scores[second][score], **orders),
                                      method=SENSITIVITY_METHOD) for score in SCORES}
        sensitivity.append({"family": a["family"], "first": first, "second": second, "first_nuggets": a["nuggets"],
                            "second_nuggets": b["nuggets"], "runs": runs})
    frozen_sources: dict[str, int] = {}
    for topic in topics:
        frozen_sources[topic.source] = frozen_sources.get(topic.source, 0) + 1
    return {"rows": rows, "sensitivity": sensitivity, "frozen_sources": dict(sorted(frozen_sources.items())),
            "method": COMBINATIONS_METHOD, "sensitivity_method": SENSITIVITY_METHOD}


def _creation_block(creations: list[tuple[str, str, dict]]) -> dict:
    """What the assessors did to the list they started from: per list, how many of its nuggets were kept, edited,
    added, removed; per source, the share of the assessors' nuggets kept or edited from it (its recovery)."""
    rows: list[dict] = []
    by_source: dict[str, dict[str, list[float]]] = {}
    for topic, annotator, value in creations:
        nuggets = [nugget for nugget in value.get("nuggets") or [] if isinstance(nugget, dict)]
        origins = [nugget.get("origin", ORIGIN_ADDED) for nugget in nuggets]
        source = value.get("started_from") or ""
        kept, edited = origins.count(ORIGIN_KEPT), origins.count(ORIGIN_EDITED)
        row = {"topic": topic, "annotator": annotator, "started_from": source, "n_nuggets": len(nuggets),
               "vital": sum(nugget.get("importance") == VITAL for nugget in nuggets), "kept": kept,
               "edited": edited, "added": origins.count(ORIGIN_ADDED), "removed": len(value.get("removed") or []),
               "recovery": (kept + edited) / len(nuggets) if source and nuggets else None}
        rows.append(row)
        if source and nuggets:
            by_source.setdefault(source, {}).setdefault(topic, []).extend(
                1.0 if origin in (ORIGIN_KEPT, ORIGIN_EDITED) else 0.0 for origin in origins)
    sources = {}
    for source, topics in sorted(by_source.items()):
        values = [value for values in topics.values() for value in values]
        block = {"n": len(values), "n_lists": sum(row["started_from"] == source for row in rows),
                 "n_topics": len(topics), "recovery": float(np.mean(values)),
                 "recovered": int(sum(values)), "recovery_method": (
                     f"share of the assessors' nuggets kept or edited from the source's, pooled; "
                     f"{bootstrap_method('topics')}")}
        put_interval(block, "recovery", cluster_mean_interval(list(topics.values())), units=len(topics),
                     noun="topics")
        sources[source] = block
    totals = {key: sum(row[key] for row in rows) for key in ("n_nuggets", "kept", "edited", "added", "removed")}
    return {"n_lists": len(rows), "rows": rows, "sources": sources, "totals": totals}


def _matched_block(topics: list[TopicData]) -> dict:
    """Per other list (a judge's, an imported one), the share of the frozen lists' nuggets a person matched with one
    of its nuggets (matching.py): pooled over the topics matched, with an interval over topics; also over the vital
    nuggets alone."""
    by_source: dict[str, dict[str, tuple[list[float], list[float]]]] = {}
    for topic in topics:
        for source, match in topic.matches.items():
            found = [1.0 if match["pairs"].get(nugget) else 0.0 for nugget in topic.order]
            vital = [value for value, is_vital in zip(found, topic.vital, strict=True) if is_vital]
            by_source.setdefault(source, {})[topic.external_id] = (found, vital)
    out = {}
    for source, per_topic in sorted(by_source.items()):
        every = [values for values, _ in per_topic.values()]
        vital = [values for _, values in per_topic.values() if values]
        pooled = [value for values in every for value in values]
        block = {"n": len(pooled), "n_topics": len(per_topic), "matched": int(sum(pooled)),
                 "recovery": float(np.mean(pooled)) if pooled else None,
                 "n_vital": sum(map(len, vital)),
                 "vital_recovery": float(np.mean([v for values in vital for v in values])) if vital else None,
                 "recovery_method": (f"share of the frozen lists' nuggets matched by a person with one of the "
                                     f"source's, pooled; {bootstrap_method('topics')}")}
        put_interval(block, "recovery", cluster_mean_interval(every), units=len(every), noun="topics")
        if vital:
            put_interval(block, "vital_recovery", cluster_mean_interval(vital), units=len(vital), noun="topics")
        out[source] = block
    return out


def nugget_report_build(*, campaign) -> dict:
    """CAMPAIGN's nugget report (module docstring; the document's keys in docs/task-types/nugget_evaluation.md). Reads a
    fixed number of queries."""
    data = _read(campaign)
    topics = data.topics
    runs_of = np.concatenate([np.asarray(topic.runs, dtype=np.int64) for topic in topics]) if topics else \
        np.zeros(0, dtype=np.int64)
    topic_of = np.concatenate([np.full(len(topic.items), t, dtype=np.int64) for t, topic in enumerate(topics)]) \
        if topics else np.zeros(0, dtype=np.int64)
    topic_names = [topic.external_id for topic in topics]
    # The humans' mark of each nugget on each answer (REFERENCE_RULE).
    reference = []
    for topic in topics:
        matrix = np.full((len(topic.items), len(topic.order)), UNMARKED, dtype=np.int8)
        for index, marks in topic.humans.items():
            matrix[index] = reference_codes([codes for _, codes in marks])
        for index, codes in topic.adjudicated.items():
            matrix[index] = np.where(codes != UNMARKED, codes, matrix[index])
        reference.append(matrix)
    judge_codes = {name: [topic.judges.get(name, np.full((len(topic.items), len(topic.order)), UNMARKED,
                                                          dtype=np.int8)) for topic in topics]
                   for name in data.judges}
    # A judge marking against a judge's list is scored under that list; the others under the frozen lists.
    scores = {HUMANS: _source_scores(reference, topics),
              **{name: _listed_scores(name, topics) if name in data.judge_lists else _source_scores(codes, topics)
                 for name, codes in judge_codes.items()}}
    n_runs, n_topics = len(data.runs), len(topics)
    runs_by_source = {source: _runs_block(found, runs_of, topic_of, n_runs=n_runs, n_topics=n_topics)
                      for source, found in scores.items()}
    run_rows = [{"run": run, "sources": {source: {name: {"mean": block[name]["mean"][r],
                                                          "ci95": block[name]["ci95"][r],
                                                          "ci_note": block[name]["ci_note"][r],
                                                          "n_topics": block[name]["n_topics"][r]}
                                                   for name in SCORES}
                                          for source, block in runs_by_source.items()}}
                for r, run in enumerate(data.runs)]
    judges = {}
    orders_of = {"runs": runs_of, "topics": topic_of, "names": data.runs, "n_topics": n_topics,
                 "topic_names": topic_names}
    for name, family in data.judges.items():
        agreement = _kappa_block([_answer_tables(judge, human) for judge, human in
                                  zip(judge_codes[name], reference, strict=True)], topics)
        orders = {score: _order_block(scores[HUMANS][score], scores[name][score], **orders_of) for score in SCORES}
        item = {key: value for key, value in agreement[THREE].items() if key != "per_topic"}
        judges[name] = {"family": family, **data.judge_counts[name], "nuggets": data.judge_lists.get(name, FROZEN),
                        "item": item, "assignment": agreement, "runs": orders, "system": orders[HEADLINE]}
    assessors = _kappa_block([_assessor_tables(topic) for topic in topics], topics)
    answers = [{"topic": topic.external_id, "run": data.runs[run], "item": item,
                "n_humans": len(topic.humans.get(i, ()))}
               for topic in topics for i, (item, run) in enumerate(zip(topic.items, topic.runs, strict=True))]
    answer_scores_ = {source: {name: [_value(x) for x in values] for name, values in found.items()}
                      for source, found in scores.items()}
    humans_marked = sum(len(topic.humans) for topic in topics)
    return {
        "campaign": campaign.slug,
        "task_type": campaign.task_type,
        "humans": {"annotators": len(data.annotators), "answers_marked": humans_marked,
                   "judgments": sum(len(marks) for topic in topics for marks in topic.humans.values()),
                   "answers_adjudicated": sum(len(topic.adjudicated) for topic in topics),
                   "reference_rule": REFERENCE_RULE},
        "n_topics": n_topics,
        "n_runs": n_runs,
        "n_answers": len(answers),
        "n_nuggets": sum(len(topic.order) for topic in topics),
        "scores": list(SCORES),
        "headline": HEADLINE,
        "assessors": assessors,
        "judges": judges,
        "runs": {"rows": run_rows, "sources": [HUMANS, *data.judges], "method": RUNS_METHOD},
        "answers": {"rows": answers, "scores": answer_scores_},
        "combinations": _combinations_block(judges, scores, topics, orders_of),
        "creation": {**_creation_block(data.creations), "matched": _matched_block(topics)},
        "systems": [],
        "method": KAPPA_METHOD,
    }
