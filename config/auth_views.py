"""The sign-in views with throttling (config.login_throttle): the login page and the API token endpoint."""

from django import forms
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import LoginView
from rest_framework import status
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.response import Response

from config.login_throttle import login_refused


class ThrottledAuthenticationForm(AuthenticationForm):
    def clean(self):
        message = login_refused(username=self.data.get("username"), request=self.request)
        if message:
            raise forms.ValidationError(message, code="throttled")
        return super().clean()


class ThrottledLoginView(LoginView):
    authentication_form = ThrottledAuthenticationForm


class ThrottledObtainAuthToken(ObtainAuthToken):
    def post(self, request, *args, **kwargs):
        message = login_refused(username=request.data.get("username"), request=request)
        if message:
            return Response({"detail": message}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        return super().post(request, *args, **kwargs)
