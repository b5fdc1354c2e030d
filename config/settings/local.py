"""Development: the embedded default (SQLite database, SQLite-backed broker), debug on unless told otherwise."""

from .base import *  # noqa: F401,F403
from .base import STATIC_ROOT, VAR_DIR, env

VAR_DIR.mkdir(exist_ok=True)
STATIC_ROOT.mkdir(exist_ok=True)  # whitenoise warns on every request when it is missing
WHITENOISE_USE_FINDERS = True
DEBUG = env.bool("DEBUG", default=True)
SECRET_KEY = env("SECRET_KEY", default="concord-local-development-key-not-for-production")
# Development: free-form judge URLs and model folders are open (the operator is the researcher here).
JUDGE_ALLOWED_HOSTS = env.list("JUDGE_ALLOWED_HOSTS", default=["*"])
JUDGE_MODEL_DIRS = env.list("JUDGE_MODEL_DIRS", default=["*"])
