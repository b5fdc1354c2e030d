"""Secrets that older judge configurations held (an API key, the name of the variable holding one).

Keys live in model endpoints now (judges.models.ModelEndpoint, encrypted or in the workers' environment),
and migration 0004 moved every configuration's key there. These helpers stay as the last line: should a
configuration still carry one (an archive written by an older Concord), no page, API answer, report,
archive or identity shows it.
"""

SECRET_KEYS = frozenset({"api_key", "api_key_env"})
MASK = "***"


def config_public(config: dict) -> dict:
    """CONFIG with every non-empty secret replaced by MASK: what pages, the API and reports show."""
    return {key: (MASK if key in SECRET_KEYS and value else value) for key, value in (config or {}).items()}


def config_identity(config: dict) -> dict:
    """CONFIG without its secrets: what the judge's identity hash is computed from, and what archives keep."""
    return {key: value for key, value in (config or {}).items() if key not in SECRET_KEYS}
