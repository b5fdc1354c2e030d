# Import jobs move from the tasktypes app to interchange: the table tasktypes' migrations made stays as it is
# (db_table), only the model's app changes (tasktypes 0003 forgets it there).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('annotate', '0012_task_type_registered'),
        ('tasktypes', '0002_import_job_deliveries'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [migrations.SeparateDatabaseAndState(database_operations=[], state_operations=[
        migrations.CreateModel(
            name='ImportJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('format', models.CharField(max_length=32)),
                ('parameters', models.JSONField(blank=True, default=dict, help_text="The import's options as given: system, judge, score_judge, depth, tag.")),
                ('files', models.JSONField(blank=True, default=list, help_text='The uploaded files as their sender named them: [{"name", "size"}], sizes in bytes.')),
                ('bytes_total', models.PositiveBigIntegerField(default=0, help_text="The uploaded files' sizes added up, in bytes.")),
                ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='queued', max_length=16)),
                ('rows_read', models.PositiveBigIntegerField(default=0, help_text='Lines or records read, when the job ended.')),
                ('bytes_read', models.PositiveBigIntegerField(default=0, help_text='Bytes of the files read, when the job ended.')),
                ('summary', models.JSONField(blank=True, help_text="The import's summary (ImportSummary.as_dict()).", null=True)),
                ('error', models.TextField(blank=True, help_text='Why the import failed: `file:line: field: what is wrong`.')),
                ('deliveries', models.PositiveSmallIntegerField(default=0, help_text='How many times a worker has started this job. A start after a worker was lost running it counts again; past settings.IMPORT_MAX_DELIVERIES the job fails instead of running.')),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('campaign', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='import_jobs', to='annotate.campaign')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'db_table': 'tasktypes_importjob',
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['campaign', 'status'], name='import_job_campaign_status')],
                'constraints': [models.CheckConstraint(condition=models.Q(('status__in', ['queued', 'running', 'done', 'failed'])), name='import_job_status'), models.UniqueConstraint(condition=models.Q(('status', 'running')), fields=('campaign',), name='import_job_one_running')],
            },
        ),
    ])]
