# The documentation's code blocks (bindings/python/tests/test_docs.py): every block of README.md,
# docs/*.md and bindings/*/README.md runs, compiles or type-checks as written, against a bundled emulator.
#   make test-docs   Python, C, C++ (libfbstorage-cpp.a), Go, Rust (cargo, offline) and shell blocks
#                    run; Swift blocks type-check against the debug build's FirebaseStorage,
#                    FirebaseAuth and FirebaseAppCheck modules (the build test-swift makes and reuses)
# The wheel's name, size and glibc floor stated in the docs are checked by test_wheel.py (make test-wheel).

.PHONY: test-docs
TEST_TARGETS += test-docs

test-docs: lib venv cpp go-toolchain
	@command -v cargo >/dev/null || { echo "test-docs: cargo not found (install Rust >= 1.85 with rustup)" >&2; exit 1; }
	$(TIME_LIMIT) 1200 swift build --target FirebaseStorage && $(TIME_LIMIT) 1200 swift build --target FirebaseAuth \
	  && $(TIME_LIMIT) 1200 swift build --target FirebaseAppCheck
	$(PY_ENV) FBS_SWIFT_BUILD=$(abspath .build/debug) $(TIME_LIMIT) 600 $(PY) -m pytest -q bindings/python/tests/test_docs.py
