"""trec-qrels for image_relevance: NIST grades (`qid 0 docid grade`, a grade of the campaign's scale: 0, 1 or 2 by
default) as an assessor's judgments.

The assessor is named by the file: `qrels-<file stem>` (an account that cannot log in). Each line is that
assessor's annotation of the (topic, image) item, value {"grade": g}, label "g"; an image the pool does not
hold yet becomes an item of its topic (graded images belong to the judged set). The grades count towards the
units' overlap like any annotation. Re-importing the same grade is a no-op; another grade is refused.
"""

import re
from pathlib import Path

from annotate.models import Campaign, Item, JudgmentKind, Topic
from annotate.services.campaigns import units_ensure, user_get_or_create_imported
from annotate.task_types import task_type_get
from tasktypes.graded import or_list
from tasktypes.importers.common import ImportDataError, fits
from tasktypes.importers.images import image_items_ensure
from tasktypes.importers.trec_qrels import qrels_read
from tasktypes.importers.writes import HumanVerdict, ItemRef, human_verdicts_write, units_done_refresh


def assessor_name(path: Path) -> str:
    """The imported assessor's username for a qrels file: qrels-<stem>, in the characters usernames allow."""
    return ("qrels-" + re.sub(r"[^\w.@+-]", "-", path.stem))[:150]


def image_qrels_import(*, campaign: Campaign, paths: list[Path]) -> tuple[int, int, int]:
    """Import the grades; returns (judgments, items, units) created. Call inside the import's transaction."""
    topics = dict(Topic.objects.filter(campaign=campaign).values_list("external_id", "id"))
    grades = task_type_get(campaign.task_type).levels(campaign)
    expected = or_list([str(grade) for grade in grades])
    lines = []
    seen: dict[tuple[str, str, str], tuple[int, int]] = {}
    for path in paths:
        assessor = assessor_name(path)
        for number, qid, docid, grade in qrels_read(path):
            if grade not in grades:
                raise ImportDataError(file=path, line=number, field="grade",
                                      message=f"expected {expected} (the campaign's scale), got {grade}")
            if qid not in topics:
                raise ImportDataError(file=path, line=number, field="qid", message=f"no topic {qid!r} in this campaign")
            fits(f"{qid}/{docid}", model=Item, column="external_id", path=path, line=number, field="docid")
            earlier = seen.get((assessor, qid, docid))
            if earlier is not None:
                if earlier[1] != grade:
                    raise ImportDataError(file=path, line=number, field="grade", message=(
                        f"{docid!r} under topic {qid!r} has grade {earlier[1]} on line {earlier[0]}"))
                continue
            seen[(assessor, qid, docid)] = (number, grade)
            lines.append((path, number, assessor, qid, docid, grade))

    items, created_items = image_items_ensure(campaign=campaign, topics=topics,
                                              pairs={(qid, docid) for _, _, _, qid, docid, _ in lines})
    created_units = units_ensure(campaign=campaign)
    users = {name: user_get_or_create_imported(username=name) for name in {line[2] for line in lines}}
    verdicts = [
        HumanVerdict(path=path, line=number, item=ItemRef(items[(qid, docid)]), annotator=users[assessor],
                     kind=JudgmentKind.ANNOTATION, value={"grade": grade}, label=str(grade))
        for path, number, assessor, qid, docid, grade in lines
    ]
    created, _ = human_verdicts_write(campaign=campaign, verdicts=verdicts)
    units_done_refresh(campaign=campaign)
    return created, created_items, created_units
