"""accounts:signInWithIdp with the official Auth emulator's fake identity-provider credentials: the
IdP's ID token (`id_token`, or `access_token`) in `requestUri`'s query or fragment or in `postBody`
is an unsigned JWT or a JSON object carrying `sub` and optionally `email`, `email_verified`,
`name`, `picture` (firebase-tools src/emulator/auth/operations.ts: signInWithIdp, parseClaims,
fakeFetchUserInfoFromIdp, handleLinkIdp, handleIdpSigninEmailRequired, handleIdpSignUp)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .accounts import Account, present
from .errors import AuthError, require
from .fake_tokens import read_fake_token
from .operations import Call, issue_tokens, now_ms, user_of_id_token, valid_email


_BUILT_IN_PROVIDERS = frozenset({"google.com", "facebook.com", "twitter.com", "github.com", "apple.com", "microsoft.com",
                                  "yahoo.com", "playgames.google.com", "gc.apple.com", "linkedin.com"})


def sign_in_with_idp(call: Call) -> dict[str, Any]:
    """Signs in the user linked to the IdP's `sub`, else the user of its verified email, else a
    new user; with `idToken`, links the identity to the signed-in user (who keeps the uid)."""
    fields, accounts = call.fields, call.accounts
    parameters = _idp_parameters(fields.text("requestUri"), fields.text("postBody"))
    provider_id = parameters.get("providerId", "").lower()
    require(provider_id, "INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: the providerId is missing")
    # Production knows its built-in providers and the project's own OIDC and SAML ones; the
    # official emulator takes any id. Production's message repeats the request (its tokens too).
    require(provider_id in _BUILT_IN_PROVIDERS or provider_id.startswith(("oidc.", "saml.")),
            f"INVALID_CREDENTIAL_OR_PROVIDER_ID : Invalid IdP response/credential: providerId={provider_id}")
    claims = _claims(parameters.get("id_token")) or _claims(parameters.get("access_token"))
    require(claims, "INVALID_IDP_RESPONSE : ((Auth Emulator only accepts strict JSON or JWTs as fake id_tokens.))")
    identity = _identity(provider_id, claims)
    answer: dict[str, Any] = {
        "kind": "identitytoolkit#VerifyAssertionResponse", "providerId": provider_id,
        "federatedId": _federated_id(provider_id, identity["rawId"]), "rawUserInfo": json.dumps(claims),
        "oauthAccessToken": parameters.get("access_token") or f"FirebaseAuthEmulatorFakeAccessToken_{provider_id}",
        **present(oauthIdToken=parameters.get("id_token"), email=identity.get("email"),
                  displayName=identity.get("displayName"), fullName=identity.get("displayName"),
                  photoUrl=identity.get("photoUrl")),
        "emailVerified": bool(claims.get("email_verified"))}
    one_per_email = not accounts.sign_in.allow_duplicate_emails
    email, email_verified = identity.get("email"), answer["emailVerified"]
    linked = accounts.by_federated_id(provider_id, identity["rawId"])
    if "idToken" in fields:
        account = user_of_id_token(call, fields.text("idToken"))[0]
        require(linked is None, "FEDERATED_USER_ID_ALREADY_LINKED")
        if one_per_email and email:
            owner = accounts.by_email(email)
            require(owner is None or owner is account, "EMAIL_EXISTS")
            if not account.email:
                account.email, account.email_verified = email, email_verified
        if email and email_verified and account.email == email:
            account.email_verified = True
        is_new = False
    elif linked is not None:
        account, is_new = linked, False
        require(not account.disabled, "USER_DISABLED")
    else:
        owner = accounts.by_email(email) if one_per_email and email else None
        if owner is not None and not email_verified:
            # The IdP does not vouch for the email: the user must sign in another way, then link.
            return {**answer, "needConfirmation": True, "localId": owner.local_id,
                    "verifiedProvider": [provider["providerId"] for provider in owner.federated]}
        if owner is not None:
            account, is_new = owner, False
            require(not owner.disabled, "USER_DISABLED")
            if not owner.email_verified:
                # Whoever set the unverified email loses the account to the email's verified owner.
                owner.password_hash = owner.salt = owner.phone_number = None
                owner.federated = []
                owner.revoke_sessions()
            owner.display_name, owner.photo_url = identity.get("displayName"), identity.get("photoUrl")
            owner.email_verified = True
        else:
            account, is_new = accounts.add(Account(accounts.new_local_id(), now_ms())), True
            account.display_name, account.photo_url = identity.get("displayName"), identity.get("photoUrl")
            if one_per_email and email:
                account.email, account.email_verified = email, email_verified
    account.link(identity)
    account.last_login_at_ms = now_ms()
    answer.update(localId=account.local_id, isNewUser=is_new, **issue_tokens(call, account, provider_id))
    if account.email == email:
        answer["emailVerified"] = account.email_verified
    call.store.save()
    return answer


def _idp_parameters(request_uri: str | None, post_body: str | None) -> dict[str, str]:
    """requestUri's query, then its fragment, then postBody (later ones win), as firebase-tools."""
    require(request_uri, "MISSING_REQUEST_URI")
    parts = urlsplit(request_uri)
    require(parts.scheme and parts.netloc, "INVALID_REQUEST_URI")
    parameters = dict(parse_qsl(parts.query))
    parameters.update(parse_qsl(post_body or ""))
    parameters.update(parse_qsl(parts.fragment))
    return parameters


def _claims(token: str | None) -> dict[str, Any] | None:
    """The fake IdP token's claims: a JSON object, or an unsigned (or unchecked) JWT's payload."""
    decoded = token and read_fake_token(
        token, "INVALID_IDP_RESPONSE : Unable to parse id_token ((Auth Emulator failed to parse fake id_token as strict JSON.))")
    if not decoded:
        return None
    claims = decoded[1]
    require(claims.get("sub"), 'INVALID_IDP_RESPONSE : Invalid Idp Response: id_token missing required fields. '
                               '((Missing "sub" field. This field is required and must be a unique identifier.))')
    require(isinstance(claims["sub"], str), 'INVALID_IDP_RESPONSE : ((The "sub" field must be a string.))')
    return claims


def _identity(provider_id: str, claims: dict[str, Any]) -> dict[str, str]:
    """The provider's user as providerUserInfo keeps it."""
    email = claims.get("email")
    if email is not None:
        require(isinstance(email, str), "INVALID_IDP_RESPONSE : ((The \"email\" field must be a string.))")
        try:
            email = valid_email(email)
        except AuthError:
            raise AuthError("INVALID_IDP_RESPONSE : ((The \"email\" field is not an email address.))") from None
    texts = {name: value if isinstance(value, str) else None
             for name, value in (("displayName", claims.get("name")), ("photoUrl", claims.get("picture")))}
    return {"providerId": provider_id, "rawId": claims["sub"], **present(email=email, **texts)}


def _federated_id(provider_id: str, raw_id: str) -> str:
    return f"https://accounts.google.com/{raw_id}" if provider_id == "google.com" else raw_id
