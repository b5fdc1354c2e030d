"""Start-up stays light (issue 35): a management command, the web process and a worker load Django, every app, the
URL configuration and the Celery tasks without importing the statistics, plotting and model libraries, which cost
a second or more before a process can work. They are imported by the code that uses them (a report build, a plot,
a judge run). bench/bench_startup.py times the three starts."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = {"scipy", "sklearn", "matplotlib", "statsmodels", "krippendorff", "ir_measures", "pandas", "sqlalchemy",
         "torch", "transformers"}
PROBE = """
import sys, django
django.setup()
from django.urls import get_resolver
get_resolver().url_patterns
import config.wsgi
from config.celery import app
app.loader.import_default_modules()
from django.core.management import call_command
call_command("check", verbosity=0)
print(",".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def test_a_process_starts_without_the_heavy_libraries():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.strip().splitlines()[-1].split(","))
    assert "django" in loaded and "celery" in loaded  # the probe did start the app
    assert loaded & HEAVY == set()
