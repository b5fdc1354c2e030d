"""Exact match (EM): a candidate is correct when, after SQuAD normalisation, it equals any gold answer.

The SQuAD v1.1 evaluation script's metric, as used for NQ-open by Kamalloo et al. (ACL 2023).
Score 1.0 or 0.0; label "yes" or "no".
"""

from annotate.textnorm import squad_normalize
from judges.families.base import ItemInput, JudgeFamily, Verdict


class ExactMatch(JudgeFamily):
    name = "em"
    scores_gold = True
    description = "Exact match after SQuAD normalisation against any gold answer."
    options = {}

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        return [self._judge(item) for item in items]

    def _judge(self, item: ItemInput) -> Verdict:
        golds = [g for g in item.gold_answers if isinstance(g, str)]
        if not golds:
            return Verdict.failure("no gold answers for this topic")
        prediction = squad_normalize(item.text)
        match = next((gold for gold in golds if squad_normalize(gold) == prediction), None)
        if match is None:
            return Verdict(score=0.0, label="no", raw=f"no exact match with {len(golds)} gold answer(s)")
        return Verdict(score=1.0, label="yes", raw=f"exact match with gold answer {match!r}")
