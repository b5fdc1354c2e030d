from django.urls import path

from agreement import views_development, views_downloads, views_extras, views_page, views_probes

urlpatterns = [
    path("campaigns/<slug:slug>/report/", views_page.agreement_report, name="agreement-report"),
    path("campaigns/<slug:slug>/report/status.json", views_page.agreement_report_status,
         name="agreement-report-status"),
    path("campaigns/<slug:slug>/report/report.json", views_downloads.agreement_report_json,
         name="agreement-report-json"),
    path("campaigns/<slug:slug>/report/systems.csv", views_downloads.agreement_systems_csv,
         name="agreement-systems-csv"),
    path("campaigns/<slug:slug>/report/judges.csv", views_downloads.agreement_judges_csv, name="agreement-judges-csv"),
    path("campaigns/<slug:slug>/report/items.csv", views_downloads.agreement_items_csv, name="agreement-items-csv"),
    path("campaigns/<slug:slug>/report/topics.csv", views_downloads.agreement_topics_csv, name="agreement-topics-csv"),
    path("campaigns/<slug:slug>/report/ppi.csv", views_downloads.agreement_ppi_csv, name="agreement-ppi-csv"),
    path("campaigns/<slug:slug>/report/labels.csv", views_downloads.agreement_labels_csv, name="agreement-labels-csv"),
    path("campaigns/<slug:slug>/report/methods.txt", views_downloads.agreement_methods_txt,
         name="agreement-methods-txt"),
    path("campaigns/<slug:slug>/report/compare/", views_page.agreement_judge_compare, name="agreement-judge-compare"),
    # The judge development page reads the report's selectors: it lives here, beside the judge page's URL.
    path("campaigns/<slug:slug>/judges/development/", views_development.judge_development, name="judge-development"),
    path("campaigns/<slug:slug>/judges/probes/", views_probes.judge_probes, name="judge-probes"),
    path("campaigns/<slug:slug>/report/plots/<slug:plot>.<slug:fmt>", views_downloads.agreement_plot,
         name="agreement-plot"),
    # The files a task type serves beside its report (TaskTypeSpec.extra_downloads), at the routes it declares.
    *views_extras.extra_download_paths(),
]
