"""Development: the embedded default (SQLite database, SQLite-backed broker), debug on unless told otherwise."""

from .base import *  # noqa: F401,F403
from .base import STATIC_ROOT, VAR_DIR, env

VAR_DIR.mkdir(exist_ok=True)
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every request when it is missing
WHITENOISE_USE_FINDERS = True
DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default="concord-local-development-key-not-for-production")
# The judges' boundary is as closed as in production (base.py): labs run this on shared servers, where researchers
# are not the operator. Judges call the model endpoints staff register (manage.py model_endpoint add, the admin;
# the demo registers its own) and load the packaged models and models of the local Hugging Face cache; the
# operator opens free-form URLs to named hosts (JUDGE_ALLOWED_HOSTS=gpu1,.lab.example.org) and local model
# folders (JUDGE_MODEL_DIRS=/srv/models) in the environment.
JUDGE_ALLOWED_HOSTS = env.list("JUDGE_ALLOWED_HOSTS", default=[])
JUDGE_MODEL_DIRS = env.list("JUDGE_MODEL_DIRS", default=[])
