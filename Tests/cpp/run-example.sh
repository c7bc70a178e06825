#!/usr/bin/env bash
# run-example.sh — runs examples/cpp/upload.cc ($FBS_EXAMPLE) against a fresh emulator, with the
# upload request held 1 s by a fault so the example's pause lands mid-upload, and checks its output.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c 3000000 /dev/urandom > "$tmp/photo.bin"
out=$(Tests/c/with-emulator.sh sh -c '
  curl -sf -X POST -H "Authorization: Bearer owner" -H "Content-Type: application/json" \
    -d "{\"match\": {\"method\": \"PUT\", \"query_contains\": \"upload_id\"}, \"action\": {\"delay_ms\": 1000}}" \
    "http://$FIREBASE_STORAGE_EMULATOR_HOST/_emulator/faults" >/dev/null
  "$0" "$1"' "$FBS_EXAMPLE" "$tmp/photo.bin")
status=0
for expected in "signed in as " "paused at " "resumed" "uploaded 3000000 bytes to users/" \
                "uploaded-by examples/cpp/upload.cc" "/photo.bin" "download URL: http://"; do
  grep -qF -- "$expected" <<<"$out" || { echo "FAIL the example's output lacks: $expected"; status=1; }
done
[ $status = 0 ] && echo "ok   examples/cpp/upload.cc: signed in, paused, resumed, uploaded, listed" || echo "$out"
exit $status
