"""Pending one-time links made before links belonged to the campaign that made them (issue 53): carried over.

Before accounts 0004 a link had no scope and its account no InvitedAccount row; 0004 made such links answer 410, and
the researcher could not issue another ("not made by this campaign's invitation"): only staff could let the person
in. A link is carried over where the rules of accounts.selectors.invitation_problem would have allowed it had the
account been made under them: the link unused and unexpired; its account with no usable password, never signed in,
not staff, without an InvitedAccount row, a member of exactly one campaign (the one the link lands on), with no
judgment of its own (accounts an import made have judgments and no link). The account is then that campaign's
invitee (InvitedAccount, scope 'campaign:<id>'), its link scoped to it, and the change recorded for staff. Every
other old link stays dead, and its page says so (accounts.views.welcome)."""

from django.conf import settings
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.db import migrations
from django.utils import timezone


def carry_over(apps, schema_editor):
    db = schema_editor.connection.alias
    Invitation = apps.get_model("accounts", "Invitation")
    InvitedAccount = apps.get_model("accounts", "InvitedAccount")
    InvitationEvent = apps.get_model("accounts", "InvitationEvent")
    Membership = apps.get_model("annotate", "Membership")
    HumanJudgment = apps.get_model("annotate", "HumanJudgment")
    pending = (Invitation.objects.using(db).select_related("user")
               .filter(scope="", used_at__isnull=True, expires_at__gt=timezone.now()))
    for invitation in pending:
        user = invitation.user
        if (not user.password.startswith(UNUSABLE_PASSWORD_PREFIX) or user.last_login is not None or user.is_staff
                or user.is_superuser or InvitedAccount.objects.using(db).filter(user=user).exists()
                or HumanJudgment.objects.using(db).filter(annotator=user).exists()):
            continue
        campaigns = list(Membership.objects.using(db).filter(user=user).values_list("campaign_id", "campaign__slug")
                         .distinct())
        if len(campaigns) != 1 or not invitation.next_path.startswith(f"/campaigns/{campaigns[0][1]}/"):
            continue
        (campaign_id, slug), = campaigns
        scope = f"campaign:{campaign_id}"
        InvitedAccount.objects.using(db).create(user=user, scope=scope, scope_name=slug,
                                                created_by=invitation.created_by)
        Invitation.objects.using(db).filter(pk=invitation.pk).update(scope=scope)
        InvitationEvent.objects.using(db).create(
            kind="reissued", account=user, account_name=user.username, actor=None, actor_name="", scope=scope,
            scope_name=slug, invitation=invitation,
            detail="a link made before links belonged to their campaign, carried over when the installation was "
                   "upgraded (accounts 0006)")


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0005_tokens_database"),
        ("annotate", "0013_development_split"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.RunPython(carry_over, migrations.RunPython.noop)]
