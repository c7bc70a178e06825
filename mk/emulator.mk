# Bundled Firebase Storage emulator (bindings/python/fbstorage/emulator, docs/emulator.md).
#   make emulator        run it in the foreground on 127.0.0.1:9199 (EMULATOR_ARGS adds flags)
#   make test-emulator   its HTTP-level pytest suite, both flavors
.PHONY: emulator test-emulator emulator-peers
EMULATOR_ARGS ?=

emulator: venv
	PYTHONPATH=bindings/python $(PY) -m fbstorage.emulator --host 127.0.0.1 --port 9199 $(EMULATOR_ARGS)

# rclone (Debian's) is one of the GCS JSON API's third-party clients the suite drives.
test-emulator: venv emulator-peers
	PYTHONPATH=bindings/python $(TIME_LIMIT) 600 $(PY) -m pytest -q bindings/python/tests/emulator

emulator-peers:
	@command -v rclone >/dev/null || { echo "Installing rclone (apt) for the emulator's tests"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends rclone >/dev/null; }
TEST_TARGETS += test-emulator
