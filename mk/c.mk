# C tests, C examples and ABI/packaging checks (Tests/c, examples/c, scripts/check-exports.sh).
#   make test-c            ABI checks, misuse matrix, integration tests (both emulator flavors), packaging
#   make examples          build examples/c/*.c against the built library via pkg-config
#   make demo-c            run examples/c/upload.c against an emulator on a free port
#   make test-c-valgrind   memcheck on the misuse matrix and the integration tests (one flavor)
# FBS_LIBDIR / FBS_PYTHON / FBS_PYTHONPATH may be overridden (e.g. to test another checkout's build).

CTEST_DIR      := $(BUILD)/tests
EXAMPLE_DIR    := $(BUILD)/examples
FBS_LIBDIR     ?= $(abspath $(LIBDIR))
FBS_PYTHON     ?= $(abspath $(PY))
FBS_PYTHONPATH ?= $(abspath bindings/python)
CTEST_CFLAGS   := -std=c11 -Wall -Wextra -Werror -g -O1 -Iinclude -ITests/c $(shell pkg-config --cflags libcurl 2>/dev/null)
CTEST_LDLIBS   := -L$(FBS_LIBDIR) -Wl,-rpath,$(FBS_LIBDIR) -lfbstorage $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl) -lpthread -lm
CTEST_HARNESS  := $(addprefix Tests/c/,harness.c emulator.c http.c util.c fixtures.c json.c events.c reqlog.c)
CTEST_HEADERS  := $(wildcard Tests/c/*.h) $(HEADERS)
CTEST_MISUSE   := $(wildcard Tests/c/test_misuse*.c)
CTEST_ONLINE   := $(filter-out $(CTEST_MISUSE),$(wildcard Tests/c/test_*.c))
CTEST_ENV      := FBS_PYTHON=$(FBS_PYTHON) PYTHONPATH=$(FBS_PYTHONPATH)$${PYTHONPATH:+:$$PYTHONPATH}

.PHONY: test-c test-c-build examples demo-c test-c-valgrind
TEST_TARGETS += test-c

$(CTEST_DIR)/c_misuse: $(CTEST_HARNESS) $(CTEST_MISUSE) $(CTEST_HEADERS)
	@mkdir -p $(CTEST_DIR)
	$(CC) $(CTEST_CFLAGS) -o $@ $(CTEST_HARNESS) $(CTEST_MISUSE) $(CTEST_LDLIBS)

$(CTEST_DIR)/c_integration: $(CTEST_HARNESS) $(CTEST_ONLINE) $(CTEST_HEADERS)
	@mkdir -p $(CTEST_DIR)
	$(CC) $(CTEST_CFLAGS) -o $@ $(CTEST_HARNESS) $(CTEST_ONLINE) $(CTEST_LDLIBS)

test-c-build: $(CTEST_DIR)/c_misuse $(CTEST_DIR)/c_integration

# test-packaging.sh runs gdb and valgrind on the installed library.
.PHONY: packaging-tools
packaging-tools:
	@if ! command -v valgrind >/dev/null || ! command -v gdb >/dev/null; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq valgrind gdb >/dev/null; \
	fi

test-c: lib venv packaging-tools
	@$(MAKE) --no-print-directory test-c-build
	$(CTEST_ENV) $(TIME_LIMIT) 900 Tests/c/run-all.sh $(SO) $(CTEST_DIR)

# Examples, built the way users build them: the installed-style header and pkg-config.
EXAMPLE_PC := PKG_CONFIG_PATH=$(abspath $(LIBDIR))/pkgconfig
$(EXAMPLE_DIR)/%: examples/c/%.c $(HEADERS) $(LIBDIR)/pkgconfig/fbstorage.pc
	@mkdir -p $(EXAMPLE_DIR)
	$(CC) -std=c11 -Wall -Wextra -Werror -pedantic -o $@ $< $$($(EXAMPLE_PC) pkg-config --cflags --libs fbstorage)

examples: lib $(EXAMPLE_DIR)/upload $(EXAMPLE_DIR)/list

demo-c: examples venv
	@head -c 67108864 /dev/urandom > $(EXAMPLE_DIR)/demo.bin   # 64 MiB, as the Python demo
	$(CTEST_ENV) FBS_EMULATOR_ARGS="--rules $(abspath examples/owner-only.rules)" Tests/c/with-emulator.sh \
	  $(EXAMPLE_DIR)/upload $(EXAMPLE_DIR)/demo.bin --sign-in

# Some tests keep three 700 KiB event logs on the stack: above the default --max-stackframe,
# memcheck would take the frame for a stack switch and report every write to it.
VALGRIND := valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
  --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-fds=no --max-stackframe=4194304 -q
test-c-valgrind: lib venv packaging-tools
	@$(MAKE) --no-print-directory test-c-build
	status=0; \
	$(CTEST_ENV) FBS_TEST_NOFORK=1 $(VALGRIND) $(CTEST_DIR)/c_misuse || status=1; \
	$(CTEST_ENV) FBS_TEST_NOFORK=1 FBS_TEST_FLAVORS=production $(VALGRIND) $(CTEST_DIR)/c_integration || status=1; \
	exit $$status
