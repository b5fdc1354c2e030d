"""When a qa_correctness system output counts as correct: the campaign option `counting_rule` (README "Counting rules").

- `concord` (the default): each output is read through its own item. The rater's label of the answer when it has one;
  a judge asked that gave no readable verdict: not correct; else an exact match with a gold answer (SQuAD
  normalisation); else not correct (output_correct).
- `qa-eval`: the counting of the original evaluation code of the NQ-open 301 study (castorini/qa-eval, Kamalloo et al.
  2023), which a campaign imported with the nq301 format uses unless told otherwise. Per question and rater, the gold
  set is the question's gold answers plus the answer strings the rater accepted, minus each string it rejected (that
  exact string, or else its lower-cased form); an output is correct when its prediction, SQuAD-normalised, equals a
  member of that set, and wrong when the set is empty. A rejected answer only removes its own string: another
  spelling of it that normalises to a gold answer still counts. The study printed its figures to two decimals and then
  rounded them to one (study_percent).

The rule decides every output from the labels a rater gave; an output whose own item is still open (annotations
coming) is left out of the humans' figures under both rules.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from annotate.textnorm import squad_normalize
from judges.families import FAMILIES, ItemInput
from reports.verdicts import POSITIVE, Output
from tasktypes.qa_correctness.rules import COUNTING_RULES, RULE_CONCORD, RULE_QA_EVAL

__all__ = ["COUNTING_RULES", "RULE_CONCORD", "RULE_QA_EVAL", "Output", "QaEvalRater", "counting_for", "output_correct",
           "study_percent"]

def output_correct(*, label: str | None, gold_match: bool, failed: bool = False) -> bool:
    """Whether one system output counts as correct under a rater (the humans, or one judge), by the concord rule.

    The single rule for every rater, so the human and judge accuracies of a system are computed over the same outputs:
    1. the rater's label for the output's item, when it has one ("yes" = correct);
    2. a judge that was asked but gave no readable verdict (a failed judgment) has not accepted the answer: NOT
       correct;
    3. a rater that was never asked about the output: an exact match after SQuAD normalisation with a gold answer of
       the question counts as correct (in the NQ301 study only answers that did not match a gold answer went to
       humans and to the LLM judges, so an exact match is correct by the study's own protocol);
    4. else (no verdict at all) the output counts as NOT correct.
    An item whose human annotations tie has no human label and falls through to rule 3.
    """
    if label is not None:
        return label == POSITIVE
    if failed:
        return False
    return gold_match


class QaEvalRater:
    """One rater's verdicts read by the qa-eval rule: per topic, the gold set its accepted and rejected strings make.

    GOLD[topic] is the question's gold answers; TEXTS[item] = (topic, answer string) of every item a label may name;
    LABELS[item] the rater's label ("yes" accepts, anything else rejects).
    """

    def __init__(self, *, gold: dict, texts: dict, labels: dict):
        self.gold = gold
        self.accepted: dict = {}
        self.rejected: dict = {}
        for item, label in labels.items():
            if item in texts:
                topic, text = texts[item]
                (self.accepted if label == POSITIVE else self.rejected).setdefault(topic, []).append(text)
        self._keys: dict = {}

    def gold_set(self, topic, gold: list[str] | None = None) -> set[str]:
        """TOPIC's gold set for this rater, from GOLD (an output's own gold answers) or else the topic's."""
        answers = set(self.gold.get(topic) or () if gold is None else gold)
        answers.update(self.accepted.get(topic, ()))
        for text in self.rejected.get(topic, ()):
            if text in answers:
                answers.remove(text)
            elif text.lower() in answers:
                answers.remove(text.lower())
        return answers

    def correct(self, output: Output) -> bool:
        key = (output.topic, tuple(output.gold) if output.gold is not None else None)
        keys = self._keys.get(key)
        if keys is None:
            keys = self._keys[key] = {squad_normalize(answer) for answer in self.gold_set(output.topic, output.gold)}
        return squad_normalize(output.prediction) in keys


def study_percent(share: float | None) -> float | None:
    """SHARE as the study printed it: a percentage to two decimals, then rounded (half up) to one."""
    if share is None:
        return None
    return float(Decimal(f"{100 * share:.2f}").quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


class ConcordCounting:
    """Per-output verdicts under the concord rule: each output through its own item's labels."""

    rule = RULE_CONCORD

    def __init__(self, *, humans, outputs):
        self.humans = humans
        self.gold_match = outputs.gold_match

    def human(self, output: Output) -> bool | None:
        """Whether the output counts as correct under the humans; None while its item's annotations are open."""
        if output.item in self.humans.open:
            return None
        return output_correct(label=self.humans.item_label.get(output.item),
                              gold_match=self.gold_match.get(output.item, False))

    def human_decided(self, output: Output) -> bool | None:
        """As `human`, but None for an output nobody judged that no gold match decides: the humans' side of a system
        scored over every output each side decided (a system no human rated has none)."""
        item = output.item
        if item not in self.humans.item_label and item not in self.humans.ties and not self.gold_match.get(item):
            return None
        return self.human(output)

    def judge(self, judge, output: Output) -> bool | None:
        """Whether the output counts as correct under JUDGE; None when the judge decided nothing about it (never
        asked, and no gold match decides it)."""
        item = output.item
        gold = self.gold_match.get(item, False)
        if item not in judge.labels and item not in judge.failed and not gold:
            return None
        return output_correct(label=judge.labels.get(item), gold_match=gold, failed=item in judge.failed)

    def judge_score(self, judge, output: Output) -> float | None:
        """The judge's score of the output's answer (its probability, its token F1); None when it gave none."""
        return judge.scores.get(output.item)


class QaEvalCounting:
    """Per-output verdicts under the qa-eval rule: each rater's gold sets (QaEvalRater) decide every output by its
    prediction string. A judge's failed verdicts count by their fallback label where the file gave one. A judge whose
    family is a function of the gold answers (em, f1: JudgeFamily.scores_gold) is applied to each output's prediction
    against the output's own gold answers, as the study computed its EM and F1 columns from each system's file."""

    rule = RULE_QA_EVAL

    def __init__(self, *, humans, outputs):
        self.humans = humans
        self.gold = outputs.gold_answers
        self.texts = outputs.item_texts
        self.human_rater = QaEvalRater(gold=self.gold, texts=self.texts, labels=humans.item_label)
        self.judge_raters: dict[str, QaEvalRater] = {}
        self.gold_verdicts: dict[tuple, object] = {}
        self.configs: dict[str, object] = {}  # judge name -> its family's checked config, checked once

    def human(self, output: Output) -> bool | None:
        if output.item in self.humans.open:
            return None
        return self.human_rater.correct(output)

    human_decided = human  # the rule decides every output

    def judge(self, judge, output: Output) -> bool | None:
        verdict = self._gold_verdict(judge, output)
        if verdict is not None:
            return not verdict.failed and verdict.label == POSITIVE
        rater = self.judge_raters.get(judge.name)
        if rater is None:
            labels = {**judge.fallback, **judge.labels}
            rater = self.judge_raters[judge.name] = QaEvalRater(gold=self.gold, texts=self.texts, labels=labels)
        correct = rater.correct(output)
        item = output.item
        if not correct and item not in judge.labels and item not in judge.failed and (
                item in self.humans.item_label or item in self.humans.ties):
            # The humans were asked about this answer and the judge never was (a judge run on a sample): nothing
            # decides it for the judge. An answer neither side was asked about counts as wrong for both, as the
            # study counted it.
            return None
        return correct

    def judge_score(self, judge, output: Output) -> float | None:
        verdict = self._gold_verdict(judge, output)
        if verdict is not None:
            return None if verdict.failed else verdict.score
        return judge.scores.get(output.item)

    def _gold_verdict(self, judge, output: Output):
        """The judge's family's verdict on the output against its own gold answers; None for other families."""
        family = FAMILIES.get(judge.family)
        if family is None or not family.scores_gold:
            return None
        gold = list(output.gold if output.gold is not None else self.gold.get(output.topic) or ())
        key = (judge.name, output.prediction, tuple(gold))
        if key not in self.gold_verdicts:
            item = ItemInput(item_id=output.item, topic_text="", gold_answers=gold, text=output.prediction)
            if judge.name not in self.configs:
                self.configs[judge.name] = family.validate_config(judge.config)
            self.gold_verdicts[key] = family.judge_batch([item], self.configs[judge.name])[0]
        return self.gold_verdicts[key]


def counting_for(rule: str, *, humans, outputs) -> ConcordCounting | QaEvalCounting:
    return (QaEvalCounting if rule == RULE_QA_EVAL else ConcordCounting)(humans=humans, outputs=outputs)
