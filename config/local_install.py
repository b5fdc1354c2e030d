"""The default install's own secrets and private files (config.settings.local; issue 48).

Until issue 48 every default install had the same SECRET_KEY, a constant in config/settings/local.py, and the
endpoints' stored API keys were encrypted with a key derived from it; var/ and its database were readable by every
account of the machine (a local user read a session key from var/concord.sqlite3 and was signed in as researcher).
Now the first process that reads the local settings (scripts/serve's first command) makes two random keys, each in a
file of its own that only the install's account may read, and every later one reads them:

- var/secret_key: the SECRET_KEY (sessions, CSRF, one-time links, password reset);
- var/endpoint_key: the Fernet key that encrypts the model endpoints' stored API keys (ENDPOINT_ENCRYPTION_KEYS),
  apart from SECRET_KEY so that either can be replaced alone.

var/ is made 0700 and the SQLite databases in it 0600 (made so before SQLite writes a byte: SQLite gives its -wal
and -shm files the database's mode). No account but the install's can list var/, open a database or read a key.
"""

import base64
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path

# The SECRET_KEY every default install had before issue 48. Stored endpoint keys encrypted with the key derived from
# it are re-encrypted with the install's own at its next start (manage.py model_endpoint rekey --old-keys).
OLD_DEVELOPMENT_SECRET_KEY = "concord-local-development-key-not-for-production"

SECRET_KEY_FILE = "secret_key"
ENDPOINT_KEY_FILE = "endpoint_key"
PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600


@dataclass(frozen=True)
class LocalSecrets:
    secret_key: str
    endpoint_key: str


def _secret_key() -> str:
    return secrets.token_urlsafe(50)  # 67 characters; check --deploy asks for 50 and 5 distinct ones


def _endpoint_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")  # a Fernet key (Fernet.generate_key's form)


def _key_file_read_or_make(path: Path, make) -> str:
    """The key in PATH; made (mode 0600 from its creation) when PATH does not exist yet. Two processes starting at
    once both read the key the first one wrote: the file appears under its name only once it is whole."""
    try:
        key = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        key = ""
    if key:
        if stat.S_IMODE(path.stat().st_mode) != PRIVATE_FILE:
            path.chmod(PRIVATE_FILE)
        return key
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as file:
            file.write(make() + "\n")
        try:
            os.link(draft, path)  # fails when another process got there first: its key is the one
        except FileExistsError:
            pass
    finally:
        draft.unlink(missing_ok=True)
    return path.read_text(encoding="ascii").strip()


def private_file_ensure(path: Path) -> None:
    """PATH (a database file) made, when missing, and kept readable by its owner alone, with SQLite's -wal, -shm
    and -journal files beside it. A missing database is made empty (SQLite takes an empty file as a new database),
    so that it is never readable by others, not even before its first write."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    except FileNotFoundError:  # its folder does not exist (a DATABASE_URL elsewhere): SQLite will say so
        return
    for companion in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm", "-journal"))):
        try:
            if stat.S_IMODE(companion.stat().st_mode) != PRIVATE_FILE:
                companion.chmod(PRIVATE_FILE)
        except FileNotFoundError:
            continue


def local_install_secure(*, var_dir: Path, databases: list[Path]) -> LocalSecrets:
    """Make VAR_DIR private (0700), its keys (made on the first call, 0600) and the SQLite DATABASES (0600, wherever
    they are); return the keys. Cheap enough for every process start: a few stat calls once the keys exist."""
    var_dir.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)
    if stat.S_IMODE(var_dir.stat().st_mode) != PRIVATE_FOLDER:
        var_dir.chmod(PRIVATE_FOLDER)
    keys = LocalSecrets(
        secret_key=_key_file_read_or_make(var_dir / SECRET_KEY_FILE, _secret_key),
        endpoint_key=_key_file_read_or_make(var_dir / ENDPOINT_KEY_FILE, _endpoint_key),
    )
    for database in databases:
        private_file_ensure(database)
    return keys
