"""Loads the demo: one researcher, three annotators, and the NQ-open 301 QA campaign from fixtures/nq301."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from annotate.models import Campaign, Role
from annotate.services.campaigns import membership_add

DEMO_PASSWORD = "concord-demo"
DEMO_RESEARCHER = "researcher"
DEMO_ANNOTATORS = ("assessor1", "assessor2", "assessor3")
DEMO_SLUG = "nq301"


class Command(BaseCommand):
    help = "Create the demo users and the NQ-open 301 campaign (idempotent)."

    def handle(self, *args, **options):
        User = get_user_model()
        users = {}
        for username in (DEMO_RESEARCHER, *DEMO_ANNOTATORS):
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save(update_fields=["password"])
            users[username] = user

        if not Campaign.objects.filter(slug=DEMO_SLUG).exists():
            call_command(
                "import_data",
                "--campaign", DEMO_SLUG,
                "--task-type", "qa_correctness",
                "--format", "nq301",
                "--overlap", "2",
                "--owner", DEMO_RESEARCHER,
                str(settings.BASE_DIR / "fixtures" / "nq301"),
                stdout=self.stdout,
            )
        with transaction.atomic():
            campaign = Campaign.objects.get(slug=DEMO_SLUG)
            if campaign.name == DEMO_SLUG:
                campaign.name = "NQ-open 301: is the answer correct?"
                campaign.description = (
                    "Answers of 12 open-domain QA systems to 301 Natural Questions, with the three annotators' "
                    "judgments and the final verdict of Kamalloo et al. (ACL 2023), and GPT-4 and text-davinci-003 "
                    "verdicts as external judges. Answers no human has judged wait in the annotation queue."
                )
                campaign.save(update_fields=["name", "description"])
            membership_add(campaign=campaign, user=users[DEMO_RESEARCHER], role=Role.RESEARCHER)
            for username in DEMO_ANNOTATORS:
                membership_add(campaign=campaign, user=users[username], role=Role.ANNOTATOR)
        self.stdout.write(self.style.SUCCESS(f"Demo ready: campaign {DEMO_SLUG}, users {', '.join(users)}"))
