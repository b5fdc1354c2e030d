import io
import pytest
from django.core.management import call_command
from tasktypes.management.commands.load_demo import DEMOS, DEMO_PASSWORD


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_shots(login_page, live_server, monkeypatch):
    from judges import services
    monkeypatch.setattr(services, "_batches_publish", lambda **kw: None)
    call_command("load_demo", stdout=io.StringIO())
    page = login_page("researcher", DEMO_PASSWORD)
    for slug in DEMOS:
        page.goto(f"{live_server.url}/campaigns/{slug}/report/")
        page.evaluate("() => { for (const d of document.querySelectorAll('details')) d.open = true; }")
        page.screenshot(path=f"/tmp/demo-{slug}.png", full_page=True)
