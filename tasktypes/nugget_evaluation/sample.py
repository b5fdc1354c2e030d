"""nugget_evaluation's sample (TaskTypeSpec.sample): per topic a frozen list of three nuggets and an answer of each
system, marked by the humans and by two imported judges (the assignment step; creation has its own tests)."""

import json
import re

from annotate.models import Item, Unit
from annotate.task_types.sample import InjectionSample, SampleItem, SampleJudge, TaskTypeSample, sample_score
from interchange.importers.service import import_run
from tasktypes.nugget_evaluation.layout import (
    ANSWER_KIND,
    MARKS,
    NUGGETS_KIND,
    OKAY,
    VITAL,
    answer_item_id,
    marks_label,
)

# A nugget the marking page shows, by its id (templates of tasktypes/nugget_evaluation).
NUGGET_MARK = re.compile(r'class="nugget-mark"[^>]*data-nugget="([^"]+)"')

NUGGETS = [{"id": "n1", "text": "the first fact", "importance": VITAL},
           {"id": "n2", "text": "the second fact", "importance": VITAL},
           {"id": "n3", "text": "a third, lesser fact", "importance": OKAY}]
ORDER = [nugget["id"] for nugget in NUGGETS]


def sample_marks(n: int) -> dict:
    """The N-th set of marks: each nugget's mark drawn from N."""
    return {nugget: MARKS[(n + i * (n // 3)) % len(MARKS)] for i, nugget in enumerate(ORDER)}


class NuggetInjection(InjectionSample):
    """Four topics, the two systems' answers to each with a cited segment (rag-answers), a one-nugget list per topic
    (nuggetizer-nuggets); the first two topics' answers marked by two imported assessors, the others left for the
    annotator; the three judges' marks imported (nuggetizer-assignments under their names). The topics' creation
    units are closed: their lists came with the import."""

    next_key = "s"  # marks the one nugget: the last mark submits
    plots = 2  # the run scores, humans against each judge; the per-topic tau

    def assessors(self, kit) -> tuple[str, str]:
        return (kit.loaded("assessor-1", "script", "attribute"), kit.loaded("assessor-2", "raw_text", "template"))

    def build(self, kit):
        campaign = kit.campaign("nugget_evaluation", overlap=1)
        loaded = kit.loaded
        answers, segments, nuggets, marks = [], [], [], []
        for q in range(4):
            topic = f"t{q}{kit.topic_payload}"
            segment = kit.token(f"seg{q}")
            segments.append(json.dumps({"docid": segment, "segment": loaded(f"segment {q}"),
                                        "title": loaded(f"title {q}")}))
            nugget = {"text": loaded(f"nugget {q}"), "importance": VITAL}
            nuggets.append(json.dumps({"qid": topic, "query": loaded(f"topic {q}"), "nuggets": [nugget]}))
            for s, system in enumerate(kit.systems):
                text = loaded(f"answer {q}{s}")
                answers.append(json.dumps({"run_id": system, "topic_id": topic, "topic": loaded(f"topic {q}"),
                                           "references": [segment], "answer": [{"text": text, "citations": [0]}]}))
                line = {"qid": topic, "query": loaded(f"topic {q}"), "answer_text": text, "run_id": system}
                if q < 2:  # 2 and 3 wait for "ann"
                    marks += [json.dumps({**line, "assessor": name,
                                          "nuggets": [{**nugget, "assignment": MARKS[(q + s + r) % 3]}]})
                              for r, name in enumerate(self.assessors(kit))]
        import_run(campaign=campaign, fmt="rag-answers",
                   paths=[kit.write("answers.jsonl", answers), kit.write("segments.jsonl", segments)])
        import_run(campaign=campaign, fmt="nuggetizer-nuggets", paths=[kit.write("nuggets.jsonl", nuggets)])
        import_run(campaign=campaign, fmt="nuggetizer-assignments", paths=[kit.write("marks.jsonl", marks)])
        for j, name in enumerate(kit.judges):
            lines = [json.dumps({"qid": f"t{q}{kit.topic_payload}", "query": loaded(f"topic {q}"),
                                 "answer_text": loaded(f"answer {q}{s}"), "run_id": system,
                                 "nuggets": [{"text": loaded(f"nugget {q}"), "importance": VITAL,
                                              "assignment": MARKS[(q * 2 + s + j) % 3]}]})
                     for q in range(4) for s, system in enumerate(kit.systems)]
            import_run(campaign=campaign, fmt="nuggetizer-assignments", paths=[kit.write(f"judge{j}.jsonl", lines)],
                       judge=name)
        Unit.objects.filter(campaign=campaign, item__kind=NUGGETS_KIND).update(judgments_needed=0)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        item, topic = assignment.unit.item, assignment.unit.topic
        nuggets = topic.data["nuggets"]["nuggets"]
        return [topic.text, *(s["text"] for s in item.data["sentences"]), *(n["text"] for n in nuggets)]


class NuggetSample(TaskTypeSample):
    injection = NuggetInjection()
    # Measured (the same at both sizes), plus one of headroom. The judge comparison reads the items the two judges
    # differ on, which every marks label here does.
    bounds = {("agreement-judge-compare?a=&b=", "researcher"): 13, ("api-agreement-compare?a=&b=", "researcher"): 11,
              ("nugget-lists", "researcher"): 11, ("nugget-export", "researcher"): 7,
              ("api-nugget-lists", "researcher"): 9, ("api-nugget-freeze", "researcher"): 9,
              ("api-nugget-export", "researcher"): 7, ("nugget-match", "researcher"): 8}

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

    def form_answer(self, page) -> dict:
        """Every nugget the page shows marked supported."""
        return {f"mark:{nugget}": "support" for nugget in NUGGET_MARK.findall(page)}

    def value(self, n, candidates) -> tuple[dict, str]:
        marks = sample_marks(n)
        return {"version": 1, "marks": marks}, marks_label(marks, ORDER)

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        marks = sample_marks(n + judge)
        return sample_score(n), marks_label(marks, ORDER), json.dumps({"version": 1, "marks": marks, "failed": {}})
