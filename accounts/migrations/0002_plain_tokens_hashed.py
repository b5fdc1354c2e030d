"""DRF's tokens were stored as they are sent; each becomes a hashed API token (same key, so scripts keep working)
named "api", and the plain copy is deleted."""

import hashlib

from django.db import migrations


def forwards(apps, schema_editor):
    Token = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("accounts", "ApiToken")
    for token in Token.objects.all():
        ApiToken.objects.get_or_create(
            digest=hashlib.sha256(token.key.encode("utf-8")).hexdigest(),
            defaults={"user_id": token.user_id, "name": "api", "prefix": token.key[:10]},
        )
    Token.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial"), ("authtoken", "0004_alter_tokenproxy_options")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
