"""GET /emulator/action: what the link in an Auth email does when a user (or a test, with any
HTTP client) opens it, with firebase-tools' answers (src/emulator/auth/handlers.ts):
`{"authEmulator": {"success" | "error", …}}`, or a 303 to the code's continueUrl once done. An
email sign-in link goes on to the app's continueUrl with the code, where the app completes it.
Only the continueUrl recorded with the code is followed: the link cannot be made to redirect
elsewhere."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from aiohttp import web

from ..state import STATE
from .calls import Fields
from .email_actions import reset_password, update_or_apply
from .errors import AuthError
from .oob_codes import MODES, PendingCodes
from .operations import Call

# mode → (what a used or expired code says, what to do, the success message and the answer's field)
OUTCOMES = {
    "verifyEmail": ("verify your email", "Try verifying your email again.",
                    "The email has been successfully verified.", "email"),
    "verifyAndChangeEmail": ("change your email", "Try changing your email again.",
                             "The email has been successfully changed.", "newEmail"),
    "resetPassword": ("reset your password", "Try resetting your password again.",
                      "The password has been successfully updated.", "email"),
}
PLACEHOLDER = "NEW_PASSWORD_HERE"


async def open_action_link(request: web.Request) -> web.Response:
    query = request.query
    for name, example in (("apiKey", "YOUR_API_KEY"), ("oobCode", "YOUR_OOB_CODE")):
        if not query.get(name):
            return _error(f"missing {name} query parameter",
                          f"Please modify the URL to specify an {name}, such as ...&{name}={example}")
    store = request.app[STATE].accounts
    mode, code_text = query.get("mode", ""), query["oobCode"]
    code = store.project(store.default_project).oob_codes.codes.get(code_text)
    if code is not None and PendingCodes.expired(code, store.oob_code_lifetime):
        code = None  # answered as a used one
    if mode == "signIn":
        if code is None or code.request_type != "EMAIL_SIGNIN" or not code.continue_url:
            return _error("This sign-in link has expired, was used, or names no continueUrl.",
                          "Send a new sign-in link with a continueUrl (your app's page that completes the sign-in).")
        parameters = {name: value for name, value in query.items() if name != "continueUrl"}
        separator = "&" if urlsplit(code.continue_url).query else "?"
        return _see_other(f"{code.continue_url}{separator}{urlencode(parameters)}")
    if mode not in OUTCOMES:
        return _error("Invalid mode")
    failure, retry, success, field = OUTCOMES[mode]
    if code is not None and MODES[code.request_type] != mode:
        return _error("Requested mode does not match the OOB code provided.", retry)
    body: dict[str, Any] = {"oobCode": code_text}
    if mode == "resetPassword":
        new_password = query.get("newPassword")
        template = f"{code.link}&newPassword={PLACEHOLDER}" if code else None
        if code is not None and not new_password:
            return _error("missing newPassword query parameter",
                          f"To reset the password for {code.email}, send an HTTP GET request to the following URL.",
                          urlTemplate=template)
        if new_password == PLACEHOLDER:
            return _error(f"newPassword must be something other than '{PLACEHOLDER}'",
                          f"The string '{PLACEHOLDER}' is just a placeholder.", urlTemplate=template)
        body["newPassword"] = new_password
    operation = reset_password if mode == "resetPassword" else update_or_apply
    call = Call(store, store.default_project, Fields(body), False, f"{request.scheme}://{request.host}")
    try:
        answer = operation(call)
    except AuthError as error:
        if error.message.startswith("WEAK_PASSWORD"):
            return _error(error.message, "Choose a longer password.")
        return _error(f"Your request to {failure} has expired or the link has already been used.", retry)
    if code.continue_url:
        return _see_other(code.continue_url)
    return web.json_response({"authEmulator": {"success": success, field: answer.get(field)}})


def _see_other(location: str) -> web.Response:
    return web.Response(status=303, headers={"Location": location})


def _error(message: str, instructions: str | None = None, **more: Any) -> web.Response:
    details = {"error": message, **({"instructions": instructions} if instructions else {}), **more}
    return web.json_response({"authEmulator": details}, status=400)
