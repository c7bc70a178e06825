# Swift unit tests (Tests/FBStorageTests) and the Apple-style products' suites.
.PHONY: test-swift
test-swift: | deps venv
	PATH="$(abspath $(VENV))/bin:$$PATH" $(TIME_LIMIT) 1200 swift test --skip FirebaseAppCheckTests
	@# A process of its own: App Check's provider factory is process-wide (as in the Apple SDK).
	PATH="$(abspath $(VENV))/bin:$$PATH" $(TIME_LIMIT) 600 swift test --filter FirebaseAppCheckTests
TEST_TARGETS += test-swift
