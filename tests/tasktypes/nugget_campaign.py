"""A small nugget_evaluation campaign as its imports leave it (tasktypes/nugget_evaluation/layout.py): topics with
passages and a proposed list, each topic's creation item, and an answer of each run with cited segments; answer
units closed until a list is frozen. For the tests of its pages, its lists and its browser journey."""

from annotate.models import Role, SystemOutput, Unit
from annotate.services.campaigns import units_ensure
from tasktypes.nugget_evaluation.layout import ANSWER_KIND, NUGGETS_KIND, answer_item_id, nuggets_item_id
from tests.factories import CampaignFactory, ItemFactory, MembershipFactory, TopicFactory

PROPOSAL = [{"id": "p1", "text": "The bridge opened in 1932", "importance": "vital"},
            {"id": "p2", "text": "It was built of local stone", "importance": "okay"}]
SUBJECTS = ["the river bridge", "the town library", "the harbour wall", "the old mill", "the market hall"]


def nugget_campaign_build(*, researcher, annotators, topics: int = 3, runs: int = 5, overlap: int = 1,
                          slug: str = "nuggets"):
    campaign = CampaignFactory(slug=slug, task_type="nugget_evaluation", overlap=overlap)
    MembershipFactory(campaign=campaign, user=researcher, role=Role.RESEARCHER)
    for person in annotators:
        MembershipFactory(campaign=campaign, user=person, role=Role.ANNOTATOR)
    for q in range(topics):
        subject = SUBJECTS[q % len(SUBJECTS)]
        passages = [{"id": f"s{q}-{i}", "title": f"Notes {i}",
                     "text": f"Passage {i} on {subject}: built in 19{30 + i}."} for i in range(2)]
        topic = TopicFactory(campaign=campaign, external_id=f"t{q}", text=f"What is known of {subject}?",
                             data={"passages": passages, "proposals": {"import:auto.jsonl": PROPOSAL}})
        ItemFactory(campaign=campaign, topic=topic, kind=NUGGETS_KIND, external_id=nuggets_item_id(topic.external_id),
                    text="")
        for r in range(runs):
            sentences = [{"text": f"Answer {r} on {subject}: it opened in 1932.", "citations": [f"s{q}-0"]},
                         {"text": f"Run {r} adds that stone was used.", "citations": [f"s{q}-1"]}]
            item = ItemFactory(campaign=campaign, topic=topic, kind=ANSWER_KIND,
                               external_id=answer_item_id(topic.external_id, f"run{r}"),
                               text=" ".join(s["text"] for s in sentences),
                               data={"run": f"run{r}", "round": 1, "sentences": sentences,
                                     "segments": {p["id"]: p["text"] for p in passages}})
            SystemOutput.objects.create(campaign=campaign, topic=topic, item=item, system=f"run{r}", rank=1)
    units_ensure(campaign=campaign)
    Unit.objects.filter(campaign=campaign, item__kind=ANSWER_KIND).update(judgments_needed=0)
    return campaign
