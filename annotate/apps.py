from django.apps import AppConfig
from django.conf import settings


class AnnotateConfig(AppConfig):
    name = "annotate"

    def ready(self):
        # Connects the sign-in failure counters (signal receivers) in every process, before any sign-in.
        import config.login_throttle  # noqa: F401

        if settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
            from annotate.precompiled import driver_parse_cached

            driver_parse_cached()  # the requests' long precompiled statements parsed once per process
