"""The report of a graded relevance campaign (tasktypes.graded): images for a text (docs/design.md §1.2, Yang & Lin,
LLM4Eval 2024) or passages for a query (§1.5, TREC Deep Learning). The task type says what its items are
(item_kind, item_noun) and which Item.data key holds the doc id that runs and qrels name (doc_key).

- Grades: humans grade on the campaign's scale (the task type's default unless its option `scale` says otherwise);
  an item's human grade is the adjudicated one, else the assessors' majority
  (ties have none). A judge's scores become grades by its mapping rule (stats.grades): the quantile rule
  by default, or thresholds fitted on the human grades with cross-validation when the campaign's options say
  `"grade_mapping": {"<judge>": "fitted"}`; a judge whose verdicts are grades already (imported) keeps them.
- Item level, the human grade against the judge's over the items both graded: Cohen's kappa (unweighted, linear-
  and quadratic-weighted), Krippendorff's alpha (ordinal and nominal, the two as raters), kappa on relevant or
  not (from the campaign's relevant_from grade up), the agreement rate, and the confusion matrix (rows: the human
  grade, columns: the judge's); overall with 95% intervals from a bootstrap over topics, and per topic.
- System level: every stored run is scored with NDCG@10, MAP and P@10, and with the measures a TREC DL / RAG track
  reports (nDCG@20, nDCG@100, R@100, R@1000, Judged@10: ir_measures; the binary ones from relevant_from; and Clarke's
  compatibility with the persistence option compat_p, stats.compatibility), per topic and as the mean, under
  the consensus qrels (the human grades), under each assessor's qrels, and under each judge's qrels (its grades of
  every item it scored); per measure, Kendall's tau-b, Spearman and Pearson between the run orders, and the
  pairs of runs the two orders swap; agreement at the top of the two orders (stats.rank_agreement: tau-AP of the
  judge's order against the humans', RBO with the option rbo_p, overlap@k and tau-b@k with top_k) with intervals
  from the same resamples; Relative Δ of the runs carrying the bias tag (the campaign's `"bias_tag"`
  option, else the first tag of any run).
- Leaderboards imported from automatic judges (format trec-leaderboard, judges.models.Leaderboard): each against
  the humans' (consensus) figures by the same system-level block, per measure both have, with intervals where the
  leaderboard gives per-topic values (a leaderboard of means only says why it has none).
- Each judge's raw scores as a CDF (101 quantiles) beside the human grades' shares.
- The humans and each judge together (tasktypes.graded.ppi): each run's NDCG@10, P@10 and mean grade of its first
  10 documents from the human grades of the topics graded and the judge's grades of every topic, PPI++ with the
  topic as the unit.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import numpy as np
from sklearn.metrics import confusion_matrix

from annotate.models import Campaign
from annotate.task_types.registry import task_type_get
from judges.families import CUTTING_FAMILIES
from reports.adjudication import adjudication_items_block
from reports.beside import beside
from reports.budget import graded_budget
from reports.build_steps import HUMANS, JUDGES, READING, SYSTEM_LEVEL, build_step
from reports.categories import categories_block
from reports.humans import humans_block, selected_annotators
from reports.replacement import replacement_block
from reports.selectors import (
    HumanLabels,
    JudgeScores,
    graded_items_get,
    human_labels_get,
    input_cuts_get,
    item_categories_get,
    judge_scores_get,
    label_plan_get,
    leaderboards_get,
)
from reports.system_level import SMALL_SYSTEMS
from stats import compatibility, correlation, interrater, rank_agreement, retrieval, uncertainty
from stats import grades as grading
from stats.budget import target_width
from tasktypes.graded.ppi import graded_ppi

SMALL_SAMPLE = 30  # fewer shared items than this: a small sample (campaign option small_sample)
# Every measure the runs are scored with, in the report's order, and how the page and the CSVs name it (the binary
# ones count from the campaign's relevant_from grade). The published studies' three lead (the runs table, the
# scatter); the track's follow, each in its own table on the page.
MEASURES = list(retrieval.RUN_MEASURES)
MEASURE_NAMES = {"ndcg_cut_10": "NDCG@10", "map": "MAP", "p_10": "P@10", "ndcg_cut_20": "NDCG@20",
                 "ndcg_cut_100": "NDCG@100", "recall_100": "R@100", "recall_1000": "R@1000", "judged_10": "Judged@10",
                 retrieval.COMPAT: "Compat"}
MAIN, TRACK = "main", "track"
# The statistics between two run orders that resampling topics gives intervals for.
ORDER_INTERVAL_KEYS = ("kendall_tau_b", "spearman", "pearson", *rank_agreement.TOP_INTERVAL_KEYS)
MEASURE_GROUPS = {**dict.fromkeys(retrieval.IR_MEASURES, MAIN), **dict.fromkeys(retrieval.TRACK_MEASURES, TRACK),
                  retrieval.COMPAT: TRACK}


def runs_get(*, campaign: Campaign) -> dict[str, dict]:
    """{run: {"tags": [...], "run": {topic: {doc id: score}}}} from the campaign's stored runs (no query)."""
    from interchange.importers.runs_pool import stored_runs

    meta = (campaign.options or {}).get("runs") or {}
    return {name: {"tags": list(meta[name].get("tags") or []), "run": run}
            for name, run in stored_runs(campaign, meta).items()}


def report_measures(report: dict) -> list[dict]:
    """The measures a graded REPORT scored its runs with: [{"key", "label", "group"}] (group MAIN or TRACK). A report
    stored before the track's measures were added has none listed: its three."""
    return report.get("measures") or [{"key": key, "label": MEASURE_NAMES[key], "group": MAIN}
                                      for key in retrieval.IR_MEASURES]


def _grades(labels: dict[int, str], items: dict, levels: list[int]) -> dict[int, int]:
    """Item -> grade, for the labels that are grades of LEVELS."""
    text = {str(level) for level in levels}
    return {item: int(label) for item, label in labels.items() if item in items and label in text}


def graded_report_build(*, campaign: Campaign) -> dict:
    """The report document of a graded relevance campaign (see the module's docstring), JSON-ready."""
    build_step(READING)
    humans = human_labels_get(campaign=campaign)
    items = graded_items_get(campaign=campaign)
    judges = judge_scores_get(campaign=campaign)
    runs = runs_get(campaign=campaign)
    options = campaign.options or {}
    spec = task_type_get(campaign.task_type)
    levels, rel = spec.levels(campaign), spec.relevant_from(campaign)
    human_grade = _grades(humans.item_label, items, levels)
    top = rank_agreement.rank_options(options)
    tag = options.get("bias_tag") or next(iter(sorted({t for run in runs.values() for t in run["tags"]})), None)

    compat_p = float(options.get("compat_p", compatibility.COMPAT_P))
    measure = {"relevant_from": rel, "measures": MEASURES, "compat_p": compat_p}  # run_measures' arguments

    build_step(HUMANS)
    consensus = _qrels(human_grade, items)
    assessors = _assessor_qrels(humans, items, levels)
    per_topic_human = {name: retrieval.run_measures_per_topic(consensus, run["run"], **measure)
                       for name, run in runs.items()}
    systems = {name: {"system": name, "tags": run["tags"],
                      "human": retrieval.run_measures_mean(per_topic_human[name]),
                      "assessors": {who: retrieval.run_measures(qrels, run["run"], **measure)
                                    for who, qrels in assessors.items()},
                      "judges": {},
                      # Each mean with its n (topics) and 95% interval, under the humans' qrels and each judge's.
                      "means": {"human": None, "judges": {}}}
               for name, run in sorted(runs.items())}
    for name, block in _run_means(per_topic_human).items():
        systems[name]["means"]["human"] = block
    cuts = input_cuts_get(campaign=campaign) if any(j.family in CUTTING_FAMILIES for j in judges) else {}
    build_step(JUDGES)
    judge_blocks = {}
    judge_labels = []  # (name, family, {item: grade as a label}): the adjudication block compares them
    judge_qrels: dict[str | None, dict] = {None: consensus}  # each judge's qrels, the humans' under None
    per_topic_judges = {}  # judge -> run -> measure -> topic -> value: the budget block resamples them
    per_topic_humans = {}  # judge -> the same under the human qrels it is compared with
    # A judge read on one part of a development split is compared with the humans' grades of that part only, item
    # and run level: its figures are those of a campaign holding its part alone (the other part's items are no
    # more judged by the humans than by the judge). One human side per part.
    sides = {None: (human_grade, per_topic_human, systems)}
    for part in {judge.part for judge in judges} - {None}:
        grades_here = {item: grade for item, grade in human_grade.items() if item in part}
        per_topic_here = {name: retrieval.run_measures_per_topic(_qrels(grades_here, items), run["run"], **measure)
                          for name, run in runs.items()}
        sides[part] = (grades_here, per_topic_here,
                       {name: {**row, "human": retrieval.run_measures_mean(per_topic_here[name])}
                        for name, row in systems.items()})
    for judge in judges:
        human_here, per_topic_human_here, systems_here = sides[judge.part]
        per_topic_humans[judge.name] = per_topic_human_here
        mapping, judge_grade = _judge_grades(judge, human_here, levels=levels,
                                             rule=(options.get("grade_mapping") or {}).get(judge.name))
        judge_labels.append((judge.name, judge.family, {item: str(grade) for item, grade in judge_grade.items()}))
        qrels = _qrels(judge_grade, items)
        judge_qrels[judge.name] = qrels
        per_topic_judge = {}
        for name, run in runs.items():
            per_topic_judge[name] = retrieval.run_measures_per_topic(qrels, run["run"], **measure)
            systems[name]["judges"][judge.name] = retrieval.run_measures_mean(per_topic_judge[name])
        per_topic_judges[judge.name] = per_topic_judge
        if judge.part is not None:
            # Beside the judge's figures in the runs table, the humans' on its part (what they are compared with).
            for name, row in systems_here.items():
                systems[name].setdefault("human_by_judge", {})[judge.name] = row["human"]
        for name, block in _run_means(per_topic_judge).items():
            systems[name]["means"]["judges"][judge.name] = block
        judge_blocks[judge.name] = {
            "family": judge.family,
            "mapping": mapping,
            # The part of the development split its figures are read on (humans' side included), null without one.
            "part": None if judge.part is None else ("held_out" if judge.held_out else "development"),
            "item": _item_block(judge_grade, human_here, failed=judge.failed,
                                ties=humans.ties if judge.part is None else humans.ties & judge.part, items=items,
                                levels=levels, rel=rel,
                                small_sample=options.get("small_sample", SMALL_SAMPLE), noun=spec.item_noun),
            "per_topic": _per_topic(judge_grade, human_here, items, levels, rel),
            "topic_mean": {},
            "system": _system_block(systems_here, {name: row["judges"][judge.name] for name, row in systems.items()},
                                    tag, per_topic_human=per_topic_human_here,
                                    per_topic_judge=per_topic_judge, top=top),
            "cdf": _cdf(judge.scores),
            # CLIPScore: how many section texts were cut to the model's token limit (null for other judges).
            "texts": cuts.get(judge.name),
        }
        judge_blocks[judge.name]["topic_mean"] = {"cohen_kappa": uncertainty.topic_mean_summary(
            [row["cohen_kappa"] for row in judge_blocks[judge.name]["per_topic"]])}
    humans_part = _humans_block(humans, human_grade, levels)
    # May a judge replace an assessor: the alt-test (grades by distance), the human-likeness z-score, and the
    # kappa-paradox panel (AC2 with linear weights; the prevalence and bias indices at the relevance cut), in a thread
    # beside the rest of the build (reports.beside).
    replacement = beside(replacement_block, humans=humans, judges=judge_labels, options=options, levels=levels,
                         relevant_from=rel, selected=selected_annotators(humans_part))
    report = {
        "campaign": campaign.slug,
        "task_type": campaign.task_type,
        "item_noun": spec.item_noun,  # what the graded items are ("image", "passage"), for the page and the plots
        "scale": spec.scale(campaign),
        "relevant_from": rel,
        # The measures the runs were scored with (MEASURES, named and grouped for the page), and compatibility's p.
        "measures": [{"key": key, "group": MEASURE_GROUPS[key],
                      "label": MEASURE_NAMES[key] + (f" (p = {compat_p:g})" if key == retrieval.COMPAT else "")}
                     for key in MEASURES],
        "compat_p": compat_p,
        "run_means_ci_method": uncertainty.bootstrap_method("topics, the same draws for every run"),
        "humans": {**humans_part, "relative_delta": _relative_delta(systems, tag, None, per_topic=per_topic_human)},
        # Leaderboards imported from automatic judges (format trec-leaderboard) against the human one.
        "leaderboards": {name: _leaderboard_block(board, systems, tag, per_topic_human=per_topic_human, top=top)
                         for name, board in leaderboards_get(campaign=campaign).items()},
        "judges": judge_blocks,
        "systems": list(systems.values()),
        "bias_tag": tag,
        "rank_agreement": top,  # rbo_p and top_k of the system orders' agreement at the top
        "ablation": None,
        # Each judge by the grades above (its own, or mapped from its scores) against the adjudicated grades.
        "adjudication": adjudication_items_block(humans=humans, judges=judge_labels),
        # The same judges' grades within each item category (null when no item has one).
        "categories": categories_block(humans=humans, judges=judge_labels,
                                       categories=item_categories_get(campaign=campaign)),
        "replacement": None,  # its place among the blocks; filled in once computed beside the rest
    }
    build_step(SYSTEM_LEVEL)
    # Each run's NDCG@10 and P@10 from the humans' grades and a judge's together (PPI++), or its check on a draw.
    report["ppi"] = graded_ppi(judges=judges, judge_labels=judge_labels, human_grade=human_grade, items=items,
                               per_topic_human=per_topic_human, per_topic_judges=per_topic_judges, options=options,
                               qrels=judge_qrels, runs=runs, levels=levels, plan=label_plan_get(campaign=campaign))
    report["budget"] = graded_budget(report=report, human_grade=human_grade, judge_labels=judge_labels, items=items,
                                     levels=levels, per_topic_humans=per_topic_humans,
                                     per_topic_judges=per_topic_judges, target=target_width(options))
    report["replacement"] = replacement.result()
    return report


def graded_qrels_sets(*, campaign: Campaign) -> dict[str, dict[str, dict[str, int]]]:
    """Every qrels the report scores runs with, by name: "consensus", "assessor-<name>", "judge-<name>", graded on
    the campaign's scale."""
    humans = human_labels_get(campaign=campaign)
    items = graded_items_get(campaign=campaign)
    levels = task_type_get(campaign.task_type).levels(campaign)  # the campaign's scale (tasktypes.graded)
    human_grade = _grades(humans.item_label, items, levels)
    mapping = (campaign.options or {}).get("grade_mapping") or {}
    sets = {"consensus": _qrels(human_grade, items)}
    sets.update({f"assessor-{who}": qrels for who, qrels in _assessor_qrels(humans, items, levels).items()})
    for judge in judge_scores_get(campaign=campaign):
        _, grade = _judge_grades(judge, human_grade, rule=mapping.get(judge.name), levels=levels)
        sets[f"judge-{judge.name}"] = _qrels(grade, items)
    return sets


def qrels_text(qrels: dict[str, dict[str, int]]) -> str:
    """TREC qrels lines, `qid 0 docid grade`, by topic then doc id."""
    return "".join(f"{topic} 0 {doc} {grade}\n"
                   for topic in sorted(qrels) for doc, grade in sorted(qrels[topic].items()))


def graded_leaderboard(*, campaign: Campaign, qrels: dict[str, dict[str, int]], relevant_from: int,
                       compat_p: float) -> dict[str, dict[str, dict[str, float]]]:
    """Every stored run of CAMPAIGN scored under QRELS (one source of graded_qrels_sets) with every measure, per
    topic: run -> measure -> topic -> value, as the report scores them."""
    return {name: retrieval.run_measures_per_topic(qrels, run["run"], relevant_from=relevant_from, measures=MEASURES,
                                                   compat_p=compat_p)
            for name, run in sorted(runs_get(campaign=campaign).items())}


def leaderboard_text(per_topic: dict[str, dict[str, dict[str, float]]], *, relevant_from: int,
                     compat_p: float) -> str:
    """A TREC AutoJudge leaderboard: `run measure topic value` lines, one per (run, measure, topic) and one with
    topic `all` for the run's mean over its topics (what the report shows), measures by their ir_measures names
    (retrieval.leaderboard_names); values at full precision, so an import gives back the same figures."""
    names = retrieval.leaderboard_names(relevant_from=relevant_from, compat_p=compat_p)
    lines = []
    for run, by_measure in sorted(per_topic.items()):
        for key in MEASURES:
            values = by_measure.get(key) or {}
            lines.extend(f"{run} {names[key]} {topic} {value!r}\n" for topic, value in sorted(values.items()))
            if values:
                mean = float(np.mean(list(values.values())))
                lines.append(f"{run} {names[key]} {retrieval.LEADERBOARD_ALL} {mean!r}\n")
    return "".join(lines)


def _qrels(grade: dict[int, int], items: dict[int, tuple[str, str]]) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for item, value in grade.items():
        if item in items:
            topic, doc = items[item]
            qrels[topic][doc] = value
    return dict(qrels)


def _assessor_qrels(humans: HumanLabels, items: dict, levels: list[int]) -> dict[str, dict]:
    """Each assessor's own grades as qrels."""
    text = {str(level) for level in levels}
    per: dict[str, dict[int, int]] = defaultdict(dict)
    for unit, labels in humans.by_unit.items():
        for who, label in labels.items():
            if label in text and unit in humans.unit_item:
                per[who][humans.unit_item[unit]] = int(label)
    return {who: _qrels(grade, items) for who, grade in sorted(per.items())}


def _judge_grades(judge: JudgeScores, human: dict[int, int], *, rule: str | None,
                  levels: list[int]) -> tuple[dict, dict[int, int]]:
    """(the mapping that was applied, the judge's grade per item on LEVELS)."""
    if judge.grades and not judge.scores:
        return {"rule": "labels"}, {item: grade for item, grade in judge.grades.items() if grade in levels}
    if rule == "fitted":
        fitted = grading.fitted_thresholds(judge.scores, human, levels=levels)
        if fitted is not None:
            return {"rule": "fitted", **fitted}, grading.fitted_grades(judge.scores, fitted["thresholds"])
    cuts = grading.quantile_cuts(list(judge.scores.values()), levels=levels)
    mapping = {"rule": "quantile", "percentiles": list(grading.quantile_percentiles(levels)),
               "thresholds": list(cuts) if cuts else None}
    if rule == "fitted":
        mapping["note"] = "too few items with a human grade to fit thresholds; the quantile rule was used"
    return mapping, grading.quantile_grades(judge.scores, levels=levels)


def _confusion(human: list[int], model: list[int], levels: list[int]) -> list[list[int]]:
    """Rows: the human grade; columns: the judge's (scikit-learn's confusion_matrix over the scale's levels)."""
    if not human:
        return [[0] * len(levels) for _ in levels]
    return confusion_matrix(human, model, labels=levels).tolist()


def _agreement(human: list[int], model: list[int], levels: list[int], rel: int) -> dict:
    return {
        "n": len(human),
        "cohen_kappa": interrater.cohen_kappa(human, model, labels=levels),
        "cohen_kappa_linear": interrater.cohen_kappa(human, model, weights="linear", labels=levels),
        "cohen_kappa_quadratic": interrater.cohen_kappa(human, model, weights="quadratic", labels=levels),
        # The consensus and the judge as two raters of the same items, grades on the scale's order (ordinal) or not.
        **{f"krippendorff_alpha_{level}": interrater.krippendorff_alpha_pair(human, model, levels=levels, level=level)
           for level in interrater.ALPHA_LEVELS},
        # Relevant or not, from grade REL up (the binary measures' threshold, option relevant_from).
        "cohen_kappa_binary": interrater.cohen_kappa([h >= rel for h in human], [m >= rel for m in model],
                                                     labels=[False, True]),
        "accuracy": interrater.agreement_rate(human, model),
        "confusion": _confusion(human, model, levels),
    }


def _item_block(judge: dict[int, int], human: dict[int, int], *, failed: set[int], ties: set[int], items: dict,
                levels: list[int], rel: int, small_sample: int, noun: str) -> dict:
    """Agreement over the items both graded, with 95% intervals by a bootstrap over topics (an item's
    neighbours in a pool are not independent of it)."""
    shared = sorted(item for item in judge if item in human)
    first, second = [human[i] for i in shared], [judge[i] for i in shared]
    block = _agreement(first, second, levels, rel)
    clusters = [items[i][0] for i in shared]
    intervals = interrater.item_agreement_intervals(first, second, clusters, levels=levels, weighted=True)
    intervals["cohen_kappa_binary"] = interrater.item_agreement_intervals(
        [h >= rel for h in first], [m >= rel for m in second], clusters, levels=[False, True])["cohen_kappa"]
    intervals.update(interrater.pair_alpha_intervals(first, second, clusters, levels=levels))
    for key in ("cohen_kappa", "cohen_kappa_linear", "cohen_kappa_quadratic", "cohen_kappa_binary", "accuracy",
                *(f"krippendorff_alpha_{level}" for level in interrater.ALPHA_LEVELS)):
        uncertainty.put_interval(block, key, intervals[key], units=len(set(clusters)), noun="topics")
    over = f"topics (the {noun}s of a topic together)"
    method = uncertainty.bootstrap_method(over)
    return {**block, "ci_method": method, "alpha_ci_method": method,
            "small": len(shared) < small_sample, "failed": len(failed),
            # Items left out of n, by why: the assessors tied (no human grade; an even k invites it), or the judge
            # was asked and gave no readable verdict on an item with a human grade.
            "dropped": {"ties": len(ties & (judge.keys() | failed)), "failed": len(failed & human.keys())},
            "coverage": [len(shared) + len(failed & human.keys()), len(human)]}


def _per_topic(judge: dict[int, int], human: dict[int, int], items: dict, levels: list[int], rel: int) -> list[dict]:
    by_topic: dict[str, list[int]] = defaultdict(list)
    for item in sorted(judge):
        if item in human and item in items:
            by_topic[items[item][0]].append(item)
    return [{"topic": topic, **_agreement([human[i] for i in shared], [judge[i] for i in shared], levels, rel)}
            for topic, shared in sorted(by_topic.items())]


def _system_block(systems: dict, judge_means: dict[str, dict], tag: str | None, *, per_topic_human: dict,
                  per_topic_judge: dict, top: dict, measures: list[str] = MEASURES) -> dict:
    """The runs' order under the human qrels against a judge's, per measure of MEASURES, with 95% intervals from
    resampling topics and recomputing every run's measure, and the pairs of runs the two orders swap. JUDGE_MEANS
    (run -> measure -> value) and PER_TOPIC_JUDGE (run -> measure -> topic -> value) are the judge's: from its qrels,
    or from its imported leaderboard (_leaderboard_block)."""
    rows = [row for row in systems.values()]

    def judged(row: dict, measure: str) -> float | None:
        return (judge_means.get(row["system"]) or {}).get(measure)

    block: dict = {"n_systems": len(rows),
                   "ci_method": uncertainty.bootstrap_method("topics, every run's measure recomputed")}
    drawn: dict[str, dict] = {}  # the intervals of each per-topic table resampled so far (see _order_intervals)
    for measure in measures:
        pairs = [(row["human"][measure], judged(row, measure)) for row in rows
                 if row["human"][measure] is not None and judged(row, measure) is not None]
        human = [h for h, _ in pairs]
        model = [m for _, m in pairs]
        block[measure] = {"n": len(pairs), "kendall_tau_b": correlation.kendall_tau_b(human, model),
                          "spearman": correlation.spearman(human, model), "pearson": correlation.pearson(human, model)}
        # Runs ranked by the measure, best first: the judge's order against the humans' (tau-AP, RBO, top k).
        block[measure].update(rank_agreement.order_agreement(
            {row["system"]: row["human"][measure] for row in rows},
            {row["system"]: judged(row, measure) for row in rows}, p=top["rbo_p"], k=top["top_k"]))
        human_topics = {name: values[measure] for name, values in per_topic_human.items()}
        judge_topics = {name: values.get(measure, {}) for name, values in per_topic_judge.items()}
        shared = retrieval.shared_topics(human_topics, judge_topics)
        # No topic with values on both sides (a leaderboard of means only): nothing to resample.
        intervals = _order_intervals(human_topics, judge_topics, runs=len(pairs), top=top,
                                     drawn=drawn) if shared else {}
        block[measure]["topics"] = len(shared)
        # Each with its interval, or None and why (too few runs or topics, all resamples equal): *_ci_note.
        uncertainty.put_order_intervals(block[measure], intervals, ("kendall_tau_b", "spearman", "pearson",
                                                                    *rank_agreement.TOP_KEYS),
                                  systems=len(pairs), topics=block[measure]["topics"], systems_word="runs")
        block[measure]["small"] = 0 < len(pairs) < SMALL_SYSTEMS
        swapped = retrieval.swapped_pairs({row["system"]: row["human"][measure] for row in rows},
                                          {row["system"]: judged(row, measure) for row in rows})
        block[measure].update(n_pairs=swapped["n_pairs"], n_swaps=swapped["n_swaps"],
                              swaps=[{"runs": swap["runs"], "human": swap["first"], "judge": swap["second"]}
                                     for swap in swapped["swaps"]])
    block["relative_delta"] = _relative_delta(systems, tag, judge_means, per_topic=per_topic_judge, measures=measures)
    return block


# Why a leaderboard of means only has no intervals: put_order_intervals would say "too few topics: 0".
ONLY_MEANS_NOTE = "the leaderboard gives means only (topic all): no topics to resample"


def _leaderboard_block(board: dict[str, dict[str, dict[str, float]]], systems: dict, tag: str | None, *,
                       per_topic_human: dict, top: dict) -> dict:
    """An imported leaderboard (run -> measure -> topic -> value, topic "all" the mean) against the human one, per
    measure both have, by _system_block: a run's figure is its "all" line, else the mean of its topics' values;
    intervals resample the topics both give per-topic values for."""
    measures = [key for key in MEASURES if any(key in by_measure for by_measure in board.values())]
    means = {run: {key: values[retrieval.LEADERBOARD_ALL] if retrieval.LEADERBOARD_ALL in values
                   else float(np.mean(list(values.values())))
                   for key, values in by_measure.items()} for run, by_measure in board.items()}
    # Runs the report does not have (a run removed since) count nowhere: not in the intervals, not in Relative Δ.
    per_topic = {run: {key: {topic: value for topic, value in values.items() if topic != retrieval.LEADERBOARD_ALL}
                       for key, values in by_measure.items()} for run, by_measure in board.items() if run in systems}
    topics = {topic for by_measure in per_topic.values() for values in by_measure.values() for topic in values}
    block = _system_block(systems, means, tag, per_topic_human=per_topic_human, per_topic_judge=per_topic, top=top,
                          measures=measures)
    if not topics:
        for key in measures:
            for name in ("kendall_tau_b", "spearman", "pearson", *rank_agreement.TOP_INTERVAL_KEYS):
                if block[key].get(f"{name}_ci_note"):
                    block[key][f"{name}_ci_note"] = ONLY_MEANS_NOTE
    return {"runs": len(board), "runs_not_in_report": sorted(set(board) - set(systems)), "topics": len(topics),
            "only_means": not topics, "measures": measures, "values": means, "system": block}


def _order_intervals(human_topics: dict, judge_topics: dict, *, runs: int, top: dict, drawn: dict) -> dict:
    """retrieval.run_correlation_intervals of one measure's per-topic values (run -> topic -> value) under the two
    qrels, the resamples being most of a report's time: none with fewer runs than an interval needs (put_order_intervals
    then says why), and once only for tables an earlier measure had already (DRAWN: R@100 and R@1000 of runs
    shorter than 100, nDCG at every cut of runs shorter than 10); seeded, the same table gives the same intervals."""
    if runs < uncertainty.MIN_INTERVAL_SYSTEMS:
        return dict.fromkeys(ORDER_INTERVAL_KEYS) if runs >= 2 else {}
    table = json.dumps([human_topics, judge_topics], sort_keys=True)
    if table not in drawn:
        drawn[table] = retrieval.run_correlation_intervals(human_topics, judge_topics,
                                                           top={"p": top["rbo_p"], "k": top["top_k"]})
    return drawn[table]


def _run_means(per_topic: dict[str, dict[str, dict[str, float]]]) -> dict[str, dict[str, dict]]:
    """run -> measure -> {"mean", "n" (topics), "mean_ci95", "mean_ci_note"}, from PER_TOPIC (run -> measure -> topic
    -> value, under one qrels), with intervals from resampling topics (retrieval.run_mean_intervals)."""
    out: dict[str, dict[str, dict]] = {name: {} for name in per_topic}
    for measure in MEASURES:
        values = {name: by_measure[measure] for name, by_measure in per_topic.items()}
        intervals = retrieval.run_mean_intervals(values)
        for name, topics in values.items():
            block = {"mean": float(np.mean(list(topics.values()))) if topics else None, "n": len(topics)}
            uncertainty.put_interval(block, "mean", intervals[name], units=len(topics), noun="topics")
            out[name][measure] = block
    return out


def _relative_delta(systems: dict, tag: str | None, judge_means: dict | None, *, per_topic: dict,
                    measures: list[str] = MEASURES) -> dict | None:
    """Relative Δ of the runs tagged TAG against the others, under a judge's figures (JUDGE_MEANS: run -> measure ->
    value; None: the humans'), with a 95% interval from resampling topics (PER_TOPIC: run -> measure -> topic ->
    value, under the same side)."""
    if tag is None:
        return None
    out: dict = {"tag": tag, "ci_method": uncertainty.bootstrap_method("topics, every run's measure recomputed")}
    tagged = {name for name, row in systems.items() if tag in row["tags"]}
    for measure in measures:
        group, others = [], []
        for name, row in systems.items():
            value = row["human"][measure] if judge_means is None else (judge_means.get(name) or {}).get(measure)
            if value is not None:
                (group if tag in row["tags"] else others).append(value)
        out[measure] = retrieval.relative_delta(group, others)
        out[f"{measure}_ci95"] = retrieval.relative_delta_interval(
            {name: values.get(measure, {}) for name, values in per_topic.items()}, tagged
        ) if out[measure] is not None else None
    return out


def _humans_block(humans: HumanLabels, human_grade: dict[int, int], levels: list[int]) -> dict:
    counts = Counter(human_grade.values())
    return {**humans_block(humans, levels=levels), "items_labelled": len(human_grade),
            "grades": {str(level): counts.get(level, 0) for level in levels}}


def _cdf(scores: dict[int, float]) -> dict | None:
    """The judge's raw scores as 101 quantiles (0th to 100th percentile), for the CDF plot."""
    if not scores:
        return None
    values = np.asarray(list(scores.values()), dtype=float)
    return {"n": int(values.size), "quantiles": np.percentile(values, np.arange(101)).tolist()}
