"""User accounts and refresh-token sessions, per project; optionally persisted in a data directory
(`<data-dir>/auth/accounts.json`, rewritten atomically after every change)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import secrets
import string
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .oob_codes import OobCode, PendingCodes
from .sign_in_config import SignInConfig
from .signing import SigningKeys
from ..json_input import load_json

_ID_ALPHABET = string.ascii_letters + string.digits
FILE_NAME = "accounts.json"


@dataclass
class Account:
    local_id: str
    created_at_ms: int
    email: str | None = None
    email_verified: bool = False
    display_name: str | None = None
    photo_url: str | None = None
    phone_number: str | None = None
    password_hash: str | None = None
    salt: str | None = None
    password_updated_at_ms: int | None = None
    disabled: bool = False
    custom_attributes: str | None = None  # JSON object text, as the API carries it
    valid_since: int | None = None  # seconds: tokens issued before are revoked
    revoked_at: float | None = None  # the exact moment of the last revocation (refresh tokens)
    last_login_at_ms: int | None = None
    last_refresh_at: float | None = None
    custom_auth: bool = False
    email_link_signin: bool = False  # signed in through an email link: a password provider without a password
    # Identity providers' users linked to this account (google.com, ...), one per provider, as the
    # API's providerUserInfo: providerId, rawId (the IdP's `sub`), email, displayName, photoUrl.
    federated: list[dict[str, str]] = field(default_factory=list)

    def custom_claims(self) -> dict[str, Any]:
        return load_json(self.custom_attributes) if self.custom_attributes else {}

    def identities(self) -> dict[str, list[str]]:
        """The ID token's `firebase.identities`: the email, phone and each linked provider's rawId."""
        identities: dict[str, list[str]] = {}
        if self.email:
            identities["email"] = [self.email]
        if self.phone_number:
            identities["phone"] = [self.phone_number]
        for provider in self.federated:
            identities[provider["providerId"]] = [provider["rawId"]]
        return identities

    def federated_user(self, provider_id: str) -> dict[str, str] | None:
        return next((provider for provider in self.federated if provider["providerId"] == provider_id), None)

    def link(self, provider: dict[str, str]) -> None:
        """One identity per provider: a new one replaces the user's earlier identity of that provider."""
        self.federated = [*(linked for linked in self.federated if linked["providerId"] != provider["providerId"]),
                          provider]

    def revoke_sessions(self) -> None:
        """Every ID and refresh token issued until now stops working."""
        self.revoked_at = time.time()
        self.valid_since = int(self.revoked_at)

    def revoked_before(self, issued_at: float) -> bool:
        """Whether a session (refresh token) started at `issued_at` was revoked since."""
        return ((self.valid_since is not None and issued_at < self.valid_since)
                or (self.revoked_at is not None and issued_at < self.revoked_at))

    def to_api(self, *, with_password_hash: bool) -> dict[str, Any]:
        """The account as the Identity Toolkit's lookup answers it (UserInfo)."""
        # `disabled` only when true, as production answers (tests/emulator/data/production-replay).
        info: dict[str, Any] = {"localId": self.local_id, "emailVerified": self.email_verified,
                                "createdAt": str(self.created_at_ms), **({"disabled": True} if self.disabled else {})}
        optional = {"email": self.email, "displayName": self.display_name, "photoUrl": self.photo_url,
                    "phoneNumber": self.phone_number, "customAttributes": self.custom_attributes,
                    "validSince": None if self.valid_since is None else str(self.valid_since),
                    "lastLoginAt": None if self.last_login_at_ms is None else str(self.last_login_at_ms),
                    "passwordUpdatedAt": self.password_updated_at_ms}
        info.update({key: value for key, value in optional.items() if value is not None})
        if self.last_refresh_at is not None:  # RFC 3339, unlike the other times
            moment = datetime.fromtimestamp(self.last_refresh_at, timezone.utc)
            info["lastRefreshAt"] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        if self.password_hash is not None:
            # Production redacts the hash unless the caller may export users (an admin here).
            info["passwordHash"] = self.password_hash if with_password_hash else "UkVEQUNURUQ="
            if with_password_hash:
                info["salt"] = self.salt
        if self.custom_auth:
            info["customAuth"] = True
        providers = []
        if self.email and (self.password_hash is not None or self.email_link_signin):
            providers.append({"providerId": "password", "email": self.email, "federatedId": self.email,
                              "rawId": self.email, **present(displayName=self.display_name, photoUrl=self.photo_url)})
        if self.phone_number:
            providers.append({"providerId": "phone", "phoneNumber": self.phone_number, "rawId": self.phone_number})
        # firebase-tools answers federatedId = rawId, as production does (operations.ts, signInWithIdp).
        providers.extend({**provider, "federatedId": provider["rawId"]} for provider in self.federated)
        info["providerUserInfo"] = providers
        return info


@dataclass
class Session:
    """What a refresh token stands for; the token itself is kept only as a hash."""
    local_id: str
    provider: str
    claims: dict[str, Any]  # a custom token's developer claims, repeated in every ID token
    issued_at: float
    account_created_at_ms: int  # a later account with the same uid does not inherit the session


@dataclass
class ProjectAccounts:
    users: dict[str, Account] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)  # sha256(refresh token) → session
    deleted: set[str] = field(default_factory=set)  # uids deleted since the last reset
    oob_codes: PendingCodes = field(default_factory=PendingCodes)
    sign_in: SignInConfig = field(default_factory=SignInConfig)

    def by_email(self, email: str) -> Account | None:
        return next((account for account in self.users.values() if account.email == email), None)

    def by_federated_id(self, provider_id: str, raw_id: str) -> Account | None:
        return next((account for account in self.users.values()
                     if (account.federated_user(provider_id) or {}).get("rawId") == raw_id), None)

    def new_local_id(self) -> str:
        while True:
            local_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(28))
            if local_id not in self.users:
                return local_id

    def add(self, account: Account) -> Account:
        self.users[account.local_id] = account
        self.deleted.discard(account.local_id)
        return account

    def remove(self, local_id: str) -> None:
        del self.users[local_id]
        self.deleted.add(local_id)

    def knows(self, local_id: str) -> bool:
        """Whether this uid is or was (until the last reset) an account here."""
        return local_id in self.users or local_id in self.deleted

    def token_problem(self, claims: dict[str, Any]) -> str | None:
        """Why an ID token of this project no longer stands for its user: USER_NOT_FOUND (deleted, or
        a token of an earlier account with that uid), TOKEN_EXPIRED (revoked), USER_DISABLED."""
        account = self.users.get(claims.get("user_id"))
        issued_at = claims.get("iat")
        if not isinstance(issued_at, (int, float)) or isinstance(issued_at, bool):
            issued_at = 0
        if account is None or issued_at < account.created_at_ms // 1000:
            return "USER_NOT_FOUND"
        if account.valid_since is not None and issued_at < account.valid_since:
            return "TOKEN_EXPIRED"
        if account.disabled:
            return "USER_DISABLED"
        return None

    def start_session(self, account: Account, provider: str, claims: dict[str, Any]) -> str:
        token = secrets.token_urlsafe(48)
        self.sessions[_digest(token)] = Session(account.local_id, provider, claims, time.time(),
                                                account.created_at_ms)
        return token

    def session(self, refresh_token: str) -> Session | None:
        return self.sessions.get(_digest(refresh_token))


class AccountStore:
    """All projects' accounts of one emulator. Every change ends with `save()`."""

    def __init__(self, data_dir: str | None = None, default_project: str = "demo-project",
                 token_lifetime: int = 3600, oob_code_lifetime: int = 3600, recent_login: int | None = None,
                 id_token_keys: SigningKeys | None = None):
        self.default_project = default_project
        self.token_lifetime = token_lifetime
        self.oob_code_lifetime = oob_code_lifetime
        self.recent_login = recent_login  # seconds; None: sensitive changes need no recent sign-in
        self.id_token_keys = id_token_keys  # None: ID tokens are unsigned, as firebase-tools makes them
        self._path = Path(data_dir) / "auth" / FILE_NAME if data_dir else None
        self._projects: dict[str, ProjectAccounts] = {}
        if self._path is not None:
            self._load()

    def project(self, project_id: str) -> ProjectAccounts:
        return self._projects.setdefault(project_id, ProjectAccounts())

    def find_project(self, project_id: str) -> ProjectAccounts | None:
        return self._projects.get(project_id)

    def reset(self, project_id: str | None = None) -> None:
        """Forget every account and session (of one project, or of all)."""
        if project_id is None:
            self._projects.clear()
        else:
            self._projects.pop(project_id, None)
        self.save()

    def save(self) -> None:
        if self._path is None:
            return
        document = {"projects": {project_id: {
            "users": [dataclasses.asdict(account) for account in accounts.users.values()],
            "sessions": {digest: dataclasses.asdict(session) for digest, session in accounts.sessions.items()},
            "deleted": sorted(accounts.deleted),
            "oobCodes": [dataclasses.asdict(code) for code in accounts.oob_codes.codes.values()],
            "signIn": dataclasses.asdict(accounts.sign_in)} for project_id, accounts in self._projects.items()}}
        self._path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self._path.with_suffix(".tmp")
        with open(temporary, "w", encoding="utf-8") as file:
            json.dump(document, file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self._path)

    def _load(self) -> None:
        try:
            document = load_json(self._path.read_bytes())
        except FileNotFoundError:
            return
        except (OSError, ValueError) as error:
            raise ValueError(f"{self._path}: unreadable accounts file: {error}") from None
        try:
            for project_id, stored in document["projects"].items():
                accounts = self.project(project_id)
                accounts.users = {record["local_id"]: Account(**record) for record in stored["users"]}
                accounts.sessions = {digest: Session(**record) for digest, record in stored["sessions"].items()}
                accounts.deleted = set(stored["deleted"])
                # Files written before codes and settings were kept have neither.
                accounts.oob_codes = PendingCodes({record["code"]: OobCode(**record)
                                                   for record in stored.get("oobCodes", [])})
                accounts.sign_in = SignInConfig(**stored.get("signIn", {}))
        except (KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{self._path}: unexpected accounts file layout: {error!r}") from None


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def present(**values: Any) -> dict[str, Any]:
    return {key: value for key, value in values.items() if value is not None}
