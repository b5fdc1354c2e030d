"""AutoAIS: does the evidence entail the claim? An NLI model's probability of entailment.

What the premise and the hypothesis of an item are is its task type's to say (TaskTypeSpec.judge_prompt, an
EntailmentPrompt: ais's is the evidence passage and "the answer to the question is ...", tasktypes.ais.entailment).
The score is P(entailment):
- seq2seq NLI models (T5 NLI checkpoints such as google/t5_xxl_true_nli_mixture): the probability of
  force-decoding `positive_label` (default "1") after `seq2seq_prompt`, over the whole vocabulary;
- sequence-classification NLI models: the softmax probability of the entailment class, its index read
  from the model's id2label (the label whose name starts with "entail", or `positive_label` by name).
The label is "yes" (attributable) when the score reaches `threshold` (default 0.5).

Passages longer than the model's input: `long_passages` "truncate" (the passage's tail is cut) or "window"
(the passage in overlapping windows, the score is the best window's). Each verdict's raw text says which,
with the token counts, so the report can say how much was cut.

Each model input (a whole passage or one window, beside its hypothesis) is tokenized once; passes take them
longest first, at most `batch_size` and at most `max_batch_tokens` padded tokens each (judges.families.batching),
so a short passage never waits padded beside a long one; the scores return in the items' order.
"""

from judges.errors import JudgeConfigError
from judges.families.base import NOTE_TRUNCATED, NOTE_WINDOWED, ItemInput, JudgeFamily, JudgePrompt, Option, Verdict
from judges.families.batching import ITEMS_PER_TASK, by_length
from judges.families.hf import check_model_config, model_cached, model_options, torch_device
from judges.templates import PromptBound, PromptTooLarge, template_fill, template_fill_check

SEQ2SEQ_PROMPT = "premise: {premise} hypothesis: {hypothesis}"
SEQ2SEQ_FIELDS = ("premise", "hypothesis")
KINDS = ("auto", "seq2seq", "classification")

LONG_PASSAGES = ("truncate", "window")
# Model inputs given to the tokenizer in one call (judges.families.autoais.AutoAIS._scores).
TOKENIZED_AT_ONCE = 8


def _load(model: str, device: str):
    from transformers import AutoConfig, AutoModelForSeq2SeqLM, AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
    seq2seq = bool(getattr(AutoConfig.from_pretrained(model, local_files_only=True), "is_encoder_decoder", False))
    loader = AutoModelForSeq2SeqLM if seq2seq else AutoModelForSequenceClassification
    network = loader.from_pretrained(model, local_files_only=True).to(device).eval()
    return tokenizer, network, seq2seq


class EntailmentPrompt(JudgePrompt):
    """A task type's prompt for the autoais family: an item's premise (the evidence) and hypothesis (the claim)."""

    def unjudgeable(self, item: ItemInput) -> str:
        """Why ITEM cannot be put to the model (its verdict fails without asking), or ""."""
        return ""

    def hypothesis(self, item: ItemInput, config: dict) -> str:
        """ITEM's hypothesis (judges.templates.PromptTooLarge over the budget)."""
        raise NotImplementedError

    def premise(self, item: ItemInput, config: dict) -> str:
        """ITEM's premise, whole (the family cuts it or windows it to fit the model)."""
        raise NotImplementedError

    def premise_longest(self, item: ItemInput) -> str:
        """A text at least as long as any premise of ITEM, whatever the configuration: the seq2seq input's budget is
        checked with it before the premise is built."""
        raise NotImplementedError

    def hypothesis_bound(self, config: dict) -> PromptBound:
        """The worst case of the hypothesis."""
        raise NotImplementedError

    def premise_max_chars(self, config: dict) -> int:
        """The most characters a premise can have."""
        raise NotImplementedError

    def bounds(self, config: dict) -> list[PromptBound]:
        return [self.hypothesis_bound(config)]


class AutoAIS(JudgeFamily):
    name = "autoais"
    items_per_task = ITEMS_PER_TASK
    description = "AutoAIS: P(the passage entails the answer) from an NLI model; attributable at the threshold."
    cuts_long_inputs = True
    # The premise and the hypothesis are the task type's (EntailmentPrompt); the task layer passes it as `prompt=`.
    uses_prompt = True
    options = {
        **model_options(default_model="google/t5_xxl_true_nli_mixture", batch_size=8, max_length=512),
        "kind": Option((str,), "auto", "auto (from the checkpoint), seq2seq or classification."),
        "seq2seq_prompt": Option(
            (str,),
            SEQ2SEQ_PROMPT,
            "seq2seq models: the input, from {premise} and {hypothesis}.",
            placeholders=SEQ2SEQ_FIELDS,
        ),
        "positive_label": Option(
            (str, int),
            "",
            'The entailment label: seq2seq, the text decoded (default "1"); '
            "classification, its name or index (default: the label named entail*).",
        ),
        "threshold": Option((int, float), 0.5, "P(entailment) at or above which the answer is attributable."),
        "long_passages": Option((str,), "truncate", "truncate (cut the passage's tail) or window (best window)."),
        "window_stride": Option((int,), 128, "window: tokens between the starts of two windows."),
    }

    def check_config(self, config: dict) -> None:
        check_model_config(self.name, config)
        if config["kind"] not in KINDS:
            raise JudgeConfigError(f"{self.name}: kind must be auto, seq2seq or classification, not {config['kind']!r}")
        if config["long_passages"] not in LONG_PASSAGES:
            raise JudgeConfigError(f"{self.name}: long_passages must be truncate or window, "
                                   f"not {config['long_passages']!r}")
        if not 0.0 <= config["threshold"] <= 1.0:
            raise JudgeConfigError(f"{self.name}: threshold must be between 0 and 1, not {config['threshold']}")
        if config["window_stride"] < 1:
            raise JudgeConfigError(
                f"{self.name}: window_stride must be at least 1 token, not {config['window_stride']}"
            )

    def prompt_bounds(self, config: dict, options: dict[str, Option],
                      prompt: EntailmentPrompt | None = None) -> list[PromptBound]:
        """The seq2seq input (seq2seq_prompt: {premise} and {hypothesis} at their worst cases, which the task type's
        PROMPT says; its hypothesis is bounded before this, EntailmentPrompt.bounds)."""
        if prompt is None:
            return []
        model_input = PromptBound(self.name, "the seq2seq input (seq2seq_prompt)").template(
            "seq2seq_prompt", config["seq2seq_prompt"], fields={"premise": prompt.premise_max_chars(config),
                                                                "hypothesis": prompt.hypothesis_bound(config).chars})
        return [model_input]

    def judge_batch(self, items: list[ItemInput], config: dict,
                    prompt: EntailmentPrompt | None = None) -> list[Verdict]:
        """One verdict per item; PROMPT, the task type's, says each item's premise and hypothesis."""
        if prompt is None:
            raise JudgeConfigError(f"{self.name}: the campaign's task type gives this family no prompt")
        device = torch_device(self.name, config["device"])
        tokenizer, network, seq2seq = model_cached(self.name, config["model"], device, _load)
        if config["kind"] != "auto" and (config["kind"] == "seq2seq") != seq2seq:
            found = "a seq2seq" if seq2seq else "a sequence-classification"
            raise JudgeConfigError(f"{self.name}: kind is {config['kind']} but {config['model']!r} is {found} model")
        verdicts: dict[int, Verdict] = {}
        pairs: list[tuple[int, str, str]] = []  # (item index, premise piece, hypothesis)
        notes: dict[int, str] = {}
        for index, item in enumerate(items):
            unjudgeable = prompt.unjudgeable(item)
            if unjudgeable:
                verdicts[index] = Verdict.failure(unjudgeable)
                continue
            try:
                hypothesis = prompt.hypothesis(item, config)
                if seq2seq:  # each premise piece is at most the premise: the input is at most this
                    template_fill_check(config["seq2seq_prompt"], premise=prompt.premise_longest(item),
                                        hypothesis=hypothesis)
            except PromptTooLarge as exc:
                verdicts[index] = Verdict.failure(str(exc))
                continue
            passage = prompt.premise(item, config)
            pieces, notes[index] = self._premises(tokenizer, passage, hypothesis, config, seq2seq)
            pairs += [(index, piece, hypothesis) for piece in pieces]
        scores = self._scores(tokenizer, network, seq2seq, [(p, h) for _, p, h in pairs], config)
        best: dict[int, float] = {}
        for (index, _, _), score in zip(pairs, scores):
            best[index] = max(score, best.get(index, 0.0))
        for index, score in best.items():
            label = "yes" if score >= config["threshold"] else "no"
            verdicts[index] = Verdict(score=score, label=label, raw=f"P(entailment) {score:.4f}; {notes[index]}")
        return [verdicts[index] for index in range(len(items))]

    def _premises(self, tokenizer, passage: str, hypothesis: str, config: dict, seq2seq: bool) -> tuple[list[str], str]:
        """The passage as one premise or as windows that fit beside the hypothesis, and a note saying which."""
        passage_ids = tokenizer(passage, add_special_tokens=False).input_ids
        if seq2seq:
            frame = template_fill(config["seq2seq_prompt"], premise="", hypothesis=hypothesis)
            used = len(tokenizer(frame).input_ids)
        else:
            used = len(tokenizer("", hypothesis).input_ids)
        room = max(1, config["max_length"] - used)
        if len(passage_ids) <= room:
            return [passage], f"passage {len(passage_ids)} tokens, whole"
        if config["long_passages"] == "truncate":
            return ([tokenizer.decode(passage_ids[:room], skip_special_tokens=True)],
                    f"passage {len(passage_ids)} {NOTE_TRUNCATED} {room}")
        stride = min(config["window_stride"], room)
        starts = list(range(0, max(1, len(passage_ids) - room) + stride, stride))
        starts = [start for start in starts if start < len(passage_ids)]
        windows = [tokenizer.decode(passage_ids[start:start + room], skip_special_tokens=True) for start in starts]
        return windows, f"passage {len(passage_ids)} tokens, {len(windows)} {NOTE_WINDOWED} {room}, best window"

    def _scores(self, tokenizer, network, seq2seq: bool, pairs: list[tuple[str, str]], config: dict) -> list[float]:
        import torch

        if seq2seq:
            target = str(config["positive_label"]) if config["positive_label"] != "" else "1"
            target_ids = tokenizer(target, add_special_tokens=False).input_ids
            if not target_ids:
                raise JudgeConfigError(f"{self.name}: positive_label {target!r} is no token of the model's vocabulary")
        else:
            index = self._entailment_index(network, config["positive_label"])
        if not pairs:
            return []
        # Tokenized a few pairs at a time: the tokenizer reads each text whole before it truncates, and 64 inputs of
        # 400,000 characters read at once took a worker 380 MB more; the truncated ids it keeps are small.
        encoding: dict[str, list] = {}
        for start in range(0, len(pairs), TOKENIZED_AT_ONCE):
            group = pairs[start:start + TOKENIZED_AT_ONCE]
            if seq2seq:
                texts = [template_fill(config["seq2seq_prompt"], premise=p, hypothesis=h) for p, h in group]
                part = tokenizer(texts, truncation=True, max_length=config["max_length"])
            else:
                part = tokenizer([p for p, _ in group], [h for _, h in group], truncation="only_first",
                                 max_length=config["max_length"])
            for key, rows in part.items():
                encoding.setdefault(key, []).extend(rows)

        def forward(inputs: dict) -> list[float]:
            with torch.inference_mode():
                if seq2seq:
                    labels = torch.tensor([target_ids] * len(inputs["input_ids"]), device=network.device)
                    logits = network(**inputs, labels=labels).logits.float()
                    log_probs = torch.log_softmax(logits, dim=-1).gather(2, labels.unsqueeze(-1)).squeeze(-1)
                    return log_probs.sum(dim=1).exp().cpu().tolist()
                logits = network(**inputs).logits.float()
                return torch.softmax(logits, dim=-1)[:, index].cpu().tolist()

        return by_length(tokenizer, encoding, max_items=config["batch_size"], max_tokens=config["max_batch_tokens"],
                         forward=forward, device=network.device)

    def _entailment_index(self, network, positive_label) -> int:
        id2label = {int(i): str(name) for i, name in network.config.id2label.items()}
        if isinstance(positive_label, int):
            if positive_label not in id2label:
                raise JudgeConfigError(f"{self.name}: positive_label {positive_label} is out of range; the model has "
                                       f"{len(id2label)} labels")
            return positive_label
        if positive_label:
            matches = [i for i, name in id2label.items() if name == positive_label]
        else:
            matches = [i for i, name in id2label.items() if name.lower().startswith("entail")]
        if len(matches) != 1:
            wanted = repr(positive_label) if positive_label else "a label named entail*"
            raise JudgeConfigError(f"{self.name}: the model's labels ({', '.join(id2label.values())}) hold no single "
                                   f"{wanted}; set positive_label to the entailment label's name or index")
        return matches[0]
