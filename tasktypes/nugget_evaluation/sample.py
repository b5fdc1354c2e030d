"""nugget_evaluation's sample (TaskTypeSpec.sample): per topic a frozen list of three nuggets and an answer of each
system, marked by the humans and by two imported judges (the assignment step; creation has its own tests)."""

import json

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge, TaskTypeSample, sample_score
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, MARKS, OKAY, VITAL, answer_item_id, marks_label

NUGGETS = [{"id": "n1", "text": "the first fact", "importance": VITAL},
           {"id": "n2", "text": "the second fact", "importance": VITAL},
           {"id": "n3", "text": "a third, lesser fact", "importance": OKAY}]
ORDER = [nugget["id"] for nugget in NUGGETS]


def sample_marks(n: int) -> dict:
    """The N-th set of marks: each nugget's mark drawn from N."""
    return {nugget: MARKS[(n + i * (n // 3)) % len(MARKS)] for i, nugget in enumerate(ORDER)}


class NuggetSample(TaskTypeSample):
    judges = (SampleJudge("nli", "external"), SampleJudge("marks", "external", {"source": "marks.jsonl"}))

    def topic_data(self, q: int) -> dict:
        return {"nuggets": {"version": 1, "source": "import:sample", "nuggets": NUGGETS},
                "passages": [{"id": f"seg-{q}", "text": f"a passage on subject {q}", "title": ""}]}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        answers = []
        for s in range(systems):
            run = f"system-{s}"
            text = f"answer {s} to topic {q}."
            sentences = [{"text": text, "citations": [f"seg-{q}"]}]
            answers.append(SampleItem(Item(campaign=campaign, topic=topic, kind=ANSWER_KIND,
                                           external_id=answer_item_id(str(q), run), text=text,
                                           data={"run": run, "round": 1, "sentences": sentences,
                                                 "segments": {f"seg-{q}": f"a passage on subject {q}"}}), run))
        return answers

    def value(self, n, candidates) -> tuple[dict, str]:
        marks = sample_marks(n)
        return {"version": 1, "marks": marks}, marks_label(marks, ORDER)

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        marks = sample_marks(n + judge)
        return sample_score(n), marks_label(marks, ORDER), json.dumps({"version": 1, "marks": marks, "failed": {}})
