"""What an operator lets a judge's configuration reach: hosts, model folders, and how much one run may ask for.

A researcher writes a judge's configuration; the workers run it with their own network and file system.
Three settings draw the line (DESIGN.md §4, security; the README's production section):

- JUDGE_ALLOWED_HOSTS: the hosts a free-form `base_url` may name (Django's ALLOWED_HOSTS patterns: "*",
  "host", ".domain"). Registered model endpoints (judges.endpoints) are staff's and need no entry. A
  free-form URL never gets an API key.
- JUDGE_MODEL_DIRS: the folders under which a local model folder may lie ("*": anywhere). A model named by
  a hub id ("org/name") is then read only from the local Hugging Face cache, never from a folder of that
  name relative to the worker's working directory.
- JUDGE_LIMITS: upper bounds of the options that cost a shared worker memory, threads or time.

Messages name the setting and never say whether a refused path exists: a refusal discloses nothing of the
workers' file system.
"""

import re
from pathlib import Path

from django.conf import settings
from django.http.request import validate_host

from judges.errors import JudgeConfigError

# A Hugging Face model id: "name" or "owner/name", letters, digits, ".", "_" and "-", no "..".
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}(/[A-Za-z0-9][A-Za-z0-9._-]{0,95})?$")

# Defaults of JUDGE_LIMITS (settings may lower or raise any of them).
DEFAULT_LIMITS = {
    "batch_size": 256,  # pairs or prompts per forward pass / generate() call
    "max_length": 8192,  # tokens per pair
    "n": 20,  # samples per item
    "num_beams": 16,
    "max_new_tokens": 4096,
    "concurrency": 32,  # HTTP requests in flight per batch
    "timeout": 600,  # seconds per HTTP request
    "max_retries": 10,
    "image_max_side": 4096,  # pixels
    "field_max_chars": 100_000,
    "text_chars": 100_000,  # every text option (an instruction, a template)
    "list_items": 64,  # every list option (worked examples)
    "run_batch_size": 10_000,  # items per Celery task
}


def limits() -> dict[str, int]:
    return {**DEFAULT_LIMITS, **(getattr(settings, "JUDGE_LIMITS", None) or {})}


def limit(name: str) -> int:
    return limits()[name]


def config_limits_check(family: str, config: dict) -> None:
    """Refuse a configuration asking more than JUDGE_LIMITS allows: numbers above their bound, texts and lists
    longer than text_chars and list_items."""
    bounds = limits()
    for key, value in config.items():
        if isinstance(value, bool):
            continue
        if isinstance(value, (int, float)) and key in bounds and value > bounds[key]:
            raise JudgeConfigError(f"{family}: {key} must be at most {bounds[key]:g} on this installation (the "
                                   f"JUDGE_LIMITS setting), not {value:g}")
        if isinstance(value, str) and len(value) > bounds["text_chars"]:
            raise JudgeConfigError(f"{family}: {key} is {len(value):,} characters; at most {bounds['text_chars']:,} "
                                   "on this installation (JUDGE_LIMITS text_chars)")
        if isinstance(value, (list, dict)) and len(value) > bounds["list_items"]:
            raise JudgeConfigError(f"{family}: {key} has {len(value):,} entries; at most {bounds['list_items']} on "
                                   "this installation (JUDGE_LIMITS list_items)")


def url_host_check(family: str, url: str) -> None:
    """Refuse a free-form base_url whose host JUDGE_ALLOWED_HOSTS does not list."""
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url.strip()).hostname or "").lower()
    except ValueError:
        host = ""
    if not host:
        raise JudgeConfigError(f"{family}: base_url {url!r} names no host")
    allowed = list(getattr(settings, "JUDGE_ALLOWED_HOSTS", []) or [])
    if not validate_host(host, allowed):
        shown = ", ".join(allowed) if allowed else "empty"
        raise JudgeConfigError(
            f"{family}: base_url host {host!r} is not allowed on this installation: a free-form URL may only name a "
            f"host listed in the JUDGE_ALLOWED_HOSTS setting ({shown}). Pick a model endpoint that staff registered "
            "(the endpoint option) instead"
        )


def _model_dirs() -> list[str]:
    return list(getattr(settings, "JUDGE_MODEL_DIRS", []) or [])


def models_open() -> bool:
    """True when any local folder may be loaded (JUDGE_MODEL_DIRS holds "*": the development default)."""
    return "*" in _model_dirs()


def is_hub_id(model: str) -> bool:
    return bool(_HUB_ID.match(model)) and ".." not in model


def model_check(family: str, model: str) -> None:
    """Refuse a MODEL that is neither a hub id nor a folder under one of JUDGE_MODEL_DIRS.

    The answer is the same whether or not the folder exists, and shows only what the researcher wrote.
    """
    if models_open() or is_hub_id(model):
        return
    refused = JudgeConfigError(
        f"{family}: model {model!r} is not allowed on this installation: a local model folder must be an absolute "
        "path under one of the folders listed in the JUDGE_MODEL_DIRS setting; otherwise name a model of the local "
        "Hugging Face cache by its id (owner/name)"
    )
    if not model.startswith("/") or "\x00" in model:
        raise refused
    resolved = Path(model).resolve()
    for folder in _model_dirs():
        root = Path(folder).resolve()
        if resolved == root or root in resolved.parents:
            return
    raise refused


def model_location(family: str, model: str) -> str:
    """Where MODEL is loaded from: itself when folders are open or it is an allowed folder; for a hub id under
    closed folders, its snapshot in the local Hugging Face cache (never a folder of that name in the worker's
    working directory). JudgeConfigError when the cache has no copy."""
    model_check(family, model)
    if models_open() or not is_hub_id(model):
        return model
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return snapshot_download(repo_id=model, local_files_only=True)
    except (LocalEntryNotFoundError, ValueError, OSError):
        raise JudgeConfigError(
            f"{family}: model {model!r} is not in the workers' local Hugging Face cache; judges never download "
            "models: ask staff to place it in the cache or under a folder of JUDGE_MODEL_DIRS"
        ) from None
