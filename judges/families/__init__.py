"""The registry of judge families: name -> family. Adding a family = a module and one line here."""

from judges.errors import JudgeConfigError
from judges.families.base import ItemInput, JudgeFamily, Verdict
from judges.families.em import ExactMatch
from judges.families.f1 import TokenF1

FAMILIES: dict[str, JudgeFamily] = {
    family.name: family
    for family in (
        ExactMatch(),
        TokenF1(),
    )
}

__all__ = ["FAMILIES", "ItemInput", "JudgeFamily", "Verdict", "family_get"]


def family_get(name: str) -> JudgeFamily:
    """The registered family NAME, or JudgeConfigError listing the ones there are."""
    try:
        return FAMILIES[name]
    except KeyError:
        known = ", ".join(sorted(FAMILIES))
        if name == "external":
            raise JudgeConfigError("'external' judges hold imported verdicts and cannot be run") from None
        raise JudgeConfigError(f"unknown judge family {name!r} (available: {known})") from None
