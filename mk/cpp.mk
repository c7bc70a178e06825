# C++: fbstorage.hpp (header-only RAII layer) and the Firebase C++ SDK's Storage and Auth API
# (include/firebase/, built from bindings/cpp/src into build/lib/libfbstorage-cpp.a).
#   make cpp               build/lib/libfbstorage-cpp.a and build/lib/pkgconfig/fbstorage-cpp.pc
#   make test-cpp          headers alone (C++17, C++20), the GoogleTest suite against both emulator
#                          flavors, the same under ASan+UBSan and under valgrind, and the example
#   make demo-cpp          examples/cpp/upload.cc against an emulator on a free port
#   make install-cpp       (part of make install) fbstorage.hpp, firebase/*.h, the archive, fbstorage-cpp.pc
# FBS_LIBDIR may point at another checkout's build of libfbstorage.so (as for the C tests).

CPP_SRC       := bindings/cpp/src
CPP_OBJ_DIR   := $(BUILD)/cpp/obj
CPP_TEST_DIR  := $(BUILD)/cpp/tests
CPP_LIB       := $(LIBDIR)/libfbstorage-cpp.a
CPP_SOURCES   := $(wildcard $(CPP_SRC)/*.cc)
CPP_PUBLIC    := include/fbstorage.hpp $(shell find include/firebase -name '*.h')
CPP_HEADERS   := $(CPP_PUBLIC) $(wildcard $(CPP_SRC)/*.h) $(HEADERS)
CPP_TESTS     := $(wildcard Tests/cpp/*.cc)
CPP_TEST_HDRS := $(wildcard Tests/cpp/*.h)
CPP_WARNINGS  := -Wall -Wextra -Werror
CPP_FLAGS     := -std=c++17 $(CPP_WARNINGS) -g -O1 -Iinclude -I$(CPP_SRC)
CPP_LDLIBS    := -L$(FBS_LIBDIR) -Wl,-rpath,$(FBS_LIBDIR) -lfbstorage -lpthread
CPP_TEST_LIBS := -lgtest $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl) -lpthread
# The library functions that hand out or release handles, counted by Tests/cpp/handle_count.cc.
CPP_WRAPPED   := $(shell grep '^COUNT_' Tests/cpp/handle_count.cc | grep -o 'fbs_[a-z_]*,' | tr -d ,)
CPP_COMMA     := ,
CPP_WRAPS     := $(addprefix -Wl$(CPP_COMMA)--wrap=,$(CPP_WRAPPED))
CPP_SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
CPP_ENV       := $(CTEST_ENV) TMPDIR=$${TMPDIR:-/tmp}
CPP_PKG_CONFIG := PKG_CONFIG_PATH=$(FBS_LIBDIR)/pkgconfig:$(abspath $(LIBDIR))/pkgconfig
CPP_SAN_ENV   := ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

.PHONY: cpp install-cpp test-cpp test-cpp-build test-cpp-run cpp-deps cpp-headers demo-cpp
TEST_TARGETS += test-cpp

cpp: $(CPP_LIB) $(LIBDIR)/pkgconfig/fbstorage-cpp.pc

$(CPP_OBJ_DIR)/%.o: $(CPP_SRC)/%.cc $(CPP_HEADERS)
	@mkdir -p $(CPP_OBJ_DIR)
	$(CXX) $(CPP_FLAGS) -fPIC -c $< -o $@

$(CPP_LIB): $(patsubst $(CPP_SRC)/%.cc,$(CPP_OBJ_DIR)/%.o,$(CPP_SOURCES))
	@mkdir -p $(LIBDIR)
	rm -f $@.tmp && ar rcs $@.tmp $^ && mv -f $@.tmp $@

$(LIBDIR)/pkgconfig/fbstorage-cpp.pc: mk/fbstorage-cpp.pc.in $(CPP_PUBLIC)
	@mkdir -p $(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(abspath $(BUILD))|' -e 's|@INCLUDEDIR@|$(abspath include)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

install-cpp: cpp
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 include/fbstorage.hpp $(DESTDIR)$(PREFIX)/include/
	cd include && for h in $$(find firebase -name '*.h'); do install -D -m 644 $$h $(DESTDIR)$(PREFIX)/include/$$h; done
	install -m 644 $(CPP_LIB) $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(PREFIX)/include|' -e 's|@VERSION@|$(VERSION)|' mk/fbstorage-cpp.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/fbstorage-cpp.pc

# GoogleTest, valgrind, curl (the examples' fault request) and nlohmann-json (header-only: the
# archive reads google-services.json with it) from Debian, installed only when missing.
CPP_APT := $(if $(wildcard /usr/include/gtest/gtest.h),,libgtest-dev) $(if $(shell command -v valgrind),,valgrind) \
           $(if $(wildcard /usr/include/nlohmann/json.hpp),,nlohmann-json3-dev) \
           $(if $(shell command -v curl),,curl)
cpp-deps: deps
	@if [ -n "$(strip $(CPP_APT))" ]; then \
	  echo "Installing $(strip $(CPP_APT)) (apt)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(CPP_APT) >/dev/null; \
	fi

# Every public header compiles alone, as C++17 and C++20, with warnings as errors.
cpp-headers:
	@for std in c++17 c++20; do \
	  printf '%s\n' $(CPP_PUBLIC) | xargs -P $$(nproc) -I{} sh -c \
	    "$(CXX) -std=$$std $(CPP_WARNINGS) -pedantic -Iinclude -fsyntax-only -x c++ {} || { echo 'FAIL {} ($$std)'; exit 255; }" \
	    || exit 1; \
	  echo "ok   $(words $(CPP_PUBLIC)) headers compile alone as $$std $(CPP_WARNINGS) -pedantic"; \
	done

# Objects per file, so that a change rebuilds one and `make -j` builds them in parallel.
CPP_TEST_OBJS := $(patsubst Tests/cpp/%.cc,$(CPP_TEST_DIR)/obj/%.o,$(CPP_TESTS))
CPP_SAN_OBJS  := $(patsubst Tests/cpp/%.cc,$(CPP_TEST_DIR)/obj-san/%.o,$(CPP_TESTS)) \
                 $(patsubst $(CPP_SRC)/%.cc,$(CPP_TEST_DIR)/obj-san/lib-%.o,$(CPP_SOURCES))

$(CPP_TEST_DIR)/obj/%.o: Tests/cpp/%.cc $(CPP_TEST_HDRS) $(CPP_HEADERS)
	@mkdir -p $(@D)
	$(CXX) $(CPP_FLAGS) -ITests/cpp -c $< -o $@

$(CPP_TEST_DIR)/cpp_tests: $(CPP_TEST_OBJS) $(CPP_LIB)
	$(CXX) -o $@ $^ $(CPP_WRAPS) $(CPP_LDLIBS) $(CPP_TEST_LIBS)

# The sanitized build compiles the library's sources with the tests, at -O0 to compile faster.
# libfbstorage.so itself is not instrumented: ASan's runtime, first in the link, intercepts its
# allocations all the same, and UBSan checks the C++ side.
$(CPP_TEST_DIR)/obj-san/%.o: Tests/cpp/%.cc $(CPP_TEST_HDRS) $(CPP_HEADERS)
	@mkdir -p $(@D)
	$(CXX) $(CPP_FLAGS) -O0 $(CPP_SAN_FLAGS) -ITests/cpp -c $< -o $@
$(CPP_TEST_DIR)/obj-san/lib-%.o: $(CPP_SRC)/%.cc $(CPP_HEADERS)
	@mkdir -p $(@D)
	$(CXX) $(CPP_FLAGS) -O0 $(CPP_SAN_FLAGS) -c $< -o $@

$(CPP_TEST_DIR)/cpp_tests_asan: $(CPP_SAN_OBJS)
	$(CXX) $(CPP_SAN_FLAGS) -o $@ $^ $(CPP_WRAPS) $(CPP_LDLIBS) $(CPP_TEST_LIBS)

# Built as users build it: pkg-config (fbstorage-cpp requires fbstorage, taken from FBS_LIBDIR).
$(CPP_TEST_DIR)/upload-example: examples/cpp/upload.cc $(CPP_LIB) $(LIBDIR)/pkgconfig/fbstorage-cpp.pc
	@mkdir -p $(CPP_TEST_DIR)
	$(CXX) -std=c++17 $(CPP_WARNINGS) -o $@ $< $$($(CPP_PKG_CONFIG) pkg-config --cflags --libs fbstorage-cpp)

test-cpp: lib venv cpp-deps
	@$(MAKE) --no-print-directory -j$$(nproc) test-cpp-build
	@$(MAKE) --no-print-directory test-cpp-run

test-cpp-build: cpp $(CPP_TEST_DIR)/cpp_tests $(CPP_TEST_DIR)/cpp_tests_asan $(CPP_TEST_DIR)/upload-example

# test-cpp without building the Swift library or the venv (FBS_LIBDIR, FBS_PYTHON).
test-cpp-run: test-cpp-build cpp-headers
	$(CPP_ENV) $(TIME_LIMIT) 180 $(CPP_TEST_DIR)/cpp_tests
	$(CPP_ENV) $(CPP_SAN_ENV) $(TIME_LIMIT) 240 $(CPP_TEST_DIR)/cpp_tests_asan
	$(CPP_ENV) $(TIME_LIMIT) 400 env $(VALGRIND) $(CPP_TEST_DIR)/cpp_tests --gtest_filter='*/0:Future.*:AppOptions.*:AppCreate.*:ModuleInitializer.*:Variant.*'
	$(CPP_ENV) FBS_EXAMPLE=$(abspath $(CPP_TEST_DIR)/upload-example) $(CPP_PKG_CONFIG) $(TIME_LIMIT) 180 Tests/cpp/run-examples.sh

demo-cpp: lib venv cpp $(CPP_TEST_DIR)/upload-example
	@head -c 16777216 /dev/urandom > $(CPP_TEST_DIR)/demo.bin
	$(CPP_ENV) Tests/c/with-emulator.sh $(CPP_TEST_DIR)/upload-example $(CPP_TEST_DIR)/demo.bin
