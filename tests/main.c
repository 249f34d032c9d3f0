/*
 * main.c - runs the registered tests (see test.h).
 */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

static t_case *cases;
static int failed_checks;
static char root[1024], dirbuf[4096], srcbuf[4096];
static const char *current;

void t_register(t_case *c)
{
    /* keep definition order: append */
    t_case **p = &cases;
    while (*p)
        p = &(*p)->next;
    *p = c;
}

void t_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    failed_checks++;
    fprintf(stderr, "  %s:%d: [%s] ", file, line, current);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

const char *t_dir(const char *name)
{
    if ((size_t)snprintf(dirbuf, sizeof dirbuf, "%s/%.200s-%.200s", root, current, name) >= sizeof dirbuf)
        abort(); /* cannot happen: 1024 + 2 * 200 + 2 < 4096 */
    up_rmtree(dirbuf);
    return dirbuf;
}

const char *t_src(const char *rel)
{
    const char *top = getenv("UNPERTURB_SRC");
    if ((size_t)snprintf(srcbuf, sizeof srcbuf, "%.2000s/%.1000s", top ? top : ".", rel) >= sizeof srcbuf)
        abort();
    return srcbuf;
}

int main(int argc, char **argv)
{
    const char *tmp = getenv("TMPDIR");
    int passed = 0, failed = 0;
    t_case *c;
    snprintf(root, sizeof root, "%s/unperturb-tests-XXXXXX", tmp ? tmp : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 2;
    }
    for (c = cases; c; c = c->next) {
        int before = failed_checks;
        struct timespec t0, t1;
        double ms;
        if (argc > 1 && !strstr(c->name, argv[1]))
            continue;
        current = c->name;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        c->fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (failed_checks == before) {
            passed++;
            printf("ok    %-48s %8.0f ms\n", c->name, ms);
        } else {
            failed++;
            printf("FAIL  %-48s %8.0f ms\n", c->name, ms);
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    if (!failed)
        up_rmtree(root);
    else
        printf("test files kept in %s\n", root);
    return failed ? 1 : 0;
}
