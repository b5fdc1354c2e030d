"""The sentiment task type's sample (TaskTypeSpec.sample): a product per topic, a review of it by each system, a
verdict of positive, neutral or negative; BM25 (a score, no verdict) and an external judge's verdicts. Its part of the
browser injection journey imports reviews whose every text carries the journey's payloads."""

import json

from django.urls import reverse

from annotate.models import Item
from annotate.task_types.sample import InjectionSample, SampleItem, SampleJudge, TaskTypeSample, sample_score
from interchange.importers.service import import_run

SENTIMENTS = ("positive", "neutral", "negative")


class SentimentInjection(InjectionSample):
    """Two products of three reviews each (reviews-jsonl), judged on the web and by imported verdicts."""

    next_key = "p"
    plots = 0  # its report draws none
    judge_labels = ("positive", "negative")

    def build(self, kit):
        campaign = kit.campaign("sentiment", overlap=3)
        lines = [json.dumps({"product": f"{kit.topic_payload}-{q}", "review": f"r{r}",
                             "text": kit.loaded(f"review {q}{r}")}) for q in range(2) for r in range(3)]
        import_run(campaign=campaign, fmt="reviews-jsonl", paths=[kit.write("reviews.jsonl", lines)])
        # The two raters agree on every review but the fourth (a tie, left open for "ann").
        kit.web_judgments(campaign, lambda r, n: {"sentiment": "negative" if n % 2 and not (r and n == 3) else
                                                  "positive"})
        for flip, name in enumerate(kit.judges, start=2):
            kit.judge_scores(campaign, name, flip=flip, labels=self.judge_labels)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        return [assignment.unit.topic.text, assignment.unit.item.text]

    def systems(self, kit) -> list[str]:
        return []  # reviews come from no system

    def plot_texts(self, kit, campaign) -> list[str]:
        return []  # no plot

    def downloads(self, kit, campaign, topics) -> list[tuple[str, str, list[str]]]:
        """Its disagreements: each judge differs from the human label somewhere (every second or third flipped)."""
        return [(reverse("sentiment-disagreements", args=[campaign.slug]), "csv", list(kit.judges))]


class SentimentSample(TaskTypeSample):
    topic_id = "product-{}"
    judges = (SampleJudge("bm25", "bm25"), SampleJudge("lexicon", "external"))
    injection = SentimentInjection()

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"product-{q}/r{s}", kind="review",
                                text=f"Review {s} of product {q}: it works."), f"system-{s}")
                for s in range(systems)]

    def form_answer(self, page) -> dict:
        return {"sentiment": "positive"}

    def value(self, n, candidates) -> tuple[dict, str]:
        sentiment = SENTIMENTS[n % 3]
        return {"sentiment": sentiment}, sentiment

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        score = sample_score(n)
        if judge == 0:
            return score, "", f"{score}"
        return None, SENTIMENTS[n % 3], SENTIMENTS[n % 3]
