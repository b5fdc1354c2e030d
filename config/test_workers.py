"""One test process's own broker, cache and SQLite broker file when pytest-xdist runs the suite in several processes.

pytest-xdist names each process in PYTEST_XDIST_WORKER (gw0, gw1, ...); pytest-django gives each its own test
database. What the environment names is shared, so it is rewritten here, once per process, before the settings read
it: Redis database numbers count down by two per process from the ones given (CI gives the broker 15 and the cache 14:
gw0 keeps them, gw1 gets 13 and 12, ...), and the embedded broker's file gets the process's name. CONCORD_TEST_WORKER
records that it was done, so a process a test starts (which inherits the environment) is not moved again.
"""

from collections.abc import MutableMapping
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REDIS_SCHEMES = ("redis", "rediss")
REDIS_DATABASES = 16  # a Redis server's default number of databases
VAR_DIR = Path(__file__).resolve().parent.parent / "var"


def worker_environment_isolate(environ: MutableMapping[str, str]) -> str:
    """Rewrite ENVIRON for this pytest-xdist process (once); return its name ("" outside pytest-xdist)."""
    worker = environ.get("PYTEST_XDIST_WORKER", "")
    if not worker or environ.get("CONCORD_TEST_WORKER") == worker:
        return worker
    index = int(worker.removeprefix("gw"))
    for name in ("CELERY_BROKER_URL", "CACHE_URL"):
        if name in environ:
            environ[name] = redis_database_shift(environ[name], by=2 * index)
    if "CELERY_BROKER_URL" not in environ:
        environ["CELERY_BROKER_URL"] = f"sqla+sqlite:///{VAR_DIR / f'celery-broker-{worker}.sqlite3'}"
    environ["CONCORD_TEST_WORKER"] = worker
    return worker


def redis_database_shift(url: str, *, by: int) -> str:
    """URL with its Redis database number lowered BY (other URLs unchanged); ValueError past database 0."""
    parts = urlsplit(url)
    if parts.scheme not in REDIS_SCHEMES or by == 0:
        return url
    number = int(parts.path.strip("/") or 0) - by
    if not 0 <= number < REDIS_DATABASES:
        raise ValueError(f"too many test processes for the Redis databases below {url}")
    return urlunsplit(parts._replace(path=f"/{number}"))
