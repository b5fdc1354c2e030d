"""Serializers of the import and archive API (interchange.api)."""

from rest_framework import serializers

from annotate.task_types.formats import Count, Parameter, parameter_help
from annotate.task_types.registry import import_counts, import_formats_all, import_parameters
from interchange.importers.service import formats


def parameter_field(parameter: Parameter) -> serializers.Field:
    """The API field of an import parameter (annotate.task_types.formats), its help naming the formats that take
    it."""
    help_text = parameter_help(parameter, import_formats_all())
    if parameter.kind is bool:
        return serializers.BooleanField(required=False, default=False, help_text=help_text)
    if parameter.kind is int:
        return serializers.IntegerField(required=False, min_value=parameter.min_value, help_text=help_text)
    return serializers.CharField(required=False, allow_blank=True, max_length=parameter.max_length,
                                 help_text=help_text)


def count_field(count: Count) -> serializers.Field:
    """The API summary's field of a format's count, its empty value when the import did not count it."""
    declared = {"required": False, "default": count.empty(), "help_text": count.help or None}
    if count.kind is dict:
        return serializers.DictField(child=serializers.IntegerField(), **declared)
    if count.kind is list:
        return serializers.ListField(child=serializers.CharField(), **declared)
    return serializers.IntegerField(**declared)


class ImportRequestSerializer(serializers.Serializer):
    """An import's request: its format, its files, and the parameters the registered formats take (one field
    each, from their declarations)."""

    format = serializers.ChoiceField(choices=[])
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)

    def get_fields(self):
        fields = super().get_fields()
        fields["format"].choices = list(formats())  # every task type's formats (annotate.task_types)
        for name, parameter in import_parameters().items():
            fields[name] = parameter_field(parameter)
        return fields


class ImportSummarySerializer(serializers.Serializer):
    """An import's summary: the figures every import has, then each count a format or a task type declares (0,
    [] or {} when the import did not count it)."""

    campaign = serializers.CharField()
    format = serializers.CharField()
    files = serializers.ListField(child=serializers.CharField())
    topics_created = serializers.IntegerField()
    items_created = serializers.IntegerField()
    system_outputs_created = serializers.IntegerField()
    systems = serializers.ListField(child=serializers.CharField())
    human_judgments_created = serializers.IntegerField()
    model_judgments_created = serializers.DictField(child=serializers.IntegerField())
    units_created = serializers.IntegerField()
    items_categorised = serializers.IntegerField(help_text="Items the import put in a category or another one (a "
                                                           "category key or column, or the item-categories format).")
    topics = serializers.IntegerField()
    items = serializers.IntegerField()
    items_with_human_verdict = serializers.IntegerField()
    items_by_judge = serializers.DictField(child=serializers.IntegerField())
    failed_by_judge = serializers.DictField(child=serializers.IntegerField())
    items_left_for_humans = serializers.IntegerField()
    task_type = serializers.CharField()
    lines_unused = serializers.ListField(child=serializers.DictField(), help_text=(
        'The lines read and not used, by reason, the most frequent first: {"reason", "lines", "example"}, the '
        'example being the first such line as `file:line: field \'value\'`. Empty when every line was used; an '
        'import that would use none of its lines is refused.'))
    notes = serializers.ListField(child=serializers.CharField(),
                                  help_text="What a task type's own formats report beside the figures (collection: "
                                            "lines read, passages given their text, passages still without text).")
    judge_runs = serializers.ListField(child=serializers.DictField(), help_text=(
        'Runs started on the new items by the campaign option judge_new_items: {"judge", "run", "items"}, or '
        '{"judge", "error"} for a judge that could not start.'))
    seconds = serializers.FloatField()

    def get_fields(self):
        fields = super().get_fields()
        for name, count in import_counts().items():
            fields.setdefault(name, count_field(count))
        return fields


class ImportJobSerializer(serializers.Serializer):
    """An import job (interchange.jobs): what POST .../import/ answers (202) and GET .../imports/ID/ shows."""

    id = serializers.IntegerField()
    url = serializers.CharField(help_text="This job's API URL: GET it until status is done or failed.")
    page = serializers.CharField(help_text="The job's page in the browser.")
    campaign = serializers.CharField()
    format = serializers.CharField()
    parameters = serializers.DictField(help_text="The import's parameters as given (those left empty are left out).")
    files = serializers.ListField(child=serializers.DictField(), help_text='[{"name", "size"}], sizes in bytes.')
    status = serializers.ChoiceField(
        choices=["queued", "running", "stalled", "done", "failed"],
        help_text="queued: waiting for a worker; running: a worker holds it; stalled: marked running, but no worker "
                  "has shown it holds the job for a minute (its worker died or stopped: the job runs again when a "
                  "worker takes its message back, or fails after IMPORT_MAX_STARTS starts); done; failed.")
    rows_read = serializers.IntegerField()
    bytes_read = serializers.IntegerField()
    bytes_total = serializers.IntegerField()
    percent = serializers.IntegerField(help_text="bytes_read as a share of bytes_total, 0-100.")
    summary = ImportSummarySerializer(allow_null=True, help_text="The import's summary once done; null before.")
    error = serializers.CharField(help_text="When failed: file:line: field: what is wrong. Nothing was imported.")
    created_by = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class ImportErrorSerializer(serializers.Serializer):
    detail = serializers.CharField(help_text="file:line: field: what is wrong")


class ArchiveImportRequestSerializer(serializers.Serializer):
    archive = serializers.FileField(help_text="A campaign archive (.zip) written by export_campaign or "
                                              "GET /api/campaigns/SLUG/export/.")
    slug = serializers.SlugField(required=False, allow_blank=True, max_length=100,
                                 help_text="Import under this slug instead of the archived one.")


class ArchiveImportSummarySerializer(serializers.Serializer):
    campaign = serializers.CharField(help_text="The new campaign's slug.")
    task_type = serializers.CharField()
    archived_as = serializers.CharField(help_text="The campaign's slug in the archive.")
    counts = serializers.DictField(child=serializers.IntegerField(), help_text="Rows written, per table.")
    media_files = serializers.IntegerField()
    users_created = serializers.ListField(child=serializers.CharField(),
                                          help_text="Accounts created inactive, with no usable password.")
    runs_stopped = serializers.IntegerField(help_text="Judge runs that were active when exported, now cancelled.")
    seconds = serializers.FloatField()
