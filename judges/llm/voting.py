"""Reading a verdict out of each generated sample, and the majority vote over an item's samples.

Self-consistency (Wang et al., 2023): sample several answers, keep the most frequent verdict. A sample
whose last non-empty line is not a verdict word does not vote; it is never guessed (docs/design.md §1.2's rule
for unparseable output). An item where no sample voted, or where the top verdicts tie, has no verdict:
it is a failed judgment with every sample's text kept.

Graded relevance (grade_parse, grade_vote) reads `Grade: N` from the last non-empty line, N a grade of the
campaign's scale; any other last line does not vote. The most frequent grade wins; when grades tie for the
most votes, the lowest of them wins (a judge whose samples split evenly is not credited with the higher grade
that only some of them gave), and the tie is kept in the verdict's raw output. No vote at all is a failed
judgment.
"""

import re
import string
from dataclasses import dataclass, field

from judges.errors import JudgeConfigError

VERDICTS = {"yes": ["yes", "correct"], "no": ["no", "incorrect"]}
LABELS = ("yes", "no")

# Markdown emphasis, code, headings and quotes around or inside the line: "**Verdict:** `yes`", "> yes".
_MARKUP = re.compile(r"[*_`#>~]+")
# A short lead-in naming the line: "Verdict:", "Final answer -", "Answer =".
_LABEL = re.compile(r"^[a-z][a-z ]{0,29}\s*[:=\-–—]\s*")
_EDGES = string.punctuation + string.whitespace + "“”‘’«»…"


def verdicts_check(verdicts: dict) -> None:
    """The vocabulary maps each label, yes and no, to a non-empty list of words; no word under two labels."""
    if set(verdicts) != set(LABELS):
        raise JudgeConfigError(
            f"llm: verdicts must map exactly the labels yes and no to lists of words, e.g. {VERDICTS}; "
            f"got label(s) {', '.join(map(repr, verdicts)) or 'none'}"
        )
    seen: dict[str, str] = {}
    for label, words in verdicts.items():
        if not isinstance(words, list) or not words or not all(isinstance(w, str) and _normal(w) for w in words):
            raise JudgeConfigError(f"llm: verdicts[{label!r}] must be a non-empty list of words, not {words!r}")
        for word in words:
            other = seen.setdefault(_normal(word), label)
            if other != label:
                raise JudgeConfigError(f"llm: verdict word {word!r} is listed under both {other} and {label}")


def _normal(text: str) -> str:
    """TEXT lower-cased, markup removed, outer punctuation stripped, inner spaces collapsed."""
    return " ".join(_MARKUP.sub(" ", text).lower().strip(_EDGES).split())


def verdict_parse(text: str, verdicts: dict) -> str | None:
    """The label whose word is the whole of TEXT's last non-empty line, tolerating case, markup, outer
    punctuation and a lead-in such as "Verdict:"; None when that line is anything else."""
    lines = [line for line in text.splitlines() if line.strip(_EDGES + "*_`#>~")]
    if not lines:
        return None
    line = _normal(lines[-1])
    words = {_normal(word): label for label, ws in verdicts.items() for word in ws}
    if line in words:
        return words[line]
    without_label = _LABEL.sub("", line, count=1)
    return words.get(without_label.strip(_EDGES))


@dataclass(frozen=True)
class Vote:
    """The outcome of voting over one item's samples (in sample index order).

    label is the winning verdict, or "" when there is none (no sample voted, or a tie: `reason` says
    which). confidence is the winner's share of the votes cast.
    """

    texts: list[str]
    votes: dict[str, int]
    unparsed: list[int] = field(default_factory=list)
    label: str = ""
    confidence: float | None = None
    reason: str = ""

    @property
    def failed(self) -> bool:
        return not self.label


def vote(texts: list[str], verdicts: dict) -> Vote:
    """Majority vote over TEXTS; samples without a verdict do not vote; a tie decides nothing."""
    votes = {label: 0 for label in verdicts}
    unparsed = []
    for index, text in enumerate(texts):
        label = verdict_parse(text, verdicts)
        if label is None:
            unparsed.append(index)
        else:
            votes[label] += 1
    cast = sum(votes.values())
    if cast == 0:
        return Vote(texts=texts, votes=votes, unparsed=unparsed,
                    reason=f"no verdict: none of the {len(texts)} sample(s) ends with a verdict line")
    top = max(votes.values())
    winners = [label for label, count in votes.items() if count == top]
    if len(winners) > 1:
        counts = ", ".join(f"{label} {count}" for label, count in votes.items())
        return Vote(texts=texts, votes=votes, unparsed=unparsed,
                    reason=f"tie: {counts} ({len(unparsed)} sample(s) without a verdict)")
    return Vote(texts=texts, votes=votes, unparsed=unparsed, label=winners[0], confidence=top / cast)


# The one answer form of a grade: "Grade: 2", in any case, markup such as "**Grade:** 2" and a final full stop
# tolerated; "Grade: 2 (highly relevant)", "Grade 2", "Grade: two" or "2" are not it.
_GRADE_LINE = re.compile(r"grade\s*:\s*(\d{1,2})", re.IGNORECASE)


def grade_parse(text: str, grades: set[int]) -> int | None:
    """The grade that TEXT's last non-empty line gives in the form `Grade: N`, when N is one of GRADES; else None.

    Only the last line counts: a grade in an earlier line followed by anything else is no answer.
    """
    lines = [line for line in text.splitlines() if line.strip(_EDGES + "*_`#>~")]
    if not lines:
        return None
    line = " ".join(_MARKUP.sub(" ", lines[-1]).split()).removesuffix(".").strip()
    found = _GRADE_LINE.fullmatch(line)
    if found is None or int(found.group(1)) not in grades:
        return None
    return int(found.group(1))


@dataclass(frozen=True)
class GradeVote:
    """The outcome of voting over one item's samples for a grade (in sample index order).

    votes counts each grade of the scale, keyed by its digit string; label is the winning grade as a digit
    string, or "" when no sample gave a grade of the scale (`reason` says so); tied lists the grades that
    tied for the most votes when the lowest of them won. confidence is the winner's share of the votes cast.
    """

    texts: list[str]
    votes: dict[str, int]
    unparsed: list[int] = field(default_factory=list)
    label: str = ""
    confidence: float | None = None
    tied: list[str] = field(default_factory=list)
    reason: str = ""

    @property
    def failed(self) -> bool:
        return not self.label


def grade_vote(texts: list[str], grades: list[int]) -> GradeVote:
    """Majority vote over TEXTS for one of GRADES; samples without a grade do not vote; a tie goes to the lowest."""
    votes = {str(grade): 0 for grade in sorted(grades)}
    unparsed = []
    for index, text in enumerate(texts):
        grade = grade_parse(text, set(grades))
        if grade is None:
            unparsed.append(index)
        else:
            votes[str(grade)] += 1
    cast = sum(votes.values())
    if cast == 0:
        return GradeVote(texts=texts, votes=votes, unparsed=unparsed,
                         reason=f"no grade: none of the {len(texts)} sample(s) ends with a line 'Grade: N' for a "
                                f"grade N of the scale ({', '.join(votes)})")
    top = max(votes.values())
    winners = [grade for grade, count in votes.items() if count == top]  # lowest grade first
    return GradeVote(texts=texts, votes=votes, unparsed=unparsed, label=winners[0], confidence=top / cast,
                     tied=winners if len(winners) > 1 else [])
