"""Production: every secret from the environment, no defaults; HTTPS assumed at the proxy."""

from django.core.exceptions import ImproperlyConfigured

from config.caches import cache_shared, cache_with_kept_clients, session_engine
from config.databases import tokens_database_add

from .base import *  # noqa: F401,F403
from .base import MIDDLEWARE, env

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS")
DATABASES = {"default": env.db("DATABASE_URL")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
# A kept connection is checked before each request reuses it: after a database restart the first request
# opens a new one instead of failing on the dead one.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
tokens_database_add(DATABASES)  # on SQLite only: the API tokens' own file beside the database's
CELERY_BROKER_URL = env("CELERY_BROKER_URL")
# Sign-in failures and the password-change flag are counted in the cache: every web process must share it.
CACHES = {"default": cache_with_kept_clients(env.cache("CACHE_URL"))}
CACHE_SHARED = cache_shared(CACHES)
SESSION_ENGINE = session_engine(CACHES)
if not CACHE_SHARED:
    raise ImproperlyConfigured(
        "CACHE_URL must name a cache the web processes share (redis://..., memcached), not a per-process one: "
        "sign-in throttling counts there"
    )

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
# SECURE_COOKIES=false only for load and fault tests over plain HTTP on 127.0.0.1 (clients do not send secure
# cookies to http:// addresses); check --deploy warns when it is off.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=True)
X_FRAME_OPTIONS = "DENY"
MIDDLEWARE = list(MIDDLEWARE)
