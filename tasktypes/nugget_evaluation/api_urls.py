from django.urls import path

from tasktypes.nugget_evaluation import api

urlpatterns = [
    path("campaigns/<slug:slug>/nuggets/", api.NuggetListsApi.as_view(), name="api-nugget-lists"),
    path("campaigns/<slug:slug>/nuggets/freeze/", api.NuggetListsApi.as_view(), name="api-nugget-freeze"),
    path("campaigns/<slug:slug>/nuggets/steps/", api.NuggetStepsApi.as_view(), name="api-nugget-steps"),
    path("campaigns/<slug:slug>/nuggets/export/", api.NuggetExportApi.as_view(), name="api-nugget-export"),
]
