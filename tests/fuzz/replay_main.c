/*
 * replay_main.c - runs a fuzz target on saved inputs, without libFuzzer:
 * the regression test of `make test` (built with gcc under ASan and UBSan)
 * and the valgrind replay of the release build (tests/fuzz/README.md).
 *
 *   up-fuzz-<target> FILE|DIR ...
 *
 * Each file, and each file of each folder (in name order), goes once to the
 * target's LLVMFuzzerTestOneInput.  A broken invariant or a sanitizer report
 * names the input and ends the run with a failure.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* the sanitizers' hook, when they are linked in */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void say_input(void)
{
    if (fz_input_name)
        fprintf(stderr, "up-fuzz: the input was %s\n", fz_input_name);
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "up-fuzz: cannot read %s: %s\n", path, strerror(errno));
        if (f)
            fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    fz_input_name = path;
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "up-fuzz: %s\n", path);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    fz_input_name = NULL;
    free(buf);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    int rc = 0;
    if (!d) {
        fprintf(stderr, "up-fuzz: cannot read %s: %s\n", dir, strerror(errno));
        return 1;
    }
    while ((e = readdir(d))) {
        char p[4096];
        struct stat st;
        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (!nn)
                abort();
            names = nn;
        }
        if (!(names[n++] = strdup(p)))
            abort();
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    for (i = 0; i < n; i++) {
        rc |= run_file(names[i]);
        (*count)++;
        free(names[i]);
    }
    free(names);
    return rc;
}

__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    return 0;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    int i, rc = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR ...\n", argv[0]);
        return 2;
    }
    if (__sanitizer_set_death_callback)
        __sanitizer_set_death_callback(say_input);
    LLVMFuzzerInitialize(&argc, &argv);
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "up-fuzz: cannot read %s: %s\n", argv[i], strerror(errno));
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            rc |= run_dir(argv[i], &count);
        } else {
            rc |= run_file(argv[i]);
            count++;
        }
    }
    printf("%s: %u inputs replayed\n", argv[0], count);
    return rc;
}
