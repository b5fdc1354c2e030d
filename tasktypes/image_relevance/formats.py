"""The image_relevance formats of its own: text sections (jsonl, atomic-topics) and image files (images); the graded
formats (tasktypes.graded.formats) in its words."""

from annotate.task_types.formats import Count
from tasktypes.graded.formats import GradedFormat


class Sections(GradedFormat):
    name = "jsonl"
    help = "One text section per line: id, page_title, page_context, section_title, section_context."
    atomic = False  # the TREC AToMiC topic JSON rather than JSONL

    def _run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.image_relevance.image_topics import image_topics_import

        summary.topics_created = image_topics_import(campaign=campaign, paths=paths, atomic=self.atomic,
                                                     unused=unused)


class AtomicTopics(Sections):
    name = "atomic-topics"
    help = "The TREC AToMiC topic JSON: a list of text sections (text_id, page_title, section_title, " \
           "context_page_description, context_section_description)."
    atomic = True


class Images(GradedFormat):
    name = "images"
    help = "Image files named by image id (<id>.jpg, .png, .webp, .gif), or .zip archives of them: checked, stored " \
           "with a thumbnail, and given to the pooled items of that id."
    folders = True
    counts = (Count("images_stored"), Count("images_already_there"), Count("images_attached"))

    def _run(self, *, campaign, paths, summary, unused) -> None:
        from interchange.importers.images import images_import

        stored = images_import(campaign=campaign, paths=paths)
        summary.counts.update(images_stored=stored["stored"], images_already_there=stored["already_there"],
                              images_attached=stored["attached"])

    def lines(self, summary) -> list[str]:
        return [f"images stored: {summary.count('images_stored')}, already stored (unchanged): "
                f"{summary.count('images_already_there')}; items given their image: "
                f"{summary.count('images_attached')}", *summary.notes]
