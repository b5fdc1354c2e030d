"""The one interface every judge family implements: score a batch of items -> one verdict per item.

A family sees plain data only (no ORM objects), so it can be tested without a database and run
anywhere a Celery worker runs. Adding a family is adding a module with a `JudgeFamily` subclass and
one line in `judges.families.FAMILIES`.
"""

from dataclasses import dataclass, field
from typing import Any, ClassVar

from judges.boundary import config_limits_check
from judges.errors import JudgeConfigError
from judges.templates import PromptBound, template_check

# The family of a judge whose verdicts were imported (interchange.importers.writes): no family module runs it, and
# judges.models.Judge.is_external says whether a judge is one.
EXTERNAL_FAMILY = "external"


@dataclass(frozen=True)
class ItemInput:
    """What a judge may read about one item: its id, its topic's text and gold answers, its own text and data.

    `topic_candidates` holds the texts of every item of the item's topic (the item's own included), in
    item id order, when the family sets `needs_topic_candidates` (BM25's corpus statistics); else None.
    `topic_data` is the topic's JSON fields (image_relevance: page_title, page_context, section_title,
    section_context); an image item's `data` names its files (annotate.images.image_file).
    """

    item_id: int
    topic_text: str
    gold_answers: list[str]
    text: str
    data: dict = field(default_factory=dict)
    topic_candidates: tuple[str, ...] | None = None
    topic_data: dict = field(default_factory=dict)


# Words a family writes in a verdict's raw text when the model's input limit cut the item's text, so that the
# report can count how much was cut (reports.selectors.input_cuts_get): "... 142 tokens, truncated to 77".
NOTE_TRUNCATED = "tokens, truncated to"
NOTE_WINDOWED = "windows of"


@dataclass(frozen=True)
class Verdict:
    """A judge's verdict on one item. `failed` verdicts carry no label and say why in `raw`."""

    score: float | None
    label: str
    raw: str = ""
    failed: bool = False

    @classmethod
    def failure(cls, reason: str) -> "Verdict":
        return cls(score=None, label="", raw=reason, failed=True)


@dataclass(frozen=True)
class Option:
    """One configuration key: the JSON types it accepts and its default.

    PLACEHOLDERS, for a string option that is a template (filled with judges.templates.template_fill): the names
    it may use as `{name}`. None: the string is plain text and takes no placeholder. Every string option goes
    through judges.templates.template_check with these in validate_config.
    """

    types: tuple[type, ...]
    default: Any
    help: str = ""
    placeholders: tuple[str, ...] | None = None


class JudgePrompt:
    """What a campaign's task type tells a family that asks for it (JudgeFamily.uses_prompt) about its prompt
    (annotate.task_types.spec.TaskTypeSpec.judge_prompt): the options it adds to the family's configuration, their
    checks and the worst case of what they make. A family's own subclass (judges.llm.prompts.LLMPrompt) adds how an
    item is put to the model and how its replies are read.

    CARRIES are other prompts whose options this one's judges hold too, unused but checked as before: the llm family
    once held every task type's prompt, and its judges keep their identity (judges.identity.config_hash) only with all
    of those options in their configuration.
    """

    options: ClassVar[dict[str, Option]] = {}

    def __init__(self, *, carries: tuple["JudgePrompt", ...] = ()):
        self.carries = carries

    def check(self, config: dict) -> None:
        """Checks of this prompt's own options in the complete CONFIG; raise JudgeConfigError. Default: none."""

    def bounds(self, config: dict) -> list[PromptBound]:
        """The worst case of each prompt its own options make (judges.templates.PromptBound). Default: none."""
        return []

    def all_options(self) -> dict[str, Option]:
        """Its options and those of the prompts it carries."""
        carried = {key: option for prompt in self.carries for key, option in prompt.all_options().items()}
        return {**self.options, **carried}

    def all_checks(self, config: dict) -> None:
        self.check(config)
        for prompt in self.carries:
            prompt.all_checks(config)

    def all_bounds(self, config: dict) -> list[PromptBound]:
        return self.bounds(config) + [bound for prompt in self.carries for bound in prompt.all_bounds(config)]


_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "an object",
}


class JudgeFamily:
    """Base class of judge families. Subclasses set `name`, `options` and implement `judge_batch`."""

    name: ClassVar[str]
    description: ClassVar[str] = ""
    options: ClassVar[dict[str, Option]] = {}
    # Whether the model's input limit may cut an item's text, said in the verdict's raw text (NOTE_TRUNCATED,
    # NOTE_WINDOWED): the report counts the cuts (reports.selectors.input_cuts_get).
    cuts_long_inputs: ClassVar[bool] = False
    # Keys this family no longer accepts, with what to do instead (asked for by name, they get this message).
    retired_options: ClassVar[dict[str, str]] = {}
    # True: the task layer resolves the judge's model endpoint and passes `connection=` to judge_batch.
    uses_endpoint: ClassVar[bool] = False
    # True: the task layer fills ItemInput.topic_candidates (one extra query per batch).
    needs_topic_candidates: ClassVar[bool] = False
    # True: the task layer passes `task_context=`, what the campaign's task type tells judges beside the items
    # (annotate.task_types.spec.TaskTypeSpec.judge_context: a graded type's scale), to judge_batch.
    uses_task_context: ClassVar[bool] = False
    # True: its prompt is the campaign's task type's (JudgePrompt, TaskTypeSpec.judge_prompt): its options are checked
    # with the family's (validate_config's PROMPT) and the task layer passes it as `prompt=` to judge_batch.
    uses_prompt: ClassVar[bool] = False
    # True: a verdict is a function of the answer's text and the gold answers alone (em, f1), so a counting rule may
    # apply the family to each system output against that output's own gold answers (tasktypes.qa_correctness.counting).
    scores_gold: ClassVar[bool] = False
    # Items per Celery task when the run does not say (JudgeRun.batch_size). Families whose forward passes sort by
    # token length (judges.families.batching) take more: the more items a task holds, the less its passes pad.
    items_per_task: ClassVar[int] = 64

    @property
    def default_config(self) -> dict:
        return {key: option.default for key, option in self.options.items()}

    def validate_config(self, config: Any, *, extra_options: dict[str, Option] | None = None,
                        prompt: JudgePrompt | None = None) -> dict:
        """The complete configuration (defaults filled in), or JudgeConfigError naming the bad key.

        Defaults are filled in so that `{}` and the explicit default configuration hash to the same
        judge identity. EXTRA_OPTIONS are the options a campaign's task type adds to this family's, and PROMPT its
        prompt for a family that uses one (judges.families.family_config_validate): their options are checked and
        filled in as the family's own, and the prompt's checks and bounds run after the family's.
        """
        options = {**self.options, **(prompt.all_options() if prompt else {}), **(extra_options or {})}
        if config is None:
            config = {}
        if not isinstance(config, dict):
            raise JudgeConfigError(f"{self.name}: the configuration must be a JSON object, not {type(config).__name__}")
        for key in sorted(set(config) & set(self.retired_options)):
            raise JudgeConfigError(f"{self.name}: {key} is no longer accepted: {self.retired_options[key]}")
        unknown = sorted(set(config) - set(options))
        if unknown:
            allowed = ", ".join(sorted(options)) or "none"
            raise JudgeConfigError(
                f"{self.name}: unknown configuration key(s) {', '.join(unknown)} (allowed: {allowed})"
            )
        complete = {key: option.default for key, option in options.items()}
        for key, value in config.items():
            option = options[key]
            # bool is an int in Python; a JSON true is never a number here.
            ok = isinstance(value, option.types) and not (isinstance(value, bool) and bool not in option.types)
            if not ok:
                names = ["a number" if float in option.types and t is int else _TYPE_NAMES.get(t, t.__name__)
                         for t in option.types]
                wanted = " or ".join(dict.fromkeys(names))
                raise JudgeConfigError(f"{self.name}: {key} must be {wanted}, not {value!r}")
            complete[key] = float(value) if float in option.types and isinstance(value, int) else value
        config_limits_check(self.name, complete)
        # Every string option, of every family, before the family's own checks: a template is only ever parsed,
        # never formatted, until it has passed.
        for key, value in complete.items():
            if isinstance(value, str):
                template_check(value, family=self.name, option=key, allowed=options[key].placeholders)
        self.check_config(complete)
        if prompt is not None:
            prompt.all_checks(complete)
        # Every prompt the configuration can make, at its worst, within the budget (judges.templates.PromptBound).
        for bound in (prompt.all_bounds(complete) if prompt else []) + self.prompt_bounds(complete, options, prompt):
            bound.check()
        return complete

    def check_config(self, config: dict) -> None:
        """Checks beyond types (ranges, combinations); raise JudgeConfigError. Default: none."""

    def prompt_bounds(self, config: dict, options: dict[str, Option],
                      prompt: JudgePrompt | None = None) -> list[PromptBound]:
        """The worst case of each prompt CONFIG makes beside those of its task type's PROMPT (JudgePrompt.bounds,
        checked first). Default: each template option alone, every placeholder at an item's largest text
        (judges.templates.field_max_chars). A family whose prompt joins several parts, or whose fields are cut
        shorter, says so by overriding this."""
        return [PromptBound(self.name, key).template(key, config[key]) for key, option in options.items()
                if option.placeholders and isinstance(config.get(key), str)]

    def judge_batch(self, items: list[ItemInput], config: dict) -> list[Verdict]:
        """One verdict per item, in order. `config` has passed `validate_config`."""
        raise NotImplementedError
