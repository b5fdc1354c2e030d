"""image_relevance's sample (TaskTypeSpec.sample): a section of a page per topic, pooled images to grade (small
JPEG files), CLIPScore and imported grades."""

from annotate.models import Item
from annotate.task_types.sample import SampleItem, SampleJudge
from tasktypes.graded.sample import GradedSample


class ImageSample(GradedSample):
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
