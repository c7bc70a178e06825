#!/usr/bin/env bash
# in-namespace.sh WORKDIR COMMAND... — run.sh's inner half, in a network and mount namespace of
# its own (unshare --net --mount): only loopback exists, and /etc/hosts (bind-mounted over, for
# this namespace alone) sends firebasestorage.googleapis.com to 127.0.0.1, where the bundled
# emulator serves https on 443 with WORKDIR/cert.pem, trusted through SSL_CERT_FILE as an
# application trusts a CA. So the App reaches Storage as in production: no emulator setting,
# the production host over verified TLS, download URLs https://firebasestorage.googleapis.com/….
# Auth is the emulator's over http (FIREBASE_AUTH_EMULATOR_HOST), on 9099. Runs COMMAND in
# WORKDIR; exits with its status.
set -euo pipefail
work=$1; shift
python=${FBS_PYTHON:-python3}
ip link set lo up
printf '127.0.0.1 localhost firebasestorage.googleapis.com\n::1 localhost\n' > "$work/hosts"
mount --bind "$work/hosts" /etc/hosts
log=$work/emulator.log
"$python" -m fbstorage.emulator --host 127.0.0.1 --port 443 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" \
  --auth-port 9099 --no-ui >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
for _ in $(seq 300); do
  grep -q '^READY-AUTH ' "$log" && break
  kill -0 $pid 2>/dev/null || { echo "the emulator exited:"; cat "$log"; exit 1; }
  sleep 0.1
done
grep -q '^READY-AUTH ' "$log" || { echo "the emulator did not start:"; cat "$log"; exit 1; }
unset FIREBASE_STORAGE_EMULATOR_HOST
export SSL_CERT_FILE=$work/cert.pem FIREBASE_AUTH_EMULATOR_HOST=127.0.0.1:9099
cd "$work"
"$@"
