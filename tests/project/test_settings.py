"""Settings: production passes Django's deployment checks; no CELERY_* name is a typo."""

import os
import subprocess
import sys
import time

import pytest
from celery.app.defaults import DEFAULTS
from django.conf import settings


def test_every_celery_setting_is_a_name_celery_knows():
    # A typo such as CELERT_TASK_TIME_LIMIT or CELERY_TASK_TIMELIMIT would silently disable a limit.
    known = {key.replace(".", "_").upper() for key in DEFAULTS}
    ours = {name.removeprefix("CELERY_") for name in dir(settings) if name.startswith("CELERY_")}
    unknown = sorted(ours - known)
    assert unknown == [], f"unknown Celery settings: {unknown}"
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_SERIALIZER == "json" and settings.CELERY_ACCEPT_CONTENT == ["json"]
    assert settings.CELERY_TASK_TIME_LIMIT > settings.CELERY_TASK_SOFT_TIME_LIMIT > 0


def _run_manage(args, env_overrides):
    # The browser fixture sets DJANGO_ALLOW_ASYNC_UNSAFE for the test process; a deployed process never has it.
    dropped = ("DATABASE_URL", "SECRET_KEY", "DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE", "CACHE_URL")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=settings.BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_check_deploy():
    result = _run_manage(
        ["check", "--deploy", "--fail-level", "WARNING"],
        {
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": "x" * 20 + "production-secret-with-enough-entropy-1234567890",
            "ALLOWED_HOSTS": "concord.example.org",
            "DATABASE_URL": "sqlite:////tmp/concord-check.sqlite3",
            "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0",
            "CACHE_URL": "filecache:///tmp/concord-check-cache",
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_refuse_to_start_without_a_secret_key():
    result = _run_manage(
        ["check"],
        {"DJANGO_SETTINGS_MODULE": "config.settings.production", "ALLOWED_HOSTS": "x", "DATABASE_URL": "sqlite:////tmp/c.sqlite3",
         "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0", "CACHE_URL": "filecache:///tmp/concord-check-cache"},
    )
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


@pytest.mark.parametrize(("cache_url", "message"), [
    (None, "Set the CACHE_URL environment variable"),
    ("locmemcache://", "CACHE_URL must name a cache the web processes share"),
])
def test_production_settings_refuse_to_start_without_a_shared_cache(cache_url, message):
    env = {"DJANGO_SETTINGS_MODULE": "config.settings.production", "ALLOWED_HOSTS": "x",
           "SECRET_KEY": "x" * 60, "DATABASE_URL": "sqlite:////tmp/c.sqlite3", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/0"}
    if cache_url:
        env["CACHE_URL"] = cache_url
    result = _run_manage(["check"], env)
    assert result.returncode != 0 and message in result.stderr


def test_embedded_broker_polls_every_tenth_of_a_second(tmp_path):
    from config.broker import Transport
    from config.celery import app

    with app.connection_for_write(f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}") as connection:
        assert isinstance(connection.transport, Transport)
        assert connection.transport.polling_interval == 0.1
        assert (
            connection.default_channel is not None
        )  # opens the engine: the stock options still reach create_engine intact


def test_embedded_broker_channel_is_safe_across_threads(tmp_path):
    """A worker's consumer polls while its pool's result thread puts a lost batch back: no message is lost."""
    import threading

    from kombu import Connection
    from kombu.transport.virtual import Empty

    from config.broker import Transport

    n = 300
    # Without the app's transport options, which name Redis's visibility_timeout when the suite runs on Redis.
    with Connection(f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}") as connection:
        assert isinstance(connection.transport, Transport)
        channel = connection.default_channel
        channel._new_queue("q")
        errors, received = [], []

        def put():
            try:
                for i in range(n):
                    channel._put("q", {"n": i})
            except Exception as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)

        def get():
            deadline = time.monotonic() + 60
            try:
                while len(received) < n and time.monotonic() < deadline:
                    try:
                        received.append(channel._get("q")["n"])
                    except Empty:
                        pass
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=put), threading.Thread(target=get)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    assert sorted(received) == list(range(n))
