# Rust and Go bindings (bindings/rust, bindings/go/fbstorage) and their examples (examples/rust, examples/go).
#   make test-rust   cargo test (unit, emulator tests of both flavors, stress, doctests), then examples/rust
#   make test-go     go vet, go test -race (emulator tests of both flavors, stress), then examples/go
# Each suite starts its own emulators; doctests and the examples get one from with-emulator.sh.
# FBS_LIBDIR and CTEST_ENV come from mk/c.mk (included after this file: hence "=", not ":=").

BINDINGS_ENV     = FBS_LIBDIR=$(FBS_LIBDIR) LD_LIBRARY_PATH=$(FBS_LIBDIR) $(CTEST_ENV)
CARGO_ENV        = $(BINDINGS_ENV) CARGO_TARGET_DIR=$(abspath bindings/rust/target)
# No module proxy, no toolchain download: the bindings use the standard library only. The Go
# package links through pkg-config (fbstorage.pc, written by `make lib`); the fallback build tag
# fbstorage_no_pkgconfig, with CGO_LDFLAGS, is vetted too.
GO_ENV           = $(BINDINGS_ENV) PKG_CONFIG_PATH=$(FBS_LIBDIR)/pkgconfig GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
GO_FALLBACK_ENV  = $(BINDINGS_ENV) CGO_LDFLAGS="-L$(FBS_LIBDIR) -Wl,-rpath,$(FBS_LIBDIR)" GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=mod
EXAMPLE_RULES   := FBS_EMULATOR_ARGS="--rules $(abspath examples/owner-only.rules)"
EXAMPLE_INPUT   := $(BUILD)/examples/bindings-example.bin
EXAMPLE_LOG     := $(BUILD)/examples/bindings-example.log
# An example passes when it printed the object it uploaded below the signed-in user's folder.
EXAMPLE_CHECK   := cat $(EXAMPLE_LOG) && grep -q '^uploaded gs://demo-bucket/users/' $(EXAMPLE_LOG)

.PHONY: test-rust test-go go-toolchain
TEST_TARGETS += test-rust test-go

$(EXAMPLE_INPUT):
	@mkdir -p $(@D)
	head -c 3000000 /dev/urandom > $@

# Rust comes from rustup (Debian's rustc is too old for edition 2024): the machine's cargo.
test-rust: lib venv $(EXAMPLE_INPUT)
	@command -v cargo >/dev/null || { echo "test-rust: cargo not found (install Rust >= 1.85 with rustup)" >&2; exit 1; }
	cd bindings/rust && $(CARGO_ENV) $(TIME_LIMIT) 600 $(abspath Tests/c/with-emulator.sh) cargo test --offline
	cd examples/rust && $(CARGO_ENV) $(EXAMPLE_RULES) $(TIME_LIMIT) 300 $(abspath Tests/c/with-emulator.sh) \
	  cargo run --offline -q -- $(abspath $(EXAMPLE_INPUT)) > $(abspath $(EXAMPLE_LOG))
	$(EXAMPLE_CHECK)

go-toolchain:
	@if ! command -v go >/dev/null || ! command -v pkg-config >/dev/null; then \
	  echo "Installing golang-go and pkg-config (apt)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq golang-go pkg-config >/dev/null; \
	fi

test-go: lib venv go-toolchain $(EXAMPLE_INPUT)
	cd bindings/go/fbstorage && $(GO_ENV) go vet . && $(GO_FALLBACK_ENV) go vet -tags fbstorage_no_pkgconfig . \
	  && $(GO_ENV) $(TIME_LIMIT) 600 go test -race -count=1 .
	cd examples/go && $(GO_ENV) go vet . && $(GO_ENV) $(EXAMPLE_RULES) $(TIME_LIMIT) 300 $(abspath Tests/c/with-emulator.sh) \
	  go run . $(abspath $(EXAMPLE_INPUT)) > $(abspath $(EXAMPLE_LOG))
	$(EXAMPLE_CHECK)
