#!/usr/bin/env bash
# Run gcsfs's own test suite (github.com/fsspec/gcsfs, at a pinned commit) against the bundled
# emulator, production flavor, as gcsfs's CI runs it against fake-gcs-server.
#
#   scripts/gcsfs_suite.sh [pytest args…]
#
# Needs a local git mirror of gcsfs (GCSFS_MIRROR, default /work/.mirror/fsspec+gcsfs/repo) and
# PyPI: gcsfs and its test dependencies go into a throwaway venv under $TMPDIR, never into the
# project. Not part of `make test` (it needs the network). Exits 0 with a message when no mirror.
set -euo pipefail

GCSFS_COMMIT=20c58d0da0edb57ef99003ff60eb1cc67af98ce5
GCSFS_MIRROR=${GCSFS_MIRROR:-/work/.mirror/fsspec+gcsfs/repo}
TESTS=(gcsfs/tests/test_core.py gcsfs/tests/test_core_versioned.py gcsfs/tests/test_mapping.py
       gcsfs/tests/test_retry.py gcsfs/tests/derived)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
EMULATOR_PYTHON=${EMULATOR_PYTHON:-$ROOT/.venv/bin/python}
EMULATOR_PATH=${EMULATOR_PATH:-$ROOT/bindings/python}   # where `fbstorage.emulator` is imported from

if ! git --git-dir="$GCSFS_MIRROR" cat-file -e "$GCSFS_COMMIT^{commit}" 2>/dev/null; then
  echo "skipped: no gcsfs mirror with commit $GCSFS_COMMIT at $GCSFS_MIRROR (set GCSFS_MIRROR)"
  exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gcsfs-suite.XXXXXX")
EMULATOR_PID=
cleanup() {
  local status=$?  # the script's, not the emulator's
  if [ -n "$EMULATOR_PID" ]; then kill "$EMULATOR_PID" 2>/dev/null; wait "$EMULATOR_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
  exit $status
}
trap cleanup EXIT

mkdir "$WORK/src"
git --git-dir="$GCSFS_MIRROR" archive "$GCSFS_COMMIT" | tar -x -C "$WORK/src"
python3 -m venv "$WORK/venv"
SETUPTOOLS_SCM_PRETEND_VERSION=0+g${GCSFS_COMMIT:0:8} "$WORK/venv/bin/pip" install -q "$WORK/src" \
  pytest pytest-asyncio pytest-timeout pytest-subtests crcmod

# The emulator on a free port; its READY line names it.
coproc EMULATOR { PYTHONPATH="$EMULATOR_PATH" exec "$EMULATOR_PYTHON" -m fbstorage.emulator \
  --port 0 --flavor production --stop-on-stdin-eof 2>"$WORK/emulator.log"; }
EMULATOR_PID=$EMULATOR_PID
read -r ready url <&"${EMULATOR[0]}"
[ "$ready" = READY ] || { echo "the emulator did not start:"; cat "$WORK/emulator.log"; exit 1; }
echo "emulator at $url; gcsfs at ${GCSFS_COMMIT:0:12}"

cd "$WORK/src"
status=0
STORAGE_EMULATOR_HOST=$url GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT=false \
  GOOGLE_APPLICATION_CREDENTIALS=$WORK/src/gcsfs/tests/fake-service-account-credentials.json \
  "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider --color=no --timeout=300 "${TESTS[@]}" "$@" || status=$?
# The known difference from fake-gcs-server: docs/emulator.md, "gcsfs's own test suite".
exit $status
