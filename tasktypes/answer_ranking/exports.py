"""Exports of an answer_ranking campaign's human rankings, in the shapes the importers read (round trip).

Candidates are written with the ids they were imported with (`Item.data["source_id"]`), annotators
with the name they were imported under (`"<slug>-annotator-<name>"` gives `name`; accounts made in
Concord keep their username). Only current annotations are exported (not earlier versions, not
adjudications).
"""

import json

from annotate.models import Campaign, HumanJudgment, Item, JudgmentKind, Topic
from annotate.task_types.registry import task_type_get
from annotate.task_types.spec import UNIT_TOPIC
from interchange.importers.items import candidate_source_id
from interchange.importers.writes import annotator_name


class ExportError(Exception):
    """An export that cannot be made in the asked format; the message is for the user."""


def _campaign_rankings(campaign: Campaign):
    """[(topic, [items], [(annotator name, {dimension: [[source id, ...], ...]})])] in topic order."""
    if task_type_get(campaign.task_type).unit != UNIT_TOPIC:  # rankings are judgments of whole topics
        raise ExportError(f"campaign {campaign.slug!r} is a {campaign.task_type} campaign, not answer_ranking")
    items_by_topic: dict[int, list[Item]] = {}
    for item in Item.objects.filter(campaign=campaign).select_related("topic").order_by("id"):
        items_by_topic.setdefault(item.topic_id, []).append(item)
    source_of = {item.pk: candidate_source_id(item, qid=item.topic.external_id)
                 for items in items_by_topic.values() for item in items}
    rankings_by_topic: dict[int, list] = {}
    judgments = (HumanJudgment.objects.filter(unit__campaign=campaign, unit__item__isnull=True,
                                              kind=JudgmentKind.ANNOTATION, is_current=True)
                 .select_related("annotator", "unit").order_by("unit__topic_id", "annotator__username"))
    for judgment in judgments:
        rankings = {
            dimension: [[source_of[pk] for pk in group] for group in groups]
            for dimension, groups in (judgment.value.get("rankings") or {}).items()
        }
        name = annotator_name(campaign=campaign, username=judgment.annotator.username)
        rankings_by_topic.setdefault(judgment.unit.topic_id, []).append((name, rankings))
    return [
        (topic, items_by_topic.get(topic.pk, []), rankings_by_topic.get(topic.pk, []))
        for topic in Topic.objects.filter(campaign=campaign).order_by("id")
    ]


def _candidate_fields(item: Item) -> dict:
    return {key: item.data[key] for key in ("docno", "system", "prompt", "sample") if key in item.data}


def rankings_jsonl(*, campaign: Campaign) -> str:
    """The campaign as answer_ranking jsonl: one topic per line with its candidates and human rankings."""
    lines = []
    for topic, items, rankings in _campaign_rankings(campaign):
        lines.append(
            json.dumps(
                {
                    "qid": topic.external_id,
                    "query": topic.text,
                    "candidates": [
                        {
                            "id": candidate_source_id(item, qid=topic.external_id),
                            "kind": item.kind,
                            "text": item.text,
                            **_candidate_fields(item),
                        }
                        for item in items
                    ],
                    "rankings": [
                        {"annotator": name, "dimension": dimension, "ranking": groups}
                        for name, by_dimension in rankings
                        for dimension, groups in by_dimension.items()
                    ],
                },
                ensure_ascii=False,
            )
        )
    return "".join(line + "\n" for line in lines)


def rankings_label_studio(*, campaign: Campaign) -> list[dict]:
    """The campaign as a Label Studio Ranker export (a list of tasks), the shape the label-studio importer reads.

    Label Studio's ranker holds one strict order, so a campaign with ties or with dimensions other than
    "overall" is refused: export it as jsonl.
    """
    tasks = []
    for number, (topic, items, rankings) in enumerate(_campaign_rankings(campaign), start=1):
        annotations = []
        for name, by_dimension in rankings:
            if set(by_dimension) != {"overall"}:
                raise ExportError(f"topic {topic.external_id}: rankings by dimension ({', '.join(by_dimension)}) "
                                  "do not fit Label Studio's ranker; export jsonl")
            groups = by_dimension["overall"]
            if any(len(group) > 1 for group in groups):
                raise ExportError(f"topic {topic.external_id}: {name}'s ranking has ties, which Label Studio's "
                                  "ranker cannot hold; export jsonl")
            annotations.append({
                "completed_by": _label_studio_user(name),
                "was_cancelled": False,
                "result": [{"type": "ranker", "from_name": "rank", "to_name": "items",
                            "value": {"ranker": {"rank": [group[0] for group in groups]}}}],
            })
        tasks.append(
            {
                "id": number,
                "data": {
                    "qid": topic.external_id,
                    "query": topic.text,
                    "items": [
                        {
                            "id": candidate_source_id(item, qid=topic.external_id),
                            "kind": item.kind,
                            "query": topic.text,
                            "body": item.text,
                            "text": item.text,
                            **_candidate_fields(item),
                        }
                        for item in items
                    ],
                },
                "annotations": annotations,
            }
        )
    return tasks


def _label_studio_user(name: str) -> int | dict:
    """Label Studio's `completed_by` for an annotator NAME: the int id it was imported from when NAME is one as
    Label Studio writes it, else {"id": NAME}, so that "007" or "1e5" come back as they are."""
    return int(name) if name.isascii() and name.isdigit() and str(int(name)) == name else {"id": name}


def judge_trec_run(*, campaign: Campaign, judge: str) -> str:
    """A judge's scores as a TREC run (`qid Q0 docid rank score tag`), best first within each topic.

    docid is the candidate's id as imported (what `--format trec-run` reads back); tag is the judge's
    name with spaces as underscores. Candidates without a score (not judged, failed) are left out; equal
    scores are ordered by docid, as trec_eval would.
    """
    from judges.models import Judge, ModelJudgment

    found = Judge.objects.filter(campaign=campaign, name=judge).first()
    if found is None:
        names = ", ".join(Judge.objects.filter(campaign=campaign).order_by("name").values_list("name", flat=True))
        raise ExportError(f"campaign {campaign.slug!r} has no judge {judge!r} (judges: {names or 'none'})")
    by_topic: dict[str, list[tuple[float, str]]] = {}
    judgments = (ModelJudgment.objects.filter(judge=found, failed=False, score__isnull=False)
                 .select_related("item", "item__topic"))
    for judgment in judgments:
        by_topic.setdefault(judgment.item.topic.external_id, []).append(
            (judgment.score, candidate_source_id(judgment.item, qid=judgment.item.topic.external_id)))
    tag = "_".join(judge.split())
    lines = []
    for qid in sorted(by_topic):
        for rank, (score, docid) in enumerate(sorted(by_topic[qid], key=lambda pair: (-pair[0], pair[1])), start=1):
            lines.append(f"{qid} Q0 {docid} {rank} {score:.6g} {tag}\n")
    return "".join(lines)
