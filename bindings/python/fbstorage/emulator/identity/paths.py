"""Where the Auth routes live: the production hosts as path prefixes, as firebase-tools' Auth
emulator serves them. A module of its own, importable by the request log and the UI without the
routes' dependencies."""

IDENTITY_TOOLKIT = "/identitytoolkit.googleapis.com/v1"
SECURE_TOKEN = "/securetoken.googleapis.com/v1/token"
LEGACY_RELYING_PARTY = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
EMULATOR_PROJECT = "/emulator/v1/projects/{project}"  # the emulator-only routes of one project
