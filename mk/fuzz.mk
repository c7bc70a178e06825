# libFuzzer targets for the parsers of untrusted input (Fuzz/, docs/sanitizers-and-fuzzing.md).
#   make fuzz              each target for FUZZ_SECONDS (default 600), new inputs kept in build/fuzz/corpus
#   make test-fuzz-smoke   each target for FUZZ_SMOKE_SECONDS on the committed corpus (part of make test)
# A target is one Fuzz/targets/<name>.swift compiled with swiftc -sanitize=fuzzer,address together
# with the Model sources it exercises: no curl, no Package.swift target, ~10 s per binary.

FUZZ_DIR           := $(BUILD)/fuzz
FUZZ_TARGETS       := path metadata list
FUZZ_SECONDS       ?= 600
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_MODEL         := $(addprefix Sources/FBStorage/Model/,StoragePath.swift PercentEscaping.swift JSONValue.swift \
                        StorageMetadata.swift FieldValue.swift RFC3339.swift ListResponse.swift UploadSession.swift \
                        StorageError.swift StorageErrorCode.swift RequestSubject.swift)
FUZZ_SWIFTC        := swiftc -parse-as-library -sanitize=fuzzer,address -O -g -use-ld=lld
# A hang (-timeout seconds per input) or a memory blow-up (MiB) is a finding, like a crash.
FUZZ_LIMITS        := -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=256

.PHONY: fuzz fuzz-build test-fuzz-smoke
TEST_TARGETS += test-fuzz-smoke

$(FUZZ_DIR)/fuzz-%: Fuzz/targets/%.swift Fuzz/Invariant.swift $(FUZZ_MODEL)
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_SWIFTC) -module-name Fuzz$* $^ -o $@

fuzz-build: $(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS))

# New inputs go to the first corpus directory (build/), so the committed corpus stays as it is;
# add an input to Fuzz/corpus by hand when it reaches code the corpus does not. Each run's output
# is in build/fuzz/<target>.log: its final stats are shown, all of it when the run fails.
fuzz_run = mkdir -p $(FUZZ_DIR)/corpus/$(1) $(FUZZ_DIR)/artifacts && echo "fuzz $(1): $(2) s" && \
	{ SWIFT_BACKTRACE=enable=no $(FUZZ_DIR)/fuzz-$(1) $(FUZZ_LIMITS) -max_total_time=$(2) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_DIR)/artifacts/$(1)- $(FUZZ_DIR)/corpus/$(1) Fuzz/corpus/$(1) \
	    > $(FUZZ_DIR)/$(1).log 2>&1 || { tail -n 60 $(FUZZ_DIR)/$(1).log; false; }; } && \
	grep -E '^(Done|stat::(number_of_executed_units|new_units_added|peak_rss_mb))' $(FUZZ_DIR)/$(1).log

fuzz: fuzz-build
	@$(foreach t,$(FUZZ_TARGETS),$(call fuzz_run,$(t),$(FUZZ_SECONDS)) &&) true

test-fuzz-smoke: fuzz-build
	@$(foreach t,$(FUZZ_TARGETS),$(call fuzz_run,$(t),$(FUZZ_SMOKE_SECONDS)) &&) true
