"""The probe kind of pairs (TaskTypeSpec.probes): a pair with its two responses swapped. A judge that reads the
responses, not their positions, names the same response as before."""

from tasktypes.pairwise_preference.verdicts import TIE, A, B
from tasktypes.probes import ProbeKind, Verdict

# The responses a swapped pair should be answered with: the other one, or the tie again.
MIRROR = {A: B, B: A, TIE: TIE}


class ResponsesSwapped(ProbeKind):
    name = "swap"
    title = "Responses swapped"
    what = "the pair with its two responses swapped"
    negative_only = False

    def changed(self, item, *, spec) -> tuple[str, dict]:
        data = dict(item.data or {})
        data[A], data[B] = (item.data or {}).get(B), (item.data or {}).get(A)
        return item.text, data

    def flipped(self, *, original: Verdict, probe: Verdict, negative) -> bool | None:
        """Of the probes whose pair the judge gave a preference or a tie, those whose copy it does not answer with the
        mirror (the other response, or the tie again)."""
        label, probe_label = original[0], probe[0]
        if label not in MIRROR or probe_label not in MIRROR:
            return None
        return probe_label != MIRROR[label]


RESPONSES_SWAPPED = ResponsesSwapped()
