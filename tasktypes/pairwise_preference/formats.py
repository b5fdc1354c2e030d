"""The pairwise_preference formats: pairs of responses to a prompt, with humans' verdicts or, given a judge name, an
external judge's (read by tasktypes.pairwise_preference.importers)."""

from pathlib import Path

from annotate.task_types.formats import ImportFormat, Parameter
from interchange.importers.formats import JUDGE

REPEAT_ASSESSORS = Parameter(
    "repeat_assessors", bool, default=False, label="A pair judged again by an unnamed assessor is another assessor",
    help="a pair judged again by an assessor the file does not name is another assessor's verdict (assessor 1, 2, "
         "... in the file's order) instead of a conflict, which is refused",
    refused="--repeat-assessors reads a pair judged again by an unnamed assessor as another assessor: formats "
            "{formats}, not {fmt}")


class Pairs(ImportFormat):
    """A format of pairs: every one reads its lines into pairs the same way (pairs_import), a verdict each."""

    parameters = (JUDGE,)

    def run(self, *, campaign, paths, summary, unused, judge, repeat_assessors: bool = False) -> None:
        from tasktypes.pairwise_preference.importers import pairs_import

        pairs_import(campaign=campaign, fmt=self.name, paths=paths, summary=summary, judge=judge, unused=unused,
                     repeat_assessors=repeat_assessors)


class PairwiseJsonl(Pairs):
    name = "pairwise-jsonl"
    help = "One pair per line: {\"prompt_id\", \"prompt\", \"system_a\", \"response_a\", \"system_b\", " \
           "\"response_b\"}, and optionally a verdict {\"winner\": \"a\", \"b\", \"tie\" or \"both_bad\", " \
           "\"annotator\"}; a pair on several lines takes several verdicts (docs/formats/pairwise-jsonl.md)."
    parameters = (JUDGE, REPEAT_ASSESSORS)


class MtBenchHuman(Pairs):
    name = "mt-bench-human"
    help = "MT-Bench's human judgments as JSON lines: question_id, model_a, model_b, winner (model_a, model_b, " \
           "tie), judge, turn, conversation_a, conversation_b (docs/formats/mt-bench-human.md)."


class ArenaConversations(Pairs):
    name = "arena-conversations"
    help = "Chatbot Arena's conversations as JSON lines: question_id, model_a, model_b, winner (model_a, model_b, " \
           "tie, tie (bothbad)), judge, conversation_a, conversation_b (docs/formats/arena-conversations.md)."


class TrecPreferences(Pairs):
    name = "trec-preferences"
    help = "A folder or .zip holding topics.tsv and collection.tsv (id<TAB>text) and preference files of `topic " \
           "left right preferred [assessor]` lines, or a judge's `@ topic x y !` lines (! x preferred, = the two " \
           "orders disagreed, ? a text missing); with repeat assessors, a pair judged again is another assessor " \
           "(docs/formats/trec-preferences.md)."
    parameters = (JUDGE, REPEAT_ASSESSORS)
    folders = True

    def uploaded_paths(self, *, root: Path, paths: list[Path]) -> list[Path]:
        """Its .zip archives unpacked in ROOT, and ROOT read as the folder."""
        from interchange.importers.common import zip_extract
        from interchange.importers.uploads import UNPACKED

        for archive in [path for path in paths if path.suffix.lower() == ".zip"]:
            zip_extract(archive, root / UNPACKED)
            archive.unlink()
        return [root]


class PandalmTestset(Pairs):
    name = "pandalm-testset"
    help = "PandaLM's human-annotated test set as published (testset-v1.json: a JSON list of idx, cmp_key, " \
           "instruction, input, response1, response2, annotator1-3, each 0 a tie, 1 or 2); with a judge name, a " \
           "judge's results file of the release ({\"idx\", \"<name>_result\"}) (docs/formats/pandalm-testset.md)."


class PairwiseOutputs(Pairs):
    name = "pairwise-outputs"
    help = "Each system's response to each prompt, {\"prompt_id\", \"prompt\", \"system\", \"response\"} per line: " \
           "the pairs are made from them, all of them or a seeded draw (options pair_prompts, pair_seed; " \
           "docs/formats/pairwise-outputs.md)."
