"""Benchmark of a passage_relevance campaign at TREC size: 5,000 pooled passages over 40 topics, imported from the
command line and from the browser, and its report.

Synthetic data in a temp folder: 40 queries; 5 runs of 1,000 lines per topic whose top 25 are disjoint, pooled at
depth 25 (40 x 125 = 5,000 passages); a collection of 200,000 passages (about 60 MB; only the 5,000 pooled ones are
read in) and one of 20,000, each imported in a child process of its own to compare peak RSS; an assessor's qrels of
every pooled passage and a second assessor's of 1,000; two judges' qrels (the assessor's grade changed at random in
30% and 50% of lines).
- CLI: `manage.py import_data` for each file, in order, timed.
- Browser: a second campaign made through the same files uploaded on the import page in Chromium (Playwright,
  against `manage.py runserver`, imported by a Celery worker on the imports queue), each upload timed until the
  job's page shows its summary.
- Report: agreement_report_build on the CLI campaign (median of 3), then the report page opened in Chromium.

SQLite in the temp folder unless DATABASE_URL is set.

    .venv/bin/python bench/bench_passages.py [--collection 200000]
"""

import argparse
import os
import random
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.test")

TOPICS, RUNS, DEPTH, LINES = 40, 5, 25, 1000
WORDS = ("river bridge water boiling point history author poem ocean light wave energy city tower bone hand cat "
         "rice freeze concrete cure strength aurora sun particle field gas colour week day year answer").split()
PASSWORD = "bench-pass-1"


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def data_write(folder: Path, *, collection: int, seed: int = 1) -> dict:
    """The files of the campaign; returns their paths."""
    rng = random.Random(seed)
    paths = {name: folder / name for name in ("topics.tsv", "runs.txt", "collection.tsv", "small-collection.tsv",
                                              "assessor-a.qrels", "assessor-b.qrels", "judge-x.qrels",
                                              "judge-y.qrels")}
    with open(paths["topics.tsv"], "w") as handle:
        for topic in range(TOPICS):
            handle.write(f"q{topic}\t{_text(rng, 6)}\n")
    pool: dict[str, list[str]] = {}
    with open(paths["runs.txt"], "w") as handle:
        for topic in range(TOPICS):
            qid = f"q{topic}"
            pool[qid] = []
            for run in range(RUNS):
                top = [f"p{topic}-{run}-{n}" for n in range(DEPTH)]
                pool[qid].extend(top)
                tail = [f"p{n}" for n in rng.sample(range(collection), LINES - DEPTH)]
                for rank, doc in enumerate(top + tail, start=1):
                    handle.write(f"{qid} Q0 {doc} {rank} {LINES - rank + rng.random():.4f} run{run}\n")
    pooled = [doc for docs in pool.values() for doc in docs]
    for name, size in (("collection.tsv", collection), ("small-collection.tsv", collection // 10)):
        with open(paths[name], "w") as handle:
            for doc in pooled:
                handle.write(f"{doc}\t{_text(rng, 50)}\n")
            for n in range(size - len(pooled)):
                handle.write(f"p{n}\t{_text(rng, 50)}\n")
    human = {(qid, doc): rng.choice((0, 0, 1, 1, 2, 3)) for qid, docs in pool.items() for doc in docs}
    pairs = list(human)

    def qrels(name: str, grades: dict) -> None:
        with open(paths[name], "w") as handle:
            for (qid, doc), grade in grades.items():
                handle.write(f"{qid} 0 {doc} {grade}\n")

    qrels("assessor-a.qrels", human)
    qrels("assessor-b.qrels", {pair: human[pair] if rng.random() < 0.8 else rng.randrange(4)
                               for pair in rng.sample(pairs, 1000)})
    for name, noise in (("judge-x.qrels", 0.3), ("judge-y.qrels", 0.5)):
        qrels(name, {pair: grade if rng.random() >= noise else rng.randrange(4) for pair, grade in human.items()})
    return paths


# (format, file, extra arguments), in import order
# The campaign is made at k = 1 (the first import): assessor a's qrels grade every passage, and each grade is that
# passage's human label, as in the figures docs/benchmarks.md gives (the default k = 2 would leave most of them open).
STEPS = (("trec-topics", "topics.tsv", ("--overlap", "1")), ("trec-run", "runs.txt", ("--depth", str(DEPTH))),
         ("collection", "collection.tsv", ()), ("trec-qrels", "assessor-a.qrels", ()),
         ("trec-qrels", "assessor-b.qrels", ()), ("judge-qrels", "judge-x.qrels", ("--judge", "judge-x")),
         ("judge-qrels", "judge-y.qrels", ("--judge", "judge-y")))


def cli_import(slug: str, fmt: str, path: Path, extra: tuple, env: dict) -> tuple[float, int, str]:
    """(seconds, peak RSS in MB of the child, its last output line) of one `import_data` in a child process."""
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", "import resource, sys; from django.core.management import execute_from_command_line;"
         "execute_from_command_line(sys.argv[0:1] + sys.argv[1:]);"
         "print('maxrss', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
         "import_data", "--campaign", slug, "--task-type", "passage_relevance", "--format", fmt, *extra, str(path)],
        cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode:
        raise SystemExit(f"import_data --format {fmt} {path.name} failed: {result.stderr[-3000:]}")
    seconds = time.perf_counter() - started
    rss = int(re.search(r"maxrss (\d+)", result.stdout).group(1)) // 1024
    lines = [line for line in result.stdout.splitlines() if not line.startswith("maxrss")]
    return seconds, rss, next((line for line in lines if "collection lines read" in line or "pool:" in line), "")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def browser_import(paths: dict, env: dict, *, slug: str) -> tuple[list[tuple[str, float]], float]:
    """Upload every file on the import page of campaign SLUG in Chromium; [(step, seconds)] and the report page's
    load time."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # Uploads are imported by a worker (interchange.jobs); the page moves on to the job's page, polled until done.
    worker = subprocess.Popen([str(Path(sys.executable).parent / "celery"), "-A", "config", "worker", "-Q", "imports",
                               "--concurrency", "1", "--without-gossip", "--without-mingle", "--without-heartbeat",
                               "--loglevel", "WARNING"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.2)
        base = f"http://127.0.0.1:{port}"
        timings = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                                 args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"{base}/accounts/login/")
            page.fill("input[name=username]", "bench-researcher")
            page.fill("input[name=password]", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_load_state("networkidle")
            for fmt, name, extra in STEPS:
                page.goto(f"{base}/campaigns/{slug}/import/")
                page.select_option("select[name=format]", fmt)
                page.set_input_files("input[name=files]", str(paths[name]))
                if extra and extra[0] == "--depth":
                    page.fill("input[name=depth]", extra[1])
                if extra and extra[0] == "--judge":
                    page.fill("input[name=judge]", extra[1])
                started = time.perf_counter()
                page.click("form button[type=submit]")
                page.wait_for_selector("#import-job[data-status=done], #import-job[data-status=failed]",
                                       timeout=600_000)
                timings.append((f"{fmt} {name}", time.perf_counter() - started))
                text = page.inner_text("body")
                if "campaign now:" not in text:
                    raise SystemExit(f"browser import of {name} failed: {text[:2000]}")
            started = time.perf_counter()
            page.goto(f"{base}/campaigns/{slug}/report/", timeout=600_000)
            # The first open answers "Building…" at once; the worker builds it and the page fills in.
            page.wait_for_selector("#report-building", state="detached", timeout=600_000)
            report_s = time.perf_counter() - started
            page.screenshot(path=str(Path(tempfile.gettempdir()) / "bench-passages-report.png"), full_page=True)
            browser.close()
        return timings, report_s
    finally:
        server.terminate()
        os.killpg(worker.pid, signal.SIGTERM)
        server.wait()
        worker.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collection", type=int, default=200_000, help="passages in the large collection")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
        os.environ["MEDIA_ROOT"] = f"{tmp}/media"
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.local",
               "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp}/broker.sqlite3"}
        os.environ.update({key: env[key] for key in ("DJANGO_SETTINGS_MODULE", "CELERY_BROKER_URL")})
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        paths = data_write(folder, collection=args.collection)
        sizes = {name: path.stat().st_size / 1e6 for name, path in paths.items()}
        print(f"== passage_relevance on {os.environ['DATABASE_URL'].split(':', 1)[0]}: {TOPICS} topics, {RUNS} runs x "
              f"{LINES} lines per topic, depth {DEPTH}; collection {args.collection:,} passages "
              f"({sizes['collection.tsv']:.0f} MB; written in {time.perf_counter() - started:.1f} s)")

        for fmt, name, extra in STEPS:
            seconds, rss, line = cli_import("cli", fmt, paths[name], extra, env)
            print(f"CLI {fmt:12} {name:20} {seconds:6.2f} s  peak RSS {rss:4d} MB  {line}")
        seconds, rss, line = cli_import("small", "trec-topics", paths["topics.tsv"], ("--overlap", "1"), env)
        cli_import("small", "trec-run", paths["runs.txt"], ("--depth", str(DEPTH)), env)
        seconds, rss_small, line = cli_import("small", "collection", paths["small-collection.tsv"], (), env)
        print(f"CLI collection   small-collection.tsv {seconds:6.2f} s  peak RSS {rss_small:4d} MB  {line} "
              f"({sizes['small-collection.tsv']:.0f} MB, beside {sizes['collection.tsv']:.0f} MB above)")

        from agreement.report import agreement_report_build
        from annotate.models import Campaign, Role
        from annotate.services.campaigns import campaign_get_or_create, membership_add

        campaign = Campaign.objects.get(slug="cli")
        times = []
        for _ in range(3):
            started = time.perf_counter()
            report = agreement_report_build(campaign=campaign)
            times.append(time.perf_counter() - started)
        judge = report["judges"]["judge-x"]
        item = judge["item"]
        system = judge["system"]
        print(f"report: {report['humans']['items_labelled']:,} passages with a human grade, {len(report['judges'])} "
              f"judges, {len(report['systems'])} runs: median {sorted(times)[1]:.2f} s of 3")
        print("judge-x item level: " + ", ".join(
            f"{key} {item[key]:.3f} [{item[key + '_ci95'][0]:.3f}, {item[key + '_ci95'][1]:.3f}]"
            for key in sorted(item)
            if key.startswith(("cohen_kappa", "krippendorff")) and not key.endswith("_ci95")
            and isinstance(item[key], float)) + f" (n {item['n']})")
        print("judge-x system level: " + ", ".join(
            f"{measure} tau-b {system[measure]['kendall_tau_b']:.3f}, {system[measure]['n_swaps']} of "
            f"{system[measure]['n_pairs']} run pairs swap" for measure in system
            if isinstance(system[measure], dict) and "kendall_tau_b" in system[measure]))

        user = get_user_model().objects.create_user(username="bench-researcher", password=PASSWORD)
        browser_campaign = campaign_get_or_create(slug="web", task_type="passage_relevance", overlap=1)
        membership_add(campaign=browser_campaign, user=user, role=Role.RESEARCHER)
        timings, report_s = browser_import(paths, env, slug="web")
        for step, seconds in timings:
            print(f"browser {step:36} {seconds:6.2f} s")
        print(f"browser: report page of the uploaded campaign loaded in {report_s:.2f} s "
              f"(screenshot {Path(tempfile.gettempdir()) / 'bench-passages-report.png'})")
        print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")


if __name__ == "__main__":
    main()
