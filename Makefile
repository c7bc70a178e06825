# fbstorage — build, test and demo entry points.
#   make          build build/lib/libfbstorage.so.N (static Swift stdlib; N = FBS_ABI_VERSION), its
#                 libfbstorage.so symlink and build/lib/pkgconfig/fbstorage.pc
#   make test     install what is missing, then run the Swift, C and Python tests
#   make demo     build, start the bundled emulator, upload with a progress bar, list, show metadata
#   make install  the C header, library and fbstorage.pc; the C++ headers (fbstorage.hpp, firebase/),
#                 libfbstorage-cpp.a and fbstorage-cpp.pc
# Each area adds its own targets in mk/*.mk and appends its test target to TEST_TARGETS.

SHELL      := /bin/bash
PREFIX     ?= /usr/local
BUILD      := build
LIBDIR     := $(BUILD)/lib
ABI        := $(shell sed -n 's/^\#define FBS_ABI_VERSION \([0-9]*\)/\1/p' include/fbstorage/common.h)
# The library is named after its ABI major; libfbstorage.so, what the linker's -lfbstorage and
# the bindings open, is a symlink to it.
SONAME     := libfbstorage.so.$(ABI)
SO         := $(LIBDIR)/libfbstorage.so
VENV       := .venv
PY         := $(VENV)/bin/python
VERSION    := $(shell sed -n 's/^\#define FBS_VERSION_STRING "\(.*\)"/\1/p' include/fbstorage/common.h)
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
HEADERS    := include/fbstorage.h $(wildcard include/fbstorage/*.h)
SWIFT_SOURCES := $(shell find Sources -type f) Package.swift $(HEADERS)

TEST_TARGETS :=
# Every suite runs under a time limit, so a hang fails that suite instead of eating CI's 90 minutes.
TIME_LIMIT := timeout --kill-after=30

.PHONY: all lib deps venv test demo clean install
all: lib

# System packages: libcurl and libcrypto headers and pkg-config (Debian names); installed only when missing.
deps:
	@if ! pkg-config --exists libcurl libcrypto 2>/dev/null; then \
	  echo "Installing libcurl4-openssl-dev, libssl-dev and pkg-config (apt)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq libcurl4-openssl-dev libssl-dev pkg-config >/dev/null; \
	fi
	@if ! command -v openssl >/dev/null; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq openssl >/dev/null; \
	fi
	@if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq python3-venv >/dev/null; \
	fi

lib: $(SO) $(LIBDIR)/pkgconfig/fbstorage.pc $(BUILD)/share/fbstorage/valgrind.supp

# -static-stdlib on the command line only (SwiftPM ignores --static-swift-stdlib for dynamic libraries).
# The version script keeps every symbol but the fbs_ functions local; the versioned SONAME lets
# programs built against one ABI refuse another, and auditwheel (make wheel) and packagers refer
# to the library by name. Debug info is DWARF 4 (Swift and C alike): the valgrind of Debian 12
# (3.19) cannot read DWARF 5, and `valgrind ./app` must work on the library as built or installed.
$(LIBDIR)/$(SONAME): $(SWIFT_SOURCES) mk/fbstorage.map | deps
	swift build -c release --product fbstorage -Xswiftc -static-stdlib -Xswiftc -dwarf-version=4 -Xcc -gdwarf-4 \
	  -Xlinker --version-script=$(abspath mk/fbstorage.map) -Xlinker -soname=$(SONAME)
	@mkdir -p $(LIBDIR)
	cp .build/release/libfbstorage.so $@.tmp && mv -f $@.tmp $@   # atomic: never rewrite a mapped library

$(SO): $(LIBDIR)/$(SONAME)
	ln -sfn $(SONAME) $@

$(LIBDIR)/pkgconfig/fbstorage.pc: mk/fbstorage.pc.in $(HEADERS)
	@mkdir -p $(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(abspath $(BUILD))|' -e 's|@INCLUDEDIR@|$(abspath include)|' -e 's|@VERSION@|$(VERSION)|' $< > $@

$(BUILD)/share/fbstorage/valgrind.supp: mk/valgrind.supp
	@mkdir -p $(@D)
	cp $< $@

# The Python venv used by tests, the emulator and the demo.
venv: $(VENV)/.installed
$(VENV)/.installed: bindings/python/requirements-test.txt | deps
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -r bindings/python/requirements-test.txt
	touch $@

# The library goes in stripped, its debug info beside it in lib/.debug/ (where gdb and valgrind
# look for the file its .gnu_debuglink names), with the libfbstorage.so symlink for -lfbstorage.
INSTALL_LIB := $(DESTDIR)$(PREFIX)/lib
install: lib install-cpp
	install -d $(DESTDIR)$(PREFIX)/include/fbstorage $(INSTALL_LIB)/pkgconfig $(INSTALL_LIB)/.debug $(DESTDIR)$(PREFIX)/share/fbstorage
	install -m 644 mk/valgrind.supp $(DESTDIR)$(PREFIX)/share/fbstorage/valgrind.supp
	install -m 644 include/fbstorage.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 include/fbstorage/*.h $(DESTDIR)$(PREFIX)/include/fbstorage/
	objcopy --only-keep-debug $(LIBDIR)/$(SONAME) $(INSTALL_LIB)/.debug/$(SONAME).debug
	chmod 644 $(INSTALL_LIB)/.debug/$(SONAME).debug
	objcopy --strip-unneeded --add-gnu-debuglink=$(INSTALL_LIB)/.debug/$(SONAME).debug $(LIBDIR)/$(SONAME) $(BUILD)/$(SONAME).stripped
	install -m 755 $(BUILD)/$(SONAME).stripped $(INSTALL_LIB)/$(SONAME)
	rm -f $(BUILD)/$(SONAME).stripped
	ln -sfn $(SONAME) $(INSTALL_LIB)/libfbstorage.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@INCLUDEDIR@|$(PREFIX)/include|' -e 's|@VERSION@|$(VERSION)|' mk/fbstorage.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/fbstorage.pc

clean:
	rm -rf $(BUILD) .build

include $(sort $(wildcard mk/*.mk))

test: $(TEST_TARGETS)
	@echo "make test: all suites passed ($(TEST_TARGETS))"

# The demo: each example (Python, C) runs against its own emulator on a free port.
demo: lib venv demo-python demo-c
