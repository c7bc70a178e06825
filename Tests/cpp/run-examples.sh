#!/usr/bin/env bash
# run-examples.sh — runs examples/cpp/upload.cc ($FBS_EXAMPLE) and the C++ blocks of README.md
# (built with `pkg-config fbstorage-cpp`, PKG_CONFIG_PATH from the caller) against fresh
# emulators, and checks their output. The example's upload request is held 1 s by a fault so
# that its pause lands mid-upload.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CONFIG_HOME=$tmp  # the session the examples' Auth keeps stays with this run
status=0
expect() {  # name, output, expected strings...
  local name=$1 out=$2 missing=0
  shift 2
  for expected in "$@"; do
    grep -qF -- "$expected" <<<"$out" || { echo "FAIL $name: the output lacks: $expected"; missing=1; }
  done
  if [ $missing = 0 ]; then echo "ok   $name"; else echo "$out" | sed 's/^/  /'; status=1; fi
}

head -c 3000000 /dev/urandom > "$tmp/photo.bin"
out=$("$here/../c/with-emulator.sh" sh -c '
  curl -sf -X POST -H "Authorization: Bearer owner" -H "Content-Type: application/json" \
    -d "{\"match\": {\"method\": \"PUT\", \"query_contains\": \"upload_id\"}, \"action\": {\"delay_ms\": 1000}}" \
    "http://$FIREBASE_STORAGE_EMULATOR_HOST/_emulator/faults" >/dev/null
  "$0" "$1"' "$FBS_EXAMPLE" "$tmp/photo.bin" 2>&1) || true
expect "examples/cpp/upload.cc: signs in, pauses, resumes, uploads, lists" "$out" \
  "signed in as " "paused at " "resumed" "uploaded 3000000 bytes to users/" "uploaded-by examples/cpp/upload.cc" \
  "/photo.bin" "download URL: http://"

# The README's C++ blocks: the first is a program (its port becomes the emulator's), the second
# a fragment run inside main().
awk -v dir="$tmp" '/^## C\+\+ quick start/ {on=1} /^## The emulator/ {on=0}
     on && /^```cpp$/ {n++; inside=1; next} inside && /^```$/ {inside=0; next}
     inside {print > (dir "/block" n ".cc")}' "$repo/README.md"
{ echo '#include <fbstorage.hpp>'; echo '#include <cstdio>'; echo 'int main() {'; cat "$tmp/block2.cc"; echo '}'; } \
  > "$tmp/fragment.cc"
flags=$(pkg-config --cflags --libs fbstorage-cpp)
for block in block1 fragment; do
  c++ -std=c++17 -Wall -Wextra -Werror -o "$tmp/$block" "$tmp/$block.cc" $flags || { echo "FAIL README $block does not build"; status=1; }
done
head -c 1000000 /dev/urandom > "$tmp/big.bin"
out=$(cd "$tmp" && "$here/../c/with-emulator.sh" sh -c '
  port=${FIREBASE_STORAGE_EMULATOR_HOST##*:}
  sed "s/9199/$port/g" block1.cc > quick.cc && c++ -std=c++17 -o quick quick.cc '"$flags"' && ./quick && ./fragment' 2>&1) || true
expect "README.md C++ blocks: the SDK-style program and the fbstorage.hpp fragment" "$out" "5 bytes, md5 " "1000000 bytes"
exit $status
