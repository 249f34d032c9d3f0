# examples/examples.mk - the example programs (MPI and threaded) and the timing shim
# (docs/examples.md).  Included from the top-level Makefile, which defines
# CC, BUILD, BASE_CFLAGS, CFLAGS, WARN, MPI_CFLAGS and MPI_LIBS.
#
#   $(BUILD)/examples/{montecarlo,barrier,transpose,transpose-any,ring,halo,poll,farm,cg}
#   $(BUILD)/examples/montecarlo-finst   montecarlo with -finstrument-functions
#   $(BUILD)/examples/features           one of each MPI feature the tracer records
#                                        (tests/features/run.sh; not a paper's program)
#   $(BUILD)/lib/libunperturb-time.so    LD_PRELOAD shim: the run's window, untraced
#
# and the threaded examples of examples/threads/ (issue 36), no MPI:
#
#   $(BUILD)/examples/{pth_barrier,pth_semaphore,pth_mutex}   pthreads
#   $(BUILD)/examples/omp_loop          OpenMP, $(CC) -fopenmp (libgomp with gcc)
#   $(BUILD)/examples/omp_loop-clang    OpenMP, $(CLANG) -fopenmp (LLVM's libomp);
#                                       only if $(CLANG) is found
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

# ---- threaded examples (tests/examples/threads.sh) ----
CLANG          ?= clang
PTH_EXAMPLES   := pth_barrier pth_semaphore pth_mutex
THREADS_BIN    := $(PTH_EXAMPLES:%=$(BUILD)/examples/%) $(BUILD)/examples/omp_loop \
                  $(if $(shell command -v $(CLANG) 2>/dev/null),$(BUILD)/examples/omp_loop-clang)
TH_CFLAGS      := $(BASE_CFLAGS) $(CFLAGS)

.PHONY: examples
examples: $(THREADS_BIN)
all: $(THREADS_BIN)

$(PTH_EXAMPLES:%=$(BUILD)/examples/%): $(BUILD)/examples/%: examples/threads/%.c
	@mkdir -p $(dir $@)
	$(CC) $(TH_CFLAGS) -pthread -o $@ $<

$(BUILD)/examples/omp_loop: examples/threads/omp_loop.c
	@mkdir -p $(dir $@)
	$(CC) $(TH_CFLAGS) -fopenmp -o $@ $<

$(BUILD)/examples/omp_loop-clang: examples/threads/omp_loop.c
	@mkdir -p $(dir $@)
	$(CLANG) $(TH_CFLAGS) -fopenmp -o $@ $<

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
