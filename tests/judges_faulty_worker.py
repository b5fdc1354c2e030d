"""A Celery app for failing-judge tests: Concord's own app and tasks, the llm family's model replaced.

`celery -A tests.judges_faulty_worker worker` runs the real judge_batch task and the real llm family
(prompting, sample cache, voting); only the model is a stand-in that misbehaves on chosen items:
an answer containing "boom" makes the whole generate() call raise (a crashing backend), "oom" raises
MemoryError (a batch too large for the device), "garbage" gets a reply with no verdict word in it.
Every other answer gets "yes". With CONCORD_TEST_HEALED=1 the backend no longer raises (the bug fixed,
more memory), as after a researcher's fix, while "garbage" stays unparseable.
"""

import os

from celery.signals import worker_init

from config.celery import app

__all__ = ["app"]


class MisbehavingBackend:
    def __init__(self, config, counter=None, connection=None):
        self.healed = os.environ.get("CONCORD_TEST_HEALED") == "1"

    def generate(self, requests, decoding, on_sample):
        from judges.llm.backend import Generation

        prompts = {request.key: request.messages[-1]["content"] for request in requests}
        if not self.healed:
            for prompt in prompts.values():
                if "boom" in prompt:
                    raise RuntimeError("the model server dropped the connection")
                if "oom" in prompt:
                    raise MemoryError("cannot allocate 2.0 GiB for the batch")
        for request in requests:
            text = "I would rather not commit to anything." if "garbage" in prompts[request.key] else "It matches.\nyes"
            for index in request.sample_indices:
                on_sample(request.key, index, Generation(text=text, prompt_tokens=10, completion_tokens=5))


@worker_init.connect
def _misbehaving_model(**_):
    import django

    django.setup()
    from judges.families.llm import LLMJudge

    LLMJudge.backend = staticmethod(MisbehavingBackend)
