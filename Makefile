# unperturb - build, test, demo, install, bench.
#
#   make            build build/bin/unperturb (installs missing Debian packages as root)
#   make test       sanitizer build (ASan + UBSan) and every test
#   make fuzz       libFuzzer targets of tests/fuzz, FUZZ_TIME seconds each (tests/fuzz/README.md)
#   make demo       compensate a bundled real trace and print the summary
#   make install PREFIX=$$HOME/.local
#   make bench      throughput, memory and tracer-cost figures (not a test)
#
# Variables: CC, PREFIX, WERROR=1 (warnings are errors, as in CI).

CC      ?= cc
PREFIX  ?= /usr/local
BUILD   ?= build
SAN     := $(BUILD)/san

# ---- Package flags -------------------------------------------------------------
# OTF2_CFLAGS/LIBS, DEP_CFLAGS/LIBS, MPI_CFLAGS/LIBS and DW_CFLAGS/LIBS come from
# $(CONFIG), which scripts/flags.sh writes with pkg-config only after
# scripts/deps.sh has installed the missing Debian packages (all that the goals
# test, demo or bench need too). Make remakes an included makefile before any
# goal and then re-reads itself, so on a fresh machine the first `make demo`
# already compiles with the flags of the packages it has just installed. The
# file is kept (incremental builds run neither script) and written again when
# dpkg's list of installed packages changes. clean and uninstall need nothing.
CONFIG := $(BUILD)/config.mk
ifneq ($(if $(MAKECMDGOALS),$(filter-out clean uninstall deps,$(MAKECMDGOALS)),all),)
include $(CONFIG)
endif
# libelf: src/run/omp_runtime.c reads programs' and libomp's ELF dynamic
# symbols (issue 36; libelf-dev comes with libdw-dev)
DEP_LIBS += -lelf

WARN    := -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-sign-conversion
ifeq ($(WERROR),1)
WARN    += -Werror
endif
BASE_CFLAGS := -std=c11 -D_GNU_SOURCE -Iinclude -Isrc $(WARN) $(DEP_CFLAGS) -MMD -MP
CFLAGS  ?= -O2 -g
SAN_CFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

LIB_SRC  := $(wildcard src/util/*.c src/trace/*.c src/replay/*.c src/model/*.c src/report/*.c \
                      src/analysis/*.c src/run/*.c)
TOOL_SRC := $(wildcard tools/*.c)
TEST_SRC := $(wildcard tests/*.c) src/tracegen/tracegen.c
BENCH_SRC := bench/gen.c bench/copy.c bench/measure.c bench/spin_after.c

LIB_OBJ      := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
TOOL_OBJ     := $(TOOL_SRC:%.c=$(BUILD)/obj/%.o)
SAN_LIB_OBJ  := $(LIB_SRC:%.c=$(SAN)/obj/%.o)
SAN_TOOL_OBJ := $(TOOL_SRC:%.c=$(SAN)/obj/%.o)
SAN_TEST_OBJ := $(TEST_SRC:%.c=$(SAN)/obj/%.o)

# The tracer (libunperturb-trace.so, preloaded into MPI programs): position-
# independent objects of its own, plus what it shares of src/trace (plain libc
# and OTF2): merge.c, the calibration's text (calib.c), OTF2's buffers (chunks.c).
TRACER_SRC := $(wildcard src/tracer/*.c) src/trace/merge.c src/trace/calib.c src/trace/chunks.c
TRACER_OBJ := $(TRACER_SRC:%.c=$(BUILD)/pic/%.o)
UBSAN_TRACER_OBJ := $(TRACER_SRC:%.c=$(SAN)/pic/%.o)
TRACER_CFLAGS := $(MPI_CFLAGS) $(DW_CFLAGS) $(OMPT_CFLAGS) -fPIC -fvisibility=hidden
TRACER_LIBS := $(OTF2_LIBS) $(DW_LIBS) -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi_mpifh $(MPI_LIBS) -lpthread

.PHONY: all deps test unit cli check-generated check-layers demo install uninstall bench clean

all: $(BUILD)/bin/unperturb $(BUILD)/lib/libunperturb-trace.so $(BUILD)/libexec/unperturb-calibrate

# the packages of the build alone, checked (as root: installed); every other
# goal does it when it remakes $(CONFIG) (see Package flags above)
deps:
	@scripts/deps.sh build

$(CONFIG): scripts/deps.sh scripts/flags.sh $(wildcard /var/lib/dpkg/status)
	@scripts/deps.sh build $(filter test demo bench,$(MAKECMDGOALS))
	@mkdir -p $(dir $@)
	@scripts/flags.sh > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c $< -o $@

$(SAN)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(SAN_CFLAGS) -c $< -o $@

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(TRACER_CFLAGS) $(CFLAGS) -c $< -o $@

# UBSan only: an ASan library cannot be preloaded into programs built without it
$(SAN)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(TRACER_CFLAGS) -O1 -g -fsanitize=undefined -fno-sanitize-recover=undefined -c $< -o $@

$(BUILD)/lib/libunperturb-trace.so: $(TRACER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,--no-undefined -Wl,-soname,libunperturb-trace.so -o $@ $^ $(TRACER_LIBS)

$(BUILD)/libexec/unperturb-calibrate: $(BUILD)/pic/tools/mpi/calibrate_main.o $(TRACER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(TRACER_LIBS)

$(SAN)/lib/libunperturb-trace.so: $(UBSAN_TRACER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared -fsanitize=undefined -Wl,--no-undefined -o $@ $^ $(TRACER_LIBS)

$(BUILD)/lib/libunperturb.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(SAN)/lib/libunperturb.a: $(SAN_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/bin/unperturb: $(TOOL_OBJ) $(BUILD)/lib/libunperturb.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(TOOL_OBJ) $(BUILD)/lib/libunperturb.a $(DEP_LIBS)

$(SAN)/bin/unperturb: $(SAN_TOOL_OBJ) $(SAN)/lib/libunperturb.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $(SAN_TOOL_OBJ) $(SAN)/lib/libunperturb.a $(DEP_LIBS)

$(SAN)/bin/unperturb-tests: $(SAN_TEST_OBJ) $(SAN)/lib/libunperturb.a
	@mkdir -p $(dir $@)
	$(CC) $(SAN_CFLAGS) -o $@ $(SAN_TEST_OBJ) $(SAN)/lib/libunperturb.a $(DEP_LIBS)

# ---- tests -------------------------------------------------------------------
test: export ASAN_OPTIONS = detect_leaks=1:abort_on_error=1
test: export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1
test:
	@scripts/deps.sh test
	$(MAKE) --no-print-directory check-generated
	tools/dev/check-layers.sh
	tests/layers/run.sh
	$(MAKE) --no-print-directory $(SAN)/bin/unperturb $(SAN)/bin/unperturb-tests
	$(SAN)/bin/unperturb-tests
	$(MAKE) --no-print-directory fuzz-replay
	@if tests/fuzz/have-libfuzzer.sh $(FUZZ_CC); then $(MAKE) --no-print-directory fuzz-regress; \
	 else echo "make test: $(FUZZ_CC) builds no libFuzzer targets: tests/fuzz/regress.sh skipped"; fi
	UNPERTURB=$(SAN)/bin/unperturb tests/cli.sh
	$(MAKE) --no-print-directory $(SAN)/bin/up-check $(SAN)/bin/up-check-gen
	UNPERTURB=$(SAN)/bin/unperturb tests/check/run.sh $(SAN)
	UNPERTURB=$(SAN)/bin/unperturb tests/export/run.sh $(SAN)
	UNPERTURB=$(SAN)/bin/unperturb tests/names/run.sh $(SAN)
	$(MAKE) --no-print-directory $(SAN)/lib/libunperturb-trace.so $(BUILD)/libexec/unperturb-calibrate
	UNPERTURB=$(SAN)/bin/unperturb UNPERTURB_CALIBRATE_PROG=$(BUILD)/libexec/unperturb-calibrate \
	  tests/tracer/run.sh $(SAN)
	UNPERTURB=$(SAN)/bin/unperturb tests/tracer/pthreads.sh $(SAN)
	UNPERTURB=$(SAN)/bin/unperturb tests/tracer/ompt.sh $(SAN)
	$(MAKE) --no-print-directory $(BUILD)/bin/up-fwd-gen && UNPERTURB=$(SAN)/bin/unperturb tests/readers/run.sh $(BUILD)
	tests/tracer/symbols_test.sh
	$(MAKE) --no-print-directory $(BUILD)/bin/unperturb $(BUILD)/lib/libunperturb-trace.so $(EXAMPLES_BIN) $(THREADS_BIN)
	tests/tracer/valgrind.sh $(BUILD)
	tests/memcheck/run.sh $(BUILD)
	$(MAKE) --no-print-directory $(BUILD)/bin/up-check
	tests/examples/run.sh $(BUILD)
	tests/examples/threads.sh $(BUILD)
	tests/features/run.sh $(BUILD)
	$(MAKE) --no-print-directory $(BUILD)/bin/up-bench-gen $(BUILD)/bin/up-bench-measure
	tests/linear/run.sh $(BUILD)
	UNPERTURB=$(SAN)/bin/unperturb tests/corrupt/run.sh $(BUILD)
	UNPERTURB=$(SAN)/bin/unperturb tests/report/run.sh $(BUILD)
	UNPERTURB=$(SAN)/bin/unperturb tests/simulate/run.sh $(BUILD)
	UNPERTURB=$(SAN)/bin/unperturb tests/safety/run.sh $(BUILD)
	UNPERTURB=$(SAN)/bin/unperturb UNPERTURB_TIME_LIB=$(BUILD)/lib/libunperturb-time.so \
	  tests/validate/run.sh $(BUILD)
	@echo "make test: all tests passed"

# no file of a lower layer includes a header of a higher one (issue 23)
check-layers:
	tools/dev/check-layers.sh

check-generated:
	@tools/dev/gen-otf2-records.sh > $(BUILD)/otf2_records.h.new 2>/dev/null || { mkdir -p $(BUILD) && tools/dev/gen-otf2-records.sh > $(BUILD)/otf2_records.h.new; }
	@cmp -s $(BUILD)/otf2_records.h.new src/trace/otf2_records.h || \
	  { echo "src/trace/otf2_records.h is out of date with the installed OTF2:"; \
	    echo "  run tools/dev/gen-otf2-records.sh > src/trace/otf2_records.h"; exit 1; }
	@mkdir -p $(BUILD)/gen && tools/dev/gen-mpi-wrappers.sh $(BUILD)/gen
	@for f in tracer/mpi_regions.h tracer/mpi_c_gen.c tracer/mpi_f_gen.c trace/mpi_classes.h; do \
	  cmp -s $(BUILD)/gen/$$f src/$$f || \
	  { echo "src/$$f is out of date with the table src/trace/mpi_calls.def:"; \
	    echo "  run tools/dev/gen-mpi-wrappers.sh"; exit 1; }; done

# ---- tests/check: up-check, the consistency checker of output traces ------------
# A test utility, not installed; it shares no code with src/ and links only OTF2.
CHECK_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) $(OTF2_CFLAGS)

$(BUILD)/bin/up-check: tests/check/up_check.c
	@mkdir -p $(dir $@)
	$(CC) $(CHECK_CFLAGS) $(CFLAGS) -o $@ $< $(OTF2_LIBS)
$(BUILD)/bin/up-check-gen: tests/check/badgen.c
	@mkdir -p $(dir $@)
	$(CC) $(CHECK_CFLAGS) $(CFLAGS) -o $@ $< $(OTF2_LIBS)
$(SAN)/bin/up-check: tests/check/up_check.c
	@mkdir -p $(dir $@)
	$(CC) $(CHECK_CFLAGS) $(SAN_CFLAGS) -o $@ $< $(OTF2_LIBS)
$(SAN)/bin/up-check-gen: tests/check/badgen.c
	@mkdir -p $(dir $@)
	$(CC) $(CHECK_CFLAGS) $(SAN_CFLAGS) -o $@ $< $(OTF2_LIBS)

# ---- tests/readers: archives whose definitions reference forward (issue 31) ----
$(BUILD)/bin/up-fwd-gen: $(BUILD)/obj/tests/readers/fwdgen.o $(BUILD)/obj/src/tracegen/tracegen.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(OTF2_LIBS)

# ---- demo --------------------------------------------------------------------
demo: all
	@scripts/deps.sh demo
	@scripts/demo.sh $(BUILD)

# ---- install -----------------------------------------------------------------
install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/bin/unperturb $(DESTDIR)$(PREFIX)/bin/unperturb
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/libexec $(DESTDIR)$(PREFIX)/include/unperturb
	install -m 755 $(BUILD)/lib/libunperturb-trace.so $(DESTDIR)$(PREFIX)/lib/libunperturb-trace.so
	install -m 755 $(BUILD)/lib/libunperturb-time.so $(DESTDIR)$(PREFIX)/lib/libunperturb-time.so
	install -m 755 $(BUILD)/libexec/unperturb-calibrate $(DESTDIR)$(PREFIX)/libexec/unperturb-calibrate
	install -m 644 include/unperturb/region.h $(DESTDIR)$(PREFIX)/include/unperturb/region.h
	install -d $(DESTDIR)$(PREFIX)/share/unperturb/machines
	install -m 644 examples/machines/*.ini $(DESTDIR)$(PREFIX)/share/unperturb/machines/

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/unperturb $(DESTDIR)$(PREFIX)/lib/libunperturb-trace.so \
	      $(DESTDIR)$(PREFIX)/lib/libunperturb-time.so \
	      $(DESTDIR)$(PREFIX)/libexec/unperturb-calibrate $(DESTDIR)$(PREFIX)/include/unperturb/region.h
	rm -rf $(DESTDIR)$(PREFIX)/share/unperturb/machines

# ---- benchmark ---------------------------------------------------------------
# bench/README.md: a synthetic trace of 5M and 20M events, plain OTF2 copy vs
# `unperturb compensate`, events/s and peak RSS (not a test).
BENCH_BIN := $(BUILD)/bin/up-bench-gen $(BUILD)/bin/up-bench-copy $(BUILD)/bin/up-bench-measure \
             $(BUILD)/bin/up-bench-spin-after $(BUILD)/bin/up-bench-dense $(BUILD)/bin/up-bench-wildrecv

$(BUILD)/bin/up-bench-gen: $(BUILD)/obj/bench/gen.o $(BUILD)/obj/src/tracegen/tracegen.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(OTF2_LIBS)
$(BUILD)/bin/up-bench-copy: $(BUILD)/obj/bench/copy.o $(BUILD)/lib/libunperturb.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(DEP_LIBS)
$(BUILD)/bin/up-bench-measure: $(BUILD)/obj/bench/measure.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^
$(BUILD)/bin/up-bench-spin-after: $(BUILD)/obj/bench/spin_after.o
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^
$(BUILD)/bin/up-bench-dense: bench/dense.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(MPI_CFLAGS) $(CFLAGS) -o $@ $< $(MPI_LIBS)
$(BUILD)/bin/up-bench-wildrecv: bench/wildrecv.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(MPI_CFLAGS) $(CFLAGS) -o $@ $< $(MPI_LIBS)

bench: all
	@scripts/deps.sh bench
	$(MAKE) --no-print-directory $(BENCH_BIN)
	bench/run.sh $(BUILD)/bin
	bench/tracer.sh $(BUILD)
	bench/threads.sh $(BUILD)
	bench/simulate.sh $(BUILD)/bin

# examples/ (issue 4): MPI example programs and the timing shim
include examples/examples.mk

# tests/fuzz/: libFuzzer targets (make fuzz) and their regression replay
include tests/fuzz/fuzz.mk

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
