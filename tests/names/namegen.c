/*
 * namegen.c - writes the archives of tests/names/run.sh with OTF2's own
 * writer (src/tracegen.c): names that are not text, and a huge name.
 *
 *   namegen DIR hostile   2 ranks; regions and locations named with bytes
 *                         that are not UTF-8, control characters (ESC, CR,
 *                         BEL, newline, DEL), a C1 control and a direction
 *                         override in UTF-8, HTML's special characters, and
 *                         valid non-ASCII text; MPI_COMM_WORLD too
 *   namegen DIR big N     2 ranks; region "work" has a name of N bytes and
 *                         rank 0 enters it 300 times; rank 1's location is
 *                         named by N bytes too
 *
 * Place in the data flow: a test input, written without unperturb's code.
 * The names are the NAME_* macros below; run.sh spells them out again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracegen/tracegen.h"

/* valid UTF-8, not ASCII: "mäin ✓" */
#define NAME_MAIN "m\xc3\xa4in \xe2\x9c\x93"
/* not UTF-8: two bytes that never occur, a lone continuation byte, an
 * overlong '/', a surrogate (U+D800 encoded), a sequence cut short */
#define NAME_WORK "w\xff\xfe|\x80|\xc0\xaf|\xed\xa0\x80|\xe2\x9c"
/* control characters, DEL, CSI as a C1 control (U+009B), a right-to-left
 * override (U+202E), HTML's special characters */
#define NAME_COORDS "esc\x1b[31mred\r\x07\nnl\x7f\xc2\x9b\xe2\x80\xae<b>\"&'"
#define NAME_LOC0 "loc\xff\x1b]0;title\x07"
#define NAME_LOC1 "thread \xe2\x9c\x93 \\ ok"
#define NAME_WORLD "W\xffORLD\x1b[2J"

static void rank_run(tg *g, unsigned r, unsigned reps, uint64_t *t)
{
    unsigned k;
    tg_enter(g, r, (*t)++, TG_MAIN);
    tg_enter(g, r, (*t)++, TG_INIT);
    tg_leave(g, r, *t += 10, TG_INIT);
    for (k = 0; k < reps; k++) {
        tg_enter(g, r, *t += 10, TG_WORK);
        tg_leave(g, r, *t += 100, TG_WORK);
    }
    tg_enter(g, r, *t += 10, TG_GET_COORDS);
    tg_leave(g, r, *t += 50, TG_GET_COORDS);
}

int main(int argc, char **argv)
{
    uint64_t t0 = 1000, t1 = 1000;
    size_t n = 0;
    char *big = NULL;
    tg *g;
    unsigned reps = 1;
    if (argc < 3 || (strcmp(argv[2], "hostile") && strcmp(argv[2], "big")) ||
        (!strcmp(argv[2], "big") && argc < 4)) {
        fprintf(stderr, "usage: namegen DIR hostile | namegen DIR big N\n");
        return 2;
    }
    if (!(g = tg_open(argv[1], 2, 1000000000, 0)))
        return 1;
    if (!strcmp(argv[2], "hostile")) {
        tg_name_region(g, TG_MAIN, NAME_MAIN);
        tg_name_region(g, TG_WORK, NAME_WORK);
        tg_name_region(g, TG_GET_COORDS, NAME_COORDS);
        tg_name_location(g, 0, NAME_LOC0);
        tg_name_location(g, 1, NAME_LOC1);
        tg_name_world(g, NAME_WORLD);
    } else {
        n = strtoul(argv[3], NULL, 10);
        if (!n || !(big = malloc(n + 1)))
            return 1;
        memset(big, 'x', n);
        memcpy(big, "work-", 5 < n ? 5 : n);
        big[n] = '\0';
        tg_name_region(g, TG_WORK, big);
        tg_name_location(g, 1, big);
        reps = 300;
    }
    rank_run(g, 0, reps, &t0);
    rank_run(g, 1, 1, &t1);
    /* rank 0 sends to rank 1, both meet in a barrier, then finalize */
    t0 = t1 = (t0 > t1 ? t0 : t1) + 10;
    tg_mpi_send(g, 0, t0, t0 + 5, t0 + 20, 1, 7, 64);
    tg_mpi_recv(g, 1, t1, t1 + 30, t1 + 40, 0, 7, 64);
    t0 = t1 = t1 + 50;
    tg_mpi_coll(g, 0, TG_BARRIER, t0, t0 + 1, t0 + 20, t0 + 21, OTF2_COLLECTIVE_OP_BARRIER,
                OTF2_UNDEFINED_UINT32, 0, 0);
    tg_mpi_coll(g, 1, TG_BARRIER, t1 + 5, t1 + 6, t1 + 20, t1 + 21, OTF2_COLLECTIVE_OP_BARRIER,
                OTF2_UNDEFINED_UINT32, 0, 0);
    t0 = t1 = t1 + 30;
    tg_enter(g, 0, t0, TG_FINALIZE);
    tg_leave(g, 0, t0 + 10, TG_FINALIZE);
    tg_leave(g, 0, t0 + 11, TG_MAIN);
    tg_enter(g, 1, t1, TG_FINALIZE);
    tg_leave(g, 1, t1 + 10, TG_FINALIZE);
    tg_leave(g, 1, t1 + 11, TG_MAIN);
    if (tg_close(g) != 0)
        return 1;
    free(big);
    return 0;
}
