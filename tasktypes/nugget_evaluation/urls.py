from django.urls import path

from tasktypes.nugget_evaluation import views

urlpatterns = [
    path("campaigns/<slug:slug>/nuggets/", views.nuggets_page, name="nugget-lists"),
    path("campaigns/<slug:slug>/nuggets/export/", views.nuggets_export, name="nugget-export"),
    path("campaigns/<slug:slug>/nuggets/match/", views.nuggets_match, name="nugget-match"),
]
