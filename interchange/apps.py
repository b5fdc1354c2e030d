from django.apps import AppConfig


class InterchangeConfig(AppConfig):
    name = "interchange"
    verbose_name = "Imports and exports"
