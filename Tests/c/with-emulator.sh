#!/usr/bin/env bash
# with-emulator.sh COMMAND... — runs COMMAND with FIREBASE_STORAGE_EMULATOR_HOST pointing at a
# fresh emulator on a free port (FBS_PYTHON, PYTHONPATH, FBS_EMULATOR_FLAVOR and FBS_EMULATOR_ARGS
# from the environment), and FIREBASE_AUTH_EMULATOR_HOST at the same address (its storage port
# serves Auth too); stops the emulator afterwards. Exits with COMMAND's status.
set -euo pipefail
python=${FBS_PYTHON:-python3}
log=$(mktemp)
"$python" -m fbstorage.emulator --host 127.0.0.1 --port 0 --flavor "${FBS_EMULATOR_FLAVOR:-production}" ${FBS_EMULATOR_ARGS:-} >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 300); do
  grep -q '^READY http://' "$log" && break
  kill -0 $pid 2>/dev/null || { echo "the emulator exited:"; cat "$log"; exit 1; }
  sleep 0.1
done
url=$(grep -m1 '^READY http://' "$log" | sed 's|^READY http://||') || { echo "the emulator did not start:"; cat "$log"; exit 1; }
export FIREBASE_STORAGE_EMULATOR_HOST=$url FIREBASE_AUTH_EMULATOR_HOST=$url
echo "emulator at $url"
"$@"
