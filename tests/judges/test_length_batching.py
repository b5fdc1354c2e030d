"""Length batching (judges.families.batching): items longest first, cut by a row count and a token budget, padded per
pass, results back in arrival order; the max_batch_tokens option of every transformer family; the migration that
gives older judges the option without changing who they are.

Each family's scores under length batching are checked against one item at a time where the family is tested with
its tiny model (test_judges_rankers, test_judges_autoais, test_judges_clipscore, test_llm_hf).
"""

import random

import pytest

from judges.errors import JudgeConfigError
from judges.families import family_get
from judges.families.batching import (
    DEFAULT_MAX_TOKENS,
    in_arrival_order,
    length_batches,
    metered,
    pad_batch,
    pass_timed,
)
from tests.tiny_models import word_tokenizer

LENGTH_BATCHED = ("dense", "monot5", "cross-encoder", "autoais", "clipscore", "llm")


def _padded(batch, lengths):
    return len(batch) * max(lengths[i] for i in batch)


def test_batches_respect_the_row_count_and_the_token_budget():
    rng = random.Random(5)
    lengths = [rng.choice((3, 8, 20, 60, 200, 512)) for _ in range(300)]
    batches = length_batches(lengths, max_items=16, max_tokens=2048)
    assert sorted(i for batch in batches for i in batch) == list(range(300))  # every row once
    assert all(len(batch) <= 16 and _padded(batch, lengths) <= 2048 for batch in batches)
    # Short rows fill a pass to the count, long ones only to the budget: 512-token rows go 4 at a time.
    assert max(len(b) for b in batches if max(lengths[i] for i in b) == 3) == 16
    assert max(len(b) for b in batches if max(lengths[i] for i in b) == 512) == 4
    # Cutting by count alone, in arrival order, pads far more.
    arrival = [list(range(first, min(first + 16, 300))) for first in range(0, 300, 16)]
    assert sum(_padded(b, lengths) for b in batches) < 0.6 * sum(_padded(b, lengths) for b in arrival)


def test_longest_first_and_a_row_over_the_budget_goes_alone():
    lengths = [5, 900, 40, 40, 5, 70]
    batches = length_batches(lengths, max_items=8, max_tokens=100)
    assert batches == [[1], [5], [2, 3], [0, 4]]  # 900 alone, over the budget; 70 alone, as 2 x 70 > 100
    flat = [lengths[i] for batch in batches for i in batch]
    assert flat == sorted(lengths, reverse=True)


def test_equal_lengths_keep_their_arrival_order_and_batches_are_stable():
    lengths = [7] * 10 + [3] * 5
    batches = length_batches(lengths, max_items=4, max_tokens=10_000)
    assert batches == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11], [12, 13, 14]]
    assert length_batches(lengths, max_items=4, max_tokens=10_000) == batches
    assert length_batches([0, 0], max_items=4, max_tokens=1) == [[0], [1]]  # an empty row still costs one token
    assert length_batches([], max_items=4, max_tokens=10) == []
    with pytest.raises(ValueError, match="at least 1"):
        length_batches([1], max_items=0, max_tokens=10)


def test_results_return_in_arrival_order():
    rng = random.Random(11)
    lengths = [rng.randrange(1, 300) for _ in range(97)]
    batches = length_batches(lengths, max_items=7, max_tokens=600)
    results = [[f"row {i} of length {lengths[i]}" for i in batch] for batch in batches]
    assert in_arrival_order(batches, results) == [f"row {i} of length {n}" for i, n in enumerate(lengths)]
    with pytest.raises(ValueError, match="a batch of 2 rows gave 1 results"):
        in_arrival_order([[0, 1]], [["only one"]])


def test_a_batch_is_padded_to_its_own_longest_row_on_the_tokenizers_side():
    tokenizer, vocab = word_tokenizer(["a", "b", "c"], pair_template="bert")
    encoding = tokenizer(["a", "a b c a b c", "b c"], ["c", "a", "b"])
    batch = pad_batch(tokenizer, encoding, [2, 0])
    pad = vocab["[PAD]"]
    assert batch["input_ids"].tolist() == [encoding["input_ids"][2], encoding["input_ids"][0] + [pad]]
    assert batch["attention_mask"].tolist() == [[1] * 6, [1] * 5 + [0]]
    tokenizer.padding_side = "left"
    left = pad_batch(tokenizer, {"input_ids": [[5, 6, 7], [8]]}, [0, 1])
    assert left["input_ids"].tolist() == [[5, 6, 7], [pad, pad, 8]]
    assert left["attention_mask"].tolist() == [[1, 1, 1], [0, 0, 1]]


def test_the_meter_counts_real_and_padded_tokens_of_each_pass():
    with metered() as meter:
        with pass_timed([10, 4, 2]):
            pass
        with pass_timed([100]):
            pass
    assert (meter.pairs, meter.tokens, meter.padded_tokens) == (4, 116, 130)
    with pass_timed([5]):  # no meter: nothing to count, nothing fails
        pass


@pytest.mark.parametrize("family", LENGTH_BATCHED)
def test_every_transformer_family_has_the_option_and_validates_it(family):
    judge = family_get(family)
    assert judge.validate_config({})["max_batch_tokens"] == DEFAULT_MAX_TOKENS == 16_384
    assert judge.validate_config({"max_batch_tokens": 1})["max_batch_tokens"] == 1
    with pytest.raises(JudgeConfigError, match="max_batch_tokens must be at least 1, not 0"):
        judge.validate_config({"max_batch_tokens": 0})
    with pytest.raises(JudgeConfigError, match="max_batch_tokens must be an integer"):
        judge.validate_config({"max_batch_tokens": "lots"})
    with pytest.raises(JudgeConfigError, match="max_batch_tokens must be an integer"):
        judge.validate_config({"max_batch_tokens": 512.5})


@pytest.mark.django_db
def test_an_older_judge_keeps_its_identity_once_it_has_the_option():
    import importlib

    from django.apps import apps

    from judges.identity import config_hash, judge_get_or_create
    from judges.models import Judge
    from tests.factories import CampaignFactory

    campaign = CampaignFactory(slug="older-judges", task_type="answer_ranking")
    asked = {"model": "/models/monot5", "batch_size": 8}
    newer = family_get("monot5").validate_config(asked)
    older = {key: value for key, value in newer.items() if key != "max_batch_tokens"}
    judge = Judge.objects.create(campaign=campaign, name="mono", family="monot5", config=older,
                                 config_hash=config_hash(family="monot5", config=older))
    bm25 = Judge.objects.create(campaign=campaign, name="bm25", family="bm25", config={"k1": 1.5},
                                config_hash=config_hash(family="bm25", config={"k1": 1.5}))
    importlib.import_module("judges.migrations.0009_max_batch_tokens").forwards(apps, None)
    judge.refresh_from_db()
    bm25.refresh_from_db()
    assert judge.config == newer and bm25.config == {"k1": 1.5}  # bm25 has no such option
    # The same options asked for again name the same judge, not "another configuration".
    assert judge_get_or_create(campaign=campaign, name="mono", family="monot5", config=newer) == judge
