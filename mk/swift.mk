# Swift unit tests (Tests/FBStorageTests).
.PHONY: test-swift
test-swift: | deps venv
	PATH="$(abspath $(VENV))/bin:$$PATH" swift test
TEST_TARGETS += test-swift
