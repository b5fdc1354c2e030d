"""The database-backed sample cache of LLM judges (judges.llm.backend.SampleStore over LLMSample)."""

from judges.llm.backend import Generation
from judges.models import Judge, LLMSample


class DbSampleStore:
    """The samples of one judge. Each sample is written as soon as the backend returns it."""

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    def samples_get(self, item_ids: list[int]) -> dict[int, dict[int, Generation]]:
        stored: dict[int, dict[int, Generation]] = {}
        rows = LLMSample.objects.filter(judge=self.judge, item_id__in=item_ids).values_list(
            "item_id", "index", "text", "prompt_tokens", "completion_tokens", "seconds"
        )
        for item_id, index, text, prompt_tokens, completion_tokens, seconds in rows:
            stored.setdefault(item_id, {})[index] = Generation(
                text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, seconds=seconds
            )
        return stored

    def sample_put(self, item_id: int, index: int, generation: Generation) -> None:
        if generation.error:
            return  # failures are asked again next time, never cached
        # ignore_conflicts: a redelivered batch may produce a sample another delivery already stored.
        LLMSample.objects.bulk_create(
            [
                LLMSample(
                    judge=self.judge, item_id=item_id, index=index, text=generation.text,
                    prompt_tokens=generation.prompt_tokens, completion_tokens=generation.completion_tokens,
                    seconds=generation.seconds,
                )
            ],
            ignore_conflicts=True,
        )
