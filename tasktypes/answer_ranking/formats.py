"""The answer_ranking formats: rankings (label-studio, jsonl), documents' grades (trec-qrels) and a ranker's scores
(trec-run); what every import into the type counts (IMPORT_COUNTS). Read by tasktypes.answer_ranking.importers."""

from annotate.task_types.formats import Count, ImportFormat, Parameter
from interchange.importers.formats import JUDGE

SCORE_JUDGE = Parameter("score_judge", str, label="Score judge name",
                        help="import the items' scores as this external judge",
                        refused="--score-judge reads the scores of a label-studio export; format {fmt} has none")
RANKINGS_ALREADY_THERE = Count("rankings_already_there", help="Rankings imported before, unchanged.")
# Counted by every import into answer_ranking: what it made, and (import_campaign_counts) what the campaign holds.
IMPORT_COUNTS = (Count("answers_created"), Count("documents_created"), Count("rankings_created"), Count("answers"),
                 Count("documents"), Count("rankings"), Count("topics_ranked"))


class RankingJsonl(ImportFormat):
    name = "jsonl"
    help = "One topic per line: qid, query, candidates (answers and documents) and optional human rankings " \
           "(docs/answer_ranking.md)."
    counts = (RANKINGS_ALREADY_THERE,)

    def run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.answer_ranking.importers import rankings_import
        from tasktypes.answer_ranking.ranking_jsonl import ranking_jsonl_import

        rankings_import(campaign=campaign, summary=summary,
                        read=lambda index: ranking_jsonl_import(index=index, paths=paths))

    def lines(self, summary) -> list[str]:
        if not summary.count("rankings_already_there"):
            return []
        return [f"rankings already imported (unchanged): {summary.count('rankings_already_there')}"]


class LabelStudio(RankingJsonl):
    name = "label-studio"
    help = "A Label Studio Ranker project's JSON export (a list of tasks; data.query, data.items, the annotators' " \
           "orders). Give a score judge name to import the items' scores as an external judge."
    parameters = (SCORE_JUDGE,)
    counts = (RANKINGS_ALREADY_THERE, Count("annotations_cancelled", help="label-studio: cancelled annotations, "
                                                                          "skipped."))

    def run(self, *, campaign, paths, summary, unused, score_judge) -> None:
        from tasktypes.answer_ranking.importers import rankings_import
        from tasktypes.answer_ranking.label_studio import label_studio_import

        result = rankings_import(campaign=campaign, summary=summary, read=lambda index: label_studio_import(
            index=index, paths=paths, score_judge=score_judge))
        summary.counts["annotations_cancelled"] = result.cancelled
        summary.model_judgments_created = result.judges

    def lines(self, summary) -> list[str]:
        cancelled = summary.count("annotations_cancelled")
        return super().lines(summary) + ([f"cancelled annotations skipped: {cancelled}"] if cancelled else [])


class DocumentQrels(ImportFormat):
    name = "trec-qrels"
    help = "`qid 0 docno grade` lines: graded judgments of the documents, stored under the file's name."
    counts = (Count("qrels_added", help="trec-qrels into answer_ranking: document grades added."),)

    def run(self, *, campaign, paths, summary, unused) -> None:
        from interchange.importers.trec_qrels import trec_qrels_import

        summary.counts["qrels_added"] = trec_qrels_import(campaign=campaign, paths=paths, unused=unused)

    def lines(self, summary) -> list[str]:
        return [f"document grades added: {summary.count('qrels_added')}"]


class RankerRun(ImportFormat):
    name = "trec-run"
    help = "`qid Q0 docid rank score tag` lines: a ranker's scores of the candidates, as an external judge named " \
           "below (default: the run's tag)."
    parameters = (JUDGE,)

    def run(self, *, campaign, paths, summary, unused, judge) -> None:
        from interchange.importers.trec_run import trec_run_import

        summary.model_judgments_created = trec_run_import(campaign=campaign, paths=paths, judge=judge, unused=unused,
                                                          fmt=self.name)

    def lines(self, summary) -> list[str]:
        return []
