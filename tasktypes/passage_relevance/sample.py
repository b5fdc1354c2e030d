"""passage_relevance's sample (TaskTypeSpec.sample): pooled passages to grade per query, BM25 and imported grades."""

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge
from tasktypes.graded.sample import GradedSample


class PassageSample(GradedSample):
    judges = (SampleJudge("bm25", "bm25"), SampleJudge("grades", "external"))
    # Its annotation page costs more than the default (measured, plus headroom).
    bounds = {**GradedSample.bounds, ("annotate", "annotator"): 14, ("annotate?undo=", "annotator"): 13}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"{q}/p{q}-{n}", kind="passage",
                                text=f"passage {n} about subject {q}", data={"docid": f"p{q}-{n}"}))
                for n in range(systems + 1)]
