"""Credentials for :meth:`fbstorage.Auth.sign_in_with_credential`, ``link_with_credential``
and ``reauthenticate``, made as in the Firebase SDKs: ``EmailAuthProvider.credential(email,
password)``, ``GoogleAuthProvider.credential(id_token=..., access_token=...)``,
``OAuthProvider.credential(provider_id, id_token=..., raw_nonce=..., access_token=...)``,
``TwitterAuthProvider.credential(token, secret)``."""

from __future__ import annotations

import weakref
from typing import Any

from ._conversion import encode_optional_text, encode_text
from ._native import CredentialHandle, call_for_out, library


class AuthCredential:
    """An email and password, or an identity provider's token: an ``fbs_credential`` the
    library checked when it was made (bad input raises StorageError INVALID_ARGUMENT at once).
    Its secrets stay out of ``repr()``."""

    def __init__(self, provider_id: str, native: Any) -> None:
        self.provider_id = provider_id
        self._native = native
        weakref.finalize(self, library().fbs_credential_free, native)

    def __repr__(self) -> str:
        return f"AuthCredential({self.provider_id!r})"


class EmailAuthProvider:
    PROVIDER_ID = "password"

    @staticmethod
    def credential(email: str, password: str) -> AuthCredential:
        native = call_for_out(library().fbs_credential_email, encode_text(email, "email"),
                              encode_text(password, "password"), out_type=CredentialHandle)
        return AuthCredential(EmailAuthProvider.PROVIDER_ID, native)


class OAuthProvider:
    @staticmethod
    def credential(provider_id: str, *, id_token: str | None = None, access_token: str | None = None,
                   raw_nonce: str | None = None, secret: str | None = None) -> AuthCredential:
        """An identity provider's ID token, access token, or both (one at least); with the ID
        token the raw nonce it was made for (Sign in with Apple), with the access token an OAuth
        1.0 token secret (Twitter)."""
        native = call_for_out(library().fbs_credential_oauth, encode_text(provider_id, "provider_id"),
                              encode_optional_text(id_token, "id_token"), encode_optional_text(raw_nonce, "raw_nonce"),
                              encode_optional_text(access_token, "access_token"), encode_optional_text(secret, "secret"),
                              out_type=CredentialHandle)
        return AuthCredential(provider_id, native)


class GoogleAuthProvider:
    PROVIDER_ID = "google.com"

    @staticmethod
    def credential(id_token: str | None = None, access_token: str | None = None) -> AuthCredential:
        return OAuthProvider.credential(GoogleAuthProvider.PROVIDER_ID, id_token=id_token, access_token=access_token)


class TwitterAuthProvider:
    PROVIDER_ID = "twitter.com"

    @staticmethod
    def credential(token: str, secret: str) -> AuthCredential:
        """A Twitter OAuth 1.0 token and its secret."""
        return OAuthProvider.credential(TwitterAuthProvider.PROVIDER_ID, access_token=token, secret=secret)


def native_credential(credential: Any) -> Any:
    """The ``fbs_credential`` handle of a credential; TypeError for anything else."""
    if not isinstance(credential, AuthCredential):
        raise TypeError(f"credential must be an fbstorage AuthCredential, not {type(credential).__name__}")
    return credential._native
