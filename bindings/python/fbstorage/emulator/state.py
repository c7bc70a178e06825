"""Everything one running emulator holds, shared by the v0 API and the control API."""

from __future__ import annotations

from dataclasses import dataclass, field

from aiohttp import web

from .app_check.tokens import AppCheck
from .faults import FaultInjector
from .flavor import Flavor
from .identity.accounts import AccountStore
from .origins import CrossSitePolicy
from .requestlog import RequestLog
from .rules.registry import BucketRules
from .service_accounts import ServiceAccounts
from .store import ObjectStore
from .uploads import UploadSessions


@dataclass
class EmulatorState:
    flavor: Flavor
    store: ObjectStore
    startup_rules: BucketRules = field(default_factory=BucketRules.allow_all)  # kept current by hot reload
    rules: BucketRules = field(default_factory=BucketRules.allow_all)
    sessions: UploadSessions = field(default_factory=UploadSessions)
    faults: FaultInjector = field(default_factory=FaultInjector)
    requests: RequestLog = field(default_factory=RequestLog)
    accounts: AccountStore = field(default_factory=AccountStore)  # the Auth emulator's
    service_accounts: ServiceAccounts = field(default_factory=ServiceAccounts)  # --service-account keys
    cross_site: CrossSitePolicy = field(default_factory=CrossSitePolicy)  # which origins are its own
    app_check: AppCheck = field(default_factory=AppCheck)  # --app-check and its debug tokens

    async def reset(self) -> None:
        """Back to a fresh start: no objects, sessions, faults, recorded requests or Auth accounts;
        startup rules."""
        self.sessions.clear()
        await self.store.reset()
        self.faults.clear()
        self.requests.clear()
        self.rules = self.startup_rules
        self.accounts.reset()


STATE = web.AppKey("fbstorage_emulator_state", EmulatorState)
