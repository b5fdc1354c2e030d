from django.urls import path

from agreement import views

urlpatterns = [
    path("campaigns/<slug:slug>/report/", views.agreement_report, name="agreement-report"),
    path("campaigns/<slug:slug>/report/status.json", views.agreement_report_status, name="agreement-report-status"),
    path("campaigns/<slug:slug>/report/report.json", views.agreement_report_json, name="agreement-report-json"),
    path("campaigns/<slug:slug>/report/systems.csv", views.agreement_systems_csv, name="agreement-systems-csv"),
    path("campaigns/<slug:slug>/report/judges.csv", views.agreement_judges_csv, name="agreement-judges-csv"),
    path("campaigns/<slug:slug>/report/items.csv", views.agreement_items_csv, name="agreement-items-csv"),
    path("campaigns/<slug:slug>/report/topics.csv", views.agreement_topics_csv, name="agreement-topics-csv"),
    path("campaigns/<slug:slug>/report/labels.csv", views.agreement_labels_csv, name="agreement-labels-csv"),
    path("campaigns/<slug:slug>/report/methods.txt", views.agreement_methods_txt, name="agreement-methods-txt"),
    path("campaigns/<slug:slug>/report/compare/", views.agreement_judge_compare, name="agreement-judge-compare"),
    # The judge development page reads the report's selectors: it lives here, beside the judge page's URL.
    path("campaigns/<slug:slug>/judges/development/", views.judge_development, name="judge-development"),
    path("campaigns/<slug:slug>/judges/probes/", views.judge_probes, name="judge-probes"),
    path("campaigns/<slug:slug>/report/plots/<slug:plot>.<slug:fmt>", views.agreement_plot, name="agreement-plot"),
    path("campaigns/<slug:slug>/report/qrels/<path:source>.qrels", views.agreement_qrels, name="agreement-qrels"),
    path("campaigns/<slug:slug>/report/leaderboards/<path:source>/trec-leaderboard.txt", views.agreement_leaderboard,
         name="agreement-leaderboard"),
]
