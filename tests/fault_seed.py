"""Data for fault tests in another process's database: `manage.py shell -c "from tests.fault_seed import seed; seed()"`.

A QA campaign of N items (three per question, the first of each the gold answer), overlap 2, and two
annotators, ann0 and ann1, with the password PASSWORD.
"""

from django.contrib.auth import get_user_model
from django.db import transaction

from annotate.models import Campaign, Item, Membership, Role, Topic
from annotate.services.campaigns import units_ensure

PASSWORD = "fault-test-password"


@transaction.atomic
def seed(*, n_items: int = 400, slug: str = "big") -> None:
    users = [get_user_model().objects.create_user(f"ann{i}", password=PASSWORD) for i in range(2)]
    campaign = Campaign.objects.create(slug=slug, name="Fault test", task_type="qa_correctness", overlap=2)
    Membership.objects.bulk_create(Membership(campaign=campaign, user=user, role=Role.ANNOTATOR) for user in users)
    topics = Topic.objects.bulk_create(
        Topic(campaign=campaign, external_id=f"q{n}", text=f"question {n}", data={"gold_answers": [f"Answer {n}"]})
        for n in range((n_items + 2) // 3)
    )
    Item.objects.bulk_create(
        Item(campaign=campaign, topic=topics[n // 3], external_id=f"i{n}",
             text=f"the answer {n // 3}." if n % 3 == 0 else f"wrong {n}")
        for n in range(n_items)
    )
    units_ensure(campaign=campaign)
