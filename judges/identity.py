"""A judge's identity: the hash of its family and configuration, and the lookup that honours it."""

import hashlib
import json

from django.db import transaction

from annotate.models import Campaign
from judges.errors import JudgeConfigError
from judges.models import Judge
from judges.secrets import config_identity

__all__ = ["JudgeConfigError", "config_hash", "judge_get_or_create"]


def config_hash(*, family: str, config: dict) -> str:
    """The judge's identity. Secrets (an API key) are not part of it: a new key is the same judge."""
    canonical = json.dumps({"family": family, "config": config_identity(config)}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def config_changes(first: dict, second: dict) -> list[dict]:
    """The settings whose values differ between two judges' configurations (secrets left out), in key order:
    [{"key", "a", "b"}], a value None where that configuration has no such setting."""
    first, second = config_identity(first), config_identity(second)
    return [{"key": key, "a": first.get(key), "b": second.get(key)} for key in sorted(first.keys() | second.keys())
            if first.get(key) != second.get(key)]


def judge_get_or_create(*, campaign: Campaign, name: str, family: str, config: dict) -> Judge:
    """The campaign's judge NAME with this family and configuration, created when missing.

    A name already used with another configuration is an error: the same name must always mean
    the same virtual annotator, or cached judgments would be attributed to the wrong one. The report lists every
    judge: the caller's transaction ends with the campaign's next data version (judges.services.judge_run_start,
    interchange.importers.service.import_run).
    """
    digest = config_hash(family=family, config=config)
    with transaction.atomic():
        judge = Judge.objects.filter(campaign=campaign, name=name).first()
        if judge is not None:
            if judge.config_hash != digest:
                raise JudgeConfigError(
                    f"judge {name!r} already exists in campaign {campaign.slug!r} with another configuration "
                    f"(family {judge.family}); choose a new name"
                )
            if judge.config != config:  # same identity, another secret (a rotated API key): keep the new one
                judge.config = config
                judge.save(update_fields=["config"])
            return judge
        same_config = Judge.objects.filter(campaign=campaign, config_hash=digest).first()
        if same_config is not None:
            raise JudgeConfigError(
                f"judge {same_config.name!r} in campaign {campaign.slug!r} already has this configuration; "
                f"use that name"
            )
        return Judge.objects.create(campaign=campaign, name=name, family=family, config=config, config_hash=digest)
