"""Loads the demo: one researcher, three annotators, an adjudicator, the NQ-open 301 QA campaign, the answer-ranking,
AIS, image-suggestion, passage-relevance, pairwise-preference and nugget-evaluation demos, and assist-demo
(adjudication and an assistance experiment, with simulated annotators: tasktypes.demo_assist).

Idempotent: a second run changes nothing. On an installation an earlier version's load_demo made, it adds what that
version's demo lacked (the AIS demo's simulated raters, the passage demo's probes), so that an upgraded demo is a fresh
one (docs/upgrading.md). The answer-ranking demo's BM25 and MiniLM runs and the passage demo's
BM25 run are queued on
the first load; `scripts/start`'s worker judges them as soon as it starts. One model endpoint is registered
the way staff register theirs (`manage.py model_endpoint add`): "local-llm", an OpenAI-compatible server on
this machine's port 8080 (llama.cpp's server, vLLM or Ollama started there), no key, for every demo campaign.
Each demo's report is built and stored at the end, in this process (no worker runs yet), so that its first open
shows it at once.
"""

import io

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand
from django.db import transaction

from annotate.models import Campaign, Role
from annotate.services.campaigns import campaign_creator_grant, membership_add
from annotate.task_types.registry import task_type_get
from judges.models import Judge, ModelEndpoint, Probe
from judges.probes import probes_judge_here
from judges.services import judge_run_here, judge_run_start
from tasktypes.demo_ais import ais_demo_raters_present, ais_demo_simulate
from tasktypes.demo_assist import assist_demo_simulate
from tasktypes.pairwise_preference.demo import pairwise_demo_simulate
from tasktypes.probes import probes_make

DEMO_PASSWORD = "concord-demo"
DEMO_RESEARCHER = "researcher"
DEMO_ANNOTATORS = ("assessor1", "assessor2", "assessor3")
DEMO_ADJUDICATOR = "adjudicator"
DEMO_ENDPOINT = "local-llm"
FIXTURES = settings.BASE_DIR / "fixtures"

# slug -> how to import it, and what to call it.
DEMOS = {
    "nq301": {
        "task_type": "qa_correctness", "format": "nq301", "path": FIXTURES / "nq301", "overlap": 2,
        "name": "NQ-open 301: is the answer correct?",
        "description": (
            "Answers of 12 open-domain QA systems to 301 Natural Questions, with the three annotators' judgments and "
            "the final verdict of Kamalloo et al. (ACL 2023), and GPT-4 and text-davinci-003 verdicts as external "
            "judges. Answers no human has judged wait in the annotation queue."
        ),
        "rankers": (),
    },
    "health-ranking": {
        "task_type": "answer_ranking", "format": "jsonl", "path": FIXTURES / "answer_ranking_demo" / "topics.jsonl",
        "overlap": 1,
        "name": "Consumer health: rank answers among documents",
        "description": (
            "Twelve health questions written for this demo, each with two generated answers and three documents. "
            "Six topics come ranked by an expert; the other six wait for annotators. BM25 and the MiniLM dense "
            "ranker judge every candidate."
        ),
        "rankers": (("bm25", "bm25"), ("minilm", "dense")),
    },
    "ais-demo": {
        "task_type": "ais", "format": "attributed-qa", "path": FIXTURES / "ais_demo" / "ratings.csv", "overlap": 3,
        "name": "Attribution: is the answer supported by its passage?",
        "description": (
            "Eight questions written for this demo, each answered by three made-up systems with an evidence passage. "
            "Thirteen answers come with a human rating, and three simulated raters have judged each of them; the "
            "other eleven wait for three raters each. The made-up nli_score column is imported as the external judge "
            "auto-ais."
        ),
        "rankers": (),
        # Run when its raters are missing: on the campaign just made, and on one an earlier version made without them
        # (tasktypes.demo_ais).
        "raters": True,
        # What earlier versions called it; replaced by the description above (a researcher's own text stays).
        "former_descriptions": (
            "Eight questions written for this demo, each answered by three made-up systems with an evidence passage. "
            "Thirteen answers come with a human rating; the other eleven wait for three raters each. The made-up "
            "nli_score column is imported as the external judge auto-ais.",
        ),
    },
    "image-demo": {
        "task_type": "image_relevance", "format": "jsonl", "path": FIXTURES / "image_demo" / "topics.jsonl",
        "overlap": 1,
        "name": "Image suggestion: grade images for a section",
        "description": (
            "Three encyclopedia-style sections written for this demo, with twelve drawn images pooled from three "
            "made-up runs (two tagged clip-based). Two topics come graded by an assessor; the third waits for "
            "assessors. The made-up clip-demo scores are an external judge."
        ),
        "rankers": (),
        # Further imports, in order: (format, path, extra arguments).
        "more": (
            ("trec-run", FIXTURES / "image_demo" / "runs-clip.txt", ("--depth", "5", "--tag", "clip-based")),
            ("trec-run", FIXTURES / "image_demo" / "runs-text.txt", ("--depth", "5")),
            ("images", FIXTURES / "image_demo" / "images", ()),
            ("trec-qrels", FIXTURES / "image_demo" / "nist.qrels", ()),
            ("judge-scores", FIXTURES / "image_demo" / "clip-scores.tsv", ("--judge", "clip-demo")),
        ),
    },
    "passage-demo": {
        "task_type": "passage_relevance", "format": "trec-topics", "path": FIXTURES / "passage_demo" / "topics.tsv",
        "overlap": 1,
        "name": "Passage relevance: grade passages for a query",
        "description": (
            "Five search queries written for this demo, with 25 passages pooled from three made-up runs and graded "
            "0-3. Three queries come graded by an assessor; the other two wait for assessors. The made-up llm-demo "
            "qrels are an external judge's grades, and BM25 scores every passage."
        ),
        "rankers": (("bm25", "bm25"),),
        # Robustness probes of every kind the type offers, judged by the rankers (tasktypes.probes): made where the
        # campaign has none, on the campaign just made and on one an earlier version made without them.
        "probes": True,
        "more": (
            ("trec-run", FIXTURES / "passage_demo" / "runs.txt", ("--depth", "5")),
            ("collection", FIXTURES / "passage_demo" / "collection.tsv", ()),
            ("trec-qrels", FIXTURES / "passage_demo" / "assessor.qrels", ()),
            ("judge-qrels", FIXTURES / "passage_demo" / "llm-judge.qrels", ("--judge", "llm-demo")),
        ),
    },
    "nugget-demo": {
        "task_type": "nugget_evaluation", "format": "rag-answers", "path": FIXTURES / "nugget_demo" / "answers",
        "overlap": 2,
        "name": "Nugget evaluation: which facts do the answers hold?",
        "description": (
            "Four questions written for this demo, each answered by four made-up runs with cited passages. Three "
            "questions come with their nuggets, each answer marked by two assessors and by the made-up judge "
            "auto-nuggets. The fourth has no nuggets yet: assessors write them (a list to start from is offered), "
            "a researcher freezes a list on the Nuggets page, and its answers open for marking."
        ),
        "rankers": (),
        "more": (
            ("nuggetizer-nuggets", FIXTURES / "nugget_demo" / "nuggets.jsonl", ()),
            ("nuggetizer-nuggets", FIXTURES / "nugget_demo" / "proposals.jsonl", ("--as-proposals",)),
            ("nuggetizer-assignments", FIXTURES / "nugget_demo" / "marks.jsonl", ()),
            ("nuggetizer-assignments", FIXTURES / "nugget_demo" / "auto-nuggets.jsonl", ("--judge", "auto-nuggets")),
        ),
    },
    "assist-demo": {
        "task_type": "qa_correctness", "format": "qa-eval-jsonl", "path": FIXTURES / "assist_demo" / "NQ_DPR.jsonl",
        "overlap": 7,
        "name": "Assistance experiment and adjudication: does a model's verdict sway annotators?",
        "description": (
            "DPR's answers to 120 NQ-open 301 questions, with GPT-4's verdicts as an external judge. Six simulated "
            "annotators have judged every answer: three blind, right 80% of the time against the study's final "
            "verdict; three shown GPT-4's verdict, who accept it when it is right and copy it 30% of the time when it "
            "is wrong. The adjudicator has settled all but 12 answers with the study's verdict; those 12 wait in "
            "the adjudication queue. The report's Assistance experiment section compares the arms. One slot per "
            "answer is left for a demo annotator, who is put in an arm at their first answer."
        ),
        "rankers": (),
        "more": (("judge-scores", FIXTURES / "assist_demo" / "gpt-4.tsv", ("--judge", "gpt-4")),),
        # Run once, when the campaign is first made: tasktypes.demo_assist.
        "simulate": FIXTURES / "assist_demo" / "truth.tsv",
    },
    "pairwise-demo": {
        "task_type": "pairwise_preference", "format": "pairwise-outputs",
        "path": FIXTURES / "pairwise_demo" / "outputs.jsonl", "overlap": 3,
        "name": "Pairwise preference: which of two answers is better?",
        "description": (
            "Eight everyday questions written for this demo, each answered by four made-up systems; every two "
            "systems' answers to a question make a pair (48 pairs). Three simulated raters have judged the pairs of "
            "six questions on the side-by-side page, one of them leaning to the left side now and then; the other "
            "two questions' pairs wait for three raters each. The made-up judge-demo's verdicts are an external "
            "judge's; an LLM judge in both orders is one click away on the Judges page."
        ),
        "rankers": (),
        # Run once, when the campaign is first made: tasktypes.pairwise_preference.demo.
        "then": pairwise_demo_simulate,
    },
}


class Command(BaseCommand):
    help = "Create the demo users and campaigns (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--no-reports", action="store_true",
                            help="do not build the demo reports (for tests that open none): each first open then "
                                 "queues its build")
        parser.add_argument("--campaign", action="append", choices=list(DEMOS), dest="campaigns", metavar="SLUG",
                            help="load only this demo campaign (repeat for more; default: all of them, "
                                 f"{', '.join(DEMOS)})")

    def handle(self, *args, no_reports: bool = False, campaigns: list[str] | None = None, **options):
        users = demo_users_ensure()
        demos = {slug: demo for slug, demo in DEMOS.items() if not campaigns or slug in campaigns}
        runs = []  # the demo rankers' runs started now
        made = []  # the demo campaigns made now
        for slug, demo in demos.items():
            created = not Campaign.objects.filter(slug=slug).exists()
            if created:
                made.append(slug)
                call_command(
                    "import_data", "--campaign", slug, "--task-type", demo["task_type"], "--format", demo["format"],
                    "--overlap", str(demo["overlap"]), "--owner", DEMO_RESEARCHER, str(demo["path"]),
                    stdout=self.stdout,
                )
                for fmt, path, extra in demo.get("more", ()):
                    call_command("import_data", "--campaign", slug, "--task-type", demo["task_type"], "--format", fmt,
                                 *extra, str(path), stdout=self.stdout)
            with transaction.atomic():
                campaign = Campaign.objects.get(slug=slug)
                if campaign.name == slug or (campaign.name == demo["name"]
                                             and campaign.description in demo.get("former_descriptions", ())):
                    campaign.name, campaign.description = demo["name"], demo["description"]
                    campaign.save(update_fields=["name", "description"])
                membership_add(campaign=campaign, user=users[DEMO_RESEARCHER], role=Role.RESEARCHER)
                for username in DEMO_ANNOTATORS:
                    membership_add(campaign=campaign, user=users[username], role=Role.ANNOTATOR)
                membership_add(campaign=campaign, user=users[DEMO_ADJUDICATOR], role=Role.ADJUDICATOR)
                for name, family in demo["rankers"]:
                    if not Judge.objects.filter(campaign=campaign, name=name).exists():
                        run = judge_run_start(campaign=campaign, name=name, family=family, config={},
                                              created_by=users[DEMO_RESEARCHER])
                        runs.append((run, name, slug))
            if created and demo.get("simulate"):
                judgments = assist_demo_simulate(campaign=campaign, truth_path=demo["simulate"],
                                                 adjudicator=users[DEMO_ADJUDICATOR])
                self.stdout.write(f"simulated {judgments} judgments on {slug}")
            if demo.get("raters") and not ais_demo_raters_present(campaign=campaign):
                self.stdout.write(f"simulated {ais_demo_simulate(campaign=campaign)} ratings on {slug}")
            if created and demo.get("then"):
                self.stdout.write(f"simulated {demo['then'](campaign=campaign)} verdicts on {slug}")
        endpoint = ModelEndpoint.objects.filter(name=DEMO_ENDPOINT).first()
        if endpoint is None:
            call_command("model_endpoint", "add", DEMO_ENDPOINT, "--url", "http://127.0.0.1:8080/v1",
                         *[arg for slug in demos for arg in ("--campaign", slug)],
                         "--notes", "A server you start on this machine's port 8080 (llama.cpp server, vLLM, Ollama).",
                         stdout=self.stdout)
        else:  # granted to the demo campaigns made since it was (load_demo --campaign)
            endpoint.campaigns.add(*Campaign.objects.filter(slug__in=made))
        # The rankers judge here, before the reports are built, so that a newcomer's first open shows them, current,
        # rather than an update under way once the worker has caught up (their queued batches then do nothing).
        for run, name, slug in runs:
            self.stdout.write(f"judge {name} on {slug}: {judge_run_here(run.id)} verdicts (run {run.id})")
        for slug, demo in demos.items():
            if demo.get("probes"):
                judged = _demo_probes(Campaign.objects.get(slug=slug), rankers=demo["rankers"], users=users)
                if judged is not None:
                    self.stdout.write(f"made {slug}'s probes; its rankers judged them: {judged} verdicts")
        for slug in () if no_reports else demos:  # agreement_report --stored builds and stores where none is
            call_command("agreement_report", "--campaign", slug, "--stored", "--json", stdout=io.StringIO())
            self.stdout.write(f"report of {slug} stored")
        self.stdout.write(self.style.SUCCESS(f"Demo ready: campaigns {', '.join(demos)}; users {', '.join(users)}"))


def _demo_probes(campaign: Campaign, *, rankers, users: dict) -> int | None:
    """The probes of every kind CAMPAIGN's task type offers, judged here by each of RANKERS' judges, where the campaign
    has no probe yet (a fresh demo, or one an earlier version made without them); None where it has some, which are
    left as they are (a second load changes nothing). Returns the verdicts written."""
    if Probe.objects.filter(campaign=campaign).exists():
        return None
    probes_make(campaign=campaign, kinds=list(task_type_get(campaign.task_type).probe_kinds))
    judges = Judge.objects.filter(campaign=campaign, name__in=[name for name, _ in rankers]).order_by("pk")
    return sum(probes_judge_here(judge=judge, user=users[DEMO_RESEARCHER]) for judge in judges)


def demo_users_ensure() -> dict:
    """The demo's accounts by username, made with DEMO_PASSWORD when missing; the researcher may make campaigns
    ("Can add campaign"), as staff let a researcher on a real install."""
    User = get_user_model()
    users = {}
    for username in (DEMO_RESEARCHER, *DEMO_ANNOTATORS, DEMO_ADJUDICATOR):
        user, created = User.objects.get_or_create(username=username)
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        users[username] = user
    campaign_creator_grant(user=users[DEMO_RESEARCHER])
    return users
