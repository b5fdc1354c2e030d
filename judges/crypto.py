"""Model endpoints' API keys at rest: Fernet (AES-128-CBC with an HMAC-SHA256 tag) from the cryptography package.

The keys that encrypt come from settings.ENDPOINT_ENCRYPTION_KEYS (Fernet keys, newest first: the first
encrypts, every one decrypts, so an operator rotates by putting a new key in front and running
`manage.py model_endpoint rekey`). Without that setting one key is derived from SECRET_KEY with HKDF; an
operator who rotates SECRET_KEY then sets the old derived key first (`model_endpoint rekey` prints nothing
secret) or stores the endpoints' keys again.
"""

import base64
from collections.abc import Sequence

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

from judges.errors import JudgeConfigError

_INFO = b"concord model endpoint keys"


def derived_key(secret: str) -> str:
    """The Fernet key derived from a SECRET_KEY: what encrypts when ENDPOINT_ENCRYPTION_KEYS is not set."""
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO)
    return base64.urlsafe_b64encode(hkdf.derive(secret.encode("utf-8"))).decode("ascii")


def _keys() -> list:
    keys = list(getattr(settings, "ENDPOINT_ENCRYPTION_KEYS", []) or [])
    if not keys:
        if not settings.SECRET_KEY:
            raise JudgeConfigError("stored endpoint keys need ENDPOINT_ENCRYPTION_KEYS or SECRET_KEY to be set")
        keys = [derived_key(settings.SECRET_KEY)]
    return keys


def _fernet(old_keys: Sequence[str] = ()) -> MultiFernet:
    try:
        return MultiFernet([Fernet(key) for key in [*_keys(), *old_keys]])
    except ValueError:
        raise JudgeConfigError(
            "ENDPOINT_ENCRYPTION_KEYS must list Fernet keys (32 url-safe base64-encoded bytes each)"
        ) from None


def secret_encrypt(plain: str) -> str:
    """PLAIN encrypted with the newest key: the text stored in ModelEndpoint.key_encrypted."""
    return _fernet().encrypt(plain.encode("utf-8")).decode("ascii")


def secret_decrypt(token: str) -> str:
    """The plain key of a stored TOKEN; JudgeConfigError when no configured key opens it."""
    try:
        return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
    except (InvalidToken, ValueError):
        raise JudgeConfigError(
            "the endpoint's stored key cannot be decrypted with the keys in ENDPOINT_ENCRYPTION_KEYS (or the one "
            "derived from SECRET_KEY); staff must store the key again"
        ) from None


def secret_opens_with_newest(token: str) -> bool:
    """Whether the newest key (the one that encrypts) opens TOKEN."""
    try:
        Fernet(_keys()[0]).decrypt(token.encode("ascii"))
    except (InvalidToken, ValueError):
        return False
    return True


def secret_rotate(token: str, *, old_keys: Sequence[str] = ()) -> str:
    """TOKEN re-encrypted with the newest key (after a key was put in front of ENDPOINT_ENCRYPTION_KEYS); OLD_KEYS
    may open it too (keys no longer configured: derived_key of an earlier SECRET_KEY)."""
    try:
        return _fernet(old_keys).rotate(token.encode("ascii")).decode("ascii")
    except (InvalidToken, ValueError):
        raise JudgeConfigError("the endpoint's stored key cannot be decrypted; store it again") from None
