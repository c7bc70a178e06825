# Swift unit tests (Tests/FBStorageTests).
.PHONY: test-swift
test-swift: | deps venv
	PATH="$(abspath $(VENV))/bin:$$PATH" $(TIME_LIMIT) 1200 swift test
TEST_TARGETS += test-swift
