"""Development and the default install (scripts/start): the embedded SQLite database and SQLite-backed broker, DEBUG
off unless asked for (DEBUG=1), and keys of its own in var/ (config.local_install)."""

from pathlib import Path

from config.local_install import local_install_secure

from .base import *  # noqa: F401,F403
from .base import CELERY_BROKER_URL, DATABASES, STATIC_ROOT, VAR_DIR, env

# var/ 0700, its SQLite databases 0600, the keys made on the first start (0600) and read by every later one.
_SQLITE_BROKER = "sqla+sqlite:///"
_LOCAL = local_install_secure(var_dir=VAR_DIR, databases=[
    *(Path(database["NAME"]) for database in DATABASES.values()  # the main file and the API tokens' (config.databases)
      if database["ENGINE"] == "django.db.backends.sqlite3" and str(database["NAME"]) != ":memory:"),
    *([Path(CELERY_BROKER_URL.removeprefix(_SQLITE_BROKER))] if CELERY_BROKER_URL.startswith(_SQLITE_BROKER) else []),
])
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every request when it is missing
WHITENOISE_USE_FINDERS = True
# Off unless the developer asks (DEBUG=1): its error page shows every setting and the process's whole environment to
# whoever makes a request fail, and a 404 lists the URL patterns.
DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="") or _LOCAL.secret_key
# The install's own key, apart from SECRET_KEY (judges.crypto); an operator's list replaces it.
ENDPOINT_ENCRYPTION_KEYS = env.list("ENDPOINT_ENCRYPTION_KEYS", default=[_LOCAL.endpoint_key])
# The judges' boundary is as closed as in production (base.py): labs run this on shared servers, where researchers
# are not the operator. Judges call the model endpoints staff register (manage.py model_endpoint add, the admin;
# the demo registers its own) and load the packaged models and models of the local Hugging Face cache; the
# operator opens free-form URLs to named hosts (JUDGE_ALLOWED_HOSTS=gpu1,.lab.example.org) and local model
# folders (JUDGE_MODEL_DIRS=/srv/models) in the environment.
JUDGE_ALLOWED_HOSTS = env.list("JUDGE_ALLOWED_HOSTS", default=[])
JUDGE_MODEL_DIRS = env.list("JUDGE_MODEL_DIRS", default=[])
