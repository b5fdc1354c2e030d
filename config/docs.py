"""The documentation site, served at /docs/ to anyone, signed in or not: it is the public manual (docs/ in the
repository, built by scripts/docs with MkDocs into settings.DOCS_ROOT).

Files are served by django.views.static.serve from DOCS_ROOT only: a path that would leave it (`../`, an absolute
path, its percent-encoded forms) is a 404, a folder answers with its index.html (MkDocs writes one page per folder),
and a folder named without its trailing slash is redirected to it, so the pages' relative links resolve. Material's
scripts, styles and search index are files of the same site: nothing is fetched from another host (the theme's
Google Fonts are off in mkdocs.yml).
"""

from pathlib import Path

from django.conf import settings
from django.core.exceptions import SuspiciousFileOperation
from django.http import Http404, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.utils._os import safe_join
from django.views.decorators.http import require_safe
from django.views.static import serve

from config.middleware import request_body_limit


@request_body_limit("REQUEST_SIGN_IN_MAX_BYTES")  # open to anyone; GET and HEAD only
@require_safe
def docs_page(request, path: str = ""):
    root = Path(settings.DOCS_ROOT)
    if not (root / "index.html").is_file():
        # Says how to build them, not where: the server's folders are nobody's business on a public page.
        return render(request, "docs_missing.html", status=404)
    try:
        target = Path(safe_join(root, path))
    except (SuspiciousFileOperation, ValueError):  # outside DOCS_ROOT, or a NUL byte in the name
        raise Http404("No such page in the documentation.") from None
    if target.is_dir():
        if path and not path.endswith("/"):
            return HttpResponsePermanentRedirect(request.path + "/")
        path += "index.html"
    return serve(request, path, document_root=str(root))
