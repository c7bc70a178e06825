#!/usr/bin/env bash
# as-production.sh COMMAND... — runs COMMAND as a production app runs, against the bundled
# emulator: in a network and mount namespace of its own (unshare --net --mount; needs root),
# where only loopback exists and a private /etc/hosts (bind-mounted over, for this namespace
# alone) sends firebasestorage.googleapis.com to 127.0.0.1. There the emulator serves https on
# 443 with a certificate for that name, made for this run and trusted through SSL_CERT_FILE as an
# application trusts a CA. So Storage needs no emulator setting: the production host over
# verified TLS, download URLs https://firebasestorage.googleapis.com:443/…. Auth is the
# emulator's over http (FIREBASE_AUTH_EMULATOR_HOST=127.0.0.1:9099). FBS_PYTHON, PYTHONPATH and
# FBS_EMULATOR_ARGS (more emulator options) from the environment; FBS_LINK_MBIT, when set, caps
# the namespace's loopback at that rate (tc tbf, 1500-byte packets) as a real link would, for
# tests written against production. Exits with COMMAND's status.
set -euo pipefail
python=${FBS_PYTHON:-python3}
if [ -z "${FBS_AS_PRODUCTION_DIR:-}" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$python" -c 'import sys; from pathlib import Path; from fbstorage.emulator.tls import write_self_signed
write_self_signed(Path(sys.argv[1]), Path(sys.argv[2]), hosts=["firebasestorage.googleapis.com"])' \
    "$work/cert.pem" "$work/key.pem"
  status=0
  FBS_AS_PRODUCTION_DIR=$work unshare --net --mount --fork "$0" "$@" || status=$?
  exit $status
fi
work=$FBS_AS_PRODUCTION_DIR
ip link set lo up
if [ -n "${FBS_LINK_MBIT:-}" ]; then   # the rate of a real link between an app and Google
  ip link set lo mtu 1500
  tc qdisc add dev lo root tbf rate "${FBS_LINK_MBIT}mbit" burst 32kb latency 200ms
fi
printf '127.0.0.1 localhost firebasestorage.googleapis.com\n::1 localhost\n' > "$work/hosts"
mount --bind "$work/hosts" /etc/hosts
log=$work/emulator.log
"$python" -m fbstorage.emulator --host 127.0.0.1 --port 443 --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" \
  --auth-port 9099 --no-ui ${FBS_EMULATOR_ARGS:-} >"$log" 2>&1 &
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
"$@"
