"""pairwise_preference's sample (TaskTypeSpec.sample): per prompt a pair of each two systems' responses, a
preference (a, b or a tie, and the side shown left); imported verdicts and an LLM asked in both orders."""

import json

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge, TaskTypeSample


class PreferenceSample(TaskTypeSample):
    judges = (SampleJudge("prefs", "external"), SampleJudge("llm-pairs", "llm", {"model": "tiny", "n": 1}))
    bounds = {("api-campaign-judges", "researcher"): 13}  # its LLM judge's usage: one query more

    def topic_data(self, q: int) -> dict:
        return {"gold_answers": ["Ada Lovelace"]}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        names = [f"system-{s}" for s in range(systems)]
        return [SampleItem(Item(campaign=campaign, topic=topic, external_id=f"{q}/{a}-vs-{b}", kind="pair", text="",
                                data={"a": {"system": a, "text": f"{a} says **{q}**"},
                                      "b": {"system": b, "text": f"{b} on {q}"}}))
                for n, a in enumerate(names) for b in names[n + 1:]]

    def value(self, n, candidates) -> tuple[dict, str]:
        preferred = ("a", "b", "tie")[n % 3]
        return {"preferred": preferred, "left": "ab"[n % 2]}, preferred

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        """The LLM's two orders (judge 1), one verdict in three inconsistent; the imported verdicts have no raw."""
        first, second = ("a", "b", "a")[n % 3], ("a", "b", "b")[n % 3]
        label = first if first == second else "inconsistent"
        orders = {"ab": {"answer": first, "samples": ["Better: 1"]}, "ba": {"answer": second, "samples": ["Better: 1"]}}
        return None, label, json.dumps({"orders": orders, "consistent": first == second}) if judge == 1 else ""
