"""What an answer_ranking campaign's options mean, read by its spec, its report and its importers: the dimensions a
ranking covers, how deep it must go, and NRP's denominator."""

from annotate.models import Campaign

# NRP's denominator, the option nrp_rule (tasktypes.answer_ranking.report): the paper's |D| (the default), or |D| + 1 as
# the
# study's released code computes it (its published figures use that one).
NRP_PAPER, NRP_STUDY_CODE = "paper", "study-code"
NRP_RULES = {NRP_PAPER: "1 − r/|D|, as the paper defines it",
             NRP_STUDY_CODE: "1 − r/(|D| + 1), as the study's released code computes it"}


def rank_depth(campaign: Campaign) -> int | None:
    """How many candidates a ranking of CAMPAIGN must place at least (the best ones); None: every candidate."""
    depth = (campaign.options or {}).get("rank_depth")
    return depth if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 1 else None


def ranking_dimensions(campaign: Campaign) -> list[str]:
    """The dimensions a ranking of CAMPAIGN covers, in the campaign's order; ["overall"] unless it lists some."""
    dimensions = (campaign.options or {}).get("dimensions") or ["overall"]
    return [str(name) for name in dimensions]
