"""The import formats of nugget_evaluation (their readers in importers.py, the writers of the same layouts in
exports.py; docs/task-types/nugget_evaluation.md). Answers: rag-answers. Nugget lists: nuggetizer-nuggets,
autojudge-nugget-bank, nuggets-tsv (each frozen as its topic's list, or with as_proposals kept as a list a creation
unit may start from). Marks: nuggetizer-assignments, assignments-tsv (humans', or under a judge name an external
judge's)."""

from pathlib import Path

from annotate.task_types.formats import ImportFormat, Parameter
from interchange.importers.formats import JUDGE

AS_PROPOSALS = Parameter(
    "as_proposals", bool, default=False, label="Keep the lists as proposals, not frozen",
    help="each topic's list is kept as a proposal a creation unit may start from (named import:<file name>) instead "
         "of being frozen as the topic's list",
    refused="--as-proposals keeps an imported nugget list as a proposal: formats {formats}, not {fmt}")


class RagAnswers(ImportFormat):
    name = "rag-answers"
    help = "The TREC RAG track's answers, one per line: {\"run_id\", \"topic_id\", \"topic\", \"references\", " \
           "\"answer\": [{\"text\", \"citations\"}]}; files, or a folder or .zip holding them beside segments.tsv " \
           "(id<TAB>text) or segments.jsonl ({\"docid\", \"segment\", \"title\"}), the cited segments' texts " \
           "(docs/task-types/nugget_evaluation.md)."
    folders = True

    def run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.nugget_evaluation.importers import rag_answers_import

        rag_answers_import(campaign=campaign, paths=paths, summary=summary, unused=unused)

    def uploaded_paths(self, *, root: Path, paths: list[Path]) -> list[Path]:
        """Its .zip archives unpacked in ROOT, and ROOT read as the folder."""
        from tasktypes.nugget_evaluation.importers import zips_unpacked

        return zips_unpacked(root=root, paths=paths)


class NuggetLists(ImportFormat):
    """A format of nugget lists: each topic's list frozen, or kept as a proposal."""

    parameters = (AS_PROPOSALS,)

    def run(self, *, campaign, paths, summary, unused, as_proposals: bool = False) -> None:
        from tasktypes.nugget_evaluation.importers import nugget_lists_import

        nugget_lists_import(campaign=campaign, fmt=self.name, paths=paths, summary=summary, unused=unused,
                            as_proposals=as_proposals)


class NuggetizerNuggets(NuggetLists):
    name = "nuggetizer-nuggets"
    help = "castorini/nuggetizer's nuggets, one topic per line: {\"qid\", \"query\", \"nuggets\": [{\"text\", " \
           "\"importance\": \"vital\" or \"okay\"}]}; frozen as each topic's list, or kept as proposals " \
           "(docs/task-types/nugget_evaluation.md)."


class AutojudgeNuggetBank(NuggetLists):
    name = "autojudge-nugget-bank"
    help = "The TREC AutoJudge harness's nugget banks: a bank per .json file or one per line of a .jsonl file, " \
           "{\"query_id\", \"title_query\", \"nugget_bank\": {key: {\"question\" or \"claim\", \"importance\"}}}; " \
           "frozen as each topic's list, or kept as proposals (docs/task-types/nugget_evaluation.md)."


class NuggetsTsv(NuggetLists):
    name = "nuggets-tsv"
    help = "TSV with header topic, nugget, importance (vital or okay) and text, a nugget per line in its list's " \
           "order; frozen as each topic's list, or kept as proposals (docs/task-types/nugget_evaluation.md)."


class Assignments(ImportFormat):
    """A format of marks: humans' (an assessor each), or under a judge name an external judge's."""

    parameters = (JUDGE,)

    def run(self, *, campaign, paths, summary, unused, judge) -> None:
        from tasktypes.nugget_evaluation.importers import assignments_import

        assignments_import(campaign=campaign, fmt=self.name, paths=paths, summary=summary, unused=unused,
                           judge=judge)


class NuggetizerAssignments(Assignments):
    name = "nuggetizer-assignments"
    help = "castorini/nuggetizer's assignments, one answer per line: {\"qid\", \"query\", \"run_id\", " \
           "\"answer_text\", \"nuggets\": [{\"text\", \"importance\", \"assignment\": \"support\", " \
           "\"partial_support\" or \"not_support\"}]}, optionally \"assessor\"; with a judge name, that judge's " \
           "marks (docs/task-types/nugget_evaluation.md)."


class AssignmentsTsv(Assignments):
    name = "assignments-tsv"
    help = "TSV with header topic, run, nugget (its id in the topic's frozen list), mark (support, " \
           "partial_support or not_support) and optionally assessor; with a judge name, that judge's marks " \
           "(docs/task-types/nugget_evaluation.md)."


FORMATS: tuple = (RagAnswers(), NuggetizerNuggets(), AutojudgeNuggetBank(), NuggetsTsv(), NuggetizerAssignments(),
                  AssignmentsTsv())
