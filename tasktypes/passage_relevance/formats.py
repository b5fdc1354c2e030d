"""The passage_relevance formats of its own: queries (trec-topics) and passage texts (collection); their readers are
tasktypes.passage_relevance.importers'."""

from annotate.task_types.formats import ImportFormat
from interchange.importers.formats import ROWS_READ
from tasktypes.graded.formats import GradedFormat


class TrecTopics(GradedFormat):
    name = "trec-topics"
    help = "Queries, `qid<TAB>text` lines (a TREC topics file) or JSONL objects {qid, text}."

    def _run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.passage_relevance.importers import topics_import

        summary.topics_created = topics_import(campaign=campaign, paths=paths, unused=unused)


class Collection(ImportFormat):
    """Texts of items already there: no units to make."""

    name = "collection"
    help = "Passages, `docid<TAB>text` lines or JSONL objects {docid, text}: only the passages the campaign holds " \
           "(pooled or graded) are read in; import it after the runs and qrels."
    counts = (ROWS_READ,)

    def run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.passage_relevance.importers import collection_import

        counts = collection_import(campaign=campaign, paths=paths, unused=unused)
        summary.counts["rows_read"] = counts["read"]
        summary.notes.append(
            f"collection lines read: {counts['read']}; passages given their text: {counts['filled']}; already "
            f"there with the same text: {counts['same']}; pooled passages still without text: {counts['missing']}")
