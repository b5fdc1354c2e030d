"""CLIPScore (Hessel et al., EMNLP 2021): how well an image fits its topic's text, from a CLIP model's embeddings.

image_relevance items are images (`ItemInput.data["image"]`, opened with annotate.images.image_file); the
topic is a text section. The text scored against the image is the topic's `fields` joined with
`separator`. The default order, page_title; section_title; section_context; page_context, puts the short
titles first and the section (where the image sits) before the page, because CLIP reads only its first
tokens (77 for OpenAI's checkpoints, read from the model): what is cut is the tail, the page's context,
the most general part. A topic with none of the fields filled is scored on its title (`ItemInput.topic_text`).

The score is given by `formula`, on cos = the cosine of the normalised image and text embeddings:
- "clipscore": w * max(cos, 0), w = 2.5 as in the paper (it stretches CLIP's narrow cosine range);
- "cosine": cos itself;
- "logit": the model's logit_scale.exp() * cos, the logit CLIP's contrastive loss was trained on.
The label is empty: scores become grades 0/1/2 per judge, in the report, from the judge's score
distribution (docs/design.md §1.2). Each verdict's raw text gives the cosine and how much text was cut,
"cos 0.2831; text 142 tokens, truncated to 77" or "cos 0.2831; text 42 tokens, whole", so the report
can count truncated texts. An image that is missing or unreadable fails its own verdict, not the batch.

Texts are tokenized once (whole, for the count; then cut to the limit) and embedded longest first, at most
`batch_size` texts and at most `max_batch_tokens` padded tokens per pass (judges.families.batching); images are
all one size, so they go `batch_size` at a time.
"""

import math

from annotate.images import ImageMissingError, image_file
from judges.errors import JudgeConfigError
from judges.families.base import NOTE_TRUNCATED, ItemInput, JudgeFamily, Option, Verdict
from judges.families.batching import DEFAULT_MAX_TOKENS, ITEMS_PER_TASK, by_length
from judges.families.hf import check_model_config, model_cached, model_options, torch_device

FIELDS = ["page_title", "section_title", "section_context", "page_context"]
SEPARATOR = "; "
FORMULAS = ("clipscore", "cosine", "logit")
# Words of the verdict's note that a report counts (token counts include the special tokens).
NOTE_WHOLE = "tokens, whole"


def _load(model: str, device: str):
    from transformers import AutoImageProcessor, AutoModel, AutoTokenizer

    network = AutoModel.from_pretrained(model, local_files_only=True)
    if not all(hasattr(network, name) for name in ("get_image_features", "get_text_features", "logit_scale")):
        raise JudgeConfigError(f"{CLIPScore.name}: {model!r} is a {type(network).__name__}, not a CLIP model "
                               "(it has no image and text embeddings to compare)")
    tokenizer = AutoTokenizer.from_pretrained(model, local_files_only=True)
    processor = AutoImageProcessor.from_pretrained(model, local_files_only=True)
    return tokenizer, processor, network.to(device).eval()


def token_limit(tokenizer, network) -> int:
    """The most tokens CLIP's text encoder reads, special tokens included: its position embeddings (77 for
    OpenAI's CLIP), or the tokenizer's declared limit when that is smaller."""
    positions = network.config.text_config.max_position_embeddings
    declared = getattr(tokenizer, "model_max_length", None)
    return min(positions, declared) if isinstance(declared, int) and declared > 0 else positions


def context_text(item: ItemInput, fields: list[str], separator: str) -> str:
    """The topic's FIELDS that hold text, joined with SEPARATOR; the topic's title when none does."""
    data = item.topic_data if isinstance(item.topic_data, dict) else {}
    parts = [data.get(name) for name in fields]
    filled = [part.strip() for part in parts if isinstance(part, str) and part.strip()]
    return separator.join(filled) or item.topic_text.strip()


class ImageUnreadable(Exception):
    """An item's image cannot be scored; the message says why."""


def _features(output):
    """Embeddings from get_*_features: a tensor (transformers 4) or an output whose pooler_output it is (5)."""
    import torch

    return output if isinstance(output, torch.Tensor) else output.pooler_output


class CLIPScore(JudgeFamily):
    name = "clipscore"
    items_per_task = ITEMS_PER_TASK
    description = "CLIPScore: a CLIP model's image-text similarity of each image and its topic's context text."
    cuts_long_inputs = True
    options = {
        **model_options(default_model="openai/clip-vit-base-patch32", batch_size=32, max_length=None),
        "fields": Option((list,), FIELDS, "Topic fields joined into the text, in order; the tail is cut at the "
                                          "model's token limit."),
        "separator": Option((str,), SEPARATOR, "Put between two fields."),
        "formula": Option((str,), "clipscore", "clipscore (w * max(cos, 0)), cosine, or logit (logit_scale * cos)."),
        "w": Option((int, float), 2.5, "clipscore: the weight w (Hessel et al.: 2.5)."),
    }

    def check_config(self, config: dict) -> None:
        check_model_config(self.name, config)
        fields = config["fields"]
        if not fields or not all(isinstance(name, str) and name.strip() for name in fields):
            raise JudgeConfigError(f"{self.name}: fields must be a non-empty list of topic field names, "
                                   f"e.g. {FIELDS}, not {fields!r}")
        if len(set(fields)) != len(fields):
            raise JudgeConfigError(f"{self.name}: fields names a field twice: {fields!r}")
        if not config["separator"]:
            raise JudgeConfigError(f"{self.name}: separator must not be empty (the fields would run together)")
        if config["formula"] not in FORMULAS:
            raise JudgeConfigError(f"{self.name}: formula must be clipscore, cosine or logit, "
                                   f"not {config['formula']!r}")
        if not (math.isfinite(config["w"]) and config["w"] > 0):
            raise JudgeConfigError(f"{self.name}: w must be a positive number, not {config['w']}")

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        device = torch_device(self.name, config["device"])
        tokenizer, processor, network = model_cached(self.name, config["model"], device, _load)
        limit = token_limit(tokenizer, network)
        verdicts: dict[int, Verdict] = {}
        texts: dict[int, str] = {}
        for index, item in enumerate(items):
            text = context_text(item, config["fields"], config["separator"])
            if text:
                texts[index] = text
            else:
                verdicts[index] = Verdict.failure(f"the topic has no text in {', '.join(config['fields'])}, "
                                                  "nor a title")
        # Items of one topic share their text: each distinct text is embedded once.
        distinct = list(dict.fromkeys(texts.values()))
        text_vectors, lengths = self.text_vectors(tokenizer, network, distinct, limit=limit,
                                                  batch_size=config["batch_size"],
                                                  max_batch_tokens=config["max_batch_tokens"])
        position = {text: n for n, text in enumerate(distinct)}
        rows = {index: position[text] for index, text in texts.items()}
        cosines, unreadable = self.cosines(processor, network, {index: items[index].data for index in texts},
                                           text_vectors, rows, batch_size=config["batch_size"])
        scale = network.logit_scale.exp().item()
        for index, reason in unreadable.items():
            verdicts[index] = Verdict.failure(reason)
        for index, cos in cosines.items():
            length = lengths[rows[index]]
            cut = f"{NOTE_TRUNCATED} {limit}" if length > limit else NOTE_WHOLE
            verdicts[index] = Verdict(score=self.score(cos, config, scale), label="",
                                      raw=f"cos {cos:.4f}; text {length} {cut}")
        return [verdicts[index] for index in range(len(items))]

    @staticmethod
    def score(cos: float, config: dict, logit_scale: float) -> float:
        if config["formula"] == "clipscore":
            return config["w"] * max(cos, 0.0)
        if config["formula"] == "logit":
            return logit_scale * cos
        return cos

    @staticmethod
    def text_vectors(tokenizer, network, texts: list[str], *, limit: int, batch_size: int,
                     max_batch_tokens: int = DEFAULT_MAX_TOKENS):
        """The normalised embeddings of TEXTS, each cut to LIMIT tokens; each text's length in tokens before the cut."""
        import torch

        if not texts:
            return None, []
        # verbose=False: counting a long text's tokens is the point here, not a mistake to warn about.
        whole = tokenizer(texts, verbose=False, return_special_tokens_mask=True)
        lengths = [len(ids) for ids in whole["input_ids"]]
        encoding = {"input_ids": [cut_to(ids, mask, limit)
                                  for ids, mask in zip(whole["input_ids"], whole["special_tokens_mask"])]}

        def forward(inputs: dict) -> list:
            with torch.inference_mode():
                output = network.get_text_features(input_ids=inputs["input_ids"],
                                                   attention_mask=inputs["attention_mask"])
            return list(_features(output).float().cpu())

        rows = by_length(tokenizer, encoding, max_items=batch_size, max_tokens=max_batch_tokens, forward=forward,
                         device=network.device)
        return torch.nn.functional.normalize(torch.stack(rows).to(network.device), dim=-1), lengths

    @staticmethod
    def cosines(processor, network, images: dict[int, dict], text_vectors, rows: dict[int, int], *,
                batch_size: int) -> tuple[dict[int, float], dict[int, str]]:
        """({index: cosine of its image and its text's row of TEXT_VECTORS}, {index: why its image cannot be read}).

        IMAGES maps an item's index to its data. Images are decoded and preprocessed one by one (a bad file
        fails alone; at most BATCH_SIZE preprocessed images are held), then embedded BATCH_SIZE at a time.
        """
        import torch

        cosines: dict[int, float] = {}
        unreadable: dict[int, str] = {}
        pending: list[tuple[int, object]] = []

        def flush() -> None:
            pixels = torch.cat([tensor for _, tensor in pending]).to(network.device, dtype=network.dtype)
            with torch.inference_mode():
                output = network.get_image_features(pixel_values=pixels)
            vectors = torch.nn.functional.normalize(_features(output).float(), dim=-1)
            matched = text_vectors[[rows[index] for index, _ in pending]]
            cosines.update(zip((index for index, _ in pending), (vectors * matched).sum(dim=-1).cpu().tolist()))
            pending.clear()

        for index, data in images.items():
            try:
                pending.append((index, image_pixels(processor, data)))
            except ImageUnreadable as exc:
                unreadable[index] = str(exc)
                continue
            if len(pending) == batch_size:
                flush()
        if pending:
            flush()
        return cosines, unreadable


def cut_to(ids: list[int], special: list[int], limit: int) -> list[int]:
    """IDS (one text's tokens, special tokens included, SPECIAL marking them) cut to LIMIT tokens as the
    tokenizer's own truncation cuts them: the text's tail goes, its leading and closing special tokens stay."""
    if len(ids) <= limit:
        return list(ids)
    closing = 0
    while closing < len(special) and special[len(special) - 1 - closing]:
        closing += 1
    if closing >= limit:
        return list(ids[:limit])
    return list(ids[:limit - closing]) + list(ids[len(ids) - closing:])


def image_pixels(processor, data: dict):
    """The item's image as the model's pixel_values (1, 3, H, W), or ImageUnreadable."""
    from PIL import Image

    try:
        path = image_file(data)
    except ImageMissingError as exc:
        raise ImageUnreadable(str(exc)) from None
    try:
        with Image.open(path) as image:
            rgb = image.convert("RGB")  # palette, grey, alpha and CMYK images alike; decodes the whole file
        return processor(images=[rgb], return_tensors="pt")["pixel_values"]
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ImageUnreadable(f"cannot read image {data.get('image')!r}: {type(exc).__name__}: {exc}") from None
