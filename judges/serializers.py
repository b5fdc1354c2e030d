"""Serializers of the judge-run API. Progress is read through judges.selectors, never stored."""

from rest_framework import serializers

from judges.families import FAMILIES
from judges.models import Judge, JudgeRun
from judges.secrets import config_public
from judges.selectors import judge_usage, run_progress, run_throughput
from judges.services import MAX_BATCH_SIZE


class JudgeSerializer(serializers.ModelSerializer):
    judgments = serializers.IntegerField(source="judgment_count", read_only=True)
    failed = serializers.IntegerField(source="failed_count", read_only=True)
    external = serializers.BooleanField(source="is_external", read_only=True)
    config = serializers.SerializerMethodField(help_text="The configuration; an API key in it shows as ***.")
    usage = serializers.SerializerMethodField(
        help_text="LLM judges: samples, prompt and completion tokens, generation seconds and cost so far; "
                  "null otherwise."
    )
    items_not_judged = serializers.SerializerMethodField(
        help_text="How many of the campaign's items the judge has not judged yet (new items of an import): POST "
                  "judges/ID/judge-new-items/ judges them. Null for an imported judge, which cannot run."
    )

    class Meta:
        model = Judge
        fields = [
            "id", "name", "family", "config", "config_hash", "external", "judgments", "failed", "items_not_judged",
            "usage", "created_at",
        ]

    def get_config(self, judge) -> dict:
        return config_public(judge.config)

    def get_items_not_judged(self, judge) -> int | None:
        new_items = self.context.get("new_items", {}).get(judge.id)  # judges.selectors.judges_new_items, by the view
        return None if new_items is None else new_items.unjudged

    def get_usage(self, judge) -> dict | None:
        usage = judge_usage(judge=judge)
        return None if usage is None else usage.as_dict()


class JudgeRunSerializer(serializers.ModelSerializer):
    judge = serializers.CharField(source="judge.name", read_only=True)
    family = serializers.CharField(source="judge.family", read_only=True)
    campaign = serializers.CharField(source="judge.campaign.slug", read_only=True)
    sampled = serializers.SerializerMethodField(help_text="True when the run covers a sample of `total` items.")
    judged = serializers.SerializerMethodField(help_text="Items of the campaign the judge has a verdict for.")
    judged_by_run = serializers.SerializerMethodField(help_text="Verdicts written by this run (the rest were cached).")
    failed = serializers.SerializerMethodField(help_text="The judge's failed verdicts (raw says why).")
    pairs_per_second = serializers.SerializerMethodField(
        help_text="pairs_metered / model_seconds; null for a run that made no forward passes (em, f1, bm25, HTTP llm).")
    tokens_per_second = serializers.SerializerMethodField(help_text="tokens / model_seconds; null likewise.")
    padding_share = serializers.SerializerMethodField(
        help_text="1 - tokens / padded_tokens: the part of the tokens computed that was padding; null likewise.")
    items_per_second = serializers.SerializerMethodField(
        help_text="judged_by_run over the wall time from started_at to finished_at; null while the run is active, "
                  "and for a run that made no forward passes.")

    class Meta:
        model = JudgeRun
        fields = [
            "id", "campaign", "judge", "family", "status", "total", "sampled", "judged", "judged_by_run", "failed",
            "batch_size", "error", "created_at", "started_at", "finished_at",
            "pairs_metered", "tokens", "padded_tokens", "model_seconds",
            "pairs_per_second", "tokens_per_second", "padding_share", "items_per_second",
        ]

    def _progress(self, run):
        cache = self.context.setdefault("_progress", {})
        if run.id not in cache:
            cache[run.id] = run_progress(run=run)
        return cache[run.id]

    def get_sampled(self, run) -> bool:
        return run.sample_item_ids is not None

    def get_judged(self, run) -> int:
        return self._progress(run).judged

    def get_judged_by_run(self, run) -> int:
        return self._progress(run).by_run

    def get_failed(self, run) -> int:
        return self._progress(run).failed

    def _rate(self, run, name: str) -> float | None:
        throughput = run_throughput(run=run, progress=self._progress(run))
        return None if throughput is None else getattr(throughput, name)

    def get_pairs_per_second(self, run) -> float | None:
        return self._rate(run, "pairs_per_second")

    def get_tokens_per_second(self, run) -> float | None:
        return self._rate(run, "tokens_per_second")

    def get_padding_share(self, run) -> float | None:
        return self._rate(run, "padding_share")

    def get_items_per_second(self, run) -> float | None:
        return self._rate(run, "items_per_second")


class JudgeRunStartSerializer(serializers.Serializer):
    judge = serializers.CharField(
        max_length=100, help_text="Judge name; the same name always means the same configuration."
    )
    family = serializers.ChoiceField(choices=sorted(FAMILIES))
    config = serializers.JSONField(required=False, default=dict, help_text='e.g. {"threshold": 0.5} for f1.')
    batch_size = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, max_value=MAX_BATCH_SIZE,
        help_text="Items per Celery task; null or absent: the family's default (64; 256 for transformer families).",
    )
    sample = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1,
        help_text="Judge only this many items, chosen by a fixed hash of their ids: the same items for every judge.",
    )


class FailureGroupSerializer(serializers.Serializer):
    reason = serializers.CharField()
    count = serializers.IntegerField(help_text="Failed items with this reason, among those read.")
    items = serializers.ListField(child=serializers.CharField(), help_text="External ids of the first few of them.")


class JudgeFailuresSerializer(serializers.Serializer):
    judge = serializers.CharField(source="judge.name")
    total = serializers.IntegerField(help_text="The judge's failed verdicts.")
    read = serializers.IntegerField(help_text="How many of them the groups were built from.")
    groups = FailureGroupSerializer(many=True)


class RetryFailedSerializer(serializers.Serializer):
    removed = serializers.IntegerField(help_text="Failed verdicts removed and queued again.")
    run = JudgeRunSerializer()


class ModelEndpointSerializer(serializers.Serializer):
    """A model endpoint as researchers see it: never its key, nor where the workers keep it."""

    name = serializers.CharField(help_text="What a judge's configuration names in its endpoint option.")
    base_url = serializers.CharField(help_text="Where the items' texts are sent.")
    models = serializers.ListField(child=serializers.CharField(), help_text="Model ids it serves; empty: any.")
    key = serializers.BooleanField(help_text="True when the server is sent a key (which staff keep).")
    max_concurrency = serializers.IntegerField(help_text="Most requests in flight per batch.")
    price_per_1k_prompt_tokens = serializers.FloatField()
    price_per_1k_completion_tokens = serializers.FloatField()
    notes = serializers.CharField()


class ErrorSerializer(serializers.Serializer):
    detail = serializers.CharField()
