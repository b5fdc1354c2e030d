"""passage_relevance's sample (TaskTypeSpec.sample): pooled passages to grade per query, BM25 and imported grades."""

import json

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge
from interchange.importers.service import import_run
from tasktypes.graded.sample import GradedInjection, GradedSample


class PassageInjection(GradedInjection):
    """Two queries (trec-topics) and six passages (collection), graded 0 to 3."""

    def build(self, kit):
        campaign = kit.campaign("passage_relevance", overlap=1)
        topics = [f"q{n}{kit.topic_payload}" for n in range(2)]
        path = kit.write("topics.jsonl", [json.dumps({"qid": qid, "text": kit.loaded(f"query {n}")})
                                          for n, qid in enumerate(topics)])
        import_run(campaign=campaign, fmt="trec-topics", paths=[path])
        docids = [kit.token(f"doc-{n}") for n in range(6)]
        self.runs_import(kit, campaign, topics, docids)
        path = kit.write("collection.jsonl", [json.dumps({"docid": doc, "text": kit.loaded(f"passage {n}")})
                                              for n, doc in enumerate(docids)])
        import_run(campaign=campaign, fmt="collection", paths=[path])
        self.qrels_import(kit, campaign, topics[0], docids, 4)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        topic, item = assignment.unit.topic, assignment.unit.item
        return [topic.text, item.text, item.data["docid"]]


class PassageSample(GradedSample):
    injection = PassageInjection()
    judges = (SampleJudge("bm25", "bm25"), SampleJudge("grades", "external"))
    # Its annotation page costs more than the default (measured, plus headroom).
    bounds = {**GradedSample.bounds, ("annotate", "annotator"): 14, ("annotate?undo=", "annotator"): 13}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"{q}/p{q}-{n}", kind="passage",
                                text=f"passage {n} about subject {q}", data={"docid": f"p{q}-{n}"}))
                for n in range(systems + 1)]
