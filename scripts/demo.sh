#!/bin/sh
# make demo: the paper's experiment ([W] Section 5, Fig. 1) on the bundled
# master/worker example.  montecarlo, built with -finstrument-functions so
# that the tracer records every call of its small get_coords() function as
# the paper's EPILOG tracer did, runs uninstrumented and traced at 2 and 4
# ranks (3 runs of each, alternating; the fastest kept), the traced run is
# compensated in lower, upper and network mode with the calibration stored
# in its archive, and the table is printed; then `unperturb report` compares
# the kept trace of the first rank count with its network-mode compensation.
# Last, `unperturb simulate` predicts that trace on a cluster while stepping
# the latency and the processor speed (demo/sweep).
# Outputs go to demo/ (not versioned): report.html, report.json, table.txt,
# plot.svg, validate.json, runs.csv and the traces.
# DEMO_REPEAT and DEMO_NP change the defaults (3 and "2,4").
set -eu
BUILD=${1:-build}
UP=$BUILD/bin/unperturb
PROG=$BUILD/examples/montecarlo-finst
REPEAT=${DEMO_REPEAT:-3}
NP=${DEMO_NP:-2,4}
echo "== unperturb demo: the master/worker Monte-Carlo pi example, as in Wolf et al., Fig. 1"
echo "   $PROG: every call of get_coords() is recorded (-finstrument-functions, --functions)"
echo "   ranks $NP, $REPEAT runs of each kind; about a minute"
echo
"$UP" validate --np "$NP" --repeat "$REPEAT" --functions -o demo --force -- "$PROG"
echo
echo "T: uninstrumented, timed by libunperturb-time.so; Tm: traced; Ta: compensated (lower and"
echo "upper bound, network model), all over the window MPI_Init..MPI_Finalize.  Rank counts above"
echo "the $(nproc) cores here share processors, which the models do not model: read those rows apart."
echo
NPFIRST=${NP%%,*}
echo "== What the overhead did: the kept trace at $NPFIRST ranks against its network-mode compensation"

"$UP" report "demo/np$NPFIRST-x0/trace" --against "demo/np$NPFIRST-x0/network" \
    -o demo/report.html --json demo/report.json --top 8
echo
echo "== Trace-driven extrapolation: the same run on a cluster (examples/machines/cluster.ini, one"
echo "   rank per node), stepping the network latency and the processor speed (speedy, Fig. 7)"
"$UP" simulate "demo/np$NPFIRST-x0/trace" --machine examples/machines/cluster.ini \
    --set ranks_per_node=1 --sweep latency_ns=1000:50000:7000 --sweep cpu_ratio=1:2:0.5 \
    -o demo/sweep --force
echo
echo "Outputs in demo/: report.html (open it in a browser: timelines, wait states, call paths),"
echo "sweep/ (time.svg, sweep.csv, experiment.ini: rerun with unperturb simulate --experiment),"
echo "report.json, table.txt, plot.svg, validate.json, runs.csv,"
echo "and per configuration the kept trace and its compensations, e.g."
echo "  otf2-print demo/np2-x0/trace/traces.otf2 | less"
echo "  otf2-print demo/np2-x0/network/traces.otf2 | less"
