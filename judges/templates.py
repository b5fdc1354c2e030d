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
"""

import string

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
    or lookup, so a template that reached a worker unchecked still cannot cost memory."""
    parts = []
    try:
        parsed = _parsed(template)
    except ValueError as exc:
        raise JudgeConfigError(f"a judge template has malformed braces ({exc})") from None
    for literal, name, spec, conversion in parsed:
        parts.append(literal)
        if name is None:
            continue
        if not _plain(name, spec, conversion) or name not in values:
            raise JudgeConfigError(f"a judge template may use only the plain placeholders "
                                   f"{_names(tuple(sorted(values)))}, not {_shown(name, spec, conversion)}")
        parts.append(str(values[name]))
    return "".join(parts)
