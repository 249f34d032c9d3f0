# examples/examples.mk - the MPI example programs and the timing shim
# (docs/examples.md).  Included from the top-level Makefile, which defines
# CC, BUILD, BASE_CFLAGS, CFLAGS, WARN, MPI_CFLAGS and MPI_LIBS.
#
#   $(BUILD)/examples/{montecarlo,barrier,transpose,transpose-any,ring,halo,poll,farm,cg}
#   $(BUILD)/examples/montecarlo-finst   montecarlo with -finstrument-functions
#   $(BUILD)/examples/features           one of each MPI feature the tracer records
#                                        (tests/features/run.sh; not a paper's program)
#   $(BUILD)/lib/libunperturb-time.so    LD_PRELOAD shim: the run's window, untraced
#
# `make examples` builds them; `make` (all) does too.

EXAMPLES       := montecarlo barrier transpose ring halo poll farm cg features
EXAMPLES_PROGS := $(EXAMPLES:%=$(BUILD)/examples/%) $(BUILD)/examples/transpose-any \
                  $(BUILD)/examples/montecarlo-finst
TIMESHIM       := $(BUILD)/lib/libunperturb-time.so
EXAMPLES_BIN   := $(EXAMPLES_PROGS) $(TIMESHIM)

EX_CFLAGS := $(BASE_CFLAGS) $(MPI_CFLAGS) $(CFLAGS)
EX_LIBS   := $(MPI_LIBS) -lm

.PHONY: examples
examples: $(EXAMPLES_BIN)
all: $(EXAMPLES_BIN)

$(EXAMPLES:%=$(BUILD)/examples/%): $(BUILD)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) $(EX_CFLAGS) -o $@ $< $(EX_LIBS)

$(BUILD)/examples/transpose-any: examples/transpose.c
	@mkdir -p $(dir $@)
	$(CC) $(EX_CFLAGS) -DTRANSPOSE_ANY -o $@ $< $(EX_LIBS)

$(BUILD)/examples/montecarlo-finst: examples/montecarlo.c
	@mkdir -p $(dir $@)
	$(CC) $(EX_CFLAGS) -finstrument-functions -o $@ $< $(EX_LIBS)

# Fortran entry points call pmpi_init_ & co. from libmpi_mpifh
$(TIMESHIM): src/shim/timeshim.c
	@mkdir -p $(dir $@)
	$(CC) $(EX_CFLAGS) -fPIC -fvisibility=hidden -shared -Wl,--no-undefined \
	  -Wl,-soname,libunperturb-time.so -o $@ $< \
	  -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi_mpifh $(MPI_LIBS)
