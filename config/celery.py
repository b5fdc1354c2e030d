"""The Celery application. Settings come from Django settings under the CELERY_ namespace."""

import os

from celery import Celery

from config import broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
broker.register()

app = Celery("concord")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
