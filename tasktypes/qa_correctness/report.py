"""qa_correctness's report: the verdict report (reports.verdicts), systems scored by the campaign's counting rule
(option counting_rule: tasktypes.qa_correctness.counting)."""

from __future__ import annotations

from annotate.models import Campaign
from reports.verdicts import CountingRule, verdict_report_build
from tasktypes.qa_correctness.counting import COUNTING_RULES, RULE_CONCORD, RULE_QA_EVAL, counting_for


def qa_report_build(*, campaign: Campaign) -> dict:
    """Yes/no verdicts on items; a system's accuracy is the share of its outputs counted correct by the rule."""
    rule = (campaign.options or {}).get("counting_rule", RULE_CONCORD)
    return verdict_report_build(campaign=campaign, counting=CountingRule(
        name=rule, description=COUNTING_RULES[rule], reads_texts=rule == RULE_QA_EVAL,
        make=lambda humans, outputs: counting_for(rule, humans=humans, outputs=outputs)))
