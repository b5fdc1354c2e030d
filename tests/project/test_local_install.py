"""The default install's secrets and files (issue 48, item 5): keys of its own made on the first start, var/ 0700,
its databases 0600, DEBUG off, and no warning of `check --deploy` that a single machine could avoid.

The keys and modes are made by config.local_install.local_install_secure, which config.settings.local calls in every
process (scripts/serve's first command makes them); the tests call it on a folder of their own. The settings
themselves are read in a subprocess with no environment, as a fresh install reads them.
"""

import json
import os
import re
import sqlite3
import stat
import subprocess
import sys

import pytest
from cryptography.fernet import Fernet

from config.local_install import OLD_DEVELOPMENT_SECRET_KEY, local_install_secure
from tests.judges_support import ROOT


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def open_umask():
    """The umask of most accounts (022): what is not made private on purpose is readable by everyone."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_the_first_start_makes_private_keys_of_its_own(tmp_path, open_umask):
    var = tmp_path / "var"
    database, broker = var / "concord.sqlite3", var / "celery-broker.sqlite3"
    keys = local_install_secure(var_dir=var, databases=[database, broker])
    assert _mode(var) == 0o700
    assert _mode(var / "secret_key") == _mode(var / "endpoint_key") == 0o600
    assert _mode(database) == _mode(broker) == 0o600
    assert len(keys.secret_key) >= 50 and len(set(keys.secret_key)) >= 5
    assert keys.secret_key != OLD_DEVELOPMENT_SECRET_KEY
    Fernet(keys.endpoint_key)  # a Fernet key
    assert keys.endpoint_key != keys.secret_key
    # SQLite writes into the empty file made for it, in WAL mode as the settings ask, and its -wal and -shm files
    # take the database's mode.
    with sqlite3.connect(database) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE t (x)")
        connection.execute("INSERT INTO t VALUES (1)")
        assert {path.name: _mode(path) for path in var.glob("concord.sqlite3*")} == {
            "concord.sqlite3": 0o600, "concord.sqlite3-wal": 0o600, "concord.sqlite3-shm": 0o600}
    # Every later start reads the same keys; another install has others.
    assert local_install_secure(var_dir=var, databases=[database]) == keys
    other = local_install_secure(var_dir=tmp_path / "other", databases=[])
    assert other.secret_key != keys.secret_key and other.endpoint_key != keys.endpoint_key


def test_an_install_made_before_is_made_private(tmp_path, open_umask):
    """var/ 0755 and a database 0644 with its -wal file, as every install before issue 48 had them."""
    var = tmp_path / "var"
    var.mkdir(mode=0o755)
    database = var / "concord.sqlite3"
    for path in (database, var / "concord.sqlite3-wal"):
        path.write_bytes(b"")
        path.chmod(0o644)
    local_install_secure(var_dir=var, databases=[database])
    assert _mode(var) == 0o700
    assert _mode(database) == _mode(var / "concord.sqlite3-wal") == 0o600


PROBE = """
import json
import re
from django.conf import settings
print(json.dumps({"DEBUG": settings.DEBUG, "SECRET_KEY": settings.SECRET_KEY,
                  "ENDPOINT_ENCRYPTION_KEYS": settings.ENDPOINT_ENCRYPTION_KEYS}))
"""


def _manage(*args, home):
    """manage.py under config.settings.local with no environment at all, as a fresh install runs it."""
    return subprocess.run([sys.executable, str(ROOT / "manage.py"), *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)})


def test_the_default_install_has_debug_off_and_its_own_keys(tmp_path):
    result = _manage("shell", "-c", PROBE, home=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    said = json.loads(result.stdout.strip().splitlines()[-1])
    assert said["DEBUG"] is False
    var = ROOT / "var"
    assert said["SECRET_KEY"] == (var / "secret_key").read_text().strip() != OLD_DEVELOPMENT_SECRET_KEY
    assert said["ENDPOINT_ENCRYPTION_KEYS"] == [(var / "endpoint_key").read_text().strip()]
    assert _mode(var) == 0o700 and _mode(var / "secret_key") == 0o600
    # The API tokens' own SQLite file (config.databases) is as private as the main one.
    assert _mode(var / "concord.sqlite3") == _mode(var / "tokens-concord.sqlite3") == 0o600


def test_check_deploy_on_the_default_install_warns_only_of_what_needs_https(tmp_path):
    """Plain HTTP on 127.0.0.1 cannot have HSTS (W004), a redirect to HTTPS (W008) or cookies sent only over HTTPS
    (W012, W016); nothing else is left (DEBUG, SECRET_KEY, X-Frame-Options, ...)."""
    result = _manage("check", "--deploy", home=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    warnings = sorted(set(re.findall(r"\((security\.W\d+)\)", result.stdout + result.stderr)))
    assert warnings == ["security.W004", "security.W008", "security.W012", "security.W016"], result.stdout
