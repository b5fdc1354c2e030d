"""The API's exception handler: DRF's, except that a PermissionDenied raised with words (annotate.access: "This page
is for the researchers of campaign ...") keeps them as its `detail` instead of DRF's generic sentence."""

from django.core.exceptions import PermissionDenied
from rest_framework import exceptions
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc, context):
    if isinstance(exc, PermissionDenied) and exc.args and exc.args[0]:
        exc = exceptions.PermissionDenied(detail=str(exc.args[0]))
    return drf_exception_handler(exc, context)
