"""The agreement report for `answer_ranking` campaigns (docs/design.md §1.1 and §5, docs/answer_ranking.md).

Per topic and judge: Kendall's tau-b between the human order of the topic's candidates (tie groups,
best first) and the judge's scores, over all candidates and over the generated answers only; then
the mean over topics with a t-based 95% CI (Heineking et al., ECIR 2025, report mean 0.64
[0.50, 0.78] over 20 topics, expert vs monoT5).

The human reference ranking of a topic is, in this order of preference:
1. the current adjudicated ranking (`reference` = "adjudication");
2. with one annotator, that annotator's ranking (`reference` = "annotator");
3. with several annotators and no adjudication, tau against each annotator's ranking, averaged
   (`reference` = "annotator_mean", and a `note` says so; `human_order` is then null and
   `human_orders` holds each annotator's order).
A topic nobody has ranked yet has `reference` null and null taus; it does not count in the means.

The humans' own agreement, the ceiling a judge can be compared with: per topic the mean tau-b over
annotator pairs, then the mean over topics with its CI (null with fewer than two annotators).

Several dimensions (`Campaign.options["dimensions"]`): one per_topic entry per (topic, dimension),
each against the same judge scores (a ranker scores a candidate once); `topic_mean` is the first
dimension's, `topic_mean_by_dimension` holds every dimension's.

Partial rankings (`Campaign.options["rank_depth"]` = k: an annotator ranks the best k and may leave the rest): the
candidates a ranking leaves out are unranked and count as one tie group below every ranked candidate (completed so by
ranking_data_get), in every statistic here: tau-b against a judge and between annotators, and NRP. For tau-b a pair
of two unranked candidates is a tie on the human side (tau-b corrects for it); a ranked candidate is above every
unranked one. `humans.partial` states the rule and how many rankings were partial.

Agreement at the top (stats.rank_agreement, README "Ranking agreement at the top"), beside tau-b in every
per-topic row and topic mean: tau-AP (the judge's order against the human reference as the truth; between two
annotators the mean of both directions), RBO_ext with the campaign's persistence `rbo_p`, overlap@k and tau-b on the
ids in either top k (`top_k`), `n_at_k` ids. The judge's order is its scores (equal scores tied); a partial human
ranking's unranked candidates count as one tie group below its ranked ones (among the candidates the judge scored;
between annotators, among the topic's candidates); RBO reads each side's ranked candidates only. With several
annotators' rankings as the reference, each measure is their mean, as tau-b is (`n_at_k` the largest).

Document qrels (format trec-qrels, one set per file stem, Item.data["qrels"]): each ranker's ordering of a topic's
documents is scored against every set (`qrels.judges`: NDCG@10, MAP and P@10 per topic through ir_measures, their mean
over the judged topics with a bootstrap interval), the study's way of choosing its ranker. A set named after a
dimension is that dimension's (with one set and one dimension, the set is the dimension's). Where a topic has judged
documents, each answer's NRP is also computed among the judged documents only (`systems[].human_nrp_judged`,
`judges_nrp_judged`), as the study placed answers among the documents its experts graded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

from annotate.models import Campaign
from reports.adjudication import adjudication_ranking_block
from reports.budget import ranking_budget
from reports.build_steps import HUMANS, JUDGES, READING, SYSTEM_LEVEL, build_step
from reports.selectors import JudgeScores, RankingData, RankingTopic, label_plan_get, ranking_data_get
from stats import correlation, interrater, rank_agreement, retrieval, uncertainty
from stats.budget import target_width
from tasktypes.answer_ranking.options import NRP_PAPER, NRP_RULES, NRP_STUDY_CODE
from tasktypes.answer_ranking.ppi import ranking_ppi

TAU = "kendall_tau_b"
TAU_ANSWERS = "kendall_tau_b_answers_only"
PARTIAL_RULE = ("unranked candidates are tied below every ranked one: tau-b over all candidates, a pair of two "
                "unranked candidates counted as a tie")
# The measures of agreement at the top each per-topic row and topic mean carries beside tau-b.
TOP = ("tau_ap", "rbo", "overlap_at_k", "kendall_tau_b_at_k")


def ranking_report_build(*, campaign: Campaign) -> dict:
    """The docs/design.md §5 document for an answer_ranking CAMPAIGN; a fixed number of queries (see
    ranking_data_get)."""
    build_step(READING)
    data = ranking_data_get(campaign=campaign)
    options = rank_agreement.rank_options(campaign.options)
    nrp_rule = (campaign.options or {}).get("nrp_rule") or NRP_PAPER
    build_step(HUMANS)
    humans = _humans_block(data, options)
    build_step(JUDGES)
    qrels = _qrels_block(data)
    every = _answer_nrps(data, dimension=data.dimensions[0], rule=nrp_rule)  # each answer's NRP: systems and ppi
    report = {
        "campaign": campaign.slug,
        "task_type": campaign.task_type,
        "rank_agreement": options,
        "humans": humans,
        "judges": {judge.name: _judge_block(judge=judge, data=data, options=options) for judge in data.judges},
        "nrp": {"rule": nrp_rule, "formula": NRP_RULES[nrp_rule]},
        "systems": _systems(data, every, rule=nrp_rule),
        "qrels": qrels,
        "nrp_dimensions": _dimension_nrp(data, qrels, rule=nrp_rule,
                                         weights=(campaign.options or {}).get("nrp_weights")),
        "adjudication": adjudication_ranking_block(data),
    }
    build_step(SYSTEM_LEVEL)
    # Each system's mean NRP from the humans' rankings and a ranker's scores together (PPI++), or its check.
    report["ppi"] = ranking_ppi(human=every.by_system(every.human),
                                judges={name: every.by_system(values) for name, values in every.judges.items()},
                                split={judge.name for judge in data.judges if judge.part is not None},
                                options=campaign.options or {}, plan=label_plan_get(campaign=campaign))
    report["budget"] = ranking_budget(report=report, target=target_width(campaign.options))
    return report


# MAP and P@10 count a document relevant from this grade up (trec_eval's default); NDCG@10 uses the grades as gains.
QRELS_RELEVANT_FROM = 1


def _qrels_sets(data: RankingData, part: frozenset[int] | None = None) -> dict[str, dict[str, dict[str, int]]]:
    """{qrels name: {topic: {document: grade}}} over the campaign's document qrels; with PART (a judge's part of a
    development split, JudgeScores.part), over that part's documents only."""
    sets: dict[str, dict[str, dict[str, int]]] = {}
    for topic in data.topics:
        for candidate in topic.candidates:
            if part is not None and candidate.pk not in part:
                continue
            for name, grade in candidate.qrels.items():
                sets.setdefault(name, {}).setdefault(topic.external_id, {})[candidate.external_id] = grade
    return sets


def _qrels_block(data: RankingData) -> dict | None:
    """Each ranker's order of the documents scored against each qrels set; None when no document has a grade."""
    sets = _qrels_sets(data)
    if not sets:
        return None
    runs = {judge.name: {topic.external_id: {c.external_id: judge.scores[c.pk] for c in topic.candidates
                                             if c.kind == "document" and c.pk in judge.scores}
                         for topic in data.topics} for judge in data.judges}
    only = len(sets) == 1 and len(data.dimensions) == 1
    # A ranker read on one part of a development split is scored against the grades of that part's documents: a
    # document of the other part is no more its to rank than its to score.
    judge_sets = {judge.name: sets if judge.part is None else _qrels_sets(data, judge.part) for judge in data.judges}
    return {
        "sets": [{"name": name,
                  "dimension": name if name in data.dimensions else (data.dimensions[0] if only else None),
                  "topics": len(qrels), "documents": sum(len(docs) for docs in qrels.values())}
                 for name, qrels in sorted(sets.items())],
        "relevant_from": QRELS_RELEVANT_FROM,
        "judges": {
            name: {qrels_name: {measure: uncertainty.topic_mean_summary(list(values.values()))
                                for measure, values in retrieval.run_measures_per_topic(
                                    qrels, {topic: docs for topic, docs in run.items() if docs},
                                    relevant_from=QRELS_RELEVANT_FROM).items()}
                   for qrels_name, qrels in sorted(judge_sets[name].items())}
            for name, run in runs.items()
        },
    }


def _answers(topic: RankingTopic) -> set[int]:
    return {c.pk for c in topic.candidates if c.kind == "answer"}


def _ids(topic: RankingTopic) -> dict[int, str]:
    return {c.pk: c.external_id for c in topic.candidates}


def _groups_as_ids(groups: list[list[int]], ids: dict[int, str]) -> list[list[str]]:
    return [[ids[pk] for pk in group] for group in groups]


def _topic_means(per_topic: list[dict], dimensions: list[str]) -> dict[str, dict]:
    return {
        dimension: {
            key: uncertainty.topic_mean_summary([row[key] for row in per_topic if row["dimension"] == dimension])
            for key in (TAU, TAU_ANSWERS, *TOP)
        }
        for dimension in dimensions
    }


def _judge_block(*, judge: JudgeScores, data: RankingData, options: dict) -> dict:
    per_topic = [
        _judge_topic_row(judge=judge, topic=topic, dimension=dimension, options=options)
        for topic in data.topics
        for dimension in data.dimensions
    ]
    by_dimension = _topic_means(per_topic, data.dimensions)
    return {
        "family": judge.family,
        "item": {"n": len(judge.scores), "failed": len(judge.failed)},
        "per_topic": per_topic,
        "topic_mean": by_dimension[data.dimensions[0]],
        "topic_mean_by_dimension": by_dimension,
    }


def _references(topic: RankingTopic, dimension: str) -> tuple[str | None, dict[str, list[list[int]]]]:
    """(kind, {name: tie groups}) of the topic's human reference rankings for DIMENSION (see the module docstring)."""
    adjudicated = topic.adjudicated.get(dimension)
    if adjudicated:
        return "adjudication", {"adjudication": adjudicated}
    ranked_by = [name for name in sorted(topic.rankings) if topic.rankings[name].get(dimension)]
    if not ranked_by:
        return None, {}
    references = {name: topic.rankings[name][dimension] for name in ranked_by}
    return ("annotator" if len(ranked_by) == 1 else "annotator_mean"), references


@dataclass
class AnswerNrps:
    """Each generated answer's NRP under one dimension's human references and under each ranker, by candidate pk;
    `where[pk]` = ((system, prompt), topic id)."""

    human: dict[int, float | None] = field(default_factory=dict)
    judges: dict[str, dict[int, float | None]] = field(default_factory=dict)
    # With a development split, per judge read on a part: the humans' NRP of that part's answers among that part's
    # documents, the human side its NRP is compared with.
    human_by_judge: dict[str, dict[int, float | None]] = field(default_factory=dict)
    where: dict[int, tuple[tuple[str, str], str]] = field(default_factory=dict)

    def by_system(self, values: dict[int, float | None]) -> dict[tuple[str, str], list[tuple[str, float | None]]]:
        """VALUES (one of human, judges[name]) as (topic, NRP) lists per (system, prompt)."""
        out: dict[tuple[str, str], list[tuple[str, float | None]]] = {}
        for pk, value in values.items():
            key, topic = self.where[pk]
            out.setdefault(key, []).append((topic, value))
        return out


def _answer_nrps(data: RankingData, *, dimension: str, rule: str, judged_only: bool = False) -> AnswerNrps:
    """Every generated answer's NRP among its topic's documents (all of them, or with JUDGED_ONLY those some qrels
    set graded, on the topics that have such documents; correlation.normalised_rank_position under RULE): for humans the
    answer's tie group in DIMENSION's reference rankings (better group = higher), averaged over them when several
    annotators ranked the topic; for each ranker its scores."""
    nrps = AnswerNrps(judges={judge.name: {} for judge in data.judges},
                      human_by_judge={judge.name: {} for judge in data.judges if judge.part is not None})
    for topic in data.topics:
        documents = [c.pk for c in topic.candidates if c.kind == "document" and (c.qrels or not judged_only)]
        if not documents and judged_only:
            continue
        _, references = _references(topic, dimension)
        positions = [correlation.tie_group_positions(groups) for groups in references.values()]
        for candidate in topic.candidates:
            key = data.answer_system.get(candidate.pk)
            if candidate.kind != "answer" or key is None:
                continue
            nrps.where[candidate.pk] = (key, topic.external_id)
            nrps.human[candidate.pk] = _human_nrp(candidate.pk, positions, documents, rule=rule)
            for judge in data.judges:
                if judge.part is not None and candidate.pk in judge.part:
                    nrps.human_by_judge[judge.name][candidate.pk] = _human_nrp(
                        candidate.pk, positions, [d for d in documents if d in judge.part], rule=rule)
                if candidate.pk in judge.scores:
                    nrps.judges[judge.name][candidate.pk] = correlation.normalised_rank_position(
                        judge.scores[candidate.pk], [judge.scores[d] for d in documents if d in judge.scores],
                        plus_one=rule == NRP_STUDY_CODE)
    return nrps


def _human_nrp(pk: int, positions: list[dict], documents: list[int], *, rule: str) -> float | None:
    """The answer PK's NRP among DOCUMENTS under the human references (their tie-group POSITIONS), averaged over
    the references that place it."""
    return uncertainty.mean_defined([
        correlation.normalised_rank_position(-pos[pk], [-pos[d] for d in documents if d in pos],
                                             plus_one=rule == NRP_STUDY_CODE)
        for pos in positions if pk in pos])


def _systems(data: RankingData, every: AnswerNrps, *, rule: str = NRP_PAPER) -> list[dict]:
    """Mean NRP per (system, prompt): under the human reference rankings and under each ranker (EVERY: _answer_nrps
    of the first dimension), first dimension only; where documents have grades, also among the graded documents
    only. Each value is kept with its topic: a system's answers to one topic (several prompts' samples) are
    resampled together."""
    graded = _answer_nrps(data, dimension=data.dimensions[0], rule=rule, judged_only=True)
    human, judged_human = every.by_system(every.human), graded.by_system(graded.human)
    judges = {name: every.by_system(values) for name, values in every.judges.items()}
    human_by_judge = {name: every.by_system(values) for name, values in every.human_by_judge.items()}
    judges_graded = {name: graded.by_system(values) for name, values in graded.judges.items()}
    rows = []
    for system, prompt in sorted(human):
        human_nrp = _nrp_summary(human[(system, prompt)])
        judges_nrp = {name: _nrp_summary(values.get((system, prompt), [])) for name, values in judges.items()}
        row = {
            "system": system,
            "prompt": prompt,
            "n": len(human[(system, prompt)]),
            "human": human_nrp["mean"],
            "judges": {name: block["mean"] for name, block in judges_nrp.items()},
            "human_nrp": human_nrp,
            "judges_nrp": judges_nrp,
        }
        if human_by_judge:
            # With a development split: per judge read on a part, the humans' NRP over that part (its answers among
            # its documents), what the judge's NRP beside it is compared with.
            row["human_by_judge"] = {name: _nrp_summary(values.get((system, prompt), []))
                                     for name, values in human_by_judge.items()}
        if judged_human:
            # Its answers on the topics that have judged documents.
            row["n_judged"] = len(judged_human.get((system, prompt), []))
            row["human_nrp_judged"] = _nrp_summary(judged_human.get((system, prompt), []))
            row["judges_nrp_judged"] = {name: _nrp_summary(values.get((system, prompt), []))
                                        for name, values in judges_graded.items()}
        rows.append(row)
    return rows


def _dimension_nrp(data: RankingData, qrels: dict | None, *, rule: str, weights: dict | None) -> dict | None:
    """The study's dimension-specific NRP: for each dimension that has a qrels set, the ranker with the best mean
    nDCG@10 against it (the selection step, with the scores that decided it: ties go to the first name), each answer's
    NRP under that ranker and under the humans' rankings of that dimension, and their combination over the dimensions
    weighted by WEIGHTS (option nrp_weights; equal weights where unset), as a weighted mean. None without a
    dimension that has a qrels set and a ranker scored against it."""
    if not qrels or len(data.dimensions) < 2 and not any(qset["dimension"] for qset in qrels["sets"]):
        return None
    selection = []
    for qset in qrels["sets"]:
        dimension = qset["dimension"]
        if dimension is None or any(step["dimension"] == dimension for step in selection):
            continue
        scores = {name: by_set[qset["name"]]["ndcg_cut_10"]["mean"] for name, by_set in qrels["judges"].items()}
        scored = {name: value for name, value in scores.items() if value is not None}
        if not scored:
            continue
        best = max(sorted(scored), key=lambda name: scored[name])
        selection.append({"dimension": dimension, "qrels": qset["name"], "ranker": best, "ndcg_cut_10": scores})
    if not selection:
        return None
    weights = {step["dimension"]: float((weights or {}).get(step["dimension"], 1.0)) for step in selection}
    total = sum(weights.values())
    # Per dimension, its (human, chosen ranker) NRP lists by (system, prompt), grouped once for every row below.
    per_dimension, combined_human, combined_ranker = {}, {}, {}
    where: dict[int, tuple[tuple[str, str], str]] = {}
    for step in selection:
        nrps = _answer_nrps(data, dimension=step["dimension"], rule=rule)
        where.update(nrps.where)
        # A ranker read on one part of a development split is compared with the humans' NRP on that part.
        humans = nrps.human_by_judge.get(step["ranker"], nrps.human)
        per_dimension[step["dimension"]] = (nrps.by_system(humans), nrps.by_system(nrps.judges[step["ranker"]]))
        for side, values in ((combined_human, humans), (combined_ranker, nrps.judges[step["ranker"]])):
            for pk, value in values.items():
                side.setdefault(pk, []).append((weights[step["dimension"]], value))
    merged = AnswerNrps(where=where)

    def weighted(parts: list[tuple[float, float | None]]) -> float | None:
        # An answer counts where every selected dimension gives it an NRP.
        if len(parts) < len(selection) or any(value is None for _, value in parts) or not total:
            return None
        return sum(weight * value for weight, value in parts) / total

    human = merged.by_system({pk: weighted(parts) for pk, parts in combined_human.items()})
    ranker = merged.by_system({pk: weighted(parts) for pk, parts in combined_ranker.items()})
    rows = []
    for key in sorted(set(human) | set(ranker)):
        rows.append({
            "system": key[0], "prompt": key[1],
            "by_dimension": {
                step["dimension"]: {
                    "ranker": step["ranker"],
                    "human_nrp": _nrp_summary(per_dimension[step["dimension"]][0].get(key, [])),
                    "ranker_nrp": _nrp_summary(per_dimension[step["dimension"]][1].get(key, [])),
                } for step in selection},
            "human_nrp": _nrp_summary(human.get(key, [])),
            "ranker_nrp": _nrp_summary(ranker.get(key, [])),
        })
    return {"selection": selection, "weights": weights, "rule": rule, "systems": rows}


def _nrp_summary(values: list[tuple[str, float | None]]) -> dict:
    """Mean, sd, min, max and n of NRP values (one per answer), the number of topics they come from, and the mean's
    95% bootstrap interval resampling topics whole (each with all its answers; `mean_ci_note` where it degenerates;
    `ci95` is the same interval)."""
    by_topic: dict[str, list[float | None]] = {}
    for topic, value in values:
        if value is not None:
            by_topic.setdefault(topic, []).append(value)
    block = {**uncertainty.spread([value for _, value in values]), "topics": len(by_topic),
             # each answer's NRP (4 decimals), which the plot draws behind the mean
             "values": [round(value, 4) for _, value in values if value is not None]}
    uncertainty.put_interval(block, "mean", uncertainty.cluster_mean_interval(list(by_topic.values())),
                             units=len(by_topic), noun="topics")
    return {**block, "ci95": block["mean_ci95"],
            "ci_method": uncertainty.bootstrap_method("topics, each with its answers")}


def _within(groups: list[list[int]], part: frozenset[int]) -> list[list[int]]:
    """Tie GROUPS with the candidates of PART only, groups left empty dropped."""
    return [kept for kept in ([pk for pk in group if pk in part] for group in groups) if kept]


def _as_ranked(topic: RankingTopic, who: str, dimension: str, groups: list[list[int]]) -> list[list[int]]:
    """GROUPS as WHO ranked them: without the tie group of unranked candidates that ranking_data_get added to a
    partial ranking (topic.partial). The measures at the top count missing candidates as tied below every ranked one
    anyway; RBO reads only what each side ranked."""
    return groups[:-1] if dimension in topic.partial.get(who, ()) and len(groups) > 1 else groups


def _top_measures(pairs: list[tuple[list, list]], *, options: dict, universe, symmetric: bool) -> dict:
    """The TOP measures of each (ranking, reference) pair, averaged over the pairs (None where none is defined), and
    n_at_k, the largest number of ids a pair's tau-b@k was over."""
    rows = [rank_agreement.rank_agreement(ranking, reference, p=options["rbo_p"], k=options["top_k"],
                                          universe=universe, symmetric=symmetric) for ranking, reference in pairs]
    out = {key: uncertainty.mean_defined([row[key] for row in rows]) for key in TOP}
    out["n_at_k"] = max((row["n_at_k"] for row in rows), default=0)
    return out


def _judge_topic_row(*, judge: JudgeScores, topic: RankingTopic, dimension: str, options: dict) -> dict:
    ids = _ids(topic)
    answers = _answers(topic)
    scores = {c.pk: judge.scores[c.pk] for c in topic.candidates if c.pk in judge.scores}
    row = {"topic": topic.external_id, "dimension": dimension}
    row["reference"], references = _references(topic, dimension)
    as_ranked = {who: _as_ranked(topic, who, dimension, groups) for who, groups in references.items()}
    if judge.part is not None:
        # Read on one part of a development split: the human orders it is compared with (and shown beside it) are
        # those of its part's candidates, as in a campaign holding that part alone.
        answers = answers & judge.part
        references = {who: _within(groups, judge.part) for who, groups in references.items()}
        as_ranked = {who: _within(groups, judge.part) for who, groups in as_ranked.items()}
    ranked = {pk for groups in references.values() for group in groups for pk in group}
    row["n"] = len(ranked & scores.keys())
    row["n_answers"] = len(ranked & scores.keys() & answers)
    row[TAU] = uncertainty.mean_defined([correlation.ranking_score_tau_b(groups, scores)
                                         for groups in references.values()])
    row[TAU_ANSWERS] = uncertainty.mean_defined(
        [correlation.ranking_score_tau_b(groups, scores, candidates=answers) for groups in references.values()]
    )
    # At the top: the judge's order (its scores) against each reference, among the candidates it scored.
    order = rank_agreement.score_groups(scores)
    pairs = [(order, as_ranked[who]) for who in references]
    row.update(_top_measures(pairs, options=options, universe=list(scores), symmetric=False))
    if len(references) == 1:
        row["human_order"] = _groups_as_ids(next(iter(references.values())), ids)
    else:
        row["human_order"] = None
    if row["reference"] == "annotator_mean":
        row["human_orders"] = {name: _groups_as_ids(groups, ids) for name, groups in references.items()}
        row["note"] = (
            f"no adjudicated ranking: tau-b is the mean over the {len(references)} annotators' rankings "
            f"({', '.join(references)})"
        )
    elif row["reference"] is None:
        row["note"] = "no human ranking of this topic yet"
    row["judge_order"] = [ids[pk] for pk in sorted(scores, key=lambda pk: (-scores[pk], ids[pk]))]
    # The same order with equal scores as tie groups, so a reader sees the ties tau-b corrects for.
    row["judge_groups"] = [
        [ids[pk] for pk in sorted(scores, key=lambda pk: ids[pk]) if scores[pk] == value]
        for value in sorted(set(scores.values()), reverse=True)
    ]
    row["answer_ids"] = sorted(ids[pk] for pk in answers)
    return row


def _humans_block(data: RankingData, options: dict) -> dict:
    per_topic = []
    pair_taus: dict[tuple[str, str], list[float | None]] = {}
    primary = data.dimensions[0]
    for topic in data.topics:
        answers = _answers(topic)
        for dimension in data.dimensions:
            ranked_by = [name for name in sorted(topic.rankings) if topic.rankings[name].get(dimension)]
            if len(ranked_by) < 2:
                continue
            taus, taus_answers = [], []
            for a, b in combinations(ranked_by, 2):
                ra, rb = topic.rankings[a][dimension], topic.rankings[b][dimension]
                taus.append(correlation.ranking_ranking_tau_b(ra, rb))
                taus_answers.append(correlation.ranking_ranking_tau_b(ra, rb, candidates=answers))
                if dimension == primary:
                    pair_taus.setdefault((a, b), []).append(taus[-1])
            pairs = [(_as_ranked(topic, a, dimension, topic.rankings[a][dimension]),
                      _as_ranked(topic, b, dimension, topic.rankings[b][dimension]))
                     for a, b in combinations(ranked_by, 2)]
            per_topic.append(
                {
                    "topic": topic.external_id,
                    "dimension": dimension,
                    "pairs": len(taus),
                    TAU: uncertainty.mean_defined(taus),
                    TAU_ANSWERS: uncertainty.mean_defined(taus_answers),
                    # Neither annotator is the truth: tau-AP is the mean of both directions.
                    **_top_measures(pairs, options=options, universe=[c.pk for c in topic.candidates],
                                    symmetric=True),
                }
            )
    ceiling = _topic_means(per_topic, data.dimensions) if len(data.annotators) > 1 else None
    # Every candidate's rank positions (tie-group index) from each annotator, first dimension: alpha among them.
    positions = []
    for topic in data.topics:
        at = [{pk: i for i, group in enumerate(ranking.get(primary) or []) for pk in group}
              for ranking in topic.rankings.values()]
        positions.append([[where[c.pk] for where in at if c.pk in where] for c in topic.candidates])
    return {
        "annotators": len(data.annotators),
        "annotator_names": data.annotators,
        "dimensions": data.dimensions,
        "topics": len(data.topics),
        "topics_ranked": sum(1 for topic in data.topics if topic.rankings or topic.adjudicated),
        "adjudicated": sum(1 for topic in data.topics if topic.adjudicated),
        "ceiling": ceiling[primary] if ceiling else None,
        # Krippendorff's alpha (ordinal) on the rank positions, with n, the raters and an interval over topics.
        "rank_alpha": interrater.rank_alpha(positions, raters=len(data.annotators)),
        "ceiling_by_dimension": ceiling,
        "per_topic": per_topic,
        "pairwise_kendall_tau_b": [
            {"a": a, "b": b, TAU: uncertainty.mean_defined(values), "n": sum(v is not None for v in values)}
            for (a, b), values in sorted(pair_taus.items())
        ],
        "partial": _partial_block(data),
    }


def _partial_block(data: RankingData) -> dict | None:
    """How partial rankings were counted (PARTIAL_RULE) and how many there were; None without rank_depth."""
    if data.rank_depth is None:
        return None
    rankings = sum(len(topic.rankings) + bool(topic.adjudicated) for topic in data.topics)
    return {"rank_depth": data.rank_depth, "rule": PARTIAL_RULE,
            "n": sum(len(topic.partial) for topic in data.topics), "rankings": rankings}


def short_label(external_id: str, topic: str) -> str:
    """A candidate's label within its topic: the external id without its "<qid>/" prefix."""
    prefix = f"{topic}/"
    return external_id[len(prefix) :] if external_id.startswith(prefix) else external_id


def order_text(order: list | None, topic: str) -> str:
    """An order as one line, best first: "a > b = c > d" (tie groups joined by "="); "" for none.

    ORDER is a list of tie groups (human orders) or a flat list of ids (a judge's order).
    """
    if not order:
        return ""
    groups = [group if isinstance(group, list) else [group] for group in order]
    return " > ".join(" = ".join(short_label(str(i), topic) for i in group) for group in groups)
