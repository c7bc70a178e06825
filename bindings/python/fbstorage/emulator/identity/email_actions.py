"""What Auth's emails do: accounts:sendOobCode makes a code (oob_codes.py), and accounts:update
(`oobCode`), accounts:resetPassword and accounts:signInWithEmailLink use it; accounts:createAuthUri
tells how an email signs in. Checks, error codes and answers of firebase-tools' Auth emulator
(src/emulator/auth/operations.ts: sendOobCode, setAccountInfoImpl, resetPassword,
signInWithEmailLink, createAuthUri)."""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import urlsplit

from .accounts import Account, present
from .errors import AuthError, require
from .oob_codes import MODES, OobCode, new_oob_code
from .operations import (WEAK_PASSWORD, Call, issue_tokens, now_ms, require_recent_login, set_password, update,
                         user_of_id_token, valid_email)
from .passwords import MIN_LENGTH


def send_oob_code(call: Call) -> dict[str, Any]:
    """`returnOobLink` (an admin's: firebase-admin's generate*Link) answers the code and link;
    otherwise the code waits, listed by the emulator's oobCodes route, as if mailed."""
    fields, accounts = call.fields, call.accounts
    request_type = fields.text("requestType")
    require(request_type and request_type != "OOB_REQ_TYPE_UNSPECIFIED", "MISSING_REQ_TYPE")
    if request_type not in MODES:
        raise AuthError(f"Invalid JSON payload received. Invalid value at 'requestType' (TYPE_ENUM), "
                        f"\"{request_type[:100]}\"")
    return_link = bool(fields.flag("returnOobLink"))
    require(not return_link or call.admin, "INSUFFICIENT_PERMISSION")
    continue_url = fields.text("continueUrl")
    if continue_url:
        require(_absolute(continue_url), "INVALID_CONTINUE_URI : ((expected an absolute URI with valid scheme and host))")
    answer: dict[str, Any] = {"kind": "identitytoolkit#GetOobConfirmationCodeResponse"}
    new_email = None
    if request_type in ("EMAIL_SIGNIN", "PASSWORD_RESET"):
        email = fields.text("email")
        require(email, "MISSING_EMAIL")
        email = valid_email(email)
        if request_type == "PASSWORD_RESET" and accounts.by_email(email) is None:
            if accounts.sign_in.improved_email_privacy:
                return {**answer, "email": email}  # tells nothing about which emails have accounts
            raise AuthError("EMAIL_NOT_FOUND")
    else:
        if request_type == "VERIFY_AND_CHANGE_EMAIL":
            new_email = fields.text("newEmail")
            require(new_email, "MISSING_NEW_EMAIL")
            new_email = valid_email(new_email)
        email = _email_to_act_on(call, return_link)
        if new_email is not None:
            if "idToken" in fields:
                require_recent_login(call, fields.text("idToken"))
            require(accounts.by_email(new_email) is None, "EMAIL_EXISTS")
    code = accounts.oob_codes.add(new_oob_code(email, request_type, call.origin, continue_url, new_email))
    call.store.save()
    answer["email"] = email
    if return_link:
        answer.update(oobCode=code.code, oobLink=code.link)
    return answer


def _email_to_act_on(call: Call, return_link: bool) -> str:
    """The signed-in user's email; an admin asking for a link names it (`email`) instead."""
    fields = call.fields
    if return_link and "idToken" not in fields:
        email = fields.text("email")
        require(email, "MISSING_EMAIL")
        email = valid_email(email)
        require(call.accounts.by_email(email), "USER_NOT_FOUND")
        return email
    account, _ = user_of_id_token(call, fields.text("idToken"))
    require(account.email, "MISSING_EMAIL")
    return account.email


def update_or_apply(call: Call) -> dict[str, Any]:
    """accounts:update: with `oobCode`, what clicking a verification link does; else the update."""
    if "oobCode" not in call.fields:
        return update(call)
    accounts = call.accounts
    code = accounts.oob_codes.find(call.fields.text("oobCode"), call.store.oob_code_lifetime)
    require(code.request_type in ("VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL"), "INVALID_OOB_CODE")
    accounts.oob_codes.use(code)
    account = _account_of(call, code)
    if code.new_email is not None:
        require(accounts.by_email(code.new_email) is None, "EMAIL_EXISTS")
        account.email = code.new_email
    account.email_verified = True
    call.store.save()
    return {"kind": "identitytoolkit#SetAccountInfoResponse", "localId": account.local_id,
            "emailVerified": True, "providerUserInfo": account.to_api(with_password_hash=False)["providerUserInfo"],
            **present(email=account.email, displayName=account.display_name, photoUrl=account.photo_url,
                      newEmail=code.new_email)}


def reset_password(call: Call) -> dict[str, Any]:
    """Without `newPassword` it only tells what the code is for (the SDKs' checkActionCode). A new
    password verifies the email, revokes the sessions and, as firebase-tools, unlinks the identity
    providers."""
    fields = call.fields
    code = call.accounts.oob_codes.find(fields.text("oobCode"), call.store.oob_code_lifetime)
    new_password = fields.text("newPassword")
    if new_password:
        require(code.request_type == "PASSWORD_RESET", "INVALID_OOB_CODE")
        require(len(new_password) >= MIN_LENGTH, WEAK_PASSWORD)
        call.accounts.oob_codes.use(code)
        account = _account_of(call, code)
        set_password(account, new_password)
        account.email_verified = True
        account.federated = []
        account.revoke_sessions()
        call.store.save()
    # An email sign-in code does not reveal its email: the user must type it (signInWithEmailLink).
    return {"kind": "identitytoolkit#ResetPasswordResponse", "requestType": code.request_type,
            **present(email=None if code.request_type == "EMAIL_SIGNIN" else code.email, newEmail=code.new_email)}


def sign_in_with_email_link(call: Call) -> dict[str, Any]:
    """Signs in (or up) the email's user, or, with `idToken`, links the email to the signed-in user."""
    fields, accounts = call.fields, call.accounts
    from_token = user_of_id_token(call, fields.text("idToken"))[0] if "idToken" in fields else None
    email = fields.text("email")
    require(email, "MISSING_EMAIL")
    email = valid_email(email)
    code = accounts.oob_codes.find(fields.text("oobCode"), call.store.oob_code_lifetime)
    require(code.request_type == "EMAIL_SIGNIN", "INVALID_OOB_CODE")
    require(code.email == email, "INVALID_EMAIL : The email provided does not match the sign-in email address.")
    from_email = accounts.by_email(email)
    if from_token is not None and from_email is not None:
        require(from_token.local_id == from_email.local_id, "EMAIL_EXISTS")
    account = from_token or from_email
    if account is not None:
        require(not account.disabled, "USER_DISABLED")
    accounts.oob_codes.use(code)
    is_new = account is None
    moment = now_ms()
    if account is None:
        account = accounts.add(Account(accounts.new_local_id(), moment))
    account.email, account.email_verified, account.email_link_signin = email, True, True
    account.last_login_at_ms = moment
    answer = {"kind": "identitytoolkit#EmailLinkSigninResponse", "email": email, "localId": account.local_id,
              "isNewUser": is_new, **issue_tokens(call, account, "password")}
    call.store.save()
    return answer


def create_auth_uri(call: Call) -> dict[str, Any]:
    """How an email signs in (the SDKs' fetchSignInMethodsForEmail): nothing with email
    enumeration protection on; identity providers only with one account per email."""
    fields = call.fields
    require("providerId" not in fields,
            "OPERATION_NOT_ALLOWED : ((createAuthUri with a providerId (an IdP redirect) is not emulated.))")
    identifier = fields.text("identifier")
    require(identifier, "MISSING_IDENTIFIER")
    continue_uri = fields.text("continueUri")
    require(continue_uri, "MISSING_CONTINUE_URI")
    try:
        email = valid_email(identifier)
    except AuthError:
        raise AuthError("INVALID_IDENTIFIER") from None
    require(_absolute(continue_uri), "INVALID_CONTINUE_URI")
    answer: dict[str, Any] = {"kind": "identitytoolkit#CreateAuthUriResponse",
                              "sessionId": fields.text("sessionId") or secrets.token_urlsafe(20)[:27]}
    settings = call.accounts.sign_in
    if settings.improved_email_privacy:
        return answer
    account = call.accounts.by_email(email)
    providers, methods = [], []
    if account is not None:
        if account.password_hash is not None or account.email_link_signin:
            providers.append("password")
            methods += ["password"] * (account.password_hash is not None)
            methods += ["emailLink"] * account.email_link_signin
        if not settings.allow_duplicate_emails:
            federated = [provider["providerId"] for provider in account.federated]
            providers += federated
            methods += federated
    return {**answer, "registered": account is not None, "allProviders": providers, "signinMethods": methods}


def _account_of(call: Call, code: OobCode) -> Account:
    account = call.accounts.by_email(code.email)
    require(account, "INVALID_OOB_CODE")  # the user was deleted or changed the email since
    return account


def _absolute(uri: str) -> bool:
    parts = urlsplit(uri)
    return bool(parts.scheme and parts.netloc)
