# Benchmarks (benchmarks/README.md). Not part of `make test`: they take minutes and measure
# a shared machine.
#   make bench            full mode (< 20 min): more repeats and the upload chunk-size sweep
#   make bench QUICK=1    quick mode (< 3 min, and the wan workload ~3 min more)
#   make bench ONLY="wan ranged_read"   those workloads alone (the rest of latest.json kept)
# The wan workload (benchmarks/wan) needs root for its network namespaces, and nginx, rclone,
# dnsmasq and iproute2: installed when missing (apt).
# Results: benchmarks/results/latest.{json,md} and, when matplotlib installs, PNG charts.

BENCH_VENV   := $(BUILD)/bench-venv
BENCH_BUILD  := $(BUILD)/bench
BENCH_PC     := PKG_CONFIG_PATH=$(abspath $(LIBDIR))/pkgconfig
BENCH_CLIENTS := $(addprefix $(BENCH_BUILD)/,measure put_file put_many list_all call_overhead download \
                 put_parallel curl_put_many stream get_many cold_start)

.PHONY: bench bench-build bench-wan-deps
bench: lib venv bench-build
	cd benchmarks && $(abspath $(BENCH_VENV))/bin/python run.py $(if $(QUICK),--quick) $(if $(ONLY),--only $(ONLY)) \
	  --emulator-python $(abspath $(PY)) --build-dir $(abspath $(BENCH_BUILD)) --library $(abspath $(SO))

bench-build: $(BENCH_VENV)/.installed $(BENCH_CLIENTS) bench-wan-deps

# Debian's nginx (the HTTP/2 front), rclone (a peer) and the test network's tools.
bench-wan-deps:
	@if ! command -v ip >/dev/null || ! command -v tc >/dev/null || ! command -v dnsmasq >/dev/null || \
	    ! test -x /usr/sbin/nginx || ! command -v rclone >/dev/null; then \
	  echo "Installing nginx, rclone, dnsmasq and iproute2 for the wan benchmark (apt)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq \
	    --no-install-recommends nginx rclone dnsmasq-base iproute2 >/dev/null; \
	fi

# matplotlib only draws the charts: a failed install leaves the benchmark without them.
$(BENCH_VENV)/.installed: benchmarks/requirements.txt | deps
	python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install -q --upgrade pip
	$(BENCH_VENV)/bin/pip install -q -r benchmarks/requirements.txt
	$(BENCH_VENV)/bin/pip install -q matplotlib || echo "bench: no matplotlib, so no charts"
	touch $@

$(BENCH_BUILD)/%: benchmarks/clients/%.c benchmarks/clients/fbs_client.h $(HEADERS) $(LIBDIR)/pkgconfig/fbstorage.pc
	@mkdir -p $(BENCH_BUILD)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $< $$($(BENCH_PC) pkg-config --cflags --libs fbstorage)

# The launcher stays small and links nothing: a client forked from it starts with its few pages.
$(BENCH_BUILD)/measure: benchmarks/clients/measure.c
	@mkdir -p $(BENCH_BUILD)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $<

# The raw libcurl floor of the small-objects workload links libcurl alone.
$(BENCH_BUILD)/curl_put_many: benchmarks/clients/curl_put_many.c | deps
	@mkdir -p $(BENCH_BUILD)
	$(CC) -std=c11 -O2 -Wall -Wextra -Werror -o $@ $< $$(pkg-config --cflags --libs libcurl)
