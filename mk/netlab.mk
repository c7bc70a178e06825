# The test network (Tests/netlab, docs/field.md "The test network"): client and server network
# namespaces joined by a veth pair, dnsmasq for the .test names, the emulator over https, a
# relay for latency, stalls and resets, tc for bandwidth; the client on it through DNS failures,
# link outages, IPv6, a shaped lossy path and a soak.
#   make test-netlab   needs root (network namespaces); where they are not permitted it says so
#                      and passes without running. iproute2, dnsmasq and nginx (the HTTP/2 front
#                      of test_http2.py) are installed when missing.

.PHONY: test-netlab netlab-deps
TEST_TARGETS += test-netlab

netlab-deps:
	@if ! command -v ip >/dev/null || ! command -v tc >/dev/null || ! command -v ss >/dev/null || ! command -v dnsmasq >/dev/null || ! test -x /usr/sbin/nginx; then \
	  echo "Installing iproute2, dnsmasq and nginx (apt; dnsmasq and nginx run only under the tests)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends iproute2 dnsmasq-base nginx >/dev/null; \
	fi

test-netlab: lib venv netlab-deps
	$(PY_ENV) $(TIME_LIMIT) 600 $(PY) Tests/netlab/run.py -q -s
