"""annotate.precompiled: a query compiled once runs again with other values and gives what building it anew gives."""

from datetime import timedelta

import pytest
from django.db.models import Exists, OuterRef
from django.utils import timezone

from annotate.models import Assignment, HumanJudgment, JudgmentKind, Unit
from annotate.precompiled import Precompiled
from tests.factories import CampaignFactory, ItemFactory, TopicFactory, UnitFactory, UserFactory


def _assignments(campaign, annotator, now):
    judged = HumanJudgment.objects.filter(unit=OuterRef("unit"), annotator=OuterRef("annotator"))
    return (Assignment.objects.filter(unit__campaign=campaign, annotator=annotator, expires_at__gt=now)
            .select_related("unit__topic", "unit__item").annotate(judged=Exists(judged)).order_by("pk"))


def _world():
    """Two campaigns, two annotators, leases with various expiries and a judgment (JSON value, a moment)."""
    now = timezone.now()
    made = []
    for _ in range(2):
        campaign = CampaignFactory()
        topic = TopicFactory(campaign=campaign)
        units = [UnitFactory(campaign=campaign, topic=topic, item=ItemFactory(campaign=campaign, topic=topic),
                             position=n) for n in range(3)]
        made.append((campaign, units))
    people = [UserFactory(), UserFactory()]
    for _, units in made:
        for n, unit in enumerate(units):
            for m, person in enumerate(people):
                Assignment.objects.create(unit=unit, annotator=person, leased_at=now,
                                          expires_at=now + timedelta(minutes=n - m))
        HumanJudgment.objects.create(unit=units[0], annotator=people[0], kind=JudgmentKind.ANNOTATION,
                                     value={"grade": 2, "note": "ü"}, label="2")
    return now, [campaign for campaign, _ in made], people


@pytest.mark.django_db
def test_a_precompiled_query_gives_what_the_query_built_anew_gives():
    now, campaigns, people = _world()
    held = Precompiled(_assignments)
    judgments = Precompiled(lambda annotator, since: HumanJudgment.objects.filter(
        annotator=annotator, created_at__gte=since).values_list("value", "created_at", "unit__topic__text"))
    for campaign in campaigns:
        for person in people:
            for moment in (now - timedelta(minutes=5), now, now + timedelta(seconds=90)):
                built = list(_assignments(campaign.pk, person.pk, moment))
                ran = list(held(campaign=campaign.pk, annotator=person.pk, now=moment))
                assert [(a.pk, a.unit.topic.text, a.unit.item.text, a.judged, a.expires_at) for a in ran] \
                    == [(a.pk, a.unit.topic.text, a.unit.item.text, a.judged, a.expires_at) for a in built]
                assert list(judgments(annotator=person.pk, since=moment)) == list(
                    HumanJudgment.objects.filter(annotator=person.pk, created_at__gte=moment)
                    .values_list("value", "created_at", "unit__topic__text"))
    # An integer field's value (PostgreSQL's backend wraps it, in psycopg's Int4) as well as ids.
    positions = Precompiled(lambda campaign, position: Unit.objects.filter(campaign=campaign, position__gte=position)
                            .order_by("pk"))
    for position in range(4):
        assert list(positions(campaign=campaigns[1].pk, position=position)) == list(
            Unit.objects.filter(campaign=campaigns[1].pk, position__gte=position).order_by("pk"))
    assert len(positions(campaign=campaigns[1].pk, position=1)) == 2
    assert [a.judged for a in held(campaign=campaigns[0].pk, annotator=people[0].pk, now=now - timedelta(hours=1))] \
        == [True, False, False]  # the rows differ between the values, so the comparison above compared something
    assert list(judgments(annotator=people[0].pk, since=now - timedelta(hours=1)))[0][0] == {"grade": 2, "note": "ü"}


@pytest.mark.django_db
def test_a_precompiled_queryset_runs_as_it_is():
    units = Precompiled(lambda campaign: Unit.objects.filter(campaign=campaign))
    campaign = CampaignFactory()
    UnitFactory(campaign=campaign)
    queryset = units(campaign=campaign.pk)
    for chained in (lambda: queryset.filter(position=0), lambda: queryset.first(), lambda: queryset.count()):
        with pytest.raises(TypeError, match="runs as it is"):
            chained()
    assert len(queryset) == 1


@pytest.mark.django_db
def test_a_query_whose_sql_depends_on_its_values_is_refused():
    unused = Precompiled(lambda campaign, annotator: Unit.objects.filter(campaign=campaign))
    with pytest.raises(ValueError, match=r"\['annotator'\] never reach its SQL"):
        unused(campaign=1, annotator=2)
    branching = Precompiled(lambda unit: Unit.objects.filter(pk=unit) if unit % 2 else
                            Unit.objects.filter(position=unit))
    with pytest.raises(ValueError, match="changes with the values"):
        branching(unit=3)
    with pytest.raises(TypeError, match="not an id, a text or a moment"):
        Precompiled(lambda ids: Unit.objects.filter(pk__in=ids))(ids=[1, 2])


@pytest.mark.django_db
def test_a_first_call_runs_one_query_and_variants_compile_apart(django_assert_num_queries):
    """Compiling runs nothing (the stand-ins' query is never run, not even by the copy each call makes); a query with
    variants compiles one per variant, and a call must name its variant exactly when it has them."""
    campaign = CampaignFactory()
    UnitFactory(campaign=campaign, position=4)
    by_variant = Precompiled(lambda variant, campaign: Unit.objects.filter(campaign=campaign).values_list(
        "position" if variant == "position" else "pk", flat=True), variants=True)
    with django_assert_num_queries(1):
        positions = list(by_variant(variant="position", campaign=campaign.pk))
    with django_assert_num_queries(1):
        ids = list(by_variant(variant="pk", campaign=campaign.pk))
    assert positions == [4] and ids == list(Unit.objects.filter(campaign=campaign).values_list("pk", flat=True))
    with pytest.raises(TypeError, match="variant"):
        by_variant(campaign=campaign.pk)
    with pytest.raises(TypeError, match="variant"):
        Precompiled(lambda campaign: Unit.objects.filter(campaign=campaign))(variant="x", campaign=campaign.pk)


@pytest.mark.django_db
def test_on_postgresql_a_long_statement_s_parse_is_kept_by_the_driver():
    """annotate.apps sets psycopg's limits for keeping a statement's parse (annotate.precompiled.driver_parse_cached)
    so that the request's long precompiled statements (up to 6 kB, 82 parameters) are parsed once: run twice, the
    second run finds the parse in psycopg's cache. On SQLite there is no such parse."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("psycopg's statement parse is PostgreSQL's")
    from psycopg import _queries

    from annotate.precompiled import DRIVER_CACHED_LENGTH, DRIVER_CACHED_PARAMS

    assert (_queries.MAX_CACHED_STATEMENT_LENGTH, _queries.MAX_CACHED_STATEMENT_PARAMS) == (
        DRIVER_CACHED_LENGTH, DRIVER_CACHED_PARAMS)
    now, campaigns, people = _world()
    # 70 constant parameters besides the values: more than psycopg keeps the parse of by default (50).
    wide = Precompiled(lambda campaign, annotator, now: _assignments(campaign, annotator, now)
                       .exclude(pk__in=list(range(-70, 0))))
    sql, params = wide.sql(campaign=campaigns[0].pk, annotator=people[0].pk, now=now)
    assert len(params) > 50
    rows = list(wide(campaign=campaigns[0].pk, annotator=people[0].pk, now=now))
    hits = _queries._query2pg_client.cache_info().hits
    assert [a.pk for a in wide(campaign=campaigns[0].pk, annotator=people[0].pk, now=now)] == [a.pk for a in rows]
    assert _queries._query2pg_client.cache_info().hits == hits + 1
