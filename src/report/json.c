/*
 * json.c - the JSON files the reports write (json.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/json.h"
#include "report/names.h"
#include "trace/trace.h"

up_status up_report_json_write(const json_t *root, size_t flags, const char *path, up_err *err)
{
    char *text = root ? json_dumps(root, flags) : NULL;
    up_status st;
    if (!text)
        return UP_ERR(err, UP_ENOMEM, "out of memory writing '%s'", up_output_name(path));
    st = up_write_file(path, text, strlen(text), err);
    free(text);
    return st;
}

json_t *up_report_json_child(json_t *parent, const char *key, json_t *v)
{
    if (!v || json_object_set_new(parent, key, v) != 0)
        return NULL;
    return v;
}

json_t *up_report_json_real(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *up_report_json_rank(long rank)
{
    return rank == UP_NO_RANK ? json_null() : json_integer((json_int_t)rank);
}

json_t *up_report_json_loc(json_t *arr, uint64_t id, long rank, const char *name)
{
    json_t *o = json_object();
    if (!o || json_array_append_new(arr, o) != 0)
        return NULL;
    json_object_set_new(o, "location", json_integer((json_int_t)id));
    json_object_set_new(o, "rank", up_report_json_rank(rank));
    json_object_set_new(o, "name", up_report_json_name(name));
    return o;
}
