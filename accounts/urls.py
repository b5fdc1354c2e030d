from django.urls import path

from accounts import views

urlpatterns = [
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/password/", views.PasswordChangeView.as_view(), name="password-change"),
    path("accounts/password/done/", views.PasswordChangeDoneView.as_view(), name="password-change-done"),
    # A one-time link to choose a first password; open without signing in (config.middleware.OPEN_PREFIXES).
    path("accounts/welcome/<str:key>/", views.welcome, name="account-welcome"),
]
