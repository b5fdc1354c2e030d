"""The Celery application. Settings come from Django settings under the CELERY_ namespace."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
# `sqla+...` broker URLs (the embedded default) use config.broker's transport. Named, not imported: kombu loads it
# at the first connection, so a process that never talks to that broker does not import SQLAlchemy (0.3 s of start-up).
TRANSPORT_ALIASES["sqla"] = TRANSPORT_ALIASES["sqlalchemy"] = "config.broker:Transport"

app = Celery("concord")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
