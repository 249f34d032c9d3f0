#!/bin/sh
# tests/validate/threads.sh BUILD - `unperturb validate` of threaded programs
# (docs/validate.md, "Programs without MPI" and "Threads"), run by
# tests/validate/run.sh:
# - the tracer's window marks: a program traced alone has
#   UNPERTURB window begin/end, and compensate calls its window marked;
# - pth_barrier without MPI (--no-mpi --threads 2, the thread count through
#   {threads} in its arguments), 2 runs of each kind at extra 0 and 1000 ns:
#   the table, JSON, CSV, plot and kept traces, with the rows, columns and
#   folders of a run without MPI; each configuration pinned to the first 2
#   CPUs this shell may use; every window holds the program's own timing of
#   its parallel part (time_s, printed by the same run), which lies inside
#   main; the time files say ranks=1 and no OpenMP runtime;
# - omp_loop built by gcc (libgomp) runs on LLVM's libomp in both kinds of
#   run: the uninstrumented runs' time files name libomp (skipped without
#   libomp);
# - tests/validate/hybrid.c (MPI + OpenMP) through the MPI path with
#   --threads 2: OMP_NUM_THREADS reaches the ranks in both kinds of run, on
#   1 rank (measured) and 2 ranks (4 threads on this machine's cores:
#   oversubscribed, correctness only);
# - bad usage: --no-mpi with --np or --launcher, too many configurations.
# No check compares the times of two runs (the machine may be loaded).
set -eu
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
EX=$BUILD/examples
T=$(mktemp -d /tmp/unperturb-validate-threads.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { pass=$((pass + 1)); echo "ok   $*"; }

# ---- the tracer's window marks ----
$UNPERTURB trace -q -o "$T/tr" -- "$EX/pth_barrier" -t 2 -n 50 > /dev/null || fail "trace of pth_barrier"
otf2-print "$T/tr/traces.otf2" > "$T/tr.txt"
[ "$(grep -c '^LEAVE .*"UNPERTURB window begin"' "$T/tr.txt")" = 1 ] &&
    [ "$(grep -c '^ENTER .*"UNPERTURB window end"' "$T/tr.txt")" = 1 ] || fail "no window marks in the trace"
$UNPERTURB compensate -q "$T/tr" -o "$T/tr-c" --json "$T/tr-c.json" || fail "compensate of the solo trace"
jq -e '.window.marked == true' "$T/tr-c.json" > /dev/null || fail "the solo trace's window is not marked"
ok "a program traced alone: its window marked by UNPERTURB window begin/end"

# ---- pth_barrier without MPI ----
$UNPERTURB validate -q --no-mpi --threads 2 --repeat 2 --extra-ns 0,1000 -o "$T/val" --json "$T/v.json" \
    -- "$EX/pth_barrier" -t '{threads}' -n 100 > "$T/table.out" || fail "validate --no-mpi exited non-zero"
for f in table.txt validate.json plot.svg runs.csv log.txt t2/untraced-0.time t2/untraced-1.time \
         t2-x0/trace/traces.otf2 t2-x1000/lower/traces.otf2 t2-x1000/upper/traces.otf2 \
         t2-x1000/network/traces.otf2 t2-x1000/network.json; do
    [ -e "$T/val/$f" ] || fail "validate --no-mpi wrote no $f"
done
cmp -s "$T/table.out" "$T/val/table.txt" || fail "table.txt differs from the printed table"
grep -q '^Without MPI: the window is the tracer' "$T/table.out" || fail "the table does not say it ran without MPI"
grep -Eq '^ +np threads extra_ns ' "$T/table.out" || fail "no threads column"
[ "$(grep -Ec '^ +- +2 +(0|1000) ' "$T/table.out")" = 2 ] || fail "table rows: $(cat "$T/table.out")"
grep -q '^2 threads, extra 0 ns: paired dilation' "$T/table.out" || fail "no paired line for 2 threads"
ok "pth_barrier --no-mpi --threads 2: table, JSON, plot, runs, kept traces in t2-x0 and t2-x1000"

# the first two CPUs this shell may use (Cpus_allowed_list: 0-3,8,...)
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
       awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }' | head -2 | paste -sd, -)
jq -e --argjson cpus "[$cpus]" '(.mpi == false) and (.rows | length == 2)
       and ([.rows[] | .np == 1 and .threads == 2 and .pinned_cpus == $cpus and (.oversubscribed | not)
             and (.folder | test("^t2-x(0|1000)$"))] | all)
       and ([.rows[].extra_ns] == [0, 1000])
       and (.openmp | .runs_on == "none" and .route == "as is" and .uninstrumented_ran == "none")
       and .launcher == []' "$T/v.json" > /dev/null ||
    fail "JSON of a run without MPI: $(jq -c '{mpi, openmp, launcher, rows: [.rows[] | {np, threads, pinned_cpus, folder}]}' "$T/v.json")"
grep -qx "== 2 threads: pinned to CPUs $(echo "$cpus" | tr ',' ' '); OMP_NUM_THREADS set, OMP_PROC_BIND=close, OMP_PLACES=cores" \
    "$T/val/log.txt" || [ -n "${OMP_PROC_BIND:-}${OMP_PLACES:-}" ] || fail "log.txt: pinning line: $(grep '^== 2 threads:' "$T/val/log.txt")"
ok "JSON: no MPI, np 1, 2 threads pinned to CPUs $cpus, no OpenMP runtime"

# runs.csv: 2 uninstrumented and 4 traced runs, threads 2, OpenMP none
head -1 "$T/val/runs.csv" | grep -qx 'np,extra_ns,run,kind,window_s,Ta_network_s,threads,openmp' ||
    fail "runs.csv header: $(head -1 "$T/val/runs.csv")"
[ "$(awk -F, 'NR > 1 && $1 == 1 && $7 == 2 && $8 == "none" { n[$4]++ } END { print n["uninstrumented"] + 0, n["traced"] + 0 }' \
     "$T/val/runs.csv")" = "2 4" ] || fail "runs.csv rows: $(tr '\n' ' ' < "$T/val/runs.csv")"
# the shim's files: one rank, no OpenMP, T the fastest window
for k in 0 1; do
    grep -qx 'ranks=1' "$T/val/t2/untraced-$k.time" && grep -qx 'openmp=none' "$T/val/t2/untraced-$k.time" ||
        fail "time file $k: $(cat "$T/val/t2/untraced-$k.time")"
done
tmin=$(sed -n 's/^window_s=//p' "$T/val"/t2/untraced-*.time | sort -g | head -1)
jq -e --argjson t "$tmin" '.rows[0].T_s - $t | fabs < 1e-9' "$T/v.json" > /dev/null || fail "T_s is not the shim's fastest window $tmin"
ok "runs.csv: 2 uninstrumented and 4 traced runs of 2 threads; time files of one rank without OpenMP"

# every run's window holds the program's own time_s of its parallel part (a
# part of main: after the shim's constructor and the tracer's begin mark,
# before their destructors), run by run in the order they ran; the
# program ran 2 threads ({threads} replaced)
awk -F, 'NR > 1 { print $5 }' "$T/val/runs.csv" > "$T/windows.txt"
awk '/^pth_barrier: threads=2 / { two++ } /^time_s: / { print $2 } END { exit two != 6 }' \
    "$T/val/log.txt" > "$T/own.txt" || fail "log.txt: the program did not run 6 times with threads=2"
paste -d' ' "$T/windows.txt" "$T/own.txt" | awk '{ if (!($1 >= $2 && $2 > 0)) bad = 1; n++ } END { exit bad || n != 6 }' ||
    fail "a window shorter than the program's own time: $(paste -d' ' "$T/windows.txt" "$T/own.txt" | tr '\n' ';')"
ok "every window (T and Tm) holds the program's own time_s of the same run"

# the kept traces: the marks, and the compensations' windows marked
for x in 0 1000; do
    otf2-print "$T/val/t2-x$x/trace/traces.otf2" | grep -q '"UNPERTURB window begin"' || fail "t2-x$x: no window mark"
    jq -e '.window.marked == true' "$T/val/t2-x$x/network.json" > /dev/null || fail "t2-x$x: window not marked"
done
jq -e '[.rows[] | (.different_execution | not) and (.runs_enter_records | length == 2)
        and (.runs_enter_records | all(. > 0))] | all' "$T/v.json" > /dev/null ||
    fail "pth_barrier: records per region: $(jq -c '[.rows[] | {different_execution, runs_enter_records}]' "$T/v.json")"
ok "kept traces marked, compensations over the marked window; records counted, the same execution"

# ---- the OpenMP runtime: a gcc (libgomp) program runs on libomp in every run ----
if [ -x "$EX/omp_loop" ] && $UNPERTURB validate -q --no-mpi --threads 2 --repeat 1 -o "$T/omp" \
       --json "$T/o.json" -- "$EX/omp_loop" -t '{threads}' -n 2 > /dev/null 2> "$T/omp.err"; then
    if jq -e '.openmp.route == "link"' "$T/o.json" > /dev/null; then
        jq -e '.openmp | .runs_on == "libomp" and .uninstrumented_ran == "libomp" and (.events_lost | not)' \
            "$T/o.json" > /dev/null || fail "omp_loop: $(jq -c .openmp "$T/o.json")"
        sed -n 's/^openmp=//p' "$T/omp/t2/untraced-0.time" | grep -Eq '/lib(i)?omp[^/]*$' ||
            fail "omp_loop: the time file names $(sed -n 's/^openmp=//p' "$T/omp/t2/untraced-0.time")"
        [ "$(awk -F, 'NR > 1 { print $4 "=" $8 }' "$T/omp/runs.csv" | sort | tr '\n' ' ')" = "traced=libomp uninstrumented=libomp " ] ||
            fail "omp_loop runs.csv: $(tr '\n' ' ' < "$T/omp/runs.csv")"
        grep -q '^== OpenMP runtime of every run: libomp (link): ' "$T/omp/log.txt" || fail "omp_loop: log.txt names no runtime"
        ok "omp_loop (gcc): both kinds of run on libomp (the time file: $(sed -n 's/^openmp=//p' "$T/omp/t2/untraced-0.time"))"
    else
        echo "skip omp_loop: libomp cannot stand in here: $(jq -r .openmp.message "$T/o.json")"
    fi
else
    [ -x "$EX/omp_loop" ] && fail "validate of omp_loop: $(head -c 400 "$T/omp.err")"
    echo "skip omp_loop: not built"
fi

# ---- hybrid MPI + OpenMP through the MPI path ----
mpicc -O1 -fopenmp -o "$T/hybrid" tests/validate/hybrid.c
$UNPERTURB validate -q --np 1,2 --threads 2 --repeat 1 -o "$T/hyb" --json "$T/h.json" -- "$T/hybrid" 5 \
    > "$T/hyb.out" 2> "$T/hyb.err" || fail "validate of hybrid: $(head -c 400 "$T/hyb.err")"
[ "$(grep -c '^hybrid: ranks=1 threads=2 rounds=5$' "$T/hyb/log.txt")" = 2 ] &&
    [ "$(grep -c '^hybrid: ranks=2 threads=2 rounds=5$' "$T/hyb/log.txt")" = 2 ] &&
    [ "$(grep -c '^result: ok$' "$T/hyb/log.txt")" = 4 ] || fail "hybrid: OMP_NUM_THREADS did not reach the ranks: $(grep '^hybrid\|^result' "$T/hyb/log.txt" | tr '\n' ';')"
cores=$(jq .cores "$T/h.json")
jq -e --argjson c "$cores" '(.mpi == true) and ([.rows[] | [.np, .threads, .pinned_cpus, .folder, .oversubscribed]]
       == [[1, 2, null, "np1-t2-x0", (2 > $c)], [2, 2, null, "np2-t2-x0", (4 > $c)]])
       and (.openmp.uninstrumented_ran == .openmp.runs_on)' "$T/h.json" > /dev/null ||
    fail "hybrid JSON: $(jq -c '{mpi, openmp, rows: [.rows[] | [.np, .threads, .pinned_cpus, .folder, .oversubscribed]]}' "$T/h.json")"
[ -e "$T/hyb/np1-t2-x0/network/traces.otf2" ] && [ -e "$T/hyb/np2-t2/untraced-0.time" ] || fail "hybrid: folders"
grep -Eq '^ +np threads ' "$T/hyb.out" && grep -Eq '^ +1 +2 +0 ' "$T/hyb.out" || fail "hybrid table: $(cat "$T/hyb.out")"
ok "hybrid MPI + OpenMP, 1 and 2 ranks x 2 threads: OMP_NUM_THREADS in every rank, rows np1-t2 and np2-t2"

# ---- bad usage ----
for bad in "--np 2" "--launcher mpirun"; do
    if $UNPERTURB validate -q --no-mpi $bad -o "$T/bad" -- "$EX/pth_barrier" 2> "$T/err"; then
        fail "--no-mpi $bad accepted"
    fi
    grep -q "no-mpi runs the program alone" "$T/err" && [ ! -e "$T/bad" ] || fail "--no-mpi $bad: $(cat "$T/err")"
done
if $UNPERTURB validate -q --np 1,2,3,4,5 --threads 1,2,3,4 -o "$T/bad" -- "$EX/pth_barrier" 2> "$T/err"; then
    fail "20 configurations accepted"
fi
grep -q "make 20 configurations; at most 16" "$T/err" && [ ! -e "$T/bad" ] || fail "20 configurations: $(cat "$T/err")"
ok "bad usage: --no-mpi with --np or --launcher, 20 configurations"
echo "validate threads tests: $pass passed"
