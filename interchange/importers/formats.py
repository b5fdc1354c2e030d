"""The formats every task type may take (a task type lists those it does in its spec's formats): judge-scores and
item-categories, and the parameter every external judge's format takes, its name (JUDGE). Imported with the task
types' specs, so the readers are imported when a format runs."""

from annotate.task_types.formats import Count, ImportFormat, Parameter

JUDGE = Parameter("judge", str, label="Judge name",
                  help="the external judge's name, which its verdicts go under (trec-run into answer_ranking: the "
                       "run's tag when empty; attributed-qa, an ais jsonl: auto-ais when empty)")

# The lines or rows a format read, for the formats that count them apart from those used (collection, attributed-qa).
ROWS_READ = Count("rows_read", help="Lines or rows read (collection, attributed-qa, an ais jsonl).")


class JudgeScores(ImportFormat):
    name = "judge-scores"
    help = "TSV with header topic, item, score and optionally label: an external judge's output, under the judge " \
           "name below."
    parameters = (JUDGE,)
    judge_required = True

    def run(self, *, campaign, paths, summary, unused, judge) -> None:
        from annotate.services.campaigns import units_ensure
        from interchange.importers.judge_scores import judge_scores_import

        summary.model_judgments_created = judge_scores_import(campaign=campaign, paths=paths, judge=judge,
                                                              unused=unused)
        summary.units_created = units_ensure(campaign=campaign)


class ItemCategories(ImportFormat):
    name = "item-categories"
    help = "topic, item, category lines (TSV, a .csv file as CSV, or JSONL {\"topic\", \"item\", \"category\"}): the " \
           "categories of items already in the campaign, which the report breaks agreement down by; an empty " \
           "category takes an item's away."

    def run(self, *, campaign, paths, summary, unused) -> None:
        from interchange.importers.item_categories import item_categories_import

        counts = item_categories_import(campaign=campaign, paths=paths, unused=unused)
        summary.items_categorised = counts["changed"]
        summary.notes.append(f"lines read: {counts['read']}; items given a new category: {counts['changed']}; "
                             f"already in that category: {counts['same']}")

    def category_lines(self, summary) -> list[str]:
        """Its note says how many items it gave a category."""
        return []


JUDGE_SCORES = JudgeScores()
ITEM_CATEGORIES = ItemCategories()
