"""The formats every graded relevance task type takes: trec-run (pooled), trec-qrels (assessors' grades), judge-qrels
(an external judge's grades) and trec-leaderboard; a type words their help its own way (JudgeQrels(help=...))."""

from annotate.task_types.formats import Count, ImportFormat, Parameter
from interchange.importers.formats import JUDGE

DEPTH = Parameter("depth", int, label="Pool depth", min_value=1, help="pool depth per run (default 25)",
                  refused="--depth and --tag pool the runs of a graded relevance campaign (format trec-run: "
                          "{task_types})")
TAG = Parameter("tag", str, label="Run tag", help="a tag for these runs, e.g. clip-based",
                refused=DEPTH.refused)
CLIP = Parameter("clip", bool, label="Clip grades off the scale to its ends", default=False,
                 help="set grades off the campaign's scale to its nearest end (counted in the summary: grades_clipped) "
                      "instead of refusing the file",
                 refused="--clip clips the grades of a judge-qrels file to the campaign's scale; format {fmt} has "
                         "none to clip")


class GradedFormat(ImportFormat):
    """A format of a graded type: the units of its new items are made after it ran (_run)."""

    def run(self, *, campaign, paths, summary, unused, **parameters) -> None:
        from annotate.services.campaigns import units_ensure

        self._run(campaign=campaign, paths=paths, summary=summary, unused=unused, **parameters)
        summary.units_created += units_ensure(campaign=campaign)

    def _run(self, *, campaign, paths, summary, unused, **parameters) -> None:
        raise NotImplementedError

    def noun(self, summary) -> str:
        from annotate.task_types.registry import task_type_get

        return task_type_get(summary.task_type).item_noun


class PooledRuns(GradedFormat):
    name = "trec-run"
    help = "Systems' runs, `qid Q0 docid rank score tag`: each run is kept whole and pooled to the depth below " \
           "(default 25); the tag below labels these runs."
    parameters = (DEPTH, TAG)
    counts = (Count("runs", list), Count("runs_already_there", list), Count("pool_sizes", dict))

    def _run(self, *, campaign, paths, summary, unused, depth, tag) -> None:
        from interchange.importers.runs_pool import runs_pool_import

        pooled = runs_pool_import(campaign=campaign, paths=paths, depth=depth, tag=tag, unused=unused)
        summary.counts.update(runs=pooled.runs, runs_already_there=pooled.runs_already_there,
                              pool_sizes=pooled.pool_sizes)
        summary.items_created, summary.system_outputs_created = pooled.items_created, pooled.system_outputs_created
        summary.systems = pooled.runs

    def lines(self, summary) -> list[str]:
        runs, already, sizes = summary.count("runs"), summary.count("runs_already_there"), summary.count("pool_sizes")
        out = []
        if runs or already:
            out.append(f"runs pooled: {', '.join(runs) or 'none'}"
                       + (f"; already imported (unchanged): {', '.join(already)}" if already else ""))
        if sizes:
            sizes = sorted(sizes.values())
            out.append(f"pool: {sum(sizes)} {self.noun(summary)}s over {len(sizes)} topics (per topic: min "
                       f"{sizes[0]}, median {sizes[len(sizes) // 2]}, max {sizes[-1]})")
        return out + summary.notes


class AssessorQrels(GradedFormat):
    name = "trec-qrels"
    help = "`qid 0 docid grade` lines on the campaign's scale: an assessor's grades (named after the file)."

    def _run(self, *, campaign, paths, summary, unused) -> None:
        from tasktypes.graded.graded_qrels import human_qrels_import

        summary.human_judgments_created, summary.items_created, summary.units_created = human_qrels_import(
            campaign=campaign, paths=paths, unused=unused)


class JudgeQrels(GradedFormat):
    name = "judge-qrels"
    help = "`qid 0 docid grade` lines on the campaign's scale: an external judge's grades, used as they are, " \
           "under the judge name below."
    parameters = (JUDGE, CLIP)
    judge_required = True
    counts = (Count("judge_lines_outside", help="judge-qrels: lines naming no item of the campaign, not imported."),
              Count("grades_clipped", help="judge-qrels with clip: grades off the campaign's scale set to its "
                                           "nearest end."))

    def _run(self, *, campaign, paths, summary, unused, judge, clip) -> None:
        from tasktypes.graded.graded_qrels import judge_qrels_import

        created, outside, clipped = judge_qrels_import(campaign=campaign, paths=paths, judge=judge, unused=unused,
                                                       clip=clip)
        summary.model_judgments_created = {judge: created}
        summary.counts.update(judge_lines_outside=outside, grades_clipped=clipped)

    def lines(self, summary) -> list[str]:
        out = [f"grades of {name} imported: {count}; lines naming no {self.noun(summary)} of the campaign, not "
               f"imported: {summary.count('judge_lines_outside')}"
               for name, count in summary.model_judgments_created.items()]
        if summary.count("grades_clipped"):
            out.append(f"grades off the campaign's scale clipped to its nearest end (clip): "
                       f"{summary.count('grades_clipped')}")
        return out + summary.notes


class TrecLeaderboard(GradedFormat):
    name = "trec-leaderboard"
    help = "`run measure topic value` lines (TREC AutoJudge; topic `all` for the run's mean): an automatic judge's " \
           "leaderboard computed elsewhere, under the judge name below; measures by their ir_measures or trec_eval " \
           "names (nDCG@10, AP, ndcg_cut_10, map). Importing a name again replaces its leaderboard."
    parameters = (JUDGE,)
    judge_required = True

    def _run(self, *, campaign, paths, summary, unused, judge) -> None:
        from tasktypes.graded.leaderboard import leaderboard_import

        summary.notes.extend(leaderboard_import(campaign=campaign, paths=paths, judge=judge, unused=unused))
