"""What every page's header needs to know about the signed-in user."""

from django.utils.functional import SimpleLazyObject

from annotate.models import Membership, Role


def header(request):
    """`researches`: whether the user is a researcher of some campaign (or a superuser), for the header's link to the
    API docs. Lazy: one EXISTS query, only on pages that render the header for a signed-in user."""
    user = request.user

    def researches() -> bool:
        if not user.is_authenticated:
            return False
        return user.is_superuser or Membership.objects.filter(user=user, role=Role.RESEARCHER).exists()

    return {"researches": SimpleLazyObject(researches)}
