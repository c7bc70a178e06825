# In the field (docs/field.md): https, proxies, speed caps.
#   make bench-speed-cap   a 1 MiB/s cap held within 5% over 20 s, up and down (part of make bench)
# test-python's https, trust and proxy tests need openssl (openssl rehash), unshare (util-linux)
# and tinyproxy: installed here when missing.

.PHONY: field-deps bench-speed-cap
field-deps:
	@if ! command -v tinyproxy >/dev/null || ! command -v openssl >/dev/null; then \
	  echo "Installing tinyproxy and openssl (apt)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq tinyproxy openssl >/dev/null; \
	fi

test-python: field-deps

bench: bench-speed-cap
bench-speed-cap: lib venv
	$(PY_ENV) $(TIME_LIMIT) 300 $(PY) benchmarks/speed_cap.py
