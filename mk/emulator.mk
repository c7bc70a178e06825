# Bundled Firebase Storage emulator (bindings/python/fbstorage/emulator, docs/emulator.md).
#   make emulator        run it in the foreground on 127.0.0.1:9199 (EMULATOR_ARGS adds flags)
#   make test-emulator   its HTTP-level pytest suite, both flavors
.PHONY: emulator test-emulator
EMULATOR_ARGS ?=

emulator: venv
	PYTHONPATH=bindings/python $(PY) -m fbstorage.emulator --host 127.0.0.1 --port 9199 $(EMULATOR_ARGS)

test-emulator: venv
	PYTHONPATH=bindings/python $(TIME_LIMIT) 600 $(PY) -m pytest -q bindings/python/tests/emulator
TEST_TARGETS += test-emulator
