"""Where App Check lives: the production hosts as path prefixes (the emulator's convention). The
web SDK calls `content-firebaseappcheck.googleapis.com/v1beta`, the Apple and Android SDKs
`firebaseappcheck.googleapis.com/v1`. A module of its own, importable without the routes."""

APP_CHECK_HOSTS = ("/firebaseappcheck.googleapis.com/", "/content-firebaseappcheck.googleapis.com/")
JWKS_PATH = "/firebaseappcheck.googleapis.com/v1/jwks"
#: The exchange routes: `…/{v1,v1beta}/projects/{project}/apps/{app}:exchange…Token`.
EXCHANGE_PREFIXES = tuple(host + version + "/projects/" for host in APP_CHECK_HOSTS for version in ("v1", "v1beta"))
ISSUER_PREFIX = "https://firebaseappcheck.googleapis.com/"
#: The `aud` of a custom token, as firebase-admin's createToken sets it.
CUSTOM_TOKEN_AUDIENCE = "https://firebaseappcheck.googleapis.com/google.firebase.appcheck.v1.TokenExchangeService"
#: The header the SDKs send the token in, on every Firebase Storage request.
HEADER = "X-Firebase-AppCheck"
