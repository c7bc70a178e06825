# Reliability: the fault soak (Tests/soak, Tests/support/fault_proxy.py) and what the security
# tests need. The C security, offline and resume tests run in test-c; the Python ones in test-python.
#   make soak        the long soak: 200 uploads of 0-16 MiB through the fault proxy (~1 min);
#                    figures in build/soak/report.json
#   make test-soak   its short form, part of `make test` (~20 s)

SOAK_DIR   := $(BUILD)/soak
SOAK       := $(abspath $(PY)) Tests/soak/soak.py
SOAK_SHORT := --uploads 40 --max-mib 6 --mean-cut-mib 3 --bursts 4

.PHONY: soak test-soak openssl
TEST_TARGETS += test-soak

soak: lib venv
	@mkdir -p $(SOAK_DIR)
	$(PY_ENV) $(TIME_LIMIT) 1800 $(SOAK) --report $(SOAK_DIR)/report.json

test-soak: lib venv
	@mkdir -p $(SOAK_DIR)
	$(PY_ENV) $(TIME_LIMIT) 240 $(SOAK) $(SOAK_SHORT) --report $(SOAK_DIR)/short.json

# The TLS test makes a self-signed certificate with the openssl tool (Debian: package openssl).
openssl:
	@command -v openssl >/dev/null || { echo "Installing openssl (apt)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq openssl >/dev/null; }
test-c: | openssl
