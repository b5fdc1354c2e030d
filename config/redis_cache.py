"""Django's Redis cache with one redis.Redis client per connection pool, made once.

Django's RedisCacheClient makes a new redis.Redis for every cache call (get_client), and redis.Redis's constructor
fills a table of about 170 reply handlers each time: 0.15-0.2 ms of CPU a call, and a request of the annotation page
makes three or four calls (its session, its user, the password-change flag). A client holds no connection of its
own (it takes one from the pool for each command and gives it back), so one per pool serves every call, in any
thread. Settings name this backend wherever CACHE_URL names Redis (config.caches.cache_with_kept_clients)."""

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class _ClientPerPool(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict = {}  # connection pool -> its client

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(pool)
        if client is None:
            client = self._clients.setdefault(pool, self._client(connection_pool=pool))
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _ClientPerPool
