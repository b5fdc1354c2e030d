"""The sentiment task type's sample (TaskTypeSpec.sample): a product per topic, a review of it by each system, a
verdict of positive, neutral or negative; BM25 (a score, no verdict) and an external judge's verdicts."""

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge, TaskTypeSample, sample_score

SENTIMENTS = ("positive", "neutral", "negative")


class SentimentSample(TaskTypeSample):
    topic_id = "product-{}"
    judges = (SampleJudge("bm25", "bm25"), SampleJudge("lexicon", "external"))

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"product-{q}/r{s}", kind="review",
                                text=f"Review {s} of product {q}: it works."), f"system-{s}")
                for s in range(systems)]

    def value(self, n, candidates) -> tuple[dict, str]:
        sentiment = SENTIMENTS[n % 3]
        return {"sentiment": sentiment}, sentiment

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        score = sample_score(n)
        if judge == 0:
            return score, "", f"{score}"
        return None, SENTIMENTS[n % 3], SENTIMENTS[n % 3]
