"""A simulated nugget_evaluation campaign (tasktypes/nugget_evaluation/layout.py), written by ORM bulk inserts, for
the report's tests and its benchmark (bench/bench_nuggets.py).

The truth: every (answer, nugget) has a true mark, drawn independently: supported with the run's quality q, partly
supported with PARTIAL_SHARE, not supported otherwise. A rater (an assessor or the judge) gives the true mark with
probability 1 - e and each of the two other marks with e / 2 (its error rate e). So every population figure the
report estimates has a closed form (expected_kappa, expected_strict).

The fully automatic condition (LIST_JUDGES): a judge writes its own list for each topic (a verdict on the topic's
nuggets item, as many nuggets as the frozen list, ids n1..), each (answer, judge nugget) has its own true mark drawn
the same way from the run's quality, and a judge marks the answers against that list with its error rate (raw
{"list": "judge:<writer>", "marks", "failed"}).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
from django.contrib.auth import get_user_model

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, SystemOutput, Topic, Unit
from judges.models import Judge, ModelJudgment
from tasktypes.nugget_evaluation.layout import (
    ANSWER_KIND,
    CREATED_LABEL,
    MARKS,
    NUGGETS_KIND,
    OKAY,
    VITAL,
    answer_item_id,
    marks_label,
    nuggets_item_id,
)

PARTIAL_SHARE = 0.15


def confusion(error: float) -> np.ndarray:
    """P(given mark | true mark), 3 x 3 (true by row): right with 1 - ERROR, each other mark ERROR / 2."""
    return np.full((3, 3), error / 2) + np.eye(3) * (1 - 3 * error / 2)


def true_shares(qualities) -> np.ndarray:
    """The population share of each true mark over the runs (support, partial, not)."""
    q = float(np.mean(qualities))
    return np.array([q * 1.0, PARTIAL_SHARE, 1.0 - q - PARTIAL_SHARE])


def expected_kappa(shares: np.ndarray, first: float, second: float, *, binary: bool = False) -> float:
    """Cohen's kappa between two raters of error rates FIRST and SECOND over true marks of SHARES, in the
    population: the joint table sum over true marks of share x P(a | true) P(b | true)."""
    table = np.einsum("t,ta,tb->ab", shares, confusion(first), confusion(second))
    if binary:
        collapse = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])
        table = collapse.T @ table @ collapse
    observed = np.trace(table)
    chance = table.sum(axis=1) @ table.sum(axis=0)
    return float((observed - chance) / (1 - chance))


def expected_strict(quality: float, error: float) -> float:
    """The population share of nuggets a rater of ERROR marks supported in an answer of a run of QUALITY."""
    shares = np.array([quality, PARTIAL_SHARE, 1.0 - quality - PARTIAL_SHARE])
    return float(shares @ confusion(error)[:, 0])


@dataclass
class Simulated:
    campaign: Campaign
    qualities: dict[str, float]
    topics: list[str]
    truth: dict = field(default_factory=dict)  # (topic, run) -> true codes


def _given(true: np.ndarray, error: float, rng: np.random.Generator) -> np.ndarray:
    wrong = rng.random(true.shape) < error
    shift = rng.integers(1, 3, size=true.shape)
    return np.where(wrong, (true + shift) % 3, true)


def campaign_simulate(*, slug: str = "nuggets-sim", topics: int = 12, runs: int = 8, nuggets: int = 20,
                      vital_share: float = 0.5, human_topics: int | None = None, assessor_errors=(0.1, 0.2),
                      judge_errors: dict[str, float] | None = None, qualities=None, seed: int = 0,
                      creations: bool = True, list_judges: dict[str, tuple[str, float]] | None = None) -> Simulated:
    """Write the campaign: TOPICS topics with NUGGETS frozen nuggets each (version 1), an answer per run and topic,
    two assessors (errors ASSESSOR_ERRORS) on the answers of the first HUMAN_TOPICS topics (all by default), a
    judge per JUDGE_ERRORS entry on every answer; with CREATIONS, a creation judgment per topic started from an
    imported proposal; per LIST_JUDGES entry (judge -> (writer, error)), the writer's list on every topic (a judge of
    JUDGE_ERRORS, or one more judge that only writes) and the judge's marks on every answer against it."""
    rng = np.random.default_rng(seed)
    judge_errors = {"judge": 0.15} if judge_errors is None else judge_errors
    list_judges = list_judges or {}
    human_topics = topics if human_topics is None else human_topics
    run_names = [f"run{r:02d}" for r in range(runs)]
    qualities = list(np.linspace(0.2, 0.7, runs)) if qualities is None else list(qualities)
    campaign = Campaign.objects.create(slug=slug, name=slug, task_type="nugget_evaluation", overlap=2)
    users = [get_user_model().objects.create(username=f"{slug}-assessor{n}") for n in range(len(assessor_errors))]
    topic_rows = []
    for t in range(topics):
        listed = [{"id": f"t{t}n{n}", "text": f"nugget {n} of topic {t}",
                   "importance": VITAL if n < max(1, round(vital_share * nuggets)) else OKAY} for n in range(nuggets)]
        topic_rows.append(Topic(campaign=campaign, external_id=f"t{t:03d}", text=f"query {t}",
                                data={"nuggets": {"version": 1, "source": "import:sim", "nuggets": listed},
                                      "proposals": {"import:sim": listed}}))
    Topic.objects.bulk_create(topic_rows)
    topic_rows = list(Topic.objects.filter(campaign=campaign).order_by("external_id"))
    items = []
    for topic in topic_rows:
        if creations or list_judges:
            items.append(Item(campaign=campaign, topic=topic, kind=NUGGETS_KIND,
                              external_id=nuggets_item_id(topic.external_id)))
        for run in run_names:
            items.append(Item(campaign=campaign, topic=topic, kind=ANSWER_KIND,
                              external_id=answer_item_id(topic.external_id, run), text=f"answer of {run}",
                              data={"run": run, "round": 1, "sentences": [], "segments": {}}))
    Item.objects.bulk_create(items, batch_size=2000)
    items = list(Item.objects.filter(campaign=campaign).select_related("topic").order_by("id"))
    Unit.objects.bulk_create([Unit(campaign=campaign, topic=item.topic, item=item, position=n, judgments_needed=2)
                              for n, item in enumerate(items)], batch_size=2000)
    units = dict(Unit.objects.filter(campaign=campaign).values_list("item_id", "id"))
    SystemOutput.objects.bulk_create([SystemOutput(campaign=campaign, topic=item.topic, item=item, rank=1,
                                                   system=item.data["run"])
                                      for item in items if item.kind == ANSWER_KIND], batch_size=2000)
    names = dict.fromkeys([*judge_errors, *list_judges, *(writer for writer, _ in list_judges.values())])
    judges = {name: Judge.objects.create(campaign=campaign, name=name, family="external", config_hash=name)
              for name in names}
    writers = {writer for writer, _ in list_judges.values()}
    written = {}  # topic -> the writers' list's nugget ids (the same ids and importances for every writer)
    truth: dict = {}
    humans, verdicts = [], []
    for item in items:
        topic = item.topic
        order = [nugget["id"] for nugget in topic.data["nuggets"]["nuggets"]]
        if item.kind == NUGGETS_KIND:
            written[topic.pk] = [{"id": f"n{n + 1}", "text": f"judge nugget {n} of {topic.external_id}",
                                  "importance": VITAL if n < max(1, round(vital_share * nuggets)) else OKAY}
                                 for n in range(nuggets)]
            verdicts += [ModelJudgment(judge=judges[writer], item=item, label=CREATED_LABEL,
                                       raw=json.dumps({"nuggets": written[topic.pk]})) for writer in sorted(writers)]
            if not creations:
                continue
            kept = topic.data["nuggets"]["nuggets"][:-2]
            value = {"nuggets": [{**nugget, "origin": "kept" if n % 3 else "edited", "from": nugget["id"]}
                                 for n, nugget in enumerate(kept)]
                     + [{"id": "x1", "text": "an added nugget", "importance": OKAY, "origin": "added", "from": None}],
                     "started_from": "import:sim", "removed": [nugget["id"] for nugget in
                                                               topic.data["nuggets"]["nuggets"][-2:]]}
            humans.append(HumanJudgment(unit_id=units[item.pk], annotator=users[0], kind=JudgmentKind.ANNOTATION,
                                        value=value, label=CREATED_LABEL))
            continue
        run = item.data["run"]
        q = qualities[run_names.index(run)]
        true = rng.choice(3, size=len(order), p=[q, PARTIAL_SHARE, 1 - q - PARTIAL_SHARE])
        truth[(topic.external_id, run)] = true
        if int(topic.external_id[1:]) < human_topics:
            for user, error in zip(users, assessor_errors, strict=True):
                marks = dict(zip(order, (MARKS[c] for c in _given(true, error, rng)), strict=True))
                humans.append(HumanJudgment(unit_id=units[item.pk], annotator=user, kind=JudgmentKind.ANNOTATION,
                                            value={"version": 1, "marks": marks}, label=marks_label(marks, order)))
        for name, error in judge_errors.items():
            marks = dict(zip(order, (MARKS[c] for c in _given(true, error, rng)), strict=True))
            verdicts.append(ModelJudgment(judge=judges[name], item=item, label=marks_label(marks, order),
                                          raw=json.dumps({"version": 1, "marks": marks, "failed": {}})))
        if list_judges:
            listed = [nugget["id"] for nugget in written[topic.pk]]
            true_listed = rng.choice(3, size=len(listed), p=[q, PARTIAL_SHARE, 1 - q - PARTIAL_SHARE])
            for name, (writer, error) in list_judges.items():
                marks = dict(zip(listed, (MARKS[c] for c in _given(true_listed, error, rng)), strict=True))
                verdicts.append(ModelJudgment(
                    judge=judges[name], item=item, label=marks_label(marks, listed),
                    raw=json.dumps({"list": f"judge:{writer}", "marks": marks, "failed": {}})))
    HumanJudgment.objects.bulk_create(humans, batch_size=2000)
    ModelJudgment.objects.bulk_create(verdicts, batch_size=2000)
    return Simulated(campaign=campaign, qualities=dict(zip(run_names, qualities, strict=True)),
                     topics=[topic.external_id for topic in topic_rows], truth=truth)
