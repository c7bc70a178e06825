#!/usr/bin/env bash
# run.sh IOS_SDK_CHECKOUT — builds the Firebase Apple SDK's own Storage integration tests
# (IOS_SDK_CHECKOUT/FirebaseStorage/Tests/Integration: 60 XCTest tests, unchanged, with this
# folder's Credentials.swift for the account they sign in with, FoundationOnLinux.swift for the
# one Foundation name Linux lacks, and an empty GTMSessionFetcherCore module) against this repository's
# FirebaseStorage, FirebaseAuth and FirebaseCore products, and runs them against the bundled
# emulator reached as production is (Tests/support/as-production.sh: their download URLs must
# be https://firebasestorage.googleapis.com:443/…; needs root), with the rules they document
# (storage.rules), the account created in its Auth,
# and FirebaseApp.configure() reading GoogleService-Info.plist from beside the test executable.
# A manual check (the Apple SDK's source is not part of this repository). The package is
# built in build/apple-sdk-integration (kept between runs). FBS_PYTHON, PYTHONPATH as for
# make test-swift. Exits with the tests' status.
set -euo pipefail
sdk=${1:?usage: run.sh FIREBASE_IOS_SDK_CHECKOUT}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
integration=$sdk/FirebaseStorage/Tests/Integration
package=$repo/build/apple-sdk-integration
tests=$package/Tests/StorageIntegration
mkdir -p "$tests"
sed "s|@REPO@|$repo|" "$here/Package.swift.in" > "$package/Package.swift"
rm -f "$tests"/*.swift
for source in "$integration"/*.swift; do
  [ "$(basename "$source")" = Credentials.swift ] || cp "$source" "$tests/"
done
cp "$here/Credentials.swift" "$here/FoundationOnLinux.swift" "$tests/"
mkdir -p "$package/GTMSessionFetcherCore"
cp "$here/GTMSessionFetcherCore.swift" "$package/GTMSessionFetcherCore/"
swift build --build-tests --package-path "$package"
# Bundle(for:) of a test class is the test executable's directory on Linux: the resources go
# there, and GoogleService-Info.plist, which FirebaseApp.configure() finds beside the executable.
bin=$(swift build --show-bin-path --package-path "$package")
cp -R "$integration/Resources/." "$here/GoogleService-Info.plist" "$bin/"
# 50 Mbit/s, a broadband link: the tests are written for a server across the internet (one pauses
# a 1 MiB download from a block queued on the lowest-priority queue, which loopback outruns).
FBS_LINK_MBIT=50 FBS_EMULATOR_ARGS="--rules $here/storage.rules" "$repo/Tests/support/as-production.sh" bash -c '
  curl -sf -H "Content-Type: application/json" \
    -d "{\"email\": \"storage-integration@example.com\", \"password\": \"storage-integration-password\"}" \
    "http://$FIREBASE_AUTH_EMULATOR_HOST/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-api-key" >/dev/null
  swift test --skip-build --package-path "$0"' "$package"
