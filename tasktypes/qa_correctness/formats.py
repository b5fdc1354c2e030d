"""The qa_correctness formats: a system's answers (qa-eval-jsonl) and the NQ-open 301 study's folder (nq301), read by
tasktypes.qa_correctness.importers."""

from pathlib import Path

from annotate.task_types.formats import Count, ImportFormat, Parameter

SYSTEM = Parameter("system", str, label="System name", max_length=200,
                   help="the system's name (default: from the file name)")
DUPLICATE_ROWS = Count("duplicate_rows", help="Rows repeating another (the same question and answer), merged.")
MATCHED_BY_POSITION = Count("judge_rows_matched_by_position",
                            help="nq301: judge rows whose answer differs from the human file's, matched by row "
                                 "position.")


class QaEvalJsonl(ImportFormat):
    name = "qa-eval-jsonl"
    help = "One JSONL file per system: {\"question\", \"answer\": [gold...], \"prediction\"} per line. System name " \
           "from the field below or the file name."
    parameters = (SYSTEM,)

    def run(self, *, campaign, paths, summary, unused, system) -> None:
        from tasktypes.qa_correctness.importers import qa_eval_import

        qa_eval_import(campaign=campaign, paths=paths, system=system, summary=summary, unused=unused)


class Nq301(ImportFormat):
    name = "nq301"
    help = "The NQ-open 301 folder of castorini/qa-eval as a .zip (or its files): NQ301_human.tsv, the GPT-4 and " \
           "text-davinci-003 TSVs, model_outputs/*.jsonl."
    folders = True
    counts = (DUPLICATE_ROWS, MATCHED_BY_POSITION)

    def run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.qa_correctness.importers import nq301_folder_import

        nq301_folder_import(campaign=campaign, paths=paths, summary=summary, unused=unused)

    def lines(self, summary) -> list[str]:
        out = []
        if summary.count("duplicate_rows"):
            out.append(f"duplicate rows (same question and answer) merged: {summary.count('duplicate_rows')}")
        out.extend(summary.notes)
        if summary.count("judge_rows_matched_by_position"):
            out.append(f"judge rows whose answer differs from the human file's, matched by row position: "
                       f"{summary.count('judge_rows_matched_by_position')}")
        return out

    def uploaded_paths(self, *, root: Path, paths: list[Path]) -> list[Path]:
        """Its .zip archives unpacked in ROOT, and the folder that holds NQ301_human.tsv (ROOT or one folder down, a
        zip of the folder)."""
        from interchange.importers.common import zip_extract
        from interchange.importers.uploads import UNPACKED
        from tasktypes.qa_correctness.nq301 import HUMAN_FILE

        for archive in [path for path in paths if path.suffix.lower() == ".zip"]:
            zip_extract(archive, root / UNPACKED)
            archive.unlink()
        candidates = sorted(root.rglob(HUMAN_FILE), key=lambda path: len(path.parts))
        return [candidates[0].parent if candidates else root]
