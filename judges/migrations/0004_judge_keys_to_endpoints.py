"""Move every llm and vlm judge's connection out of its configuration and into model endpoints.

Before this, a judge's configuration held base_url, api_key (or api_key_env, the name of ANY environment
variable of the workers) and prices. Each distinct (base_url, key, variable, prices) of the openai backend
becomes one endpoint named "migrated-N", granted to the campaigns of the judges that used it, with a stored
key encrypted (judges.crypto) and the variable kept as staff's choice. They are created switched off:
staff review each one (the URL and the variable were a researcher's choice) and switch it on in the admin.
Every configuration loses api_key, api_key_env and the prices; an openai one names its endpoint; the
judge's identity hash is recomputed. Judgments stay with their judge.
"""

import json

from django.db import migrations

RETIRED = ("api_key", "api_key_env", "price_per_1k_prompt_tokens", "price_per_1k_completion_tokens")
FAMILIES = ("llm", "vlm")


def config_split(config: dict) -> tuple[dict, tuple | None]:
    """(the configuration as it is now written, the endpoint it used as a hashable spec or None).

    spec = (base_url, api_key, api_key_env, prompt price, completion price) for the openai backend.
    """
    new = {key: value for key, value in config.items() if key not in RETIRED}
    new.setdefault("endpoint", "")
    if config.get("backend") != "openai":
        new["base_url"] = ""
        return new, None
    spec = (
        str(config.get("base_url") or "").strip().rstrip("/"),
        str(config.get("api_key") or ""),
        "" if config.get("api_key") else str(config.get("api_key_env") or "OPENAI_API_KEY"),
        float(config.get("price_per_1k_prompt_tokens") or 0.0),
        float(config.get("price_per_1k_completion_tokens") or 0.0),
    )
    new["base_url"] = ""
    return new, spec


def _hash(family: str, config: dict) -> str:
    from judges.identity import config_hash

    return config_hash(family=family, config=config)


def forwards(apps, schema_editor):
    from judges.crypto import secret_encrypt

    Judge = apps.get_model("judges", "Judge")
    ModelEndpoint = apps.get_model("judges", "ModelEndpoint")
    endpoints: dict[tuple, object] = {}
    for judge in Judge.objects.filter(family__in=FAMILIES).order_by("id"):
        config, spec = config_split(judge.config or {})
        if spec is not None:
            endpoint = endpoints.get(spec)
            if endpoint is None:
                base_url, key, key_env, prompt_price, completion_price = spec
                endpoint = ModelEndpoint.objects.create(
                    name=f"migrated-{len(endpoints) + 1}", base_url=base_url or "http://invalid.invalid/v1",
                    key_source="stored" if key else "env", key_encrypted=secret_encrypt(key) if key else "",
                    key_env=key_env, price_per_1k_prompt_tokens=prompt_price,
                    price_per_1k_completion_tokens=completion_price, enabled=False, model_ids=[],
                    notes=f"Moved out of judge {judge.name!r}'s configuration by migration 0004: review the URL "
                          "and the key, then switch it on.",
                )
                endpoints[spec] = endpoint
            endpoint.campaigns.add(judge.campaign_id)
            model = config.get("model")
            if model and model not in endpoint.model_ids:
                endpoint.model_ids = [*endpoint.model_ids, model]
                endpoint.save(update_fields=["model_ids"])
            config["endpoint"] = endpoint.name
        judge.config = json.loads(json.dumps(config))
        digest = _hash(judge.family, config)
        # Two judges of a campaign that differed only in a key or a price now read alike: the later one keeps
        # its old hash rather than break the (campaign, config_hash) constraint.
        taken = Judge.objects.filter(campaign_id=judge.campaign_id, config_hash=digest).exclude(pk=judge.pk).exists()
        judge.config_hash = judge.config_hash if taken else digest
        judge.save(update_fields=["config", "config_hash"])


class Migration(migrations.Migration):
    dependencies = [("judges", "0003_model_endpoints")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
