#!/usr/bin/env bash
# run.sh SDK_CHECKOUT [MODULE] — compiles the Firebase C++ SDK's own integration test of MODULE
# (storage, the default, or auth: SDK_CHECKOUT/MODULE/integration_test/src/integration_test.cc,
# unchanged) against fbstorage's headers and libfbstorage-cpp.a, with this folder's stand-ins for
# the SDK's test harness, and runs it against the bundled emulator reached as production is
# (Tests/support/as-production.sh: the production host name over https, in a network namespace
# of its own); App::Create() reads a google-services.json written to a temporary working
# directory.
# A manual check (the SDK's source is not part of this repository): `make cpp` first; needs
# root (unshare), GoogleTest and GoogleMock (libgtest-dev, libgmock-dev), and the emulator's
# `cryptography`. FBS_LIBDIR, FBS_PYTHON, PYTHONPATH as for make test-cpp; FBS_RUN_LINUX_SKIPPED=1
# also runs the tests the SDK skips on Linux. Exits with the test's status.
set -euo pipefail
sdk=${1:?usage: run.sh FIREBASE_CPP_SDK_CHECKOUT [storage|auth]}
module=${2:-storage}
case $module in storage|auth) ;; *) echo "run.sh: no such module: $module (storage or auth)"; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
build_sdk_test "$work/integration_test" "$sdk/$module/integration_test/src/integration_test.cc" \
  ${FBS_RUN_LINUX_SKIPPED:+-DFBS_RUN_LINUX_SKIPPED} -I"$here"
cat > "$work/google-services.json" <<'JSON'
{"project_info": {"project_number": "1", "project_id": "demo-project", "storage_bucket": "demo-project.appspot.com"},
 "client": [{"client_info": {"mobilesdk_app_id": "1:1:android:1", "android_client_info": {"package_name": "com.example"}},
             "api_key": [{"current_key": "demo-api-key"}]}]}
JSON
cd "$work"
# The session the SDK's tests sign in to stays with this run (XDG_CONFIG_HOME/fbstorage-cpp: fbs_auth_set_persistence_for_app).
XDG_CONFIG_HOME=$work SDK_IT_DIR=$work "$repo/Tests/support/as-production.sh" ./integration_test
