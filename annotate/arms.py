"""The vocabulary of an assistance experiment (annotate.services.arms, reports.arms, docs/arms.md): a campaign's arms,
each "blind" or "assisted:JUDGE", how annotators or units are drawn into them, and the check of the option `arms`."""

ARM_BLIND = "blind"
ARM_ASSISTED = "assisted:"
ARM_ASSIGNMENTS = {
    "random": "each annotator (or unit) drawn into an arm at random",
    "balanced": "into the arm with the fewest annotators (or units) so far, ties at random",
    "researcher": "the researcher puts each annotator in an arm on the People page",
}
ARM_PER = {
    "annotator": "an annotator stays in one arm for the whole campaign",
    "unit": "each unit an annotator is given is put in an arm of its own",
}


def arm_judge(arm: str) -> str | None:
    """The judge an arm shows ("assisted:JUDGE" -> "JUDGE"); None for blind."""
    return arm[len(ARM_ASSISTED):] if arm.startswith(ARM_ASSISTED) else None


def arms_check(key: str, value) -> str | None:
    """What is wrong with VALUE for the option `arms`; None when it is fine."""
    if not isinstance(value, list) or not value or not all(isinstance(arm, str) for arm in value):
        return f'{key} must be a list of arms, e.g. ["blind", "assisted:JUDGE"]'
    for arm in value:
        if arm != ARM_BLIND and not (arm.startswith(ARM_ASSISTED) and arm[len(ARM_ASSISTED):].strip()):
            return (f'{arm!r} is not an arm: an arm is "blind" or "assisted:" followed by the name of a judge of '
                    f'the campaign, e.g. "assisted:gpt-4"')
        if len(arm) > 120:
            return f"{arm[:40]!r}... is too long for an arm (at most 120 characters)"
    if len(set(value)) != len(value):
        return f"{key} names an arm twice"
    if len(value) < 2:
        return f"{key} needs two arms or more to compare (e.g. blind and an assisted arm)"
    return None
