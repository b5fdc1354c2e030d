"""A verdict's writes in one statement: the judgment inserted, the rows it changes updated, the campaign's data version
made, in one round trip to PostgreSQL (issue 52: a submit's queries).

A first verdict writes four rows (the judgment, its assignment, the unit's count, the data version): four statements,
each a round trip and a parse and plan on the server, where the work is four row writes. On PostgreSQL
`written_together` sends them as one statement, its writes in data-modifying WITH clauses; elsewhere (SQLite, which
runs in-process and has no such clauses) they run one after the other as the ORM writes them. Either way they are the
same writes, compiled by Django's own compilers from the same model instance and querysets (their fields prepared,
their defaults and auto_now_add applied as a save applies them).

Order. A campaign's data version is the last lock every writing transaction takes (annotate.services.data_version).
PostgreSQL runs a statement's WITH clauses in no order it promises, so the version's update here is made to read the
other clauses' results before it writes: a condition on their counts, always true, that it must evaluate first, which
runs them to their end. The version's row is thus locked after every other row, as when the statements ran apart.
"""

from django.db import connection, models
from django.db.models import QuerySet, sql

from annotate.services.data_version import campaign_data_changed, campaign_data_changed_query


def written_together(*, created: models.Model, updates: list[tuple[QuerySet, dict]], campaign_id: int) -> None:
    """INSERT CREATED (a new, unsaved instance; its pk set on return), then each of UPDATES (a queryset, the values
    its update() would be given), then a new data version of campaign CAMPAIGN_ID (campaign_data_changed). Call inside
    transaction.atomic."""
    if connection.vendor != "postgresql":
        created.save(force_insert=True)
        for queryset, values in updates:
            queryset.update(**values)
        campaign_data_changed(campaign_id=campaign_id)
        return
    clauses, params = [], []
    for n, (queryset, values) in enumerate(updates):
        update_sql, update_params = _update_sql(queryset, values)
        clauses.append(f"updated_{n} AS ({update_sql} RETURNING 1)")
        params += update_params
    insert_sql, insert_params = _insert_sql(created)
    clauses.append(f"inserted AS ({insert_sql})")
    params += insert_params
    written = " + ".join(["(SELECT COUNT(*) FROM inserted)"]
                         + [f"(SELECT COUNT(*) FROM updated_{n})" for n in range(len(updates))])
    version_sql, version_params = _update_sql(*campaign_data_changed_query(campaign_id=campaign_id))
    clauses.append(f"version AS ({version_sql} AND {written} >= 0 RETURNING 1)")
    params += version_params
    pk = connection.ops.quote_name(created._meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {', '.join(clauses)} SELECT (SELECT {pk} FROM inserted), (SELECT COUNT(*) FROM version)",
                       params)
        created_pk, versioned = cursor.fetchone()
    created.pk = created_pk
    created._state.adding, created._state.db = False, connection.alias
    if not versioned:  # the campaign's first change: its version row is made (campaign_data_changed)
        campaign_data_changed(campaign_id=campaign_id)


def _update_sql(queryset: QuerySet, values: dict) -> tuple[str, list]:
    """The UPDATE that QUERYSET.update(**VALUES) runs, and its parameters: its WHERE clause last."""
    query = queryset.query.chain(sql.UpdateQuery)
    query.add_update_values(values)
    update_sql, update_params = query.get_compiler(connection=connection).as_sql()
    return update_sql, list(update_params)


def _insert_sql(created: models.Model) -> tuple[str, list]:
    """The INSERT that CREATED.save() runs for a new row, returning its primary key, and its parameters."""
    meta = created._meta
    fields = [field for field in meta.local_concrete_fields if not field.generated
              and not (field.primary_key and getattr(created, field.attname) is None)]
    query = sql.InsertQuery(type(created))
    query.insert_values(fields, [created])
    compiler = query.get_compiler(connection=connection)
    compiler.returning_fields = [meta.pk]
    ((insert_sql, insert_params),) = compiler.as_sql()
    return insert_sql, list(insert_params)
