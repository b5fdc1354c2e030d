"""trec-leaderboard (`--judge NAME`) for graded relevance (tasktypes.graded): an automatic judge's leaderboard
computed elsewhere (a TREC AutoJudge submission), whitespace-separated `run measure topic value` lines, one per
(run, measure, topic), topic `all` for the run's mean over topics. It joins the campaign as the judge NAME at the
system level (judges.models.Leaderboard); the report sets its run orders beside the humans'.

- measure: its ir_measures name (nDCG@10, AP(rel=2), P@10, R@1000, Judged@10, Compat) or its trec_eval name
  (ndcg_cut_10, map, P_10, recall_100), in any case (stats.retrieval.leaderboard_measure); a name without a
  relevance level is read at the campaign's relevant_from.
- Lines that are not used are counted by reason, never dropped unsaid: a measure Concord does not compute (or at
  another relevance level), a run or topic the campaign does not have, a line that is not four fields, a line
  repeating an earlier one. A file that uses no line is refused; a value that is not a finite number, or a second
  value for the same (run, measure, topic), refuses the import at its line.
- The same judge name imported again replaces its leaderboard as a whole (the judge was rerun elsewhere); the
  summary says how many values the earlier one had.
"""

import math
from pathlib import Path

from annotate.models import Campaign, Topic
from annotate.task_types.registry import task_type_get
from interchange.importers.common import ImportDataError, UnusedLines, lines_read
from judges.models import Leaderboard, LeaderboardValue


def leaderboard_import(*, campaign: Campaign, paths: list[Path], judge: str, unused: UnusedLines) -> list[str]:
    """Store PATHS as JUDGE's leaderboard of CAMPAIGN (replacing an earlier one of that name); returns the summary's
    lines. Call inside the import's transaction."""
    rel = task_type_get(campaign.task_type).relevant_from(campaign)
    # The report's names of its measures (the one mapping the leaderboard downloads write), its topic for a run's mean
    # and compatibility's default persistence, from the statistics floor (imported here: ir_measures is a second of
    # start-up that only an import of a leaderboard needs).
    from stats.compatibility import COMPAT_P as default_p
    from stats.retrieval import LEADERBOARD_ALL as mean_topic
    from stats.retrieval import leaderboard_measure

    compat_p = float((campaign.options or {}).get("compat_p", default_p))
    runs = set((campaign.options or {}).get("runs") or {})
    topics = set(Topic.objects.filter(campaign=campaign).values_list("external_id", flat=True))
    values: dict[tuple[str, str, str], tuple[float, str, int]] = {}  # (run, measure, topic) -> (value, name, line)
    for path in paths:
        for number, line in lines_read(path):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = line.split()
            if len(fields) != 4:
                unused.skip("not of the form `run measure topic value` (four fields)", path=path, line=number,
                            field="line", value=line.strip()[:80])
                continue
            run, name, topic, text = fields
            try:
                value = float(text)
            except ValueError:
                value = math.nan
            if not math.isfinite(value):
                raise ImportDataError(file=path, line=number, field="value",
                                      message=f"expected a finite number, got {text!r}")
            measure, why = leaderboard_measure(name, relevant_from=rel, compat_p=compat_p)
            if measure is None:
                unused.skip(why, path=path, line=number, field="measure", value=name)
                continue
            if run not in runs:
                unused.skip("naming no run of the campaign (import the runs first, as trec-run)", path=path,
                            line=number, field="run", value=run)
                continue
            if topic != mean_topic and topic not in topics:
                unused.skip("naming no topic of the campaign", path=path, line=number, field="topic", value=topic)
                continue
            earlier = values.get((run, measure, topic))
            if earlier is not None:
                if earlier[0] != value:
                    raise ImportDataError(file=path, line=number, field="value", message=(
                        f"run {run!r} has {earlier[1]} {earlier[0]!r} on topic {topic!r} on line {earlier[2]}"))
                unused.skip("repeating an earlier line", path=path, line=number, field="value", value=text)
                continue
            values[(run, measure, topic)] = (value, name, number)
            unused.use()
    if not values:
        return []  # the import's check_some_used refuses it, naming why each line was not used
    earlier = Leaderboard.objects.filter(campaign=campaign, name=judge).first()
    replaced = earlier.values.count() if earlier else None
    if earlier:
        earlier.delete()
    board = Leaderboard.objects.create(campaign=campaign, name=judge, source=", ".join(p.name for p in paths)[:255])
    LeaderboardValue.objects.bulk_create(
        [LeaderboardValue(leaderboard=board, run=run, measure=measure, topic=topic, value=value)
         for (run, measure, topic), (value, _, _) in values.items()], batch_size=2000)
    keys = values.keys()
    per_topic = {topic for _, _, topic in keys if topic != mean_topic}
    counts = {"value": len(values), "run": len({k[0] for k in keys}), "measure": len({k[1] for k in keys}),
              "topic": len(per_topic)}
    lines = [f"leaderboard of {judge}: " + ", ".join(f"{n} {noun}{'s' if n != 1 else ''}" for noun, n in counts.items())
             + (" and the means (topic all)" if any(k[2] == mean_topic for k in keys) else "")]
    if replaced is not None:
        lines.append(f"the earlier leaderboard of {judge} ({replaced} values) was replaced")
    return lines
