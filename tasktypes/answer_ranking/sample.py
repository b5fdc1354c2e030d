"""answer_ranking's sample (TaskTypeSpec.sample): per topic an answer of each system and a document, ranked by the
humans on one dimension; a ranker and imported scores."""

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge, TaskTypeSample


class RankingSample(TaskTypeSample):
    options = {"dimensions": ["overall"]}
    judges = (SampleJudge("bm25", "bm25"), SampleJudge("mono", "external"))
    # Its annotation and adjudication pages cost more than the default (measured, plus headroom).
    bounds = {("annotate", "annotator"): 13, ("annotate?undo=", "annotator"): 13,
              ("adjudicate-unit", "researcher"): 20, ("api-campaign-adjudication-unit", "researcher"): 15}

    def topic_data(self, q: int) -> dict:
        return {"narrative": f"Answers about subject {q}."}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        answers = [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"{q}/a{s}",
                                   text=f"answer {s} to query {q}",
                                   data={"source_id": f"a{s}", "system": f"system-{s}", "prompt": "p1"}),
                              f"system-{s}", {"data": {"prompt": "p1"}}) for s in range(systems)]
        document = SampleItem(Item(campaign=campaign, topic=topic, external_id=f"{q}/d0", kind="document",
                                   text=f"a passage on {q}", data={"source_id": "d0", "docno": f"doc-{q}"}))
        return [*answers, document]

    def value(self, n, candidates) -> tuple[dict, str]:
        order = candidates[n % len(candidates):] + candidates[:n % len(candidates)]
        return {"rankings": {"overall": [[pk] for pk in order]}}, "ranked"

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        score, _, _ = super().verdict(judge, n)
        return score, "", f"{score}"
