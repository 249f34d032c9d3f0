#!/bin/sh
# tests/tracer/pthreads.sh [BUILD] - the tracer on POSIX-thread programs
# without MPI (docs/tracer.md, "POSIX threads: what is recorded" and
# "Programs without MPI"): `unperturb trace -- ./prog` on the threaded
# examples (examples/threads/) and on tests/tracer/c_cond.c, each built
# here with cc.  Every count in the trace (otf2-print) must equal the one
# the program prints of its own calls: threads, barrier waits, lock
# acquisitions, semaphore operations and their P_p/P_e/failed outcomes,
# condition-variable signals and waits; thread creations pair with begins
# by sequence number; the archive names the process "Process 0" and its
# thread contingent; compensate repairs nothing.  Run by `make test`.
set -u
BUILD=${1:-build}
UNPERTURB=${UNPERTURB:-$BUILD/bin/unperturb}
T=$(mktemp -d /tmp/unperturb-pthreads-test.XXXXXX)
trap 'rm -rf "$T"' EXIT
pass=0 failed=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { failed=$((failed + 1)); echo "FAIL $1"; }

for p in pth_barrier pth_mutex pth_semaphore; do
    cc -O2 -pthread -o "$T/$p" "examples/threads/$p.c" || { echo "cannot build $p"; exit 1; }
done
cc -O2 -pthread -o "$T/c_cond" tests/tracer/c_cond.c || exit 1

# trace NAME PROG ARGS...: $T/NAME.out (the program's), $T/NAME.txt (otf2-print)
trace() {
    name=$1
    shift
    rm -rf "$T/$name"
    if ! $UNPERTURB trace -q -o "$T/$name" -- "$@" > "$T/$name.out" 2> "$T/$name.err"; then
        bad "$name: trace failed: $(head -c 300 "$T/$name.err")"
        return 1
    fi
    otf2-print "$T/$name/traces.otf2" > "$T/$name.txt"
}
# the value of KEY in the program's counts line
said() { sed -n 's/^counts: //p' "$T/$1.out" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
# records of a kind; Enter records of a region
kind() { grep -c "^$2 " "$T/$1.txt"; }
enters() { grep "^ENTER " "$T/$1.txt" | grep -c "Region: \"$2\""; }
# the attribute ATTR's values (one per line) in the records of the trace
attr() { grep -o "\"unperturb::$2\" <[0-9]*>; [A-Z0-9]*; [0-9]*" "$T/$1.txt" | sed 's/.*; //'; }
# check NAME WHAT GOT WANT
check() { [ "$3" = "$4" ] || { bad "$1: $2: trace has $3, the program says $4"; return 1; }; }

# the threads: one location each, creations paired with begins and ends
# with waits by sequence number, T - 1 of each
threads_ok() {
    name=$1 n=$2
    locs=$(awk 'NR > 5 && $2 ~ /^[0-9]+$/ { print $2 }' "$T/$name.txt" | sort -u | wc -l)
    check "$name" "locations with records" "$locs" "$n" || return 1
    for k in THREAD_CREATE THREAD_BEGIN THREAD_END THREAD_WAIT; do
        check "$name" "$k records" "$(kind "$name" $k)" $((n - 1)) || return 1
    done
    for pair in "THREAD_CREATE THREAD_BEGIN" "THREAD_END THREAD_WAIT"; do
        set -- $pair
        a=$(grep "^$1 " "$T/$name.txt" | grep -o 'Sequence Count: [0-9]*' | sort)
        b=$(grep "^$2 " "$T/$name.txt" | grep -o 'Sequence Count: [0-9]*' | sort)
        [ "$a" = "$b" ] || { bad "$name: $1 and $2 sequence numbers differ"; return 1; }
    done
    otf2-print -G "$T/$name/traces.otf2" > "$T/$name.defs" 2>&1
    grep -q '"Process 0"' "$T/$name.defs" || { bad "$name: no location group \"Process 0\""; return 1; }
    grep -q '"Threads of rank 0"' "$T/$name.defs" || { bad "$name: no thread contingent"; return 1; }
    $UNPERTURB compensate "$T/$name/traces.otf2" -o "$T/$name.comp" > "$T/$name.comp.txt" 2>&1 ||
        { bad "$name: compensate failed: $(tail -n 3 "$T/$name.comp.txt")"; return 1; }
    grep -q '^  repairs      none' "$T/$name.comp.txt" ||
        { bad "$name: compensate repaired: $(grep repairs "$T/$name.comp.txt")"; return 1; }
    # the independent checker: the compensated trace against its input
    [ ! -x "$BUILD/bin/up-check" ] ||
        "$BUILD/bin/up-check" "$T/$name.comp" --against "$T/$name/traces.otf2" > "$T/$name.check" 2>&1 ||
        { bad "$name: up-check: $(tail -n 5 "$T/$name.check")"; return 1; }
}

for t in 2 3; do
    name=barrier$t
    trace $name "$T/pth_barrier" -t $t -n 50 -w 2000 || continue
    threads_ok $name $t || continue
    check $name "barrier Enter records" "$(enters $name pthread_barrier_wait)" "$(said $name barrier_waits)" || continue
    check $name "count attributes = $t" "$(attr $name count | sort -u)" "$t" || continue
    ok "pth_barrier, $t threads: threads, creations, joins, $(said $name barrier_waits) barrier waits"
done

for t in 2 4; do
    name=mutex$t
    trace $name "$T/pth_mutex" -t $t -n 300 -w 200 -c 100 || continue
    threads_ok $name $t || continue
    l=$(said $name lock_acquisitions)
    check $name "ThreadAcquireLock records" "$(kind $name THREAD_ACQUIRE_LOCK)" "$l" || continue
    check $name "ThreadReleaseLock records" "$(kind $name THREAD_RELEASE_LOCK)" "$l" || continue
    check $name "pthread_mutex_lock Enters" "$(enters $name pthread_mutex_lock)" "$l" || continue
    ok "pth_mutex, $t threads: $l lock acquisitions and releases"
done

for y in "" -y; do
    name=sem$y
    trace $name "$T/pth_semaphore" -n 500 -w 200 $y || continue
    threads_ok $name 2 || continue
    posts=$(said $name sem_posts) waits=$(said $name sem_waits)
    check $name "V (sem_op 1)" "$(attr $name sem_op | grep -c '^1$')" "$posts" || continue
    check $name "sem_wait Enters" "$(enters $name sem_wait)" "$waits" || continue
    check $name "ThreadAcquireLock records" "$(kind $name THREAD_ACQUIRE_LOCK)" "$(said $name lock_acquisitions)" || continue
    # every P passed: P_p + P_e = sem_wait calls + successful sem_trywait calls
    tries=$(said $name sem_trywaits) fails=$(said $name sem_trywait_fails)
    p=$(attr $name sem_op | grep -c '^[23]$')
    check $name "P_p + P_e" "$p" $((waits + ${tries:-0} - ${fails:-0})) || continue
    check $name "failed P (sem_op 0)" "$(attr $name sem_op | grep -c '^0$')" "${fails:-0}" || continue
    [ -z "$y" ] || check $name "sem_trywait Enters" "$(enters $name sem_trywait)" "$tries" || continue
    ok "pth_semaphore $y: $posts V, $p P ($(attr $name sem_op | grep -c '^3$') waited), ${fails:-0} failed tries"
done

name=cond
if trace $name "$T/c_cond" 200 && threads_ok $name 2; then
    w=$(said $name waits)
    if check $name "pthread_cond_signal Enters" "$(enters $name pthread_cond_signal)" "$(said $name signals)" &&
       check $name "pthread_cond_wait Enters" "$(enters $name pthread_cond_wait)" "$w" &&
       check $name "ThreadAcquireLock records" "$(kind $name THREAD_ACQUIRE_LOCK)" "$(said $name locks)" &&
       check $name "signals during each wait (c_cond.c: exactly 1)" "$(attr $name signals | sort -u)" 1 &&
       check $name "waits woken by a signal" "$(attr $name woken_by | grep -vc '^0$')" "$w" &&
       check $name "lock ids (turn, recursive, 3 remade: 1..5; the calibration's mutex is none)" \
           "$(grep -o 'Lock: [0-9]*' "$T/$name.txt" | sed 's/Lock: //' | sort -un | tr '\n' ' ')" "1 2 3 4 5 "; then
        ok "condition variables: $(said $name signals) signals, $w waits each paired with one, recursive and remade mutexes"
    fi
fi

# stalls of the --extra-ns spins, per thread: both threads on one core, a
# spin of 20 us is often interrupted; each thread's stalls are its own
# location's list (traces/<location>.stalls), in time order (a list that
# two threads wrote into would not be), and compensate reads every list
# whole (no "damaged" warning) and removes them
rm -rf "$T/stall"
if taskset -c 0 $UNPERTURB trace -q --extra-ns 20000 -o "$T/stall" -- "$T/pth_barrier" -t 2 -n 200 -w 500 > /dev/null; then
    locs=$(otf2-print "$T/stall/traces.otf2" | awk 'NR > 5 && $2 ~ /^[0-9]+$/ { print $2 }' | sort -u | tr '\n' ' ')
    bad_list="" thread_list=0
    for f in "$T"/stall/traces/*.stalls; do
        [ -f "$f" ] || continue
        loc=$(basename "$f" .stalls)
        case " $locs" in *" $loc "*) ;; *) bad_list="$bad_list $loc(no such location)" ;; esac
        [ "$loc" -ge 4294967296 ] && thread_list=1
        od -An -v -t u8 -w16 "$f" | awk '{ if ($1 < p) bad = 1; p = $1 + $2 } END { exit bad }' ||
            bad_list="$bad_list $loc(out of order)"
    done
    $UNPERTURB compensate "$T/stall" -o "$T/stall-c" --json "$T/stall-c.json" > "$T/stall-c.txt" 2>&1
    if [ -n "$bad_list" ] || [ $thread_list = 0 ] || grep -q damaged "$T/stall-c.txt" ||
       [ "$(jq .parameters.stalls "$T/stall-c.json")" -lt 1 ]; then
        bad "stalls per thread:$bad_list (a worker's list: $thread_list) $(grep -i 'stall\|damaged' "$T/stall-c.txt")"
    else
        ok "stalls of --extra-ns spins: a list per thread, each in order, $(jq .parameters.stalls "$T/stall-c.json") removed"
    fi
else
    bad "stalls: the traced run failed"
fi

# fork() without exec: the children (one ends by _exit, one by returning
# from main, which runs the destructors) record nothing and leave the
# parent's files alone; the parent's two acquisitions are the trace's
cat > "$T/c_forky.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static void take(void) { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); }
int main(void)
{
    pid_t p;
    take();
    if ((p = fork()) == 0) { take(); _exit(0); }
    waitpid(p, NULL, 0);
    if ((p = fork()) == 0) { take(); return 0; }
    waitpid(p, NULL, 0);
    take();
    puts("done");
    return 0;
}
C
cc -O1 -pthread -o "$T/c_forky" "$T/c_forky.c"
if trace forky "$T/c_forky" && check forky "ThreadAcquireLock records" "$(kind forky THREAD_ACQUIRE_LOCK)" 2; then
    ok "fork without exec: the children record nothing, the parent's trace is whole"
fi

# more live objects than the tracer numbers (65,536): the others'
# acquisitions are not recorded, and counted on stderr
cat > "$T/c_many.c" <<'C'
#include <pthread.h>
#include <stdlib.h>
int main(void)
{
    enum { N = 70000 };
    pthread_mutex_t *m = calloc(N, sizeof *m);
    for (int i = 0; i < N; i++) {
        pthread_mutex_init(&m[i], NULL);
        pthread_mutex_lock(&m[i]);
        pthread_mutex_unlock(&m[i]);
    }
    return 0;
}
C
cc -O1 -pthread -o "$T/c_many" "$T/c_many.c"
if trace many "$T/c_many" && check many "ThreadAcquireLock records" "$(kind many THREAD_ACQUIRE_LOCK)" 65536; then
    if grep -q "4464 calls on objects past the 65536 live ones" "$T/many.err"; then
        ok "70,000 live mutexes: 65,536 numbered, the other 4,464 acquisitions counted on stderr"
    else
        bad "many: no count of the calls not recorded on stderr: $(head -c 300 "$T/many.err")"
    fi
fi

# OpenMP without MPI: a gcc -fopenmp program runs on LLVM's libomp under
# `unperturb trace` (KMP_VERSION=1 makes libomp name itself; the link that
# arranged it is not in the output), a clang one on libomp itself; the
# trace holds what omp_loop counted (examples/threads/omp_loop.c: R
# regions of T threads, CR critical sections, TK tasks created and run, TW
# taskwaits; clang's BW explicit barriers: gcc's are reported as
# implementation barriers, docs/tracer-openmp.md), never compared across
# the compilers
for cc_ in gcc clang; do
    command -v $cc_ > /dev/null || continue
    name=omp-$cc_
    $cc_ -O2 -fopenmp -o "$T/omp_loop-$cc_" examples/threads/omp_loop.c 2> /dev/null || continue
    rm -rf "$T/$name"
    if ! KMP_VERSION=1 OMP_NUM_THREADS=2 $UNPERTURB trace -q -o "$T/$name" -- "$T/omp_loop-$cc_" -n 20 -w 2000 \
            > "$T/$name.out" 2> "$T/$name.err" || ! grep -q "^LLVM OMP version" "$T/$name.err" ||
       ! grep -q "^result: ok" "$T/$name.out" || [ -n "$(find "$T/$name" -name 'libgomp*')" ]; then
        bad "$name: not traced on libomp: $(head -c 300 "$T/$name.err")"
        continue
    fi
    otf2-print "$T/$name/traces.otf2" > "$T/$name.txt"
    omp() { grep "^ENTER " "$T/$name.txt" | grep -c "Region: \"!\$omp $1 @"; }
    th=$(said $name threads)
    check $name "locations with records" "$(awk 'NR > 5 && $2 ~ /^[0-9]+$/ { print $2 }' "$T/$name.txt" | sort -u | wc -l)" "$th" &&
    check $name "parallel regions x threads" "$(omp parallel)" $(($(said $name parallel_regions) * th)) &&
    check $name "critical sections" "$(omp critical)" "$(said $name critical)" &&
    check $name "ThreadAcquireLock records" "$(kind $name THREAD_ACQUIRE_LOCK)" "$(said $name critical)" &&
    check $name "tasks created" "$(omp "create task")" "$(said $name tasks)" &&
    check $name "tasks run" "$(omp task)" "$(said $name tasks)" &&
    check $name "taskwaits" "$(omp taskwait)" "$(said $name taskwaits)" &&
    { [ $cc_ = gcc ] || check $name "explicit barriers" "$(omp barrier)" "$(said $name barrier_waits)"; } || continue
    $UNPERTURB compensate "$T/$name/traces.otf2" -o "$T/$name.comp" > "$T/$name.comp.txt" 2>&1 &&
        grep -q '^  repairs      none' "$T/$name.comp.txt" || { bad "$name: compensate: $(grep -E 'repairs|error' "$T/$name.comp.txt")"; continue; }
    [ ! -x "$BUILD/bin/up-check" ] ||
        "$BUILD/bin/up-check" "$T/$name.comp" --against "$T/$name/traces.otf2" > "$T/$name.check" 2>&1 ||
        { bad "$name: up-check: $(tail -n 5 "$T/$name.check")"; continue; }
    ok "omp_loop ($cc_, no MPI) on libomp: $(said $name critical) critical sections, $(said $name tasks) tasks, every count the program's"
done

echo "pthreads tracer tests: $pass passed, $failed failed"
[ "$failed" = 0 ]
