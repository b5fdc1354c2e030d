"""Benchmark of the clipscore judge on CPU (or a GPU): image-text pairs per second, batched and one at a time.

A CLIP at openai/clip-vit-base-patch32's dimensions (ViT-B/32 at 224 px, 12 layers of width 768; a text
encoder of 12 layers of width 512 reading 77 tokens; projections to 512; 151M parameters) is built here
with random weights: no checkpoint can be downloaded, and the speed is the same. Images are drawn with
Pillow as 640 x 480 JPEGs in a temporary media folder; topics have AToMiC-like contexts, longer than 77
tokens, 16 images per topic. Then the family's overhead: the time through judge_batch (image decoding and
preprocessing, tokenisation, cosines) against the bare forward pass (get_image_features and
get_text_features) on the same batches, already preprocessed. No database; about two minutes on 2 idle cores.

    .venv/bin/python bench/bench_clipscore.py [--pairs N] [--device cuda]
"""

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import django  # noqa: E402

django.setup()

import torch  # noqa: E402
from django.test import override_settings  # noqa: E402
from PIL import Image, ImageDraw  # noqa: E402

from judges.families import ItemInput, family_get  # noqa: E402
from judges.families.clipscore import FIELDS, SEPARATOR, image_pixels  # noqa: E402
from judges.families.hf import model_cached  # noqa: E402

WORDS = ("tower river bridge castle church city mountain lake forest river station painting portrait museum "
         "war battle king queen army ship harbour railway school university garden park building street map "
         "flag bird horse dog cat flower tree snow winter summer history century built designed named famous "
         "the of and in a was is by to").split()
BATCH = 32
PER_TOPIC = 16


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n_words)) + "."


def _media(folder: Path, n_images: int) -> list[str]:
    """N_IMAGES 640 x 480 JPEGs of random shapes under FOLDER/img; their paths relative to FOLDER."""
    rng = random.Random(0)
    (folder / "img").mkdir()
    names = []
    for n in range(n_images):
        image = Image.new("RGB", (640, 480), tuple(rng.randrange(256) for _ in range(3)))
        draw = ImageDraw.Draw(image)
        for _ in range(12):
            x, y = rng.randrange(600), rng.randrange(440)
            box = (x, y, x + rng.randrange(20, 300), y + rng.randrange(20, 300))
            colour = tuple(rng.randrange(256) for _ in range(3))
            (draw.ellipse if rng.random() < 0.5 else draw.rectangle)(box, fill=colour)
        names.append(f"img/{n}.jpg")
        image.save(folder / names[-1], quality=90)
    return names


def _items(images: list[str]) -> list[ItemInput]:
    rng = random.Random(1)
    items, topic = [], {}
    for n, image in enumerate(images):
        if n % PER_TOPIC == 0:
            topic = {"page_title": _text(rng, 3), "section_title": _text(rng, 2), "section_context": _text(rng, 60),
                     "page_context": _text(rng, 80)}
        items.append(ItemInput(item_id=n, topic_text=topic["page_title"], gold_answers=[], text="",
                               data={"image": image}, topic_data=topic))
    return items


def _clip_b32(folder: Path) -> str:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import CLIPConfig, CLIPImageProcessor, CLIPModel, PreTrainedTokenizerFast

    specials = ["<pad>", "<unk>", "<|startoftext|>", "<|endoftext|>"]
    vocab = {word: n for n, word in enumerate(specials + [".", ";", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.normalizer, tok.pre_tokenizer = normalizers.Lowercase(), pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="<|startoftext|> $A <|endoftext|>",
                                                       special_tokens=[("<|startoftext|>", 2), ("<|endoftext|>", 3)])
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", pad_token="<pad>", bos_token="<|startoftext|>",
                            eos_token="<|endoftext|>", model_max_length=77).save_pretrained(folder)
    torch.manual_seed(0)
    # openai/clip-vit-base-patch32's dimensions; its processor (shortest edge 224, centre crop 224).
    config = CLIPConfig(
        text_config={"vocab_size": 49408, "hidden_size": 512, "intermediate_size": 2048, "num_hidden_layers": 12,
                     "num_attention_heads": 8, "max_position_embeddings": 77, "pad_token_id": 0, "bos_token_id": 2,
                     "eos_token_id": 3},
        vision_config={"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12,
                       "num_attention_heads": 12, "image_size": 224, "patch_size": 32},
        projection_dim=512,
    )
    CLIPModel(config).save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 224}, crop_size={"height": 224, "width": 224}).save_pretrained(folder)
    return str(folder)


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()  # GPU work is asynchronous: time what finished, not what was queued


def _seconds(fn) -> float:
    _sync()
    started = time.perf_counter()
    fn()
    _sync()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=64, help="image-text pairs per batched measurement")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    args = parser.parse_args()
    n, device = args.pairs, args.device
    where = (
        torch.cuda.get_device_name(device) if device.startswith("cuda") else f"CPU, {torch.get_num_threads()} threads"
    )
    print(f"== clipscore on {where}, torch {torch.__version__}")

    with tempfile.TemporaryDirectory() as tmp, override_settings(MEDIA_ROOT=tmp):
        model = _clip_b32(Path(tmp) / "clip")
        items = _items(_media(Path(tmp), n))
        clipscore = family_get("clipscore")
        config = clipscore.validate_config({"model": model, "batch_size": BATCH, "device": device})
        clipscore.judge_batch(items[:2], config)  # load the model, warm up

        # The bare model on the same batches: images already decoded and preprocessed, texts tokenised.
        tokenizer, processor, network = model_cached("clipscore", model, device, None)
        texts = list(dict.fromkeys(SEPARATOR.join(item.topic_data[field] for field in FIELDS) for item in items))
        text_batches = [tokenizer(texts[s:s + BATCH], padding=True, truncation=True, max_length=77, return_tensors="pt"
                                  ).to(device) for s in range(0, len(texts), BATCH)]
        pixels = [image_pixels(processor, item.data) for item in items]
        pixel_batches = [torch.cat(pixels[s:s + BATCH]).to(device) for s in range(0, n, BATCH)]

        def bare():
            with torch.inference_mode():
                for encoded in text_batches:
                    network.get_text_features(input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"])
                for batch in pixel_batches:
                    network.get_image_features(pixel_values=batch)

        # Interleaved, best of three each: a machine shared with other work slows both alike.
        family_s, bare_s = float("inf"), float("inf")
        for _ in range(3):
            family_s = min(family_s, _seconds(lambda: clipscore.judge_batch(items, config)))
            bare_s = min(bare_s, _seconds(bare))
        single = max(4, n // 8)
        one_s = _seconds(lambda: [clipscore.judge_batch([item], config) for item in items[:single]])
        preprocess_s = _seconds(lambda: [image_pixels(processor, item.data) for item in items])
        print(f"clipscore      batched {n / family_s:9.1f} pairs/s  one at a time {single / one_s:9.1f} pairs/s  "
              f"(batch_size {BATCH}; {n} / {single} pairs, {len(texts)} topics, texts cut to 77 tokens)")
        print(f"clipscore      bare forward {n / bare_s:9.1f} pairs/s (get_text_features + get_image_features, "
              f"batches of {BATCH}, inputs ready)")
        print(f"clipscore      overhead: judge_batch {family_s:.3f} s vs bare forward {bare_s:.3f} s on {n} pairs "
              f"-> {100 * (family_s - bare_s) / bare_s:+.1f} %; decoding + preprocessing the {n} 640x480 JPEGs "
              f"alone {preprocess_s:.3f} s ({n / preprocess_s:.0f} images/s)")


if __name__ == "__main__":
    main()
