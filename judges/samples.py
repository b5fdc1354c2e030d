"""The database-backed sample cache of LLM judges (judges.llm.backend.SampleStore over LLMSample)."""

from judges.llm.backend import Generation
from judges.models import SERVED_MODEL_CHARS, Judge, LLMSample


class DbSampleStore:
    """The samples of one judge. Each sample is written as soon as the backend returns it, with RUN_ID (the run that
    asked for it) and the model id the server reported (judges.selectors.judges_served_models)."""

    def __init__(self, judge: Judge, *, run_id: int | None = None) -> None:
        self.judge = judge
        self.run_id = run_id

    def samples_get(self, item_ids: list[int]) -> dict[int, dict[int, Generation]]:
        stored: dict[int, dict[int, Generation]] = {}
        rows = LLMSample.objects.filter(judge=self.judge, item_id__in=item_ids).values_list(
            "item_id", "index", "text", "prompt_tokens", "completion_tokens", "seconds", "served_model"
        )
        for item_id, index, text, prompt_tokens, completion_tokens, seconds, served_model in rows:
            stored.setdefault(item_id, {})[index] = Generation(
                text=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, seconds=seconds,
                model=served_model,
            )
        return stored

    def sample_put(self, item_id: int, index: int, generation: Generation) -> None:
        if generation.error:
            return  # failures are asked again next time, never cached
        # ignore_conflicts: a redelivered batch may produce a sample another delivery already stored.
        LLMSample.objects.bulk_create(
            [
                LLMSample(
                    judge=self.judge, run_id=self.run_id, item_id=item_id, index=index, text=generation.text,
                    served_model=generation.model[:SERVED_MODEL_CHARS],
                    prompt_tokens=generation.prompt_tokens, completion_tokens=generation.completion_tokens,
                    seconds=generation.seconds,
                )
            ],
            ignore_conflicts=True,
        )
