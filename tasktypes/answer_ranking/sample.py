"""answer_ranking's sample (TaskTypeSpec.sample): per topic an answer of each system and a document, ranked by the
humans on one dimension; a ranker and imported scores."""

import json
import re

from django.urls import reverse

from annotate.models import Item
from annotate.task_types.sample import InjectionSample, SampleItem, SampleJudge, TaskTypeSample
from interchange.importers.service import import_run

# A candidate of the ranking page, by its neutral label (templates of tasktypes/answer_ranking).
RANK_KEY = re.compile(r'class="rank-item[^"]*"[^>]*data-key="([^"]+)"')


class RankingInjection(InjectionSample):
    """Four topics of two systems' answers (each under a prompt) and two documents (jsonl); the first two ranked by
    two imported experts, the others left for the annotator."""

    next_key = "c"  # keep the order shown, submit

    def rankers(self, kit) -> tuple[str, str]:
        return (kit.loaded("expert-1", "script", "attribute"),
                kit.loaded("expert-2", "raw_text", "template", "js_url", "js_string", "mathtext"))

    def prompts(self, kit) -> tuple[str, str]:
        return (kit.loaded("prompt 0", "script", "attribute", "mathtext"),
                kit.loaded("prompt 1", "raw_text", "js_string"))

    def build(self, kit):
        campaign = kit.campaign("answer_ranking", overlap=2)
        loaded, token, prompts = kit.loaded, kit.token, self.prompts(kit)
        lines = []
        for q in range(4):
            candidates = [
                {"id": token(f"a{q}{s}"), "kind": "answer", "text": loaded(f"generated answer {q}{s}"),
                 "system": system, "prompt": prompts[s]} for s, system in enumerate(kit.systems)
            ] + [{"id": token(f"d{q}{d}"), "kind": "document", "text": loaded(f"document {q}{d}"),
                  "docno": token(f"doc{q}{d}")} for d in range(2)]
            ids = [c["id"] for c in candidates]
            rankings = [{"annotator": name, "ranking": ids if r == 0 else [ids[-1], *ids[:-1]]}
                        for r, name in enumerate(self.rankers(kit))] if q < 2 else []  # 2 and 3 wait for "ann"
            lines.append(json.dumps({"qid": f"q{q}{kit.topic_payload}", "query": loaded(f"query {q}"),
                                     "candidates": candidates, "rankings": rankings}))
        import_run(campaign=campaign, fmt="jsonl", paths=[kit.write("topics.jsonl", lines)])
        for flip, name in enumerate(kit.judges, start=2):
            kit.judge_scores(campaign, name, flip=flip)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        topic = assignment.unit.topic
        return [topic.text, *topic.items.values_list("text", flat=True)]

    def report_texts(self, kit, campaign, report) -> list[str]:
        """Systems and prompts (NRP), the imported experts (pairs), topics and candidate ids (orders per topic)."""
        items = campaign.items.all()
        return [*kit.systems, *self.prompts(kit), *self.rankers(kit),
                *campaign.topics.values_list("external_id", flat=True), *(i.data["source_id"] for i in items)]

    def plot_texts(self, kit, campaign) -> list[str]:
        return [*kit.judges, *(f"{system} · {prompt}" for system, prompt in zip(kit.systems, self.prompts(kit),
                                                                                strict=True))]

    def downloads(self, kit, campaign, topics) -> list[tuple[str, str, list[str]]]:
        """Its topics' CSV instead of the systems'."""
        return [(reverse("agreement-topics-csv", args=[campaign.slug]), "csv", [*kit.judges, *topics])]


class RankingSample(TaskTypeSample):
    injection = RankingInjection()
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

    def form_answer(self, page) -> dict:
        """The candidates in the order shown, as "Keep this order" sends it (a first ranking says how its order was
        settled)."""
        order = [[key] for key in RANK_KEY.findall(page)]
        return {"ranking": json.dumps({"rankings": {"overall": order}, "order_confirmed": {"overall": "kept"}})}

    def value(self, n, candidates) -> tuple[dict, str]:
        order = candidates[n % len(candidates):] + candidates[:n % len(candidates)]
        return {"rankings": {"overall": [[pk] for pk in order]}}, "ranked"

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        score, _, _ = super().verdict(judge, n)
        return score, "", f"{score}"
