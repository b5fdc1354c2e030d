"""Django's migrate, which on the embedded SQLite database also migrates the API tokens' own database (settings
alias "tokens", accounts.routers) when it migrates the default one: scripts/serve, the benches and anyone following
the docs run `manage.py migrate` and get both. The tokens' database goes first, so that an install's existing tokens
are in it (migration accounts 0005 moves them) before anything of the default database's migrations makes one."""

from django.conf import settings
from django.core.management.commands.migrate import Command as MigrateCommand
from django.db import DEFAULT_DB_ALIAS, connections

from config.databases import TOKENS, tokens_database_name


def _tokens_beside_default() -> bool:
    """Whether the tokens' database is the one the default database's file has beside it now. Not while a test
    database is being made for the default alias only (the tokens' alias still names the real file then: the test
    runner makes its test database itself)."""
    if TOKENS not in settings.DATABASES:
        return False
    return connections[TOKENS].settings_dict["NAME"] == tokens_database_name(
        str(connections[DEFAULT_DB_ALIAS].settings_dict["NAME"]))


class Command(MigrateCommand):
    help = MigrateCommand.help + " On SQLite, migrating the default database migrates the API tokens' one too."

    def handle(self, *args, **options):
        if options["database"] == DEFAULT_DB_ALIAS and _tokens_beside_default():
            if options["verbosity"] >= 1:
                self.stdout.write(self.style.MIGRATE_HEADING(
                    f"The API tokens' database ({connections[TOKENS].settings_dict['NAME']}):"))
            super().handle(*args, **{**options, "database": TOKENS})
        return super().handle(*args, **options)
