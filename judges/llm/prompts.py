"""What every prompt of the `llm` family shares: the interface a task type's prompt implements (LLMPrompt, given by
TaskTypeSpec.judge_prompt), and a chat as one text for models without a chat format.

The prompts themselves are the task types' (tasktypes/llm_prompts/: an answer's correctness, a passage's
grade), written by us and replaceable by the user (docs/design.md §1.4: the prompt is configuration). Their texts are
judge options, so part of the judge's identity: editing a default makes new judges, never new answers under an old
judge's name.
"""

from typing import ClassVar

from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgePrompt
from judges.llm.backend import Message


class LLMPrompt(JudgePrompt):
    """A task type's prompt for the llm family: the chat for one item and how its n samples are read.

    CONTEXT is what the task type tells judges of the campaign beside its items (TaskTypeSpec.judge_context: a
    graded type's scale); {} when it tells nothing."""

    # Whether a verdict's score is the winning answer's share of the votes (verdict words) or None (a grade, which
    # the report reads as it is, with no mapping of scores to grades).
    scored: ClassVar[bool] = True

    def unjudgeable(self, item: ItemInput, context: dict) -> str:
        """Why ITEM cannot be put to the model (its verdict fails without asking), or ""."""
        return ""

    def messages(self, item: ItemInput, config: dict, context: dict) -> list[Message]:
        """The chat for ITEM under CONFIG (judges.templates.PromptTooLarge when over the budget)."""
        raise NotImplementedError

    def vote(self, texts: list[str], config: dict, context: dict):
        """The vote over one item's sample TEXTS (judges.llm.voting: a Vote or a GradeVote)."""
        raise NotImplementedError


ROLE_NAMES = {"system": "", "user": "User", "assistant": "Assistant"}


def messages_flatten(messages: list[Message]) -> str:
    """One text for models without a chat format (FLAN-T5 and other seq2seq models, causal models without a
    chat template): the system message, then each turn after its role's name, ending with "Assistant:" so
    the model writes the reply next."""
    parts = []
    for message in messages:
        content = message_text(message)
        name = ROLE_NAMES.get(message["role"], message["role"].capitalize())
        parts.append(f"{name}: {content}" if name else content)
    return "\n\n".join(parts + ["Assistant:"])


def message_text(message: Message) -> str:
    """The text of MESSAGE; JudgeConfigError for image parts, which text-only models cannot read."""
    content = message["content"]
    if isinstance(content, str):
        return content
    raise JudgeConfigError("llm: this model reads text only, but the prompt has image parts; use a vision model")
