# Import jobs now belong to the interchange app (interchange 0001 takes the model over, table and all): forgotten
# here without touching the database.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("tasktypes", "0002_import_job_deliveries"),
        ("interchange", "0001_import_jobs"),
    ]

    operations = [migrations.SeparateDatabaseAndState(database_operations=[], state_operations=[
        migrations.DeleteModel(name="ImportJob"),
    ])]
