"""`manage.py model_endpoint`: staff register the OpenAI-compatible servers that llm and vlm judges may call.

    model_endpoint add NAME --url URL [--model ID ...] [--key-env VAR | --key-stdin]
                   [--max-concurrency N] [--price-prompt P] [--price-completion P]
                   [--campaign SLUG ...] [--group NAME ...] [--all-campaigns] [--disabled] [--notes TEXT]
                   [--show-bodies]
    model_endpoint list
    model_endpoint remove NAME
    model_endpoint rekey [--old-keys]

`add` creates the endpoint or updates it (grants are added to). A key is read from standard input
(--key-stdin), never from the command line, where shell history and `ps` would keep it; it is stored
encrypted. --show-bodies lets failures of judges using it quote the start of what the server answered, for
debugging (every `add` without it switches that off again). `list` shows each endpoint without its key.
`rekey` re-encrypts the stored keys with the newest of ENDPOINT_ENCRYPTION_KEYS after an operator put a new
key in front. `rekey --old-keys` (scripts/serve runs it at every start) re-encrypts only the stored keys the newest
key does not open, with the keys derived from the SECRET_KEY every default install had before issue 48 and from
this one's SECRET_KEY allowed to open them; it says only what it changed, and names the endpoints whose key no key
opens instead of failing.
"""

import sys

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from annotate.models import Campaign
from config.local_install import OLD_DEVELOPMENT_SECRET_KEY
from judges.crypto import derived_key
from judges.endpoints import endpoint_keys_rotate, endpoint_keys_rotate_from, endpoint_register
from judges.errors import JudgeConfigError
from judges.models import KeySource, ModelEndpoint


def _named(model, field: str, values: list[str], *, option: str, what: str) -> list:
    """The rows of MODEL whose FIELD is each of VALUES, in order; CommandError naming the first that is missing."""
    rows = []
    for value in values:
        row = model.objects.filter(**{field: value}).first()
        if row is None:
            raise CommandError(f"{option}: no {what} {value!r}")
        rows.append(row)
    return rows


class Command(BaseCommand):
    help = "Register, list and remove model endpoints (OpenAI-compatible servers for the llm and vlm judges)."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        add = actions.add_parser("add", help="Create or update an endpoint.")
        add.add_argument("name")
        add.add_argument("--url", required=True, help="Base URL, e.g. http://gpu1:8000/v1.")
        add.add_argument("--model", action="append", default=None, help="A model id the server serves (repeatable).")
        key = add.add_mutually_exclusive_group()
        key.add_argument("--key-env", default="", help="The workers' environment variable that holds the key.")
        key.add_argument("--key-stdin", action="store_true", help="Read the key from standard input; stored encrypted.")
        add.add_argument("--max-concurrency", type=int, default=4)
        add.add_argument("--price-prompt", type=float, default=0.0, help="Price of 1,000 prompt tokens.")
        add.add_argument("--price-completion", type=float, default=0.0, help="Price of 1,000 completion tokens.")
        add.add_argument(
            "--campaign", action="append", default=[], help="A campaign slug that may use it (repeatable)."
        )
        add.add_argument("--group", action="append", default=[], help="A user group that may use it (repeatable).")
        add.add_argument("--all-campaigns", action="store_true", help="Every campaign may use it.")
        add.add_argument("--disabled", action="store_true", help="Register it switched off.")
        add.add_argument("--notes", default="")
        add.add_argument("--show-bodies", action="store_true",
                         help="Debugging: failures quote the first 200 characters of the server's answers, to every "
                              "researcher the endpoint is granted to (off: status code, content type and size only).")
        actions.add_parser("list", help="List endpoints (never their keys).")
        remove = actions.add_parser("remove", help="Remove an endpoint; judges naming it can no longer run.")
        remove.add_argument("name")
        rekey = actions.add_parser("rekey",
                                   help="Re-encrypt stored keys with the newest ENDPOINT_ENCRYPTION_KEYS entry.")
        rekey.add_argument("--old-keys", action="store_true",
                           help="Only the keys the newest one does not open, also opened with the keys derived from "
                                "the old development SECRET_KEY and from SECRET_KEY (the default install's start).")

    def handle(self, *args, **opts):
        try:
            getattr(self, f"_{opts['action']}")(opts)
        except JudgeConfigError as exc:
            raise CommandError(str(exc)) from exc

    def _add(self, opts) -> None:
        campaigns = _named(Campaign, "slug", opts["campaign"], option="--campaign", what="campaign")
        groups = _named(Group, "name", opts["group"], option="--group", what="group")
        key = None
        if opts["key_stdin"]:
            key = sys.stdin.readline().strip()
            if not key:
                raise CommandError("--key-stdin: standard input held no key")
        endpoint = endpoint_register(
            name=opts["name"], base_url=opts["url"], model_ids=opts["model"], key=key, key_env=opts["key_env"],
            max_concurrency=opts["max_concurrency"], price_per_1k_prompt_tokens=opts["price_prompt"],
            price_per_1k_completion_tokens=opts["price_completion"], all_campaigns=opts["all_campaigns"],
            campaigns=campaigns, groups=groups, enabled=not opts["disabled"], notes=opts["notes"],
            show_bodies=opts["show_bodies"],
        )
        self.stdout.write(f"endpoint {endpoint.name}: {self._describe(endpoint)}")

    def _list(self, opts) -> None:
        endpoints = ModelEndpoint.objects.prefetch_related("campaigns", "groups").order_by("name")
        if not endpoints:
            self.stdout.write("no model endpoints")
        for endpoint in endpoints:
            self.stdout.write(f"{endpoint.name}: {self._describe(endpoint)}")

    def _remove(self, opts) -> None:
        deleted, _ = ModelEndpoint.objects.filter(name=opts["name"]).delete()
        if not deleted:
            raise CommandError(f"no model endpoint {opts['name']!r}")
        self.stdout.write(f"removed endpoint {opts['name']}")

    def _rekey(self, opts) -> None:
        if not opts["old_keys"]:
            self.stdout.write(f"re-encrypted {endpoint_keys_rotate()} stored key(s)")
            return
        count, unreadable = endpoint_keys_rotate_from(
            old_keys=[derived_key(OLD_DEVELOPMENT_SECRET_KEY), derived_key(settings.SECRET_KEY)])
        if count:
            self.stdout.write(f"re-encrypted {count} stored key(s) with this install's own key")
        if unreadable:
            self.stderr.write(f"no key opens the stored key of endpoint(s) {', '.join(unreadable)}: staff must store "
                              f"it again (manage.py model_endpoint add NAME --key-stdin, or the admin)")

    @staticmethod
    def _describe(endpoint: ModelEndpoint) -> str:
        key = {KeySource.NONE: "no key", KeySource.ENV: f"key from ${endpoint.key_env} of the workers",
               KeySource.STORED: "key stored encrypted"}[endpoint.key_source]
        grants = (
            (["all campaigns"] if endpoint.all_campaigns else [])
            + [f"campaign {c.slug}" for c in endpoint.campaigns.all()]
            + [f"group {g.name}" for g in endpoint.groups.all()]
        )
        return (f"{endpoint.base_url}, models {', '.join(endpoint.model_ids) or 'any'}, {key}, at most "
                f"{endpoint.max_concurrency} in flight, {'on' if endpoint.enabled else 'OFF'}"
                f"{', failure bodies shown' if endpoint.show_bodies else ''}; "
                f"for {', '.join(grants) or 'nobody yet'}")
