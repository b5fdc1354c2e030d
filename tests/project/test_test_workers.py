"""config.test_workers: each pytest-xdist process gets its own Redis databases and SQLite broker, once."""

import pytest

from config.test_workers import redis_database_shift, worker_environment_isolate


def test_a_second_process_gets_the_next_two_redis_databases_down_and_a_started_process_keeps_them():
    environ = {"PYTEST_XDIST_WORKER": "gw1", "CELERY_BROKER_URL": "redis://127.0.0.1:6379/15",
               "CACHE_URL": "redis://127.0.0.1:6379/14"}
    assert worker_environment_isolate(environ) == "gw1"
    assert environ["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/13"
    assert environ["CACHE_URL"] == "redis://127.0.0.1:6379/12"
    inherited = dict(environ)  # what a process the test starts receives: not moved again
    assert worker_environment_isolate(inherited) == "gw1"
    assert inherited == environ


def test_the_first_process_keeps_the_given_databases_and_the_embedded_broker_gets_a_file_of_its_own():
    environ = {"PYTEST_XDIST_WORKER": "gw0", "CACHE_URL": "redis://127.0.0.1:6379/14"}
    worker_environment_isolate(environ)
    assert environ["CACHE_URL"] == "redis://127.0.0.1:6379/14"
    assert environ["CELERY_BROKER_URL"].startswith("sqla+sqlite:///")
    assert environ["CELERY_BROKER_URL"].endswith("/var/celery-broker-gw0.sqlite3")


def test_outside_pytest_xdist_nothing_changes():
    environ = {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/15"}
    assert worker_environment_isolate(environ) == ""
    assert environ == {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/15"}


def test_other_urls_are_left_alone_and_too_many_processes_are_refused():
    assert redis_database_shift("locmemcache://", by=4) == "locmemcache://"
    assert redis_database_shift("amqp://guest@127.0.0.1//", by=2) == "amqp://guest@127.0.0.1//"
    assert redis_database_shift("redis://127.0.0.1:6379", by=0) == "redis://127.0.0.1:6379"
    with pytest.raises(ValueError, match="too many test processes"):
        redis_database_shift("redis://127.0.0.1:6379/3", by=4)
