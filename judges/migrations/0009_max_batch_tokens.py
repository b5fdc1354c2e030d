"""Fill in the max_batch_tokens option (length batching, issue 18) in the configuration of every judge of the
families that have it, with the default it had when it was added, and recompute the identity hash.

A judge's configuration holds every option with its value (JudgeFamily.validate_config fills in the defaults), and
its identity is the hash of that: without this, a judge created before the option existed would no longer match
its own configuration submitted again ("already exists with another configuration"). The value is written out
here, not imported, so that a later edit of the default cannot change what this migration wrote.
"""

from django.db import migrations

FAMILIES = ("dense", "monot5", "cross-encoder", "autoais", "clipscore", "llm")
MAX_BATCH_TOKENS = 16_384


def _hash(family: str, config: dict) -> str:
    from judges.identity import config_hash

    return config_hash(family=family, config=config)


def forwards(apps, schema_editor):
    Judge = apps.get_model("judges", "Judge")
    for judge in Judge.objects.filter(family__in=FAMILIES).order_by("id"):
        config = dict(judge.config or {})
        if "max_batch_tokens" in config:
            continue
        config["max_batch_tokens"] = MAX_BATCH_TOKENS
        digest = _hash(judge.family, config)
        # Should another judge of the campaign hold that hash already, this one keeps its own rather than break
        # the (campaign, config_hash) constraint.
        taken = Judge.objects.filter(campaign_id=judge.campaign_id, config_hash=digest).exclude(pk=judge.pk).exists()
        judge.config, judge.config_hash = config, judge.config_hash if taken else digest
        judge.save(update_fields=["config", "config_hash"])


class Migration(migrations.Migration):
    dependencies = [("judges", "0008_run_throughput")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
