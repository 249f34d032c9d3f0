/*
 * measure.c - up-bench-measure -- CMD ARGS...: runs CMD, waits for it with
 * wait4() and prints one line on stderr
 *
 *   up-bench-measure: wall_s=1.234567 user_s=1.1 sys_s=0.1 maxrss_mb=12.3 status=0 cmd=CMD
 *
 * wall_s is CLOCK_MONOTONIC from just before fork() to the return of
 * wait4(); user_s and sys_s are the child's CPU times; maxrss_mb is its peak
 * resident set size (ru_maxrss, KiB) in MiB.  Exits with the child's exit status (128 + signal if killed).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double tv_s(const struct timeval *tv)
{
    return (double)tv->tv_sec + 1e-6 * (double)tv->tv_usec;
}

int main(int argc, char **argv)
{
    struct rusage ru;
    double t0, t1;
    int a = 1, status = 0, code;
    pid_t pid;

    if (a < argc && !strcmp(argv[a], "--"))
        a++;
    if (a >= argc) {
        fprintf(stderr, "usage: up-bench-measure -- CMD [ARGS...]\n");
        return 2;
    }
    fflush(NULL);
    t0 = now();
    pid = fork();
    if (pid < 0) {
        fprintf(stderr, "up-bench-measure: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[a], argv + a);
        fprintf(stderr, "up-bench-measure: cannot run '%s': %s\n", argv[a], strerror(errno));
        _exit(127);
    }
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "up-bench-measure: wait4: %s\n", strerror(errno));
            return 127;
        }
    }
    t1 = now();
    code = WIFEXITED(status) ? WEXITSTATUS(status)
           : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    fprintf(stderr, "up-bench-measure: wall_s=%.6f user_s=%.3f sys_s=%.3f maxrss_mb=%.1f status=%d cmd=%s\n",
            t1 - t0, tv_s(&ru.ru_utime), tv_s(&ru.ru_stime), (double)ru.ru_maxrss / 1024.0,
            code, argv[a]);
    return code;
}
