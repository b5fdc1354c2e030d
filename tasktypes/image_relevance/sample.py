"""image_relevance's sample (TaskTypeSpec.sample): a section of a page per topic, pooled images to grade (small
JPEG files), CLIPScore and imported grades."""

import json

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge
from interchange.importers.service import import_run
from tasktypes.graded.sample import GradedInjection, GradedSample

SECTION = ("page_title", "page_context", "section_title", "section_context")


class ImageInjection(GradedInjection):
    """Two sections of pages (jsonl) and six images (images), graded 0 to 2."""

    def build(self, kit):
        campaign = kit.campaign("image_relevance", overlap=1)
        topics = [f"t{n}{kit.topic_payload}" for n in range(2)]
        path = kit.write("topics.jsonl", [json.dumps({"id": qid, **{f: kit.loaded(f"{f} {n}") for f in SECTION}})
                                          for n, qid in enumerate(topics)])
        import_run(campaign=campaign, fmt="jsonl", paths=[path])
        image_ids = [f"img-{n}" for n in range(6)]
        kit.images(kit.folder / "images", image_ids)
        import_run(campaign=campaign, fmt="images", paths=[kit.folder / "images"])
        self.runs_import(kit, campaign, topics, image_ids)
        self.qrels_import(kit, campaign, topics[0], image_ids, 3)
        return campaign

    def unit_texts(self, assignment) -> list[str]:
        return [assignment.unit.topic.data[key] for key in SECTION]


class ImageSample(GradedSample):
    injection = ImageInjection()
    topic_id = "t{}"
    judges = (SampleJudge("clip", "clipscore"), SampleJudge("grades", "external"))
    # Its annotation and adjudication pages cost more than the default (measured, plus headroom).
    bounds = {**GradedSample.bounds, ("annotate", "annotator"): 14, ("annotate?undo=", "annotator"): 13,
              ("adjudicate-unit", "researcher"): 18, ("api-campaign-adjudication-unit", "researcher"): 13}

    def topic_data(self, q: int) -> dict:
        return {"page_title": f"Page {q}", "page_context": "A page. " * 20, "section_title": f"Section {q}",
                "section_context": "A section. " * 20}

    def items(self, *, campaign, topic, q, systems, image) -> list[SampleItem]:
        rows = []
        for n in range(systems + 1):
            image_id = f"img-{campaign.slug}-{q}-{n}"
            rows.append(SampleItem(Item(campaign=campaign, topic=topic, external_id=f"t{q}/{image_id}", kind="image",
                                        text="", data=image(image_id))))
        return rows
