from django.apps import AppConfig


class AnnotateConfig(AppConfig):
    name = "annotate"

    def ready(self):
        # Connects the sign-in failure counters (signal receivers) in every process, before any sign-in.
        import config.login_throttle  # noqa: F401
