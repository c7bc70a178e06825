#!/usr/bin/env bash
# run.sh IOS_SDK_CHECKOUT [storage|auth] — builds the Firebase Apple SDK's own integration tests
# against this repository's FirebaseStorage, FirebaseAuth and FirebaseCore products and runs them
# against the bundled emulator reached as production is (Tests/support/as-production.sh; needs
# root), with FirebaseApp.configure() reading GoogleService-Info.plist from beside the test
# executable. A manual check (the Apple SDK's source is not part of this repository). The
# package is built in build/apple-sdk-integration (kept between runs). FBS_PYTHON, PYTHONPATH as
# for make test-swift. Exits with the tests' status.
#
# FBS_APPLY_FULFILL_LAST=1 (storage only) applies fulfill-last.patch to the copy: the one change
# that removes the tests' own race at StorageIntegration.swift:483, to tell it from any other
# failure. Without it the tests run unchanged.
#
# storage (the default): FirebaseStorage/Tests/Integration (60 XCTest tests, unchanged), with
# this folder's Credentials.swift for the account they sign in with (created in the emulator's
# Auth first), FoundationOnLinux.swift for the one Foundation name Linux lacks, an empty
# GTMSessionFetcherCore module, and the rules they document (storage.rules). Their download URLs
# must be https://firebasestorage.googleapis.com:443/….
#
# auth: FirebaseAuth/Tests/SampleSwift/SwiftApiTests, the tests that need no other service
# (TestsBase, AnonymousTests, AccountInfoTests, EmailPasswordTests: unchanged), with
# AppHost.swift standing in for the sample app that hosts them (it configures FirebaseApp), and
# their project as they expect it: the account EmailPasswordTests signs in with, and email
# enumeration protection on (fetchSignInMethods answers []). Left out: GoogleTests and
# FacebookTests (they fetch tokens from Google's and Facebook's servers with real accounts),
# PhoneAuthTests and PhoneMultiFactorTests (iOS only: #if os(iOS)), UserThreadSafetyTests (the
# SDK's internal types: SecureTokenService, GetAccountInfoResponse).
set -euo pipefail
sdk=${1:?usage: run.sh FIREBASE_IOS_SDK_CHECKOUT [storage|auth]}
module=${2:-storage}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
package=$repo/build/apple-sdk-integration
case $module in
  storage) target=StorageIntegration integration=$sdk/FirebaseStorage/Tests/Integration
           sources=$(ls "$integration"/*.swift | grep -v '/Credentials\.swift$')
           stand_ins="$here/Credentials.swift $here/FoundationOnLinux.swift" ;;
  auth) target=AuthIntegration integration=$sdk/FirebaseAuth/Tests/SampleSwift/SwiftApiTests
        sources=$(printf "$integration/%s.swift\n" TestsBase AnonymousTests AccountInfoTests EmailPasswordTests)
        stand_ins=$here/AppHost.swift ;;
  *) echo "run.sh: no such module: $module (storage or auth)"; exit 2 ;;
esac
tests=$package/Tests/$target
rm -rf "$package/Tests"
mkdir -p "$tests"
sed -e "s|@REPO@|$repo|" -e "s|@TARGET@|$target|" "$here/Package.swift.in" > "$package/Package.swift"
# shellcheck disable=SC2086  # the lists are paths without spaces
cp $sources $stand_ins "$tests/"
if [ "$module" = storage ] && [ "${FBS_APPLY_FULFILL_LAST:-}" = 1 ]; then
  patch --quiet -d "$tests" -p1 < "$here/fulfill-last.patch"
fi
mkdir -p "$package/GTMSessionFetcherCore"
cp "$here/GTMSessionFetcherCore.swift" "$package/GTMSessionFetcherCore/"
swift build --build-tests --package-path "$package"
# Bundle(for:) of a test class is the test executable's directory on Linux: the resources go
# there, and GoogleService-Info.plist, which FirebaseApp.configure() finds beside the executable.
bin=$(swift build --show-bin-path --package-path "$package")
cp "$here/GoogleService-Info.plist" "$bin/"
signup() {  # email password: an account in the emulator's Auth, as the tests' project has it
  printf 'curl -sf -H "Content-Type: application/json" -d %q "http://$FIREBASE_AUTH_EMULATOR_HOST/identitytoolkit.googleapis.com/v1/accounts:signUp?key=demo-api-key" >/dev/null\n' \
    "{\"email\": \"$1\", \"password\": \"$2\"}"
}
if [ "$module" = storage ]; then
  cp -R "$integration/Resources/." "$bin/"
  # 50 Mbit/s, a broadband link: the tests are written for a server across the internet (one
  # pauses a 1 MiB download from a block queued on the lowest-priority queue, which loopback outruns).
  export FBS_LINK_MBIT=50 FBS_EMULATOR_ARGS="--rules $here/storage.rules"
  setup=$(signup storage-integration@example.com storage-integration-password)
else
  setup="$(signup user+email_existing_user@example.com password)
curl -sf -X PATCH -H 'Content-Type: application/json' \
  -d '{\"emailPrivacyConfig\": {\"enableImprovedEmailPrivacy\": true}}' \
  \"http://\$FIREBASE_AUTH_EMULATOR_HOST/emulator/v1/projects/demo-project/config\" >/dev/null"
fi
if [ "$module" = auth ]; then  # AppHost.swift's class must come first, as a host app would
  first=$(swift test --skip-build --list-tests --package-path "$package" | head -1)
  case $first in AuthIntegration.AAAppHost/*) ;; *) echo "run.sh: XCTest lists $first before the host's class"; exit 1 ;; esac
fi
"$repo/Tests/support/as-production.sh" bash -c "set -e
$setup
swift test --skip-build --package-path \"\$0\"" "$package"
