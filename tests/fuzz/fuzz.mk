# tests/fuzz: libFuzzer targets (make fuzz), their replay under ASan+UBSan
# (make test) and under valgrind (make fuzz-valgrind).  tests/fuzz/README.md.
#
#   make fuzz [FUZZ_TIME=seconds per target] [FUZZ_TARGETS="otf2 machine"]
#   make fuzz-replay          the corpora and regressions, sanitizer build (gcc)
#   make fuzz-regress         the same through the libFuzzer binaries (clang)
#   make fuzz-valgrind        the OTF2 corpora under valgrind, release build
#   make fuzz-seeds           rewrites the generated OTF2 seeds (tests/fuzz/*/corpus/tg-*)

FUZZ_TARGETS ?= otf2 analysis stalls calibration machine experiment merge
FUZZ_ALL     := otf2 analysis stalls calibration machine experiment merge
FUZZ_TIME    ?= 120
FUZZ_CC      ?= clang
FUZZ         := $(BUILD)/fuzz
FUZZ_CFLAGS  := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
                -fno-sanitize-recover=undefined
FUZZ_LDFLAGS := -fsanitize=fuzzer,address,undefined

FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ)/obj/%.o)

# what each target links besides its own file and container.c
fuzz_extra_otf2        := tests/fuzz/mutate.c
fuzz_extra_analysis    := tests/fuzz/mutate.c
fuzz_extra_stalls      := src/tracegen/tracegen.c
fuzz_extra_calibration :=
fuzz_extra_machine     :=
fuzz_extra_experiment  :=
fuzz_extra_merge       :=

$(FUZZ)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(BASE_CFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ)/lib/libunperturb.a: $(FUZZ_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# libFuzzer binaries: build/fuzz/bin/fuzz-<target>
define fuzz_target
$(FUZZ)/bin/fuzz-$(1): $(FUZZ)/obj/tests/fuzz/fuzz_$(1).o $(FUZZ)/obj/tests/fuzz/container.o \
                       $(patsubst %.c,$(FUZZ)/obj/%.o,$(fuzz_extra_$(1))) $(FUZZ)/lib/libunperturb.a
	@mkdir -p $$(dir $$@)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $$@ $$^ $(DEP_LIBS)
# replay runners: sanitizer build (make test) and release build (valgrind)
$(SAN)/bin/up-fuzz-$(1): $(SAN)/obj/tests/fuzz/fuzz_$(1).o $(SAN)/obj/tests/fuzz/container.o \
                         $(SAN)/obj/tests/fuzz/replay_main.o \
                         $(patsubst %.c,$(SAN)/obj/%.o,$(filter-out tests/fuzz/mutate.c,$(fuzz_extra_$(1)))) \
                         $(SAN)/lib/libunperturb.a
	@mkdir -p $$(dir $$@)
	$(CC) $(SAN_CFLAGS) -o $$@ $$^ $(DEP_LIBS)
$(BUILD)/bin/up-fuzz-$(1): $(BUILD)/obj/tests/fuzz/fuzz_$(1).o $(BUILD)/obj/tests/fuzz/container.o \
                           $(BUILD)/obj/tests/fuzz/replay_main.o \
                           $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out tests/fuzz/mutate.c,$(fuzz_extra_$(1)))) \
                           $(BUILD)/lib/libunperturb.a
	@mkdir -p $$(dir $$@)
	$(CC) $(CFLAGS) -o $$@ $$^ $(DEP_LIBS)
endef
$(foreach t,$(FUZZ_ALL),$(eval $(call fuzz_target,$(t))))

$(BUILD)/bin/up-fuzz-tool: $(BUILD)/obj/tests/fuzz/tool.o $(BUILD)/obj/tests/fuzz/container.o \
                           $(BUILD)/obj/src/tracegen/tracegen.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(OTF2_LIBS)

.PHONY: fuzz fuzz-bins fuzz-replay fuzz-regress fuzz-valgrind fuzz-seeds

fuzz-bins: $(FUZZ_TARGETS:%=$(FUZZ)/bin/fuzz-%)

fuzz: fuzz-bins
	FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run.sh $(FUZZ) $(FUZZ_TARGETS)

fuzz-replay: $(FUZZ_ALL:%=$(SAN)/bin/up-fuzz-%)
	tests/fuzz/replay.sh $(SAN)/bin $(FUZZ_ALL)

fuzz-regress: $(FUZZ_ALL:%=$(FUZZ)/bin/fuzz-%)
	tests/fuzz/regress.sh $(FUZZ) $(FUZZ_ALL)

fuzz-valgrind: $(BUILD)/bin/up-fuzz-otf2 $(BUILD)/bin/up-fuzz-analysis
	tests/fuzz/valgrind.sh $(BUILD)/bin otf2 analysis

fuzz-seeds: $(BUILD)/bin/up-fuzz-tool
	tests/fuzz/seeds.sh $(BUILD)/bin/up-fuzz-tool
