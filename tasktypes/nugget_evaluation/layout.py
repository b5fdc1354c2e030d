"""How a nugget_evaluation campaign's data is laid out in annotate's rows (one place; every module reads it here).

Topic (external_id: the topic id, text: the query); Topic.data:
  "passages"  [{"id", "text", "title"}]: the passages shown while nuggets are written (the answers' cited segments,
              or an imported pool), in the order imported.
  "nuggets"   the topic's frozen list, {"version": 1, 2, ...; "source": where it came from (SOURCE_*);
              "nuggets": [{"id", "text", "importance"}]}; absent until frozen. Assignment marks name nuggets by id.
  "nugget_versions"  the earlier frozen lists, oldest first, same shape (each a finished round).
  "proposals" {source: [{"id", "text", "importance"}]}: lists a creation unit can be started from (an imported
              file's, by its name as "import:<name>").
  "matches"   {source: {"version": the frozen list's, "by": username, "at", "pairs": {frozen nugget id: the source
              list's nugget id saying the same, or null}}}: a person's match of the frozen list with another list
              (matching.py), which the report's recovery counts.

Items:
  kind NUGGETS_KIND, one per topic, external_id "<topic>/nuggets": its unit is the topic's creation unit.
  kind ANSWER_KIND, one per answer of a run in a round, external_id "<topic>/<run>" in round 1 and
      "<topic>/<run>@<round>" after; text: the answer's sentences joined by spaces; data: {"run", "round",
      "sentences": [{"text", "citations": [segment id, ...]}], "segments": {segment id: text} (the cited segments)}.
      A SystemOutput (system: the run) stands beside each. Its unit is an assignment unit, closed
      (judgments_needed 0) until the topic's list of its round is frozen; freezing opens it (k = the overlap).

Human values (HumanJudgment.value) and their labels:
  creation   {"nuggets": [{"id", "text", "importance", "origin": ORIGIN_*, "from": a proposal's id or null}],
              "started_from": a proposal source or "", "removed": [proposal ids dropped]}; label list_label(...).
  assignment {"version": the list's version, "marks": {nugget id: MARK_*}}; label marks_label(...).

Judge verdicts (judges.models.ModelJudgment) on the same items: on a nuggets item, label CREATED_LABEL and raw the
JSON {"nuggets": [...]}; on an answer item, label marks_label(...) and raw the JSON {"version", "marks", "failed":
{nugget id: why}} (a nugget the judge's reply did not settle is failed, not guessed).
"""

import hashlib
import json

NUGGETS_KIND = "nuggets"
ANSWER_KIND = "answer"

VITAL = "vital"
OKAY = "okay"
IMPORTANCES = (VITAL, OKAY)

SUPPORT = "support"
PARTIAL = "partial_support"
NOT_SUPPORT = "not_support"
MARKS = (SUPPORT, PARTIAL, NOT_SUPPORT)
# One letter per mark: the label's alphabet and the annotation page's keys.
MARK_LETTERS = {SUPPORT: "s", PARTIAL: "p", NOT_SUPPORT: "n"}

ORIGIN_ADDED = "added"
ORIGIN_KEPT = "kept"
ORIGIN_EDITED = "edited"
ORIGINS = (ORIGIN_ADDED, ORIGIN_KEPT, ORIGIN_EDITED)

CREATED_LABEL = "nuggets"

SOURCE_IMPORT = "import:"
SOURCE_ASSESSOR = "assessor:"
SOURCE_JUDGE = "judge:"
SOURCE_ADJUDICATED = "adjudicated"

# The label column is 64 characters: a longer marks string is named by its digest (equal marks, equal labels).
LABEL_MAX = 64


def nuggets_item_id(topic_id: str) -> str:
    return f"{topic_id}/nuggets"


def answer_item_id(topic_id: str, run: str, round_: int = 1) -> str:
    return f"{topic_id}/{run}" if round_ == 1 else f"{topic_id}/{run}@{round_}"


def topic_list(topic_data: dict) -> dict | None:
    """The topic's frozen list {"version", "source", "nuggets"}, None before one is frozen."""
    found = (topic_data or {}).get("nuggets")
    return found if isinstance(found, dict) and isinstance(found.get("nuggets"), list) else None


def topic_lists(topic_data: dict) -> list[dict]:
    """Every frozen list of the topic, oldest first, the current one last."""
    data = topic_data or {}
    current = topic_list(data)
    return [*(data.get("nugget_versions") or []), *([current] if current else [])]


def list_label(nuggets: list[dict]) -> str:
    """The label of a written list: CREATED_LABEL and a digest of its nuggets' texts and importances in order, so that
    two assessors' lists are equal labels only when they are the same list (the adjudication queue takes the others)."""
    written = json.dumps([[nugget.get("text"), nugget.get("importance")] for nugget in nuggets], ensure_ascii=False)
    return f"{CREATED_LABEL}:{hashlib.sha256(written.encode()).hexdigest()[:12]}"


def marks_label(marks: dict, order: list[str]) -> str:
    """The label of a set of MARKS over the nuggets in ORDER (their ids): one letter per nugget, "-" where unmarked;
    its digest when longer than the label column."""
    letters = "".join(MARK_LETTERS.get(str(marks.get(nugget)), "-") for nugget in order)
    if len(letters) <= LABEL_MAX:
        return letters
    return "h" + hashlib.sha256(letters.encode()).hexdigest()[:LABEL_MAX - 1]
