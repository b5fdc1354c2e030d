from django.urls import path

from judges import views

urlpatterns = [
    path("campaigns/<slug:slug>/judges/", views.judge_panel, name="judge-panel"),
    path(
        "campaigns/<slug:slug>/judges/runs/<int:run_id>/cancel/", views.judge_run_cancel_view, name="judge-run-cancel"
    ),
    path(
        "campaigns/<slug:slug>/judges/runs/<int:run_id>/resume/", views.judge_run_resume_view, name="judge-run-resume"
    ),
    path(
        "campaigns/<slug:slug>/judges/runs/<int:run_id>/retry-failed/",
        views.judge_run_retry_failed_view,
        name="judge-run-retry-failed",
    ),
    path(
        "campaigns/<slug:slug>/judges/<int:judge_id>/judge-new-items/",
        views.judge_new_items_view,
        name="judge-new-items",
    ),
    path("campaigns/<slug:slug>/judges/<int:judge_id>/final/", views.judge_mark_final_view, name="judge-mark-final"),
]
