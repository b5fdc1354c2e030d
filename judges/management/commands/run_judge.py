"""`manage.py run_judge`: queue a model judge run on Celery (docs/design.md §5), optionally wait for it.

    run_judge --campaign SLUG --judge NAME --family FAMILY [--config JSON-or-file] [--batch-size N] [--wait]
    run_judge --campaign SLUG --judge NAME --resume [--wait]
    run_judge --campaign SLUG --judge NAME --retry-failed [--wait]

--resume queues the latest run of judge NAME again for the items it has not judged yet (after a
cancel, a failure, or a worker that died); nothing already judged is judged again. --retry-failed
first removes the judge's failed verdicts (listed with their reasons), so those items are judged again. With --wait the
command prints progress ("412/1530 judged") until the run ends and exits non-zero unless it succeeded.
"""

import json
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from judges.errors import JudgeConfigError, JudgeRunError
from judges.families import FAMILIES
from judges.models import ACTIVE_RUN_STATUSES, Judge, JudgeRun, RunStatus
from judges.selectors import judge_failures, judge_run_latest, run_progress
from judges.services import judge_run_resume, judge_run_retry_failed, judge_run_start


def _config_parse(value: str | None) -> dict:
    if not value:
        return {}
    text = value
    if not value.lstrip().startswith("{"):
        path = Path(value)
        if not path.is_file():
            raise CommandError(f"--config: {value!r} is neither a JSON object nor a file")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"--config: cannot read {value}: {exc}") from exc
    try:
        config = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandError(f"--config: not valid JSON: {exc}") from exc
    if not isinstance(config, dict):
        raise CommandError("--config: must be a JSON object, e.g. '{\"threshold\": 0.5}'")
    return config


class Command(BaseCommand):
    help = (
        "Queue a model judge run on Celery. --resume continues the judge's latest run (cancelled, failed or "
        "interrupted) without judging any item twice. --wait shows progress and exits non-zero unless it succeeds."
    )

    def add_arguments(self, parser):
        parser.add_argument("--campaign", required=True, help="Campaign slug.")
        parser.add_argument(
            "--judge", required=True, help="Judge name; the same name always means the same configuration."
        )
        parser.add_argument("--family", choices=sorted(FAMILIES), help="Judge family (not needed with --resume).")
        parser.add_argument("--config", help="Configuration: a JSON object or the path of a JSON file.")
        parser.add_argument("--batch-size", type=int, default=None,
                            help="Items per Celery task (default: the family's, 64; 256 for transformer families).")
        parser.add_argument("--sample", type=int, default=None,
                            help="Judge only N items, the same N for every judge (a pilot, or an ablation).")
        parser.add_argument(
            "--resume", action="store_true", help="Resume the judge's latest run instead of starting one."
        )
        parser.add_argument("--retry-failed", action="store_true",
                            help="Judge again the items the judge failed on (listed first, with their reasons).")
        parser.add_argument("--wait", action="store_true", help="Block until the run ends, printing progress.")
        parser.add_argument("--poll", type=float, default=1.0, help="Seconds between progress checks with --wait.")
        parser.add_argument("--timeout", type=float, default=None, help="Give up waiting after this many seconds.")

    def handle(self, *args, **opts):
        campaign = Campaign.objects.filter(slug=opts["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign {opts['campaign']!r}")
        try:
            if opts["retry_failed"]:
                run = self._retry_failed(campaign, opts)
            elif opts["resume"]:
                run = self._resume(campaign, opts)
            else:
                run = self._start(campaign, opts)
        except (JudgeConfigError, JudgeRunError) as exc:
            raise CommandError(str(exc)) from exc
        progress = run_progress(run=run)
        verb = "resumed" if opts["resume"] or opts["retry_failed"] else "queued"
        self.stdout.write(
            f"{verb} run {run.id} of judge {run.judge.name} ({run.judge.family}) on {campaign.slug}: "
            f"{progress.judged}/{progress.total} judged, {run.status}"
        )
        if opts["wait"]:
            self._wait(run, poll=opts["poll"], timeout=opts["timeout"])

    def _start(self, campaign, opts) -> JudgeRun:
        if not opts["family"]:
            raise CommandError("--family is required to start a run (or use --resume)")
        return judge_run_start(
            campaign=campaign, name=opts["judge"], family=opts["family"], config=_config_parse(opts["config"]),
            batch_size=opts["batch_size"], sample=opts["sample"],
        )

    def _latest_run(self, campaign, opts) -> JudgeRun:
        judge = Judge.objects.filter(campaign=campaign, name=opts["judge"]).first()
        run = judge_run_latest(judge=judge) if judge else None
        if run is None:
            raise CommandError(f"judge {opts['judge']!r} has no run in {campaign.slug} to resume")
        return run

    def _resume(self, campaign, opts) -> JudgeRun:
        return judge_run_resume(run=self._latest_run(campaign, opts))

    def _retry_failed(self, campaign, opts) -> JudgeRun:
        run = self._latest_run(campaign, opts)
        failures = judge_failures(judge=run.judge)
        for group in failures.groups:
            self.stdout.write(f"{group.count} failed: {group.reason} (e.g. {', '.join(group.items)})")
        run, removed = judge_run_retry_failed(run=run)
        self.stdout.write(f"{removed} failed item{'s' if removed != 1 else ''} queued again")
        return run

    def _wait(self, run: JudgeRun, *, poll: float, timeout: float | None) -> None:
        started, last = time.monotonic(), None
        while True:
            run.refresh_from_db()
            progress = run_progress(run=run)
            line = f"{progress.judged}/{progress.total} judged"
            if line != last:
                self.stdout.write(line)
                self.stdout.flush()
                last = line
            if run.status not in ACTIVE_RUN_STATUSES:
                break
            if timeout is not None and time.monotonic() - started > timeout:
                raise CommandError(f"run {run.id} still {run.status} after {timeout:g} s ({line}); it goes on")
            time.sleep(poll)
        if run.status != RunStatus.SUCCEEDED:
            reason = f": {run.error}" if run.error else ""
            raise CommandError(f"run {run.id} {run.status} at {progress.judged}/{progress.total} judged{reason}")
        failed = f", {progress.failed} failed verdicts" if progress.failed else ""
        self.stdout.write(
            f"run {run.id} succeeded: {progress.judged}/{progress.total} judged ({progress.by_run} by this run{failed})"
        )
