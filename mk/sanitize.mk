# Sanitizers (docs/sanitizers-and-fuzzing.md).
#   make sanitize           sanitize-address, then sanitize-thread
#   make sanitize-address   the Swift tests, the misuse matrix and the C integration tests under
#                           AddressSanitizer + LeakSanitizer
#   make sanitize-thread    the same under ThreadSanitizer
# Each sanitizer has its own SwiftPM scratch path (.build/<sanitizer>) holding a debug build of the
# library and the Swift tests made with --sanitize. The C tests are compiled by the toolchain's
# clang with the same -fsanitize: the executable carries the one runtime the library's
# instrumentation calls into. The Python emulator is a separate, uninstrumented process.

SAN_CC    := $(dir $(shell command -v swiftc 2>/dev/null))clang
SAN_DIR   := $(BUILD)/sanitize
SWIFT_RUNTIME := $(abspath $(dir $(shell command -v swiftc 2>/dev/null))../lib/swift/linux)
# The toolchain's TSan runtime intercepts libdispatch, so a C program using it must link libdispatch.
SAN_LDLIBS_thread := -L$(SWIFT_RUNTIME) -Wl,-rpath,$(SWIFT_RUNTIME) -ldispatch -lBlocksRuntime
# Reports fail the test that caused them: ASan aborts the test, LSan and TSan make it exit non-zero.
# No suppressions are needed. die_after_fork=0: the resume-in-a-new-process test forks the
# multi-threaded test process, and its child starts threads (TSan would end it at once).
SAN_ENV   := ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
             TSAN_OPTIONS=second_deadlock_stack=1:exitcode=66:die_after_fork=0

.PHONY: sanitize sanitize-address sanitize-thread
sanitize: sanitize-address sanitize-thread

# The sanitized library and C test binaries for sanitizer $*.
$(SAN_DIR)/%/c_misuse $(SAN_DIR)/%/c_integration: $(SWIFT_SOURCES) $(CTEST_HARNESS) $(wildcard Tests/c/test_*.c) $(CTEST_HEADERS) | deps
	swift build --sanitize=$* --scratch-path .build/$* --product fbstorage
	@mkdir -p $(SAN_DIR)/$*
	$(SAN_CC) -fsanitize=$* -fuse-ld=lld $(CTEST_CFLAGS) -o $(SAN_DIR)/$*/c_misuse $(CTEST_HARNESS) $(CTEST_MISUSE) \
	  $(subst $(FBS_LIBDIR),$(abspath .build/$*/debug),$(CTEST_LDLIBS)) $(SAN_LDLIBS_$*)
	$(SAN_CC) -fsanitize=$* -fuse-ld=lld $(CTEST_CFLAGS) -o $(SAN_DIR)/$*/c_integration $(CTEST_HARNESS) $(CTEST_ONLINE) \
	  $(subst $(FBS_LIBDIR),$(abspath .build/$*/debug),$(CTEST_LDLIBS)) $(SAN_LDLIBS_$*)

sanitize-address sanitize-thread: sanitize-%: $(SAN_DIR)/%/c_misuse $(SAN_DIR)/%/c_integration | venv
	PATH="$(abspath $(VENV))/bin:$$PATH" $(SAN_ENV) $(TIME_LIMIT) 2400 \
	  swift test --disable-xctest --sanitize=$* --scratch-path .build/$*
	$(CTEST_ENV) $(SAN_ENV) $(TIME_LIMIT) 600 $(SAN_DIR)/$*/c_misuse
	$(CTEST_ENV) $(SAN_ENV) $(TIME_LIMIT) 1800 $(SAN_DIR)/$*/c_integration
