from django.apps import AppConfig


class AgreementConfig(AppConfig):
    name = "agreement"
