"""The one check every template, prompt and format string of every judge family goes through, and the one way to
fill a template.

A judge's configuration is written by a researcher and run by the web process (which checks it) and the workers
(which fill it for every item). Python's str.format is a small language: `{question:>300000000}` pads to 300
million characters (300 MB from a 28-character option), `{x.__class__}` and `{x[0]}` walk attributes and
indexes, `{x!r}` converts. A judge template needs none of it, so here a placeholder is a plain name from the
option's declared list and nothing else: no format spec, no conversion, no attribute, no index, no positional or
empty `{}`; malformed braces are refused; a literal brace is written `{{` or `}}` as in str.format.

Each family declares, in its options (judges.families.base.Option.placeholders), which string options are
templates and the names each may use; every other string option is plain text and takes no placeholder at all.
JudgeFamily.validate_config runs `template_check` on every string option of every family, so a family cannot
skip it; `template_fill` refuses the same things again at run time and never calls str.format.

Plain placeholders still multiply: `{passage}` written 11,108 times fits in the 100,000 characters of a text
option, and with one 90,000-character passage made a 1 GB request. So every rendered prompt has a budget
(JUDGE_LIMITS prompt_bytes, 2,000,000 bytes of UTF-8, and prompt_tokens, 500,000 tokens counted as one a
character). A family's configuration check adds up its prompt's worst case (PromptBound: the literal text as it
is, each placeholder's count times its field's maximum, IMPORT_MAX_VALUE_CHARS characters of 4 UTF-8 bytes for an
item's or topic's text) and refuses a configuration over the budget, naming the placeholder that costs most;
`template_fill` measures what it is about to build from the values' sizes and refuses (PromptTooLarge) before it
joins anything, whatever the configuration or the data.
"""

import string
from collections import Counter

from django.conf import settings

from judges.boundary import limit
from judges.errors import JudgeConfigError

# How much of a refused placeholder a message repeats.
_SHOWN_CHARS = 60

_NOT_PLAIN = "no format spec (:), conversion (!), attribute (.), index ([ ]) or empty {}"


def _parsed(text: str) -> list[tuple[str, str | None, str | None, str | None]]:
    """str.format's own parse of TEXT: (literal, field name, spec, conversion) tuples; ValueError on malformed
    braces. Parsing allocates nothing beyond the pieces of TEXT itself: nothing is formatted."""
    return list(string.Formatter().parse(text))


def _plain(name: str, spec: str | None, conversion: str | None) -> bool:
    """A placeholder that is a bare name: `{question}` (or `{question:}`, the same thing to str.format)."""
    return name.isidentifier() and not spec and conversion is None


def _shown(name: str, spec: str | None, conversion: str | None) -> str:
    field = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
    return field if len(field) <= _SHOWN_CHARS else field[:_SHOWN_CHARS - 2] + "…}"


def _names(allowed: tuple[str, ...]) -> str:
    return ", ".join("{" + name + "}" for name in allowed) or "none"


def template_check(text: str, *, family: str, option: str, allowed: tuple[str, ...] | None) -> set[str]:
    """The placeholder names TEXT uses, each in ALLOWED; JudgeConfigError naming FAMILY, OPTION and the allowed
    names otherwise. ALLOWED None: OPTION is plain text, not a template, and takes no placeholder.

    Nothing is formatted here: a refused template costs what parsing its text costs.
    """
    if allowed is None:
        plain_text = f"{family}: {option} is plain text, not a template, and takes no placeholder"
        try:
            fields = [(n, s, c) for _, n, s, c in _parsed(text) if n is not None]
        except ValueError as exc:
            raise JudgeConfigError(f"{plain_text}; remove the unmatched brace ({exc})") from None
        if fields:
            raise JudgeConfigError(f"{plain_text}, not {_shown(*fields[0])}; remove the braces")
        return set()
    try:
        parsed = _parsed(text)
    except ValueError as exc:
        raise JudgeConfigError(f"{family}: {option} has malformed braces ({exc}); write a literal brace as {{{{ or "
                               f"}}}}; its placeholders are {_names(allowed)}") from None
    names = set()
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if not _plain(name, spec, conversion):
            example = name if name in allowed else (allowed[0] if allowed else "name")
            raise JudgeConfigError(f"{family}: {option} may use only plain named placeholders like {{{example}}}, not "
                                   f"{_shown(name, spec, conversion)} ({_NOT_PLAIN}); its placeholders are "
                                   f"{_names(allowed)}")
        names.add(name)
    unknown = sorted(names - set(allowed))
    if unknown:
        raise JudgeConfigError(f"{family}: {option} has unknown placeholder(s) {_names(tuple(unknown))}; "
                               f"use {_names(allowed)}")
    return names


def template_names(text: str) -> set[str]:
    """The placeholder names of TEXT, a template that passed template_check."""
    return {name for _, name, _, _ in _parsed(text) if name is not None}


def template_fill(template: str, /, **values: str) -> str:
    """TEMPLATE with each `{name}` replaced by VALUES[name], `{{` and `}}` by single braces: what
    `template.format(**values)` gives for a template that passed template_check, without str.format's spec,
    conversion, attribute and index machinery. Anything else is a JudgeConfigError here too, before any padding
    or lookup, so a template that reached a worker unchecked still cannot cost memory; and PromptTooLarge when the
    result would exceed the prompt budget, measured before anything is joined."""
    parts = []
    try:
        parsed = _parsed(template)
    except ValueError as exc:
        raise JudgeConfigError(f"a judge template has malformed braces ({exc})") from None
    for _, name, spec, conversion in parsed:
        if name is not None and (not _plain(name, spec, conversion) or name not in values):
            raise JudgeConfigError(f"a judge template may use only the plain placeholders "
                                   f"{_names(tuple(sorted(values)))}, not {_shown(name, spec, conversion)}")
    _fill_budget_check(parsed, values)
    for literal, name, _, _ in parsed:
        parts.append(literal)
        if name is not None:
            parts.append(str(values[name]))
    return "".join(parts)


# --- the prompt budget ---

# UTF-8 takes at most 4 bytes a character: the worst case of a field counts each character so.
UTF8_MAX = 4


class PromptTooLarge(JudgeConfigError):
    """A prompt that would exceed the budget (JUDGE_LIMITS prompt_bytes, prompt_tokens), refused before it is built.
    At run time it fails the item it was built for, not the run."""


def field_max_chars() -> int:
    """The most characters one text of an item or a topic holds: what an import takes a value
    (settings.IMPORT_MAX_VALUE_CHARS)."""
    return settings.IMPORT_MAX_VALUE_CHARS


def text_size(text: str) -> tuple[int, int]:
    """(characters, an upper bound of the UTF-8 bytes) of TEXT, without encoding it: the widest character says how
    many bytes each may take."""
    if not text or text.isascii():
        return len(text), len(text)
    widest = ord(max(text))
    return len(text), len(text) * (2 if widest < 0x800 else 3 if widest < 0x10000 else UTF8_MAX)


def budget() -> tuple[int, int]:
    """(bytes, tokens) one rendered prompt may take on this installation (JUDGE_LIMITS prompt_bytes, prompt_tokens)."""
    return limit("prompt_bytes"), limit("prompt_tokens")


def _budget_words() -> str:
    most_bytes, most_tokens = budget()
    return (f"a prompt may take at most {most_bytes:,} bytes and {most_tokens:,} tokens on this installation "
            f"(JUDGE_LIMITS prompt_bytes and prompt_tokens; a token is counted as a character)")


class PromptBound:
    """The worst case of one prompt, added up part by part without building anything: literal text as it is, a
    placeholder filled with a known value (a worked example's) at that value's size, any other placeholder at its
    field's maximum in characters, each of UTF8_MAX bytes. `check` refuses it over the budget, naming the
    placeholder that costs most."""

    def __init__(self, family: str, what: str = "the prompt"):
        self.family, self.what = family, what
        self.chars = self.bytes = 0
        # placeholder -> option -> (times shown, characters each at most): what the message names.
        self.fields: dict[str, dict[str, tuple[int, int]]] = {}

    def text(self, text: str, *, times: int = 1) -> "PromptBound":
        chars, size = text_size(text)
        self.chars += chars * times
        self.bytes += size * times
        return self

    def size(self, chars: int, size: int, *, times: int = 1) -> "PromptBound":
        self.chars += chars * times
        self.bytes += size * times
        return self

    def template(self, option: str, template: str, *, fields: dict[str, int] | None = None,
                 values: dict[str, str] | None = None, times: int = 1) -> "PromptBound":
        """Add TEMPLATE (the option OPTION) filled TIMES times: a name of VALUES at that value's size, a name of FIELDS
        at that many characters (UTF8_MAX bytes each), a name of neither at field_max_chars()."""
        values, fields = values or {}, fields or {}
        counts: Counter[str] = Counter()
        for literal, name, _, _ in _parsed(template):
            self.text(literal, times=times)
            if name is not None:
                counts[name] += 1
        for name, count in counts.items():
            if name in values:
                most, size = text_size(values[name])
                self.size(most, size, times=count * times)
            else:
                most = fields.get(name, field_max_chars())
                self.size(most, most * UTF8_MAX, times=count * times)
            shown, each = self.fields.setdefault(name, {}).get(option, (0, 0))
            self.fields[name][option] = (shown + count * times, max(each, most))
        return self

    def check(self) -> None:
        """JudgeConfigError when this worst case exceeds the budget, with its figures and the costliest placeholder."""
        most_bytes, most_tokens = budget()
        if self.bytes <= most_bytes and self.chars <= most_tokens:
            return
        worst = ""
        if self.fields:
            name, shown = max(self.fields.items(), key=lambda entry: sum(n * each for n, each in entry[1].values()))
            count = sum(n for n, _ in shown.values())
            where = "; ".join(f"{option}: {n:,} × up to {each:,} characters" for option, (n, each) in shown.items())
            worst = f": {{{name}}} is shown {count:,} time{'s' if count != 1 else ''} ({where})"
        raise JudgeConfigError(f"{self.family}: {self.what} can reach {self.bytes:,} bytes ({self.chars:,} "
                               f"characters) on the largest allowed fields{worst}; {_budget_words()}. Show each "
                               f"field once, or fewer fields")


def _fill_size(parsed, values: dict[str, str]) -> tuple[int, int]:
    chars = size = 0
    sizes = {name: text_size(str(value)) for name, value in values.items()}
    for literal, name, _, _ in parsed:
        literal_chars, literal_bytes = text_size(literal)
        chars, size = chars + literal_chars, size + literal_bytes
        if name in sizes:
            chars, size = chars + sizes[name][0], size + sizes[name][1]
    return chars, size


def _fill_budget_check(parsed, values: dict[str, str]) -> None:
    """PromptTooLarge when filling PARSED with VALUES would exceed the budget: measured from the values' sizes, before
    anything is joined."""
    chars, size = _fill_size(parsed, values)
    most_bytes, most_tokens = budget()
    if size > most_bytes or chars > most_tokens:
        raise PromptTooLarge(f"the prompt would take {size:,} bytes ({chars:,} characters); {_budget_words()}")


def template_fill_check(template: str, /, **values: str) -> None:
    """What template_fill(TEMPLATE, **VALUES) would refuse for its size (PromptTooLarge), without building it."""
    try:
        parsed = _parsed(template)
    except ValueError as exc:
        raise JudgeConfigError(f"a judge template has malformed braces ({exc})") from None
    _fill_budget_check(parsed, values)
