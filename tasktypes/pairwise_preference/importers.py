"""The formats of pairwise_preference. A prompt is a topic, a pair an item whose data holds both responses ({"a":
{"system", "text"}, "b": {...}}); a pair named again (its id, the same prompt and responses) adds a verdict to it.

- pairwise-jsonl: one pair per line, {"prompt_id", "prompt", "system_a", "response_a", "system_b", "response_b"},
  optionally "id" (the pair's id; else `<prompt_id>/<system_a>-vs-<system_b>`) and a verdict {"winner": "a", "b",
  "tie" or "both_bad", "annotator"}.
- mt-bench-human: MT-Bench's human judgments, one JSON object per line: "question_id", "model_a", "model_b",
  "winner" (model_a, model_b, tie), "judge", "turn" (1 or 2), "conversation_a" and "conversation_b" (lists of
  {"role", "content"}). A turn-2 judgment is its own prompt (both questions), each response both of the model's turns.
- arena-conversations: Chatbot Arena's conversations, the same keys, "winner" model_a, model_b, tie or
  "tie (bothbad)" (both bad); each line is its own pair, under its question_id.
- trec-preferences: a folder (or a .zip of one) holding topics.tsv and collection.tsv (`id<TAB>text`, no header) and
  preference files of `topic left right preferred [assessor]` lines; preferred is left's or right's id, or tie. A
  judge's file may be in the both-orders layout, `@ topic x y mark` lines: mark `!` (x preferred, the two orders
  agreed), `=` (the two orders disagreed: kept as order-inconsistent) or `?` (a text was missing: no verdict,
  counted apart). A pair named again by an assessor the file does not name is refused, or, with the import option
  repeat_assessors, is the next assessor's verdict (assessor1, assessor2, ... in the file's order), as published
  TREC preference files give them.
- pandalm-testset: PandaLM's human-annotated test set as published (WeOpenML/PandaLM data/testset-v1.json): a JSON
  list of {"idx", "cmp_key" ("<system a>_<system b>"), "instruction", "input", "response1", "response2",
  "annotator1", "annotator2", "annotator3"}, a verdict 0 (a tie), 1 (response1) or 2 (response2) by each annotator; the
  pair is `pandalm/<idx>`, its prompt the instruction and the input. With a judge name, a judge's results file of the
  same release: [{"idx", "<name>_result"}], the result 0 or Tie, 1 or 2, anything else a verdict the judge failed to
  give (kept as failed, with its text).
- pairwise-outputs: each system's response to each prompt, {"prompt_id", "prompt", "system", "response"}; the
  pairs are made here (pairs_design): every pair of systems on every prompt both answered, or, with the campaign
  option pair_prompts n, each pair of systems on n of those prompts drawn with the seed pair_seed.

With a judge name (the import's judge parameter) the verdicts are that external judge's, not humans'. An imported
human verdict records no side shown ("left": null): it counts for agreement and system scores, not for position
bias.
"""

import hashlib
import random
from dataclasses import dataclass, replace
from itertools import combinations
from pathlib import Path

from annotate.models import Item, JudgmentKind, Topic
from annotate.services.campaigns import units_ensure
from interchange.importers.common import (
    ImportDataError,
    UnusedLines,
    fits,
    json_array_read,
    jsonl_read,
    lines_read,
    str_field,
)
from interchange.importers.writes import (
    HumanVerdict,
    ImportedAnnotators,
    ItemRef,
    JudgeVerdict,
    JudgeVerdictWriter,
    external_judge_get,
    human_verdicts_write,
    units_done_refresh,
)
from tasktypes.pairwise_preference.judging import INCONSISTENT
from tasktypes.pairwise_preference.verdicts import BOTH_BAD, SIDES, TIE, A, B

WINNERS = (*SIDES, TIE, BOTH_BAD)
# The LMSYS layouts' winners, as ours.
LMSYS_WINNERS = {"model_a": A, "model_b": B, "tie": TIE, "tie (bothbad)": BOTH_BAD, "tie (inconsistent)": INCONSISTENT}
TREC_TEXTS = ("topics.tsv", "collection.tsv")
# The both-orders layout of a judge's TREC preference file: `@ topic x y mark`.
BOTH_ORDERS = "@"
MARK_PREFERRED, MARK_INCONSISTENT, MARK_MISSING = "!", "=", "?"
UNNAMED = "imported"  # the assessor of a verdict whose line names none


@dataclass(frozen=True)
class PairRow:
    """One line of a pairs file: the pair it names and, optionally, a verdict on it."""

    path: Path
    line: int
    prompt_id: str
    prompt: str
    sides: dict  # {"a": {"system", "text"}, "b": {...}}
    pair_id: str
    winner: str | None = None
    annotator: str = UNNAMED


class PairsWriter:
    """Pairs and their verdicts written as a file's rows come: new prompts and pairs made, a pair named again checked
    to be the same, verdicts kept for the end (the new pairs' ids come with their creation)."""

    def __init__(self, *, campaign, summary, judge: str | None, path: Path, unused=None,
                 repeat_assessors: bool = False):
        self.campaign, self.summary = campaign, summary
        self.topics = {topic.external_id: topic for topic in Topic.objects.filter(campaign=campaign)}
        self.items = {external_id: (pk, data) for external_id, pk, data in
                      Item.objects.filter(campaign=campaign).values_list("external_id", "id", "data")}
        self.new: dict[str, Item] = {}
        self.new_topics: list[Topic] = []
        self.verdicts: list[tuple[PairRow, str]] = []
        self.annotators = ImportedAnnotators(campaign=campaign)
        self.unused = unused
        # A pair's verdicts by assessors the file does not name: how many so far, and the first one's line.
        self.repeat_assessors = repeat_assessors
        self.unnamed: dict[str, tuple[int, int]] = {}
        self.judge = external_judge_get(campaign=campaign, name=judge, path=path,
                                        config={"format": "pairwise", "name": judge}) if judge else None

    def add(self, row: PairRow) -> None:
        path, line = row.path, row.line
        prompt_id = fits(row.prompt_id, model=Topic, column="external_id", path=path, line=line, field="prompt_id")
        pair_id = fits(row.pair_id, model=Item, column="external_id", path=path, line=line, field="id")
        if row.sides[A]["system"] == row.sides[B]["system"]:
            raise ImportDataError(file=path, line=line, field="system_b", message="a pair needs two systems")
        topic = self.topics.get(prompt_id)
        if topic is None:  # made with the pairs, at the end
            topic = self.topics[prompt_id] = Topic(campaign=self.campaign, external_id=prompt_id, text=row.prompt)
            self.new_topics.append(topic)
        elif topic.text != row.prompt:
            raise ImportDataError(file=path, line=line, field="prompt",
                                  message=f"prompt {prompt_id!r} has another text already")
        known = self.new[pair_id].data if pair_id in self.new else (self.items.get(pair_id) or (None, None))[1]
        if known is None:
            self.new[pair_id] = Item(campaign=self.campaign, topic=topic, external_id=pair_id, kind="pair", text="",
                                     data=row.sides)
        elif known != row.sides:
            raise ImportDataError(file=path, line=line, field="id",
                                  message=f"pair {pair_id!r} is already there with other systems or responses")
        if row.winner is not None:
            if row.winner not in WINNERS + ((INCONSISTENT,) if self.judge else ()):
                raise ImportDataError(file=path, line=line, field="winner",
                                      message=f"winner is a, b, tie or both_bad, not {row.winner!r}")
            if self.judge is None and row.annotator == UNNAMED:
                row = self._unnamed(row, pair_id)
            self.verdicts.append((row, pair_id))

    def _unnamed(self, row: PairRow, pair_id: str) -> PairRow:
        """ROW, a human verdict whose line names no assessor: as it is the first time its pair is so judged; a repeat
        refused, or with repeat_assessors the next assessor's (the first one's is assessor1 then)."""
        count, first = self.unnamed.get(pair_id, (0, row.line))
        self.unnamed[pair_id] = (count + 1, first)
        if self.repeat_assessors:
            return replace(row, annotator=f"assessor{count + 1}")
        if count:
            raise ImportDataError(file=row.path, line=row.line, field="assessor", message=(
                f"pair {pair_id!r} was judged on line {first} by an assessor the file does not name: name each "
                f"line's assessor, or import with repeat assessors (each repeat is another assessor's verdict)"))
        return row

    def finish(self) -> None:
        Topic.objects.bulk_create(self.new_topics, batch_size=2000)
        self.summary.topics_created = len(self.new_topics)
        Item.objects.bulk_create(self.new.values(), batch_size=2000)
        pks = {**{key: pk for key, (pk, _) in self.items.items()}, **{key: item.pk for key, item in self.new.items()}}
        self.summary.items_created = len(self.new)
        self.summary.units_created = units_ensure(campaign=self.campaign)
        if self.repeat_assessors:
            repeated = [count for count, _ in self.unnamed.values() if count > 1]
            self.summary.notes.append(
                f"pairs judged by assessors the files do not name: {len(self.unnamed)}, of them judged more than once: "
                f"{len(repeated)} (each repeat another assessor, up to assessor{max(repeated, default=1)})")
            fewer = sum(count < self.campaign.overlap for count, _ in self.unnamed.values())
            if fewer:
                self.summary.notes.append(
                    f"pairs with fewer verdicts than the campaign's k = {self.campaign.overlap}: {fewer}; they have no "
                    f"human label until more come (a campaign made with k = 1 takes each pair's verdicts as they are)")
        if self.judge is not None:
            # A pair named again keeps its first verdict; the others are counted as lines not used.
            writer = JudgeVerdictWriter(judge=self.judge, unused=self.unused)
            for row, pair_id in self.verdicts:
                writer.add(JudgeVerdict(path=row.path, line=row.line, item=ItemRef(pks[pair_id]), score=None,
                                        label=row.winner, raw="", failed=False, key=pair_id))
            writer.flush()
            self.summary.model_judgments_created = {self.judge.name: writer.created}
            return
        verdicts = [HumanVerdict(path=row.path, line=row.line, item=ItemRef(pks[pair_id]),
                                 annotator=self.annotators.get(row.annotator, path=row.path, line=row.line,
                                                               field="annotator"),
                                 kind=JudgmentKind.ANNOTATION, value={"preferred": row.winner, "left": None},
                                 label=row.winner) for row, pair_id in self.verdicts]
        if verdicts:
            self.summary.human_judgments_created, _ = human_verdicts_write(campaign=self.campaign, verdicts=verdicts)
            units_done_refresh(campaign=self.campaign)


def _pairwise_jsonl_rows(path: Path):
    for line, row in jsonl_read(path):
        prompt_id = str_field(row, "prompt_id", path=path, line=line)
        sides = {side: {"system": str_field(row, f"system_{side}", path=path, line=line),
                        "text": str_field(row, f"response_{side}", path=path, line=line)} for side in SIDES}
        yield PairRow(path=path, line=line, prompt_id=prompt_id, prompt=str_field(row, "prompt", path=path, line=line),
                      sides=sides, pair_id=str(row.get("id") or f"{prompt_id}/{sides[A]['system']}-vs-"
                                                                  f"{sides[B]['system']}"),
                      winner=row.get("winner"), annotator=str(row.get("annotator") or UNNAMED))


def _turns(row: dict, key: str, *, path: Path, line: int) -> list[dict]:
    conversation = row.get(key)
    if not isinstance(conversation, list) or not conversation or not all(
            isinstance(turn, dict) and isinstance(turn.get("content"), str) and turn.get("role") in ("user",
                                                                                                     "assistant")
            for turn in conversation):
        raise ImportDataError(file=path, line=line, field=key,
                              message='expected a list of {"role": "user" or "assistant", "content": text}')
    return conversation


def _said(conversation: list[dict], role: str) -> list[str]:
    return [turn["content"] for turn in conversation if turn["role"] == role]


def _joined(texts: list[str], word: str) -> str:
    """One text, or each under its turn's number when there are several."""
    return texts[0] if len(texts) == 1 else "\n\n".join(f"**{word} {n}.** {text}" for n, text in enumerate(texts, 1))


def _lmsys_rows(path: Path, *, per_turn: bool):
    """MT-Bench (PER_TURN: a judgment of one turn, the pair its question, turn and models) and Chatbot Arena (a
    judgment of a whole conversation, the pair its question_id)."""
    for line, row in jsonl_read(path):
        question = row.get("question_id")
        if not isinstance(question, (str, int)) or isinstance(question, bool) or str(question) == "":
            raise ImportDataError(file=path, line=line, field="question_id", message="expected an id")
        models = {side: str_field(row, f"model_{side}", path=path, line=line) for side in SIDES}
        turns = {side: _turns(row, f"conversation_{side}", path=path, line=line) for side in SIDES}
        asked = _said(turns[A], "user")
        if asked != _said(turns[B], "user"):
            raise ImportDataError(file=path, line=line, field="conversation_b",
                                  message="the two conversations ask different questions")
        turn = row.get("turn", len(asked)) if per_turn else len(asked)
        if not isinstance(turn, int) or isinstance(turn, bool) or not 1 <= turn <= len(asked):
            raise ImportDataError(file=path, line=line, field="turn",
                                  message=f"expected a turn from 1 to {len(asked)}, not {turn!r}")
        prompt_id = f"{question}" if turn == 1 or not per_turn else f"{question}/turn-{turn}"
        answers = {side: _said(turns[side], "assistant")[:turn] for side in SIDES}
        sides = {side: {"system": models[side], "text": _joined(answers[side], "Turn")} for side in SIDES}
        winner = row.get("winner")
        if winner is not None and winner not in LMSYS_WINNERS:
            raise ImportDataError(file=path, line=line, field="winner", message=(
                f"winner is {', '.join(LMSYS_WINNERS)}, not {winner!r}"))
        pair_id = f"{prompt_id}/{models[A]}-vs-{models[B]}" if per_turn else str(question)
        yield PairRow(path=path, line=line, prompt_id=prompt_id, prompt=_joined(asked[:turn], "Question"),
                      sides=sides, pair_id=pair_id, winner=LMSYS_WINNERS.get(winner),
                      annotator=str(row.get("judge") or UNNAMED))


def _tab_texts(path: Path) -> dict[str, str]:
    texts = {}
    for line, text in lines_read(path):
        if not text.strip():
            continue
        key, tab, value = text.partition("\t")
        if not tab or not key.strip():
            raise ImportDataError(file=path, line=line, field="id", message="expected id<TAB>text")
        texts[key.strip()] = value.strip()
    return texts


def _trec_rows(folders: list[Path], *, unused, judge: bool):
    paths = sorted(file for path in folders for file in ([path] if path.is_file() else path.rglob("*"))
                   if file.is_file() and not file.name.startswith("."))
    tables = {name: next((path for path in paths if path.name == name), None) for name in TREC_TEXTS}
    missing = [name for name, path in tables.items() if path is None]
    if missing:
        raise ImportDataError(file=paths[0] if paths else Path("."), line=0, field="files",
                              message=f"a trec-preferences folder holds {' and '.join(TREC_TEXTS)} beside the "
                                      f"preference files; {' and '.join(missing)} is missing")
    topics, documents = (_tab_texts(tables[name]) for name in TREC_TEXTS)
    for path in (path for path in paths if path.name not in TREC_TEXTS):
        for line, text in lines_read(path):
            fields = text.split()
            if not fields:
                continue
            if fields[0] == BOTH_ORDERS:
                fields = _both_orders(fields, path=path, line=line, judge=judge)
                if fields is None:
                    unused.skip("a judge's missing-text mark (?): no verdict", path=path, line=line, field="mark",
                                value=text.strip())
                    continue
            if len(fields) not in (4, 5):
                raise ImportDataError(file=path, line=line, field="line",
                                      message="expected topic left right preferred [assessor]")
            topic, left, right, preferred = fields[:4]
            if topic not in topics:
                raise ImportDataError(file=path, line=line, field="topic", message=f"no topic {topic!r} in topics.tsv")
            for field, doc in (("left", left), ("right", right)):
                if doc not in documents:
                    raise ImportDataError(file=path, line=line, field=field,
                                          message=f"no document {doc!r} in collection.tsv")
            if preferred not in (left, right, TIE, *((INCONSISTENT,) if judge else ())):
                raise ImportDataError(file=path, line=line, field="preferred",
                                      message=f"preferred is {left!r}, {right!r} or tie, not {preferred!r}")
            first, second = sorted((left, right))  # one pair whichever side a line puts each document
            winner = preferred if preferred in (TIE, INCONSISTENT) else (A if preferred == first else B)
            yield PairRow(path=path, line=line, prompt_id=topic, prompt=topics[topic],
                          sides={A: {"system": first, "text": documents[first]},
                                 B: {"system": second, "text": documents[second]}},
                          pair_id=f"{topic}/{first}-vs-{second}", winner=winner,
                          annotator=fields[4] if len(fields) == 5 else UNNAMED)


def _both_orders(fields: list[str], *, path: Path, line: int, judge: bool) -> list[str] | None:
    """A both-orders line `@ topic x y mark` as `topic x y preferred` (preferred: x, or INCONSISTENT where the two
    orders disagreed); None for a missing text's mark."""
    if not judge:
        raise ImportDataError(file=path, line=line, field="line", message=(
            "an '@ topic x y mark' line is a judge's verdict asked in both orders: import the file under a judge "
            "name"))
    if len(fields) != 5 or fields[4] not in (MARK_PREFERRED, MARK_INCONSISTENT, MARK_MISSING):
        raise ImportDataError(file=path, line=line, field="mark", message=(
            f"expected @ topic x y mark, the mark {MARK_PREFERRED} (x preferred), {MARK_INCONSISTENT} (the two "
            f"orders disagreed) or {MARK_MISSING} (a text was missing)"))
    _, topic, x, y, mark = fields
    if mark == MARK_MISSING:
        return None
    return [topic, x, y, x if mark == MARK_PREFERRED else INCONSISTENT]


PANDALM_WINNERS = {"0": TIE, "tie": TIE, "1": A, "2": B}
PANDALM_ANNOTATORS = ("annotator1", "annotator2", "annotator3")


def _pandalm_pair(idx) -> str:
    return f"pandalm/{idx}"


def _pandalm_rows(path: Path):
    """PandaLM's test set: a pair per record, each of its three annotators' verdicts a row."""
    for position, record in json_array_read(path, what="PandaLM test records"):
        if not isinstance(record, dict) or not isinstance(record.get("idx"), int):
            raise ImportDataError(file=path, line=position, field="idx", message="expected a record with an idx")
        systems = str_field(record, "cmp_key", path=path, line=position).split("_")
        if len(systems) != 2 or not all(systems):
            raise ImportDataError(file=path, line=position, field="cmp_key",
                                  message="expected <system a>_<system b>")
        instruction = str_field(record, "instruction", path=path, line=position)
        given = record.get("input") or ""
        prompt = f"{instruction}\n\n{given}" if given else instruction
        # The release names no prompt: one id per distinct prompt text, the same whatever the records' order.
        prompt_id = "pandalm-" + hashlib.sha256(prompt.encode()).hexdigest()[:12]
        sides = {side: {"system": system, "text": _pandalm_text(record, f"response{n}", path=path, line=position)}
                 for n, (side, system) in enumerate(zip(SIDES, systems, strict=True), start=1)}
        for annotator in PANDALM_ANNOTATORS:
            verdict = PANDALM_WINNERS.get(str(record.get(annotator)).lower())
            if verdict is None:
                raise ImportDataError(file=path, line=position, field=annotator,
                                      message=f"expected 0 (a tie), 1 or 2, not {record.get(annotator)!r}")
            yield PairRow(path=path, line=position, prompt_id=prompt_id, prompt=prompt, sides=sides,
                          pair_id=_pandalm_pair(record["idx"]), winner=verdict, annotator=annotator)


def _pandalm_text(record: dict, key: str, *, path: Path, line: int) -> str:
    """A response's text; a few of the release's responses are JSON's true (a model that answered "True"), read as
    that word."""
    value = record.get(key)
    if isinstance(value, bool):
        return str(value)
    return str_field(record, key, path=path, line=line)


def pandalm_results_import(*, campaign, paths: list[Path], judge: str, summary, unused) -> None:
    """A judge's results file of PandaLM's release ([{"idx", "<name>_result"}]) as that external judge's verdicts on
    the pairs the test set made; a result that is no verdict ("garbage") is a failed judgment, its text kept."""
    pairs = dict(Item.objects.filter(campaign=campaign, external_id__startswith="pandalm/")
                 .values_list("external_id", "id"))
    writer = JudgeVerdictWriter(judge=external_judge_get(campaign=campaign, name=judge, path=paths[0],
                                                         config={"format": "pandalm-testset", "name": judge}),
                                unused=unused)
    for path in paths:
        for position, record in json_array_read(path, what="PandaLM results"):
            results = [key for key in record if key.endswith("_result")] if isinstance(record, dict) else []
            if not isinstance(record, dict) or not isinstance(record.get("idx"), int) or len(results) != 1:
                raise ImportDataError(file=path, line=position, field="idx",
                                      message='expected {"idx", "<judge>_result"}')
            pair = pairs.get(_pandalm_pair(record["idx"]))
            if pair is None:
                raise ImportDataError(file=path, line=position, field="idx", message=(
                    f"no pair {_pandalm_pair(record['idx'])!r} in the campaign: import the test set first"))
            raw = str(record[results[0]])
            label = PANDALM_WINNERS.get(raw.lower())
            writer.add(JudgeVerdict(path=path, line=position, item=ItemRef(pair), score=None, label=label or "",
                                    raw=raw, failed=label is None, key=_pandalm_pair(record["idx"])))
    writer.flush()
    summary.model_judgments_created = {judge: writer.created}


def pairs_design(outputs: dict[str, dict[str, str]], *, prompts_per_pair: int | None, seed: int):
    """The pairs to make from OUTPUTS {prompt id: {system: response}}: for every two systems, the prompts both
    answered, or PROMPTS_PER_PAIR of them drawn with SEED (all of them where they share fewer). Yields (prompt id,
    system a, system b) with a and b in a drawn order, and returns {"pairs", "short"} (the pairs of systems that
    share fewer prompts than asked)."""
    rng = random.Random(seed)
    systems = sorted({system for responses in outputs.values() for system in responses})
    made, short = [], []
    for first, second in combinations(systems, 2):
        shared = sorted(prompt for prompt, responses in outputs.items() if first in responses and second in responses)
        if prompts_per_pair is not None:
            if len(shared) < prompts_per_pair:
                short.append(f"{first} and {second} ({len(shared)})")
            shared = sorted(rng.sample(shared, min(prompts_per_pair, len(shared))))
        for prompt in shared:
            made.append((prompt, *((first, second) if rng.random() < 0.5 else (second, first))))
    return made, short


def _outputs_rows(campaign, paths: list[Path], summary):
    outputs: dict[str, dict[str, str]] = {}
    texts, where = {}, {}
    for path in paths:
        for line, row in jsonl_read(path):
            prompt_id = str_field(row, "prompt_id", path=path, line=line)
            prompt = str_field(row, "prompt", path=path, line=line)
            system = str_field(row, "system", path=path, line=line)
            if texts.setdefault(prompt_id, prompt) != prompt:
                raise ImportDataError(file=path, line=line, field="prompt",
                                      message=f"prompt {prompt_id!r} has another text on an earlier line")
            if system in outputs.setdefault(prompt_id, {}):
                raise ImportDataError(file=path, line=line, field="system",
                                      message=f"{system!r} answered prompt {prompt_id!r} on an earlier line")
            outputs[prompt_id][system] = str_field(row, "response", path=path, line=line)
            where.setdefault(prompt_id, (path, line))
    options = campaign.options or {}
    per_pair, seed = options.get("pair_prompts"), options.get("pair_seed", 1)
    made, short = pairs_design(outputs, prompts_per_pair=per_pair, seed=seed)
    design = ("every pair of systems on every prompt both answered" if per_pair is None else
              f"each pair of systems on {per_pair} prompts both answered, drawn with seed {seed} (options "
              f"pair_prompts and pair_seed)")
    summary.notes.append(f"pairs made: {len(made)}, {design}" + (
        f"; fewer shared prompts than asked: {', '.join(short)}" if short else ""))
    for prompt_id, first, second in made:
        path, line = where[prompt_id]
        yield PairRow(path=path, line=line, prompt_id=prompt_id, prompt=texts[prompt_id],
                      sides={A: {"system": first, "text": outputs[prompt_id][first]},
                             B: {"system": second, "text": outputs[prompt_id][second]}},
                      pair_id=f"{prompt_id}/{first}-vs-{second}")


def pairs_import(*, campaign, fmt: str, paths: list[Path], summary, judge: str | None = None, unused=None,
                 repeat_assessors: bool = False) -> None:
    writer = PairsWriter(campaign=campaign, summary=summary, judge=judge, path=paths[0], unused=unused,
                         repeat_assessors=repeat_assessors)
    if fmt == "pandalm-testset" and judge is not None:
        pandalm_results_import(campaign=campaign, paths=paths, judge=judge, summary=summary,
                               unused=unused or UnusedLines())
        return
    if fmt == "trec-preferences":
        rows = _trec_rows(paths, unused=writer.unused or UnusedLines(), judge=judge is not None)
    elif fmt == "pairwise-outputs":
        rows = _outputs_rows(campaign, paths, summary)
    else:
        read = {"pairwise-jsonl": _pairwise_jsonl_rows,
                "mt-bench-human": lambda path: _lmsys_rows(path, per_turn=True),
                "arena-conversations": lambda path: _lmsys_rows(path, per_turn=False),
                "pandalm-testset": _pandalm_rows}[fmt]
        rows = (row for path in paths for row in read(path))
    for row in rows:
        writer.add(row)
    writer.finish()
