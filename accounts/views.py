"""The profile page (API tokens: make, name, revoke, rotate) and the password change (Django's own views)."""

from django import forms
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy

from accounts.models import ApiToken
from accounts.selectors import password_change_required, tokens_for_user
from accounts.services import password_changed, token_create, token_revoke, token_rotate


class TokenNameForm(forms.Form):
    name = forms.CharField(max_length=100, label="Name", help_text="The script or machine that will use it.")


def profile(request):
    form = TokenNameForm(request.POST if request.POST.get("action") == "create" else None)
    new_key = None
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create" and form.is_valid():
            token, new_key = token_create(user=request.user, name=form.cleaned_data["name"])
            form = TokenNameForm()
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
               "new_token": token if new_key else None}
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
