# The Apple-style Swift API (FirebaseStorage, FirebaseAuth, FirebaseCore; their Swift Testing suites run in test-swift).
#   make test-swift-api   build examples/swift (a package depending on this one by path) and run the
#                         guides' snippets against an emulator on a free port, in both flavors, from a
#                         working directory holding examples/swift/GoogleService-Info.plist (also its
#                         XDG_CONFIG_HOME, where FirebaseAuth keeps the session)

SWIFT_GUIDES     := examples/swift
SWIFT_GUIDES_BIN := $(abspath $(SWIFT_GUIDES)/.build/debug/StorageGuides)

.PHONY: test-swift-api
TEST_TARGETS += test-swift-api

test-swift-api: | deps venv
	cd $(SWIFT_GUIDES) && $(TIME_LIMIT) 1200 swift build
	@status=0; for flavor in production firebase-tools; do \
	  work=$$(mktemp -d); cp $(SWIFT_GUIDES)/GoogleService-Info.plist $$work/; \
	  echo "== guides against the $$flavor emulator"; \
	  (cd $$work && XDG_CONFIG_HOME=$$work FBS_EMULATOR_FLAVOR=$$flavor FBS_PYTHON=$(abspath $(PY)) PYTHONPATH=$(abspath bindings/python) \
	    $(TIME_LIMIT) 300 $(abspath Tests/c/with-emulator.sh) $(SWIFT_GUIDES_BIN)) || status=1; \
	  rm -rf $$work; \
	done; exit $$status
