/*
 * progress.c - a progress bar on stderr for long work, only on a terminal
 * (scripts and CI logs stay clean).
 */
#include <stdio.h>
#include <unistd.h>

#include "util/util.h"

void up_progress_init(up_progress *p, const char *label, bool quiet)
{
    p->label = label;
    p->on = !quiet && isatty(STDERR_FILENO);
    p->shown = -1;
}

void up_progress_update(void *pp, uint64_t done, uint64_t total)
{
    up_progress *p = pp;
    int pct, i, w = 30;
    if (!p->on || !total)
        return;
    pct = done >= total ? 100 : (int)(done * 100 / total);
    if (pct == p->shown)
        return;
    p->shown = pct;
    fprintf(stderr, "\r%s [", p->label);
    for (i = 0; i < w; i++)
        fputc(i < pct * w / 100 ? '#' : ' ', stderr);
    fprintf(stderr, "] %3d%%", pct);
    fflush(stderr);
}

void up_progress_end(up_progress *p)
{
    if (p->on && p->shown >= 0)
        fprintf(stderr, "\r\033[K");
    p->shown = -1;
}
