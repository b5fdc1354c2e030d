"""The ais formats: attributed answers (the Attributed QA CSV, attributed-qa, or its rows as JSONL, jsonl) and the
questions' gold answers (gold-answers), read by tasktypes.ais.attributed_qa and tasktypes.ais.gold_answers."""

from dataclasses import fields

from annotate.task_types.formats import Count, ImportFormat
from interchange.importers.formats import JUDGE, ROWS_READ

RATED_ROWS = Count("rated_rows", help="attributed-qa, an ais jsonl: rows rated by humans.")
UNITS_NOT_QUEUED = Count("units_not_queued", help="attributed-qa, an ais jsonl: units of rated rows, not queued for "
                                                  "raters.")
DUPLICATE_ROWS = Count("duplicate_rows", help="Rows repeating another (the same question and answer), merged.")


class AttributedQa(ImportFormat):
    name = "attributed-qa"
    help = "The Attributed QA ratings.csv: system_name, question, answer, attribution, passage, human_rating (Y/N, " \
           "blank when unrated), auto_ais, nli_score. Ratings become the items' human labels (those items skip the " \
           "queue); nli_score an external AutoAIS judge named below (default: auto-ais)."
    parameters = (JUDGE,)
    counts = (ROWS_READ, RATED_ROWS, UNITS_NOT_QUEUED, DUPLICATE_ROWS)
    jsonl = False  # its rows as JSON objects, a line each, rather than the CSV

    def run(self, *, campaign, paths, summary, unused, judge) -> None:
        from tasktypes.ais.attributed_qa import DEFAULT_JUDGE, attributed_qa_import

        result = attributed_qa_import(campaign=campaign, paths=paths, judge=judge, jsonl=self.jsonl)
        counted = {count.name for count in self.counts}
        for name in (f.name for f in fields(result)):
            if name in counted:
                summary.counts[name] = getattr(result, name)
            elif hasattr(summary, name):
                setattr(summary, name, getattr(result, name))
        if result.scored:
            summary.model_judgments_created = {judge or DEFAULT_JUDGE: result.judge_created}

    def lines(self, summary) -> list[str]:
        out = [f"rows read: {summary.count('rows_read')}, of them rated by humans: {summary.count('rated_rows')} "
               f"(their items are not queued for raters: {summary.count('units_not_queued')} units)"]
        if summary.count("duplicate_rows"):
            out.append(f"duplicate rows (same question and answer) merged: {summary.count('duplicate_rows')}")
        return out + summary.notes


class AttributedJsonl(AttributedQa):
    name = "jsonl"
    help = "One attributed answer per line, with the fields of the attributed-qa CSV (system_name, question, " \
           "answer, attribution, passage, human_rating, auto_ais, nli_score)."
    jsonl = True


class GoldAnswers(ImportFormat):
    name = "gold-answers"
    help = "JSONL, one question per line: {\"question\", \"answers\": [...]}: the questions' reference answers, for " \
           "the EM and F1 judges; questions the campaign lacks are counted and skipped."

    def run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.ais.gold_answers import gold_answers_import

        counts = gold_answers_import(campaign=campaign, paths=paths, unused=unused)
        summary.notes.append(f"lines read: {counts['read']}; questions given gold answers: {counts['given']}; "
                             f"already with the same ones: {counts['same']}; lines naming no question of the "
                             f"campaign, not imported: {counts['outside']}")
