"""Reads for judges and judge runs. Progress is always counted from the judgments themselves.

A run's progress is the number of the judge's ModelJudgments over the campaign's items, never a
counter the workers increment: a redelivered batch or a resumed run cannot make it drift.
"""

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet

from annotate.models import Campaign, Item
from judges.models import ACTIVE_RUN_STATUSES, Judge, JudgeRun, ModelJudgment


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


def judge_judged_count(*, judge: Judge) -> int:
    return ModelJudgment.objects.filter(judge=judge, item__campaign_id=judge.campaign_id).count()


def judge_pending_item_ids(*, judge: Judge) -> list[int]:
    """Ids of the campaign's items that JUDGE has no verdict for, in id order."""
    judged = ModelJudgment.objects.filter(judge=judge).values("item_id")
    return list(
        Item.objects.filter(campaign_id=judge.campaign_id).exclude(id__in=judged).order_by("id").values_list("id", flat=True)
    )


def run_progress(*, run: JudgeRun) -> RunProgress:
    counts = ModelJudgment.objects.filter(judge_id=run.judge_id, item__campaign_id=run.judge.campaign_id).aggregate(
        judged=Count("id"), by_run=Count("id", filter=Q(run_id=run.id)), failed=Count("id", filter=Q(failed=True))
    )
    return RunProgress(judged=counts["judged"], total=run.total, by_run=counts["by_run"], failed=counts["failed"])


def run_is_active(*, run: JudgeRun) -> bool:
    return run.status in ACTIVE_RUN_STATUSES


def judge_runs_for_campaign(*, campaign: Campaign) -> QuerySet[JudgeRun]:
    return JudgeRun.objects.filter(judge__campaign=campaign).select_related("judge", "created_by").order_by("-created_at", "-id")


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
