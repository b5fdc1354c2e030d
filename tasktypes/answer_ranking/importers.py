"""How the answer_ranking formats (tasktypes.answer_ranking.formats) write rankings, what an import says of the
campaign after it, and how an import's summary is worded for rankings."""

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind
from annotate.services.campaigns import units_ensure
from interchange.importers.service import ImportSummary
from interchange.importers.writes import units_done_refresh
from tasktypes.answer_ranking.options import rank_depth
from tasktypes.answer_ranking.ranking_index import RankingIndex
from tasktypes.answer_ranking.rankings import human_rankings_write


def rankings_import(*, campaign: Campaign, summary: ImportSummary, read):
    """Import the rankings READ(index) gives (a reader's result: .verdicts, the human rankings) and count what was
    made in SUMMARY; returns the result. Call inside interchange.importers.service.import_run's transaction."""
    index = RankingIndex(campaign=campaign)
    result = read(index)
    summary.units_created = units_ensure(campaign=campaign)
    rankings_created, summary.counts["rankings_already_there"] = human_rankings_write(
        campaign=campaign, verdicts=result.verdicts, candidates=index.candidates, depth=rank_depth(campaign))
    result.verdicts.close()
    units_done_refresh(campaign=campaign)
    summary.topics_created = index.topics_created
    summary.items_created = index.items_created
    summary.items_categorised = index.items_categorised
    summary.counts.update(answers_created=index.answers_created, documents_created=index.documents_created,
                          rankings_created=rankings_created)
    summary.system_outputs_created = index.system_outputs_created
    summary.systems = index.systems
    return result


def ranking_campaign_counts(campaign: Campaign) -> dict:
    """What an import's summary says of an answer_ranking campaign after it: its answers, documents, current
    rankings and the topics they rank."""
    rankings = HumanJudgment.objects.filter(unit__campaign=campaign, unit__item__isnull=True,
                                            kind=JudgmentKind.ANNOTATION, is_current=True)
    return {
        "answers": Item.objects.filter(campaign=campaign, kind="answer").count(),
        "documents": Item.objects.filter(campaign=campaign, kind="document").count(),
        "rankings": rankings.count(),
        "topics_ranked": rankings.values("unit_id").distinct().count(),
    }


def ranking_lines(summary) -> list[str]:
    count = summary.count
    out = [
        f"campaign {summary.campaign}: imported {len(summary.files)} path(s) as {summary.format} "
        f"in {summary.seconds:.2f} s",
        f"created: {summary.topics_created} topics, {summary.items_created} candidates ({count('answers_created')} "
        f"answers, {count('documents_created')} documents), {summary.system_outputs_created} system outputs "
        f"({len(summary.systems)} systems), {count('rankings_created')} human rankings, {summary.units_created} units",
        *summary.format_lines(),
    ]
    out.append(f"campaign now: {summary.topics} topics, {summary.items} candidates ({count('answers')} answers, "
               f"{count('documents')} documents), {count('rankings')} human rankings over {count('topics_ranked')} "
               f"topics")
    for name, count_, failed in summary.judge_rows():
        out.append(f"candidates scored by {name}: {count_}" + (f" ({failed} without a score)" if failed else ""))
    out.append(f"topics left for humans: {summary.items_left_for_humans}")
    return out
