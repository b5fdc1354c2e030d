"""qa_correctness's sample (TaskTypeSpec.sample): a question with gold answers, one answer per system, a verdict of
correct or not; an exact-match judge and an LLM judge."""

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge, TaskTypeSample


class QaSample(TaskTypeSample):
    judges = (SampleJudge("em", "em"), SampleJudge("llm-judge", "llm", {"model": "tiny", "n": 1}))
    bounds = {("api-campaign-judges", "researcher"): 13}  # its LLM judge's usage: one query more

    def topic_data(self, q: int) -> dict:
        return {"gold_answers": ["Ada Lovelace"]}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"{q}-{s}",
                                text="Ada Lovelace" if s == 0 else f"answer {q}-{s}"), f"system-{s}")
                for s in range(systems)]

    def value(self, n, candidates) -> tuple[dict, str]:
        return {"correct": n % 3 != 0}, "yes" if n % 3 != 0 else "no"
