"""A small qa_correctness campaign whose items carry categories, with two annotators' verdicts and a judge's: what the
tests of the report's block by category (reports.categories) read."""

from annotate.models import HumanJudgment, JudgmentKind, Role
from judges.models import Judge, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

# 24 items: two raters' labels, the judge's; items 0-11 "semantic", 12-19 "symbolic", 20-23 without a category.
RATER_A = list("yyyynnnnyynn" "yynnyyny" "ynyn")
RATER_B = list("yyynnnnyyynn" "ynnnyynn" "yyyn")
JUDGE = list("yynnnnyyyynn" "nnyyyyny" "ynnn")
CATEGORY = ["semantic"] * 12 + ["symbolic"] * 8 + [""] * 4


def categories_campaign(*, researcher, slug="cats"):
    """The campaign SLUG of the items above (6 topics of 4): two annotators' verdicts (k = 2), judge llm's, the
    categories; RESEARCHER manages it."""
    campaign = CampaignFactory(slug=slug, task_type="qa_correctness", overlap=2)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    people = [UserFactory(username=name) for name in ("ann-a", "ann-b")]
    judge = Judge.objects.create(campaign=campaign, name="llm", family="llm", config={}, config_hash="llm")
    topic = None
    for n in range(len(CATEGORY)):
        if n % 4 == 0:
            topic = TopicFactory(campaign=campaign, external_id=f"t{n // 4}", text=f"question {n // 4}")
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"i{n}", text=f"answer {n}",
                           category=CATEGORY[n])
        unit = UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=2, judgments_done=2)
        for person, labels in zip(people, (RATER_A, RATER_B)):
            HumanJudgment.objects.create(unit=unit, annotator=person, kind=JudgmentKind.ANNOTATION,
                                         value={"correct": labels[n] == "y"}, label="yes" if labels[n] == "y" else "no")
        ModelJudgment.objects.create(judge=judge, item=item, label="yes" if JUDGE[n] == "y" else "no", raw="")
    return campaign
