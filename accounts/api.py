"""API tokens through the API: sign in for a new one, list, make, revoke and rotate one's own.

POST /api/token/ (username, password, optional name) answers a new token's key, as DRF's endpoint did, but
each call makes a token of its own that the profile page lists; DELETE /api/token/ revokes the token the
request carries. /api/tokens/ lists and makes, /api/tokens/ID/ revokes, /api/tokens/ID/rotate/ replaces.
/api/preferences/ reads and changes one's own choices (keyboard shortcuts), as the profile page does.
"""

from django.contrib.auth import authenticate
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import ApiTokenAuthentication
from accounts.models import ApiToken
from accounts.preferences import shortcuts_choose
from accounts.selectors import shortcuts_mode, tokens_for_user
from accounts.serializers import (
    ApiTokenCreatedSerializer,
    ApiTokenCreateSerializer,
    ApiTokenSerializer,
    ObtainTokenSerializer,
    PreferencesSerializer,
)
from accounts.services import token_create, token_revoke, token_rotate
from config.login_throttle import login_refused


def _created(token: ApiToken, key: str) -> dict:
    return ApiTokenCreatedSerializer({**ApiTokenSerializer(token).data, "token": key, "is_live": True}).data


class ObtainTokenApi(APIView):
    authentication_classes = []
    permission_classes = [AllowAny]
    request_max_bytes_setting = "REQUEST_SIGN_IN_MAX_BYTES"  # anyone may post here (config.middleware)

    def get_authenticators(self):
        # DELETE revokes the token it carries, so it must be read. POST is a sign-in and reads no token; the
        # session is read only so that a signed-in browser cannot be made to POST here without a CSRF token.
        if getattr(self, "request", None) is not None and self.request.method == "DELETE":
            return [ApiTokenAuthentication()]
        return [SessionAuthentication()]

    @extend_schema(request=ObtainTokenSerializer, responses={200: ApiTokenCreatedSerializer})
    def post(self, request):
        """Sign in with a username and password; get a new token's key (shown once)."""
        form = ObtainTokenSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        message = login_refused(username=data["username"], request=request)
        if message:
            return Response({"detail": message}, status=status.HTTP_429_TOO_MANY_REQUESTS)
        user = authenticate(request=request, username=data["username"], password=data["password"])
        if user is None:
            return Response({"detail": "Unable to sign in with the username and password given."},
                            status=status.HTTP_400_BAD_REQUEST)
        token, key = token_create(user=user, name=data["name"])
        return Response(_created(token, key), status=status.HTTP_200_OK)  # 200 as DRF's endpoint answered

    @extend_schema(request=None, responses={204: None})
    def delete(self, request):
        """Revoke the token this request carries (sign a script out)."""
        if not isinstance(request.auth, ApiToken):
            return Response({"detail": "Send the token to revoke in the Authorization header."},
                            status=status.HTTP_401_UNAUTHORIZED)
        token_revoke(token=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenListApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=ApiTokenSerializer(many=True))
    def get(self, request):
        """Your tokens, live and revoked (never their keys)."""
        return Response(ApiTokenSerializer(tokens_for_user(user=request.user), many=True).data)

    @extend_schema(request=ApiTokenCreateSerializer, responses={201: ApiTokenCreatedSerializer})
    def post(self, request):
        """Make a token; its key is in this answer only."""
        form = ApiTokenCreateSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        token, key = token_create(user=request.user, name=form.validated_data["name"])
        return Response(_created(token, key), status=status.HTTP_201_CREATED)


def _own_token(request, token_id: int) -> ApiToken:
    token = ApiToken.objects.filter(pk=token_id, user=request.user).first()
    if token is None:
        raise Http404("No such token.")
    return token


class TokenDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=ApiTokenSerializer)
    def get(self, request, token_id):
        return Response(ApiTokenSerializer(_own_token(request, token_id)).data)

    @extend_schema(request=None, responses={200: ApiTokenSerializer})
    def delete(self, request, token_id):
        """Revoke one of your tokens, at once."""
        return Response(ApiTokenSerializer(token_revoke(token=_own_token(request, token_id))).data)


class TokenRotateApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: ApiTokenCreatedSerializer})
    def post(self, request, token_id):
        """Revoke one of your tokens and make a new one of the same name; the new key is in this answer only."""
        token, key = token_rotate(token=_own_token(request, token_id))
        return Response(_created(token, key), status=status.HTTP_201_CREATED)


class PreferencesApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses=PreferencesSerializer)
    def get(self, request):
        """Your choices: how character keys work the annotation pages (shortcuts: keys, alt or off)."""
        return Response({"shortcuts": shortcuts_mode(user=request.user)})

    @extend_schema(request=PreferencesSerializer, responses=PreferencesSerializer)
    def patch(self, request):
        """Change your choices; they are kept with your account and hold on every device."""
        form = PreferencesSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        return Response({"shortcuts": shortcuts_choose(request, form.validated_data["shortcuts"])})
