"""Where the Auth routes live: the production hosts as path prefixes, as firebase-tools' Auth
emulator serves them. A module of its own, importable by the request log and the UI without the
routes' dependencies."""

IDENTITY_TOOLKIT = "/identitytoolkit.googleapis.com/v1"
SECURE_TOKEN = "/securetoken.googleapis.com/v1/token"
LEGACY_RELYING_PARTY = "/www.googleapis.com/identitytoolkit/v3/relyingparty"
EMULATOR_API = "/emulator/v1/"  # the Auth emulator's own routes
EMULATOR_PROJECT = EMULATOR_API + "projects/{project}"  # ... of one project
EMULATOR_ACTION = "/emulator/action"  # where the links of Auth's emails point
