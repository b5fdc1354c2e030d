"""config.redis_cache: Django's Redis cache with one redis.Redis client per connection pool, made once; the settings
name it wherever CACHE_URL names Redis (config.caches.cache_with_kept_clients)."""

import uuid

import pytest
import redis

from config.caches import KEPT_CLIENTS_REDIS, cache_with_kept_clients
from config.redis_cache import RedisCache

REDIS_URL = "redis://127.0.0.1:6379/10"


def _redis_answers() -> bool:
    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


def test_the_settings_swap_django_s_redis_backend_and_leave_the_others():
    assert cache_with_kept_clients({"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "x"}) \
        == {"BACKEND": KEPT_CLIENTS_REDIS, "LOCATION": "x"}
    for backend in ("django.core.cache.backends.locmem.LocMemCache", "django.core.cache.backends.db.DatabaseCache"):
        assert cache_with_kept_clients({"BACKEND": backend}) == {"BACKEND": backend}


@pytest.mark.skipif(not _redis_answers(), reason="no Redis on 127.0.0.1:6379")
def test_the_cache_answers_as_django_s_with_one_client_for_every_call():
    cache = RedisCache(REDIS_URL, {"KEY_PREFIX": uuid.uuid4().hex, "TIMEOUT": 60})
    try:
        assert cache.get("missing", "default") == "default"
        cache.set("flag", {"change": True})
        assert cache.add("flag", "other") is False and cache.get("flag") == {"change": True}
        cache.set("count", 1)
        assert cache.incr("count") == 2
        assert cache.get_many(["flag", "count"]) == {"flag": {"change": True}, "count": 2}
        cache.delete_many(["flag", "count"])
        assert cache.get("flag") is None
        clients = {id(cache._cache.get_client(key, write=write)) for key in ("a", "b") for write in (False, True)}
        assert len(clients) == 1  # one server: one pool, one client for reads and writes alike
    finally:
        cache.delete_many(["flag", "count"])
        cache.close()
