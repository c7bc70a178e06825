#!/usr/bin/env bash
# run-all.sh SO TEST_DIR — every C check: ABI (exports, header as C/C++, versions), the misuse
# matrix, the integration tests in both emulator flavors, and packaging. Ends with the line
# "N passed, N failed" summing all of them; exit status non-zero on any failure.
set -uo pipefail
so=${1:?usage: run-all.sh libfbstorage.so build/tests}
tests=${2:?usage: run-all.sh libfbstorage.so build/tests}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
passed=0 failed=0
tally() {  # counts "ok"/"FAIL" lines and "N passed, N failed" lines of a step's output
  local log=$1 rc=$2 p f
  p=$(grep -c '^ok ' "$log"); f=$(grep -c '^FAIL' "$log")
  if line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1); [ -n "$line" ]; then
    p=$(echo "$line" | cut -d' ' -f1); f=$(echo "$line" | cut -d' ' -f3)
  fi
  [ "$rc" != 0 ] && [ "$f" = 0 ] && f=1   # a step that failed without saying so
  passed=$((passed + p)); failed=$((failed + f))
}
step() {  # title, command...
  local title=$1; shift
  echo "== $title"
  local log; log=$(mktemp)
  "$@" 2>&1 | tee "$log" | sed -e '/^[0-9]* passed, [0-9]* failed$/s/^/  /'
  tally "$log" "${PIPESTATUS[0]}"
  rm -f "$log"
}
step "ABI: exports" "$repo/scripts/check-exports.sh" "$so" "$repo/include/fbstorage.h"
step "ABI: header and versions" "$here/check-header.sh" "$repo/include" "$(dirname "$so")"
step "misuse matrix" "$tests/c_misuse"
step "integration (both emulator flavors)" "$tests/c_integration"
step "packaging" "$here/test-packaging.sh" "$repo"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
