"""Reads for judges and judge runs. Progress is always counted from the judgments themselves.

A run's progress is the number of the judge's ModelJudgments over the campaign's items, never a
counter the workers increment: a redelivered batch or a resumed run cannot make it drift.
"""

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet, Sum

from annotate.models import Campaign, Item
from judges.endpoints import endpoint_prices
from judges.families import SAMPLE_FAMILIES
from judges.identity import config_changes
from judges.models import ACTIVE_RUN_STATUSES, EXTERNAL_FAMILY, Judge, JudgeRun, LLMSample, ModelJudgment


@dataclass(frozen=True)
class RunProgress:
    judged: int  # items of the campaign the judge has a verdict for (this run, earlier runs, cache)
    total: int  # items the run must cover
    by_run: int  # verdicts written by this run
    failed: int  # the judge's failed verdicts over the campaign

    @property
    def percent(self) -> int:
        if not self.total:
            return 100
        return min(100, round(100 * self.judged / self.total))


@dataclass(frozen=True)
class RunThroughput:
    """What a run's forward passes cost (counts the workers added) and the rates they give."""

    pairs: int  # pairs scored in metered forward passes (a batch that raised and was asked again counts twice)
    tokens: int  # their real tokens
    padded_tokens: int  # tokens the passes computed, padding included
    model_seconds: float  # seconds inside forward passes
    items: int  # verdicts written by the run
    wall_seconds: float | None  # from start to finish; None while the run has not finished

    @property
    def pairs_per_second(self) -> float | None:
        return self.pairs / self.model_seconds if self.model_seconds > 0 else None

    @property
    def tokens_per_second(self) -> float | None:
        return self.tokens / self.model_seconds if self.model_seconds > 0 else None

    @property
    def padding_share(self) -> float | None:
        """The part of the computed tokens that was padding: 1 - tokens / padded tokens."""
        return 1 - self.tokens / self.padded_tokens if self.padded_tokens else None

    @property
    def padding_percent(self) -> float | None:
        share = self.padding_share
        return None if share is None else 100 * share

    @property
    def items_per_second(self) -> float | None:
        """Verdicts per second of the run's wall time: loading the model, queueing and writing included."""
        return self.items / self.wall_seconds if self.wall_seconds and self.items else None


def run_throughput(*, run: JudgeRun, progress: RunProgress) -> RunThroughput | None:
    """RUN's throughput; None when it made no metered forward passes (em, f1, bm25, an llm over HTTP), so that
    nothing shows rather than zeros that look like figures."""
    if not run.pairs_metered:
        return None
    wall = None
    if run.started_at and run.finished_at and run.status not in ACTIVE_RUN_STATUSES:
        wall = (run.finished_at - run.started_at).total_seconds()
    return RunThroughput(pairs=run.pairs_metered, tokens=run.tokens, padded_tokens=run.padded_tokens,
                         model_seconds=run.model_seconds, items=progress.by_run, wall_seconds=wall)


def campaign_item_sample(*, campaign_id: int, size: int) -> list[int]:
    """SIZE item ids of the campaign, in id order: the same ones for every judge, so judges run on a sample
    are compared on the same items. Items are ordered by a hash of their id, so a smaller sample is part
    of a larger one."""
    ids = Item.objects.filter(campaign_id=campaign_id).values_list("id", flat=True)
    return sorted(sorted(ids, key=lambda item_id: hashlib.sha256(f"concord-sample-{item_id}".encode()).digest())[:size])


def run_item_ids(*, run: JudgeRun) -> list[int] | None:
    """The items RUN must cover when it judges a sample; None when it covers the whole campaign."""
    return run.sample_item_ids


def judge_judged_count(*, judge: Judge, item_ids: list[int] | None = None) -> int:
    """Items of the campaign JUDGE has a verdict for (among ITEM_IDS when given)."""
    judgments = ModelJudgment.objects.filter(judge=judge, item__campaign_id=judge.campaign_id)
    if item_ids is not None:
        judgments = judgments.filter(item_id__in=item_ids)
    return judgments.count()


def judge_failed_count(*, judge: Judge, item_ids: list[int] | None = None) -> int:
    """Items of the campaign JUDGE gave a failed verdict on (among ITEM_IDS when given)."""
    judgments = ModelJudgment.objects.filter(judge=judge, item__campaign_id=judge.campaign_id, failed=True)
    if item_ids is not None:
        judgments = judgments.filter(item_id__in=item_ids)
    return judgments.count()


def judge_pending_item_ids(*, judge: Judge, item_ids: list[int] | None = None) -> list[int]:
    """Ids of the campaign's items (or of ITEM_IDS) that JUDGE has no verdict for, in id order."""
    judged = ModelJudgment.objects.filter(judge=judge).values("item_id")
    items = Item.objects.filter(campaign_id=judge.campaign_id)
    if item_ids is not None:
        items = items.filter(id__in=item_ids)
    return list(items.exclude(id__in=judged).order_by("id").values_list("id", flat=True))


def run_progress(*, run: JudgeRun) -> RunProgress:
    judgments = ModelJudgment.objects.filter(judge_id=run.judge_id, item__campaign_id=run.judge.campaign_id)
    sample = run_item_ids(run=run)
    if sample is not None:
        judgments = judgments.filter(item_id__in=sample)
    counts = judgments.aggregate(
        judged=Count("id"), by_run=Count("id", filter=Q(run_id=run.id)), failed=Count("id", filter=Q(failed=True))
    )
    return RunProgress(judged=counts["judged"], total=run.total, by_run=counts["by_run"], failed=counts["failed"])


def run_is_active(*, run: JudgeRun) -> bool:
    return run.status in ACTIVE_RUN_STATUSES


def judge_runs_for_campaign(*, campaign: Campaign) -> QuerySet[JudgeRun]:
    return (
        JudgeRun.objects.filter(judge__campaign=campaign)
        .select_related("judge", "created_by")
        .order_by("-created_at", "-id")
    )


def judge_run_latest(*, judge: Judge) -> JudgeRun | None:
    return judge.runs.order_by("-created_at", "-id").first()


def judge_run_for_researcher(*, user, run_id: int) -> JudgeRun:
    """The run RUN_ID if USER researches its campaign, else JudgeRun.DoesNotExist."""
    return JudgeRun.objects.select_related("judge", "judge__campaign").get(
        pk=run_id, judge__campaign__in=Campaign.objects.researched_by(user)
    )


def judges_for_campaign(*, campaign: Campaign) -> QuerySet[Judge]:
    """The campaign's judges, imported (external) ones too, with their judgment and failure counts."""
    return (
        Judge.objects.filter(campaign=campaign)
        .annotate(
            judgment_count=Count("judgments", distinct=True),
            failed_count=Count("judgments", filter=Q(judgments__failed=True), distinct=True),
        )
        .order_by("name")
    )


def judge_versions(*, campaign: Campaign) -> list[dict]:
    """The campaign's model judges as versions, family by family (those with two judges or more), oldest first: each
    with its number, name, configuration hash, when it was made and marked final, and the settings that changed from
    the version before it (judges.identity.config_changes). Imported judges have no configuration to compare. One
    query."""
    rows = (Judge.objects.filter(campaign=campaign).exclude(family=EXTERNAL_FAMILY)
            .order_by("family", "created_at", "id")
            .values("id", "name", "family", "config", "config_hash", "created_at", "final_at"))
    families: dict[str, list[dict]] = {}
    for row in rows:
        families.setdefault(row["family"], []).append(row)
    groups = []
    for family, judges in families.items():
        if len(judges) < 2:
            continue
        versions = []
        for number, judge in enumerate(judges, 1):
            previous = judges[number - 2] if number > 1 else None
            changes = [] if previous is None else [change["key"] for change in config_changes(previous["config"],
                                                                                               judge["config"])]
            versions.append({**{key: judge[key] for key in ("id", "name", "config_hash", "created_at", "final_at")},
                             "number": number, "previous": previous["name"] if previous else None, "changes": changes})
        groups.append({"family": family, "versions": versions})
    return groups


@dataclass(frozen=True)
class JudgeNewItems:
    """What the judge page offers a judge that can run: the campaign's items it has not judged yet."""

    unjudged: int
    active_run: int | None  # the judge's queued or running run, which must end before another starts


def judges_new_items(*, campaign: Campaign, judges) -> dict[int, JudgeNewItems]:
    """judge id -> its new items, for each of JUDGES (from judges_for_campaign: their judgment counts) that can run
    (imported judges cannot); two queries whatever the number of judges."""
    items = Item.objects.filter(campaign=campaign).count()
    active = dict(JudgeRun.objects.filter(judge__campaign=campaign, status__in=ACTIVE_RUN_STATUSES)
                  .values_list("judge_id", "id"))
    return {judge.id: JudgeNewItems(unjudged=max(0, items - judge.judgment_count), active_run=active.get(judge.id))
            for judge in judges if not judge.is_external}


@dataclass(frozen=True)
class JudgeUsage:
    """What an LLM judge's stored samples cost: the token counter of the judge panel and the API."""

    samples: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cost: float  # in the currency of the judge's model endpoint's prices per 1,000 tokens; 0 without prices

    def as_dict(self) -> dict:
        return {
            "samples": self.samples, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
            "seconds": round(self.seconds, 3), "cost": round(self.cost, 6),
        }


def _usage(totals: dict, prices: tuple[float, float]) -> JudgeUsage:
    prompt, completion = totals.get("prompt") or 0, totals.get("completion") or 0
    cost = (prompt * prices[0] + completion * prices[1]) / 1000
    return JudgeUsage(samples=totals.get("samples") or 0, prompt_tokens=prompt, completion_tokens=completion,
                      seconds=totals.get("seconds") or 0.0, cost=cost)


_NO_PRICES = (0.0, 0.0)
_USAGE_TOTALS = {"samples": Count("id"), "prompt": Sum("prompt_tokens"), "completion": Sum("completion_tokens"),
                 "seconds": Sum("seconds")}


def judge_usage(*, judge: Judge) -> JudgeUsage | None:
    """Totals over the judge's cached samples; None for judges that generate no samples."""
    if judge.family not in SAMPLE_FAMILIES:
        return None
    config = judge.config or {}
    prices = endpoint_prices(configs=[config]).get(config.get("endpoint"), _NO_PRICES)
    return _usage(LLMSample.objects.filter(judge=judge).aggregate(**_USAGE_TOTALS), prices)


def judges_usage_for_campaign(*, campaign: Campaign, configs: dict[int, dict] | None = None) -> dict[int, JudgeUsage]:
    """judge id -> usage, for the campaign's generating judges (llm, vlm); three queries whatever the number of
    judges (two when the caller has already read those judges' CONFIGS, judge id -> configuration). Costs are
    priced by each judge's model endpoint."""
    totals = {row["judge_id"]: row for row in
              LLMSample.objects.filter(judge__campaign=campaign).values("judge_id").annotate(**_USAGE_TOTALS)}
    if configs is None:
        configs = dict(Judge.objects.filter(campaign=campaign, family__in=SAMPLE_FAMILIES).values_list("id", "config"))
    prices = endpoint_prices(configs=list(configs.values()))
    return {judge_id: _usage(totals.get(judge_id, {}), prices.get((config or {}).get("endpoint"), _NO_PRICES))
            for judge_id, config in configs.items()}


@dataclass(frozen=True)
class ServedModels:
    """The model ids a server reported for one judge's samples (judges.llm.backend.Generation.model): samples per
    model id, and the runs whose samples name more than one (the model changed while the run was under way)."""

    samples: dict[str, int]
    runs_mixed: tuple[int, ...] = ()

    @property
    def changed(self) -> bool:
        """More than one model id answered under this one configuration: its verdicts are not one model's."""
        return len(self.samples) > 1

    def text(self) -> str:
        """"m (120 samples)", or every id with its samples and the runs that mixed them."""
        shown = ", ".join(f"{model} ({count} sample{'s' if count != 1 else ''})"
                          for model, count in sorted(self.samples.items(), key=lambda pair: (-pair[1], pair[0])))
        if not self.changed:
            return shown
        where = (f"; run{'s' if len(self.runs_mixed) > 1 else ''} {', '.join(map(str, self.runs_mixed))} changed "
                 f"model mid-run" if self.runs_mixed else "; the model changed between runs")
        return f"{len(self.samples)} model ids: {shown}{where}"


def judges_served_models(*, campaign: Campaign) -> dict[int, ServedModels]:
    """judge id -> the model ids the server reported for its samples, for the campaign's judges that have any (HTTP
    LLM and VLM judges; local models report none). One query."""
    rows = (LLMSample.objects.filter(judge__campaign=campaign).exclude(served_model="")
            .values_list("judge_id", "run_id", "served_model").annotate(n=Count("id")).order_by())
    samples: dict[int, Counter] = defaultdict(Counter)
    per_run: dict[tuple[int, int], set[str]] = defaultdict(set)
    for judge_id, run_id, model, count in rows:
        samples[judge_id][model] += count
        if run_id is not None:
            per_run[judge_id, run_id].add(model)
    mixed: dict[int, list[int]] = defaultdict(list)
    for (judge_id, run_id), models in sorted(per_run.items()):
        if len(models) > 1:
            mixed[judge_id].append(run_id)
    return {judge_id: ServedModels(dict(counts), tuple(mixed[judge_id])) for judge_id, counts in samples.items()}


# How many of a judge's failed verdicts the panel reads to group them by reason, and items it names per reason.
FAILURES_READ = 2_000
FAILURE_EXAMPLES = 5
_REASON_CHARS = 300


def verdict_reason(raw: str) -> str:
    """Why a failed verdict failed: the "reason" of a JSON verdict (llm, vlm), else its raw text."""
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    reason = body.get("reason") if isinstance(body, dict) else None
    text = str(reason) if reason else raw
    return text[:_REASON_CHARS] or "(no reason given)"


@dataclass(frozen=True)
class FailureGroup:
    reason: str
    count: int  # among the failures read
    items: list[str]  # external ids of the first few items


@dataclass(frozen=True)
class JudgeFailures:
    judge: Judge
    total: int  # the judge's failed verdicts
    read: int  # how many of them the groups were built from (at most FAILURES_READ)
    groups: list[FailureGroup]
    run: JudgeRun | None  # the judge's latest run: what "retry failed items" queues again


def judge_failures(*, judge: Judge, total: int | None = None) -> JudgeFailures:
    """JUDGE's failed verdicts (TOTAL of them, counted when not given) grouped by reason, most frequent first."""
    if total is None:
        total = ModelJudgment.objects.filter(judge=judge, failed=True).count()
    rows = (ModelJudgment.objects.filter(judge=judge, failed=True).order_by("item_id")
            .values_list("item__external_id", "raw")[:FAILURES_READ])
    groups: dict[str, list[str]] = {}
    for external_id, raw in rows:
        groups.setdefault(verdict_reason(raw), []).append(external_id)
    ordered = sorted(groups.items(), key=lambda pair: (-len(pair[1]), pair[0]))
    return JudgeFailures(
        judge=judge,
        total=total,
        read=sum(len(items) for items in groups.values()),
        groups=[
            FailureGroup(reason=reason, count=len(items), items=items[:FAILURE_EXAMPLES]) for reason, items in ordered
        ],
        run=judge_run_latest(judge=judge),
    )


def campaign_failures(*, judges) -> list[JudgeFailures]:
    """The failures of each of JUDGES (from judges_for_campaign) that has some; two queries per such judge."""
    return [judge_failures(judge=judge, total=judge.failed_count) for judge in judges if judge.failed_count]
