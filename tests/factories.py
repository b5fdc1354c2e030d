"""factory_boy factories for the core models."""

import factory
from django.contrib.auth import get_user_model

from annotate.models import Campaign, Item, Membership, Role, Topic, Unit

PASSWORD = "concord-test-pw"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password(PASSWORD)


class CampaignFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Campaign

    slug = factory.Sequence(lambda n: f"campaign-{n}")
    name = factory.LazyAttribute(lambda o: f"Campaign {o.slug}")
    task_type = "qa_correctness"
    overlap = 1


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    campaign = factory.SubFactory(CampaignFactory)
    user = factory.SubFactory(UserFactory)
    role = Role.ANNOTATOR


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic

    campaign = factory.SubFactory(CampaignFactory)
    external_id = factory.Sequence(lambda n: str(n))
    text = factory.Sequence(lambda n: f"who wrote question number {n}")
    data = factory.LazyFunction(lambda: {"gold_answers": ["Ada Lovelace"]})


class ItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Item

    topic = factory.SubFactory(TopicFactory)
    campaign = factory.SelfAttribute("topic.campaign")
    external_id = factory.Sequence(lambda n: f"item-{n}")
    kind = "answer"
    text = "Ada Lovelace"


class UnitFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Unit

    item = factory.SubFactory(ItemFactory)
    topic = factory.SelfAttribute("item.topic")
    campaign = factory.SelfAttribute("item.campaign")
    judgments_needed = factory.SelfAttribute("campaign.overlap")
