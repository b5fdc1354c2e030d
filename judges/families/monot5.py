"""monoT5 (Nogueira et al., 2020): a T5 reranker that reads "Query: q Document: d Relevant:".

The score is P("true") at the first decoding step, the softmax over the logits of the "true" and
"false" tokens only, as in the monoT5 reference code (pygaggle / rerankers). Any T5 checkpoint loads by
name (local cache) or local folder, e.g. castorini/monot5-base-msmarco-10k. Input longer than
`max_length` tokens is truncated (the document's tail is lost; monoT5 was trained on 512).

Each input is tokenized once; passes take the inputs longest first, at most `batch_size` of them and at most
`max_batch_tokens` padded tokens each (judges.families.batching), so short pairs share a pass and pad little.
"""

from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, Option, Verdict
from judges.families.batching import ITEMS_PER_TASK, by_length
from judges.families.hf import check_model_config, model_cached, model_options, torch_device
from judges.templates import template_fill

TEMPLATE = "Query: {query} Document: {document} Relevant:"


def _load(model: str, device: str):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
    network = AutoModelForSeq2SeqLM.from_pretrained(model, local_files_only=True).to(device).eval()
    return tokenizer, network


def token_id(tokenizer, token: str, *, family: str, option: str) -> int:
    """The id of TOKEN, which must be one token of the vocabulary ("true" is "▁true" in T5's)."""
    ids = tokenizer(token, add_special_tokens=False).input_ids
    if len(ids) != 1 or ids[0] == tokenizer.unk_token_id:
        raise JudgeConfigError(f"{family}: {option} {token!r} is not a single token of the model's vocabulary ({ids})")
    return ids[0]


class MonoT5(JudgeFamily):
    name = "monot5"
    items_per_task = ITEMS_PER_TASK
    description = 'monoT5 reranker: P("true") for "Query: q Document: d Relevant:".'
    options = {
        **model_options(default_model="castorini/monot5-base-msmarco-10k", batch_size=16, max_length=512),
        "true_token": Option((str,), "true", "The token whose probability is the score."),
        "false_token": Option((str,), "false", "The token it competes with."),
    }

    def check_config(self, config: dict) -> None:
        check_model_config(self.name, config)
        if not config["true_token"] or config["true_token"] == config["false_token"]:
            raise JudgeConfigError(f"{self.name}: true_token and false_token must be two different tokens")

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        device = torch_device(self.name, config["device"])
        tokenizer, network = model_cached(self.name, config["model"], device, _load)
        scores = self.scores(tokenizer, network, [(item.topic_text, item.text) for item in items], config)
        return [Verdict(score=score, label="", raw=f"P(true) {score:.4f}") for score in scores]

    def scores(self, tokenizer, network, pairs: list[tuple[str, str]], config: dict) -> list[float]:
        import torch

        true_id = token_id(tokenizer, config["true_token"], family=self.name, option="true_token")
        false_id = token_id(tokenizer, config["false_token"], family=self.name, option="false_token")
        start = network.config.decoder_start_token_id
        if not pairs:
            return []
        texts = [template_fill(TEMPLATE, query=q, document=d) for q, d in pairs]
        encoding = tokenizer(texts, truncation=True, max_length=config["max_length"])

        def forward(inputs: dict) -> list[float]:
            decoder_input_ids = torch.full((len(inputs["input_ids"]), 1), start, dtype=torch.long,
                                           device=network.device)
            with torch.inference_mode():
                logits = network(**inputs, decoder_input_ids=decoder_input_ids).logits[:, 0, :]
            pair_logits = logits[:, [false_id, true_id]].float()
            return torch.softmax(pair_logits, dim=-1)[:, 1].cpu().tolist()

        return by_length(tokenizer, encoding, max_items=config["batch_size"], max_tokens=config["max_batch_tokens"],
                         forward=forward, device=network.device)
