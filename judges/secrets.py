"""Secrets inside judge configurations (an LLM endpoint's API key): kept out of identities, pages and the API.

A key is a credential, not a property of the virtual annotator: changing it must not make a new judge,
and no page, API response, log line or report may show it. Prefer `api_key_env` (the name of an
environment variable of the workers) to a key stored in the configuration.
"""

SECRET_KEYS = frozenset({"api_key"})
MASK = "***"


def config_public(config: dict) -> dict:
    """CONFIG with every non-empty secret replaced by MASK: what pages, the API and reports show."""
    return {key: (MASK if key in SECRET_KEYS and value else value) for key, value in (config or {}).items()}


def config_identity(config: dict) -> dict:
    """CONFIG without its secrets: what the judge's identity hash is computed from."""
    return {key: value for key, value in (config or {}).items() if key not in SECRET_KEYS}


def text_redact(text: str, config: dict) -> str:
    """TEXT with the configuration's secret values masked (for error messages built from responses)."""
    for key in SECRET_KEYS:
        secret = (config or {}).get(key)
        if isinstance(secret, str) and secret:
            text = text.replace(secret, MASK)
    return text
