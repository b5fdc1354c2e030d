"""pairwise_preference's sample (TaskTypeSpec.sample): per prompt a pair of each two systems' responses, a
preference (a, b or a tie, and the side shown left); imported verdicts and an LLM asked in both orders."""

import json

from annotate.models import Item
from annotate.task_types.sample import InjectionSample, SampleItem, SampleJudge, TaskTypeSample
from interchange.importers.service import import_run

# The payloads of tests/project/test_browser_injection.py that Markdown leaves as they are (not "template" and
# "mathtext", each with a "*").
PLAIN = ("script", "attribute", "raw_text", "js_url", "js_string")


class PreferenceInjection(InjectionSample):
    """Four prompts, the two systems' responses to each (pairwise-jsonl); the first two prompts' pairs judged by
    two imported assessors, the others left for the annotator; the judges' scores labelled a or b."""

    next_key = "t"  # a tie
    plots = 2  # the scores with their intervals, the humans' win rates
    judge_labels = ("a", "b")

    def assessors(self, kit) -> tuple[str, str]:
        return (kit.loaded("assessor-1", "script", "attribute"), kit.loaded("assessor-2", "raw_text", "template"))

    def response(self, kit, label: str, star: str) -> str:
        """A response (Markdown, shown rendered): every payload but one of the two with a "*" in it, which together
        would make an emphasis and read back without their stars."""
        return kit.loaded(f"response {label}", *PLAIN, star)

    def build(self, kit):
        campaign = kit.campaign("pairwise_preference", overlap=1)
        loaded, (a, b) = kit.loaded, kit.systems
        lines = []
        for q in range(4):
            pair = {"prompt_id": f"p{q}{kit.topic_payload}", "prompt": loaded(f"prompt {q}"), "system_a": a,
                    "response_a": self.response(kit, f"a{q}", "template"), "system_b": b,
                    "response_b": self.response(kit, f"b{q}", "mathtext")}
            verdicts = [{"winner": ("a", "b", "tie")[(q + r) % 3], "annotator": name}
                        for r, name in enumerate(self.assessors(kit))] if q < 2 else [{}]
            lines += [json.dumps({**pair, **verdict}) for verdict in verdicts]
        import_run(campaign=campaign, fmt="pairwise-jsonl", paths=[kit.write("pairs.jsonl", lines)])
        for flip, name in enumerate(kit.judges, start=2):
            kit.judge_scores(campaign, name, flip=flip)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        data = assignment.unit.item.data
        return [assignment.unit.topic.text, data["a"]["text"], data["b"]["text"]]

    def plot_texts(self, kit, campaign) -> list[str]:
        """The systems (the judges are compared in the report's tables, not drawn)."""
        return list(kit.systems)


class PreferenceSample(TaskTypeSample):
    injection = PreferenceInjection()
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

    def form_answer(self, page) -> dict:
        return {"choice": "left"}

    def value(self, n, candidates) -> tuple[dict, str]:
        preferred = ("a", "b", "tie")[n % 3]
        return {"preferred": preferred, "left": "ab"[n % 2]}, preferred

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        """The LLM's two orders (judge 1), one verdict in three inconsistent; the imported verdicts have no raw."""
        first, second = ("a", "b", "a")[n % 3], ("a", "b", "b")[n % 3]
        label = first if first == second else "inconsistent"
        orders = {"ab": {"answer": first, "samples": ["Better: 1"]}, "ba": {"answer": second, "samples": ["Better: 1"]}}
        return None, label, json.dumps({"orders": orders, "consistent": first == second}) if judge == 1 else ""
