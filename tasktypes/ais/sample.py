"""ais's sample (TaskTypeSpec.sample): an answer per system with its evidence passage, a verdict of interpretable and
supported or not; AutoAIS (which cuts long passages: one raw output in two says so) and imported verdicts."""

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge, TaskTypeSample


class AisSample(TaskTypeSample):
    judges = (SampleJudge("autoais", "autoais", {"long_passages": "truncate"}), SampleJudge("auto-ais", "external"))

    def topic_data(self, q: int) -> dict:
        return {"gold_answers": ["Ada Lovelace"]}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"ais-{q}-{s}",
                                text=f"Place {q} has {s} bridges.",
                                data={"passage": f"Place {q} is a town with {q + s} bridges.", "title": f"Place {q}",
                                      "section": "History", "url": f"https://en.wikipedia.org/wiki/Place_{q}",
                                      "system": f"system-{s}"}), f"system-{s}")
                for s in range(systems)]

    def value(self, n, candidates) -> tuple[dict, str]:
        supported = n % 3 != 0
        return {"interpretable": True, "supported": supported}, "yes" if supported else "no"

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        score, label, raw = super().verdict(judge, n)
        return score, label, f"512 tokens, truncated to 256 {label}" if judge == 0 and n % 2 else raw
