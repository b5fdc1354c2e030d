"""qa_correctness's sample (TaskTypeSpec.sample): a question with gold answers, one answer per system, a verdict of
correct or not; an exact-match judge and an LLM judge."""

import json

from annotate.models import Item
from annotate.task_types.sample import InjectionSample, SampleItem, SampleJudge, TaskTypeSample
from interchange.importers.service import import_run


class QaInjection(InjectionSample):
    """Three questions answered by each system (qa-eval-jsonl), judged on the web and by imported scores."""

    def build(self, kit):
        campaign = kit.campaign("qa_correctness", overlap=3)
        loaded = kit.loaded
        for s, system in enumerate(kit.systems):
            lines = [json.dumps({"question": loaded(f"question {q}"), "answer": [loaded(f"gold {q}")],
                                 "prediction": loaded(f"answer {q}{s}")}) for q in range(3)]
            import_run(campaign=campaign, fmt="qa-eval-jsonl", paths=[kit.write(f"sys{s}.jsonl", lines)],
                       system=system)
        kit.web_judgments(campaign, lambda r, n: {"correct": bool((n + r) % 3)})
        for flip, name in enumerate(kit.judges, start=2):
            kit.judge_scores(campaign, name, flip=flip)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        topic, item = assignment.unit.topic, assignment.unit.item
        return [topic.text, item.text, *topic.data["gold_answers"]]


class QaSample(TaskTypeSample):
    injection = QaInjection()
    judges = (SampleJudge("em", "em"), SampleJudge("llm-judge", "llm", {"model": "tiny", "n": 1}))
    bounds = {("api-campaign-judges", "researcher"): 13}  # its LLM judge's usage: one query more

    def topic_data(self, q: int) -> dict:
        return {"gold_answers": ["Ada Lovelace"]}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"{q}-{s}",
                                text="Ada Lovelace" if s == 0 else f"answer {q}-{s}"), f"system-{s}")
                for s in range(systems)]

    def form_answer(self, page) -> dict:
        return {"verdict": "yes"}

    def value(self, n, candidates) -> tuple[dict, str]:
        return {"correct": n % 3 != 0}, "yes" if n % 3 != 0 else "no"
