"""Staff: require a new password of a user (their API tokens are revoked), revoke tokens, and read what happened to
one-time links (who issued, re-issued and used which, for which campaign; refusals; accounts closed to links)."""

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from rest_framework.authtoken.admin import TokenProxy

from accounts.models import ApiToken, InvitationEvent, InvitedAccount
from accounts.services import password_change_require, token_revoke

User = get_user_model()


@admin.action(description="Require a new password at the next page (revokes their API tokens)")
def require_password_change(modeladmin, request, queryset):
    revoked = sum(password_change_require(user=user) for user in queryset)
    messages.success(request, f"{queryset.count()} user(s) must choose a new password; {revoked} API token(s) revoked.")


class ConcordUserAdmin(UserAdmin):
    actions = [*UserAdmin.actions, require_password_change]


admin.site.unregister(User)
admin.site.register(User, ConcordUserAdmin)
# DRF's plain-text tokens are not used (accounts.authentication reads hashed ones): keep them out of the admin.
admin.site.unregister(TokenProxy)


@admin.action(description="Revoke the selected tokens")
def revoke_tokens(modeladmin, request, queryset):
    for token in queryset:
        token_revoke(token=token)
    messages.success(request, f"{queryset.count()} token(s) revoked.")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ["user", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at"]
    search_fields = ["name", "prefix"]
    readonly_fields = ["user", "name", "prefix", "digest", "created_at", "last_used_at", "revoked_at"]
    actions = [revoke_tokens]
    # No join to the users: on SQLite tokens are in a database of their own (accounts.routers). An empty tuple, not
    # False, or the list joins them for its "user" column.
    list_select_related = ()

    def get_search_results(self, request, queryset, search_term):
        """Name and prefix, and a user's tokens by username, looked up in the users' database first."""
        found, duplicates = super().get_search_results(request, queryset, search_term)
        if search_term:
            users = get_user_model().objects.filter(username__icontains=search_term).values_list("pk", flat=True)
            found |= queryset.filter(user_id__in=list(users[:1000]))
        return found, duplicates

    def has_add_permission(self, request):
        return False  # a token's key is shown to its user once: users make their own on their profile page


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record staff read and never edit: it says what happened."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(InvitationEvent)
class InvitationEventAdmin(ReadOnlyAdmin):
    list_display = ["at", "kind", "account_name", "actor_name", "scope_name", "detail"]
    list_filter = ["kind", "at"]
    search_fields = ["account_name", "actor_name", "scope_name", "detail"]
    date_hierarchy = "at"


@admin.register(InvitedAccount)
class InvitedAccountAdmin(ReadOnlyAdmin):
    list_display = ["user", "scope_name", "created_by", "created_at", "claimed_at", "closed_at"]
    list_filter = ["claimed_at", "closed_at"]
    search_fields = ["user__username", "scope_name"]
