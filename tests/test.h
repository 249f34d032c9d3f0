/*
 * test.h - a tiny test runner: TEST(name) { CHECK(...); } registers itself;
 * tests/main.c runs them all (or those whose name contains argv[1]) and
 * prints "N passed, M failed".  No fork per test: MPI and the sanitizers are
 * happier that way.
 */
#ifndef UNPERTURB_TEST_H
#define UNPERTURB_TEST_H

#include <stdint.h>
#include <stdio.h>

typedef struct t_case {
    const char *name;
    void (*fn)(void);
    struct t_case *next;
} t_case;

void t_register(t_case *c);
void t_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A fresh empty directory for the running test (removed when all pass). */
const char *t_dir(const char *name);
/* Path inside the source tree (tests/data/...), from the repository root. */
const char *t_src(const char *rel);

#define TEST(fn)                                                     \
    static void fn(void);                                            \
    static t_case fn##_case = {#fn, fn, NULL};                       \
    __attribute__((constructor)) static void fn##_reg(void)          \
    {                                                                \
        t_register(&fn##_case);                                      \
    }                                                                \
    static void fn(void)

#define CHECK(c)                                                     \
    do {                                                             \
        if (!(c))                                                    \
            t_fail(__FILE__, __LINE__, "CHECK(%s)", #c);             \
    } while (0)

#define CHECK_EQ(a, b)                                                               \
    do {                                                                             \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
        if (a_ != b_)                                                                \
            t_fail(__FILE__, __LINE__, "%s == %s: %llu != %llu", #a, #b, a_, b_);   \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                        \
    do {                                                                             \
        double a_ = (double)(a), b_ = (double)(b);                                   \
        if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol)))                                 \
            t_fail(__FILE__, __LINE__, "%s ~ %s: %.9g vs %.9g (tol %g)", #a, #b, a_, b_, (double)(tol)); \
    } while (0)

#endif
