"""A small QA campaign whose disagreements are known, for the adjudication tests.

Three annotators (k = 3) judge five candidate answers through the annotation service; two judges have verdicts:

    unit   a1   a2   a3    llm (share)   em (score)
    u0     yes  yes  yes   yes (0.9)     yes (1.0)    everyone agrees
    u1     yes  yes  no    no  (0.8)     yes (1.0)    humans split 2-1; llm against the majority
    u2     no   no   no    yes (0.9)     no  (0.0)    humans agree; llm against them
    u3     yes  no   no    no  (0.6)     no  (0.0)    humans split 2-1; llm with the majority
    u4     no   yes  -     no  (0.7)     yes (1.0)    a3 has not judged it yet: open to a3

An adjudicator "adj" (role adjudicator only); a3 is an adjudicator too.
"""

from annotate.models import Item, Role, Unit
from annotate.services.annotation import judgment_submit, unit_lease_next
from judges.models import Judge, LLMSample, ModelJudgment
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory, UnitFactory, UserFactory

VOTES = [("yes", "yes", "yes"), ("yes", "yes", "no"), ("no", "no", "no"), ("yes", "no", "no"), ("no", "yes", None)]
LLM = [("yes", 0.9), ("no", 0.8), ("yes", 0.9), ("no", 0.6), ("no", 0.7)]
EM = [("yes", 1.0), ("yes", 1.0), ("no", 0.0), ("no", 0.0), ("yes", 1.0)]


def disagreement_campaign(*, slug="adj", options=None, researcher=None):
    campaign = CampaignFactory(slug=slug, task_type="qa_correctness", overlap=3, options=options or {})
    people = {name: UserFactory(username=name) for name in ("a1", "a2", "a3", "adj")}
    for name in ("a1", "a2", "a3"):
        MembershipFactory(campaign=campaign, user=people[name], role=Role.ANNOTATOR)
    for name in ("a3", "adj"):
        MembershipFactory(campaign=campaign, user=people[name], role=Role.ADJUDICATOR)
    if researcher is not None:
        MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    topic = TopicFactory(campaign=campaign, external_id="q1", text="who painted the mona lisa",
                         data={"gold_answers": ["Leonardo da Vinci"]})
    units = []
    for n in range(len(VOTES)):
        item = ItemFactory(campaign=campaign, topic=topic, external_id=f"u{n}", text=f"candidate answer {n}")
        units.append(UnitFactory(campaign=campaign, topic=topic, item=item, judgments_needed=3, position=n))
    for who, column in (("a1", 0), ("a2", 1), ("a3", 2)):
        for votes in VOTES:
            if votes[column] is None:
                continue
            assignment = unit_lease_next(campaign=campaign, annotator=people[who])
            judgment_submit(assignment=assignment, annotator=people[who],
                            value={"correct": votes[column] == "yes"})
    llm = Judge.objects.create(campaign=campaign, name="llm", family="llm", config={"samples": 3}, config_hash="llm")
    em = Judge.objects.create(campaign=campaign, name="em", family="em", config={}, config_hash="em")
    items = list(Item.objects.filter(campaign=campaign).order_by("external_id"))
    for item, (label, share), (em_label, em_score) in zip(items, LLM, EM):
        ModelJudgment.objects.create(judge=llm, item=item, label=label, score=share, raw="{}")
        ModelJudgment.objects.create(judge=em, item=item, label=em_label, score=em_score, raw="{}")
        for index in range(3):
            LLMSample.objects.create(judge=llm, item=item, index=index,
                                     text=f"sample {index} of {item.external_id}: the answer is {label}")
    units = list(Unit.objects.filter(campaign=campaign).order_by("position"))
    return campaign, people, units
