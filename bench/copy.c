/*
 * copy.c - up-bench-copy IN OUT_DIR: the benchmark baseline, a
 * plain OTF2 copy of an archive with no model in between.  IN is an anchor
 * file or the folder holding traces.otf2; OUT_DIR must not exist.
 *
 * OTF2_Reader -> per location: local definitions (so that OTF2 applies clock
 * offsets and mapping tables), then all events through the library's copy
 * callbacks (up_copy_evt_callbacks: each record goes straight from the
 * reader callback to that location's OTF2_EvtWriter) -> empty local
 * definition files -> all global definitions (up_copy_def_callbacks, in
 * reference order as unperturb's writer copies them) ->
 * close.  Locations are copied one after the other.
 *
 * The output archive is created by the library's up_otf2_archive_create,
 * exactly as unperturb's writer creates its own (one 4 MiB event chunk per
 * location, reused after each flush), so both programs write the same way
 * and the comparison measures the replay, not a buffering policy.
 *
 * Prints the records copied and the elapsed seconds (CLOCK_MONOTONIC).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <otf2/otf2.h>

#include "trace/trace.h"

static const char *prog = "up-bench-copy";

static int fail(const char *what, OTF2_ErrorCode rc)
{
    fprintf(stderr, "%s: %s: %s (%s)\n", prog, what, OTF2_Error_GetName(rc),
            OTF2_Error_GetDescription(rc));
    return 1;
}

/* ---- location ids from the global definitions --------------------------- */

typedef struct loc_list {
    size_t n, cap;
    OTF2_LocationRef *ids;
} loc_list;

static OTF2_CallbackCode on_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                     OTF2_LocationType type, uint64_t nevents,
                                     OTF2_LocationGroupRef group)
{
    loc_list *l = ud;
    (void)name, (void)type, (void)nevents, (void)group;
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 64;
        OTF2_LocationRef *p = realloc(l->ids, ncap * sizeof *p);
        if (!p)
            return OTF2_CALLBACK_ERROR;
        l->ids = p;
        l->cap = ncap;
    }
    l->ids[l->n++] = self;
    return OTF2_CALLBACK_SUCCESS;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static char *anchor_of(const char *path)
{
    struct stat st;
    size_t n = strlen(path) + sizeof "/traces.otf2";
    char *a = malloc(n);
    if (!a)
        return NULL;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        snprintf(a, n, "%s/traces.otf2", path);
    else
        snprintf(a, n, "%s", path);
    return a;
}

static int copy(const char *anchor, const char *out, uint64_t *records)
{
    OTF2_Reader *rd = NULL;
    OTF2_Archive *ar = NULL;
    OTF2_GlobalDefReader *gr;
    OTF2_GlobalDefReaderCallbacks *gcb = NULL;
    OTF2_EvtReaderCallbacks *ecb = NULL;
    OTF2_EvtReader **er = NULL;
    OTF2_ErrorCode rc;
    loc_list locs = {0, 0, NULL};
    uint64_t n;
    bool defs_open;
    size_t i;
    int ret = 1;

    *records = 0;
    if (!(rd = OTF2_Reader_Open(anchor))) {
        fprintf(stderr, "%s: cannot open '%s'\n", prog, anchor);
        return 1;
    }
    if ((rc = OTF2_Reader_SetSerialCollectiveCallbacks(rd)) != OTF2_SUCCESS) {
        fail("OTF2_Reader_SetSerialCollectiveCallbacks", rc);
        goto out;
    }

    /* 1. the location ids */
    if (!(gr = OTF2_Reader_GetGlobalDefReader(rd)) ||
        !(gcb = OTF2_GlobalDefReaderCallbacks_New())) {
        fprintf(stderr, "%s: cannot read the global definitions of '%s'\n", prog, anchor);
        goto out;
    }
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(gcb, on_location);
    if ((rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, gcb, &locs)) != OTF2_SUCCESS ||
        (rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n)) != OTF2_SUCCESS) {
        fail("reading the global definitions", rc);
        goto out;
    }
    if ((rc = OTF2_Reader_CloseGlobalDefReader(rd, gr)) != OTF2_SUCCESS) {
        fail("OTF2_Reader_CloseGlobalDefReader", rc);
        goto out;
    }
    OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    gcb = NULL;

    /* 2. output archive, created exactly as unperturb's writer creates its own */
    {
        up_err err = {0};
        if (up_otf2_archive_create(out, &ar, &err) != UP_OK) {
            fprintf(stderr, "%s: %s\n", prog, err.msg);
            goto out;
        }
    }
    if ((rc = OTF2_Archive_SetCreator(ar, "unperturb bench/copy")) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_OpenEvtFiles(ar)) != OTF2_SUCCESS) {
        fail("setting up the output archive", rc);
        goto out;
    }

    /* 3. local definitions of every location, then its event reader */
    for (i = 0; i < locs.n; i++)
        if ((rc = OTF2_Reader_SelectLocation(rd, locs.ids[i])) != OTF2_SUCCESS) {
            fail("OTF2_Reader_SelectLocation", rc);
            goto out;
        }
    defs_open = OTF2_Reader_OpenDefFiles(rd) == OTF2_SUCCESS; /* optional */
    if ((rc = OTF2_Reader_OpenEvtFiles(rd)) != OTF2_SUCCESS) {
        fail("OTF2_Reader_OpenEvtFiles", rc);
        goto out;
    }
    if (!(er = calloc(locs.n ? locs.n : 1, sizeof *er)) ||
        !(ecb = OTF2_EvtReaderCallbacks_New())) {
        fprintf(stderr, "%s: out of memory\n", prog);
        goto out;
    }
    up_copy_evt_callbacks(ecb);
    for (i = 0; i < locs.n; i++) {
        if (defs_open) {
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(rd, locs.ids[i]);
            if (dr) {
                rc = OTF2_Reader_ReadAllLocalDefinitions(rd, dr, &n);
                if (rc != OTF2_SUCCESS) {
                    fail("reading local definitions", rc);
                    goto out;
                }
                if ((rc = OTF2_Reader_CloseDefReader(rd, dr)) != OTF2_SUCCESS) {
                    fail("OTF2_Reader_CloseDefReader", rc);
                    goto out;
                }
            }
        }
        if (!(er[i] = OTF2_Reader_GetEvtReader(rd, locs.ids[i]))) {
            fprintf(stderr, "%s: no event reader for location %" PRIu64 "\n", prog, locs.ids[i]);
            goto out;
        }
    }
    if (defs_open && (rc = OTF2_Reader_CloseDefFiles(rd)) != OTF2_SUCCESS) {
        fail("OTF2_Reader_CloseDefFiles", rc);
        goto out;
    }

    /* 4. events, one location after the other */
    for (i = 0; i < locs.n; i++) {
        OTF2_EvtWriter *ew = OTF2_Archive_GetEvtWriter(ar, locs.ids[i]);
        if (!ew) {
            fprintf(stderr, "%s: no event writer for location %" PRIu64 "\n", prog, locs.ids[i]);
            goto out;
        }
        if ((rc = OTF2_Reader_RegisterEvtCallbacks(rd, er[i], ecb, ew)) != OTF2_SUCCESS) {
            fail("OTF2_Reader_RegisterEvtCallbacks", rc);
            goto out;
        }
        n = 0;
        if ((rc = OTF2_Reader_ReadAllLocalEvents(rd, er[i], &n)) != OTF2_SUCCESS) {
            fail("copying events", rc);
            goto out;
        }
        *records += n;
        if ((rc = OTF2_Reader_CloseEvtReader(rd, er[i])) != OTF2_SUCCESS) {
            fail("OTF2_Reader_CloseEvtReader", rc);
            goto out;
        }
        er[i] = NULL;
        if ((rc = OTF2_Archive_CloseEvtWriter(ar, ew)) != OTF2_SUCCESS) {
            fail("writing events", rc);
            goto out;
        }
    }
    if ((rc = OTF2_Reader_CloseEvtFiles(rd)) != OTF2_SUCCESS ||
        (rc = OTF2_Archive_CloseEvtFiles(ar)) != OTF2_SUCCESS) {
        fail("closing the event files", rc);
        goto out;
    }

    /* 5. empty local definitions: the reader applied mappings and offsets */
    if ((rc = OTF2_Archive_OpenDefFiles(ar)) != OTF2_SUCCESS) {
        fail("OTF2_Archive_OpenDefFiles", rc);
        goto out;
    }
    for (i = 0; i < locs.n; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, locs.ids[i]);
        if (!dw || (rc = OTF2_Archive_CloseDefWriter(ar, dw)) != OTF2_SUCCESS) {
            fprintf(stderr, "%s: cannot write the local definitions of location %" PRIu64 "\n",
                    prog, locs.ids[i]);
            goto out;
        }
    }
    if ((rc = OTF2_Archive_CloseDefFiles(ar)) != OTF2_SUCCESS) {
        fail("OTF2_Archive_CloseDefFiles", rc);
        goto out;
    }

    /* 6. every global definition, ClockProperties included */
    {
        OTF2_GlobalDefWriter *gw = OTF2_Archive_GetGlobalDefWriter(ar);
        up_def_copy *dc = NULL;
        up_err e = {0};
        if (!gw || !(gr = OTF2_Reader_GetGlobalDefReader(rd)) ||
            !(gcb = OTF2_GlobalDefReaderCallbacks_New()) ||
            up_def_copy_open(gw, NULL, NULL, &dc, &e) != UP_OK) {
            fprintf(stderr, "%s: cannot copy the global definitions\n", prog);
            goto out;
        }
        up_copy_def_callbacks(gcb);
        if ((rc = OTF2_Reader_RegisterGlobalDefCallbacks(rd, gr, gcb, dc)) != OTF2_SUCCESS ||
            (rc = OTF2_Reader_ReadAllGlobalDefinitions(rd, gr, &n)) != OTF2_SUCCESS ||
            (rc = OTF2_Reader_CloseGlobalDefReader(rd, gr)) != OTF2_SUCCESS) {
            up_def_copy_free(dc);
            fail("copying the global definitions", rc);
            goto out;
        }
        if (up_def_copy_finish(dc, &e) != UP_OK) {
            up_def_copy_free(dc);
            fprintf(stderr, "%s: %s\n", prog, e.msg);
            goto out;
        }
        up_def_copy_free(dc);
    }
    rc = OTF2_Archive_Close(ar);
    ar = NULL;
    if (rc != OTF2_SUCCESS) {
        fail("OTF2_Archive_Close", rc);
        goto out;
    }
    ret = 0;

out:
    if (ar)
        OTF2_Archive_Close(ar);
    if (gcb)
        OTF2_GlobalDefReaderCallbacks_Delete(gcb);
    if (ecb)
        OTF2_EvtReaderCallbacks_Delete(ecb);
    if (rd && (rc = OTF2_Reader_Close(rd)) != OTF2_SUCCESS && ret == 0)
        ret = fail("OTF2_Reader_Close", rc);
    free(er);
    free(locs.ids);
    return ret;
}

int main(int argc, char **argv)
{
    uint64_t records;
    double t0, t1;
    char *anchor;
    struct stat st;
    int a = 1, rc;

    if (argc - a != 2) {
        fprintf(stderr, "usage: up-bench-copy IN OUT_DIR  (OUT_DIR must not exist)\n");
        return 2;
    }
    if (stat(argv[a + 1], &st) == 0) {
        fprintf(stderr, "%s: '%s' exists\n", prog, argv[a + 1]);
        return 2;
    }
    if (!(anchor = anchor_of(argv[a])))
        return 1;
    t0 = now();
    rc = copy(anchor, argv[a + 1], &records);
    t1 = now();
    free(anchor);
    if (rc)
        return rc;
    printf("copied %" PRIu64 " records in %.3f s (%.0f records/s)\n", records, t1 - t0,
           t1 > t0 ? (double)records / (t1 - t0) : 0.0);
    return 0;
}
