"""Model endpoints: staff register OpenAI-compatible servers; researchers' llm and vlm judges name one.

Writes (endpoint_register, endpoint_remove, endpoint_keys_rotate) are staff's: the admin and the
`model_endpoint` management command call them. Reads answer two questions: which endpoints a researcher may
pick on a campaign (endpoints_usable), and, where a run starts and again where each batch runs, whether
this judge may use the endpoint it names and what the backend connects to (endpoint_connection). The
key is read only there, on the worker, and goes nowhere but the Authorization header of the endpoint's
own URL.
"""

import os
from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from annotate.models import Campaign
from judges.boundary import base_url_check
from judges.crypto import secret_decrypt, secret_encrypt, secret_opens_with_newest, secret_rotate
from judges.errors import JudgeConfigError
from judges.families import family_get
from judges.llm.backend import Connection
from judges.models import Judge, KeySource, ModelEndpoint

_ENV_NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def endpoints_usable(*, campaign: Campaign, user) -> list[ModelEndpoint]:
    """The enabled endpoints USER may pick for judges of CAMPAIGN, by name."""
    return list(ModelEndpoint.objects.usable(campaign=campaign, user=user).order_by("name"))


def endpoint_public(endpoint: ModelEndpoint) -> dict:
    """What researchers see of ENDPOINT (pages and the API): never the key nor the variable that holds it."""
    return {
        "name": endpoint.name,
        "base_url": endpoint.base_url,
        "models": list(endpoint.model_ids),
        "key": endpoint.key_source != KeySource.NONE,
        "max_concurrency": endpoint.max_concurrency,
        "price_per_1k_prompt_tokens": endpoint.price_per_1k_prompt_tokens,
        "price_per_1k_completion_tokens": endpoint.price_per_1k_completion_tokens,
        "notes": endpoint.notes,
    }


def _uses_endpoint(family: str, config: dict) -> bool:
    return getattr(family_get(family), "uses_endpoint", False) and config.get("backend") == "openai"


def endpoint_for_judge(*, family: str, config: dict, campaign: Campaign, user) -> ModelEndpoint | None:
    """The endpoint the judge's validated CONFIG names, checked for this CAMPAIGN and USER; None when it
    names none. JudgeConfigError when it does not exist, is switched off, is not granted here, does not
    serve the model, or allows less concurrency than the configuration asks."""
    if not _uses_endpoint(family, config) or not config.get("endpoint"):
        return None
    name = config["endpoint"]
    endpoint = ModelEndpoint.objects.usable(campaign=campaign, user=user).filter(name=name).first()
    if endpoint is None:
        usable = ", ".join(e.name for e in endpoints_usable(campaign=campaign, user=user)) or "none"
        raise JudgeConfigError(
            f"{family}: model endpoint {name!r} does not exist, is switched off, or is not granted to campaign "
            f"{campaign.slug!r}{'' if user is None else ' or to you'} (endpoints this campaign may use: {usable}); "
            "staff grant endpoints in the admin or with manage.py model_endpoint"
        )
    if endpoint.model_ids and config["model"] not in endpoint.model_ids:
        raise JudgeConfigError(f"{family}: model endpoint {name!r} serves {', '.join(endpoint.model_ids)}, not "
                               f"{config['model']!r}")
    return endpoint


def endpoint_concurrency_check(*, family: str, config: dict, endpoint: ModelEndpoint | None) -> None:
    if endpoint is not None and config["concurrency"] > endpoint.max_concurrency:
        raise JudgeConfigError(f"{family}: model endpoint {endpoint.name!r} allows at most {endpoint.max_concurrency} "
                               f"requests in flight, not concurrency {config['concurrency']}")


def endpoint_key(endpoint: ModelEndpoint) -> str:
    """ENDPOINT's API key, read where the request is sent (a worker). JudgeConfigError when it is not there;
    the message names neither the key nor the variable."""
    if endpoint.key_source == KeySource.STORED:
        return secret_decrypt(endpoint.key_encrypted)
    if endpoint.key_source == KeySource.ENV:
        key = os.environ.get(endpoint.key_env, "")
        if not key:
            raise JudgeConfigError(f"model endpoint {endpoint.name!r}: its key is not set in the environment of "
                                   "the worker that ran this batch; staff must set it where the workers run")
        return key
    return ""


def endpoint_connection(*, judge: Judge, config: dict, user) -> Connection | None:
    """Where the judge's openai backend connects, decided on the worker for each batch: the named endpoint
    (granted to the judge's campaign, or to a group of USER, who started the run) with its key, or a
    free-form base_url that JUDGE_ALLOWED_HOSTS allows (checked by the family) with no key at all. None for
    judges that connect to nothing. Only a registered endpoint whose staff switched show_bodies on lets
    failures quote what its server answered; a free-form URL never does."""
    if not _uses_endpoint(judge.family, config):
        return None
    endpoint = endpoint_for_judge(family=judge.family, config=config, campaign=judge.campaign, user=user)
    if endpoint is None:
        return Connection(base_url=config["base_url"])
    return Connection(base_url=endpoint.base_url, api_key=endpoint_key(endpoint),
                      max_concurrency=endpoint.max_concurrency, endpoint=endpoint.name,
                      show_bodies=endpoint.show_bodies)


def endpoint_prices(*, configs: list[dict]) -> dict[str, tuple[float, float]]:
    """endpoint name -> (price per 1,000 prompt tokens, per 1,000 completion tokens), for the endpoints CONFIGS name."""
    names = {config.get("endpoint") for config in configs if config and config.get("endpoint")}
    if not names:
        return {}
    rows = ModelEndpoint.objects.filter(name__in=names).values_list(
        "name", "price_per_1k_prompt_tokens", "price_per_1k_completion_tokens")
    return {name: (prompt, completion) for name, prompt, completion in rows}


def check_base_url(base_url: str) -> str:
    """BASE_URL stripped of its trailing slash, or JudgeConfigError when it is no http(s) URL with a host, or
    carries user info, a query or a fragment (judges.boundary.base_url_check)."""
    return base_url_check(base_url, what="base URL")


def check_env_name(name: str) -> str:
    if not name or name[0].isdigit() or not set(name) <= _ENV_NAME_CHARS:
        raise JudgeConfigError(f"the key's environment variable must be a name such as OPENAI_API_KEY, not {name!r}")
    return name


@transaction.atomic
def endpoint_register(
    *, name: str, base_url: str, model_ids: list[str] | None = None, key: str | None = None, key_env: str = "",
    max_concurrency: int = 4, price_per_1k_prompt_tokens: float = 0.0, price_per_1k_completion_tokens: float = 0.0,
    all_campaigns: bool = False, campaigns: list[Campaign] = (), groups=(), enabled: bool = True, notes: str = "",
    show_bodies: bool = False,
) -> ModelEndpoint:
    """Create endpoint NAME, or update it (its grants are added to). KEY: stored encrypted; KEY_ENV: the
    workers' environment variable holding the key; neither: a server that needs none. SHOW_BODIES: failures
    of judges using it quote the start of what the server answered (debugging). Staff only."""
    if key and key_env:
        raise JudgeConfigError("give the key or the name of its environment variable, not both")
    if max_concurrency < 1:
        raise JudgeConfigError(f"max concurrency must be at least 1, not {max_concurrency}")
    if price_per_1k_prompt_tokens < 0 or price_per_1k_completion_tokens < 0:
        raise JudgeConfigError("prices must not be negative")
    endpoint = ModelEndpoint.objects.filter(name=name).first() or ModelEndpoint(name=name)
    endpoint.base_url = check_base_url(base_url)
    if model_ids is not None:
        endpoint.model_ids = [m.strip() for m in model_ids if m.strip()]
    if key:
        endpoint.key_source, endpoint.key_encrypted, endpoint.key_env = KeySource.STORED, secret_encrypt(key), ""
    elif key_env:
        endpoint.key_source, endpoint.key_encrypted, endpoint.key_env = KeySource.ENV, "", check_env_name(key_env)
    elif endpoint._state.adding:
        endpoint.key_source = KeySource.NONE
    endpoint.max_concurrency = max_concurrency
    endpoint.price_per_1k_prompt_tokens = price_per_1k_prompt_tokens
    endpoint.price_per_1k_completion_tokens = price_per_1k_completion_tokens
    endpoint.all_campaigns = all_campaigns or endpoint.all_campaigns
    endpoint.enabled = enabled
    endpoint.show_bodies = show_bodies
    endpoint.notes = notes or endpoint.notes
    try:
        endpoint.full_clean(exclude=["campaigns", "groups"])
    except ValidationError as exc:
        raise JudgeConfigError("; ".join(f"{field}: {' '.join(errors)}"
                                         for field, errors in exc.message_dict.items())) from None
    endpoint.save()
    endpoint.campaigns.add(*campaigns)
    endpoint.groups.add(*groups)
    return endpoint


def endpoint_keys_rotate_from(*, old_keys: Sequence[str]) -> tuple[int, list[str]]:
    """Re-encrypt with the newest of ENDPOINT_ENCRYPTION_KEYS every stored key that it does not open but one of the
    configured keys or OLD_KEYS does (a key no longer configured: derived_key of an earlier SECRET_KEY); the keys
    it already opens are left as they are. Returns how many were re-encrypted and the names of the endpoints whose
    stored key no key opens (staff must store those again). Run at every start of the default install."""
    count, unreadable = 0, []
    with transaction.atomic():
        for endpoint in ModelEndpoint.objects.select_for_update().filter(key_source=KeySource.STORED).order_by("name"):
            if secret_opens_with_newest(endpoint.key_encrypted):
                continue
            try:
                endpoint.key_encrypted = secret_rotate(endpoint.key_encrypted, old_keys=old_keys)
            except JudgeConfigError:
                unreadable.append(endpoint.name)
                continue
            endpoint.save(update_fields=["key_encrypted", "updated_at"])
            count += 1
    return count, unreadable


def endpoint_keys_rotate() -> int:
    """Re-encrypt every stored key with the newest of ENDPOINT_ENCRYPTION_KEYS; returns how many."""
    count = 0
    with transaction.atomic():
        for endpoint in ModelEndpoint.objects.select_for_update().filter(key_source=KeySource.STORED):
            endpoint.key_encrypted = secret_rotate(endpoint.key_encrypted)
            endpoint.save(update_fields=["key_encrypted", "updated_at"])
            count += 1
    return count
