# The emulator's web UI (bindings/python/fbstorage/emulator/ui) in a real browser: headless Chromium
# and its chromedriver from Debian (no browser download), driven by Selenium.
#   make test-ui   the browser tests; screenshots in build/ui-screenshots/
.PHONY: test-ui ui-browser

ui-browser:
	@if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then \
	  echo "Installing chromium and chromium-driver (apt)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends \
	    chromium chromium-driver fonts-dejavu-core >/dev/null; \
	fi

test-ui: lib venv ui-browser
	$(PY_ENV) $(TIME_LIMIT) 300 $(PY) -m pytest -q -p no:cacheprovider bindings/python/tests/ui
TEST_TARGETS += test-ui
