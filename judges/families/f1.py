"""Token F1: the best token-overlap F1 between the candidate and any gold answer, SQuAD normalisation.

As in the SQuAD v1.1 evaluation script: tokens are compared as multisets, precision and recall over
the normalised tokens. The label is "yes" when the score reaches `threshold` (default 0.5).
"""

from collections import Counter

from annotate.textnorm import squad_tokens
from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, Option, Verdict


def token_f1(prediction: str, gold: str) -> float:
    predicted, expected = squad_tokens(prediction), squad_tokens(gold)
    if not predicted or not expected:
        # An answer empty after normalisation (e.g. "The."): a match only if both are empty, as in the
        # SQuAD 2.0 evaluation script (v1.1 scored it 0 and so disagreed with its own EM).
        return float(predicted == expected)
    common = sum((Counter(predicted) & Counter(expected)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


class TokenF1(JudgeFamily):
    name = "f1"
    scores_gold = True
    description = "Best token F1 against any gold answer (SQuAD normalisation); yes at or above the threshold."
    options = {"threshold": Option((int, float), 0.5, "F1 at or above which the label is yes (0 to 1).")}

    def check_config(self, config: dict) -> None:
        if not 0.0 <= config["threshold"] <= 1.0:
            raise JudgeConfigError(f"f1: threshold must be between 0 and 1, not {config['threshold']}")

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        return [self._judge(item, config["threshold"]) for item in items]

    def _judge(self, item: ItemInput, threshold: float) -> Verdict:
        golds = [g for g in item.gold_answers if isinstance(g, str)]
        if not golds:
            return Verdict.failure("no gold answers for this topic")
        score, best = max((token_f1(item.text, gold), gold) for gold in golds)
        label = "yes" if score >= threshold else "no"
        return Verdict(score=score, label=label, raw=f"best F1 {score:.4f} against gold answer {best!r}")
