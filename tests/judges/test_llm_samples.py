"""The LLM judges' sample cache (LLMSample through DbSampleStore), token usage, and API keys kept secret."""

import pytest

from annotate.models import Item
from judges.endpoints import endpoint_register
from judges.identity import config_hash
from judges.llm.backend import Generation
from judges.models import Judge, LLMSample
from judges.samples import DbSampleStore
from judges.secrets import config_identity, config_public
from judges.selectors import judge_usage


@pytest.mark.django_db
def test_store_keeps_each_sample_once_and_never_a_failure(qa_campaign):
    # Costs are priced by the judge's model endpoint, which staff set.
    endpoint_register(name="priced", base_url="http://127.0.0.1:9/v1", price_per_1k_prompt_tokens=2.0,
                      price_per_1k_completion_tokens=10.0)
    judge = Judge.objects.create(campaign=qa_campaign, name="llm", family="llm",
                                 config={"backend": "openai", "endpoint": "priced"}, config_hash="x")
    first, second = Item.objects.filter(campaign=qa_campaign).order_by("id")[:2]
    store = DbSampleStore(judge)
    store.sample_put(first.id, 0, Generation("yes", prompt_tokens=100, completion_tokens=20, seconds=0.5))
    store.sample_put(first.id, 0, Generation("a redelivered batch's copy", prompt_tokens=1, completion_tokens=1))
    store.sample_put(first.id, 1, Generation("", error="HTTP 500 five times"))
    store.sample_put(second.id, 2, Generation("no", prompt_tokens=80, completion_tokens=30, seconds=0.25))
    assert LLMSample.objects.count() == 2
    stored = store.samples_get([first.id, second.id, 999])
    assert stored == {
        first.id: {0: Generation("yes", prompt_tokens=100, completion_tokens=20, seconds=0.5)},
        second.id: {2: Generation("no", prompt_tokens=80, completion_tokens=30, seconds=0.25)},
    }
    usage = judge_usage(judge=judge)
    assert usage.as_dict() == {"samples": 2, "prompt_tokens": 180, "completion_tokens": 50, "seconds": 0.75,
                               "cost": pytest.approx((180 * 2.0 + 50 * 10.0) / 1000)}
    assert (
        judge_usage(judge=Judge.objects.create(campaign=qa_campaign, name="em", family="em", config_hash="y")) is None
    )


def test_a_key_left_in_an_old_configuration_is_masked_and_left_out_of_the_identity():
    config = {"model": "m", "api_key": "sk-secret-123", "api_key_env": "SECRET_KEY"}
    assert config_public(config) == {"model": "m", "api_key": "***", "api_key_env": "***"}
    assert config_public({"api_key": ""}) == {"api_key": ""}
    assert config_identity(config) == {"model": "m"}
    assert config_hash(family="llm", config=config) == config_hash(family="llm", config={**config, "api_key": "other"})
    assert config_hash(family="llm", config=config) != config_hash(family="llm", config={**config, "model": "n"})
