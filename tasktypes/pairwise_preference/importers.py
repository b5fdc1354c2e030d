"""The pairwise-jsonl format: one pair per line, {"prompt_id", "prompt", "system_a", "response_a", "system_b",
"response_b"}, optionally "id" (the pair's id; else `<prompt_id>/<system_a>-vs-<system_b>`) and a human verdict
{"winner": "a", "b", "tie" or "both_bad", "annotator"}. A prompt is a topic, a pair an item whose data holds both
responses ({"a": {"system", "text"}, "b": {...}}). An imported verdict records no side shown ("left": null): it
counts for agreement and system scores, not for position bias."""

from annotate.models import Item, JudgmentKind, Topic
from annotate.services.campaigns import units_ensure
from interchange.importers.common import ImportDataError, fits, jsonl_read, str_field
from interchange.importers.writes import (
    HumanVerdict,
    ImportedAnnotators,
    human_verdicts_write,
    units_done_refresh,
)
from tasktypes.pairwise_preference.verdicts import BOTH_BAD, SIDES, TIE

WINNERS = (*SIDES, TIE, BOTH_BAD)


def pairs_import(*, campaign, paths, summary, unused) -> None:
    topics = {topic.external_id: topic for topic in Topic.objects.filter(campaign=campaign)}
    known = set(Item.objects.filter(campaign=campaign).values_list("external_id", flat=True))
    new_items, verdicts = [], []
    annotators = ImportedAnnotators(campaign=campaign)
    for path in paths:
        for line, row in jsonl_read(path):
            prompt_id = fits(str_field(row, "prompt_id", path=path, line=line), model=Topic, column="external_id",
                             path=path, line=line, field="prompt_id")
            prompt = str_field(row, "prompt", path=path, line=line)
            sides = {side: {"system": str_field(row, f"system_{side}", path=path, line=line),
                            "text": str_field(row, f"response_{side}", path=path, line=line)} for side in SIDES}
            if sides["a"]["system"] == sides["b"]["system"]:
                raise ImportDataError(file=path, line=line, field="system_b", message="a pair needs two systems")
            pair_id = str(row.get("id") or f"{prompt_id}/{sides['a']['system']}-vs-{sides['b']['system']}")
            pair_id = fits(pair_id, model=Item, column="external_id", path=path, line=line, field="id")
            if pair_id in known:
                raise ImportDataError(file=path, line=line, field="id", message=f"pair {pair_id!r} is already there")
            known.add(pair_id)
            topic = topics.get(prompt_id)
            if topic is None:
                topic = topics[prompt_id] = Topic.objects.create(campaign=campaign, external_id=prompt_id, text=prompt)
                summary.topics_created += 1
            elif topic.text != prompt:
                raise ImportDataError(file=path, line=line, field="prompt",
                                      message=f"prompt {prompt_id!r} has another text already")
            item = Item(campaign=campaign, topic=topic, external_id=pair_id, kind="pair", text="", data=sides)
            new_items.append(item)
            winner = row.get("winner")
            if winner is not None:
                if winner not in WINNERS:
                    raise ImportDataError(file=path, line=line, field="winner",
                                          message=f"winner is a, b, tie or both_bad, not {winner!r}")
                annotator = annotators.get(str(row.get("annotator") or "imported"), path=path, line=line,
                                           field="annotator")
                verdicts.append(HumanVerdict(path=path, line=line, item=item, annotator=annotator,
                                             kind=JudgmentKind.ANNOTATION, value={"preferred": winner, "left": None},
                                             label=winner))
    Item.objects.bulk_create(new_items)
    summary.items_created = len(new_items)
    summary.units_created = units_ensure(campaign=campaign)
    if verdicts:
        summary.human_judgments_created, _ = human_verdicts_write(campaign=campaign, verdicts=verdicts)
        units_done_refresh(campaign=campaign)
