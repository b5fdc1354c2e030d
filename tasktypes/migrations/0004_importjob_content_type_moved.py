# Import jobs moved to the interchange app (tasktypes 0003, interchange 0001), but the content type "tasktypes |
# importjob" stayed, with its four permissions: the admin's permission lists showed both, and a grant of the old ones
# meant nothing. Here the old content type becomes interchange's where interchange has none yet (an installation
# upgraded from before the move: its permissions and grants come along); where both exist (one upgraded since), the
# users' and groups' grants of the old permissions move to the new ones and the old content type goes, as
# `manage.py remove_stale_contenttypes` would delete it. A new installation has neither yet (content types are made
# after its migrations): nothing to do.

from django.conf import settings
from django.db import migrations


def importjob_content_type_move(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    db = schema_editor.connection.alias
    old = ContentType.objects.using(db).filter(app_label="tasktypes", model="importjob").first()
    if old is None:
        return
    new = ContentType.objects.using(db).filter(app_label="interchange", model="importjob").first()
    if new is None:
        old.app_label = "interchange"
        old.save(update_fields=["app_label"])
        return
    Group = apps.get_model("auth", "Group")
    User = apps.get_model(settings.AUTH_USER_MODEL)
    new_by_codename = {permission.codename: permission for permission in Permission.objects.using(db).filter(
        content_type=new)}
    for permission in Permission.objects.using(db).filter(content_type=old):
        replacement = new_by_codename.get(permission.codename)
        if replacement is not None:
            for group in Group.objects.using(db).filter(permissions=permission):
                group.permissions.add(replacement)
            for user in User.objects.using(db).filter(user_permissions=permission):
                user.user_permissions.add(replacement)
    apps.get_model("admin", "LogEntry").objects.using(db).filter(content_type=old).update(content_type=new)
    old.delete()  # and its permissions, with their grants


class Migration(migrations.Migration):

    dependencies = [
        ("tasktypes", "0003_import_job_moved"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ("admin", "0003_logentry_add_action_flag_choices"),
    ]

    operations = [migrations.RunPython(importjob_content_type_move, migrations.RunPython.noop)]
