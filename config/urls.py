from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from annotate.task_types.registry import task_type_modules
from config.auth_views import ThrottledLoginView
from config.docs import docs_page

urlpatterns = [
    path("accounts/login/", ThrottledLoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The docs page for people: an anonymous visitor is sent to the sign-in page (and back), not shown a bare 403.
    path("api/docs/", login_required(SpectacularSwaggerView.as_view(url_name="api-schema")), name="api-docs"),
    path("api/", include("config.api_urls")),
    # The manual (MkDocs, built by scripts/docs), public: anyone may read it, signed in or not.
    re_path(r"^docs/(?P<path>.*)$", docs_page, name="docs"),
    path("", include("accounts.urls")),
    path("", include("annotate.urls")),
    path("", include("interchange.urls")),
    path("", include("judges.urls")),
    path("", include("agreement.urls")),
    # A task type's own pages (tasktypes/<name>/urls.py), found with its package.
    *(path("", include(module)) for module in task_type_modules("urls")),
]

handler500 = "config.db_unavailable.server_error"
handler400 = "config.error_views.bad_request"
handler403 = "config.error_views.permission_denied"
handler404 = "config.error_views.page_not_found"
