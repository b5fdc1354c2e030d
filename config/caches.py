"""Which cache the web processes share, and what is kept there when they do."""

# Backends that live in one process's memory (or keep nothing): what one process writes there, the others never see.
_PER_PROCESS = ("LocMemCache", "DummyCache")
DJANGO_REDIS = "django.core.cache.backends.redis.RedisCache"
KEPT_CLIENTS_REDIS = "config.redis_cache.RedisCache"


def cache_with_kept_clients(cache: dict) -> dict:
    """CACHE (a CACHES entry) with Django's Redis backend swapped for ours, which keeps its Redis clients
    (config.redis_cache); any other backend as it is."""
    return {**cache, "BACKEND": KEPT_CLIENTS_REDIS} if cache["BACKEND"] == DJANGO_REDIS else cache


def cache_shared(caches: dict) -> bool:
    """Whether CACHES' default cache is one every web process shares (redis://..., memcached, a folder), not a
    process's own memory."""
    return caches["default"]["BACKEND"].rsplit(".", 1)[-1] not in _PER_PROCESS


def session_engine(caches: dict) -> str:
    """Sessions are read from a shared cache and written through to the database (Django's cached_db: a request
    reads its session without a query); with a per-process cache they stay in the database alone, since a session
    signed out in one process would live on in the others' memory."""
    if cache_shared(caches):
        return "django.contrib.sessions.backends.cached_db"
    return "django.contrib.sessions.backends.db"
