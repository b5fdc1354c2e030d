"""How model judges judge nugget_evaluation's items (TaskTypeSpec.judge_batch): a topic's nuggets item asks for its
nuggets (creation), an answer item for a mark per nugget of its round's frozen list (assignment). The verdicts have
layout.py's shape: label CREATED_LABEL and raw {"nuggets"} on a nuggets item; label marks_label(marks, the list's
order) and raw {"version", "marks", "failed"} on an answer, a nugget the judge did not settle being failed, never
guessed.

The llm family (the prompt is llm_prompt.py's) writes nuggets and marks answers:
- creation: n samples; the nuggets are those of the first sample, by index, whose reply lists at least one nugget
  (the others are not read: more samples only buy another chance at a readable reply). No readable sample: failed.
- assignment: the list in batches of `nugget_batch` nuggets, n samples per batch; each nugget's mark is the majority
  of the samples that give it a readable line; a nugget no sample marks, or whose top marks tie, is failed with why.
  Every nugget failed: the verdict fails, its body kept.
Samples are stored per (judge, item, index) as the family stores them: batch b of an answer takes indices
b*n .. b*n+n-1, so a rerun asks only for what is missing.

Both families mark against the topic's frozen list by default (`nuggets_from` "frozen"); with `nuggets_from`
"judge:<name>" they mark against the list judge <name> wrote for the topic (its verdict on the topic's nuggets item,
read from the database, one query a batch): the fully automatic condition (an llm judge naming itself is
AutoNuggetizer's nuggetize-then-assign). Such a verdict's raw is {"list": "judge:<name>", "marks", "failed"}, with that
list's nugget ids and no version; an answer whose topic has no readable list from that judge fails with why.

The autoais family (NLI) marks answers only: each (answer, nugget) pair is an entailment item, premise the answer's
text and hypothesis the nugget's text (NuggetEntailment); P(entailment) p is support at `support_at` or above,
partial_support at `partial_at` or above when that is set (above 0), else not_support. The raw keeps each p.
"""

import json
from dataclasses import dataclass

from django.db.models import Exists, OuterRef, Subquery

from annotate.models import Item
from judges.families import SAMPLE_FAMILIES
from judges.families.autoais import EntailmentPrompt
from judges.families.base import NOTE_TRUNCATED, NOTE_WINDOWED, ItemInput, Option, Verdict
from judges.llm.backend import Generation, MemorySampleStore, Request, generate_in_parts, request_bytes
from judges.models import Judge, ModelJudgment
from judges.templates import PromptBound, PromptTooLarge, budget, field_max_chars, text_size
from tasktypes.nugget_evaluation import llm_prompt
from tasktypes.nugget_evaluation.freeze import NuggetListError, nuggets_checked
from tasktypes.nugget_evaluation.layout import (
    CREATED_LABEL,
    MARKS,
    NOT_SUPPORT,
    NUGGETS_KIND,
    PARTIAL,
    SOURCE_JUDGE,
    SUPPORT,
    marks_label,
    topic_lists,
)

SUPPORT_AT = 0.5
# partial_at 0: no p is partial support (every p is at least 0, so 0 cannot be a threshold).
PARTIAL_OFF = 0.0
NLI_CANNOT_WRITE = "the autoais family cannot write nuggets: it only marks answers against a frozen list"
# nuggets_from: the list an answer is marked against: the topic's frozen list, or a judge's (SOURCE_JUDGE + its name).
FROZEN = "frozen"
JUDGE_NAME_MAX = 100  # judges.models.Judge.name


# --- the task type's hooks (spec.py calls these) ---

class NuggetEntailment(EntailmentPrompt):
    """autoais on nugget_evaluation: the items it is given are (answer, nugget) pairs that judging.nli_judge makes,
    the answer's text as the item's text and the nugget's in data["nugget"]."""

    def unjudgeable(self, item: ItemInput) -> str:
        if not item.text.strip():
            return "the answer has no text"
        return "" if str(item.data.get("nugget") or "").strip() else "the nugget has no text"

    def hypothesis(self, item: ItemInput, config: dict) -> str:
        return str(item.data["nugget"]).strip()

    def premise(self, item: ItemInput, config: dict) -> str:
        return item.text.strip()

    def premise_longest(self, item: ItemInput) -> str:
        return item.text

    def hypothesis_bound(self, config: dict) -> PromptBound:
        most = field_max_chars()
        return PromptBound("autoais", "the hypothesis (a nugget)").size(most, most * 4)

    def premise_max_chars(self, config: dict) -> int:
        return field_max_chars()


def judge_prompt(family: str):
    if family in SAMPLE_FAMILIES:
        return llm_prompt.NuggetPrompt()
    return NuggetEntailment()


def judge_options(family: str) -> dict[str, Option]:
    listed = {"nuggets_from": Option((str,), FROZEN, "Nuggets: the list an answer is marked against: \"frozen\" (the "
                                                     "topic's frozen list) or \"judge:<name>\" (the list that judge "
                                                     "wrote for the topic).")}
    if family in SAMPLE_FAMILIES:
        return listed
    return {
        **listed,
        "support_at": Option((int, float), SUPPORT_AT, "Nuggets: P(entailment) at or above which the answer "
                                                       "supports a nugget."),
        "partial_at": Option((int, float), PARTIAL_OFF, "Nuggets: P(entailment) at or above which (and below "
                                                        "support_at) it supports it in part; 0: never partial."),
    }


def nuggets_from_problem(value: str) -> str | None:
    """What is wrong with a nuggets_from VALUE, None when it is "frozen" or "judge:<a judge's name>"."""
    if value == FROZEN:
        return None
    name = value[len(SOURCE_JUDGE):] if value.startswith(SOURCE_JUDGE) else None
    if not name or name != name.strip() or len(name) > JUDGE_NAME_MAX:
        return (f'nuggets_from must be "{FROZEN}" or "{SOURCE_JUDGE}<a judge\'s name>" (at most {JUDGE_NAME_MAX} '
                f"characters, no space around it), not {value!r}")
    return None


def judge_config_problem(family: str, config: dict) -> str | None:
    problem = nuggets_from_problem(config["nuggets_from"])
    if problem or family in SAMPLE_FAMILIES:
        return problem
    support, partial = config["support_at"], config["partial_at"]
    if not 0 < support <= 1:
        return f"support_at must be above 0 and at most 1, not {support}"
    if partial < 0 or (partial > 0 and partial >= support):
        return f"partial_at must be 0 (off) or above 0 and below support_at ({support}), not {partial}"
    return None


def nuggets_judge(family, items: list[ItemInput], config: dict, **extra) -> list[Verdict]:
    """FAMILY's verdicts on ITEMS (nuggets items and answer items, mixed), one per item in order."""
    source = config.get("nuggets_from", FROZEN)
    lists = None if source == FROZEN else judge_lists_get(
        item_ids=[item.item_id for item in items if is_answer(item)], source=source)
    if family.name in SAMPLE_FAMILIES:
        return llm_judge(family, items, config, samples=extra.get("samples"), connection=extra.get("connection"),
                         lists=lists)
    return nli_judge(family, items, config, lists=lists, **extra)


def judge_lists_get(*, item_ids: list[int], source: str) -> dict[int, dict | str]:
    """For each answer item of ITEM_IDS, the list that the judge SOURCE ("judge:<name>") wrote for its topic, as
    {"list": SOURCE, "nuggets": [...]}, or why there is none: one query for the batch (the judge of that name in the
    item's campaign, its verdict on the topic's nuggets item)."""
    name = source[len(SOURCE_JUDGE):]
    verdicts = ModelJudgment.objects.filter(judge__campaign_id=OuterRef("campaign_id"), judge__name=name,
                                            item__topic_id=OuterRef("topic_id"), item__kind=NUGGETS_KIND)
    rows = (Item.objects.filter(pk__in=item_ids)
            .annotate(known=Exists(Judge.objects.filter(campaign_id=OuterRef("campaign_id"), name=name)),
                      written=Subquery(verdicts.filter(failed=False).values("raw")[:1]),
                      failed_too=Exists(verdicts.filter(failed=True)))
            .values_list("pk", "known", "written", "failed_too"))
    found: dict[int, dict | str] = {}
    for pk, known, written, failed in rows:
        if not known:
            found[pk] = f"no judge named {name!r} in this campaign (nuggets_from {source})"
        elif written is None:
            found[pk] = (f"judge {name}'s nuggets for this topic failed (retry them, then retry the failed items)"
                         if failed else f"judge {name} has written no nuggets for this topic yet (judge the topic's "
                                        f"nuggets item with it, then retry the failed items)")
        else:
            try:
                nuggets = nuggets_checked(json.loads(written).get("nuggets"))
            except (ValueError, AttributeError, NuggetListError):
                nuggets = []
            found[pk] = {"list": source, "nuggets": nuggets} if nuggets else (
                f"judge {name}'s nuggets for this topic cannot be read as a list")
    return found


# --- what an item is ---

def is_answer(item: ItemInput) -> bool:
    """An answer item (its data names its run and round); a topic's nuggets item has neither."""
    data = item.data or {}
    return "round" in data or "run" in data or "sentences" in data


def answer_text(item: ItemInput) -> str:
    if item.text.strip():
        return item.text
    sentences = (item.data or {}).get("sentences") or []
    return " ".join(str(s.get("text") or "") for s in sentences if isinstance(s, dict)).strip()


def answer_list(item: ItemInput) -> dict | None:
    """The frozen list an answer ITEM is marked against: its topic's list whose version is the answer's round."""
    round_ = (item.data or {}).get("round", 1)
    return next((found for found in topic_lists(item.topic_data) if found.get("version") == round_), None)


@dataclass(frozen=True)
class Work:
    """What one item asks: the nuggets to write (creation) or the list to mark (assignment), or why it cannot be
    asked."""

    creation: bool
    why: str = ""
    passages: tuple = ()
    frozen: dict | None = None
    answer: str = ""

    @property
    def nuggets(self) -> list[dict]:
        return list((self.frozen or {}).get("nuggets") or [])


def work_of(item: ItemInput, lists: dict[int, dict | str] | None = None) -> Work:
    """What ITEM asks; an answer is marked against its round's frozen list, or, with LISTS (judge_lists_get), against
    the judge's list found there."""
    if not is_answer(item):
        passages = tuple(p for p in (item.topic_data or {}).get("passages") or []
                         if isinstance(p, dict) and str(p.get("text") or "").strip())
        why = "" if passages else "the topic has no passages to write nuggets from"
        if not why and not item.topic_text.strip():
            why = "the topic has no query"
        return Work(creation=True, why=why, passages=passages)
    answer = answer_text(item)
    why = ""
    if lists is not None:
        found = lists.get(item.item_id, "the answer is not in the campaign")
        frozen, why = (found, "") if isinstance(found, dict) else (None, found)
    else:
        frozen = answer_list(item)
        round_ = (item.data or {}).get("round", 1)
        if frozen is None or not frozen.get("nuggets"):
            why = (f"the topic has no frozen nugget list for round {round_} yet (freeze one, then retry the failed "
                   f"items)")
    if not why and not answer:
        why = "the answer has no text"
    return Work(creation=False, why=why, frozen=frozen, answer=answer)


def _failure(why: str, **body) -> Verdict:
    return Verdict.failure(json.dumps({**body, "reason": why}))


def _body(frozen: dict, marks: dict, failed: dict, **more) -> dict:
    """A verdict's body: marks against a frozen list name its version, against a judge's list that list's source."""
    named = {"list": frozen["list"]} if "list" in frozen else {"version": frozen.get("version")}
    return {**named, "marks": marks, "failed": failed, **more}


def _marks_verdict(frozen: dict, marks: dict, failed: dict, **more) -> Verdict:
    """The verdict of MARKS on FROZEN's nuggets (the others FAILED): failed when no nugget is marked."""
    body = _body(frozen, marks, failed, **more)
    if not marks:
        reasons = sorted(set(failed.values()))
        return _failure(f"no nugget was marked: {'; '.join(reasons)}", **body)
    order = [nugget["id"] for nugget in frozen["nuggets"]]
    return Verdict(score=None, label=marks_label(marks, order), raw=json.dumps(body))


# --- the llm family ---

def _over_budget(messages: list[dict]) -> str:
    """Why MESSAGES are over the prompt budget (judges.templates.budget), or ""."""
    chars = sum(text_size(str(message["content"]))[0] for message in messages)
    size = request_bytes(Request(key=0, messages=messages, sample_indices=()))
    most_bytes, most_tokens = budget()
    if size > most_bytes or chars > most_tokens:
        return str(PromptTooLarge(f"the prompt would take {size:,} bytes ({chars:,} characters); a prompt may take "
                                  f"at most {most_bytes:,} bytes and {most_tokens:,} tokens on this installation"))
    return ""


def _batches(nuggets: list[dict], size: int) -> list[list[dict]]:
    return [nuggets[start:start + size] for start in range(0, len(nuggets), size)]


def llm_judge(family, items: list[ItemInput], config: dict, *, samples=None, connection=None,
              lists: dict[int, dict | str] | None = None) -> list[Verdict]:
    store = samples if samples is not None else MemorySampleStore()
    n = config["n"]
    works = {item.item_id: work_of(item, lists) for item in items}
    have = store.samples_get([item.item_id for item in items])
    got: dict[int, dict[int, Generation]] = {item.item_id: dict(have.get(item.item_id, {})) for item in items}
    errors: dict[int, list[str]] = {item.item_id: [] for item in items}
    # A request's key -> (item id, the first sample index of its batch); a batch too large to ask -> why.
    keys: dict[int, tuple[int, int]] = {}
    too_large: dict[tuple[int, int], str] = {}

    def requests():
        for item in items:
            work = works[item.item_id]
            if work.why:
                continue
            if work.creation:
                parts = [(0, llm_prompt.creation_messages(item.topic_text, list(work.passages), config))]
            else:
                parts = [(b * n, llm_prompt.assignment_messages(item.topic_text, work.answer,
                                                                [nugget["text"] for nugget in batch], config))
                         for b, batch in enumerate(_batches(work.nuggets, config["nugget_batch"]))]
            for offset, messages in parts:
                missing = tuple(i for i in range(n) if offset + i not in got[item.item_id])
                if not missing:
                    continue
                why = _over_budget(messages)
                if why:
                    too_large[(item.item_id, offset)] = why
                    continue
                keys[len(keys)] = (item.item_id, offset)
                yield Request(key=len(keys) - 1, messages=messages, sample_indices=missing)

    def on_sample(key: int, index: int, generation: Generation) -> None:
        item_id, offset = keys[key]
        if generation.error:
            errors[item_id].append(f"sample {offset + index}: {generation.error}")
            return
        store.sample_put(item_id, offset + index, generation)
        got[item_id][offset + index] = generation

    generate_in_parts(lambda: family.backend(config, connection=connection), requests(), family.decoding(config),
                      on_sample)
    verdicts = []
    for item in items:
        work, generations = works[item.item_id], got[item.item_id]
        if work.why:
            verdicts.append(_failure(work.why))
        elif work.creation:
            verdicts.append(_creation_verdict(generations, errors[item.item_id], too_large.get((item.item_id, 0)),
                                              config))
        else:
            verdicts.append(_assignment_verdict(work, generations, errors[item.item_id], too_large, item.item_id,
                                                config))
    return verdicts


def _creation_verdict(generations: dict[int, Generation], errors: list[str], too_large: str | None,
                      config: dict) -> Verdict:
    n = config["n"]
    texts = [generations[i].text if i in generations else None for i in range(n)]
    for index, text in enumerate(texts):
        if text is None:
            continue
        # A reply that used every token it was allowed may end in a fact cut short: its last line is not read.
        used = generations[index].completion_tokens
        cut = used is not None and used >= config["max_new_tokens"]
        nuggets = llm_prompt.creation_parse(text, config["max_nuggets"], cut=cut)
        if nuggets:
            return Verdict(score=None, label=CREATED_LABEL, raw=json.dumps({"nuggets": nuggets, "sample": index}))
    missing = [i for i, text in enumerate(texts) if text is None]
    if too_large:
        why = too_large
    elif missing:
        why = (f"{len(missing)} of {n} sample(s) failed and no other lists a nugget: "
               f"{'; '.join(errors) or 'the backend returned nothing for them'}")
    else:
        why = f"no nugget: none of the {n} sample(s) has a line in the form vital: <fact> or okay: <fact>"
    return _failure(why, samples=texts, errors=errors)


def _assignment_verdict(work: Work, generations: dict[int, Generation], errors: list[str],
                        too_large: dict[tuple[int, int], str], item_id: int, config: dict) -> Verdict:
    n = config["n"]
    marks: dict[str, str] = {}
    failed: dict[str, str] = {}
    votes: dict[str, dict[str, int]] = {}
    for b, batch in enumerate(_batches(work.nuggets, config["nugget_batch"])):
        offset = b * n
        texts = [generations[offset + i].text for i in range(n) if offset + i in generations]
        read = [llm_prompt.assignment_parse(text, len(batch)) for text in texts]
        for number, nugget in enumerate(batch, start=1):
            counts = {mark: 0 for mark in MARKS}
            for marked in read:
                if number in marked:
                    counts[marked[number]] += 1
            votes[nugget["id"]] = {mark: count for mark, count in counts.items() if count}
            top = max(counts.values())
            winners = [mark for mark, count in counts.items() if count == top]
            if top and len(winners) == 1:
                marks[nugget["id"]] = winners[0]
            elif top:
                failed[nugget["id"]] = "tie: " + ", ".join(f"{mark} {counts[mark]}" for mark in winners)
            elif (item_id, offset) in too_large:
                failed[nugget["id"]] = too_large[(item_id, offset)]
            elif not texts:
                failed[nugget["id"]] = (f"its batch's {n} sample(s) failed: "
                                        f"{'; '.join(errors) or 'the backend returned nothing for them'}")
            else:
                failed[nugget["id"]] = f"no readable line for it in {len(texts)} sample(s)"
    return _marks_verdict(work.frozen, marks, failed, votes=votes)


# --- the autoais family: an entailment item per (answer, nugget) ---

def _mark(p: float, config: dict) -> str:
    if p >= config["support_at"]:
        return SUPPORT
    if config["partial_at"] > 0 and p >= config["partial_at"]:
        return PARTIAL
    return NOT_SUPPORT


def nli_judge(family, items: list[ItemInput], config: dict, *, lists: dict[int, dict | str] | None = None,
              **extra) -> list[Verdict]:
    works = {item.item_id: work_of(item, lists) for item in items}
    pairs = [ItemInput(item_id=item.item_id, topic_text=item.topic_text, gold_answers=[],
                       text=works[item.item_id].answer, data={"nugget": nugget["text"]})
             for item in items if not works[item.item_id].why and not works[item.item_id].creation
             for nugget in works[item.item_id].nuggets]
    scored = iter(family.judge_batch(pairs, config, **extra) if pairs else [])
    verdicts = []
    for item in items:
        work = works[item.item_id]
        if work.creation:
            verdicts.append(_failure(NLI_CANNOT_WRITE))
            continue
        if work.why:
            verdicts.append(_failure(work.why))
            continue
        marks, failed, p = {}, {}, {}
        cut = ""
        for nugget in work.nuggets:
            verdict = next(scored)
            if verdict.failed or verdict.score is None:
                failed[nugget["id"]] = verdict.raw or "no entailment score"
                continue
            p[nugget["id"]] = round(float(verdict.score), 6)
            marks[nugget["id"]] = _mark(verdict.score, config)
            if not cut and (NOTE_TRUNCATED in verdict.raw or NOTE_WINDOWED in verdict.raw):
                cut = verdict.raw.split("; ", 1)[-1]
        more = {"p": p, **({"input": cut} if cut else {})}
        verdicts.append(_marks_verdict(work.frozen, marks, failed, **more))
    return verdicts

