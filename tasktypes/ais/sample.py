"""ais's sample (TaskTypeSpec.sample): an answer per system with its evidence passage, a verdict of interpretable and
supported or not; AutoAIS (which cuts long passages: one raw output in two says so) and imported verdicts."""


from annotate.models import Item
from annotate.task_types.sample import InjectionSample, SampleItem, SampleJudge, TaskTypeSample
from interchange.importers.service import import_run


class AisInjection(InjectionSample):
    """Three questions answered by each system with their evidence (attributed-qa): a source URL with breakouts, a
    javascript: "URL" or a plain title; the first question's answers wait for the raters."""

    def build(self, kit):
        campaign = kit.campaign("ais", overlap=3)
        loaded = kit.loaded
        rows = []
        for q in range(3):
            for s, system in enumerate(kit.systems):
                rated = q > 0  # question 0's answers wait for the raters
                rows.append({
                    "system_name": system, "question": loaded(f"ais question {q}"),
                    "answer": loaded(f"ais answer {q}{s}"),
                    # a URL with breakouts, a javascript: "URL", and a plain title
                    "attribution": (kit.evil_url, kit.js_url, loaded("attribution"))[(q + s) % 3],
                    "passage": (f"« {loaded(f'title {q}{s}')} » « {loaded(f'section {q}{s}')} » {loaded('passage')}"
                                if s == 0 else loaded(f"bare passage {q}")),
                    "human_rating": ("Y" if (q + s) % 2 else "N") if rated else "",
                    "auto_ais": ("N" if (q + s) % 2 else "Y") if rated else "Y",
                    "nli_score": "0.9" if (q + s) % 2 == 0 else "0.2",
                })
        path = kit.write_csv("ratings.csv", rows)
        import_run(campaign=campaign, fmt="attributed-qa", paths=[path], judge=kit.judges[0])
        kit.web_judgments(campaign, lambda r, n: {"interpretable": True, "supported": bool((n + r) % 2)})
        for flip, name in enumerate(kit.judges[1:], start=2):
            kit.judge_scores(campaign, name, flip=flip)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        topic, item = assignment.unit.topic, assignment.unit.item
        data = item.data
        return [topic.text, item.text, data["passage"], data["title"], *([data["section"]] if data["section"] else [])]

    def unit_checked(self, kit, page, assignment) -> str:
        """The evidence's source is a link to its http(s) URL, attribute intact, or plain text (no link) without one.
        Gives the URL ("" for none)."""
        data = assignment.unit.item.data
        link = page.locator("#source-link")
        if data["url"]:
            assert link.get_attribute("href") == data["url"] == kit.evil_url
            assert link.inner_text() == data["title"]
        else:
            assert link.count() == 0
            assert page.inner_text("#source-title") == data["title"]
        return data["url"]

    def units_seen(self, kit) -> set:
        """One unit's source is the URL with breakouts, the other's the javascript: "URL" (a title then)."""
        return {kit.evil_url, ""}

    def report_texts(self, kit, campaign, report) -> list[str]:
        """The systems, and the disagreements lists: system, question and answer of each row."""
        rows = [row for block in report["judges"].values() for row in block["disagreements"]]
        assert rows, "no disagreements to show"
        return [*kit.systems, *(row[key] for row in rows for key in ("system", "question", "answer"))]


class AisSample(TaskTypeSample):
    injection = AisInjection()
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

    def form_answer(self, page) -> dict:
        return {"interpretable": "yes", "supported": "yes"}

    def value(self, n, candidates) -> tuple[dict, str]:
        supported = n % 3 != 0
        return {"interpretable": True, "supported": supported}, "yes" if supported else "no"

    def verdict(self, judge, n) -> tuple[float | None, str, str]:
        score, label, raw = super().verdict(judge, n)
        return score, label, f"512 tokens, truncated to 256 {label}" if judge == 0 and n % 2 else raw
