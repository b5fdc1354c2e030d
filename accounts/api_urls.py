from django.urls import path

from accounts import api

urlpatterns = [
    path("token/", api.ObtainTokenApi.as_view(), name="api-token"),
    path("tokens/", api.TokenListApi.as_view(), name="api-tokens"),
    path("tokens/<int:token_id>/", api.TokenDetailApi.as_view(), name="api-token-detail"),
    path("tokens/<int:token_id>/rotate/", api.TokenRotateApi.as_view(), name="api-token-rotate"),
    path("preferences/", api.PreferencesApi.as_view(), name="api-preferences"),
]
