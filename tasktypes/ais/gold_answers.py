"""gold-answers: reference answers for the questions an ais campaign already holds, so that EM and F1 judge it.

JSONL, one question per line: `{"question": "...", "answers": ["...", ...]}` (`gold_answers`, or `answer` as
NQ-open's own JSONL names them, may stand for `answers`). A line's question is matched to the campaign's topic of the
same question (annotate.textnorm.question_key:
case, spacing and punctuation do not matter); the answers go to `Topic.data["gold_answers"]`, where the EM and F1
judges read them. Lines whose question the campaign lacks are counted and not imported (a gold file usually covers a
whole data set). A question that has gold answers already must come with the same ones (in any order); an empty
list, or an answer that is not text, is refused.
"""

from pathlib import Path

from annotate.models import Campaign, Topic
from annotate.textnorm import question_key
from interchange.importers.common import ImportDataError, UnusedLines, jsonl_read

ANSWER_KEYS = ("answers", "gold_answers", "answer")


def _answers(obj: dict, *, path: Path, line: int) -> list[str]:
    key = next((key for key in ANSWER_KEYS if key in obj), None)
    if key is None:
        raise ImportDataError(
            file=path, line=line, field="answers", message="missing key (answers, gold_answers or answer)"
        )
    answers = obj[key]
    if not isinstance(answers, list) or not answers:
        raise ImportDataError(file=path, line=line, field=key, message="expected a non-empty list of answers")
    if not all(isinstance(answer, str) and answer.strip() for answer in answers):
        raise ImportDataError(file=path, line=line, field=key, message="every answer must be non-empty text")
    return [answer.strip() for answer in answers]


def gold_answers_import(*, campaign: Campaign, paths: list[Path], unused: UnusedLines) -> dict[str, int]:
    """Give the campaign's questions their gold answers from PATHS. Returns {"read": lines, "given": topics given
    answers, "same": topics that had the same answers already, "outside": lines naming no question of the
    campaign}; those lines, and lines repeating a question an earlier line gave, are counted in UNUSED. Call inside
    the import's transaction."""
    topics = {question_key(topic.text): topic for topic in Topic.objects.filter(campaign=campaign).only("text", "data")}
    counts = {"read": 0, "given": 0, "same": 0, "outside": 0}
    seen: dict[str, tuple[Path, int]] = {}
    changed: list[Topic] = []
    for path in paths:
        for line, obj in jsonl_read(path):
            counts["read"] += 1
            question = obj.get("question")
            if not isinstance(question, str) or not question.strip():
                raise ImportDataError(file=path, line=line, field="question", message="expected the question as text")
            answers = _answers(obj, path=path, line=line)
            topic = topics.get(question_key(question))
            if topic is None:
                counts["outside"] += 1
                unused.skip("naming no question of the campaign", path=path, line=line, field="question",
                            value=question[:80])
                continue
            earlier = (topic.data or {}).get("gold_answers")
            if earlier:
                if sorted(earlier) != sorted(answers):
                    where = seen.get(topic.external_id)
                    origin = f"line {where[1]} of {where[0].name}" if where else "an earlier import"
                    raise ImportDataError(file=path, line=line, field="answers",
                                          message=f"this question has other gold answers ({origin})")
                if topic.external_id not in seen:
                    counts["same"] += 1
                    seen[topic.external_id] = (path, line)
                    unused.use()
                else:
                    unused.skip("repeating a question an earlier line gave (same answers)", path=path, line=line,
                                field="question", value=question[:80])
                continue
            unused.use()
            topic.data = {**(topic.data or {}), "gold_answers": answers}
            seen[topic.external_id] = (path, line)
            changed.append(topic)
            counts["given"] += 1
    Topic.objects.bulk_update(changed, ["data"], batch_size=1000)
    return counts
