"""The profile page (keyboard shortcuts as the person chooses them; API tokens: make, name, revoke, rotate), the
password change (Django's own views), and the page a one-time link opens for a new person to choose their password."""

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import SetPasswordForm
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache

from accounts.models import ApiToken, Preferences
from accounts.preferences import shortcuts_choose
from accounts.selectors import (
    invitation_live,
    invitation_of_an_earlier_version,
    password_change_required,
    shortcuts_mode,
    tokens_for_user,
)
from accounts.services import (
    INVITATION_EARLIER_VERSION,
    INVITATION_UNUSABLE,
    InvitationError,
    invitation_accept,
    password_changed,
    token_create,
    token_revoke,
    token_rotate,
)
from config.middleware import request_body_limit


class TokenNameForm(forms.Form):
    name = forms.CharField(max_length=100, label="Name", help_text="The script or machine that will use it.")


class ShortcutsForm(forms.Form):
    shortcuts = forms.ChoiceField(choices=Preferences.Shortcuts.choices, widget=forms.RadioSelect,
                                  label="Keyboard shortcuts on the annotation pages")


def profile(request):
    form = TokenNameForm(request.POST if request.POST.get("action") == "create" else None)
    new_key = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create" and form.is_valid():
            token, new_key = token_create(user=request.user, name=form.cleaned_data["name"])
            form = TokenNameForm()
        elif action == "shortcuts":
            chosen = ShortcutsForm(request.POST)
            if chosen.is_valid():
                shortcuts_choose(request, chosen.cleaned_data["shortcuts"])
                messages.success(request, "Keyboard shortcuts: " + Preferences.Shortcuts(
                    chosen.cleaned_data["shortcuts"]).label.split(":")[0].lower() + ". Kept with your account.")
                return redirect(reverse("profile") + "#shortcuts")
            messages.error(request, "Choose one of the ways keyboard shortcuts can work.")
            return redirect("profile")
        elif action in ("revoke", "rotate"):
            token = get_object_or_404(ApiToken, pk=request.POST.get("token") or 0, user=request.user)
            if action == "revoke":
                token_revoke(token=token)
                messages.success(request, f"Token {token.name} ({token.prefix}…) revoked: scripts using it are "
                                          "refused from now on.")
                return redirect("profile")
            token, new_key = token_rotate(token=token)
        elif action != "create":
            messages.error(request, "Unknown action.")
            return redirect("profile")
    context = {"form": form, "tokens": tokens_for_user(user=request.user), "new_key": new_key,
               "new_token": token if new_key else None,
               "shortcuts_form": ShortcutsForm(initial={"shortcuts": shortcuts_mode(user=request.user)})}
    # The key is in this answer only: the browser must not keep it.
    response = render(request, "accounts/profile.html", context, status=400 if form.errors else 200)
    response["Cache-Control"] = "no-store"
    return response


class PasswordChangeView(auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("password-change-done")

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["required"] = password_change_required(user=self.request.user)
        return context

    def form_valid(self, form):
        response = super().form_valid(form)  # keeps this session signed in; the user's other sessions end
        password_changed(user=self.request.user)
        return response


class PasswordChangeDoneView(auth_views.PasswordChangeDoneView):
    template_name = "accounts/password_change_done.html"


@request_body_limit("REQUEST_SIGN_IN_MAX_BYTES")  # anyone holding a link may post here
@never_cache
def welcome(request, key):
    """A one-time link (accounts.services.invitation_create): choose a password, checked by the password validators;
    then the person is signed in and taken to their campaign. A used, expired or unknown link says so (410)."""
    invitation = invitation_live(key=key)
    if invitation is None:
        earlier = invitation_of_an_earlier_version(key=key)
        return _welcome_render(request, None, error=INVITATION_EARLIER_VERSION if earlier else INVITATION_UNUSABLE)
    form = SetPasswordForm(invitation.user, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            invitation = invitation_accept(key=key, password=form.cleaned_data["new_password1"])
        except InvitationError as exc:
            return _welcome_render(request, None, error=str(exc))
        except ValidationError as exc:  # the validators passed the form; kept in case they change in between
            form.add_error("new_password2", exc)
        else:
            login(request, invitation.user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {invitation.user.get_username()}: your password is set and you are "
                                      "signed in.")
            target = invitation.next_path
            if not url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}):
                target = "home"
            return redirect(target)
    return _welcome_render(request, form, user=invitation.user)


def _welcome_render(request, form, *, user=None, error=None):
    # The link's key is in this page's address: the site-wide Referrer-Policy (same-origin, Django's default) keeps it
    # from other sites. Not no-referrer here: Chromium then posts the form with "Origin: null", which CSRF refuses.
    return render(request, "accounts/welcome.html", {"form": form, "invitee": user, "error": error},
                  status=410 if error else (400 if form is not None and form.errors else 200))
