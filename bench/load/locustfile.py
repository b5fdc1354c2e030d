"""Annotators under load: each simulated user signs in as one of the seeded annotators (load0, load1, ...), opens
a campaign of one task type and judges unit after unit as the annotation page does (htmx requests).

Two request names are timed: "next unit" (GET annotate/: the unit leased to the annotator, a new lease when
none) and "submit" (POST annotate/submit/: records the answer and returns the next unit). Every submit the
server acknowledged (200, its answer not refused) is appended to ACK_DIR/<pid>.acks as "campaign assignment",
so that check.py can verify the database holds each exactly once.
"""

import itertools
import json
import os
import re
from pathlib import Path

import gevent
from locust import HttpUser, between, events, task

PASSWORD = "load-test-password"
# Seconds an annotator spends on a unit before answering, drawn uniformly: "2,6" by default, several times faster
# than people judge an answer (CONCORD_LOAD_WAIT="0.5,1.5" stresses the server harder).
WAIT = tuple(float(x) for x in os.environ.get("CONCORD_LOAD_WAIT", "2,6").split(","))
# Seconds after the last sign-in before the figures start (the requests queued behind the sign-ins served).
SETTLE_SECONDS = 15
ACK_DIR = Path(os.environ.get("CONCORD_LOAD_ACK_DIR", "var/load"))
# Users per task type, in turn: more on the big QA campaign.
CAMPAIGNS = ["load-qa", "load-qa", "load-ais", "load-images", "load-ranking"]
ANSWERS = {
    "load-qa": lambda page: {"verdict": "yes"},
    "load-ais": lambda page: {"interpretable": "yes", "supported": "yes"},
    "load-images": lambda page: {"grade": "2"},
    # The page's order kept, as "Keep this order" sends it: a first ranking must say how its order was settled.
    "load-ranking": lambda page: {"ranking": json.dumps({"rankings": {"overall": [[k] for k in _keys(page)]},
                                                         "order_confirmed": {"overall": "kept"}})},
}
ASSIGNMENT = re.compile(r'name="assignment" value="(\d+)"')
RANK_KEY = re.compile(r'class="rank-item[^"]*"[^>]*data-key="([^"]+)"')
REFUSED = re.compile(r'id="annotate-error"')
_numbers = itertools.count()
_signed_in = itertools.count(1)
_acks = None


def _keys(page: str) -> list[str]:
    return RANK_KEY.findall(page)


def _ack(campaign: str, assignment: int) -> None:
    global _acks
    if _acks is None:
        ACK_DIR.mkdir(parents=True, exist_ok=True)
        _acks = open(ACK_DIR / f"{os.getpid()}.acks", "a", buffering=1)
    _acks.write(f"{campaign} {assignment}\n")


@events.quitting.add_listener
def _close(**_):
    if _acks is not None:
        _acks.close()


class Annotator(HttpUser):
    wait_time = between(*WAIT)

    def on_start(self):
        number = next(_numbers)
        self.username = f"load{number}"
        self.campaign = CAMPAIGNS[number % len(CAMPAIGNS)]
        self.client.get("/accounts/login/", name="login page")
        response = self.client.post("/accounts/login/", name="login", data={
            "username": self.username, "password": PASSWORD,
            "csrfmiddlewaretoken": self.client.cookies.get("csrftoken", "")})
        if "sessionid" not in self.client.cookies:
            raise RuntimeError(f"{self.username} could not sign in: {response.status_code}")
        self.page = None
        # The figures start once every annotator has signed in, and the requests queued behind the sign-ins have
        # been served (SETTLE_SECONDS later): fifty password checks (PBKDF2, by design slow) at once hold the CPU for
        # seconds, and that is not what "next unit" and "submit" are measured for; at 200 annotators the requests
        # that waited seconds behind them were still being answered when the figures started, and set their p99.
        if next(_signed_in) == self.environment.runner.target_user_count:
            gevent.spawn_later(SETTLE_SECONDS, self.environment.stats.reset_all)

    def _headers(self) -> dict:
        return {"HX-Request": "true", "X-CSRFToken": self.client.cookies.get("csrftoken", ""),
                "Referer": self.host + f"/campaigns/{self.campaign}/annotate/"}

    @task
    def judge_one(self):
        if self.page is None:
            with self.client.get(f"/campaigns/{self.campaign}/annotate/", name="next unit", headers=self._headers(),
                                 catch_response=True) as response:
                if response.status_code != 200:
                    response.failure(f"{response.status_code}: {response.text[:200]}")
                    return
                self.page = response.text
        found = ASSIGNMENT.search(self.page)
        if found is None:  # nothing left to judge in this campaign
            self.page = None
            return
        assignment = int(found.group(1))
        data = {"assignment": assignment, **ANSWERS[self.campaign](self.page)}
        with self.client.post(f"/campaigns/{self.campaign}/annotate/submit/", name="submit", data=data,
                              headers=self._headers(), catch_response=True) as response:
            if response.status_code != 200:
                response.failure(f"{response.status_code}: {response.text[:200]}")
                self.page = None
                return
            if REFUSED.search(response.text):
                response.failure(f"answer refused: {response.text[:300]}")
                self.page = None
                return
            _ack(self.campaign, assignment)
            # Every other unit the fragment the submit returned is used, as the page does; else the next unit
            # is asked for again, as after a reload.
            self.page = response.text if assignment % 2 else None
