from django.urls import path

from accounts import views

urlpatterns = [
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/password/", views.PasswordChangeView.as_view(), name="password-change"),
    path("accounts/password/done/", views.PasswordChangeDoneView.as_view(), name="password-change-done"),
]
