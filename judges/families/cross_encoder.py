"""Cross-encoder ranker: a sequence-classification model reads (query, candidate) together.

Score = the logit when the model has one label (e.g. cross-encoder/ms-marco-MiniLM-L-6-v2), else the
softmax probability of the positive label: `positive_label` is its index or its name in the model's
config (id2label). Any checkpoint loads by name (local cache) or local folder.

Each pair is tokenized once; passes take the pairs longest first, at most `batch_size` of them and at most
`max_batch_tokens` padded tokens each (judges.families.batching), so short pairs share a pass and pad little.
"""

from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, Option, Verdict
from judges.families.batching import ITEMS_PER_TASK, by_length
from judges.families.hf import check_model_config, model_cached, model_options, torch_device


def _load(model: str, device: str):
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
    network = AutoModelForSequenceClassification.from_pretrained(model, local_files_only=True).to(device).eval()
    return tokenizer, network


class CrossEncoder(JudgeFamily):
    name = "cross-encoder"
    items_per_task = ITEMS_PER_TASK
    description = "Cross-encoder (sequence classification): the relevance logit, or P(positive label)."
    options = {
        **model_options(default_model="cross-encoder/ms-marco-MiniLM-L-6-v2", batch_size=32, max_length=512),
        "positive_label": Option((int, str), 1, "Models with 2+ labels: index or name of the relevant label."),
    }

    def check_config(self, config: dict) -> None:
        check_model_config(self.name, config)

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        device = torch_device(self.name, config["device"])
        tokenizer, network = model_cached(self.name, config["model"], device, _load)
        scores, what = self.scores(tokenizer, network, [(item.topic_text, item.text) for item in items], config)
        return [Verdict(score=score, label="", raw=f"{what} {score:.4f}") for score in scores]

    def positive_index(self, network, positive_label) -> int:
        labels = network.config.num_labels
        if isinstance(positive_label, str):
            by_name = {name: int(index) for index, name in network.config.id2label.items()}
            if positive_label not in by_name:
                raise JudgeConfigError(f"{self.name}: positive_label {positive_label!r} is not a label of the model "
                                       f"(labels: {', '.join(by_name)})")
            return by_name[positive_label]
        if not 0 <= positive_label < labels:
            raise JudgeConfigError(f"{self.name}: positive_label {positive_label} is out of range; "
                                   f"the model has {labels} labels")
        return positive_label

    def scores(self, tokenizer, network, pairs: list[tuple[str, str]], config: dict) -> tuple[list[float], str]:
        """The score of each pair and what it is ("logit" or "P(label)")."""
        import torch

        single = network.config.num_labels == 1
        index = 0 if single else self.positive_index(network, config["positive_label"])
        if not pairs:
            return [], ""
        encoding = tokenizer([q for q, _ in pairs], [d for _, d in pairs], truncation="longest_first",
                             max_length=config["max_length"])

        def forward(inputs: dict) -> list[float]:
            with torch.inference_mode():
                logits = network(**inputs).logits.float()
            values = logits[:, 0] if single else torch.softmax(logits, dim=-1)[:, index]
            return values.cpu().tolist()

        scores = by_length(tokenizer, encoding, max_items=config["batch_size"], max_tokens=config["max_batch_tokens"],
                           forward=forward, device=network.device)
        return scores, "logit" if single else f"P({network.config.id2label.get(index, index)})"
