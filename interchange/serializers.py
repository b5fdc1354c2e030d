"""Serializers of the import and archive API (interchange.api)."""

from rest_framework import serializers

from interchange.importers.service import formats


class ImportRequestSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=[])
    files = serializers.ListField(child=serializers.FileField(), allow_empty=False)
    system = serializers.CharField(required=False, allow_blank=True, max_length=200)
    judge = serializers.CharField(required=False, allow_blank=True, max_length=100)
    score_judge = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                        help_text="label-studio: import the items' scores as this external judge.")
    depth = serializers.IntegerField(required=False, min_value=1,
                                     help_text="trec-run into image_relevance: pool depth per run (default 25).")
    tag = serializers.CharField(required=False, allow_blank=True, max_length=100,
                                help_text="trec-run into image_relevance: a tag for these runs, e.g. clip-based.")
    clip = serializers.BooleanField(required=False, default=False,
                                    help_text="judge-qrels: set grades off the campaign's scale to its nearest end "
                                              "(counted in grades_clipped) instead of refusing the file.")
    repeat_assessors = serializers.BooleanField(
        required=False, default=False,
        help_text="trec-preferences, pairwise-jsonl: a pair judged again by an assessor the file does not name is "
                  "another assessor's verdict (assessor 1, 2, ... in the file's order) instead of a conflict.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["format"].choices = list(formats())  # every task type's formats (annotate.task_types)


class ImportSummarySerializer(serializers.Serializer):
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
    duplicate_rows = serializers.IntegerField()
    judge_rows_matched_by_position = serializers.IntegerField()
    topics = serializers.IntegerField()
    items = serializers.IntegerField()
    items_with_human_verdict = serializers.IntegerField()
    items_by_judge = serializers.DictField(child=serializers.IntegerField())
    failed_by_judge = serializers.DictField(child=serializers.IntegerField())
    items_left_for_humans = serializers.IntegerField()
    task_type = serializers.CharField()
    answers_created = serializers.IntegerField()
    documents_created = serializers.IntegerField()
    rankings_created = serializers.IntegerField()
    rankings_already_there = serializers.IntegerField()
    annotations_cancelled = serializers.IntegerField()
    qrels_added = serializers.IntegerField()
    answers = serializers.IntegerField()
    documents = serializers.IntegerField()
    rankings = serializers.IntegerField()
    topics_ranked = serializers.IntegerField()
    rows_read = serializers.IntegerField()
    rated_rows = serializers.IntegerField()
    units_not_queued = serializers.IntegerField()
    images_stored = serializers.IntegerField()
    images_already_there = serializers.IntegerField()
    images_attached = serializers.IntegerField()
    runs = serializers.ListField(child=serializers.CharField())
    runs_already_there = serializers.ListField(child=serializers.CharField())
    pool_sizes = serializers.DictField(child=serializers.IntegerField())
    judge_lines_outside = serializers.IntegerField(help_text="judge-qrels: lines naming no item of the campaign, "
                                                              "not imported.")
    grades_clipped = serializers.IntegerField(help_text="judge-qrels with clip: grades off the campaign's scale set "
                                                        "to its nearest end.")
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


class ImportJobSerializer(serializers.Serializer):
    """An import job (interchange.jobs): what POST .../import/ answers (202) and GET .../imports/ID/ shows."""

    id = serializers.IntegerField()
    url = serializers.CharField(help_text="This job's API URL: GET it until status is done or failed.")
    page = serializers.CharField(help_text="The job's page in the browser.")
    campaign = serializers.CharField()
    format = serializers.CharField()
    parameters = serializers.DictField(help_text="system, judge, score_judge, depth, tag as given.")
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
