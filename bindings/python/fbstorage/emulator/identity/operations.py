"""The Identity Toolkit and Secure Token operations, each `(Call) -> answer`, with the checks,
error codes and answer fields of firebase-tools' Auth emulator (src/emulator/auth/operations.ts),
and production's stricter session rules (revoked and deleted users' refresh tokens)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from . import jwt
from .accounts import Account, AccountStore, ProjectAccounts, present
from .calls import Fields
from .errors import AuthError, require
from .passwords import MIN_LENGTH, hash_password, verify_password
from .tokens import ISSUER_PREFIX, check_custom_attributes, mint_id_token, read_custom_token

WEAK_PASSWORD = f"WEAK_PASSWORD : Password should be at least {MIN_LENGTH} characters"
PROJECT_NUMBER = "12345"  # Secure Token answers the project number; firebase-tools' stand-in
MAX_BATCH = 1000
# accounts:update's `deleteAttribute` and `deleteProvider` values, as attribute changes.
DELETED_ATTRIBUTES = {"DISPLAY_NAME": {"display_name": None}, "PHOTO_URL": {"photo_url": None},
                      "PASSWORD": {"password_hash": None, "salt": None},
                      "EMAIL": {"email": None, "email_verified": False, "email_link_signin": False}}
DELETED_PROVIDERS = {"password": {**DELETED_ATTRIBUTES["EMAIL"], **DELETED_ATTRIBUTES["PASSWORD"]},
                     "phone": {"phone_number": None}}


@dataclass
class Call:
    store: AccountStore
    project_id: str
    fields: Fields
    admin: bool  # Bearer owner or a service account token
    origin: str = ""  # scheme://host the request came to: where the action links of its emails point

    @property
    def accounts(self) -> ProjectAccounts:
        return self.store.project(self.project_id)


def sign_up(call: Call) -> dict[str, Any]:
    """Every field is checked before anything changes: a refused call leaves no account behind."""
    fields, accounts = call.fields, call.accounts
    email, password = fields.text("email"), fields.text("password")
    provider = account = local_id = None
    if call.admin:
        local_id = fields.text("localId")
        require(local_id is None or local_id not in accounts.users, "DUPLICATE_LOCAL_ID")
        profile = {"display_name": fields.text("displayName"), "photo_url": fields.text("photoUrl"),
                   "email_verified": bool(fields.flag("emailVerified")), "phone_number": fields.text("phoneNumber"),
                   "disabled": bool(fields.flag("disabled"))}
    else:
        require("localId" not in fields, "UNEXPECTED_PARAMETER : User ID")
        profile = {}
        if "idToken" in fields or email is not None or password is not None:
            require(email, "MISSING_EMAIL")
            require(password, "MISSING_PASSWORD")
            provider = "password"
            if "displayName" in fields:
                profile["display_name"] = fields.text("displayName")
        else:
            provider = "anonymous"  # other fields are ignored, as by firebase-tools
        if "idToken" in fields:  # linking an email and password to the signed-in (anonymous) user
            account, _ = user_of_id_token(call, fields.text("idToken"))
    if email is not None:
        email = valid_email(email)
        require(accounts.by_email(email) is None, "EMAIL_EXISTS")
        profile["email"] = email
    if password is not None:
        require(len(password) >= MIN_LENGTH, WEAK_PASSWORD)
    moment = now_ms()
    if account is None:
        account = accounts.add(Account(local_id or accounts.new_local_id(), moment))
    for attribute, value in profile.items():
        setattr(account, attribute, value)
    if password is not None:
        set_password(account, password)
        account.valid_since = moment // 1000
    answer = {"kind": "identitytoolkit#SignupNewUserResponse", "localId": account.local_id,
              **present(email=account.email, displayName=account.display_name)}
    if provider is not None:
        account.last_login_at_ms = moment
        answer.update(issue_tokens(call, account, provider))
    call.store.save()
    return answer


def sign_in_with_password(call: Call) -> dict[str, Any]:
    """Wrong credentials answer EMAIL_NOT_FOUND or INVALID_PASSWORD: firebase-tools' default (email
    enumeration protection off); with it on (the config route), INVALID_LOGIN_CREDENTIALS."""
    fields = call.fields
    email = fields.text("email")
    require(email is not None, "MISSING_EMAIL")
    email = valid_email(email)
    password = fields.text("password")
    require(password, "MISSING_PASSWORD")
    account = call.accounts.by_email(email)
    private = call.accounts.sign_in.improved_email_privacy  # one code that tells nothing
    require(account, "INVALID_LOGIN_CREDENTIALS" if private else "EMAIL_NOT_FOUND")
    require(not account.disabled, "USER_DISABLED")
    require(account.password_hash and verify_password(password, account.password_hash, account.salt),
            "INVALID_LOGIN_CREDENTIALS" if private else "INVALID_PASSWORD")
    account.last_login_at_ms = now_ms()
    answer = {"kind": "identitytoolkit#VerifyPasswordResponse", "registered": True, "localId": account.local_id,
              "email": email, "displayName": account.display_name or "", **issue_tokens(call, account, "password")}
    call.store.save()
    return answer


def sign_in_with_custom_token(call: Call) -> dict[str, Any]:
    token = call.fields.text("token")
    require(token, "MISSING_CUSTOM_TOKEN")
    uid, claims = read_custom_token(token)
    accounts = call.accounts
    account = accounts.users.get(uid)
    is_new = account is None
    moment = now_ms()
    if account is None:
        account = accounts.add(Account(uid, moment))
    require(not account.disabled, "USER_DISABLED")
    account.custom_auth = True
    account.last_login_at_ms = moment
    answer = {"kind": "identitytoolkit#VerifyCustomTokenResponse", "isNewUser": is_new,
              **issue_tokens(call, account, "custom", claims)}
    call.store.save()
    return answer


def lookup(call: Call) -> dict[str, Any]:
    fields, accounts = call.fields, call.accounts
    found: dict[str, Account] = {}
    if call.admin:
        for local_id in fields.texts("localId"):
            _add_if(found, accounts.users.get(local_id))
        for email in fields.texts("email"):
            _add_if(found, accounts.by_email(email.lower()))
        for phone in fields.texts("phoneNumber"):
            _add_if(found, next((a for a in accounts.users.values() if a.phone_number == phone), None))
    else:
        account, _ = user_of_id_token(call, fields.text("idToken"))
        found[account.local_id] = account
    answer: dict[str, Any] = {"kind": "identitytoolkit#GetAccountInfoResponse"}
    if found:  # no `users` at all when none matched, as the Admin SDKs expect
        answer["users"] = [account.to_api(with_password_hash=call.admin) for account in found.values()]
    return answer


def update(call: Call) -> dict[str, Any]:
    """Every field is checked before anything changes. A new email or password, or `validSince`,
    revokes the user's sessions; the caller (with an ID token) gets new tokens."""
    fields, accounts = call.fields, call.accounts
    provider = None
    if call.admin:
        local_id = fields.text("localId")
        require(local_id, "MISSING_LOCAL_ID")
        account = accounts.users.get(local_id)
        require(account, "USER_NOT_FOUND")
    else:
        require("idToken" in fields, "INVALID_REQ_TYPE : Unsupported request parameters.")
        require("customAttributes" not in fields, "INSUFFICIENT_PERMISSION")
        account, provider = user_of_id_token(call, fields.text("idToken"))
        require("disableUser" not in fields, "OPERATION_NOT_ALLOWED")
    changes: dict[str, Any] = {}
    email = fields.text("email")
    if email:
        email = valid_email(email)
        if email != account.email:
            require(accounts.by_email(email) is None, "EMAIL_EXISTS")
            changes.update(email=email, email_verified=False)
    password = fields.text("password")
    if password:
        require(len(password) >= MIN_LENGTH, WEAK_PASSWORD)
        provider = "password"
    valid_since = fields.integer("validSince")
    if not call.admin and (("email" in changes and account.email) or (password and account.password_hash)):
        require_recent_login(call, fields.text("idToken"))  # a change, not the first email or password
    revokes = bool(changes or password or valid_since is not None)
    for name, attribute in (("displayName", "display_name"), ("photoUrl", "photo_url")):
        if name in fields:
            changes[attribute] = fields.text(name)
    if call.admin:
        for name, attribute, read in (("disableUser", "disabled", fields.flag),
                                      ("emailVerified", "email_verified", fields.flag),
                                      ("phoneNumber", "phone_number", fields.text),
                                      ("customAttributes", "custom_attributes", fields.text)):
            if name in fields:
                changes[attribute] = read(name)
        if "customAttributes" in fields:
            check_custom_attributes(changes["custom_attributes"])
    for name in fields.texts("deleteAttribute"):
        changes.update(DELETED_ATTRIBUTES.get(name, {}))
    unlinked = set(fields.texts("deleteProvider"))
    for name in unlinked:
        changes.update(DELETED_PROVIDERS.get(name, {}))
    for attribute, value in changes.items():
        setattr(account, attribute, value)
    account.federated = [provider for provider in account.federated if provider["providerId"] not in unlinked]
    if password:
        set_password(account, password)
    if revokes:
        account.revoked_at = time.time()
        account.valid_since = valid_since if valid_since is not None and call.admin else int(account.revoked_at)
    answer = {"kind": "identitytoolkit#SetAccountInfoResponse", "localId": account.local_id,
              "emailVerified": account.email_verified,
              "providerUserInfo": account.to_api(with_password_hash=False)["providerUserInfo"],
              **present(email=account.email, displayName=account.display_name, photoUrl=account.photo_url)}
    if revokes and provider is not None:
        answer.update(issue_tokens(call, account, provider))  # the caller's session goes on
    call.store.save()
    return answer


def delete(call: Call) -> dict[str, Any]:
    accounts = call.accounts
    if call.admin:
        local_id = call.fields.text("localId")
        require(local_id, "MISSING_LOCAL_ID")
        require(local_id in accounts.users, "USER_NOT_FOUND")
    else:
        local_id = user_of_id_token(call, call.fields.text("idToken"))[0].local_id
        require_recent_login(call, call.fields.text("idToken"))
    accounts.remove(local_id)
    call.store.save()
    return {"kind": "identitytoolkit#DeleteAccountResponse"}


def batch_get(call: Call) -> dict[str, Any]:
    """Users in localId order; `nextPageToken` is the last localId of a page when more follow."""
    fields = call.fields
    max_results = fields.integer("maxResults") or 20
    max_results = min(max_results, MAX_BATCH) if max_results > 0 else MAX_BATCH
    after = fields.text("nextPageToken") or ""
    remaining = sorted((a for a in call.accounts.users.values() if a.local_id > after), key=lambda a: a.local_id)
    page = remaining[:max_results]
    answer: dict[str, Any] = {"kind": "identitytoolkit#DownloadAccountResponse",
                              "users": [account.to_api(with_password_hash=True) for account in page]}
    if len(remaining) > max_results:
        answer["nextPageToken"] = page[-1].local_id
    return answer


def batch_delete(call: Call) -> dict[str, Any]:
    local_ids = call.fields.texts("localIds")
    require(0 < len(local_ids) <= MAX_BATCH, "LOCAL_ID_LIST_EXCEEDS_LIMIT")
    force = bool(call.fields.flag("force"))
    accounts = call.accounts
    errors = []
    for index, local_id in enumerate(local_ids):
        account = accounts.users.get(local_id)
        if account is None:
            continue
        if not account.disabled and not force:
            errors.append({"index": index, "localId": local_id,
                           "message": "NOT_DISABLED : Disable the account before batch deletion."})
        else:
            accounts.remove(local_id)
    call.store.save()
    return {"errors": errors} if errors else {}


def grant_token(call: Call) -> dict[str, Any]:
    """Secure Token's refresh: a new ID token for a refresh token, checked as production does
    (deleted user, disabled user, sessions revoked since the token was issued)."""
    fields = call.fields
    grant_type = fields.text("grantType")
    require(grant_type, "MISSING_GRANT_TYPE")
    require(grant_type == "refresh_token", "INVALID_GRANT_TYPE")
    refresh_token = fields.text("refreshToken")
    require(refresh_token, "MISSING_REFRESH_TOKEN")
    session = call.accounts.session(refresh_token)
    require(session, "INVALID_REFRESH_TOKEN")
    account = call.accounts.users.get(session.local_id)
    require(account is not None and account.created_at_ms == session.account_created_at_ms, "USER_NOT_FOUND")
    require(not account.disabled, "USER_DISABLED")
    require(not account.revoked_before(session.issued_at), "TOKEN_EXPIRED")
    account.last_refresh_at = time.time()
    id_token = mint_id_token(account, call.project_id, session.provider, session.claims, call.store.token_lifetime,
                             call.store.id_token_keys)
    call.store.save()
    return {"id_token": id_token, "access_token": id_token, "expires_in": str(call.store.token_lifetime),
            "refresh_token": refresh_token, "token_type": "Bearer", "user_id": account.local_id,
            "project_id": PROJECT_NUMBER}


def user_of_id_token(call: Call, id_token: str | None) -> tuple[Account, str]:
    """(account, sign-in provider) of an ID token sent by the user; refused as firebase-tools does
    (deleted, revoked or disabled user), and one this Auth did not sign when it signs them (the
    production flavor). Its expiry is not checked (firebase-tools neither)."""
    require(id_token, "MISSING_ID_TOKEN")
    decoded = jwt.decode(id_token)
    require(decoded, "INVALID_ID_TOKEN")
    header, claims = decoded
    keys = call.store.id_token_keys
    require(keys is None or keys.signature_problem(id_token, header) is None, "INVALID_ID_TOKEN")
    require(claims.get("iss") == ISSUER_PREFIX + call.project_id and isinstance(claims.get("user_id"), str),
            "INVALID_ID_TOKEN")
    problem = call.accounts.token_problem(claims)
    if problem:
        raise AuthError(problem)
    firebase = claims.get("firebase")
    provider = firebase.get("sign_in_provider") if isinstance(firebase, dict) else None
    return call.accounts.users[claims["user_id"]], provider if isinstance(provider, str) else "custom"


def require_recent_login(call: Call, id_token: str) -> None:
    """Production's CREDENTIAL_TOO_OLD_LOGIN_AGAIN (the SDKs' requires-recent-login) when the ID
    token's sign-in (`auth_time`) is older than the store allows; the user signs in again. For a
    token user_of_id_token accepted."""
    window = call.store.recent_login
    if window is None:
        return
    auth_time = jwt.decode(id_token)[1].get("auth_time")
    require(isinstance(auth_time, (int, float)) and not isinstance(auth_time, bool)
            and time.time() - auth_time <= window, "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")


def issue_tokens(call: Call, account: Account, provider: str, claims: dict[str, Any] | None = None) -> dict[str, str]:
    claims = claims or {}
    account.last_refresh_at = time.time()
    lifetime = call.store.token_lifetime
    return {"idToken": mint_id_token(account, call.project_id, provider, claims, lifetime, call.store.id_token_keys),
            "refreshToken": call.accounts.start_session(account, provider, claims),
            "expiresIn": str(lifetime)}


def set_password(account: Account, password: str) -> None:
    account.password_hash, account.salt = hash_password(password)
    account.password_updated_at_ms = now_ms()


def valid_email(email: str) -> str:
    require(re.fullmatch(r"[^@]+@[^@]+", email), "INVALID_EMAIL")
    return email.lower()


def _add_if(found: dict[str, Account], account: Account | None) -> None:
    if account is not None:
        found.setdefault(account.local_id, account)


def now_ms() -> int:
    return time.time_ns() // 1_000_000
