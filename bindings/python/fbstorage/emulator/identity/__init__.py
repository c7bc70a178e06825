"""The bundled Firebase Auth emulator: Identity Toolkit and Secure Token routes as firebase-tools'
Auth emulator serves them (production hosts as path prefixes), accounts, and unsigned ID tokens."""
