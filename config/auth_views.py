"""The sign-in page with throttling (config.login_throttle); the API token endpoint is accounts.api's."""

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView

from config.login_throttle import login_refused


class ThrottledAuthenticationForm(AuthenticationForm):
    def clean(self):
        message = login_refused(username=self.data.get("username"), request=self.request)
        if message:
            raise forms.ValidationError(message, code="throttled")
        return super().clean()


class ThrottledLoginView(LoginView):
    authentication_form = ThrottledAuthenticationForm
    request_max_bytes_setting = "REQUEST_SIGN_IN_MAX_BYTES"  # anyone may post here (config.middleware)
