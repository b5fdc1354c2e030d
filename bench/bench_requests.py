"""Benchmark of one annotator's requests, in-process: the SQL queries and the CPU milliseconds of a next unit and of a
submit, for every registered task type (issue 52, item 2; run it before and after each change to those paths).

One annotator, signed in with Django's test Client (CSRF checks on, the token sent in X-CSRFToken as the page's
script sends it), works through one campaign of each task type as the annotation page's htmx does. A round is:
- next unit, leasing: GET annotate/ (HX-Request) while the annotator holds no lease: a new lease and its fragment.
  The lease the previous submit made is deleted first (not timed), so that this GET leases the same unit afresh;
- next unit: the same GET once more, which finds that lease (as a reload does, or the load test's "next unit");
- submit: POST annotate/submit/ with a valid answer for the type, the form's assignment and shown_version and a
  submission id as the page adds them: the verdict recorded, the next unit leased and its fragment back.
Each submit is checked (200, no id="annotate-error", a next unit in the answer) and so is the number of the
annotator's judgments in the campaign afterwards (it grows by exactly the rounds), so the figures are of real work.

Per type and request: the queries, apart from transaction statements (BEGIN, SAVEPOINT, RELEASE), split into access
(the session, the user and the campaign membership: queries on django_session, auth_user or accounts_accountstate, or
reading annotate_membership) and the rest, with the range of the count over the rounds beside its median; then the
CPU milliseconds (time.process_time: the whole process, i.e. the view, the middleware, the template and the test
Client's own request building and response handling; SQLite's work too, which runs in-process, but not PostgreSQL's,
which runs in its own processes), median and p90 over ROUNDS rounds after WARMUP. On PostgreSQL, "server ms": the
CPU of the backend that serves the connection (from /proc, the server being on this machine), the mean over the rounds.
--verbose lists one round's queries per type (phase, tables, the first 100 characters).

Campaigns: qa_correctness, ais, image_relevance and answer_ranking as bench/load/seed.py writes them; every other
type from its sample (TaskTypeSpec.sample: its topics and items), as tests/project/test_query_counts.py builds its
campaigns; each with enough units that the rounds never run out (overlap 2, so every unit is open to the annotator).

A throw-away SQLite database unless DATABASE_URL names a PostgreSQL server: there a database of its own,
concord_bench_requests (or the one DATABASE_URL names if its name begins "concord_bench"), created afresh, ANALYZEd
once seeded and dropped at the end. The cache, which every request asks for the password-change flag, is CACHE_URL's:
production's is shared (redis://...), without it local memory. Transaction statements differ by database: SQLite's
BEGIN IMMEDIATE is a statement seen here; PostgreSQL's BEGIN, and COMMIT on both, go through the driver unseen.

    .venv/bin/python bench/bench_requests.py [--rounds 200] [--warmup 20] [--verbose] [--types qa_correctness,ais]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/concord_bench_requests CACHE_URL=redis://127.0.0.1:6379/13 \\
        .venv/bin/python bench/bench_requests.py
"""

import argparse
import os
import re
import statistics
import sys
import time
import uuid
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "load"))

# Units left over beyond the rounds and the warm-up, and the full page that starts the session.
SPARE_UNITS = 30
# The types bench/load/seed.py writes, with the number of items that makes N units of each or more (ais has two
# items a topic, image_relevance ten, answer_ranking a unit of eight).
SEEDED_ITEMS = {"qa_correctness": lambda n: n, "ais": lambda n: n + n % 2,
                "image_relevance": lambda n: -(-n // 10) * 10, "answer_ranking": lambda n: n * 8}
# Queries on these tables are the request's access checks: the session, the user (and, once the cached flag is 5
# minutes old, whether staff require a new password: accounts.selectors.password_change_required), the membership.
ACCESS_TABLES = ("django_session", "auth_user", "accounts_accountstate", "annotate_membership")
TRANSACTION = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
TABLE = re.compile(r'\b(?:FROM|JOIN|UPDATE|INTO)\s+"(\w+)"', re.IGNORECASE)  # Django quotes table names
SUBQUERY = re.compile(r"\([^()]*\)")
ASSIGNMENT = re.compile(r'name="assignment" value="(\d+)"')
SHOWN_VERSION = re.compile(r'name="shown_version" value="(\d*)"')
REFUSED = 'id="annotate-error"'
REQUESTS = ("next unit, leasing", "next unit", "submit")
# On a PostgreSQL server: the database this benchmark makes, and drops at the end (postgres_own).
OWN_DATABASE = "concord_bench_requests"


class QueryLog:
    """Every SQL statement the database connections run while installed (connection.execute_wrapper): cheaper than
    Django's debug cursor, which formats each query with its parameters."""

    def __init__(self):
        self.queries: list[str] = []

    def __call__(self, execute, sql, params, many, context):
        self.queries.append(sql)
        return execute(sql, params, many, context)


def tables_of(sql: str) -> list[str]:
    """The tables SQL names after FROM, JOIN, UPDATE and INTO, in order, once each."""
    return list(dict.fromkeys(TABLE.findall(sql)))


def main_table(sql: str) -> str:
    """The table SQL reads or writes outside its subqueries (the first one, when it names none of its own: a count
    over a subquery); "-" for none."""
    outer = sql
    while (inner := SUBQUERY.sub("", outer)) != outer:
        outer = inner
    return (tables_of(outer) or tables_of(sql) or ["-"])[0]


def phase_of(sql: str) -> str:
    """"transaction", "access" (the session, the user, the membership: ACCESS_TABLES) or "rest"."""
    if sql.lstrip().upper().startswith(TRANSACTION):
        return "transaction"
    if main_table(sql) in ACCESS_TABLES[:-1] or ACCESS_TABLES[-1] in tables_of(sql):
        return "access"
    return "rest"


def postgres_own(url: str) -> str:
    """The URL of this benchmark's own database on the PostgreSQL server URL names: the database URL names when its
    name begins "concord_bench", else OWN_DATABASE there. It is dropped and created afresh (postgres_fresh), so it is
    never someone's data."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.path.lstrip("/").startswith("concord_bench"):
        return url
    return urlunsplit(parts._replace(path=f"/{OWN_DATABASE}"))


def postgres_fresh(url: str, *, drop_only: bool = False) -> None:
    """Drop the PostgreSQL database URL names and, unless DROP_ONLY, create it empty."""
    import environ
    import psycopg

    config = environ.Env.db_url_config(url)
    with psycopg.connect(dbname="postgres", host=config.get("HOST") or None, port=config.get("PORT") or None,
                         user=config.get("USER") or None, password=config.get("PASSWORD") or None,
                         autocommit=True) as server:
        server.execute(f'DROP DATABASE IF EXISTS "{config["NAME"]}" WITH (FORCE)')
        if not drop_only:
            server.execute(f'CREATE DATABASE "{config["NAME"]}"')


def people():
    """The annotator who works and the researcher who owns the campaigns."""
    from django.contrib.auth import get_user_model

    users = get_user_model()
    return users.objects.create_user("bench-annotator"), users.objects.create_user("bench-lead")  # force_login


def campaign_seeded(task_type: str, annotator, researcher, units: int):
    """A campaign of TASK_TYPE with UNITS units, as bench/load/seed.py writes it."""
    import seed

    from annotate.models import Campaign

    seeders = {"qa_correctness": seed.seed_qa, "ais": seed.seed_ais, "image_relevance": seed.seed_images,
               "answer_ranking": seed.seed_ranking}
    seeders[task_type]([annotator], researcher, SEEDED_ITEMS[task_type](units))
    return Campaign.objects.get(task_type=task_type)


def campaign_from_sample(task_type: str, annotator, researcher, units: int):
    """A campaign of TASK_TYPE with at least UNITS units, made from the type's sample (its topics and items: three
    systems' candidates a topic), one unit per item, or per topic for a type that ranks a topic's items."""
    import seed

    from annotate.models import Item, Topic, Unit
    from annotate.task_types.registry import task_type_get
    from annotate.task_types.spec import UNIT_TOPIC

    spec = task_type_get(task_type)
    sample = spec.sample()
    if sample is None:
        raise SystemExit(f"task type {task_type} has neither a seed in bench/load/seed.py nor a sample()")
    campaign = seed._campaign(f"bench-{task_type.replace('_', '-')}", task_type, 2, [annotator], researcher,
                              options=dict(sample.options))
    pictures: list[dict] = []

    def image(image_id: str) -> dict:
        """One of seed.py's pictures, written on first use (no type built from its sample shows images today)."""
        pictures[:] = pictures or seed._image_files(campaign.pk)
        return pictures[len(made) % len(pictures)]

    made, topics, q = [], [], 0
    while (len(topics) if spec.unit == UNIT_TOPIC else len(made)) < units:
        q += 1
        topic = Topic.objects.create(campaign=campaign, external_id=sample.topic_id.format(q),
                                     text=f"question number {q}", data=sample.topic_data(q))
        topics.append(topic)
        made += [candidate.item for candidate in sample.items(campaign=campaign, topic=topic, q=q, systems=3,
                                                              image=image)]
    items = Item.objects.bulk_create(made)
    targets = [(topic, None) for topic in topics] if spec.unit == UNIT_TOPIC else [(item.topic, item) for item in items]
    Unit.objects.bulk_create([Unit(campaign=campaign, topic=topic, item=item, judgments_needed=2, position=n)
                              for n, (topic, item) in enumerate(targets)])
    return campaign


def campaigns_make(task_types: list[str], annotator, researcher, units: int) -> dict:
    """{task type: its campaign}, each with UNITS units or more, and each with its data version (the rows went in
    around the services that set it, as seed.py's do)."""
    from django.db import transaction

    from annotate.services.data_version import campaign_data_changed

    made = {}
    with transaction.atomic():
        for task_type in task_types:
            make = campaign_seeded if task_type in SEEDED_ITEMS else campaign_from_sample
            made[task_type] = make(task_type, annotator, researcher, units)
            campaign_data_changed(campaign_id=made[task_type].pk)
    return made


class Annotator:
    """The test Client of one signed-in annotator, who asks for units and submits answers as the page's htmx does."""

    def __init__(self, user, campaign):
        from django.test import Client

        from annotate.task_types.registry import task_type_get

        self.user, self.campaign = user, campaign
        self.sample = task_type_get(campaign.task_type).sample()  # its form_answer: a valid answer from the page
        self.client = Client(enforce_csrf_checks=True)
        self.client.force_login(user)
        self.page_url = f"/campaigns/{campaign.slug}/annotate/"
        self.submit_url = self.page_url + "submit/"

    def headers(self) -> dict:
        token = self.client.cookies["csrftoken"].value if "csrftoken" in self.client.cookies else ""
        return {"HX-Request": "true", "HX-Target": "annotate-unit", "HX-Current-URL": "http://testserver"
                + self.page_url, "X-CSRFToken": token}

    def open_page(self) -> None:
        """The full page, as the annotator opens it (no htmx): leases the first unit, sets the CSRF cookie."""
        response = self.client.get(self.page_url)
        assert response.status_code == 200, response.status_code

    def lease_drop(self) -> None:
        """Delete the annotator's live lease in the campaign (the one the last submit made), so that the next GET
        leases again: the same unit, afresh."""
        from annotate.models import Assignment, AssignmentStatus

        Assignment.objects.filter(unit__campaign=self.campaign, annotator=self.user,
                                  status=AssignmentStatus.ACTIVE).delete()

    def next_unit(self):
        """GET annotate/ as htmx asks for it: the response."""
        return self.client.get(self.page_url, headers=self.headers())

    def submit(self, data: dict):
        """POST annotate/submit/ with DATA as htmx sends the form (URL-encoded, as the load test's Locust does too;
        the test Client would otherwise send multipart): the response."""
        return self.client.post(self.submit_url, urlencode(data, doseq=True),
                                content_type="application/x-www-form-urlencoded", headers=self.headers())

    def answer(self, page: str) -> dict:
        """The form the page's script sends for the unit PAGE shows: a valid answer, the form's hidden fields and
        the submission id the script adds."""
        shown = SHOWN_VERSION.search(page)
        return {"assignment": ASSIGNMENT.search(page).group(1), "shown_version": shown.group(1) if shown else "",
                "submission": uuid.uuid4().hex, **self.sample.form_answer(page)}

    def judgments(self) -> int:
        from annotate.models import HumanJudgment, JudgmentKind

        return HumanJudgment.objects.filter(unit__campaign=self.campaign, annotator=self.user,
                                            kind=JudgmentKind.ANNOTATION).count()


class ServerClock:
    """The CPU seconds so far of the PostgreSQL backend serving this process's connection, from /proc (the server runs
    on this machine); None on SQLite, whose work is in this process's own CPU. /proc counts in ticks (10 ms), so a
    request's figure is only meaningful summed over many: the table gives the mean over the rounds."""

    def __init__(self):
        self.path = None

    def __call__(self) -> float | None:
        from django.db import connection

        if connection.vendor != "postgresql":
            return None
        if self.path is None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                self.path = Path(f"/proc/{cursor.fetchone()[0]}/stat")
        fields = self.path.read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


SERVER_CLOCK = ServerClock()


def measured(log: QueryLog, call, *args):
    """(CALL(*ARGS)'s result, its CPU milliseconds, the queries it ran, the database server's CPU milliseconds for
    it or None)."""
    server = SERVER_CLOCK()
    log.queries.clear()
    started = time.process_time()
    result = call(*args)
    cpu = (time.process_time() - started) * 1000
    queries = list(log.queries)
    after = SERVER_CLOCK()
    return result, cpu, queries, None if server is None else (after - server) * 1000


def unit_shown(response) -> str:
    """The fragment of RESPONSE, checked: 200, no refusal, a unit to judge."""
    page = response.content.decode()
    assert response.status_code == 200 and REFUSED not in page, (response.status_code, page[:600])
    assert ASSIGNMENT.search(page), f"no unit in the answer: {page[:600]}"
    return page


def rounds_run(annotator: Annotator, log: QueryLog, rounds: int) -> dict:
    """ROUNDS rounds; {request name: [(CPU ms, queries, server CPU ms), ...]}. Only the requests are timed, not the
    checks."""
    figures = {name: [] for name in REQUESTS}
    for _ in range(rounds):
        annotator.lease_drop()
        for name in ("next unit, leasing", "next unit"):
            response, *figure = measured(log, annotator.next_unit)
            page = unit_shown(response)
            figures[name].append(figure)
        data = annotator.answer(page)
        response, *figure = measured(log, annotator.submit, data)
        following = ASSIGNMENT.search(unit_shown(response)).group(1)
        assert following != data["assignment"], f"the submit answered with the same unit {following}"
        figures["submit"].append(figure)
    return figures


def type_bench(user, campaign, log: QueryLog, *, rounds: int, warmup: int) -> dict:
    """The measured rounds of one campaign, after WARMUP; checked against the judgments recorded."""
    annotator = Annotator(user, campaign)
    annotator.open_page()
    before = annotator.judgments()
    rounds_run(annotator, log, warmup)
    figures = rounds_run(annotator, log, rounds)
    recorded = annotator.judgments() - before
    assert recorded == warmup + rounds, f"{campaign.task_type}: {recorded} judgments for {warmup + rounds} submits"
    return figures


def counts(queries: list[str]) -> dict:
    phases = [phase_of(sql) for sql in queries]
    return {phase: phases.count(phase) for phase in ("access", "rest", "transaction")}


def spread(values: list[int]) -> str:
    low, high = min(values), max(values)
    return f"{low}" if low == high else f"{low}-{high}"


def summary(figures: list[tuple[float, list[str], float | None]]) -> dict:
    cpu = [ms for ms, _, _ in figures]
    split = [counts(queries) for _, queries, _ in figures]
    server = [ms for _, _, ms in figures if ms is not None]
    total = [c["access"] + c["rest"] for c in split]
    return {"queries": statistics.median(total), "range": spread(total),
            **{phase: statistics.median(c[phase] for c in split) for phase in ("access", "rest", "transaction")},
            "cpu": statistics.median(cpu), "p90": statistics.quantiles(cpu, n=10)[-1],
            "server": statistics.fmean(server) if server else None}


def table_print(results: dict) -> None:
    print(f"\n{'task type':<20} {'request':<19} {'queries':>7} {'(range)':>8} {'access':>6} {'rest':>5} {'tx':>4} "
          f"{'CPU ms p50':>10} {'p90':>6} {'server ms':>9}")
    for task_type, figures in results.items():
        for name in REQUESTS:
            s = summary(figures[name])
            print(f"{task_type:<20} {name:<19} {s['queries']:>7g} {s['range']:>8} {s['access']:>6g} {s['rest']:>5g} "
                  f"{s['transaction']:>4g} {s['cpu']:>10.1f} {s['p90']:>6.1f} "
                  f"{'' if s['server'] is None else format(s['server'], '.1f'):>9}")


def queries_print(task_type: str, figures: dict) -> None:
    """One round's queries of TASK_TYPE (its first measured round), request by request."""
    for name in REQUESTS:
        _, queries, _ = figures[name][0]
        print(f"\n{task_type}, {name}: {len(queries)} statements")
        for n, sql in enumerate(queries, start=1):
            tables = ",".join(dict.fromkeys([main_table(sql), *tables_of(sql)]))
            print(f"  {n:>2} {phase_of(sql):<11} {tables:<60.60} {' '.join(sql.split())[:100]}")
        mains = [main_table(sql) for sql in queries if phase_of(sql) != "transaction"]
        print("  by main table: " + ", ".join(f"{table} {mains.count(table)}"
                                               for table in sorted(set(mains), key=lambda t: -mains.count(t))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument("--types", default="", help="Comma-separated task types (default: every registered one).")
    parser.add_argument("--verbose", action="store_true", help="List one round's queries of each type.")
    args = parser.parse_args()

    started = time.perf_counter()
    url = os.environ.get("DATABASE_URL", "")
    postgres = url.startswith(("postgres://", "postgresql://"))
    if postgres:
        url = os.environ["DATABASE_URL"] = postgres_own(url)
        postgres_fresh(url)
    from throwaway import throwaway_database

    workdir = throwaway_database("concord-bench-requests-")
    from django.conf import settings
    from django.db import connections

    from annotate.task_types.registry import task_type_names

    settings.MEDIA_ROOT = workdir / "media"
    print(f"cache {settings.CACHES['default']['BACKEND']} {settings.CACHES['default'].get('LOCATION', '')}")
    task_types = args.types.split(",") if args.types else task_type_names()
    annotator, researcher = people()
    begun = time.perf_counter()
    campaigns = campaigns_make(task_types, annotator, researcher, args.rounds + args.warmup + SPARE_UNITS)
    if connections["default"].vendor == "postgresql":
        with connections["default"].cursor() as cursor:
            cursor.execute("ANALYZE")  # as autovacuum would soon after the rows went in
    print(f"campaigns of {', '.join(task_types)} made in {time.perf_counter() - begun:.1f} s", flush=True)

    log = QueryLog()
    results = {}
    with ExitStack() as stack:
        for alias in connections:
            stack.enter_context(connections[alias].execute_wrapper(log))
        for task_type in task_types:
            begun = time.perf_counter()
            results[task_type] = type_bench(annotator, campaigns[task_type], log, rounds=args.rounds,
                                            warmup=args.warmup)
            print(f"{task_type}: {args.warmup} + {args.rounds} rounds in {time.perf_counter() - begun:.1f} s, "
                  f"every submit recorded", flush=True)
    if args.verbose:
        for task_type, figures in results.items():
            queries_print(task_type, figures)
    print(f"\n{connections['default'].vendor}, median of {args.rounds} rounds after {args.warmup} (queries without "
          f"transaction statements; access: session, user, membership; tx: BEGIN/SAVEPOINT/RELEASE)")
    table_print(results)
    connections.close_all()
    if postgres:
        postgres_fresh(url, drop_only=True)
    print(f"\ntotal {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
